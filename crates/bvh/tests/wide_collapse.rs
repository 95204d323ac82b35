//! The cost-optimal collapse (`WideBvh::from_bvh_with`, `CollapseConfig`): the trees
//! validate for every preset, size and box family and both widths; leaves are whole binary
//! subtrees (merged only up to `max_leaf`); ray traversal visits the binary tree's candidates,
//! plus only the rest of merged leaves; refit keeps the trees valid; hand-computed shapes.

mod common;

use std::ops::{ControlFlow, Range};

use common::{bx, clustered_boxes, env_cases, identical_boxes, random_boxes, random_ray, Rng};
use raypick_bvh::wide::{CollapseConfig, WideBvh, WideChild};
use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Ray, RayAabbPrecomp};

fn configs() -> Vec<(&'static str, CollapseConfig)> {
    vec![
        ("default", CollapseConfig::new()),
        ("merge_leaves", CollapseConfig::merge_leaves()),
        (
            "big_leaves",
            CollapseConfig {
                max_leaf: 8,
                node_cost: 1.0,
                prim_cost: 0.05,
            },
        ),
        (
            "costly_prims",
            CollapseConfig {
                max_leaf: 16,
                node_cost: 0.1,
                prim_cost: 3.0,
            },
        ),
        (
            "bad_costs",
            CollapseConfig {
                max_leaf: u32::MAX,
                node_cost: f32::NAN,
                prim_cost: f32::NEG_INFINITY,
            },
        ),
    ]
}

/// The three box families of the brief: random, clustered, identical.
fn families(n: usize, seed: u64) -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = Rng::new(seed);
    vec![
        ("random", random_boxes(&mut rng, n, 10.0, 1.0)),
        ("clustered", clustered_boxes(&mut rng, n)),
        ("identical", identical_boxes(n)),
    ]
}

fn binary_leaves(bvh: &Bvh) -> Vec<Range<usize>> {
    let mut v: Vec<Range<usize>> = bvh.nodes().iter().filter_map(|n| n.leaf_range()).collect();
    v.sort_by_key(|r| r.start);
    v
}

/// Checks a collapsed tree against its binary tree; returns how many wide leaves merge
/// several binary leaves.
fn check<const N: usize>(bvh: &Bvh, wide: &WideBvh<N>, cfg: &CollapseConfig, what: &str) -> usize {
    let stats = wide.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(wide.len(), bvh.len(), "{what}");
    assert_eq!(stats.prim_count, bvh.len(), "{what}");
    assert_eq!(wide.is_empty(), bvh.is_empty(), "{what}");
    assert!(
        wide.depth() <= bvh.depth(),
        "{what}: wide deeper than binary"
    );
    if bvh.is_empty() {
        assert_eq!(stats.node_count, 0, "{what}");
        return 0;
    }
    // Every wide leaf is a run of whole binary leaves; a run of several holds at most
    // `max_leaf` primitives.
    let bin = binary_leaves(bvh);
    let starts: Vec<usize> = bin.iter().map(|r| r.start).collect();
    let mut leaves = wide.leaf_ranges();
    leaves.sort_by_key(|r| r.start);
    assert_eq!(stats.leaf_count, leaves.len(), "{what}");
    let mut merged = 0;
    for r in &leaves {
        let first = starts
            .binary_search(&r.start)
            .unwrap_or_else(|_| panic!("{what}: leaf {r:?} starts inside a binary leaf"));
        let mut end = first;
        while end < bin.len() && bin[end].end <= r.end {
            end += 1;
        }
        assert_eq!(
            bin[end - 1].end,
            r.end,
            "{what}: leaf {r:?} ends inside a binary leaf"
        );
        if end - first > 1 {
            merged += 1;
            assert!(
                r.len() <= cfg.max_leaf as usize,
                "{what}: merged leaf {r:?} is larger than {}",
                cfg.max_leaf
            );
        }
    }
    if cfg.max_leaf <= 1 {
        assert_eq!(leaves, bin, "{what}: the default config changed the leaves");
    }
    // Each slot box is the box of the binary subtree it stands for: it contains the boxes of
    // everything below (validate checks the interior nesting).
    merged
}

