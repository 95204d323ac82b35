//! Cameras: rays through window pixels and points projected back onto the window.
//!
//! A [`Camera`] is a view matrix and a projection matrix plus the [`ClipConvention`] that
//! says how the projection maps depth (OpenGL `-1..1`, `0..1` as in Vulkan, wgpu and D3D,
//! or either one reversed) and which way NDC y points. Build one from eye / target / up
//! ([`Camera::look_at`]) or from the matrices your renderer already uses
//! ([`Camera::from_matrices`]).
//!
//! Window pixels have their origin at the top left of the [`Viewport`] with y pointing down;
//! the centre of pixel `(i, j)` is at `(i + 0.5, j + 0.5)`. Internally everything is done in
//! f64, so projecting a point back lands within a small fraction of a pixel.
//!
//! ```
//! use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
//! use raypick_primitives::{Point3, Vector3};
//!
//! let camera = Camera::look_at(
//!     Point3::new(0.0, 0.0, 5.0),
//!     Point3::origin(),
//!     Vector3::y(),
//!     Projection::perspective(60f32.to_radians(), 16.0 / 9.0, 0.1, 100.0),
//!     ClipConvention::OPENGL,
//! )
//! .unwrap();
//! let viewport = Viewport::new(1920.0, 1080.0);
//! let ray = camera.ray_from_pixel(960.0, 540.0, &viewport).unwrap();
//! // The centre ray starts on the near plane and looks down -z with a unit direction.
//! assert!((ray.origin.z - 4.9).abs() < 1e-5);
//! assert!((ray.dir.z + 1.0).abs() < 1e-6);
//! // t is the distance from the near plane: the origin is hit at t = 4.9.
//! let p = camera.project(&ray.at(4.9), &viewport).unwrap();
//! assert!((p.x - 960.0).abs() < 1e-3 && (p.y - 540.0).abs() < 1e-3);
//! ```

mod clip;
mod projection;
mod viewport;

pub use clip::{ClipConvention, NdcDepth};
pub use projection::Projection;
pub use viewport::{ScreenRect, Viewport};

use nalgebra::{Isometry3, Matrix4, Point3 as P3, Vector4};
use raypick_primitives::{Frustum, Point3, Ray, Real, Vector3};

/// Why a camera could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CameraError {
    /// A projection parameter is out of range; the message names it.
    #[error("invalid projection: {0}")]
    InvalidProjection(&'static str),
    /// Eye, target or up is not finite, eye equals target, or up is parallel to the view
    /// direction.
    #[error("invalid look-at: {0}")]
    InvalidLookAt(&'static str),
    /// The view or projection matrix has a non-finite entry.
    #[error("the {0} matrix has a non-finite entry")]
    NonFinite(&'static str),
    /// The view-projection matrix cannot be inverted.
    #[error("the view-projection matrix is singular")]
    Singular,
}

/// A point projected onto the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenPoint {
    /// Window x in pixels (right).
    pub x: Real,
    /// Window y in pixels (down).
    pub y: Real,
    /// NDC depth in the camera's convention (near plane at [`ClipConvention::near_ndc`]).
    pub depth: Real,
}

/// A camera: view and projection matrices and their clip convention.
///
/// All matrices are kept in f64. The camera is immutable; build a new one when it moves
/// (that is cheap: one 4x4 inverse).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    view: Matrix4<f64>,
    proj: Matrix4<f64>,
    view_proj: Matrix4<f64>,
    inv_view_proj: Matrix4<f64>,
    convention: ClipConvention,
}

