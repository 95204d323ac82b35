//! Instance transforms: validation, inverse, normal matrix, box transforms.

use nalgebra::{Matrix3, Matrix4};
use raypick_primitives::{Aabb, Point3, Ray, Real, Unit, Vector3};

use super::SceneError;

/// An invertible affine map `x -> linear * x + translation`, with everything the queries
/// need precomputed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct InstanceTransform {
    pub linear: Matrix3<Real>,
    pub translation: Vector3<Real>,
    pub inv_linear: Matrix3<Real>,
    pub inv_translation: Vector3<Real>,
    /// Inverse transpose of `linear` (normals).
    pub normal_matrix: Matrix3<Real>,
    /// `Some(s)` when `linear` is `s` times an orthogonal matrix (rotation, maybe mirrored),
    /// so distances scale uniformly by `s`.
    pub uniform_scale: Option<Real>,
    /// Smallest singular value of `linear`: world distance >= this * object distance.
    pub min_scale: Real,
}

impl InstanceTransform {
    /// Validates `m` (finite, affine bottom row, invertible) and precomputes.
    pub fn new(m: &Matrix4<Real>) -> Result<Self, SceneError> {
        for row in 0..4 {
            for column in 0..4 {
                if !m[(row, column)].is_finite() {
                    return Err(SceneError::NonFiniteTransform { row, column });
                }
            }
        }
        if m[(3, 0)] != 0.0 || m[(3, 1)] != 0.0 || m[(3, 2)] != 0.0 || m[(3, 3)] != 1.0 {
            return Err(SceneError::ProjectiveTransform);
        }
        let linear: Matrix3<Real> = m.fixed_view::<3, 3>(0, 0).into_owned();
        let translation = Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]);
        let l64 = linear.cast::<f64>();
        let det = l64.determinant();
        // Relative to the size of the entries, so that a tiny but well-conditioned scale works.
        let scale = l64.abs().max();
        if !(det.abs() > 1e-12 * scale * scale * scale) {
            return Err(SceneError::SingularTransform { determinant: det });
        }
        let inv64 = l64
            .try_inverse()
            .ok_or(SceneError::SingularTransform { determinant: det })?;
        let inv_linear: Matrix3<Real> = inv64.cast();
        if !inv_linear.iter().all(|c| c.is_finite()) {
            return Err(SceneError::SingularTransform { determinant: det });
        }
        let inv_translation: Vector3<Real> = (-(inv64 * translation.cast::<f64>())).cast();
        let normal_matrix = inv_linear.transpose();
        let svd = l64.svd(false, false);
        let min_scale = svd.singular_values.min();
        let max_scale = svd.singular_values.max();
        let uniform_scale = ((max_scale - min_scale) <= 1e-6 * max_scale)
            .then_some(((max_scale + min_scale) * 0.5) as Real);
        Ok(Self {
            linear,
            translation,
            inv_linear,
            inv_translation,
            normal_matrix,
            uniform_scale,
            min_scale: (min_scale * (1.0 - 1e-6)) as Real,
        })
    }

    /// The 4x4 matrix.
    pub fn matrix(&self) -> Matrix4<Real> {
        let mut m = Matrix4::identity();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.linear);
        m.fixed_view_mut::<3, 1>(0, 3).copy_from(&self.translation);
        m
    }

    /// Object point to world.
    #[inline]
    pub fn point_to_world(&self, p: &Point3<Real>) -> Point3<Real> {
        Point3::from(self.linear * p.coords + self.translation)
    }

    /// World point to object.
    #[inline]
    pub fn point_to_object(&self, p: &Point3<Real>) -> Point3<Real> {
        Point3::from(self.inv_linear * p.coords + self.inv_translation)
    }

    /// World ray to object space, not normalized: `t` means the same in both.
    #[inline]
    pub fn ray_to_object(&self, ray: &Ray) -> Ray {
        Ray::new(self.point_to_object(&ray.origin), self.inv_linear * ray.dir)
    }

    /// Object-space normal (any length) to a world unit normal; `None` if it vanishes.
    #[inline]
    pub fn normal_to_world(&self, n: &Vector3<Real>) -> Option<Unit<Vector3<Real>>> {
        let w = self.normal_matrix * n;
        Unit::try_new(w, 0.0).filter(|u| u.iter().all(|c| c.is_finite()))
    }

    /// The world box of an object box (Arvo's method; exact for the transformed box's AABB).
    pub fn box_to_world(&self, b: &Aabb) -> Aabb {
        b.transformed_by_matrix(&self.matrix())
    }
}

/// True when every coordinate of the box is finite and the box is not empty.
pub(crate) fn is_finite_box(b: &Aabb) -> bool {
    !b.is_empty() && b.min.iter().chain(b.max.iter()).all(|c| c.is_finite())
}
