//! Traversals find exactly what brute force finds.

mod common;

use std::ops::ControlFlow;

use common::*;
use raypick_bvh::{BestFirstScratch, BuildConfig, Bvh};
use raypick_primitives::{ray_aabb_robust, Aabb, Point3, Ray, Vector3};

fn overlap(a: &Aabb, b: &Aabb) -> bool {
    a.min.x <= b.max.x
        && b.min.x <= a.max.x
        && a.min.y <= b.max.y
        && b.min.y <= a.max.y
        && a.min.z <= b.max.z
        && b.min.z <= a.max.z
}

/// Squared distance from `p` to the box (f64 oracle).
fn dist2(b: &Aabb, p: &Point3<f32>) -> f64 {
    let mut d = 0.0f64;
    for a in 0..3 {
        let v = p[a] as f64;
        let lo = b.min[a] as f64;
        let hi = b.max[a] as f64;
        let e = if v < lo {
            lo - v
        } else if v > hi {
            v - hi
        } else {
            0.0
        };
        d += e * e;
    }
    d
}

fn dist2_f32(b: &Aabb, p: &Point3<f32>) -> f32 {
    let mut d = 0.0f32;
    for a in 0..3 {
        let e = (b.min[a] - p[a]).max(0.0).max(p[a] - b.max[a]);
        d += e * e;
    }
    d
}

fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    v.extend([63, 64, 65, 100, 257, 300, 1000]);
    v
}

#[test]
fn ray_candidates_equal_brute_force() {
    let mut rng = Rng::new(1);
    let rays_per_tree = env_cases(40);
    for n in sizes() {
        for (fam, boxes) in families(n, 1000 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                for _ in 0..rays_per_tree {
                    let ray = random_ray(&mut rng, 12.0);
                    let expected: Vec<usize> = (0..n)
                        .filter(|&i| ray_aabb_robust(&ray, &boxes[i], 0.0, f32::INFINITY).is_some())
                        .collect();
                    let mut ranges = Vec::new();
                    bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |r, _| {
                        ranges.push(r);
                        ControlFlow::Continue(())
                    });
                    let got: Vec<usize> = collect(&bvh, &ranges)
                        .into_iter()
                        .filter(|&i| ray_aabb_robust(&ray, &boxes[i], 0.0, f32::INFINITY).is_some())
                        .collect();
                    assert_eq!(got, expected, "{name} {fam} n={n} ray={ray:?}");
                    // Each leaf visited at most once.
                    let all = collect(&bvh, &ranges);
                    let mut dedup = all.clone();
                    dedup.dedup();
                    assert_eq!(all, dedup);
                }
            }
        }
    }
}

#[test]
fn closest_entry_with_pruning_equals_brute_force() {
    let mut rng = Rng::new(2);
    for n in [1usize, 2, 5, 33, 300, 2000] {
        for (fam, boxes) in families(n, 77 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                for _ in 0..env_cases(60) {
                    let ray = random_ray(&mut rng, 12.0);
                    // Negative t_min too: boxes behind the origin count then.
                    let t_lo = match rng.below(4) {
                        0 => rng.range(0.0, 0.5),
                        1 => -rng.range(0.0, 2.0),
                        _ => 0.0,
                    };
                    let t_hi = if rng.below(3) == 0 {
                        rng.range(0.5, 2.0)
                    } else {
                        f32::INFINITY
                    };
                    let expected = (0..n)
                        .filter_map(|i| {
                            ray_aabb_robust(&ray, &boxes[i], t_lo, t_hi).map(|h| (h.0, i))
                        })
                        .min_by(|a, b| a.partial_cmp(b).unwrap());
                    let mut best: Option<(f32, usize)> = None;
                    let mut calls = 0;
                    bvh.traverse_ray(&ray, t_lo, t_hi, |range, t_max| {
                        calls += 1;
                        for pos in range {
                            let i = bvh.prim_indices()[pos] as usize;
                            if let Some((t, _)) = ray_aabb_robust(&ray, &boxes[i], t_lo, *t_max) {
                                if best.is_none_or(|b| (t, i) < b) {
                                    best = Some((t, i));
                                    *t_max = t;
                                }
                            }
                        }
                        ControlFlow::Continue(())
                    });
                    assert_eq!(
                        best.map(|b| b.0),
                        expected.map(|e| e.0),
                        "{name} {fam} n={n}"
                    );
                    // Early exit: stop at the first leaf.
                    let mut first_calls = 0;
                    bvh.traverse_ray(&ray, t_lo, t_hi, |_, _| {
                        first_calls += 1;
                        ControlFlow::Break(())
                    });
                    assert_eq!(first_calls, calls.min(1));
                }
            }
        }
    }
}