impl Camera {
    /// A right-handed camera at `eye` looking at `target` with `up` roughly up, using the
    /// projection matrix that `projection` gives for `convention`.
    ///
    /// # Errors
    /// Non-finite input, `eye == target`, `up` parallel to the view direction
    /// ([`CameraError::InvalidLookAt`]) or a projection parameter out of range
    /// ([`CameraError::InvalidProjection`]).
    pub fn look_at(
        eye: Point3<Real>,
        target: Point3<Real>,
        up: Vector3<Real>,
        projection: Projection,
        convention: ClipConvention,
    ) -> Result<Self, CameraError> {
        let finite = |v: &[Real]| v.iter().all(|c| c.is_finite());
        if !(finite(eye.coords.as_slice())
            && finite(target.coords.as_slice())
            && finite(up.as_slice()))
        {
            return Err(CameraError::InvalidLookAt(
                "eye, target and up must be finite",
            ));
        }
        let eye = eye.cast::<f64>();
        let target = target.cast::<f64>();
        let up = up.cast::<f64>();
        let fwd = target - eye;
        if fwd.norm_squared() == 0.0 {
            return Err(CameraError::InvalidLookAt("eye equals target"));
        }
        if fwd.normalize().cross(&up).norm() <= 1e-12 * up.norm() || up.norm_squared() == 0.0 {
            return Err(CameraError::InvalidLookAt(
                "up is zero or parallel to the view direction",
            ));
        }
        let view = Isometry3::look_at_rh(&P3::from(eye.coords), &target, &up).to_homogeneous();
        let proj = projection.matrix(convention)?;
        Self::from_f64(view, proj, convention)
    }

    /// A camera from a view matrix (world to view space) and a projection matrix (view to clip
    /// space) following `convention`.
    ///
    /// Any invertible combination works, including off-centre, infinite-far and reversed-Z
    /// projections. Points in front of the camera must have a positive clip `w`.
    ///
    /// # Errors
    /// [`CameraError::NonFinite`] naming the matrix, or [`CameraError::Singular`] when the
    /// product cannot be inverted.
    pub fn from_matrices(
        view: &Matrix4<Real>,
        projection: &Matrix4<Real>,
        convention: ClipConvention,
    ) -> Result<Self, CameraError> {
        // Widening to f64 keeps every value and its finiteness.
        Self::from_matrices_f64(&view.cast(), &projection.cast(), convention)
    }

    /// [`Camera::from_matrices`] in f64.
    ///
    /// # Errors
    /// As [`Camera::from_matrices`].
    pub fn from_matrices_f64(
        view: &Matrix4<f64>,
        projection: &Matrix4<f64>,
        convention: ClipConvention,
    ) -> Result<Self, CameraError> {
        if !view.iter().all(|c| c.is_finite()) {
            return Err(CameraError::NonFinite("view"));
        }
        if !projection.iter().all(|c| c.is_finite()) {
            return Err(CameraError::NonFinite("projection"));
        }
        Self::from_f64(*view, *projection, convention)
    }

    fn from_f64(
        view: Matrix4<f64>,
        proj: Matrix4<f64>,
        convention: ClipConvention,
    ) -> Result<Self, CameraError> {
        let view_proj = proj * view;
        let inv_view_proj = view_proj.try_inverse().ok_or(CameraError::Singular)?;
        if !inv_view_proj.iter().all(|c| c.is_finite()) {
            return Err(CameraError::Singular);
        }
        Ok(Self {
            view,
            proj,
            view_proj,
            inv_view_proj,
            convention,
        })
    }

    /// The view matrix (world to view space).
    #[must_use]
    pub fn view_matrix(&self) -> Matrix4<f64> {
        self.view
    }

    /// The projection matrix (view to clip space).
    #[must_use]
    pub fn projection_matrix(&self) -> Matrix4<f64> {
        self.proj
    }

    /// `projection * view` (world to clip space).
    #[must_use]
    pub fn view_projection(&self) -> Matrix4<f64> {
        self.view_proj
    }

    /// The clip convention the projection follows.
    #[must_use]
    pub fn convention(&self) -> ClipConvention {
        self.convention
    }

    /// The ray through window position `(x, y)` (pixels, origin top left, y down; the centre
    /// of pixel `(i, j)` is `(i + 0.5, j + 0.5)`).
    ///
    /// The ray starts on the near plane and its direction has unit length in world space, so
    /// `t` is the world distance from the near plane along the ray. Positions outside the
    /// viewport give rays outside the view volume, which is fine.
    ///
    /// Returns `None` for a non-finite position or an invalid viewport.
    #[must_use]
    pub fn ray_from_pixel(&self, x: Real, y: Real, viewport: &Viewport) -> Option<Ray> {
        let (o, d) = self.ray_from_pixel_f64(f64::from(x), f64::from(y), viewport)?;
        Some(Ray::new(o.cast::<Real>(), d.cast::<Real>()))
    }

