//! Non-ray traversals and refit of the wide trees (`raypick_bvh::wide`): box, predicate,
//! best-first and nearest-first queries find exactly the primitives the binary tree and a
//! brute force find, for every size from 0 to 300, every box family and every preset; the
//! visited leaves really pass the test (tight leaf boxes), each at most once; and the
//! refits give tight boxes and reject bad input.

mod common;

raypick_test_support::counting_allocator!();

use std::collections::HashSet;
use std::ops::{ControlFlow, Range};

use common::*;
use raypick_bvh::wide::{Bvh8, WideBvh, WideChild, WideRefitError};
use raypick_bvh::{BestFirstScratch, Bvh};
use raypick_primitives::{Aabb, Point3, Vector3};

fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    (0..3).all(|k| a.min[k] <= b.max[k] && b.min[k] <= a.max[k])
}

/// Exact (f64) squared distance from `p` to the box.
fn dist2(p: &Point3<f32>, b: &Aabb) -> f64 {
    (0..3)
        .map(|k| {
            let (lo, hi, x) = (f64::from(b.min[k]), f64::from(b.max[k]), f64::from(p[k]));
            let d = (lo - x).max(x - hi).max(0.0);
            d * d
        })
        .sum()
}

fn union(boxes: &[Aabb], prims: &[u32], r: Range<usize>) -> Aabb {
    prims[r]
        .iter()
        .fold(Aabb::EMPTY, |u, &p| u.union(&boxes[p as usize]))
}

/// The leaf ranges a traversal reported, checked disjoint (no leaf twice).
struct Visits {
    ranges: Vec<Range<usize>>,
}

impl Visits {
    fn new() -> Self {
        Self { ranges: Vec::new() }
    }
    fn push(&mut self, r: Range<usize>) {
        self.ranges.push(r);
    }
    /// Original indices of the visited primitives, sorted; panics on a repeated position.
    fn prims(&self, prims: &[u32], what: &str) -> Vec<usize> {
        let mut seen = HashSet::new();
        let mut v = Vec::new();
        for r in &self.ranges {
            for pos in r.clone() {
                assert!(seen.insert(pos), "{what}: position {pos} visited twice");
                v.push(prims[pos] as usize);
            }
        }
        v.sort_unstable();
        v
    }
}

fn query_box(rng: &mut Rng) -> Aabb {
    let c = Point3::new(
        rng.range(-12.0, 12.0),
        rng.range(-12.0, 12.0),
        rng.range(-12.0, 12.0),
    );
    let h = Vector3::new(
        rng.range(0.0, 4.0),
        rng.range(0.0, 4.0),
        rng.range(0.0, 4.0),
    );
    Aabb::new(c - h, c + h)
}

fn query_point(rng: &mut Rng) -> Point3<f32> {
    Point3::new(
        rng.range(-14.0, 14.0),
        rng.range(-14.0, 14.0),
        rng.range(-14.0, 14.0),
    )
}

