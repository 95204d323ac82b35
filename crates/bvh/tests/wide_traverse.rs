//! Wide BVHs (`raypick_bvh::wide`): the collapsed trees validate and keep the binary leaves,
//! every SIMD path visits exactly what the scalar path visits, nothing the robust box test
//! accepts is missed, and closest/any-hit emulations agree with the binary tree.

mod common;

use std::ops::{ControlFlow, Range};

use raypick_bvh::wide::{Bvh8, CompactBvh8, WideBvh};
use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Aabb, Point3, Ray, RayAabbPrecomp, Vector3};
use raypick_test_support::{env_cases, Rng};

use common::wide::*;

fn check_wide<const N: usize>(bvh: &Bvh, wide: &WideBvh<N>, what: &str) {
    let stats = wide.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(stats.prim_count, bvh.len(), "{what}");
    assert_eq!(wide.len(), bvh.len(), "{what}");
    let mut leaves = wide.leaf_ranges();
    leaves.sort_by_key(|r| r.start);
    assert_eq!(leaves, binary_leaves(bvh), "{what}: leaf ranges differ");
    assert_eq!(stats.leaf_count, leaves.len(), "{what}");
    assert!(
        wide.depth() <= bvh.depth().max(1),
        "{what}: wide deeper than binary"
    );
    if !bvh.is_empty() {
        assert!(stats.mean_children >= 1.0 && stats.mean_children <= N as f64);
        assert!(wide.nodes()[0].child_count() >= 1);
        // Collapsing fills nodes: only nodes whose candidates are all leaves stay short.
        assert_eq!(
            stats.memory_bytes,
            stats.node_count * std::mem::size_of_val(&wide.nodes()[0])
        );
    } else {
        assert!(wide.is_empty());
        assert_eq!(wide.memory_bytes(), 0);
    }
}

#[test]
fn wide_trees_validate_and_keep_the_binary_leaves() {
    for n in sizes() {
        for (fam, boxes) in families(n, 100 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let what = format!("{fam} n={n} {name}");
                check_wide(&bvh, &Bvh4::from_bvh(&bvh), &format!("{what} bvh4"));
                check_wide(&bvh, &Bvh8::from_bvh(&bvh), &format!("{what} bvh8"));
            }
        }
    }
}

#[test]
fn collapse_fills_nodes() {
    // A large random tree with small leaves: interior wide nodes should be nearly full.
    let boxes = families(4000, 9).remove(0).1;
    let mut cfg = BuildConfig::balanced();
    cfg.max_leaf_size = 2;
    cfg.intersection_cost = 1.0;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let s4 = Bvh4::from_bvh(&bvh).validate().unwrap();
    let s8 = Bvh8::from_bvh(&bvh).validate().unwrap();
    eprintln!("binary depth {}: bvh4 {s4:?}, bvh8 {s8:?}", bvh.depth());
    assert!(
        s4.mean_children > 3.0,
        "bvh4 mean children {}",
        s4.mean_children
    );
    assert!(
        s8.mean_children > 5.0,
        "bvh8 mean children {}",
        s8.mean_children
    );
    let binary_bytes = std::mem::size_of_val(bvh.nodes());
    assert!(s4.memory_bytes < binary_bytes && s8.memory_bytes < binary_bytes);
    assert!(s8.depth < s4.depth && s4.depth < bvh.depth());
}

