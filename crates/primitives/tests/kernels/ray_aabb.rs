//! ray_aabb and ray_aabb_robust.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{ray_aabb, ray_aabb_robust, Aabb, Ray, RayAabbPrecomp};

const INF: f32 = f32::INFINITY;

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

/// Clips the ray against the six planes in f64: the oracle interval (may be empty).
fn oracle(ray: &Ray, b: &Aabb, t_min: f64, t_max: f64) -> Option<(f64, f64)> {
    let (o, d) = (w(&ray.origin), wv(&ray.dir));
    let (lo, hi) = (w(&b.min), w(&b.max));
    let (mut e, mut x) = (t_min, t_max);
    for i in 0..3 {
        if d[i] == 0.0 {
            if o[i] < lo[i] || o[i] > hi[i] {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((lo[i] - o[i]) / d[i], (hi[i] - o[i]) / d[i]);
        e = e.max(t0.min(t1));
        x = x.min(t0.max(t1));
    }
    Some((e, x))
}

#[test]
fn ray_aabb_hand_hit_and_distance() {
    let r = Ray::new(p3(-2.0, 0.5, 0.5), v3(2.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((1.0, 1.5)));
    // Negative direction, entering through max.x.
    let r = Ray::new(p3(3.0, 0.5, 0.5), v3(-1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((2.0, 3.0)));
    // Diagonal through two corners.
    let r = Ray::new(p3(-1.0, -1.0, -1.0), v3(1.0, 1.0, 1.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((1.0, 2.0)));
}

#[test]
fn ray_aabb_origin_inside_enters_at_t_min() {
    let r = Ray::new(p3(0.5, 0.5, 0.5), v3(0.0, 0.0, 1.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((0.0, 0.5)));
    assert_eq!(ray_aabb(&r, &unit(), 0.25, INF), Some((0.25, 0.5)));
}

#[test]
fn ray_aabb_clipped_by_t_range() {
    let r = Ray::new(p3(-2.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, 2.5), Some((2.0, 2.5)));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, 1.9), None);
    assert_eq!(ray_aabb(&r, &unit(), 3.1, 10.0), None);
}

#[test]
fn ray_aabb_box_behind_misses() {
    let r = Ray::new(p3(2.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), None);
}

#[test]
fn ray_aabb_signed_zero_components() {
    for z in [0.0f32, -0.0] {
        let inside = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, z, z));
        assert_eq!(ray_aabb(&inside, &unit(), 0.0, INF), Some((1.0, 2.0)));
        let outside = Ray::new(p3(-1.0, 1.5, 0.5), v3(1.0, z, z));
        assert_eq!(ray_aabb(&outside, &unit(), 0.0, INF), None);
    }
}

#[test]
fn ray_aabb_tiny_components() {
    let tiny = f32::from_bits(1); // smallest subnormal
    let r = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, tiny, -tiny));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((1.0, 2.0)));
    let small = 2f32.powi(-100);
    let r = Ray::new(p3(0.5, 0.5, -1.0), v3(tiny, tiny, small));
    let (e, x) = ray_aabb(&r, &unit(), 0.0, INF).unwrap();
    assert_eq!((e, x), (2f32.powi(100), 2f32.powi(101)));
}

#[test]
fn ray_aabb_lying_in_face_plane_hits() {
    // In the plane y = 0 (the min face), and in y = 1 (the max face), both dir signs.
    for y in [0.0f32, 1.0] {
        for s in [1.0f32, -1.0] {
            let r = Ray::new(p3(0.5 - 2.0 * s, y, 0.5), v3(s, 0.0, 0.0));
            assert_eq!(
                ray_aabb(&r, &unit(), 0.0, INF),
                Some((1.5, 2.5)),
                "y={y} s={s}"
            );
        }
    }
    // Along an edge.
    let r = Ray::new(p3(-1.0, 1.0, 1.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((1.0, 2.0)));
}

#[test]
fn ray_aabb_grazing_corner_hits() {
    let r = Ray::new(p3(-1.0, 0.0, 1.0), v3(1.0, 1.0, 0.0));
    // Touches the edge x=0,y=1? No: passes the corner (0, 1, 1) at t=1 only.
    assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), Some((1.0, 1.0)));
}

#[test]
fn ray_aabb_nan_never_hits() {
    let nan = f32::NAN;
    let ok = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert!(ray_aabb(&ok, &unit(), 0.0, INF).is_some());
    for i in 0..3 {
        let mut r = ok;
        r.origin[i] = nan;
        assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), None);
        let mut r = ok;
        r.dir[i] = nan;
        assert_eq!(ray_aabb(&r, &unit(), 0.0, INF), None);
        let mut b = unit();
        b.min[i] = nan;
        assert_eq!(ray_aabb(&ok, &b, 0.0, INF), None);
        let mut b = unit();
        b.max[i] = nan;
        assert_eq!(ray_aabb(&ok, &b, 0.0, INF), None);
        assert_eq!(ray_aabb_robust(&ok, &b, 0.0, INF), None);
    }
    assert_eq!(ray_aabb(&ok, &unit(), nan, INF), None);
    assert_eq!(ray_aabb(&ok, &unit(), 0.0, nan), None);
}

