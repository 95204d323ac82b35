//! Frustum against oriented box classification.

use crate::frustum_aabb::{classify_planes, project};
use crate::{plane_obb, Classification, Frustum, Obb};

/// Classifies `obb` against `frustum`.
///
/// Like [`crate::frustum_aabb()`]: `Inside` when inside all six planes, `Outside` when strictly
/// outside one plane or strictly separated from the frustum's corners along one of the box's
/// own axes, otherwise `Intersecting` (conservative: never `Outside` for an overlapping box,
/// possibly `Intersecting` for a box that misses near a frustum edge).
///
/// A negative half-extent (empty box) is `Outside`; NaN gives `Intersecting`.
#[must_use]
pub fn frustum_obb(frustum: &Frustum, obb: &Obb) -> Classification {
    let c = classify_planes(frustum, |p| plane_obb(p, obb));
    if c != Classification::Intersecting {
        return c;
    }
    if let Some(corners) = frustum.corners() {
        for i in 0..3 {
            let axis = obb.axis(i);
            let (lo, hi) = project(corners, &axis);
            let c = axis.dot(&obb.center.coords);
            let h = obb.half_extents[i];
            if lo > c + h || hi < c - h {
                return Classification::Outside;
            }
        }
    }
    Classification::Intersecting
}
