//! Ray against sphere.

use crate::{Ray, Real, Sphere};

/// The interval `(t_enter, t_exit)` of `ray` inside `sphere`, clipped to `[t_min, t_max]`, or
/// `None` on a miss.
///
/// Solves `|origin + t dir - center|^2 = r^2` in f64 with the numerically stable forms of
/// Haines et al. (Ray Tracing Gems, ch. 7): the discriminant from the perpendicular distance,
/// and the roots without cancellation. `t` is in units of the caller's direction. When the
/// origin is inside, `t_enter = t_min`; a tangent ray hits with `t_enter == t_exit`. A
/// negative radius, a zero direction, or a NaN or infinity anywhere gives `None`.
///
/// ```
/// use raypick_primitives::{ray_sphere, Point3, Ray, Sphere, Vector3};
/// let s = Sphere::new(Point3::new(0.0, 0.0, -5.0), 1.0);
/// let ray = Ray::new(Point3::origin(), Vector3::new(0.0, 0.0, -2.0));
/// assert_eq!(ray_sphere(&ray, &s, 0.0, f32::INFINITY), Some((2.0, 3.0)));
/// ```
#[must_use]
pub fn ray_sphere(ray: &Ray, sphere: &Sphere, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
    let r = sphere.radius as f64;
    let usable = ray.is_valid()
        && r >= 0.0
        && r.is_finite()
        && sphere.center.iter().all(|c| c.is_finite())
        && !t_min.is_nan()
        && !t_max.is_nan();
    if !usable {
        return None;
    }
    let d = ray.dir.cast::<f64>();
    let f = ray.origin.coords.cast::<f64>() - sphere.center.coords.cast::<f64>();
    let a = d.norm_squared();
    let b = f.dot(&d); // half of the usual b
    let c = f.norm_squared() - r * r;
    let perp = f - d * (b / a);
    let disc = a * (r * r - perp.norm_squared());
    if !(disc >= 0.0) {
        return None;
    }
    let q = -b - b.signum() * disc.sqrt();
    let (t0, t1) = if q == 0.0 {
        (0.0, 0.0)
    } else {
        let (x, y) = (q / a, c / q);
        (x.min(y), x.max(y))
    };
    let enter = t0.max(t_min as f64);
    let exit = t1.min(t_max as f64);
    (enter <= exit).then_some((enter as Real, exit as Real))
}