#[test]
fn collapsed_trees_validate_for_every_preset_size_and_family() {
    let mut merged = 0;
    let mut trees = 0;
    for n in 0..=300 {
        for (fam, boxes) in families(n, 40 + n as u64) {
            for (name, build) in common::presets() {
                let bvh = Bvh::build(&boxes, &build).unwrap();
                for (cname, cfg) in configs() {
                    let what = format!("{fam} n={n} {name} {cname}");
                    merged += check(
                        &bvh,
                        &WideBvh::<4>::from_bvh_with(&bvh, &cfg),
                        &cfg,
                        &format!("{what} bvh4"),
                    );
                    merged += check(
                        &bvh,
                        &WideBvh::<8>::from_bvh_with(&bvh, &cfg),
                        &cfg,
                        &format!("{what} bvh8"),
                    );
                    trees += 2;
                }
                // from_bvh is the default config.
                assert_eq!(
                    WideBvh::<8>::from_bvh(&bvh),
                    WideBvh::<8>::from_bvh_with(&bvh, &CollapseConfig::default()),
                    "{fam} n={n} {name}"
                );
            }
        }
    }
    // The configs must actually merge leaves somewhere, or the merge checks prove nothing.
    assert!(
        merged > trees,
        "only {merged} merged leaves in {trees} trees"
    );
}

/// Sorted leaf-order positions in the leaves a traversal visits (no pruning: `t_max` is
/// never lowered), and each visited range.
fn visited<F>(traverse: F) -> (Vec<usize>, Vec<Range<usize>>)
where
    F: FnOnce(&mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>),
{
    let mut pos = Vec::new();
    let mut ranges = Vec::new();
    traverse(&mut |r, _| {
        pos.extend(r.clone());
        ranges.push(r);
        ControlFlow::Continue(())
    });
    let n = pos.len();
    pos.sort_unstable();
    pos.dedup();
    assert_eq!(pos.len(), n, "a position was visited twice");
    (pos, ranges)
}

/// `traverse_ray` (8-wide trees, the width ray traversal serves).
trait Traverse {
    fn visit(&self, ray: &Ray, t0: f32, t1: f32) -> (Vec<usize>, Vec<Range<usize>>);
}

impl Traverse for WideBvh<8> {
    fn visit(&self, ray: &Ray, t0: f32, t1: f32) -> (Vec<usize>, Vec<Range<usize>>) {
        visited(|f| self.traverse_ray(ray, t0, t1, f))
    }
}

fn check_ray(
    bvh: &Bvh,
    wide: &dyn Traverse,
    cfg: &CollapseConfig,
    boxes: &[Aabb],
    ray: &Ray,
    what: &str,
) -> usize {
    let (t0, t1) = (0.0, f32::INFINITY);
    let (binary, _) = visited(|f| bvh.traverse_ray(ray, t0, t1, f));
    let (wide_pos, wide_ranges) = wide.visit(ray, t0, t1);
    // Brute force: every position whose box the robust test accepts is a candidate of both.
    let pre = RayAabbPrecomp::new(ray);
    let mut accepted = 0;
    for (pos, &prim) in bvh.prim_indices().iter().enumerate() {
        if pre
            .intersect_robust(&boxes[prim as usize], t0, t1)
            .is_some()
        {
            accepted += 1;
            assert!(
                binary.binary_search(&pos).is_ok(),
                "{what}: binary missed {pos}"
            );
            assert!(
                wide_pos.binary_search(&pos).is_ok(),
                "{what}: wide missed {pos}"
            );
        }
    }
    if cfg.max_leaf <= 1 {
        assert_eq!(
            wide_pos, binary,
            "{what}: candidate sets differ for {ray:?}"
        );
    } else {
        // The binary candidates, plus only the rest of merged leaves the ray enters.
        for &p in &binary {
            assert!(wide_pos.binary_search(&p).is_ok(), "{what}: wide lacks {p}");
        }
        let bin = binary_leaves(bvh);
        for r in &wide_ranges {
            let is_binary_leaf = bin
                .binary_search_by_key(&r.start, |b| b.start)
                .is_ok_and(|i| bin[i] == *r);
            if !r.clone().all(|p| binary.binary_search(&p).is_ok()) {
                assert!(
                    !is_binary_leaf,
                    "{what}: extra positions in unmerged leaf {r:?}"
                );
            }
        }
    }
    accepted
}

