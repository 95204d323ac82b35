//! aabb_sphere.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{aabb_sphere, Aabb, Sphere};

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

#[test]
fn aabb_sphere_hand_cases() {
    // Face, edge and corner regions.
    assert!(aabb_sphere(&unit(), &Sphere::new(p3(0.5, 0.5, 2.0), 1.0))); // touching face
    assert!(!aabb_sphere(&unit(), &Sphere::new(p3(0.5, 0.5, 2.0), 0.99)));
    let edge = p3(2.0, 2.0, 0.5); // distance sqrt(2) to the edge x=y=1
    assert!(aabb_sphere(&unit(), &Sphere::new(edge, 1.415)));
    assert!(!aabb_sphere(&unit(), &Sphere::new(edge, 1.414)));
    let corner = p3(-1.0, -1.0, -1.0); // distance sqrt(3)
    assert!(aabb_sphere(&unit(), &Sphere::new(corner, 1.733)));
    assert!(!aabb_sphere(&unit(), &Sphere::new(corner, 1.732)));
    // Centre inside, radius zero.
    assert!(aabb_sphere(&unit(), &Sphere::new(p3(0.5, 0.5, 0.5), 0.0)));
    // Box inside the sphere.
    assert!(aabb_sphere(&unit(), &Sphere::new(p3(0.5, 0.5, 0.5), 100.0)));
}

#[test]
fn aabb_sphere_bad_input() {
    let s = Sphere::new(p3(0.5, 0.5, 0.5), 1.0);
    assert!(!aabb_sphere(&Aabb::EMPTY, &s));
    assert!(!aabb_sphere(&unit(), &Sphere::new(p3(0.5, 0.5, 0.5), -1.0)));
    assert!(!aabb_sphere(
        &unit(),
        &Sphere::new(p3(0.5, 0.5, 0.5), f32::NAN)
    ));
    assert!(!aabb_sphere(
        &unit(),
        &Sphere::new(p3(f32::NAN, 0.5, 0.5), 1.0)
    ));
    assert!(!aabb_sphere(
        &unit(),
        &Sphere::new(p3(f32::INFINITY, 0.5, 0.5), 1.0)
    ));
    // Huge coordinates do not overflow (computed in f64).
    let big = Aabb::new(p3(1e30, 1e30, 1e30), p3(2e30, 2e30, 2e30));
    assert!(aabb_sphere(&big, &Sphere::new(p3(0.0, 0.0, 0.0), 1.8e30)));
    assert!(!aabb_sphere(&big, &Sphere::new(p3(0.0, 0.0, 0.0), 1.7e30)));
}

proptest! {
    #![proptest_config(config(3000))]

    /// Against the distance to the nearest of many box points (dense sampling gives an upper
    /// bound of the true distance) and the distance to a slightly grown box (lower bound).
    #[test]
    fn aabb_sphere_matches_f64_distance(b in aabb(), c in point(), r in 0.0f32..6.0) {
        let s = Sphere::new(c, r);
        let got = aabb_sphere(&b, &s);
        let cc = w(&c);
        let mut d2 = 0.0;
        for i in 0..3 {
            let v = cc[i].clamp(b.min[i] as f64, b.max[i] as f64);
            d2 += (cc[i] - v).powi(2);
        }
        let d = d2.sqrt();
        if d < r as f64 - 1e-5 { prop_assert!(got); }
        if d > r as f64 + 1e-5 { prop_assert!(!got); }
    }
}
