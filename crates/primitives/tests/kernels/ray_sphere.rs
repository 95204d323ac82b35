//! ray_sphere.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{ray_sphere, Ray, Sphere};

const INF: f32 = f32::INFINITY;

#[test]
fn ray_sphere_hand_cases() {
    let s = Sphere::new(p3(0.0, 0.0, -5.0), 1.0);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, -2.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, INF), Some((2.0, 3.0)));
    // Inside: entry clipped to t_min.
    let r = Ray::new(p3(0.0, 0.0, -5.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, INF), Some((0.0, 1.0)));
    // Tangent: a single point.
    let r = Ray::new(p3(1.0, 0.0, 0.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, INF), Some((5.0, 5.0)));
    // Miss, behind, range.
    let r = Ray::new(p3(1.5, 0.0, 0.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, INF), None);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, 1.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, INF), None);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_sphere(&r, &s, 0.0, 3.9), None);
    assert_eq!(ray_sphere(&r, &s, 0.0, 4.5), Some((4.0, 4.5)));
}

#[test]
fn ray_sphere_far_and_precise() {
    // A small sphere far away: the stable form keeps both roots accurate.
    let s = Sphere::new(p3(0.0, 0.0, -10_000.0), 0.01);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, -1.0));
    let (e, x) = ray_sphere(&r, &s, 0.0, INF).unwrap();
    assert_eq!((e, x), (9999.99, 10000.01));
}

#[test]
fn ray_sphere_bad_input() {
    let s = Sphere::new(p3(0.0, 0.0, -5.0), 1.0);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, -1.0));
    assert!(ray_sphere(&r, &s, 0.0, INF).is_some());
    assert_eq!(ray_sphere(&r, &Sphere::new(s.center, -1.0), 0.0, INF), None);
    assert_eq!(
        ray_sphere(&r, &Sphere::new(s.center, f32::NAN), 0.0, INF),
        None
    );
    assert_eq!(
        ray_sphere(&r, &Sphere::new(p3(f32::NAN, 0.0, -5.0), 1.0), 0.0, INF),
        None
    );
    assert_eq!(ray_sphere(&r, &s, f32::NAN, INF), None);
    assert_eq!(ray_sphere(&r, &s, 0.0, f32::NAN), None);
    let z = Ray::new(p3(0.0, 0.0, -5.0), v3(0.0, 0.0, 0.0));
    assert_eq!(ray_sphere(&z, &s, -INF, INF), None);
    // Point sphere hit dead on.
    let p = Sphere::new(p3(0.0, 0.0, -5.0), 0.0);
    assert_eq!(ray_sphere(&r, &p, 0.0, INF), Some((5.0, 5.0)));
}

proptest! {
    #![proptest_config(config(3000))]

    /// Against the textbook quadratic in f64, away from tangency.
    #[test]
    fn ray_sphere_matches_f64_quadratic(o in point(), d in direction(), c in point(), r in 0.0f32..5.0) {
        let ray = Ray::new(o, d);
        prop_assume!(ray.is_valid());
        let s = Sphere::new(c, r);
        let got = ray_sphere(&ray, &s, 0.0, INF);
        let (f, dd) = (w(&o) - w(&c), wv(&d));
        let (a, b, cc) = (dd.dot(&dd), 2.0 * f.dot(&dd), f.dot(&f) - (r as f64).powi(2));
        let disc = b * b - 4.0 * a * cc;
        let scale = b * b + (4.0 * a * cc).abs();
        if disc < -1e-6 * scale {
            prop_assert!(got.is_none());
            return Ok(());
        }
        if disc < 1e-6 * scale { return Ok(()); }
        let t0 = (-b - disc.sqrt()) / (2.0 * a);
        let t1 = (-b + disc.sqrt()) / (2.0 * a);
        let tol = |t: f64| 1e-3 * (1.0 + t.abs());
        if t1 < -tol(t1) {
            prop_assert!(got.is_none());
        } else if t1 > tol(t1) {
            let (e, x) = got.expect("hit expected");
            prop_assert!((e as f64 - t0.max(0.0)).abs() <= tol(t0), "{e} vs {t0}");
            prop_assert!((x as f64 - t1).abs() <= tol(t1), "{x} vs {t1}");
        }
    }
}