#[test]
fn traversal_visits_the_binary_candidates() {
    let rays = env_cases(40);
    let mut rng = Rng::new(3);
    let mut accepted = 0;
    let mut total = 0;
    for n in [0, 1, 2, 3, 5, 9, 17, 64, 100, 300, 1000] {
        for (fam, boxes) in families(n, 900 + n as u64) {
            for (name, build) in common::presets() {
                let bvh = Bvh::build(&boxes, &build).unwrap();
                for (cname, cfg) in configs() {
                    let w8 = WideBvh::<8>::from_bvh_with(&bvh, &cfg);
                    for _ in 0..rays {
                        let mut ray = if fam == "clustered" {
                            random_ray(&mut rng, 110.0)
                        } else {
                            random_ray(&mut rng, 12.0)
                        };
                        if n > 0 && rng.below(2) == 0 {
                            // Aim at a box's centre, so that most rays hit something.
                            ray.dir = boxes[rng.below(n)].center() - ray.origin;
                        }
                        let what = format!("{fam} n={n} {name} {cname}");
                        accepted += check_ray(&bvh, &w8, &cfg, &boxes, &ray, &what);
                        total += 1;
                    }
                }
            }
        }
    }
    assert!(
        accepted > total,
        "only {accepted} accepted boxes over {total} rays"
    );
}

#[test]
fn refit_keeps_collapsed_trees_valid_and_tight() {
    let mut rng = Rng::new(17);
    for n in [0, 1, 2, 7, 64, 333] {
        for (fam, boxes) in families(n, 70 + n as u64) {
            let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
            // Every primitive moves (and grows or shrinks) differently.
            let moved: Vec<Aabb> = boxes
                .iter()
                .map(|b| {
                    let d = [
                        rng.range(-3.0, 3.0),
                        rng.range(-3.0, 3.0),
                        rng.range(-3.0, 3.0),
                    ];
                    let s = rng.range(0.0, 2.0);
                    bx(
                        [b.min.x + d[0], b.min.y + d[1], b.min.z + d[2]],
                        [b.max.x + d[0] + s, b.max.y + d[1], b.max.z + d[2] + s],
                    )
                })
                .collect();
            for (cname, cfg) in configs() {
                let what = format!("{fam} n={n} {cname}");
                let mut wide = WideBvh::<8>::from_bvh_with(&bvh, &cfg);
                let before = wide.leaf_ranges();
                wide.refit(bvh.prim_indices(), &moved).unwrap();
                wide.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(
                    wide.leaf_ranges(),
                    before,
                    "{what}: refit changed the shape"
                );
                // Leaf slot boxes are exactly the union of their primitives' new boxes.
                for node in wide.nodes() {
                    for slot in 0..8 {
                        if let WideChild::Leaf(r) = node.child(slot) {
                            let mut u = Aabb::EMPTY;
                            for &p in &bvh.prim_indices()[r] {
                                u = u.union(&moved[p as usize]);
                            }
                            assert_eq!(node.child_aabb(slot), u, "{what}");
                        }
                    }
                }
                // Rays against the moved boxes miss nothing.
                let pre_rays: Vec<Ray> = (0..20).map(|_| random_ray(&mut rng, 110.0)).collect();
                for ray in &pre_rays {
                    let (pos, _) = wide.visit(ray, 0.0, f32::INFINITY);
                    let pre = RayAabbPrecomp::new(ray);
                    for (p, &prim) in bvh.prim_indices().iter().enumerate() {
                        if pre
                            .intersect_robust(&moved[prim as usize], 0.0, f32::INFINITY)
                            .is_some()
                        {
                            assert!(pos.binary_search(&p).is_ok(), "{what}: missed {p}");
                        }
                    }
                }
            }
        }
    }
}

/// `n` unit boxes along x with gaps, built into a binary tree with one box per leaf.
fn row(n: usize) -> (Vec<Aabb>, Bvh) {
    let boxes: Vec<Aabb> = (0..n)
        .map(|i| {
            let x = 2.0 * i as f32;
            bx([x, 0.0, 0.0], [x + 1.0, 1.0, 1.0])
        })
        .collect();
    let cfg = BuildConfig {
        min_leaf_size: 1,
        max_leaf_size: 1,
        ..BuildConfig::balanced()
    };
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    (boxes, bvh)
}

#[test]
fn sixty_four_single_leaves_make_nine_full_nodes() {
    // A perfect binary tree of 64 leaves: the root and 8 nodes of 8 leaves each is the only
    // way to use 9 nodes, and fewer cannot hold 64 leaves.
    let (_, bvh) = row(64);
    assert_eq!(bvh.depth(), 7, "the binary tree should be perfect");
    let w = WideBvh::<8>::from_bvh_with(&bvh, &CollapseConfig::new());
    let s = w.validate().unwrap();
    assert_eq!((s.node_count, s.depth, s.leaf_count), (9, 2, 64));
    assert_eq!(s.mean_children, 8.0);
}

