//! Frustum against sphere classification.

use crate::frustum_aabb::classify_planes;
use crate::{aabb_sphere, plane_sphere, Aabb, Classification, Frustum, Sphere};

/// Classifies `sphere` against `frustum`.
///
/// `Inside` when inside all six planes; `Outside` when strictly outside one plane or
/// separated from the box of the frustum's corners; otherwise `Intersecting`. Conservative
/// near frustum edges and corners (a sphere there may be `Intersecting` while missing),
/// never `Outside` for an overlapping sphere.
///
/// A negative radius is `Outside`; NaN gives `Intersecting`.
#[must_use]
pub fn frustum_sphere(frustum: &Frustum, sphere: &Sphere) -> Classification {
    let c = classify_planes(frustum, |p| plane_sphere(p, sphere));
    if c != Classification::Intersecting {
        return c;
    }
    if let Some(corners) = frustum.corners() {
        let fb = Aabb::from_points(corners);
        let finite = sphere.center.iter().all(|x| x.is_finite()) && sphere.radius.is_finite();
        if finite && !aabb_sphere(&fb, sphere) {
            return Classification::Outside;
        }
    }
    Classification::Intersecting
}
