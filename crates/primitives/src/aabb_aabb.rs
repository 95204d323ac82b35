//! Axis-aligned box against axis-aligned box overlap.

use crate::Aabb;

/// True when the two (closed) boxes share a point: on every axis, each box's `min` is at most
/// the other's `max`. Touching faces, edges or corners count.
///
/// Each axis compares a `min` with the *other* box's `max` (a classic published version
/// compares `min.z` with `min.z`, which is wrong for boxes separated only along z). An empty
/// box overlaps nothing, not even itself; a NaN anywhere gives `false`.
///
/// ```
/// use raypick_primitives::{aabb_aabb, Aabb, Point3};
/// let a = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// let b = Aabb::new(Point3::new(1.0, 0.5, 0.5), Point3::new(2.0, 2.0, 2.0));
/// assert!(aabb_aabb(&a, &b)); // touching at x = 1
/// let above = Aabb::new(Point3::new(0.0, 0.0, 2.0), Point3::new(1.0, 1.0, 3.0));
/// assert!(!aabb_aabb(&a, &above)); // separated along z only
/// ```
#[must_use]
pub fn aabb_aabb(a: &Aabb, b: &Aabb) -> bool {
    !a.is_empty()
        && !b.is_empty()
        && a.min.x <= b.max.x
        && b.min.x <= a.max.x
        && a.min.y <= b.max.y
        && b.min.y <= a.max.y
        && a.min.z <= b.max.z
        && b.min.z <= a.max.z
}