#[test]
fn cheap_primitives_merge_pairs_into_one_node() {
    // 16 boxes, one per binary leaf. Primitives are nearly free next to a node visit, so
    // the best tree is a single node. Its 8 slots hold 8 pairs: a pair (half area
    // 3 + 1 + 3 = 7, 2 primitives: 14) is cheaper than a leaf of four (15 x 4 = 60) plus
    // two single ones (3 each) over the same 6 boxes, 42 against 66.
    let (_, bvh) = row(16);
    let cfg = CollapseConfig {
        max_leaf: 16,
        node_cost: 1.0,
        prim_cost: 0.001,
    };
    let w = WideBvh::<8>::from_bvh_with(&bvh, &cfg);
    let s = w.validate().unwrap();
    assert_eq!((s.node_count, s.depth, s.leaf_count), (1, 1, 8));
    let mut leaves = w.leaf_ranges();
    leaves.sort_by_key(|r| r.start);
    let want: Vec<Range<usize>> = (0..8).map(|i| 2 * i..2 * i + 2).collect();
    assert_eq!(leaves, want);
    // Without merging, 16 leaves need a second level.
    let k = WideBvh::<8>::from_bvh_with(&bvh, &CollapseConfig::new());
    let ks = k.validate().unwrap();
    assert_eq!(ks.leaf_count, 16);
    assert!(ks.node_count >= 3 && ks.depth == 2, "{ks:?}");
}

#[test]
fn dear_primitives_keep_small_leaves() {
    // Primitive tests far dearer than node visits: merging never pays.
    let (_, bvh) = row(40);
    let cfg = CollapseConfig {
        max_leaf: 64,
        node_cost: 0.01,
        prim_cost: 10.0,
    };
    let w = WideBvh::<4>::from_bvh_with(&bvh, &cfg);
    w.validate().unwrap();
    assert!(w.leaf_ranges().iter().all(|r| r.len() == 1));
}

#[test]
fn zero_and_one_primitive() {
    for cfg in configs().into_iter().map(|c| c.1) {
        let empty = Bvh::build(&[], &BuildConfig::balanced()).unwrap();
        let w = WideBvh::<8>::from_bvh_with(&empty, &cfg);
        assert!(w.is_empty() && w.nodes().is_empty() && w.depth() == 0);
        w.validate().unwrap();
        let one = Bvh::build(&[bx([0.0; 3], [1.0; 3])], &BuildConfig::balanced()).unwrap();
        let w = WideBvh::<4>::from_bvh_with(&one, &cfg);
        let s = w.validate().unwrap();
        assert_eq!((s.node_count, s.leaf_count, s.depth), (1, 1, 1));
        assert_eq!(w.nodes()[0].child(0), WideChild::Leaf(0..1));
        assert_eq!(w.nodes()[0].child(1), WideChild::Empty);
    }
}

/// `Bvh8::build` (the plan solved inside the build's tasks where it can be) gives exactly the
/// two trees of `Bvh::build` then `from_bvh_with`, for every preset (the optimizer's and the
/// Morton builder's included, which take the two steps), every collapse config, sizes that
/// split into many parallel parts ("parallel" builds in parts of 64), and any thread count.
#[test]
fn build_with_the_plan_inside_equals_the_two_steps() {
    let pools: Vec<rayon::ThreadPool> = [1, 3]
        .iter()
        .map(|&t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect();
    let mut cases = 0;
    for n in [0, 1, 2, 3, 17, 64, 65, 130, 700, 5000] {
        for (fam, boxes) in families(n, 7 + n as u64) {
            for (name, build) in common::presets() {
                let bvh = Bvh::build(&boxes, &build).unwrap();
                for (cname, cfg) in configs() {
                    let want = WideBvh::<8>::from_bvh_with(&bvh, &cfg);
                    for pool in &pools {
                        let (b, w) = pool
                            .install(|| WideBvh::<8>::build(&boxes, &build, &cfg))
                            .unwrap();
                        let what = format!("{fam} n={n} {name} {cname}");
                        assert_eq!(b, bvh, "{what}: binary tree");
                        assert_eq!(w, want, "{what}: wide tree");
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases > 1000, "{cases}");
}

/// Bad input fails as `Bvh::build` does, naming the same box.
#[test]
fn build_with_the_plan_inside_rejects_what_the_binary_build_rejects() {
    let mut boxes = vec![bx([0.0; 3], [1.0; 3]); 10];
    boxes[7] = bx([0.0, f32::NAN, 0.0], [1.0; 3]);
    let cfg = CollapseConfig::merge_leaves();
    let got = WideBvh::<8>::build(&boxes, &BuildConfig::balanced(), &cfg).unwrap_err();
    let want = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap_err();
    assert_eq!(got, want);
}
