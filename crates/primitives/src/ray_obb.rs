//! Ray against oriented box: the slab method in the box's frame.

use crate::{Aabb, Obb, Point3, Ray, RayAabbPrecomp, Real};

/// The interval `(t_enter, t_exit)` of `ray` inside `obb`, clipped to `[t_min, t_max]`, or
/// `None` on a miss.
///
/// The ray is moved into the box's frame (a rotation, so `t` keeps its meaning, in units of
/// the caller's direction) and tested with the slab method of [`crate::ray_aabb()`] against
/// `[-h, h]`. Same contract: `t_enter = t_min` when the origin is inside, boxes are closed,
/// a NaN or infinity anywhere, a zero direction, or a negative half-extent gives `None`.
///
/// ```
/// use raypick_primitives::{ray_obb, Obb, Point3, Ray, Vector3};
/// use nalgebra::Rotation3;
/// let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
/// let obb = Obb::new(Point3::origin(), Vector3::new(1.0, 1.0, 1.0), rot);
/// let ray = Ray::new(Point3::new(-5.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0));
/// let (t0, t1) = ray_obb(&ray, &obb, 0.0, f32::INFINITY).unwrap();
/// // The turned cube spans x in [-sqrt(2), sqrt(2)] on this line.
/// assert!((t0 - (5.0 - 2f32.sqrt())).abs() < 1e-5 && (t1 - (5.0 + 2f32.sqrt())).abs() < 1e-5);
/// ```
#[must_use]
pub fn ray_obb(ray: &Ray, obb: &Obb, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
    let local = Ray::new(obb.to_local(&ray.origin), obb.to_local_vector(&ray.dir));
    let h = obb.half_extents;
    let bx = Aabb::new(Point3::from(-h), Point3::from(h));
    if !ray.is_valid() || !obb.center.iter().all(|c| c.is_finite()) {
        return None;
    }
    RayAabbPrecomp::new(&local).intersect(&bx, t_min, t_max)
}
