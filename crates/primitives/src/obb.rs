//! Oriented bounding boxes, and the PCA box of a point set.

use crate::{Aabb, Point3, Real, Vector3};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion};

/// A box with its own axes: `center + rotation * local`, `|local_i| <= half_extents_i`.
///
/// The box's axes are the columns of `rotation`. Negative half-extents make an empty box
/// that overlaps nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    /// The centre.
    pub center: Point3<Real>,
    /// Half the size along each of the box's own axes.
    pub half_extents: Vector3<Real>,
    /// Maps box-local directions to world directions; its columns are the box axes.
    pub rotation: Rotation3<Real>,
}

impl Obb {
    /// A box from its centre, half-extents and rotation, taken as given.
    #[must_use]
    pub const fn new(
        center: Point3<Real>,
        half_extents: Vector3<Real>,
        rotation: Rotation3<Real>,
    ) -> Self {
        Self {
            center,
            half_extents,
            rotation,
        }
    }

    /// A box rotated by a unit quaternion.
    #[must_use]
    pub fn from_quaternion(
        center: Point3<Real>,
        half_extents: Vector3<Real>,
        rotation: &UnitQuaternion<Real>,
    ) -> Self {
        Self::new(center, half_extents, rotation.to_rotation_matrix())
    }

    /// The axis-aligned box as an OBB (identity rotation). The empty box gives an OBB with
    /// non-finite fields that overlaps nothing.
    #[must_use]
    pub fn from_aabb(aabb: &Aabb) -> Self {
        Self::new(aabb.center(), aabb.half_extents(), Rotation3::identity())
    }

    /// The rotation as a unit quaternion.
    #[must_use]
    pub fn quaternion(&self) -> UnitQuaternion<Real> {
        UnitQuaternion::from_rotation_matrix(&self.rotation)
    }

    /// The box's axis `i` (0, 1, 2) in world space: column `i` of the rotation.
    /// Out-of-range `i` is taken modulo 3.
    #[must_use]
    pub fn axis(&self, i: usize) -> Vector3<Real> {
        self.rotation.matrix().column(i % 3).into_owned()
    }

    /// A world point in box coordinates (centre at the origin, axes x, y, z).
    #[must_use]
    pub fn to_local(&self, p: &Point3<Real>) -> Point3<Real> {
        Point3::from(self.rotation.inverse_transform_vector(&(p - self.center)))
    }

    /// A world direction in box coordinates.
    #[must_use]
    pub fn to_local_vector(&self, v: &Vector3<Real>) -> Vector3<Real> {
        self.rotation.inverse_transform_vector(v)
    }

    /// True when `p` is inside or on the box (tested in box coordinates). False for NaN.
    #[must_use]
    pub fn contains_point(&self, p: &Point3<Real>) -> bool {
        let l = self.to_local(p);
        (0..3).all(|i| l[i].abs() <= self.half_extents[i])
    }