    /// [`Camera::ray_from_pixel`] entirely in f64: the origin on the near plane and the unit
    /// direction, for callers that need more than f32 precision (tiny near planes far from
    /// the world origin).
    #[must_use]
    pub fn ray_from_pixel_f64(
        &self,
        x: f64,
        y: f64,
        viewport: &Viewport,
    ) -> Option<(P3<f64>, nalgebra::Vector3<f64>)> {
        if !(x.is_finite() && y.is_finite() && viewport.is_valid()) {
            return None;
        }
        self.row_unprojection(y, viewport).ray(x)
    }

    /// What the rays of window row `y` share (see [`RowUnprojection`]).
    fn row_unprojection(&self, y: f64, viewport: &Viewport) -> RowUnprojection {
        let (_, ny) = viewport.window_to_ndc(0.0, y, self.convention.y_down);
        let zn = self.convention.near_ndc();
        // A second point halfway through the depth range: finite even with an infinite far.
        let zm = 0.5 * (zn + self.convention.far_ndc());
        let m = &self.inv_view_proj;
        let near = m * Vector4::new(0.0, ny, zn, 1.0);
        RowUnprojection {
            near,
            mid: near + m.column(2) * (zm - zn),
            dx: m.column(0).into_owned(),
            left: f64::from(viewport.x),
            scale: 2.0 / f64::from(viewport.width),
        }
    }

    /// The rays through the centres of the pixels `columns` of pixel row `y`, that is
    /// through window positions `(x + 0.5, y + 0.5)`, into `out` (cleared first): the rays a
    /// render or a depth image casts, at a fraction of the cost of a
    /// [`Camera::ray_from_pixel`] call each, since the row's part of the unprojection is
    /// computed once: exactly `ray_from_pixel`'s rays (the same operations), `None` where it
    /// gives none (an invalid viewport, say).
    ///
    /// ```
    /// use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
    /// use raypick_primitives::{Point3, Vector3};
    ///
    /// let camera = Camera::look_at(
    ///     Point3::new(0.0, 0.0, 5.0),
    ///     Point3::origin(),
    ///     Vector3::y(),
    ///     Projection::perspective(60f32.to_radians(), 64.0 / 48.0, 0.1, 100.0),
    ///     ClipConvention::OPENGL,
    /// )
    /// .unwrap();
    /// let viewport = Viewport::new(64.0, 48.0);
    /// let mut row = Vec::new();
    /// camera.row_rays(24, 0..64, &viewport, &mut row);
    /// assert_eq!(row[32], camera.ray_from_pixel(32.5, 24.5, &viewport));
    /// ```
    pub fn row_rays(
        &self,
        y: u32,
        columns: std::ops::Range<u32>,
        viewport: &Viewport,
        out: &mut Vec<Option<Ray>>,
    ) {
        out.clear();
        if !viewport.is_valid() {
            out.extend(columns.map(|_| None));
            return;
        }
        let row = self.row_unprojection(f64::from(y) + 0.5, viewport);
        out.extend(columns.map(|x| {
            let (o, d) = row.ray(f64::from(x) + 0.5)?;
            Some(Ray::new(o.cast::<Real>(), d.cast::<Real>()))
        }));
    }

    /// The window position (pixels, origin top left, y down) and NDC depth of `point`.
    ///
    /// Returns `None` when the point is at or behind the camera plane (clip `w <= 0`) or
    /// non-finite, or the viewport is invalid. Points in front of the camera but outside the
    /// view volume (beyond the window edges, before the near or after the far plane) are
    /// projected normally.
    #[must_use]
    pub fn project(&self, point: &Point3<Real>, viewport: &Viewport) -> Option<ScreenPoint> {
        let (x, y, depth) = self.project_f64(&point.cast::<f64>(), viewport)?;
        Some(ScreenPoint {
            x: x as Real,
            y: y as Real,
            depth: depth as Real,
        })
    }