#[test]
fn pruning_skips_far_leaves() {
    // 100 boxes along x; a ray along x that sets t_max to the first hit visits few leaves.
    let boxes: Vec<Aabb> = (0..100)
        .map(|i| bx([i as f32 * 2.0, 0.0, 0.0], [i as f32 * 2.0 + 1.0, 1.0, 1.0]))
        .collect();
    let bvh = Bvh::build(
        &boxes,
        &BuildConfig {
            max_leaf_size: 1,
            ..BuildConfig::default()
        },
    )
    .unwrap();
    let ray = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
    let mut visited = 0;
    bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |range, t_max| {
        visited += 1;
        for pos in range {
            let i = bvh.prim_indices()[pos] as usize;
            if let Some((t, _)) = ray_aabb_robust(&ray, &boxes[i], 0.0, *t_max) {
                *t_max = t;
            }
        }
        ControlFlow::Continue(())
    });
    assert!(visited <= 2, "visited {visited} leaves");
    // Without lowering t_max every box is visited.
    let mut all = 0;
    bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |r, _| {
        all += r.len();
        ControlFlow::Continue(())
    });
    assert_eq!(all, 100);
}

#[test]
fn invalid_rays_and_bounds_visit_nothing() {
    let mut rng = Rng::new(4);
    let boxes = random_boxes(&mut rng, 200, 1.0, 1.0);
    let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    let o = Point3::new(0.0, 0.0, -5.0);
    let d = Vector3::new(0.0, 0.0, 1.0);
    let cases = [
        (
            Ray::new(Point3::new(f32::NAN, 0.0, -5.0), d),
            0.0,
            f32::INFINITY,
        ),
        (
            Ray::new(o, Vector3::new(0.0, f32::NAN, 1.0)),
            0.0,
            f32::INFINITY,
        ),
        (Ray::new(o, Vector3::zeros()), 0.0, f32::INFINITY),
        (
            Ray::new(o, Vector3::new(0.0, 0.0, f32::INFINITY)),
            0.0,
            f32::INFINITY,
        ),
        (
            Ray::new(Point3::new(0.0, 0.0, f32::NEG_INFINITY), d),
            0.0,
            f32::INFINITY,
        ),
        (Ray::new(o, d), f32::NAN, f32::INFINITY),
        (Ray::new(o, d), 0.0, f32::NAN),
        (Ray::new(o, d), 3.0, 2.0),
    ];
    for (ray, lo, hi) in cases {
        bvh.traverse_ray(&ray, lo, hi, |_, _| {
            panic!("visited with {ray:?} {lo} {hi}")
        });
    }
    // The same ray with sane bounds does hit.
    let mut hit = false;
    bvh.traverse_ray(&Ray::new(o, d), 0.0, f32::INFINITY, |_, _| {
        hit = true;
        ControlFlow::Break(())
    });
    assert!(hit);
    // A callback that sets NaN does not panic and stops descending.
    bvh.traverse_ray(&Ray::new(o, d), 0.0, f32::INFINITY, |_, t| {
        *t = f32::NAN;
        ControlFlow::Continue(())
    });
}

