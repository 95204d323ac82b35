//! Instance transforms: validation, inverse, normal matrix, box transforms.

use nalgebra::{Matrix3, Matrix4};
use raypick_primitives::{Aabb, Point3, Ray, Ray64, Real, Unit, Vector3};

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
    /// Largest singular value of `linear`, rounded up: world distance <= this * object
    /// distance.
    pub max_scale: Real,
    /// Per object axis, a weight `w` with `|linear * v|² >= Σ w[i] v[i]²` for every `v`:
    /// the diagonal of `linearᵀ linear` less each row's other entries (Gershgorin), so
    /// exact for a scale followed by a rotation, the usual placement; all 0 where one would
    /// be negative (strong shears).
    pub axis_weights: [f64; 3],
    /// The object-to-world matrix in f64, as given (the f32 fields are its rounding).
    pub m64: Matrix4<f64>,
    /// Its inverse in f64: world rays far from the origin go to object space through this.
    pub inv64: Matrix4<f64>,
    /// True for exactly the identity: the f32 maps are then skipped (a scene of one mesh
    /// placed as is, the common case of a viewer).
    pub identity: bool,
}

impl InstanceTransform {
    /// Validates `m` (finite, affine bottom row, invertible) and precomputes.
    pub fn new(m: &Matrix4<Real>) -> Result<Self, SceneError> {
        Self::new_f64(&m.cast())
    }

    /// [`InstanceTransform::new`] for an f64 matrix (large coordinates): the f64 forms are
    /// kept for the f64 queries, the f32 forms are their rounding.
    pub fn new_f64(m: &Matrix4<f64>) -> Result<Self, SceneError> {
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
        let l64: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
        let t64 = nalgebra::Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]);
        let linear: Matrix3<Real> = l64.cast();
        let translation: Vector3<Real> = t64.cast();
        if !linear
            .iter()
            .chain(translation.iter())
            .all(|c| c.is_finite())
        {
            return Err(SceneError::NonFiniteTransform { row: 0, column: 3 });
        }
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
        let inv_t64 = -(inv64 * t64);
        let inv_translation: Vector3<Real> = inv_t64.cast();
        let mut inv4 = Matrix4::identity();
        inv4.fixed_view_mut::<3, 3>(0, 0).copy_from(&inv64);
        inv4.fixed_view_mut::<3, 1>(0, 3).copy_from(&inv_t64);
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
            max_scale: (max_scale * (1.0 + 1e-6)) as Real,
            axis_weights: axis_weights(&linear.cast()),
            m64: *m,
            inv64: inv4,
            identity: *m == Matrix4::identity(),
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
        if self.identity {
            return *p;
        }
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
        if self.identity {
            return *ray;
        }
        Ray::new(self.point_to_object(&ray.origin), self.inv_linear * ray.dir)
    }

    /// Object-space normal (any length) to a world unit normal; `None` if it vanishes.
    #[inline]
    pub fn normal_to_world(&self, n: &Vector3<Real>) -> Option<Unit<Vector3<Real>>> {
        let w = self.normal_matrix * n;
        Unit::try_new(w, 0.0).filter(|u| u.iter().all(|c| c.is_finite()))
    }

    /// Object-space unit normal to a world unit normal: itself under the identity, else
    /// [`InstanceTransform::normal_to_world`] (the object normal where that vanishes).
    #[inline]
    pub fn unit_normal_to_world(&self, n: &Unit<Vector3<Real>>) -> Unit<Vector3<Real>> {
        if self.identity {
            return *n;
        }
        self.normal_to_world(n).unwrap_or(*n)
    }

    /// World f64 ray to object space, rounded to f32 only there (where coordinates are
    /// small); `t` means the same in both.
    #[inline]
    pub fn ray64_to_object(&self, ray: &Ray64) -> Ray {
        let d = self.inv64.fixed_view::<3, 3>(0, 0) * ray.dir;
        Ray::new(self.point64_to_object(&ray.origin), d.cast())
    }

    /// Object point to world, in f64.
    #[inline]
    pub fn point_to_world64(&self, p: &Point3<Real>) -> nalgebra::Point3<f64> {
        let l = self.m64.fixed_view::<3, 3>(0, 0);
        nalgebra::Point3::from(l * p.coords.cast::<f64>() + self.m64.fixed_view::<3, 1>(0, 3))
    }

    /// World f64 point to object space, rounded to f32 only there (the affine part only:
    /// `Matrix4::transform_point` would divide by w).
    #[inline]
    pub fn point64_to_object(&self, p: &nalgebra::Point3<f64>) -> Point3<Real> {
        let l = self.inv64.fixed_view::<3, 3>(0, 0);
        Point3::from((l * p.coords + self.inv64.fixed_view::<3, 1>(0, 3)).cast::<Real>())
    }

    /// This placement followed by a move of the world by `-c`: world coordinates relative to
    /// `c`, so that f32 world points near `c` keep the precision of the object's own data
    /// however far `c` is from the origin. The linear part is unchanged. `None` when the
    /// moved translation overflows f32.
    pub fn shifted(&self, c: &nalgebra::Point3<f64>) -> Option<Self> {
        let mut m64 = self.m64;
        for i in 0..3 {
            m64[(i, 3)] -= c[i];
        }
        let t64 = nalgebra::Vector3::new(m64[(0, 3)], m64[(1, 3)], m64[(2, 3)]);
        let inv_t64 = -(self.inv64.fixed_view::<3, 3>(0, 0) * t64);
        let mut inv64 = self.inv64;
        inv64.fixed_view_mut::<3, 1>(0, 3).copy_from(&inv_t64);
        let translation: Vector3<Real> = t64.cast();
        let inv_translation: Vector3<Real> = inv_t64.cast();
        if !translation
            .iter()
            .chain(inv_translation.iter())
            .all(|c| c.is_finite())
        {
            return None;
        }
        Some(Self {
            translation,
            inv_translation,
            m64,
            inv64,
            identity: false,
            ..*self
        })
    }

    /// The world box of an object box (Arvo's method in f64, rounded outward to f32 so that
    /// it holds the f64 placement's box; near the origin it is the exact box).
    pub fn box_to_world(&self, b: &Aabb) -> Aabb {
        if b.is_empty() {
            return Aabb::EMPTY;
        }
        let m = &self.m64;
        let mut lo = [m[(0, 3)], m[(1, 3)], m[(2, 3)]];
        let mut hi = lo;
        for i in 0..3 {
            for j in 0..3 {
                let a = m[(i, j)] * f64::from(b.min[j]);
                let c = m[(i, j)] * f64::from(b.max[j]);
                lo[i] += a.min(c);
                hi[i] += a.max(c);
            }
        }
        Aabb {
            min: Point3::new(down(lo[0]), down(lo[1]), down(lo[2])),
            max: Point3::new(up(hi[0]), up(hi[1]), up(hi[2])),
        }
    }
}

