//! Plane against axis-aligned box classification (n-vertex / p-vertex method).

use crate::{Aabb, Classification, Plane};

/// Classifies `aabb` against the half-space of `plane`; the normal side is outside.
///
/// The n-/p-vertex test in its cheapest form: one dot product of the normal with the box
/// centre (the signed distance `s`) and one of `|normal|` with the half-extents (the
/// projected radius `r`). `s > r`: [`Classification::Outside`]; `s < -r`:
/// [`Classification::Inside`]; otherwise (touching included) `Intersecting`.
///
/// An empty box (`min > max` on some axis) is `Outside`. A NaN in the box or the plane gives
/// `Intersecting` (conservative for culling). A plane at infinity (offset `+inf`, from an
/// infinite frustum) puts every finite box `Inside`.
///
/// ```
/// use raypick_primitives::{plane_aabb, Aabb, Classification, Plane, Point3, Vector3};
/// let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// let n = Vector3::new(-1.0, -1.0, -1.0);
/// let plane = |p: f32| Plane::from_point_normal(&Point3::new(p, p, p), &n);
/// assert_eq!(plane_aabb(&plane(2.0), &unit), Classification::Outside);
/// assert_eq!(plane_aabb(&plane(0.5), &unit), Classification::Intersecting);
/// assert_eq!(plane_aabb(&plane(-2.0), &unit), Classification::Inside);
/// ```
#[must_use]
pub fn plane_aabb(plane: &Plane, aabb: &Aabb) -> Classification {
    if aabb.min.x > aabb.max.x || aabb.min.y > aabb.max.y || aabb.min.z > aabb.max.z {
        return Classification::Outside;
    }
    let s = plane.signed_distance(&aabb.center());
    let r = plane.normal.abs().dot(&aabb.half_extents());
    classify(s, r)
}

/// Shared by the plane kernels: signed centre distance `s` against projected radius `r`.
/// NaN falls through to `Intersecting`.
#[inline]
pub(crate) fn classify(s: crate::Real, r: crate::Real) -> Classification {
    if s > r {
        Classification::Outside
    } else if s < -r {
        Classification::Inside
    } else {
        Classification::Intersecting
    }
}