#[test]
fn aabb_and_predicate_candidates_equal_brute_force() {
    let mut rng = Rng::new(5);
    for n in sizes() {
        for (fam, boxes) in families(n, 500 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                for _ in 0..env_cases(20) {
                    let q = random_boxes(&mut rng, 1, 12.0, 4.0)[0];
                    let expected: Vec<usize> = (0..n).filter(|&i| overlap(&boxes[i], &q)).collect();
                    let mut ranges = Vec::new();
                    bvh.traverse_aabb(&q, |r| {
                        ranges.push(r);
                        ControlFlow::Continue(())
                    });
                    let got: Vec<usize> = collect(&bvh, &ranges)
                        .into_iter()
                        .filter(|&i| overlap(&boxes[i], &q))
                        .collect();
                    assert_eq!(got, expected, "{name} {fam} n={n}");

                    // Sphere predicate through traverse_where.
                    let c = Point3::new(
                        rng.range(-10.0, 10.0),
                        rng.range(-10.0, 10.0),
                        rng.range(-10.0, 10.0),
                    );
                    let r2 = rng.range(0.0, 30.0);
                    let expected: Vec<usize> =
                        (0..n).filter(|&i| dist2_f32(&boxes[i], &c) <= r2).collect();
                    let mut ranges = Vec::new();
                    bvh.traverse_where(
                        |b| dist2_f32(b, &c) <= r2,
                        |r| {
                            ranges.push(r);
                            ControlFlow::Continue(())
                        },
                    );
                    let got: Vec<usize> = collect(&bvh, &ranges)
                        .into_iter()
                        .filter(|&i| dist2_f32(&boxes[i], &c) <= r2)
                        .collect();
                    assert_eq!(got, expected, "{name} {fam} n={n}");
                }
            }
        }
    }
    // Query boxes that overlap nothing by rule.
    let mut rng = Rng::new(6);
    let boxes = random_boxes(&mut rng, 100, 1.0, 1.0);
    let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    for q in [Aabb::EMPTY, bx([f32::NAN, 0.0, 0.0], [1.0, 1.0, 1.0])] {
        bvh.traverse_aabb(&q, |_| panic!("visited"));
    }
}

#[test]
fn best_first_finds_nearest_in_order() {
    let mut rng = Rng::new(7);
    let mut scratch = BestFirstScratch::new();
    for n in sizes() {
        for (fam, boxes) in families(n, 900 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let leaf_boxes: std::collections::HashMap<usize, Aabb> = bvh
                    .nodes()
                    .iter()
                    .filter_map(|nd| nd.leaf_range().map(|r| (r.start, nd.aabb())))
                    .collect();
                for _ in 0..env_cases(20) {
                    let p = Point3::new(
                        rng.range(-15.0, 15.0),
                        rng.range(-15.0, 15.0),
                        rng.range(-15.0, 15.0),
                    );
                    let max_dist = if rng.below(3) == 0 {
                        rng.range(0.0, 50.0)
                    } else {
                        f32::INFINITY
                    };
                    let expected = (0..n)
                        .map(|i| (dist2_f32(&boxes[i], &p), i))
                        .filter(|(d, _)| *d <= max_dist)
                        .map(|(d, _)| d)
                        .min_by(|a, b| a.partial_cmp(b).unwrap());
                    let mut best = None;
                    let mut last_bound = f32::NEG_INFINITY;
                    bvh.traverse_best_first_in(
                        &mut scratch,
                        max_dist,
                        |b| {
                            let d = dist2_f32(b, &p);
                            assert!(d as f64 <= dist2(b, &p) * (1.0 + 1e-5) + 1e-9);
                            d
                        },
                        |range, bound| {
                            // Leaves come in increasing order of their box's bound.
                            let leaf_box = leaf_boxes[&range.start];
                            let leaf_bound = dist2_f32(&leaf_box, &p);
                            assert!(leaf_bound >= last_bound, "{leaf_bound} < {last_bound}");
                            assert!(leaf_bound <= *bound);
                            last_bound = leaf_bound;
                            for pos in range {
                                let d = dist2_f32(&boxes[bvh.prim_indices()[pos] as usize], &p);
                                if d <= *bound {
                                    *bound = d;
                                    best = Some(d);
                                }
                            }
                            ControlFlow::Continue(())
                        },
                    );
                    assert_eq!(best, expected, "{name} {fam} n={n}");
                }
            }
        }
    }
}

