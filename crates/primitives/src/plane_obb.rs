//! Plane against oriented box classification (n-vertex / p-vertex method).

use crate::plane_aabb::classify;
use crate::{Classification, Obb, Plane};

/// Classifies `obb` against the half-space of `plane`; the normal side is outside.
///
/// The box's projected radius onto the normal is `sum_i h_i |normal . axis_i|`; compared
/// with the signed distance of the centre as in [`crate::plane_aabb()`]. Touching is
/// [`Classification::Intersecting`]. A negative half-extent (empty box) is `Outside`; a NaN
/// anywhere gives `Intersecting`.
///
/// ```
/// use raypick_primitives::{plane_obb, Classification, Obb, Plane, Point3, Vector3};
/// use nalgebra::Rotation3;
/// // A unit cube turned 45 degrees about z reaches sqrt(2)/2 along x.
/// let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
/// let obb = Obb::new(Point3::origin(), Vector3::new(0.5, 0.5, 0.5), rot);
/// let x = |p: f32| Plane::from_point_normal(&Point3::new(p, 0.0, 0.0), &Vector3::x());
/// assert_eq!(plane_obb(&x(0.6), &obb), Classification::Intersecting);
/// assert_eq!(plane_obb(&x(0.8), &obb), Classification::Inside);
/// assert_eq!(plane_obb(&x(-0.8), &obb), Classification::Outside);
/// ```
#[must_use]
pub fn plane_obb(plane: &Plane, obb: &Obb) -> Classification {
    let h = obb.half_extents;
    if h.x < 0.0 || h.y < 0.0 || h.z < 0.0 {
        return Classification::Outside;
    }
    let s = plane.signed_distance(&obb.center);
    let local_n = obb.rotation.inverse_transform_vector(&plane.normal);
    let r = local_n.abs().dot(&h);
    classify(s, r)
}
