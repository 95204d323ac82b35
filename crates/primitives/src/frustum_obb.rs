//! Frustum against oriented box classification.

use crate::frustum_aabb::classify_planes;
use crate::{plane_obb, Classification, Frustum, Obb};

/// Classifies `obb` against `frustum`.
///
/// Like [`crate::frustum_aabb()`]: `Inside` when inside all six planes, `Outside` when strictly
/// outside one plane or strictly separated from the frustum along one of the box's own axes, otherwise `Intersecting` (conservative: never `Outside` for an overlapping box,
/// possibly `Intersecting` for a box that misses near a frustum edge).
///
/// A negative half-extent (empty box) is `Outside`; NaN gives `Intersecting`.
///
/// ```
/// use raypick_primitives::{frustum_obb, Classification, DepthRange, Frustum, Obb, Point3,
///     Vector3};
/// use nalgebra::{Matrix4, Rotation3};
/// let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne);
/// let rot = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
/// // Reaches x = 1.5 - sqrt(2)/2 ~ 0.79 < 1: intersecting; at 1.8 it stays beyond x = 1.
/// let o = |x: f32| Obb::new(Point3::new(x, 0.0, 0.0), Vector3::new(0.5, 0.5, 0.5), rot);
/// assert_eq!(frustum_obb(&f, &o(1.5)), Classification::Intersecting);
/// assert_eq!(frustum_obb(&f, &o(1.8)), Classification::Outside);
/// ```
#[must_use]
pub fn frustum_obb(frustum: &Frustum, obb: &Obb) -> Classification {
    let c = classify_planes(frustum, |p| plane_obb(p, obb));
    if c != Classification::Intersecting {
        return c;
    }
    if let Some(hull) = frustum.hull() {
        let c64 = obb.center.coords.cast::<f64>();
        let scale = c64.amax() + obb.half_extents.cast::<f64>().amax();
        for i in 0..3 {
            let axis = obb.axis(i).cast::<f64>();
            let (lo, hi) = hull.project(&axis);
            let c = axis.dot(&c64);
            let h = obb.half_extents[i] as f64;
            let tol = hull.tolerance(scale, axis.norm());
            if lo > c + h + tol || hi < c - h - tol {
                return Classification::Outside;
            }
        }
    }
    Classification::Intersecting
}