    /// [`Camera::project`] in f64: `(x, y, ndc depth)`.
    #[must_use]
    pub fn project_f64(&self, point: &P3<f64>, viewport: &Viewport) -> Option<(f64, f64, f64)> {
        if !viewport.is_valid() {
            return None;
        }
        let c = self.view_proj * point.to_homogeneous();
        if c.w.is_nan() || c.w <= 0.0 || !c.iter().all(|v| v.is_finite()) {
            return None;
        }
        let (x, y) = viewport.ndc_to_window(c.x / c.w, c.y / c.w, self.convention.y_down);
        Some((x, y, c.z / c.w))
    }

    /// The world-to-clip matrix of the sub-view through `rect`: it maps the part of the view
    /// volume behind the rectangle onto the whole clip volume, so its frustum is the
    /// rectangle's frustum (the volume a marquee selects from).
    ///
    /// Returns `None` for an invalid rectangle or viewport.
    #[must_use]
    pub fn rect_view_projection(
        &self,
        rect: &ScreenRect,
        viewport: &Viewport,
    ) -> Option<Matrix4<f64>> {
        if !(rect.is_valid() && viewport.is_valid()) {
            return None;
        }
        let y_down = self.convention.y_down;
        let (ax, ay) =
            viewport.window_to_ndc(f64::from(rect.min[0]), f64::from(rect.min[1]), y_down);
        let (bx, by) =
            viewport.window_to_ndc(f64::from(rect.max[0]), f64::from(rect.max[1]), y_down);
        let (x0, x1) = (ax.min(bx), ax.max(bx));
        let (y0, y1) = (ay.min(by), ay.max(by));
        // x' = (2x - (x0 + x1) w) / (x1 - x0), the same for y; z and w unchanged.
        #[rustfmt::skip]
        let s = Matrix4::new(
            2.0 / (x1 - x0), 0.0, 0.0, -(x0 + x1) / (x1 - x0),
            0.0, 2.0 / (y1 - y0), 0.0, -(y0 + y1) / (y1 - y0),
            0.0, 0.0, 1.0, 0.0,
            0.0, 0.0, 0.0, 1.0,
        );
        Some(s * self.view_proj)
    }

    /// The frustum behind `rect`: everything that projects into the rectangle between the
    /// near and far planes (the volume a marquee selects from), as a
    /// [`raypick_primitives::Frustum`] for the `frustum_*` kernels.
    ///
    /// Returns `None` for an invalid rectangle or viewport.
    #[must_use]
    pub fn rect_frustum(&self, rect: &ScreenRect, viewport: &Viewport) -> Option<Frustum> {
        let m = self.rect_view_projection(rect, viewport)?;
        Some(Frustum::from_view_projection(
            &m.cast::<Real>(),
            self.convention.frustum_depth_range(),
        ))
    }

    /// The whole view frustum (the viewport's rectangle).
    #[must_use]
    pub fn frustum(&self) -> Frustum {
        Frustum::from_view_projection(
            &self.view_proj.cast::<Real>(),
            self.convention.frustum_depth_range(),
        )
    }

    /// The six planes of the frustum behind `rect` as `(normal, offset)` with the inside where
    /// `normal . p + offset >= 0`, in the order left, right, bottom, top, near, far.
    ///
    /// Normals are not normalized; with an infinite far plane the far plane has a zero normal
    /// and a non-negative offset (everything is inside it). Returns `None` for an invalid
    /// rectangle or viewport.
    #[must_use]
    pub fn rect_planes(
        &self,
        rect: &ScreenRect,
        viewport: &Viewport,
    ) -> Option<[(nalgebra::Vector3<f64>, f64); 6]> {
        let m = self.rect_view_projection(rect, viewport)?;
        Some(clip_planes(&m, self.convention.depth))
    }
}

