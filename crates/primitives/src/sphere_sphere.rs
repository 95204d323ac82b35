//! Sphere against sphere overlap.

use crate::Sphere;

/// True when the two (closed) spheres share a point: the centre distance is at most the sum
/// of the radii. Touching counts.
///
/// Computed in f64 (no overflow for large coordinates). A negative radius or a NaN or
/// infinity anywhere gives `false`.
///
/// ```
/// use raypick_primitives::{sphere_sphere, Point3, Sphere};
/// let a = Sphere::new(Point3::origin(), 1.0);
/// assert!(sphere_sphere(&a, &Sphere::new(Point3::new(3.0, 0.0, 0.0), 2.0))); // touching
/// assert!(!sphere_sphere(&a, &Sphere::new(Point3::new(3.0, 0.0, 0.0), 1.9)));
/// ```
#[must_use]
pub fn sphere_sphere(a: &Sphere, b: &Sphere) -> bool {
    let ok = |s: &Sphere| {
        s.radius >= 0.0 && s.radius.is_finite() && s.center.iter().all(|c| c.is_finite())
    };
    if !ok(a) || !ok(b) {
        return false;
    }
    let d = a.center.coords.cast::<f64>() - b.center.coords.cast::<f64>();
    let r = a.radius as f64 + b.radius as f64;
    d.norm_squared() <= r * r
}