fn check_candidates<W: Traverse>(
    bvh: &Bvh,
    wide: &W,
    boxes: &[Aabb],
    ray: &Ray,
    t_min: f32,
    t_max: f32,
    what: &str,
) -> usize {
    let reference = visits(wide, SimdPath::Scalar, ray, t_min, t_max);
    // Unordered: the same leaves (nothing lowers t_max here), in an order of its own that
    // every path shares.
    let unordered = visits_in(wide, SimdPath::Scalar, ray, t_min, t_max, false);
    let sorted = |v: &[Visit]| {
        let mut s: Vec<usize> = v.iter().map(|(r, _)| r.start).collect();
        s.sort_unstable();
        s
    };
    assert_eq!(
        sorted(&unordered),
        sorted(&reference),
        "{what}: unordered traversal visits other leaves for {ray:?} [{t_min}, {t_max}]"
    );
    for path in SimdPath::available() {
        assert_eq!(
            visits(wide, path, ray, t_min, t_max),
            reference,
            "{what}: {path:?} differs from scalar for {ray:?} [{t_min}, {t_max}]"
        );
        assert_eq!(
            visits_in(wide, path, ray, t_min, t_max, false),
            unordered,
            "{what}: unordered {path:?} differs from scalar for {ray:?} [{t_min}, {t_max}]"
        );
    }
    // No leaf twice, and every primitive the robust box test accepts is a candidate.
    let mut seen = vec![false; boxes.len()];
    for (r, _) in &reference {
        for pos in r.clone() {
            assert!(!seen[pos], "{what}: position {pos} visited twice");
            seen[pos] = true;
        }
    }
    let pre = RayAabbPrecomp::new(ray);
    let mut accepted = 0;
    for (pos, &prim) in bvh.prim_indices().iter().enumerate() {
        if pre
            .intersect_robust(&boxes[prim as usize], t_min, t_max)
            .is_some()
        {
            accepted += 1;
            assert!(
                seen[pos],
                "{what}: primitive {prim} accepted by the robust test but not visited, {ray:?} [{t_min}, {t_max}]"
            );
        }
    }
    if !ray.is_valid() || t_min.partial_cmp(&t_max).is_none_or(|o| o.is_gt()) {
        assert!(reference.is_empty(), "{what}: invalid query visited leaves");
    }
    accepted
}

#[test]
fn every_path_visits_what_scalar_visits_and_nothing_is_missed() {
    let rays_per_tree = env_cases(24);
    let mut rng = Rng::new(7);
    let mut accepted = 0;
    let mut total = 0;
    for n in sizes() {
        for (fam, boxes) in families(n, 500 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let w8 = Bvh8::from_bvh(&bvh);
                let c8 = CompactBvh8::from_wide(&w8).unwrap();
                c8.validate().unwrap();
                for _ in 0..rays_per_tree {
                    let r = ray(&mut rng, &boxes);
                    let (t0, t1) = bounds(&mut rng);
                    let what = format!("{fam} n={n} {name}");
                    accepted += check_candidates(&bvh, &w8, &boxes, &r, t0, t1, &what);
                    check_candidates(&bvh, &c8, &boxes, &r, t0, t1, &format!("{what} compact"));
                    // The compact boxes contain the plain ones: every leaf the plain tree
                    // visits, the compact one does too.
                    let starts =
                        |v: Vec<Visit>| -> Vec<usize> { v.iter().map(|(r, _)| r.start).collect() };
                    let compact = starts(visits(&c8, SimdPath::Scalar, &r, t0, t1));
                    for s in starts(visits(&w8, SimdPath::Scalar, &r, t0, t1)) {
                        assert!(compact.contains(&s), "{what}: compact misses leaf at {s}");
                    }
                    total += 1;
                }
            }
        }
    }
    // The generator must exercise hits, or the test proves little.
    assert!(
        accepted > total,
        "only {accepted} accepted boxes over {total} rays"
    );
}

/// Closest box entry (exact slab test, ties to the lowest index) over the candidates a
/// traversal reports, lowering `t_max` as a closest-hit query does.
fn closest<T>(boxes: &[Aabb], perm: &[u32], ray: &Ray, traverse: T) -> Option<(u32, f32)>
where
    T: FnOnce(&mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>),
{
    let pre = RayAabbPrecomp::new(ray);
    let mut best: Option<(u32, f32)> = None;
    traverse(&mut |range, t_max| {
        for pos in range {
            let prim = perm[pos];
            if let Some((t, _)) = pre.intersect(&boxes[prim as usize], 0.0, *t_max) {
                if best.is_none_or(|(bp, bt)| t < bt || (t == bt && prim < bp)) {
                    best = Some((prim, t));
                    *t_max = t;
                }
            }
        }
        ControlFlow::Continue(())
    });
    best
}