/// Every query kind on one tree against the binary tree and brute force.
fn check_queries<const N: usize>(
    bvh: &Bvh,
    wide: &WideBvh<N>,
    boxes: &[Aabb],
    rng: &mut Rng,
    what: &str,
) {
    let prims = bvh.prim_indices();
    assert_eq!(wide.bounds(), bvh.bounds(), "{what}: bounds");
    let stats = wide.stats();
    if !wide.is_empty() {
        assert_eq!(
            wide.validate().unwrap(),
            stats,
            "{what}: stats of a valid tree"
        );
    }
    assert_eq!(stats.leaf_count, wide.leaf_ranges().len(), "{what}");

    // Everything: an all-space box and an always-true predicate visit every position once.
    let all: Vec<usize> = (0..boxes.len()).collect();
    let everything = Aabb::new(
        Point3::new(f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY),
        Point3::new(f32::INFINITY, f32::INFINITY, f32::INFINITY),
    );
    let mut v = Visits::new();
    wide.traverse_aabb(&everything, |r| {
        v.push(r);
        ControlFlow::Continue(())
    });
    assert_eq!(v.prims(prims, what), all, "{what}: all-space box");
    let mut v = Visits::new();
    wide.traverse_where(
        |_| true,
        |r| {
            v.push(r);
            ControlFlow::Continue(())
        },
    );
    assert_eq!(v.prims(prims, what), all, "{what}: always-true predicate");

    for _ in 0..6 {
        // Boxes.
        let q = query_box(rng);
        let mut v = Visits::new();
        wide.traverse_aabb(&q, |r| {
            let u = union(boxes, prims, r.clone());
            assert!(overlaps(&u, &q), "{what}: leaf {r:?} visited, box misses");
            v.push(r);
            ControlFlow::Continue(())
        });
        let exact = |v: Vec<usize>| -> Vec<usize> {
            v.into_iter().filter(|&p| overlaps(&boxes[p], &q)).collect()
        };
        let brute: Vec<usize> = (0..boxes.len())
            .filter(|&p| overlaps(&boxes[p], &q))
            .collect();
        let mut b = Visits::new();
        bvh.traverse_aabb(&q, |r| {
            b.push(r);
            ControlFlow::Continue(())
        });
        assert_eq!(exact(v.prims(prims, what)), brute, "{what}: aabb vs brute");
        assert_eq!(
            exact(b.prims(prims, what)),
            brute,
            "{what}: binary aabb vs brute"
        );

        // Spheres, by predicate.
        let c = query_point(rng);
        let r2 = f64::from(rng.range(0.0, 5.0)).powi(2);
        let near = |b: &Aabb| dist2(&c, b) <= r2;
        let mut v = Visits::new();
        wide.traverse_where(near, |r| {
            assert!(near(&union(boxes, prims, r.clone())), "{what}: sphere leaf");
            v.push(r);
            ControlFlow::Continue(())
        });
        let brute: Vec<usize> = (0..boxes.len()).filter(|&p| near(&boxes[p])).collect();
        let mut b = Visits::new();
        bvh.traverse_where(near, |r| {
            b.push(r);
            ControlFlow::Continue(())
        });
        let exact =
            |v: Vec<usize>| -> Vec<usize> { v.into_iter().filter(|&p| near(&boxes[p])).collect() };
        assert_eq!(
            exact(v.prims(prims, what)),
            brute,
            "{what}: sphere vs brute"
        );
        assert_eq!(exact(b.prims(prims, what)), brute, "{what}: binary sphere");

        // Nearest box to a point: best-first (visiting order by bound) and nearest-first.
        let p = query_point(rng);
        let brute = (0..boxes.len())
            .map(|i| dist2(&p, &boxes[i]))
            .fold(f64::INFINITY, f64::min);
        let leaf_best = |r: Range<usize>, best: &mut f32| {
            for pos in r {
                let d = dist2(&p, &boxes[prims[pos] as usize]) as f32;
                if d < *best {
                    *best = d;
                }
            }
        };
        let mut order = Vec::new();
        let mut found = f32::INFINITY;
        wide.traverse_best_first(
            f32::INFINITY,
            |b| dist2(&p, b) as f32,
            |r, best| {
                order.push(dist2(&p, &union(boxes, prims, r.clone())) as f32);
                leaf_best(r, best);
                found = *best;
                ControlFlow::Continue(())
            },
        );
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]),
            "{what}: best-first order {order:?}"
        );
        let mut binary = f32::INFINITY;
        bvh.traverse_best_first(
            f32::INFINITY,
            |b| dist2(&p, b) as f32,
            |r, best| {
                leaf_best(r, best);
                binary = *best;
                ControlFlow::Continue(())
            },
        );
        let mut near_first = f32::INFINITY;
        let mut v = Visits::new();
        wide.traverse_nearest_first(&p, f32::INFINITY, |r, best| {
            v.push(r.clone());
            leaf_best(r, best);
            near_first = *best;
            ControlFlow::Continue(())
        });
        let _ = v.prims(prims, what);
        // The caller's bounds on top of the boxes': each leaf slot raised to its boxes'
        // exact nearest distance finds the same best.
        let mut with_bounds = f32::INFINITY;
        wide.traverse_nearest_first_with(
            &p,
            f32::INFINITY,
            |k, within, d| {
                for (i, d) in d.iter_mut().enumerate() {
                    if within & (1 << i) == 0 {
                        continue;
                    }
                    if let WideChild::Leaf(r) = wide.nodes()[k].child(i) {
                        let exact = r
                            .map(|pos| dist2(&p, &boxes[prims[pos] as usize]) as f32)
                            .fold(f32::INFINITY, f32::min);
                        *d = d.max(exact);
                    }
                }
            },
            |r, best| {
                leaf_best(r, best);
                with_bounds = *best;
                ControlFlow::Continue(())
            },
        );
        if boxes.is_empty() {
            assert!(order.is_empty() && v.ranges.is_empty(), "{what}");
        } else {
            assert_eq!(f64::from(found), brute as f32 as f64, "{what}: best-first");
            assert_eq!(binary, found, "{what}: binary best-first");
            assert_eq!(near_first, found, "{what}: nearest-first");
            assert_eq!(with_bounds, found, "{what}: nearest-first with bounds");
        }
        // A limit below the nearest distance visits nothing; at it, some leaf.
        if brute > 1e-3 {
            let below = (brute * 0.9) as f32;
            let mut any = false;
            wide.traverse_nearest_first(&p, below, |r, _| {
                for pos in r {
                    any |= dist2(&p, &boxes[prims[pos] as usize]) as f32 <= below;
                }
                ControlFlow::Continue(())
            });
            assert!(!any, "{what}: found beyond the limit");
        }
    }
}

