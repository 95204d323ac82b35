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
///
/// ```
/// use raypick_primitives::{frustum_sphere, Classification, DepthRange, Frustum, Point3,
///     Sphere};
/// use nalgebra::Matrix4;
/// let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::ZeroToOne);
/// // z runs over 0..1 here.
/// let s = |z: f32| Sphere::new(Point3::new(0.0, 0.0, z), 0.25);
/// assert_eq!(frustum_sphere(&f, &s(0.5)), Classification::Inside);
/// assert_eq!(frustum_sphere(&f, &s(0.1)), Classification::Intersecting);
/// assert_eq!(frustum_sphere(&f, &s(-0.5)), Classification::Outside);
/// ```
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
