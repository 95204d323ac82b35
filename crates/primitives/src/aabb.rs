//! Axis-aligned bounding boxes.

use crate::{Point3, Real, Vector3};

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
