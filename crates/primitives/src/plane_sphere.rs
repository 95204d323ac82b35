//! Plane against sphere classification.

use crate::plane_aabb::classify;
use crate::{Classification, Plane, Sphere};

/// Classifies `sphere` against the half-space of `plane`; the normal side is outside.
///
/// Signed distance of the centre against the radius; touching is
/// [`Classification::Intersecting`]. A negative radius (empty sphere) is `Outside`; a NaN
/// anywhere gives `Intersecting`.
///
/// ```
/// use raypick_primitives::{plane_sphere, Classification, Plane, Point3, Sphere, Vector3};
/// let floor = Plane::from_point_normal(&Point3::origin(), &Vector3::z());
/// let s = |z: f32| Sphere::new(Point3::new(0.0, 0.0, z), 1.0);
/// assert_eq!(plane_sphere(&floor, &s(2.0)), Classification::Outside);
/// assert_eq!(plane_sphere(&floor, &s(1.0)), Classification::Intersecting);
/// assert_eq!(plane_sphere(&floor, &s(-2.0)), Classification::Inside);
/// ```
#[must_use]
pub fn plane_sphere(plane: &Plane, sphere: &Sphere) -> Classification {
    if sphere.radius < 0.0 {
        return Classification::Outside;
    }
    classify(plane.signed_distance(&sphere.center), sphere.radius)
}
