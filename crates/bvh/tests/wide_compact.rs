//! The compact (quantized) 8-wide layout: every stored box contains the exact one, and not by
//! much; the shape is the plain tree's; refit equals compacting the refit plain tree; queries
//! find everything the plain tree finds; inputs it cannot store are named errors.

mod common;

use std::ops::{ControlFlow, Range};

use common::*;
use raypick_bvh::wide::{
    Bvh8, CollapseConfig, CompactBvh8, CompactError, WideChild, WideRefitError,
};
use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Point3, Vector3};

/// Box families with hard ranges for 8-bit planes: far from the origin, tiny next to huge,
/// flat, negative, and the shared generators.
fn hard_families(n: usize, seed: u64) -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = Rng::new(seed);
    let mut out = families(n, seed);
    let far: Vec<Aabb> = (0..n)
        .map(|_| {
            let c = Point3::new(
                1.0e6 + rng.range(0.0, 1.0),
                -3.0e5 + rng.range(0.0, 0.01),
                rng.range(-1.0e-3, 1.0e-3),
            );
            let h = Vector3::new(rng.range(0.0, 1e-3), rng.range(0.0, 1e-4), 0.0);
            Aabb::new(c - h, c + h)
        })
        .collect();
    out.push(("far and tiny", far));
    let mixed: Vec<Aabb> = (0..n)
        .map(|i| {
            let s = if i % 7 == 0 { 1.0e4 } else { 1.0e-2 };
            let c = Point3::new(rng.range(-50.0, 50.0), rng.range(-50.0, 50.0), 0.0);
            Aabb::new(c, c + Vector3::new(s, s * 0.5, 0.0))
        })
        .collect();
    out.push(("mixed scales, flat", mixed));
    out
}

fn compacts(boxes: &[Aabb], cfg: &BuildConfig) -> (Bvh, Bvh8, CompactBvh8) {
    let bvh = Bvh::build(boxes, cfg).unwrap();
    let wide = Bvh8::from_bvh_with(&bvh, &CollapseConfig::merge_leaves());
    let compact = CompactBvh8::from_wide(&wide).unwrap();
    (bvh, wide, compact)
}

#[test]
fn compact_boxes_contain_the_plain_ones_in_the_same_shape() {
    let (mut trees, mut big) = (0, 0);
    // 50,000 boxes make trees of more than 1,024 nodes, which `from_wide` quantizes partly
    // in parallel.
    for n in [0, 1, 2, 7, 8, 9, 30, 64, 200, 1000, 50_000] {
        for (fam, boxes) in hard_families(n, 11 + n as u64) {
            for (name, cfg) in presets() {
                let what = format!("{fam} n={n} {name}");
                let (_, wide, compact) = compacts(&boxes, &cfg);
                big += usize::from(wide.nodes().len() > 1024);
                let stats = compact.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(stats.node_count, wide.nodes().len(), "{what}");
                assert_eq!(compact.len(), wide.len(), "{what}");
                assert_eq!(compact.depth(), wide.depth(), "{what}");
                assert_eq!(compact.leaf_ranges(), wide.leaf_ranges(), "{what}");
                assert_eq!(compact.memory_bytes() * 2, wide.memory_bytes(), "{what}");
                for (c, p) in compact.nodes().iter().zip(wide.nodes()) {
                    assert_eq!(c.child_count(), p.child_count(), "{what}");
                    for i in 0..9 {
                        assert_eq!(c.child(i), p.child(i), "{what}: slot {i}");
                        let (cb, pb) = (c.child_aabb(i), p.child_aabb(i));
                        if p.child(i) == WideChild::Empty {
                            assert_eq!(cb, Aabb::EMPTY, "{what}: unused slot {i}");
                        } else {
                            assert!(cb.contains_aabb(&pb), "{what}: slot {i} {cb:?} < {pb:?}");
                        }
                    }
                }
                trees += 1;
            }
        }
    }
    assert!(trees > 100);
    assert!(big > 5, "{big} trees of more than 1,024 nodes");
}

