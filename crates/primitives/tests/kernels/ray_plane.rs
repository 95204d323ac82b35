//! ray_plane.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{ray_plane, Plane, Ray};

const INF: f32 = f32::INFINITY;

#[test]
fn ray_plane_hand_cases() {
    let floor = Plane::from_point_normal(&p3(0.0, 0.0, 1.0), &v3(0.0, 0.0, 3.0));
    let r = Ray::new(p3(2.0, 3.0, 5.0), v3(1.0, 1.0, -2.0));
    assert_eq!(ray_plane(&r, &floor, 0.0, INF), Some(2.0));
    assert_eq!(ray_plane(&r, &floor, 0.0, 1.5), None);
    // From below (the inner side) also hits.
    let r = Ray::new(p3(0.0, 0.0, -1.0), v3(0.0, 0.0, 4.0));
    assert_eq!(ray_plane(&r, &floor, 0.0, INF), Some(0.5));
    // Pointing away.
    let r = Ray::new(p3(0.0, 0.0, 5.0), v3(0.0, 0.0, 1.0));
    assert_eq!(ray_plane(&r, &floor, 0.0, INF), None);
    assert_eq!(ray_plane(&r, &floor, -INF, INF), Some(-4.0));
    // Origin on the plane.
    let r = Ray::new(p3(7.0, 0.0, 1.0), v3(0.0, 1.0, 1.0));
    assert_eq!(ray_plane(&r, &floor, 0.0, INF), Some(0.0));
}

#[test]
fn ray_plane_parallel_and_bad_input() {
    let floor = Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 1.0));
    let above = Ray::new(p3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_plane(&above, &floor, -INF, INF), None);
    let within = Ray::new(p3(0.0, 0.0, 0.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_plane(&within, &floor, -INF, INF), None);
    let nan = Ray::new(p3(0.0, f32::NAN, 1.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_plane(&nan, &floor, 0.0, INF), None);
    let zero = Ray::new(p3(0.0, 0.0, 1.0), v3(0.0, 0.0, 0.0));
    assert_eq!(ray_plane(&zero, &floor, -INF, INF), None);
    let bad_plane = Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 0.0));
    let down = Ray::new(p3(0.0, 0.0, 1.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_plane(&down, &bad_plane, -INF, INF), None);
    assert_eq!(ray_plane(&down, &floor, f32::NAN, INF), None);
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn ray_plane_matches_f64(o in point(), d in direction(), p in point(), n in direction()) {
        let ray = Ray::new(o, d);
        let Ok(plane) = Plane::try_from_point_normal(&p, &n) else { return Ok(()); };
        let got = ray_plane(&ray, &plane, 0.0, INF);
        let (nn, o64, d64) = (wv(&plane.normal), w(&o), wv(&d));
        let denom = nn.dot(&d64);
        prop_assume!(denom.abs() > 1e-3);
        let t = (plane.offset as f64 - nn.dot(&o64)) / denom;
        if t > 1e-4 {
            let g = got.expect("hit expected") as f64;
            prop_assert!((g - t).abs() <= 1e-4 * (1.0 + t.abs()), "{g} vs {t}");
            // The hit point lies on the plane.
            prop_assert!((plane.signed_distance(&ray.at(g as f32)).abs() as f64) < 1e-3 * (1.0 + t.abs()));
        } else if t < -1e-4 {
            prop_assert!(got.is_none());
        }
    }
}