#[test]
fn wide_queries_match_binary_and_brute_force() {
    let mut rng = Rng::new(0x71de);
    let step = if std::env::var("RAYPICK_LONG").is_ok() {
        1
    } else {
        3
    };
    for n in (0..=300).step_by(step).chain([1, 2, 299, 300]) {
        for (fam, boxes) in families(n, 7 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let what = format!("{fam} n={n} {name}");
                check_queries(&bvh, &Bvh8::from_bvh(&bvh), &boxes, &mut rng, &what);
                if n % 4 == 0 {
                    let w4 = WideBvh::<4>::from_bvh(&bvh);
                    check_queries(&bvh, &w4, &boxes, &mut rng, &format!("{what} bvh4"));
                }
            }
        }
    }
}

#[test]
fn empty_nan_and_inverted_queries_visit_nothing() {
    let mut rng = Rng::new(3);
    let boxes = random_boxes(&mut rng, 200, 10.0, 1.0);
    let bvh = Bvh::build(&boxes, &Default::default()).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    let empty = Bvh8::default();
    let nan = Aabb::new(Point3::new(f32::NAN, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
    for tree in [&wide, &empty] {
        for q in [Aabb::EMPTY, nan] {
            tree.traverse_aabb(&q, |r| panic!("visited {r:?}"));
        }
        tree.traverse_where(|_| false, |r| panic!("visited {r:?}"));
        tree.traverse_best_first(f32::NAN, |_| 0.0, |r, _| panic!("visited {r:?}"));
        tree.traverse_best_first(1.0, |_| f32::NAN, |r, _| panic!("visited {r:?}"));
        let p = Point3::new(0.0, 0.0, 0.0);
        tree.traverse_nearest_first(&p, f32::NAN, |r, _| panic!("visited {r:?}"));
        let bad = Point3::new(f32::INFINITY, 0.0, 0.0);
        tree.traverse_nearest_first(&bad, f32::INFINITY, |r, _| panic!("visited {r:?}"));
    }
    assert_eq!(empty.bounds(), Aabb::EMPTY);
    assert_eq!(empty.sah_cost(), 0.0);
    assert_eq!(empty.stats().node_count, 0);
}

#[test]
fn break_stops_every_traversal() {
    let mut rng = Rng::new(5);
    let boxes = random_boxes(&mut rng, 300, 10.0, 1.0);
    let bvh = Bvh::build(&boxes, &Default::default()).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    assert!(wide.leaf_ranges().len() > 2);
    let mut calls = 0;
    wide.traverse_where(
        |_| true,
        |_| {
            calls += 1;
            ControlFlow::Break(())
        },
    );
    wide.traverse_aabb(&wide.bounds(), |_| {
        calls += 1;
        ControlFlow::Break(())
    });
    wide.traverse_best_first(
        f32::INFINITY,
        |_| 0.0,
        |_, _| {
            calls += 1;
            ControlFlow::Break(())
        },
    );
    wide.traverse_nearest_first(&Point3::origin(), f32::INFINITY, |_, _| {
        calls += 1;
        ControlFlow::Break(())
    });
    assert_eq!(calls, 4);
}

#[test]
fn scratch_reuse_gives_the_same_visits() {
    let mut rng = Rng::new(11);
    let boxes = clustered_boxes(&mut rng, 300);
    let bvh = Bvh::build(&boxes, &Default::default()).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    let mut scratch = BestFirstScratch::new();
    for _ in 0..20 {
        let p = query_point(&mut rng);
        let run = |scratch: Option<&mut BestFirstScratch>| {
            let mut v = Vec::new();
            let d = |b: &Aabb| dist2(&p, b) as f32;
            let leaf = |r: Range<usize>, best: &mut f32| {
                v.push(r.clone());
                for pos in r {
                    *best = best.min(dist2(&p, &boxes[bvh.prim_indices()[pos] as usize]) as f32);
                }
                ControlFlow::Continue(())
            };
            match scratch {
                Some(s) => wide.traverse_best_first_in(s, f32::INFINITY, d, leaf),
                None => wide.traverse_best_first(f32::INFINITY, d, leaf),
            }
            v
        };
        assert_eq!(run(Some(&mut scratch)), run(None));
    }
}

#[test]
fn sah_cost_by_hand() {
    // One leaf of 3 boxes: the root visit plus 3 intersections at ratio 1.
    let boxes = vec![bx([0.0; 3], [1.0; 3]); 3];
    let cfg = raypick_bvh::BuildConfig {
        min_leaf_size: 4,
        max_leaf_size: 4,
        ..Default::default()
    };
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let wide = Bvh8::from_bvh(&bvh);
    assert_eq!(wide.sah_cost(), 4.0);
    // Two unit cubes far apart, one leaf each: 1 + 2 * (A(cube) / A(root)).
    let boxes = vec![bx([0.0; 3], [1.0; 3]), bx([3.0, 0.0, 0.0], [4.0, 1.0, 1.0])];
    let cfg = raypick_bvh::BuildConfig {
        min_leaf_size: 1,
        max_leaf_size: 1,
        ..Default::default()
    };
    let wide = Bvh8::from_bvh(&Bvh::build(&boxes, &cfg).unwrap());
    // Root box 4 x 1 x 1: half area 4 + 1 + 4 = 9; cube: 3.
    assert!((wide.sah_cost() - (1.0 + 2.0 * 3.0 / 9.0)).abs() < 1e-12);
}

/// Every slot box is exactly the union of what lies below it.
fn assert_tight<const N: usize>(wide: &WideBvh<N>, leaf_box: impl Fn(Range<usize>) -> Aabb) {
    wide.validate().unwrap();
    for node in wide.nodes() {
        for slot in 0..N {
            let tight = match node.child(slot) {
                WideChild::Empty => continue,
                WideChild::Leaf(r) => leaf_box(r),
                WideChild::Node(c) => (0..N)
                    .map(|i| wide.nodes()[c].child_aabb(i))
                    .fold(Aabb::EMPTY, |b, c| b.union(&c)),
            };
            assert_eq!(node.child_aabb(slot), tight);
        }
    }
}

fn moved(boxes: &[Aabb], rng: &mut Rng) -> Vec<Aabb> {
    boxes
        .iter()
        .map(|b| {
            let d = Vector3::new(
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
            );
            let grow = d.abs() * 0.5 + Vector3::new(0.1, 0.0, 0.2);
            Aabb::new(b.min + d, b.max + d + grow)
        })
        .collect()
}

#[test]
fn refit_variants_agree_and_are_tight() {
    let mut rng = Rng::new(21);
    // 40,000 takes the parallel path.
    for n in [0, 1, 2, 9, 100, 300, 40_000] {
        for (name, cfg) in presets() {
            if n > 300 && name != "balanced" {
                continue;
            }
            let boxes = random_boxes(&mut rng, n, 10.0, 1.0);
            let bvh = Bvh::build(&boxes, &cfg).unwrap();
            let prims = bvh.prim_indices();
            let wide = Bvh8::from_bvh(&bvh);
            let to = moved(&boxes, &mut rng);
            let leaf_order: Vec<Aabb> = prims.iter().map(|&p| to[p as usize]).collect();
            let mut a = wide.clone();
            a.refit(prims, &to).unwrap();
            let mut b = wide.clone();
            b.refit_leaf_order(&leaf_order).unwrap();
            let mut c = wide.clone();
            c.refit_by_leaf(|r| union(&to, prims, r)).unwrap();
            assert_eq!(a, b, "n={n} {name}");
            assert_eq!(a, c, "n={n} {name}");
            assert_tight(&a, |r| union(&to, prims, r));
            if n > 0 {
                assert_ne!(a, wide, "n={n} {name}: nothing moved");
                // Refit back to the start: the collapsed tree's boxes again.
                a.refit(prims, &boxes).unwrap();
                assert_eq!(a, wide, "n={n} {name}: refit back");
            }
        }
    }
}

#[test]
fn refit_rejects_bad_input_and_keeps_the_tree() {
    let mut rng = Rng::new(31);
    let boxes = random_boxes(&mut rng, 120, 10.0, 1.0);
    let bvh = Bvh::build(&boxes, &Default::default()).unwrap();
    let prims = bvh.prim_indices();
    let wide = Bvh8::from_bvh(&bvh);
    let mut w = wide.clone();
    assert_eq!(
        w.refit(&prims[1..], &boxes),
        Err(WideRefitError::LengthMismatch {
            what: "primitive indices",
            expected: 120,
            found: 119
        })
    );
    assert_eq!(
        w.refit(prims, &boxes[..7]),
        Err(WideRefitError::LengthMismatch {
            what: "boxes",
            expected: 120,
            found: 7
        })
    );
    assert!(matches!(
        w.refit_leaf_order(&boxes[1..]),
        Err(WideRefitError::LengthMismatch { .. })
    ));
    for (i, bad) in [
        Aabb::EMPTY,
        bx([f32::NAN, 0.0, 0.0], [1.0; 3]),
        bx([0.0; 3], [f32::INFINITY, 1.0, 1.0]),
        bx([0.0, 2.0, 0.0], [1.0; 3]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut to = moved(&boxes, &mut rng);
        let at = 13 * i + 5;
        to[at] = bad;
        assert_eq!(
            w.refit(prims, &to),
            Err(WideRefitError::BadBox { index: at })
        );
        assert_eq!(
            w.refit_leaf_order(&to),
            Err(WideRefitError::BadBox { index: at })
        );
    }
    let mut perm = prims.to_vec();
    perm[40] = 120;
    assert_eq!(
        w.refit(&perm, &boxes),
        Err(WideRefitError::IndexOutOfRange {
            position: 40,
            index: 120
        })
    );
    assert_eq!(w, wide, "checked errors leave the tree unchanged");
    // A bad box from the leaf function names its leaf.
    let leaves = wide.leaf_ranges();
    let victim = leaves[leaves.len() / 2].clone();
    let err = w
        .refit_by_leaf(|r| {
            if r == victim {
                Aabb::EMPTY
            } else {
                union(&boxes, prims, r)
            }
        })
        .unwrap_err();
    assert_eq!(
        err,
        WideRefitError::BadLeafBox {
            start: victim.start,
            end: victim.end
        }
    );
    // A good refit afterwards restores a valid tree.
    w.refit(prims, &boxes).unwrap();
    assert_eq!(w, wide);
    // The empty tree takes empty input only.
    let mut e = Bvh8::default();
    e.refit(&[], &[]).unwrap();
    assert!(e.refit_leaf_order(&boxes[..1]).is_err());
}

#[test]
fn queries_and_sequential_refits_do_not_allocate() {
    let mut rng = Rng::new(41);
    // Below the parallel threshold: rayon's pool would allocate on first use.
    let boxes = random_boxes(&mut rng, 20_000, 10.0, 0.3);
    let bvh = Bvh::build(&boxes, &Default::default()).unwrap();
    let prims = bvh.prim_indices();
    let mut wide = Bvh8::from_bvh(&bvh);
    let leaf_order: Vec<Aabb> = prims.iter().map(|&p| boxes[p as usize]).collect();
    let mut scratch = BestFirstScratch::new();
    let points: Vec<_> = (0..100).map(|_| query_point(&mut rng)).collect();
    let queries: Vec<_> = (0..100).map(|_| query_box(&mut rng)).collect();
    // Let the scratch grow to its largest frontier first.
    let d = |p: Point3<f32>| move |b: &Aabb| dist2(&p, b) as f32;
    for p in &points {
        wide.traverse_best_first_in(&mut scratch, f32::INFINITY, d(*p), |_, _| {
            ControlFlow::Continue(())
        });
    }
    let mut visits = 0usize;
    let (n, ()) = allocations(|| {
        for (p, q) in points.iter().zip(&queries) {
            wide.traverse_aabb(q, |r| {
                visits += r.len();
                ControlFlow::Continue(())
            });
            wide.traverse_where(
                |b| overlaps(b, q),
                |r| {
                    visits += r.len();
                    ControlFlow::Continue(())
                },
            );
            wide.traverse_nearest_first(p, f32::INFINITY, |r, best| {
                visits += r.len();
                *best = best.min(1.0);
                ControlFlow::Continue(())
            });
            wide.traverse_best_first_in(&mut scratch, f32::INFINITY, d(*p), |r, best| {
                visits += r.len();
                *best = best.min(1.0);
                ControlFlow::Continue(())
            });
        }
        wide.refit(prims, &boxes).unwrap();
        wide.refit_leaf_order(&leaf_order).unwrap();
        wide.refit_by_leaf(|r| union(&boxes, prims, r)).unwrap();
    });
    assert_eq!(n, 0, "allocations");
    assert!(visits > 0);
}