#[test]
fn closest_and_any_hit_match_the_binary_tree_and_brute_force() {
    let rays = env_cases(3000);
    let mut rng = Rng::new(11);
    let mut hits = 0;
    for (fam, boxes) in families(3000, 5) {
        let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
        let w8 = Bvh8::from_bvh(&bvh);
        let perm = bvh.prim_indices();
        for _ in 0..rays / 5 {
            let r = ray(&mut rng, &boxes);
            let pre = RayAabbPrecomp::new(&r);
            let mut brute: Option<(u32, f32)> = None;
            for (i, b) in boxes.iter().enumerate() {
                if let Some((t, _)) = pre.intersect(b, 0.0, f32::INFINITY) {
                    if brute.is_none_or(|(_, bt)| t < bt) {
                        brute = Some((i as u32, t));
                    }
                }
            }
            let binary = closest(&boxes, perm, &r, |f| {
                bvh.traverse_ray(&r, 0.0, f32::INFINITY, f)
            });
            assert_eq!(binary, brute, "{fam}: binary vs brute force for {r:?}");
            hits += usize::from(binary.is_some());
            for path in SimdPath::available() {
                let c8 = closest(&boxes, perm, &r, |f| {
                    w8.traverse(path, &r, 0.0, f32::INFINITY, true, f)
                });
                assert_eq!(c8, binary, "{fam}: bvh8 {path:?} vs binary for {r:?}");
                // Any hit: stop at the first accepted box.
                let mut any = false;
                w8.traverse(path, &r, 0.0, f32::INFINITY, true, &mut |range, _| {
                    for pos in range {
                        if pre
                            .intersect(&boxes[perm[pos] as usize], 0.0, f32::INFINITY)
                            .is_some()
                        {
                            any = true;
                            return ControlFlow::Break(());
                        }
                    }
                    ControlFlow::Continue(())
                });
                assert_eq!(any, brute.is_some(), "{fam}: any-hit {path:?} for {r:?}");
            }
        }
    }
    assert!(hits > rays / 10, "only {hits} hits in {rays} rays");
}

#[test]
fn hand_computed_rays() {
    // Ten unit boxes along x, 2 apart: [0,1], [2,3], ... .
    let boxes: Vec<Aabb> = (0..10)
        .map(|i| {
            let x = i as f32 * 2.0;
            Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0))
        })
        .collect();
    let mut cfg = BuildConfig::balanced();
    cfg.max_leaf_size = 1;
    cfg.min_leaf_size = 1;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let w = Bvh8::from_bvh(&bvh);
    let perm = bvh.prim_indices();
    for path in SimdPath::available() {
        let collect = |ray: &Ray, t0: f32, t1: f32| {
            let mut v = Vec::new();
            w.traverse(path, ray, t0, t1, true, &mut |range, _| {
                v.extend(range.map(|p| perm[p]));
                ControlFlow::Continue(())
            });
            v
        };
        // Along the row through the middle: every box, nearest first.
        let along = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(
            collect(&along, 0.0, f32::INFINITY),
            (0..10).collect::<Vec<u32>>()
        );
        // Backwards from the far end: farthest index first.
        let back = Ray::new(Point3::new(30.0, 0.5, 0.5), Vector3::new(-1.0, -0.0, 0.0));
        assert_eq!(
            collect(&back, 0.0, f32::INFINITY),
            (0..10).rev().collect::<Vec<u32>>()
        );
        // t_max = 4.5 reaches x = 3.5: boxes 0 and 1 (entered at t = 1 and 3).
        assert_eq!(collect(&along, 0.0, 4.5), vec![0, 1]);
        // Lying exactly in the top face plane y = 1 (0 * inf = NaN is ignored): all hit.
        let in_plane = Ray::new(Point3::new(-1.0, 1.0, 0.5), Vector3::new(1.0, 0.0, -0.0));
        assert_eq!(collect(&in_plane, 0.0, f32::INFINITY).len(), 10);
        // Just above it: none.
        let above = Ray::new(Point3::new(-1.0, 1.0001, 0.5), Vector3::new(1.0, 0.0, 0.0));
        assert!(collect(&above, 0.0, f32::INFINITY).is_empty());
        // Straight down into box 3 only.
        let down = Ray::new(Point3::new(6.5, 5.0, 0.5), Vector3::new(0.0, -1.0, 0.0));
        assert_eq!(collect(&down, 0.0, f32::INFINITY), vec![3]);
        // Invalid queries visit nothing.
        let nan = Ray::new(
            Point3::new(-1.0, 0.5, 0.5),
            Vector3::new(1.0, f32::NAN, 0.0),
        );
        let zero = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::zeros());
        assert!(collect(&nan, 0.0, f32::INFINITY).is_empty());
        assert!(collect(&zero, 0.0, f32::INFINITY).is_empty());
        assert!(collect(&along, 2.0, 1.0).is_empty());
        assert!(collect(&along, f32::NAN, 1.0).is_empty());
        // Break stops at once.
        let mut calls = 0;
        w.traverse(path, &along, 0.0, f32::INFINITY, true, &mut |_, _| {
            calls += 1;
            ControlFlow::Break(())
        });
        assert_eq!(calls, 1);
    }
}

