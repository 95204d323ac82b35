//! Infinite line against axis-aligned box.

use crate::{Aabb, Ray, RayAabbPrecomp, Real};

/// The parameter interval `(t_enter, t_exit)` of the infinite line `origin + t * dir`
/// (`t` of any sign) inside `aabb`, or `None` when the line misses.
///
/// The slab test of [`crate::ray_aabb()`] without the "both t < 0" rejection: the interval may
/// lie entirely at negative `t`. Boxes are closed (grazing and in-face lines hit). A NaN or
/// infinity in the line, a zero direction, or an empty or NaN box gives `None`.
///
/// ```
/// use raypick_primitives::{line_aabb, Aabb, Point3, Ray, Vector3};
/// let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// let line = Ray::new(Point3::new(3.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
/// assert_eq!(line_aabb(&line, &unit), Some((-3.0, -2.0))); // behind the origin
/// ```
#[must_use]
pub fn line_aabb(line: &Ray, aabb: &Aabb) -> Option<(Real, Real)> {
    RayAabbPrecomp::new(line).intersect(aabb, Real::NEG_INFINITY, Real::INFINITY)
}