/// The six clip planes of `m` (Gribb and Hartmann), inside where `n . p + d >= 0`.
pub(crate) fn clip_planes(m: &Matrix4<f64>, depth: NdcDepth) -> [(nalgebra::Vector3<f64>, f64); 6] {
    let row = |i: usize| m.row(i).transpose();
    let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
    let split = |v: Vector4<f64>| (v.xyz(), v.w);
    let near = match depth {
        NdcDepth::NegOneToOne => r3 + r2,
        NdcDepth::ZeroToOne => r2,
    };
    // A reversed-Z convention only swaps which of the two depth planes is near; the pair is
    // the same set of inequalities, so the planes are listed by range, not by name.
    [
        split(r3 + r0),
        split(r3 - r0),
        split(r3 + r1),
        split(r3 - r1),
        split(near),
        split(r3 - r2),
    ]
}

/// The unprojection of one window row: the homogeneous near and mid-depth points at NDC
/// `x = 0`, which are affine in the NDC `x` (`h(x) = h(0) + x * dx`), and the window-to-NDC
/// map of `x`. Every camera ray is made through it, one pixel or a row at a time, so both
/// give the same bits.
struct RowUnprojection {
    near: Vector4<f64>,
    mid: Vector4<f64>,
    dx: Vector4<f64>,
    left: f64,
    scale: f64,
}

impl RowUnprojection {
    /// The ray through window `x` of the row: the origin on the near plane and the unit
    /// direction, or `None` where a point lies at infinity or the direction vanishes.
    #[inline]
    fn ray(&self, x: f64) -> Option<(P3<f64>, nalgebra::Vector3<f64>)> {
        let nx = (x - self.left) * self.scale - 1.0;
        let p0 = dehomogenize(&(self.near + self.dx * nx))?;
        let p1 = dehomogenize(&(self.mid + self.dx * nx))?;
        let d = p1 - p0;
        let len = d.norm();
        if !(len > 0.0 && len.is_finite()) {
            return None;
        }
        Some((p0, d * (1.0 / len)))
    }
}

/// The point of homogeneous coordinates `h`, or `None` when it lies at infinity or does not
/// fit in f64.
#[inline]
fn dehomogenize(h: &Vector4<f64>) -> Option<P3<f64>> {
    if h.w == 0.0 || !h.w.is_finite() {
        return None;
    }
    let inv = 1.0 / h.w;
    let p = P3::new(h.x * inv, h.y * inv, h.z * inv);
    p.iter().all(|c| c.is_finite()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_far_ndc() {
        assert_eq!(ClipConvention::OPENGL.near_ndc(), -1.0);
        assert_eq!(ClipConvention::OPENGL.reversed_z().near_ndc(), 1.0);
        assert_eq!(ClipConvention::OPENGL.reversed_z().far_ndc(), -1.0);
        assert_eq!(ClipConvention::VULKAN.reversed_z().far_ndc(), 0.0);
    }

    #[test]
    fn projection_maps_near_and_far() {
        for conv in [
            ClipConvention::OPENGL,
            ClipConvention::ZERO_TO_ONE,
            ClipConvention::OPENGL.reversed_z(),
            ClipConvention::ZERO_TO_ONE.reversed_z(),
        ] {
            let m = Projection::perspective(1.0, 1.5, 0.5, 20.0)
                .matrix(conv)
                .unwrap();
            let ndc = |d: f64| {
                let c = m * Vector4::new(0.0, 0.0, -d, 1.0);
                c.z / c.w
            };
            assert!((ndc(0.5) - conv.near_ndc()).abs() < 1e-12);
            assert!((ndc(20.0) - conv.far_ndc()).abs() < 1e-12);
            let o = Projection::orthographic(2.0, 1.0, -1.0, 3.0)
                .matrix(conv)
                .unwrap();
            let ndc = |d: f64| (o * Vector4::new(0.0, 0.0, -d, 1.0)).z;
            assert!((ndc(-1.0) - conv.near_ndc()).abs() < 1e-12);
            assert!((ndc(3.0) - conv.far_ndc()).abs() < 1e-12);
        }
    }
}
