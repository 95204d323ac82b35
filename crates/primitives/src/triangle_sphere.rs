//! Triangle against sphere overlap.

use crate::point_triangle::closest_f64;
use crate::{Real, Sphere, Triangle};

/// True when the (closed) triangle and the (closed) sphere share a point: the triangle's
/// closest point to the centre is within the radius.
///
/// Computed in f64 (via [`crate::point_triangle()`]'s region method); touching counts.
/// Degenerate triangles are tested as the segment or point they are. A negative radius, or
/// a NaN or infinity anywhere, gives `false`.
///
/// ```
/// use raypick_primitives::{triangle_sphere, Point3, Sphere, Triangle};
/// let tri = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(1.0, 0.0, 0.0),
///     Point3::new(0.0, 1.0, 0.0),
/// );
/// assert!(triangle_sphere(&tri, &Sphere::new(Point3::new(0.2, 0.2, 0.5), 0.5)));
/// assert!(!triangle_sphere(&tri, &Sphere::new(Point3::new(0.2, 0.2, 0.5), 0.49)));
/// ```
#[must_use]
pub fn triangle_sphere(tri: &Triangle, sphere: &Sphere) -> bool {
    let w = |q: &crate::Point3<Real>| [q.x as f64, q.y as f64, q.z as f64];
    let (p, a, b, c) = (w(&sphere.center), w(&tri.a), w(&tri.b), w(&tri.c));
    let r = sphere.radius as f64;
    let finite = [p, a, b, c].iter().flatten().all(|x| x.is_finite());
    if !(finite && r >= 0.0 && r.is_finite()) {
        return false;
    }
    let (q, _, _) = closest_f64(p, a, b, c);
    let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r
}