#[test]
fn ray_aabb_bad_rays_and_boxes() {
    let zero = Ray::new(p3(0.5, 0.5, 0.5), v3(0.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&zero, &unit(), 0.0, INF), None);
    let inf_o = Ray::new(p3(f32::NEG_INFINITY, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&inf_o, &unit(), 0.0, INF), None);
    let inf_d = Ray::new(p3(-1.0, 0.5, 0.5), v3(INF, 0.0, 0.0));
    assert_eq!(ray_aabb(&inf_d, &unit(), 0.0, INF), None);
    let ok = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_aabb(&ok, &Aabb::EMPTY, 0.0, INF), None);
    let inverted = Aabb::new(p3(1.0, 0.0, 0.0), p3(0.0, 1.0, 1.0));
    assert_eq!(ray_aabb(&ok, &inverted, 0.0, INF), None);
    // An infinite box is hit from anywhere.
    let all = Aabb::new(p3(-INF, -INF, -INF), p3(INF, INF, INF));
    assert_eq!(ray_aabb(&ok, &all, 0.0, INF), Some((0.0, INF)));
}

#[test]
fn ray_aabb_precomp_matches_function() {
    let r = Ray::new(p3(-2.0, 0.25, 0.75), v3(1.0, 0.1, -0.2));
    let pre = RayAabbPrecomp::new(&r);
    assert!(pre.valid);
    assert_eq!(pre.neg, [false, false, true]);
    assert_eq!(
        pre.intersect(&unit(), 0.0, INF),
        ray_aabb(&r, &unit(), 0.0, INF)
    );
}

proptest! {
    #![proptest_config(config(3000))]

    /// Agrees with clipping against the six planes in f64, away from the boundary.
    #[test]
    fn ray_aabb_matches_f64_clipping(o in point(), d in direction(), b in aabb(),
                                     t_min in prop_oneof![Just(0.0f32), -5.0f32..5.0],
                                     t_span in prop_oneof![Just(f32::INFINITY), 0.0f32..20.0]) {
        let ray = Ray::new(o, d);
        let t_max = t_min + t_span;
        let got = ray_aabb(&ray, &b, t_min, t_max);
        let robust = ray_aabb_robust(&ray, &b, t_min, t_max);
        if d == v3(0.0, 0.0, 0.0) {
            prop_assert!(got.is_none());
            return Ok(());
        }
        match oracle(&ray, &b, t_min as f64, t_max as f64) {
            Some((e, x)) if x - e > 1e-4 * (1.0 + e.abs() + x.abs().min(1e30)) => {
                let (ge, gx) = got.expect("oracle hits clearly, kernel missed");
                let tol = |v: f64| 1e-4 * (1.0 + v.abs());
                prop_assert!((ge as f64 - e).abs() <= tol(e), "enter {ge} vs {e}");
                if x.is_finite() {
                    prop_assert!((gx as f64 - x).abs() <= tol(x), "exit {gx} vs {x}");
                } else {
                    prop_assert!(gx.is_infinite());
                }
            }
            Some((e, x)) if e - x > 1e-4 * (1.0 + e.abs().min(1e30) + x.abs().min(1e30)) => {
                prop_assert!(got.is_none(), "oracle misses clearly, kernel hit {got:?}");
            }
            None => prop_assert!(got.is_none()),
            _ => {}
        }
        // The robust variant accepts everything the exact one does.
        if let Some((e, x)) = got {
            let (re, rx) = robust.expect("robust lost a hit");
            prop_assert_eq!(re, e);
            prop_assert!(rx >= x);
        }
    }

    /// Rays aimed at a point on the box boundary (a corner, an edge or a face) touch the box
    /// in exact arithmetic; the robust test must never reject them.
    #[test]
    fn ray_aabb_robust_never_loses_boundary_touch(o in point(), b in aabb(),
                                                  s in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0),
                                                  pin in (0usize..3, 0usize..3, any::<bool>()),
                                                  scale in prop_oneof![Just(1.0f32), 0.01f32..100.0]) {
        let mut target = b.min + b.extents().component_mul(&v3(s.0, s.1, s.2));
        // Pin one or two coordinates to a face so the target is on the boundary.
        let (i, j, hi) = pin;
        target[i] = if hi { b.max[i] } else { b.min[i] };
        target[j] = if hi { b.max[j] } else { b.min[j] };
        let ray = Ray::new(o, (target - o) * scale);
        prop_assume!(ray.is_valid());
        // In f64 the interval is non-empty up to the rounding of `target - o`.
        let (e, x) = oracle(&ray, &b, 0.0, f64::INFINITY).unwrap_or((1.0, 0.0));
        prop_assume!(x >= e);
        prop_assert!(ray_aabb_robust(&ray, &b, 0.0, f32::INFINITY).is_some());
    }
}