/// In a one-node tree every slot is quantized from its exact box: each stored plane lies
/// within two steps (a step is at most 2 / 255 of the node's extent) of the exact one.
#[test]
fn one_node_planes_are_within_two_steps() {
    let mut rng = Rng::new(5);
    let mut checked = 0;
    for case in 0..300 {
        let n = 1 + case % 8;
        let scale = [1e-3f32, 1.0, 1e3, 1e6][case % 4];
        let base = rng.range(-1.0, 1.0) * scale * 100.0;
        let boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let lo = Point3::new(
                    base + rng.range(0.0, scale),
                    rng.range(-scale, scale),
                    base * 0.5,
                );
                let ext = Vector3::new(rng.range(0.0, scale), rng.range(0.0, scale * 0.1), 0.0);
                Aabb::new(lo, lo + ext)
            })
            .collect();
        let cfg = BuildConfig {
            max_leaf_size: 1,
            min_leaf_size: 1,
            ..BuildConfig::balanced()
        };
        let bvh = Bvh::build(&boxes, &cfg).unwrap();
        let wide = Bvh8::from_bvh(&bvh);
        assert_eq!(wide.nodes().len(), 1, "case {case}");
        let compact = CompactBvh8::from_wide(&wide).unwrap();
        let (p, c) = (&wide.nodes()[0], &compact.nodes()[0]);
        let node = (0..n).fold(Aabb::EMPTY, |u, i| u.union(&p.child_aabb(i)));
        for i in 0..n {
            let (pb, cb) = (p.child_aabb(i), c.child_aabb(i));
            for a in 0..3 {
                let ext = node.max[a] - node.min[a];
                // Two steps, plus the rounding of `origin + q * step` near large origins.
                let slack = 4.0 * ext / 255.0
                    + 2.0 * f32::EPSILON * node.min[a].abs().max(node.max[a].abs());
                assert!(
                    cb.min[a] <= pb.min[a] && pb.min[a] - cb.min[a] <= slack,
                    "case {case} slot {i} axis {a}: {} vs {}",
                    cb.min[a],
                    pb.min[a]
                );
                assert!(
                    cb.max[a] >= pb.max[a] && cb.max[a] - pb.max[a] <= slack,
                    "case {case} slot {i} axis {a}: {} vs {}",
                    cb.max[a],
                    pb.max[a]
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
}

fn union(boxes: &[Aabb], prims: &[u32], r: Range<usize>) -> Aabb {
    prims[r]
        .iter()
        .fold(Aabb::EMPTY, |u, &p| u.union(&boxes[p as usize]))
}

#[test]
fn refit_equals_compacting_the_refit_plain_tree() {
    let mut rng = Rng::new(77);
    for n in [0, 1, 5, 100, 3000, 40_000] {
        let boxes = random_boxes(&mut rng, n, 10.0, 1.0);
        let (bvh, wide, compact) = compacts(&boxes, &BuildConfig::balanced());
        let prims = bvh.prim_indices();
        let to: Vec<Aabb> = boxes
            .iter()
            .map(|b| {
                let d = Vector3::new(rng.range(-3.0, 3.0), rng.range(-1.0, 1.0), 0.5);
                Aabb::new(
                    b.min + d,
                    b.max + d + d.abs() * 0.5 + Vector3::new(0.1, 0.0, 0.0),
                )
            })
            .collect();
        let mut plain = wide.clone();
        plain.refit(prims, &to).unwrap();
        let mut c = compact.clone();
        c.refit(prims, &to).unwrap();
        c.validate().unwrap();
        assert_eq!(c, CompactBvh8::from_wide(&plain).unwrap(), "n={n}");
        for node in c.nodes() {
            for i in 0..8 {
                if let WideChild::Leaf(r) = node.child(i) {
                    assert!(
                        node.child_aabb(i).contains_aabb(&union(&to, prims, r)),
                        "n={n}"
                    );
                }
            }
        }
        if n > 0 {
            assert_ne!(c, compact, "n={n}: nothing moved");
        }
        c.refit_by_leaf(|r| union(&boxes, prims, r)).unwrap();
        assert_eq!(c, compact, "n={n}: refit back");
    }
}

type BoxLeaf<'a> = &'a mut dyn FnMut(Range<usize>) -> ControlFlow<()>;
type DistLeaf<'a> = &'a mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>;

#[test]
fn overlap_and_nearest_queries_find_what_the_plain_tree_finds() {
    let mut rng = Rng::new(99);
    for n in [1, 9, 300, 2000] {
        for (fam, boxes) in hard_families(n, n as u64) {
            let (bvh, wide, compact) = compacts(&boxes, &BuildConfig::balanced());
            let prims = bvh.prim_indices();
            let lo = boxes.iter().fold(Aabb::EMPTY, |u, b| u.union(b));
            for _ in 0..40 {
                let p = Point3::new(
                    rng.range(lo.min.x, lo.max.x.max(lo.min.x)),
                    rng.range(lo.min.y, lo.max.y.max(lo.min.y)),
                    rng.range(lo.min.z, lo.max.z.max(lo.min.z)),
                );
                let h = Vector3::new(
                    rng.range(0.0, 1.0) * (lo.max.x - lo.min.x) * 0.1,
                    rng.range(0.0, 1.0) * (lo.max.y - lo.min.y) * 0.1,
                    rng.range(0.0, 1.0) * (lo.max.z - lo.min.z) * 0.1,
                );
                let q = Aabb::new(p - h, p + h);
                let leaves = |t: &dyn Fn(BoxLeaf<'_>)| {
                    let mut v = Vec::new();
                    t(&mut |r| {
                        v.push(r.start);
                        ControlFlow::Continue(())
                    });
                    v
                };
                let plain = leaves(&|f| wide.traverse_aabb(&q, f));
                let comp = leaves(&|f| compact.traverse_aabb(&q, f));
                for s in &plain {
                    assert!(comp.contains(s), "{fam} n={n}: overlap misses leaf {s}");
                }
                // Nearest box distance: the same, exactly, from both trees.
                let nearest = |t: &dyn Fn(DistLeaf<'_>)| {
                    let mut best = f32::INFINITY;
                    t(&mut |r, best2| {
                        for &pi in &prims[r] {
                            let b = &boxes[pi as usize];
                            let d = (0..3)
                                .map(|a| (b.min[a] - p[a]).max(p[a] - b.max[a]).max(0.0).powi(2))
                                .sum::<f32>();
                            best = best.min(d);
                        }
                        *best2 = best2.min(best);
                        ControlFlow::Continue(())
                    });
                    best
                };
                let a = nearest(&|f| wide.traverse_nearest_first(&p, f32::INFINITY, f));
                let b = nearest(&|f| compact.traverse_nearest_first(&p, f32::INFINITY, f));
                assert_eq!(a, b, "{fam} n={n}: nearest");
            }
            assert!(compact.bounds().contains_aabb(&wide.bounds()));
        }
    }
}

#[test]
fn unquantizable_input_is_a_named_error() {
    // Boxes spanning nearly the whole f32 range: no 8-bit step reaches across.
    let boxes = vec![
        Aabb::new(
            Point3::new(-3.0e38, 0.0, 0.0),
            Point3::new(-2.9e38, 1.0, 1.0),
        ),
        Aabb::new(Point3::new(2.9e38, 0.0, 0.0), Point3::new(3.0e38, 1.0, 1.0)),
    ];
    let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    assert_eq!(
        CompactBvh8::from_wide(&wide),
        Err(CompactError::OutOfRange { node: 0 })
    );
    // Refit of a valid compact tree to such boxes: the node is named, as a refit error.
    let small = vec![
        Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)),
        Aabb::new(Point3::new(2.0, 0.0, 0.0), Point3::new(3.0, 1.0, 1.0)),
    ];
    let bvh = Bvh::build(&small, &BuildConfig::balanced()).unwrap();
    let mut compact = CompactBvh8::from_wide(&Bvh8::from_bvh(&bvh)).unwrap();
    let err = compact.refit(bvh.prim_indices(), &boxes).unwrap_err();
    assert_eq!(err, WideRefitError::OutOfRange { node: 0 });
    assert!(err.to_string().contains("node 0"));
    let nan = vec![
        small[0],
        Aabb::new(Point3::new(f32::NAN, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)),
    ];
    assert_eq!(
        compact.refit(bvh.prim_indices(), &nan),
        Err(WideRefitError::BadBox { index: 1 })
    );

    // A leaf of more primitives than a compact slot counts.
    let n = 70_000;
    let boxes = identical_boxes(n);
    let cfg = BuildConfig {
        max_depth: 1,
        ..BuildConfig::fast()
    };
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    match CompactBvh8::from_wide(&wide) {
        Err(CompactError::LeafTooLarge { start, end }) => {
            assert!(end - start > 65_535, "{start}..{end}");
            assert!(CompactError::LeafTooLarge { start, end }
                .to_string()
                .contains(&format!("{start}..{end}")));
        }
        other => panic!("expected LeafTooLarge, got {other:?}"),
    }
}

#[test]
fn from_compact_keeps_the_shape_and_refits_back_to_the_plain_tree() {
    let mut rng = Rng::new(8);
    for n in [0, 1, 9, 500] {
        let boxes = random_boxes(&mut rng, n, 10.0, 1.0);
        let (bvh, wide, compact) = compacts(&boxes, &BuildConfig::balanced());
        let mut back = Bvh8::from_compact(&compact);
        back.validate().unwrap();
        assert_eq!(back.leaf_ranges(), wide.leaf_ranges(), "n={n}");
        for (b, c) in back.nodes().iter().zip(compact.nodes()) {
            for i in 0..8 {
                assert_eq!(b.child(i), c.child(i));
                assert_eq!(b.child_aabb(i), c.child_aabb(i));
            }
        }
        back.refit_by_leaf(|r| union(&boxes, bvh.prim_indices(), r))
            .unwrap();
        assert_eq!(back, wide, "n={n}");
    }
}