#[test]
fn best_first_visits_all_within_radius_when_not_lowered() {
    let mut rng = Rng::new(8);
    let boxes = random_boxes(&mut rng, 500, 10.0, 0.5);
    let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    let p = Point3::new(0.0, 0.0, 0.0);
    let r2 = 20.0;
    let expected: Vec<usize> = (0..500)
        .filter(|&i| dist2_f32(&boxes[i], &p) <= r2)
        .collect();
    let mut ranges = Vec::new();
    bvh.traverse_best_first(
        r2,
        |b| dist2_f32(b, &p),
        |r, _| {
            ranges.push(r);
            ControlFlow::Continue(())
        },
    );
    let got: Vec<usize> = collect(&bvh, &ranges)
        .into_iter()
        .filter(|&i| dist2_f32(&boxes[i], &p) <= r2)
        .collect();
    assert_eq!(got, expected);
    // NaN bounds and max_dist visit nothing.
    bvh.traverse_best_first(f32::NAN, |b| dist2_f32(b, &p), |_, _| panic!("visited"));
    bvh.traverse_best_first(10.0, |_| f32::NAN, |_, _| panic!("visited"));
}

/// f64 slab test: does the ray meet the box (closed) at some t >= 0? Exact enough to be the
/// oracle: the robust f32 traversal must never miss a box this accepts.
fn ray_box_f64(ray: &Ray, b: &Aabb) -> bool {
    let mut near = 0.0f64;
    let mut far = f64::INFINITY;
    for a in 0..3 {
        let o = ray.origin[a] as f64;
        let d = ray.dir[a] as f64;
        let (lo, hi) = (b.min[a] as f64, b.max[a] as f64);
        if d == 0.0 {
            if o < lo || o > hi {
                return false;
            }
            continue;
        }
        let (t0, t1) = ((lo - o) / d, (hi - o) / d);
        let (t0, t1) = if t0 <= t1 { (t0, t1) } else { (t1, t0) };
        near = near.max(t0);
        far = far.min(t1);
    }
    near <= far
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn arb_box() -> impl Strategy<Value = Aabb> {
        (
            prop::array::uniform3(-10.0f32..10.0),
            prop::array::uniform3(0.0f32..3.0),
        )
            .prop_map(|(c, e)| bx(c, [c[0] + e[0], c[1] + e[1], c[2] + e[2]]))
    }

    fn arb_ray() -> impl Strategy<Value = Ray> {
        (
            prop::array::uniform3(-15.0f32..15.0),
            prop::array::uniform3(prop_oneof![Just(0.0f32), -1.0f32..1.0]),
        )
            .prop_filter("non-zero direction", |(_, d)| d.iter().any(|v| *v != 0.0))
            .prop_map(|(o, d)| {
                Ray::new(
                    Point3::new(o[0], o[1], o[2]),
                    Vector3::new(d[0], d[1], d[2]),
                )
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(env_cases(256) as u32))]

        /// Every box the f64 oracle says the ray meets is in a visited leaf, for every preset.
        #[test]
        fn traversal_never_misses_what_f64_hits(
            boxes in prop::collection::vec(arb_box(), 0..200),
            rays in prop::collection::vec(arb_ray(), 1..8),
        ) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                for ray in &rays {
                    let mut ranges = Vec::new();
                    bvh.traverse_ray(ray, 0.0, f32::INFINITY, |r, _| {
                        ranges.push(r);
                        ControlFlow::Continue(())
                    });
                    let visited = collect(&bvh, &ranges);
                    for (i, b) in boxes.iter().enumerate() {
                        if ray_box_f64(ray, b) {
                            prop_assert!(visited.binary_search(&i).is_ok(), "{} missed box {}", name, i);
                        }
                    }
                }
            }
        }
    }
}