    /// The eight corners.
    #[must_use]
    pub fn corners(&self) -> [Point3<Real>; 8] {
        let h = self.half_extents;
        std::array::from_fn(|i| {
            let s = Vector3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            );
            self.center + self.rotation * s
        })
    }

    /// The tightest axis-aligned box around this box: extents `|R| h`.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        let r = self.rotation.matrix().abs();
        let e = r * self.half_extents;
        Aabb::new(self.center - e, self.center + e)
    }

    /// The volume, `8 hx hy hz`; 0 for an empty box.
    #[must_use]
    pub fn volume(&self) -> Real {
        let h = self.half_extents;
        if h.x >= 0.0 && h.y >= 0.0 && h.z >= 0.0 {
            8.0 * h.x * h.y * h.z
        } else {
            0.0
        }
    }

    /// A box around `points` with principal-component axes, then tight extents along them.
    ///
    /// The axes are the eigenvectors of the points' covariance (nalgebra's
    /// `SymmetricEigen`, in f64), made orthonormal and right-handed; the extents are the
    /// exact min/max of the projections, so every point is inside (extents are rounded up by
    /// a few ulps for that). Degenerate input works: one point gives a zero-size box,
    /// collinear or coplanar points give a flat box. Non-finite points are ignored; `None`
    /// when no finite point is given. PCA boxes are not minimal; see also
    /// [`Aabb::from_points`].
    ///
    /// ```
    /// use raypick_primitives::{Aabb, Obb, Point3};
    /// // Points along a diagonal line: the PCA box is thin, the world box is not.
    /// let pts: Vec<_> = (0..10).map(|i| Point3::new(i as f32, i as f32, 0.0)).collect();
    /// let obb = Obb::from_points(&pts).unwrap();
    /// assert!(pts.iter().all(|p| obb.contains_point(p)));
    /// assert!(obb.volume() < 1e-6 && Aabb::from_points(&pts).extents().x == 9.0);
    /// ```
    #[must_use]
    pub fn from_points(points: &[Point3<Real>]) -> Option<Self> {
        let pts: Vec<nalgebra::Vector3<f64>> = points
            .iter()
            .filter(|p| p.iter().all(|c| c.is_finite()))
            .map(|p| nalgebra::Vector3::new(p.x as f64, p.y as f64, p.z as f64))
            .collect();
        if pts.is_empty() {
            return None;
        }
        let n = pts.len() as f64;
        let mean = pts.iter().sum::<nalgebra::Vector3<f64>>() / n;
        let mut cov = Matrix3::<f64>::zeros();
        for p in &pts {
            let d = p - mean;
            cov += d * d.transpose();
        }
        cov /= n;
        let axes = principal_axes(&cov);
        let mut lo = nalgebra::Vector3::repeat(f64::INFINITY);
        let mut hi = nalgebra::Vector3::repeat(f64::NEG_INFINITY);
        for p in &pts {
            let l = axes.transpose() * (p - mean);
            lo = lo.inf(&l);
            hi = hi.sup(&l);
        }
        let mid = (lo + hi) * 0.5;
        let center64 = mean + axes * mid;
        let rot = Rotation3::from_matrix_unchecked(axes.cast::<Real>());
        let center = Point3::from(center64.cast::<Real>());
        // Recompute extents from the f32 centre and rotation actually stored, rounding up, so
        // the containment holds for the box as the caller sees it.
        let r64 = rot.matrix().cast::<f64>();
        let c64 = center.coords.cast::<f64>();
        let mut h = nalgebra::Vector3::<f64>::zeros();
        for p in &pts {
            let l = r64.transpose() * (p - c64);
            h = h.sup(&l.abs());
        }
        let half = Vector3::from_fn(|i, _| {
            let x = h[i] as Real;
            let x = if f64::from(x) < h[i] { x.next_up() } else { x };
            // Room for the f32 rounding of `to_local` in containment tests.
            x + x.abs() * 4.0 * Real::EPSILON + Real::MIN_POSITIVE
        });
        Some(Self::new(center, half, rot))
    }
}

/// Orthonormal, right-handed eigenvector basis of a symmetric 3x3 matrix (columns), largest
/// eigenvalue first. Falls back to the identity when the decomposition is not finite.
fn principal_axes(cov: &Matrix3<f64>) -> Matrix3<f64> {
    if !cov.iter().all(|c| c.is_finite()) || cov.iter().all(|c| *c == 0.0) {
        return Matrix3::identity();
    }
    let eig = cov.symmetric_eigen();
    let mut idx = [0usize, 1, 2];
    idx.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
    let e0 = eig.eigenvectors.column(idx[0]).into_owned();
    let e1 = eig.eigenvectors.column(idx[1]).into_owned();
    // Gram-Schmidt: repeated eigenvalues may leave the vectors slightly non-orthogonal.
    let Some(a0) = e0.try_normalize(1e-300) else {
        return Matrix3::identity();
    };
    let e1 = e1 - a0 * a0.dot(&e1);
    let a1 = match e1.try_normalize(1e-12) {
        Some(v) => v,
        None => any_perpendicular(&a0),
    };
    let a2 = a0.cross(&a1);
    let m = Matrix3::from_columns(&[a0, a1, a2]);
    if m.iter().all(|c| c.is_finite()) {
        m
    } else {
        Matrix3::identity()
    }
}

fn any_perpendicular(v: &nalgebra::Vector3<f64>) -> nalgebra::Vector3<f64> {
    let other = if v.x.abs() < 0.6 {
        nalgebra::Vector3::x()
    } else {
        nalgebra::Vector3::y()
    };
    v.cross(&other).normalize()
}
