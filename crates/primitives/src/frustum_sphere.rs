//! Frustum against sphere classification.

use crate::frustum_aabb::classify_planes;
use crate::{plane_sphere, Classification, Frustum, Sphere};

/// Classifies `sphere` against `frustum`.
///
/// `Inside` when inside all six planes; `Outside` when strictly outside one plane or
/// separated from the frustum's bounding box; otherwise `Intersecting`. Conservative
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
    if let Some(hull) = frustum.hull() {
        let c = sphere.center.coords.cast::<f64>();
        let r = sphere.radius as f64;
        if c.iter().all(|x| x.is_finite()) && r.is_finite() {
            // Distance from the centre to the frustum's bounding box (possibly unbounded).
            let mut d2 = 0.0;
            for i in 0..3 {
                let (lo, hi) = hull.project(&nalgebra::Vector3::ith(i, 1.0));
                let d = (lo - c[i]).max(c[i] - hi).max(0.0);
                d2 += d * d;
            }
            let tol = hull.tolerance(c.amax() + r, 1.0);
            if d2.sqrt() > r + tol {
                return Classification::Outside;
            }
        }
    }
    Classification::Intersecting
}