#[test]
fn simd_path_choice() {
    assert!(SimdPath::Scalar.is_available());
    assert_eq!(SimdPath::available().next(), Some(SimdPath::Scalar));
    let best = SimdPath::best();
    assert!(best.is_available());
    assert_eq!(SimdPath::best(), best, "the choice is cached");
    #[cfg(target_arch = "x86_64")]
    assert!(SimdPath::Sse.is_available());
}

#[test]
fn deep_chain_trees_use_the_large_stack_and_agree() {
    // Boxes growing geometrically along x: SAH peels one off per level, a deep chain.
    let boxes: Vec<Aabb> = (0..60)
        .map(|i| {
            let x = 2.5f32.powi(i);
            Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x * 1.2, 1.0, 1.0))
        })
        .collect();
    let mut cfg = BuildConfig::balanced();
    cfg.min_leaf_size = 1;
    cfg.max_leaf_size = 1;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let w4 = Bvh4::from_bvh(&bvh);
    let w8 = Bvh8::from_bvh(&bvh);
    check_wide(&bvh, &w4, "chain bvh4");
    check_wide(&bvh, &w8, "chain bvh8");
    // Deeper than the small-stack limit (16 levels), so the full-size stack runs too.
    assert!(
        w4.depth() > 16,
        "binary depth {}, bvh4 depth {}",
        bvh.depth(),
        w4.depth()
    );
    let mut rng = Rng::new(3);
    let far = 2.5f32.powi(61);
    for _ in 0..env_cases(300) {
        let mut r = ray(&mut rng, &boxes);
        if rng.below(2) == 0 {
            // Along the chain, so every level is entered.
            r = Ray::new(
                Point3::new(-1.0, rng.range(0.0, 1.0), rng.range(0.0, 1.0)),
                Vector3::new(far, rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) / far,
            );
        }
        let (t0, t1) = bounds(&mut rng);
        check_candidates(&bvh, &w8, &boxes, &r, t0, t1, "chain");
    }
}

#[test]
fn refit_keeps_the_tree_valid_and_complete() {
    let mut rng = Rng::new(17);
    for n in [0usize, 1, 5, 64, 700] {
        let boxes = families(n, 40 + n as u64).remove(0).1;
        let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
        let mut w4 = Bvh4::from_bvh(&bvh);
        let mut w8 = Bvh8::from_bvh(&bvh);
        // Move every box: shift and scale, so the old boxes no longer contain them.
        let moved: Vec<Aabb> = boxes
            .iter()
            .map(|b| {
                let d = Vector3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0);
                Aabb::new(b.min + d, b.max + d + Vector3::new(0.3, 0.2, 0.1))
            })
            .collect();
        let perm = bvh.prim_indices();
        w4.refit(perm, &moved).unwrap();
        w8.refit(perm, &moved).unwrap();
        let mut moved_bvh = bvh.clone();
        moved_bvh.refit(&moved).unwrap();
        check_wide(&moved_bvh, &w4, "refit bvh4");
        check_wide(&moved_bvh, &w8, "refit bvh8");
        for _ in 0..env_cases(60) {
            let r = ray(&mut rng, &moved);
            let (t0, t1) = bounds(&mut rng);
            check_candidates(&moved_bvh, &w8, &moved, &r, t0, t1, "refit");
        }
        if n > 0 {
            // Bad input is refused and leaves the tree as it was.
            let before = w8.clone();
            let mut bad = moved.clone();
            bad[n / 2].min.y = f32::NAN;
            assert!(w8.refit(perm, &bad).is_err());
            assert!(w8.refit(perm, &moved[1..]).is_err());
            let mut bad_perm = perm.to_vec();
            bad_perm[0] = n as u32;
            assert!(w8.refit(&bad_perm, &moved).is_err());
            assert_eq!(w8, before);
        }
    }
}
