//! plane_aabb, plane_obb and plane_sphere.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{
    plane_aabb, plane_obb, plane_sphere, Aabb, Classification, Obb, Plane, Sphere,
};
use Classification::{Inside, Intersecting, Outside};

fn oracle(dists: impl Iterator<Item = f64>) -> Option<Classification> {
    let (lo, hi) = dists.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), d| {
        (l.min(d), h.max(d))
    });
    let tol = 1e-4;
    if lo > tol {
        Some(Outside)
    } else if hi < -tol {
        Some(Inside)
    } else if lo < -tol && hi > tol {
        Some(Intersecting)
    } else {
        None // too close to call
    }
}

fn dist64(p: &Plane, x: &V64) -> f64 {
    wv(&p.normal).dot(x) - p.offset as f64
}

/// A worked example by hand: the unit box at the origin, normal (-1,-1,-1).
#[test]
fn plane_aabb_worked_example() {
    let unit = Aabb::from_min_size(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0));
    let n = v3(-1.0, -1.0, -1.0);
    let through = |p: f32| Plane::from_point_normal(&p3(p, p, p), &n);
    assert_eq!(plane_aabb(&through(2.0), &unit), Outside);
    assert_eq!(plane_aabb(&through(0.5), &unit), Intersecting);
    assert_eq!(plane_aabb(&through(-2.0), &unit), Inside);
    // The same box as an OBB gives the same answers.
    let o = Obb::from_aabb(&unit);
    assert_eq!(plane_obb(&through(2.0), &o), Outside);
    assert_eq!(plane_obb(&through(0.5), &o), Intersecting);
    assert_eq!(plane_obb(&through(-2.0), &o), Inside);
}

#[test]
fn plane_aabb_touching_and_bad_input() {
    let unit = Aabb::from_min_size(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0));
    // Touching the corner (0,0,0) from outside: intersecting.
    let touch = Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(-1.0, -1.0, -1.0));
    assert_eq!(plane_aabb(&touch, &unit), Intersecting);
    // Touching the face x = 1.
    let face = Plane::from_point_normal(&p3(1.0, 0.0, 0.0), &v3(1.0, 0.0, 0.0));
    assert_eq!(plane_aabb(&face, &unit), Intersecting);
    assert_eq!(plane_aabb(&face, &Aabb::EMPTY), Outside);
    let nan_plane = Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 0.0));
    assert_eq!(plane_aabb(&nan_plane, &unit), Intersecting);
    let mut nan_box = unit;
    nan_box.max.x = f32::NAN;
    assert_eq!(plane_aabb(&face, &nan_box), Intersecting);
    // A plane at infinity (offset +inf) has every finite box inside.
    let far = Plane::new(face.normal, f32::INFINITY);
    assert_eq!(plane_aabb(&far, &unit), Inside);
}

#[test]
fn plane_obb_rotated_hand_cases() {
    let rot = nalgebra::Rotation3::from_axis_angle(
        &nalgebra::Vector3::z_axis(),
        std::f32::consts::FRAC_PI_4,
    );
    let o = Obb::new(p3(0.0, 0.0, 0.0), v3(0.5, 0.5, 0.5), rot);
    let x = |p: f32| Plane::from_point_normal(&p3(p, 0.0, 0.0), &v3(1.0, 0.0, 0.0));
    assert_eq!(plane_obb(&x(0.6), &o), Intersecting); // reaches 0.707
    assert_eq!(plane_obb(&x(0.75), &o), Inside);
    assert_eq!(plane_obb(&x(-0.75), &o), Outside);
    let empty = Obb::new(p3(0.0, 0.0, 0.0), v3(-0.5, 0.5, 0.5), rot);
    assert_eq!(plane_obb(&x(0.0), &empty), Outside);
}

#[test]
fn plane_sphere_hand_cases() {
    let floor = Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 1.0));
    let s = |z: f32, r: f32| Sphere::new(p3(0.0, 0.0, z), r);
    assert_eq!(plane_sphere(&floor, &s(2.0, 1.0)), Outside);
    assert_eq!(plane_sphere(&floor, &s(1.0, 1.0)), Intersecting);
    assert_eq!(plane_sphere(&floor, &s(-1.0, 1.0)), Intersecting);
    assert_eq!(plane_sphere(&floor, &s(-1.5, 1.0)), Inside);
    assert_eq!(plane_sphere(&floor, &s(0.0, -1.0)), Outside);
    assert_eq!(plane_sphere(&floor, &s(f32::NAN, 1.0)), Intersecting);
}

proptest! {
    #![proptest_config(config(3000))]

    /// Against the signed distances of the eight corners in f64.
    #[test]
    fn plane_aabb_matches_corner_distances(b in aabb(), p in point(), n in direction()) {
        let Ok(plane) = Plane::try_from_point_normal(&p, &n) else { return Ok(()); };
        if let Some(want) = oracle(aabb_corners64(&b).iter().map(|c| dist64(&plane, c))) {
            prop_assert_eq!(plane_aabb(&plane, &b), want);
        }
    }

    #[test]
    fn plane_obb_matches_corner_distances(o in obb(), p in point(), n in direction()) {
        let Ok(plane) = Plane::try_from_point_normal(&p, &n) else { return Ok(()); };
        if let Some(want) = oracle(obb_corners64(&o).iter().map(|c| dist64(&plane, c))) {
            prop_assert_eq!(plane_obb(&plane, &o), want);
        }
    }

    #[test]
    fn plane_sphere_matches_f64(c in point(), r in 0.0f32..5.0, p in point(), n in direction()) {
        let Ok(plane) = Plane::try_from_point_normal(&p, &n) else { return Ok(()); };
        let d = dist64(&plane, &w(&c));
        let want = oracle([d - r as f64, d + r as f64].into_iter());
        if let Some(want) = want {
            prop_assert_eq!(plane_sphere(&plane, &Sphere::new(c, r)), want);
        }
    }
}
