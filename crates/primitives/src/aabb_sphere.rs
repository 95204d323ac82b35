//! Axis-aligned box against sphere overlap.

use crate::{Aabb, Sphere};

/// True when the (closed) box and the (closed) sphere share a point: the squared distance
/// from the centre to the box (Arvo's clamp) is at most the squared radius.
///
/// Computed in f64, so large coordinates do not overflow. Touching counts. An empty box, a
/// negative radius or a NaN anywhere gives `false`. A centre at infinity gives `false`
/// unless the box reaches infinity on that side.
///
/// ```
/// use raypick_primitives::{aabb_sphere, Aabb, Point3, Sphere};
/// let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// // Near the corner (1, 1, 1): distance sqrt(3) * 0.5 ~ 0.866.
/// assert!(aabb_sphere(&unit, &Sphere::new(Point3::new(1.5, 1.5, 1.5), 0.87)));
/// assert!(!aabb_sphere(&unit, &Sphere::new(Point3::new(1.5, 1.5, 1.5), 0.86)));
/// ```
#[must_use]
pub fn aabb_sphere(aabb: &Aabb, sphere: &Sphere) -> bool {
    if aabb.is_empty() || !(sphere.radius >= 0.0) {
        return false;
    }
    let mut d2 = 0.0f64;
    for i in 0..3 {
        let c = sphere.center[i] as f64;
        let (lo, hi) = (aabb.min[i] as f64, aabb.max[i] as f64);
        if c.is_nan() {
            return false;
        }
        let d = if c < lo {
            lo - c
        } else if c > hi {
            c - hi
        } else {
            0.0
        };
        d2 += d * d;
    }
    let r = sphere.radius as f64;
    d2 <= r * r
}
