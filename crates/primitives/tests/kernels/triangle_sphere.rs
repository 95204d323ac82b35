//! triangle_sphere.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{triangle_sphere, Sphere, Triangle};

fn tri() -> Triangle {
    Triangle::new(p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(0.0, 2.0, 0.0))
}

#[test]
fn triangle_sphere_hand_cases() {
    // Face region: distance 1 straight above.
    assert!(triangle_sphere(
        &tri(),
        &Sphere::new(p3(0.5, 0.5, 1.0), 1.0)
    ));
    assert!(!triangle_sphere(
        &tri(),
        &Sphere::new(p3(0.5, 0.5, 1.0), 0.99)
    ));
    // Vertex region near (2,0,0): distance sqrt(1 + 1) to (3, -1, 0).
    assert!(triangle_sphere(
        &tri(),
        &Sphere::new(p3(3.0, -1.0, 0.0), 1.415)
    ));
    assert!(!triangle_sphere(
        &tri(),
        &Sphere::new(p3(3.0, -1.0, 0.0), 1.414)
    ));
    // Hypotenuse region: (2, 2, 0) is sqrt2 from the midpoint (1, 1, 0).
    assert!(triangle_sphere(
        &tri(),
        &Sphere::new(p3(2.0, 2.0, 0.0), 1.415)
    ));
    assert!(!triangle_sphere(
        &tri(),
        &Sphere::new(p3(2.0, 2.0, 0.0), 1.414)
    ));
    // Sphere swallowing the triangle.
    assert!(triangle_sphere(
        &tri(),
        &Sphere::new(p3(0.5, 0.5, 0.0), 10.0)
    ));
}

#[test]
fn triangle_sphere_degenerate_and_bad_input() {
    let seg = Triangle::new(p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(1.0, 0.0, 0.0));
    assert!(triangle_sphere(&seg, &Sphere::new(p3(1.0, 1.0, 0.0), 1.0)));
    assert!(!triangle_sphere(
        &seg,
        &Sphere::new(p3(1.0, 1.0, 0.0), 0.99)
    ));
    let pt = Triangle::new(p3(1.0, 1.0, 1.0), p3(1.0, 1.0, 1.0), p3(1.0, 1.0, 1.0));
    assert!(triangle_sphere(&pt, &Sphere::new(p3(1.0, 1.0, 2.0), 1.0)));
    assert!(!triangle_sphere(&pt, &Sphere::new(p3(1.0, 1.0, 2.1), 1.0)));
    let s = Sphere::new(p3(0.5, 0.5, 0.0), 1.0);
    assert!(!triangle_sphere(&tri(), &Sphere::new(s.center, -1.0)));
    assert!(!triangle_sphere(
        &tri(),
        &Sphere::new(p3(f32::NAN, 0.0, 0.0), 1.0)
    ));
    let mut bad = tri();
    bad.b.z = f32::INFINITY;
    assert!(!triangle_sphere(&bad, &s));
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn triangle_sphere_matches_f64_distance(t in triangle(), c in point(), r in 0.0f32..6.0) {
        let d = dist_point_triangle64(w(&c), w(&t.a), w(&t.b), w(&t.c));
        let got = triangle_sphere(&t, &Sphere::new(c, r));
        if d < r as f64 - 1e-4 { prop_assert!(got, "d {d} r {r}"); }
        if d > r as f64 + 1e-4 { prop_assert!(!got, "d {d} r {r}"); }
    }
}
