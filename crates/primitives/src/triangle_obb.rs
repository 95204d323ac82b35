//! Triangle against oriented box overlap.

use crate::triangle_aabb::triangle_box_f64;
use crate::{Obb, Real, Triangle};

/// True when the (closed) triangle and the (closed) oriented box share a point.
///
/// The triangle is moved into the box's frame in f64 and tested with the separating-axis
/// test of [`crate::triangle_aabb()`]; touching counts. The box axes are the rotation's
/// columns as stored. A negative half-extent (empty box), or a NaN or infinity anywhere,
/// gives `false`.
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
