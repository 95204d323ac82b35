//! Frustum against axis-aligned box classification.

use crate::{plane_aabb, Aabb, Classification, Frustum, Plane};

/// Classifies `aabb` against `frustum`.
///
/// [`Classification::Inside`] when the box is inside all six planes; `Outside` when it is
/// strictly outside one plane, or when the frustum (its corners, or for an infinite far plane
/// its near corners and side edges) is strictly separated from it along a world axis; otherwise
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
    if let Some(hull) = frustum.hull() {
        let scale = aabb
            .min
            .iter()
            .chain(aabb.max.iter())
            .fold(0.0f64, |m, x| m.max(x.abs() as f64));
        for i in 0..3 {
            let (lo, hi) = hull.project(&nalgebra::Vector3::ith(i, 1.0));
            let tol = hull.tolerance(scale, 1.0);
            if lo > aabb.max[i] as f64 + tol || hi < aabb.min[i] as f64 - tol {
                return Classification::Outside;
            }
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
