//! The projection part of a camera: perspective or orthographic, and its matrix.

use nalgebra::Matrix4;
use raypick_primitives::Real;

use super::{CameraError, ClipConvention};

/// The projection part of [`Camera::look_at`](super::Camera::look_at).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Perspective projection.
    Perspective {
        /// Vertical field of view in radians, in `(0, pi)`.
        fov_y: Real,
        /// Width over height; normally the viewport's.
        aspect: Real,
        /// Distance to the near plane, `> 0`.
        near: Real,
        /// Distance to the far plane, `> near`; `Real::INFINITY` gives an infinite far plane.
        far: Real,
    },
    /// Orthographic projection.
    Orthographic {
        /// Height of the view volume in world units, `> 0`.
        height: Real,
        /// Width over height; normally the viewport's.
        aspect: Real,
        /// Signed distance to the near plane (may be negative or zero).
        near: Real,
        /// Signed distance to the far plane, finite and `> near`.
        far: Real,
    },
}

impl Projection {
    /// A perspective projection (see [`Projection::Perspective`] for the valid ranges).
    #[must_use]
    pub const fn perspective(fov_y: Real, aspect: Real, near: Real, far: Real) -> Self {
        Self::Perspective {
            fov_y,
            aspect,
            near,
            far,
        }
    }

    /// An orthographic projection (see [`Projection::Orthographic`] for the valid ranges).
    #[must_use]
    pub const fn orthographic(height: Real, aspect: Real, near: Real, far: Real) -> Self {
        Self::Orthographic {
            height,
            aspect,
            near,
            far,
        }
    }

    /// The right-handed projection matrix (camera looking down -z) for `convention`.
    ///
    /// # Errors
    /// [`CameraError::InvalidProjection`] naming the bad parameter.
    pub fn matrix(&self, convention: ClipConvention) -> Result<Matrix4<f64>, CameraError> {
        let bad = |what: &'static str| Err(CameraError::InvalidProjection(what));
        let (zn, zf) = (convention.near_ndc(), convention.far_ndc());
        let ysign = if convention.y_down { -1.0 } else { 1.0 };
        match *self {
            Projection::Perspective {
                fov_y,
                aspect,
                near,
                far,
            } => {
                if !(fov_y > 0.0 && fov_y < std::f32::consts::PI) {
                    return bad("fov_y must be in (0, pi)");
                }
                if !(aspect > 0.0 && aspect.is_finite()) {
                    return bad("aspect must be positive and finite");
                }
                if !(near > 0.0 && near.is_finite()) {
                    return bad("near must be positive and finite");
                }
                if far.is_nan() || far <= near {
                    return bad("far must be greater than near");
                }
                let f = 1.0 / (f64::from(fov_y) * 0.5).tan();
                let n = f64::from(near);
                // z_ndc(d) = -a + b / d at view depth d = -z: solve for near -> zn, far -> zf.
                let (a, b) = if far.is_infinite() {
                    let b = (zn - zf) * n;
                    (b / n - zn, b)
                } else {
                    let fa = f64::from(far);
                    let b = (zn - zf) * n * fa / (fa - n);
                    (b / n - zn, b)
                };
                #[rustfmt::skip]
                let m = Matrix4::new(
                    f / f64::from(aspect), 0.0, 0.0, 0.0,
                    0.0, ysign * f, 0.0, 0.0,
                    0.0, 0.0, a, b,
                    0.0, 0.0, -1.0, 0.0,
                );
                Ok(m)
            }
            Projection::Orthographic {
                height,
                aspect,
                near,
                far,
            } => {
                if !(height > 0.0 && height.is_finite()) {
                    return bad("height must be positive and finite");
                }
                if !(aspect > 0.0 && aspect.is_finite()) {
                    return bad("aspect must be positive and finite");
                }
                if !(near.is_finite() && far.is_finite()) {
                    return bad("near and far must be finite");
                }
                if far.is_nan() || far <= near {
                    return bad("far must be greater than near");
                }
                let (n, fa) = (f64::from(near), f64::from(far));
                let h = f64::from(height);
                let w = h * f64::from(aspect);
                // z_ndc = a * z + b with z = -near -> zn, z = -far -> zf.
                let a = (zn - zf) / (fa - n);
                let b = zn + a * n;
                #[rustfmt::skip]
                let m = Matrix4::new(
                    2.0 / w, 0.0, 0.0, 0.0,
                    0.0, ysign * 2.0 / h, 0.0, 0.0,
                    0.0, 0.0, a, b,
                    0.0, 0.0, 0.0, 1.0,
                );
                Ok(m)
            }
        }
    }
}
