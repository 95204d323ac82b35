//! closest_ray_point, closest_ray_segment.

use crate::common::*;
use nalgebra::{Point3 as P3, Vector3 as V3};
use proptest::prelude::*;
use raypick_primitives::{closest_ray_point, closest_ray_segment};

fn p(x: f64, y: f64, z: f64) -> P3<f64> {
    P3::new(x, y, z)
}

fn v(x: f64, y: f64, z: f64) -> V3<f64> {
    V3::new(x, y, z)
}

#[test]
fn closest_ray_point_hand_cases() {
    let (o, d) = (p(0.0, 0.0, 0.0), v(2.0, 0.0, 0.0));
    // Beside the ray: t in units of d, the perpendicular distance.
    assert_eq!(closest_ray_point(&o, &d, &p(4.0, 3.0, 0.0)), (2.0, 3.0));
    // Behind the origin: the origin is nearest.
    assert_eq!(closest_ray_point(&o, &d, &p(-4.0, 3.0, 0.0)), (0.0, 5.0));
    // A zero direction: the ray is its origin.
    assert_eq!(
        closest_ray_point(&o, &v(0.0, 0.0, 0.0), &p(3.0, 4.0, 0.0)),
        (0.0, 5.0)
    );
}

#[test]
fn closest_ray_segment_hand_cases() {
    let (o, d) = (p(0.0, 0.0, 0.0), v(0.0, 0.0, -1.0));
    // A segment crossing below the ray at z = -5, 1 to the side: u at its middle.
    let (t, u, dist) = closest_ray_segment(&o, &d, &p(-1.0, 1.0, -5.0), &p(1.0, 1.0, -5.0));
    assert_eq!((t, u, dist), (5.0, 0.5, 1.0));
    // Parallel to the ray: any t along the overlap, distance 2.
    let (_, _, dist) = closest_ray_segment(&o, &d, &p(2.0, 0.0, -1.0), &p(2.0, 0.0, -3.0));
    assert_eq!(dist, 2.0);
    // Entirely behind the origin: its nearest end to the origin.
    let (t, u, dist) = closest_ray_segment(&o, &d, &p(0.0, 3.0, 4.0), &p(0.0, 3.0, 8.0));
    assert_eq!((t, u, dist), (0.0, 0.0, 5.0));
    // A degenerate segment is a point.
    let (t, _, dist) = closest_ray_segment(&o, &d, &p(0.0, 1.0, -2.0), &p(0.0, 1.0, -2.0));
    assert_eq!((t, dist), (2.0, 1.0));
}

/// The distance between the ray and the segment's point at `u`, minimised over `u` by
/// ternary search: the distance from a convex set (the ray) to a point moving along a line is
/// convex in `u`, so the search converges to the exact minimum.
fn oracle(o: &P3<f64>, d: &V3<f64>, a: &P3<f64>, b: &P3<f64>) -> f64 {
    let f = |u: f64| closest_ray_point(o, d, &(a + (b - a) * u)).1;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.0).min(f(1.0)).min(f((lo + hi) / 2.0))
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn closest_ray_point_is_the_minimum_over_t(o in point(), d in direction(), q in point()) {
        let (o, d, q) = (w(&o).into(), wv(&d), w(&q).into());
        let (t, dist) = closest_ray_point(&o, &d, &q);
        prop_assert!(t >= 0.0);
        prop_assert!((dist - (o + d * t - q).norm()).abs() <= 1e-9 * (1.0 + dist));
        // No other t is closer (sampled on both sides).
        for dt in [-1e-3, 1e-3, -1.0, 1.0, 10.0] {
            let t2 = (t + dt).max(0.0);
            prop_assert!((o + d * t2 - q).norm() >= dist - 1e-9 * (1.0 + dist));
        }
    }

    #[test]
    fn closest_ray_segment_matches_a_convex_search(o in point(), d in direction(), a in point(), b in point()) {
        let (o, d, a, b): (P3<f64>, V3<f64>, P3<f64>, P3<f64>) = (w(&o).into(), wv(&d), w(&a).into(), w(&b).into());
        let (t, u, dist) = closest_ray_segment(&o, &d, &a, &b);
        prop_assert!(t >= 0.0 && (0.0..=1.0).contains(&u));
        // The reported pair is where the distance is measured.
        let at = (o + d * t - (a + (b - a) * u)).norm();
        prop_assert!((at - dist).abs() <= 1e-9 * (1.0 + dist));
        let want = oracle(&o, &d, &a, &b);
        prop_assert!((dist - want).abs() <= 1e-7 * (1.0 + want), "{dist} vs {want}");
    }
}
