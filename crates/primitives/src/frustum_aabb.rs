//! Frustum against axis-aligned box classification.

use crate::{plane_aabb, Aabb, Classification, Frustum, Plane, Point3, Real};

/// Classifies `aabb` against `frustum`.
///
/// [`Classification::Inside`] when the box is inside all six planes; `Outside` when it is
/// strictly outside one plane, or when the frustum's corner box (from
/// [`Frustum::corners`]) is strictly separated from it along a world axis; otherwise
/// `Intersecting`. Conservative: a box near a frustum edge that misses the frustum may still
/// be `Intersecting` (only face and world axes are tried, not the full separating-axis
/// set), but an overlapping box is never `Outside`.
///
/// An empty box (`min > max` on some axis) is `Outside`. A NaN anywhere gives
/// `Intersecting` (never `Outside`).
///
/// ```
/// use raypick_primitives::{frustum_aabb, Aabb, Classification, DepthRange, Frustum, Point3};
/// use nalgebra::Matrix4;
/// // The identity matrix's frustum is the clip cube [-1, 1]^3.
/// let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne);
/// let b = |lo: f32, hi: f32| Aabb::new(Point3::new(lo, lo, lo), Point3::new(hi, hi, hi));
/// assert_eq!(frustum_aabb(&f, &b(-0.5, 0.5)), Classification::Inside);
/// assert_eq!(frustum_aabb(&f, &b(0.5, 1.5)), Classification::Intersecting);
/// assert_eq!(frustum_aabb(&f, &b(1.5, 2.5)), Classification::Outside);
/// ```
#[must_use]
pub fn frustum_aabb(frustum: &Frustum, aabb: &Aabb) -> Classification {
    let c = classify_planes(frustum, |p| plane_aabb(p, aabb));
    if c != Classification::Intersecting {
        return c;
    }
    if let Some(corners) = frustum.corners() {
        let fb = Aabb::from_points(corners);
        let apart = (0..3).any(|i| fb.min[i] > aabb.max[i] || fb.max[i] < aabb.min[i]);
        if apart {
            return Classification::Outside;
        }
    }
    Classification::Intersecting
}

/// Folds the per-plane answers: any `Outside` wins, all `Inside` is `Inside`.
pub(crate) fn classify_planes(
    frustum: &Frustum,
    f: impl Fn(&Plane) -> Classification,
) -> Classification {
    let mut all_inside = true;
    for p in frustum.planes() {
        match f(p) {
            Classification::Outside => return Classification::Outside,
            Classification::Intersecting => all_inside = false,
            Classification::Inside => {}
        }
    }
    if all_inside {
        Classification::Inside
    } else {
        Classification::Intersecting
    }
}

/// Min and max of the corners projected on `axis`.
pub(crate) fn project(points: &[Point3<Real>], axis: &crate::Vector3<Real>) -> (Real, Real) {
    points
        .iter()
        .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), p| {
            let d = axis.dot(&p.coords);
            (lo.min(d), hi.max(d))
        })
}
