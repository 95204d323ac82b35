//! Axis-aligned bounding boxes.

use crate::{Point3, Real, Sphere, Vector3};
use nalgebra::{Affine3, Matrix4};

/// An axis-aligned box, `min` to `max` inclusive.
///
/// A box with `min > max` on any axis is empty; [`Aabb::EMPTY`] (min = +inf, max = -inf) is the
/// identity of [`Aabb::union`] and [`Aabb::grow`]. A point box (min == max) is not empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// The smallest corner.
    pub min: Point3<Real>,
    /// The largest corner.
    pub max: Point3<Real>,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box: growing it by anything gives that thing's box.
    pub const EMPTY: Aabb = Aabb {
        min: Point3::new(Real::INFINITY, Real::INFINITY, Real::INFINITY),
        max: Point3::new(Real::NEG_INFINITY, Real::NEG_INFINITY, Real::NEG_INFINITY),
    };

    /// A box from its two corners, taken as given (no reordering).
    #[must_use]
    pub const fn new(min: Point3<Real>, max: Point3<Real>) -> Self {
        Self { min, max }
    }

    /// The box of a single point.
    #[must_use]
    pub fn from_point(p: Point3<Real>) -> Self {
        Self { min: p, max: p }
    }

    /// A box from its centre and half-extents ("centre-radius" form).
    ///
    /// A negative half-extent gives an empty box; non-finite input gives a box that
    /// [`Aabb::is_empty`] reports as empty when it holds a NaN.
    #[must_use]
    pub fn from_center_half_extents(center: Point3<Real>, half_extents: Vector3<Real>) -> Self {
        Self {
            min: center - half_extents,
            max: center + half_extents,
        }
    }

    /// A box from its minimum corner and size ("min-width" form): `max = min + size`.
    /// A negative size gives an empty box.
    #[must_use]
    pub fn from_min_size(min: Point3<Real>, size: Vector3<Real>) -> Self {
        Self {
            min,
            max: min + size,
        }
    }

    /// The centre-radius form: `(center, half_extents)`. Inverse of
    /// [`Aabb::from_center_half_extents`] up to rounding; non-finite for the empty box.
    #[must_use]
    pub fn to_center_half_extents(&self) -> (Point3<Real>, Vector3<Real>) {
        (self.center(), self.half_extents())
    }

    /// The min-width form: `(min, size)`. Inverse of [`Aabb::from_min_size`] up to rounding;
    /// the size is negative for the empty box.
    #[must_use]
    pub fn to_min_size(&self) -> (Point3<Real>, Vector3<Real>) {
        (self.min, self.extents())
    }

    /// The box of a point set by its extreme points (per-axis min and max).
    ///
    /// Empty input gives [`Aabb::EMPTY`]. NaN coordinates are ignored (per axis); infinite
    /// coordinates are kept. All-negative coordinates work (the running maximum starts at
    /// `-inf`, not at the smallest positive float).
    #[must_use]
    pub fn from_points(points: &[Point3<Real>]) -> Self {
        points.iter().fold(Self::EMPTY, |b, p| b.grow(p))
    }

    /// The box of a sphere: `center -+ radius` per axis. It holds the sphere under any
    /// rotation about its centre, so it never needs recomputing for a rotating object bounded
    /// by that sphere. A negative radius gives an empty box.
    #[must_use]
    pub fn from_sphere(sphere: &Sphere) -> Self {
        let r = Vector3::repeat(sphere.radius);
        Self::from_center_half_extents(sphere.center, r)
    }

    /// The tight box of this box under an affine map (Arvo 1990): per output axis, the sum of
    /// the smaller and larger of `m_ij min_j`, `m_ij max_j`, plus the translation.
    ///
    /// The empty box stays empty. Non-finite matrix entries or box coordinates give
    /// non-finite (possibly NaN, hence empty) results.
    ///
    /// ```
    /// use raypick_primitives::{Aabb, Point3, Vector3};
    /// use nalgebra::{Affine3, Rotation3};
    /// let unit = Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0));
    /// let quarter = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_2);
    /// let b = unit.transformed(&nalgebra::convert::<_, Affine3<f32>>(quarter));
    /// assert!((b.min - Point3::new(-1.0, 0.0, 0.0)).norm() < 1e-6);
    /// assert!((b.max - Point3::new(0.0, 1.0, 1.0)).norm() < 1e-6);
    /// ```
    #[must_use]
    pub fn transformed(&self, t: &Affine3<Real>) -> Self {
        self.transformed_by_matrix(t.matrix())
    }

    /// [`Aabb::transformed`] for a plain 4x4 matrix. Only the upper 3x4 (affine) part is
    /// used: a projective bottom row is ignored.
    #[must_use]
    pub fn transformed_by_matrix(&self, m: &Matrix4<Real>) -> Self {
        if self.is_empty() {
            return Self::EMPTY;
        }
        let mut min = Point3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]);
        let mut max = min;
        for i in 0..3 {
            for j in 0..3 {
                let a = m[(i, j)] * self.min[j];
                let b = m[(i, j)] * self.max[j];
                min[i] += a.min(b);
                max[i] += a.max(b);
            }
        }
        Self { min, max }
    }

    /// True when `min > max` on some axis, or a coordinate is NaN.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y && self.min.z <= self.max.z)
    }

    /// This box grown to contain `p`. NaN coordinates of `p` are ignored.
    #[must_use]
    pub fn grow(&self, p: &Point3<Real>) -> Self {
        Self {
            min: Point3::new(
                self.min.x.min(p.x),
                self.min.y.min(p.y),
                self.min.z.min(p.z),
            ),
            max: Point3::new(
                self.max.x.max(p.x),
                self.max.y.max(p.y),
                self.max.z.max(p.z),
            ),
        }
    }

    /// The smallest box containing both. The union with [`Aabb::EMPTY`] is the other box.
    #[must_use]
    pub fn union(&self, other: &Aabb) -> Self {
        Self {
            min: Point3::new(
                self.min.x.min(other.min.x),
                self.min.y.min(other.min.y),
                self.min.z.min(other.min.z),
            ),
            max: Point3::new(
                self.max.x.max(other.max.x),
                self.max.y.max(other.max.y),
                self.max.z.max(other.max.z),
            ),
        }
    }

    /// The centre. Meaningless (non-finite) for the empty box.
    #[must_use]
    pub fn center(&self) -> Point3<Real> {
        nalgebra::center(&self.min, &self.max)
    }

    /// `max - min`: the size along each axis (negative for the empty box).
    #[must_use]
    pub fn extents(&self) -> Vector3<Real> {
        self.max - self.min
    }

    /// Half the size along each axis.
    #[must_use]
    pub fn half_extents(&self) -> Vector3<Real> {
        (self.max - self.min) * 0.5
    }

    /// The surface area; 0 for an empty box.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// The volume; 0 for an empty box.
    #[must_use]
    pub fn volume(&self) -> Real {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// True when `p` lies inside or on the boundary. False for NaN.
    #[must_use]
    pub fn contains_point(&self, p: &Point3<Real>) -> bool {
        self.min.x <= p.x
            && p.x <= self.max.x
            && self.min.y <= p.y
            && p.y <= self.max.y
            && self.min.z <= p.z
            && p.z <= self.max.z
    }

    /// The point of the box closest to `p`: `p` itself when inside, else `p` clamped to the
    /// box per axis. Meaningless for the empty box (check [`Aabb::is_empty`]); NaN input
    /// gives a NaN point.
    #[must_use]
    pub fn closest_point(&self, p: &Point3<Real>) -> Point3<Real> {
        Point3::from(Vector3::from_fn(|i, _| {
            if p[i].is_nan() {
                Real::NAN
            } else {
                p[i].max(self.min[i]).min(self.max[i])
            }
        }))
    }

    /// The squared distance from `p` to the box: 0 inside or on it, computed in f64 (so large
    /// coordinates do not overflow before the final rounding). `+inf` for an empty box, NaN
    /// when `p` holds a NaN. The usual lower bound for nearest-point BVH traversal.
    #[must_use]
    pub fn distance_squared_to_point(&self, p: &Point3<Real>) -> Real {
        if p.iter().any(|c| c.is_nan()) {
            return Real::NAN;
        }
        if self.is_empty() {
            return Real::INFINITY;
        }
        let mut d2 = 0.0f64;
        for i in 0..3 {
            let (x, lo, hi) = (p[i] as f64, self.min[i] as f64, self.max[i] as f64);
            let d = (lo - x).max(x - hi).max(0.0);
            d2 += d * d;
        }
        d2 as Real
    }

    /// True when `other` lies inside this box (boundaries included). The empty box is
    /// contained in every box.
    #[must_use]
    pub fn contains_aabb(&self, other: &Aabb) -> bool {
        other.is_empty() || (self.contains_point(&other.min) && self.contains_point(&other.max))
    }

    /// The axis (0, 1 or 2) along which the box is longest.
    #[must_use]
    pub fn largest_axis(&self) -> usize {
        let e = self.extents();
        if e.x >= e.y && e.x >= e.z {
            0
        } else if e.y >= e.z {
            1
        } else {
            2
        }
    }
}
