//! Line segment against axis-aligned box.

use crate::{Aabb, Point3, Ray, RayAabbPrecomp, Real};

/// The parameter interval `(t_enter, t_exit)`, within `[0, 1]`, of the segment
/// `a + t * (b - a)` inside `aabb`, or `None` when the segment misses.
///
/// The slab test clipped to `[0, 1]`. `t_enter` is 0 when `a` is inside. Boxes are closed.
/// A zero-length segment (`a == b`) is the point `a`: `Some((0.0, 1.0))` when the box
/// contains it, `None` otherwise. A NaN or infinity in the segment, or an empty box, gives
/// `None`.
///
/// ```
/// use raypick_primitives::{segment_aabb, Aabb, Point3};
/// let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// let a = Point3::new(-1.0, 0.5, 0.5);
/// assert_eq!(segment_aabb(&a, &Point3::new(3.0, 0.5, 0.5), &unit), Some((0.25, 0.5)));
/// assert_eq!(segment_aabb(&a, &Point3::new(-0.5, 0.5, 0.5), &unit), None); // stops short
/// ```
#[must_use]
pub fn segment_aabb(a: &Point3<Real>, b: &Point3<Real>, aabb: &Aabb) -> Option<(Real, Real)> {
    if a == b {
        let finite = a.iter().all(|c| c.is_finite());
        return (finite && aabb.contains_point(a)).then_some((0.0, 1.0));
    }
    RayAabbPrecomp::new(&Ray::new(*a, b - a)).intersect(aabb, 0.0, 1.0)
}
