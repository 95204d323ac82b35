//! Closest approach between a ray and a point or a segment, in f64: the kernels behind
//! picking point clouds and polylines within a distance of a ray.

use nalgebra::{Point3 as P3, Vector3 as V3};

/// Closest approach between the ray `o + t d` (t >= 0) and the point `p`: `(t, distance)`.
/// A zero direction gives `t = 0`.
#[must_use]
pub fn closest_ray_point(o: &P3<f64>, d: &V3<f64>, p: &P3<f64>) -> (f64, f64) {
    let dd = d.norm_squared();
    let t = if dd > 0.0 {
        ((p - o).dot(d) / dd).max(0.0)
    } else {
        0.0
    };
    (t, (o + d * t - p).norm())
}

/// Closest approach between the ray `o + t d` (t >= 0) and the segment `a..b`:
/// `(t, u, distance)`. Degenerate segments and zero directions are handled (the segment
/// is then a point, the ray a point).
#[must_use]
pub fn closest_ray_segment(o: &P3<f64>, d: &V3<f64>, a: &P3<f64>, b: &P3<f64>) -> (f64, f64, f64) {
    let e = b - a;
    let (dd, ee) = (d.norm_squared(), e.norm_squared());
    let eval = |t: f64, u: f64| (t, u, (o + d * t - (a + e * u)).norm());
    let best = |c: (f64, f64, f64), acc: &mut (f64, f64, f64)| {
        if c.2 < acc.2 {
            *acc = c;
        }
    };
    // Candidates: the interior stationary point, and each boundary (u = 0, u = 1, t = 0).
    let mut acc = (0.0, 0.0, f64::INFINITY);
    let u_of_t = |t: f64| {
        if ee > 0.0 {
            ((o + d * t - a).dot(&e) / ee).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let t_of_u = |u: f64| {
        if dd > 0.0 {
            ((a + e * u - o).dot(d) / dd).max(0.0)
        } else {
            0.0
        }
    };
    let w = o - a;
    let (de, dw, ew) = (d.dot(&e), d.dot(&w), e.dot(&w));
    let den = dd * ee - de * de;
    if den > 1e-12 * dd * ee {
        let t = ((de * ew - ee * dw) / den).max(0.0);
        let u = ((dd * ew - de * dw) / den).clamp(0.0, 1.0);
        best(eval(t, u), &mut acc);
    }
    for u in [0.0, 1.0] {
        let t = t_of_u(u);
        best(eval(t, u), &mut acc);
    }
    best(eval(0.0, u_of_t(0.0)), &mut acc);
    let t = t_of_u(acc.1);
    best(eval(t, u_of_t(t)), &mut acc);
    acc
}
