//! sphere_sphere.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{sphere_sphere, Sphere};

#[test]
fn sphere_sphere_hand_cases() {
    let a = Sphere::new(p3(0.0, 0.0, 0.0), 1.0);
    assert!(sphere_sphere(&a, &Sphere::new(p3(3.0, 0.0, 0.0), 2.0))); // touching
    assert!(!sphere_sphere(&a, &Sphere::new(p3(3.0, 0.0, 0.0), 1.99)));
    assert!(sphere_sphere(&a, &Sphere::new(p3(0.1, 0.0, 0.0), 0.1))); // contained
    assert!(sphere_sphere(&a, &a));
    let diag = Sphere::new(p3(1.0, 1.0, 1.0), 0.733); // distance sqrt(3) = 1.732..
    assert!(sphere_sphere(&a, &diag));
    assert!(!sphere_sphere(&a, &Sphere::new(diag.center, 0.731)));
}

#[test]
fn sphere_sphere_bad_input() {
    let a = Sphere::new(p3(0.0, 0.0, 0.0), 1.0);
    assert!(!sphere_sphere(&a, &Sphere::new(p3(0.0, 0.0, 0.0), -0.5)));
    assert!(!sphere_sphere(
        &a,
        &Sphere::new(p3(f32::NAN, 0.0, 0.0), 1.0)
    ));
    assert!(!sphere_sphere(
        &a,
        &Sphere::new(p3(0.0, 0.0, 0.0), f32::INFINITY)
    ));
    // No overflow for large values.
    let big = Sphere::new(p3(3e38, 0.0, 0.0), 2e38);
    assert!(sphere_sphere(&Sphere::new(p3(0.0, 0.0, 0.0), 1.5e38), &big));
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn sphere_sphere_matches_f64(c1 in point(), c2 in point(), r1 in 0.0f32..8.0, r2 in 0.0f32..8.0) {
        let (a, b) = (Sphere::new(c1, r1), Sphere::new(c2, r2));
        let d = (w(&c1) - w(&c2)).norm();
        let sum = r1 as f64 + r2 as f64;
        let got = sphere_sphere(&a, &b);
        prop_assert_eq!(got, sphere_sphere(&b, &a));
        if d < sum - 1e-6 { prop_assert!(got); }
        if d > sum + 1e-6 { prop_assert!(!got); }
    }
}
