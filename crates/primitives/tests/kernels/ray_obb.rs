//! ray_obb.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{ray_aabb, ray_obb, Aabb, Obb, Point3, Ray};

const INF: f32 = f32::INFINITY;

#[test]
fn ray_obb_identity_equals_ray_aabb() {
    let b = Aabb::new(p3(1.0, 2.0, 3.0), p3(2.0, 4.0, 7.0));
    let o = Obb::from_aabb(&b);
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(1.5, 3.0, 5.0));
    assert_eq!(ray_obb(&r, &o, 0.0, INF), ray_aabb(&r, &b, 0.0, INF));
    assert!(ray_obb(&r, &o, 0.0, INF).is_some());
}

#[test]
fn ray_obb_rotated_hand_case() {
    // A 2x2x2 cube turned 45 degrees about z: its corner points along +x at sqrt(2).
    let rot = nalgebra::Rotation3::from_axis_angle(
        &nalgebra::Vector3::z_axis(),
        std::f32::consts::FRAC_PI_4,
    );
    let o = Obb::new(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0), rot);
    let r = Ray::new(p3(-5.0, 0.0, 0.0), v3(2.0, 0.0, 0.0));
    let (e, x) = ray_obb(&r, &o, 0.0, INF).unwrap();
    let s = 2f32.sqrt();
    assert!((e - (5.0 - s) / 2.0).abs() < 1e-5 && (x - (5.0 + s) / 2.0).abs() < 1e-5);
    // Passing at y = 1.5 misses the turned cube (reaches y = sqrt(2) only on x = 0).
    let r = Ray::new(p3(-5.0, 1.5, 0.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_obb(&r, &o, 0.0, INF), None);
    // Inside: entry at t_min.
    let r = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, 1.0));
    assert_eq!(ray_obb(&r, &o, 0.0, INF).map(|h| h.0), Some(0.0));
}

#[test]
fn ray_obb_bad_input() {
    let o = Obb::new(
        p3(0.0, 0.0, 0.0),
        v3(1.0, 1.0, 1.0),
        nalgebra::Rotation3::identity(),
    );
    let r = Ray::new(p3(-5.0, 0.0, 0.0), v3(1.0, 0.0, 0.0));
    assert!(ray_obb(&r, &o, 0.0, INF).is_some());
    let mut bad = o;
    bad.center = Point3::new(f32::NAN, 0.0, 0.0);
    assert_eq!(ray_obb(&r, &bad, 0.0, INF), None);
    let mut neg = o;
    neg.half_extents = v3(-1.0, 1.0, 1.0);
    assert_eq!(ray_obb(&r, &neg, 0.0, INF), None);
    let z = Ray::new(p3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0));
    assert_eq!(ray_obb(&z, &o, 0.0, INF), None);
}

proptest! {
    #![proptest_config(config(2000))]

    /// Against clipping by the six face planes of the box in f64.
    #[test]
    fn ray_obb_matches_f64_clipping(o in point(), d in direction(), b in obb()) {
        let ray = Ray::new(o, d);
        prop_assume!(ray.is_valid());
        let got = ray_obb(&ray, &b, 0.0, INF);
        let rm = b.rotation.matrix().cast::<f64>();
        let (mut e, mut x) = (0.0f64, f64::INFINITY);
        for i in 0..3 {
            let axis = rm.column(i).into_owned();
            let c = axis.dot(&w(&b.center));
            let h = b.half_extents[i] as f64;
            let (po, pd) = (axis.dot(&w(&o)), axis.dot(&wv(&d)));
            if pd.abs() < 1e-9 {
                if (po - c).abs() > h { e = 1.0; x = 0.0; }
                continue;
            }
            let (t0, t1) = ((c - h - po) / pd, (c + h - po) / pd);
            e = e.max(t0.min(t1));
            x = x.min(t0.max(t1));
        }
        let tol = 1e-3 * (1.0 + e.abs().min(1e6));
        if x - e > tol {
            let (ge, gx) = got.expect("clear hit missed");
            prop_assert!((ge as f64 - e).abs() < tol && (gx as f64 - x).abs() < 1e-3 * (1.0 + x.abs()));
        } else if e - x > tol {
            prop_assert!(got.is_none());
        }
    }
}
