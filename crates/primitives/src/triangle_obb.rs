//! Triangle against oriented box overlap.

use crate::triangle_aabb::triangle_box_f64;
use crate::{Obb, Real, Triangle};

/// True when the (closed) triangle and the (closed) oriented box share a point.
///
/// The triangle is moved into the box's frame in f64 and tested with the separating-axis
/// test of [`crate::triangle_aabb()`]; touching counts. The box axes are the rotation's
/// columns as stored. A negative half-extent (empty box), or a NaN or infinity anywhere,
/// gives `false`.
///
/// ```
/// use raypick_primitives::{triangle_obb, Obb, Point3, Triangle, Vector3};
/// use nalgebra::Rotation3;
/// let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
/// let cube = Obb::new(Point3::origin(), Vector3::new(1.0, 1.0, 1.0), rot);
/// // A wall at x; the turned cube reaches x = sqrt(2) ~ 1.414.
/// let wall = |x: f32| Triangle::new(
///     Point3::new(x, -5.0, -5.0),
///     Point3::new(x, 5.0, -5.0),
///     Point3::new(x, 0.0, 5.0),
/// );
/// assert!(triangle_obb(&wall(1.4), &cube));
/// assert!(!triangle_obb(&wall(1.43), &cube));
/// ```
#[must_use]
pub fn triangle_obb(tri: &Triangle, obb: &Obb) -> bool {
    let r = obb.rotation.matrix().cast::<f64>();
    let c = obb.center.coords.cast::<f64>();
    let local = |p: &crate::Point3<Real>| {
        let l = r.transpose() * (p.coords.cast::<f64>() - c);
        [l.x, l.y, l.z]
    };
    let v = [local(&tri.a), local(&tri.b), local(&tri.c)];
    let h = obb.half_extents.cast::<f64>();
    triangle_box_f64(&v, &[h.x, h.y, h.z])
}