/// [`InstanceTransform::axis_weights`] of `l` (the f32 map, in f64: the one the queries
/// apply), shrunk by 1e-6 for the rounding of the products.
fn axis_weights(l: &Matrix3<f64>) -> [f64; 3] {
    let g = l.transpose() * l;
    let w: [f64; 3] = std::array::from_fn(|i| {
        let off: f64 = (0..3).filter(|&j| j != i).map(|j| g[(i, j)].abs()).sum();
        (g[(i, i)] - off) * (1.0 - 1e-6)
    });
    // `G - diag(w)` is diagonally dominant, so positive semidefinite, only while every `w`
    // is at least 0 (a clamped one would break its row): else no weights.
    if w.iter().all(|&x| x >= 0.0) {
        w
    } else {
        [0.0; 3]
    }
}

/// The largest f32 at or below `x`.
fn down(x: f64) -> Real {
    let f = x as Real;
    if f64::from(f) > x {
        f.next_down()
    } else {
        f
    }
}

/// The smallest f32 at or above `x`.
fn up(x: f64) -> Real {
    let f = x as Real;
    if f64::from(f) < x {
        f.next_up()
    } else {
        f
    }
}

/// True when every coordinate of the box is finite and the box is not empty.
pub(crate) fn is_finite_box(b: &Aabb) -> bool {
    !b.is_empty() && b.min.iter().chain(b.max.iter()).all(|c| c.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny generator (no dependency for one test).
    fn next(s: &mut u64) -> f64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }

    /// The weights bound `|L v|²` from below for every `v`, sheared maps included, and are
    /// the squared scales for a scale followed by a rotation.
    #[test]
    fn axis_weights_bound_the_metric() {
        let mut s = 7u64;
        for case in 0..2000 {
            let l = Matrix3::from_fn(|_, _| next(&mut s) * 3.0);
            let w = axis_weights(&l);
            for _ in 0..20 {
                let v = nalgebra::Vector3::new(next(&mut s), next(&mut s), next(&mut s));
                let lower: f64 = (0..3).map(|i| w[i] * v[i] * v[i]).sum();
                assert!((l * v).norm_squared() >= lower, "case {case}: {l} {v}");
            }
        }
        let scale = nalgebra::Vector3::new(1.0, 1.5, 4.0);
        let rot = nalgebra::Rotation3::from_euler_angles(0.3, -1.1, 2.0);
        let w = axis_weights(&(rot.matrix() * Matrix3::from_diagonal(&scale)));
        for i in 0..3 {
            let want = scale[i] * scale[i];
            assert!((w[i] - want).abs() < 1e-5 * want, "{w:?}");
        }
    }
}
