//! Build, refit and validate tests over every preset, size and box family.

mod common;

use common::*;
use raypick_bvh::{BuildConfig, BuildError, BuildObserver, Bvh, ValidationError, MAX_DEPTH};
use raypick_primitives::Aabb;

#[test]
fn every_preset_every_size_validates() {
    let mut rng = Rng::new(17);
    for n in 0..=300usize {
        for (fam, boxes) in families(n, n as u64) {
            for (name, cfg) in presets() {
                let mut bvh = Bvh::build(&boxes, &cfg).unwrap();
                let stats = bvh
                    .validate(&boxes)
                    .unwrap_or_else(|e| panic!("{name} {fam} n={n}: {e}"));
                assert_eq!(stats.prim_count, n);
                assert_eq!(bvh.len(), n);
                let leaf_total: usize = stats.leaf_size_histogram.iter().map(|(s, c)| s * c).sum();
                assert_eq!(leaf_total, n);
                assert!(bvh.depth() <= cfg.max_depth.min(MAX_DEPTH));
                if n > 0 {
                    // Leaves over max_leaf_size only when the depth limit forces them.
                    if cfg.max_depth == MAX_DEPTH {
                        assert!(
                            stats.max_leaf_size <= cfg.max_leaf_size,
                            "{name} {fam} n={n}"
                        );
                    }
                    assert_eq!(stats.node_count, 2 * stats.leaf_count - 1);
                }
                // And after a refit to jittered boxes.
                let jittered: Vec<Aabb> = boxes
                    .iter()
                    .map(|b| {
                        let d =
                            nalgebra::Vector3::new(rng.range(-1.0, 1.0), 0.0, rng.range(-1.0, 1.0));
                        Aabb::new(b.min + d, b.max + d * 2.0)
                    })
                    .map(|b| Aabb::new(b.min.inf(&b.max), b.min.sup(&b.max)))
                    .collect();
                bvh.refit(&jittered).unwrap();
                bvh.validate(&jittered)
                    .unwrap_or_else(|e| panic!("refit {name} {fam} n={n}: {e}"));
            }
        }
    }
}

#[test]
fn refit_keeps_tree_valid() {
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 2, 3, 17, 100, 300] {
        for (fam, boxes) in families(n, 99 + n as u64) {
            for (name, cfg) in presets() {
                let mut bvh = Bvh::build(&boxes, &cfg).unwrap();
                let moved: Vec<Aabb> = boxes
                    .iter()
                    .map(|b| {
                        let d =
                            nalgebra::Vector3::new(rng.range(-5.0, 5.0), rng.range(-5.0, 5.0), 0.0);
                        Aabb::new(b.min + d, b.max + d)
                    })
                    .collect();
                let root = bvh.bounds();
                if moved.iter().any(|b| !root.contains_aabb(b)) {
                    assert!(
                        bvh.validate(&moved).is_err(),
                        "{name} {fam} n={n}: stale boxes accepted"
                    );
                }
                bvh.refit(&moved).unwrap();
                bvh.validate(&moved)
                    .unwrap_or_else(|e| panic!("{name} {fam} n={n}: {e}"));
            }
        }
    }
}

#[test]
fn refit_rejects_bad_input_and_leaves_tree_alone() {
    let mut rng = Rng::new(3);
    let boxes = random_boxes(&mut rng, 50, 10.0, 1.0);
    let mut bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    let before = bvh.clone();
    assert_eq!(
        bvh.refit(&boxes[..49]),
        Err(BuildError::LengthMismatch {
            expected: 50,
            found: 49
        })
    );
    let mut bad = boxes.clone();
    bad[31].max.y = f32::NAN;
    assert_eq!(bvh.refit(&bad), Err(BuildError::NanBox { index: 31 }));
    assert_eq!(bvh, before);
}

#[test]
fn empty_and_single() {
    let bvh = Bvh::build(&[], &BuildConfig::default()).unwrap();
    assert!(bvh.is_empty());
    assert_eq!(bvh.nodes().len(), 0);
    assert_eq!(bvh.depth(), 0);
    assert_eq!(bvh.bounds(), Aabb::EMPTY);
    assert_eq!(bvh.sah_cost(), 0.0);
    bvh.validate(&[]).unwrap();

    let b = bx([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    let bvh = Bvh::build(&[b], &BuildConfig::default()).unwrap();
    assert_eq!(bvh.nodes().len(), 1);
    assert!(bvh.nodes()[0].is_leaf());
    assert_eq!(bvh.nodes()[0].leaf_range(), Some(0..1));
    assert_eq!(bvh.bounds(), b);
    assert_eq!(bvh.depth(), 1);
    assert_eq!(bvh.prim_indices(), &[0]);
}

#[test]
fn hand_computed_sah() {
    // Unit costs, so that the builder's choice is the one computed by hand below.
    let unit = BuildConfig {
        traversal_cost: 1.0,
        intersection_cost: 1.0,
        min_leaf_size: 1,
        ..BuildConfig::default()
    };
    // Two unit cubes 1 apart on x: root 3x1x1 (half area 7), leaves half area 3 each:
    // splitting costs 1 + 2 * 3/7 < a leaf's 2.
    let boxes = [
        bx([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        bx([2.0, 0.0, 0.0], [3.0, 1.0, 1.0]),
    ];
    let bvh = Bvh::build(&boxes, &unit).unwrap();
    assert_eq!(bvh.nodes().len(), 3);
    let expected = 1.0 + 3.0 / 7.0 + 3.0 / 7.0;
    assert!(
        (bvh.sah_cost() - expected).abs() < 1e-9,
        "{}",
        bvh.sah_cost()
    );
    assert!((bvh.sah_cost_weighted(2.0, 1.0) - (expected + 1.0)).abs() < 1e-9);
    // Overlapping boxes: a leaf (cost 2) beats splitting (1 + 2 * 1).
    let same = [boxes[0], boxes[0]];
    let bvh = Bvh::build(&same, &unit).unwrap();
    assert_eq!(bvh.nodes().len(), 1);
    assert!((bvh.sah_cost() - 2.0).abs() < 1e-9);
}

#[test]
fn bad_boxes_are_rejected_with_their_index() {
    let mut rng = Rng::new(11);
    let good = random_boxes(&mut rng, 20, 1.0, 1.0);
    type Corrupt = Box<dyn Fn(&mut Aabb)>;
    let cases: Vec<(usize, Corrupt, BuildError)> = vec![
        (
            4,
            Box::new(|b: &mut Aabb| b.min.x = f32::NAN),
            BuildError::NanBox { index: 4 },
        ),
        (
            19,
            Box::new(|b: &mut Aabb| b.max.z = f32::NAN),
            BuildError::NanBox { index: 19 },
        ),
        (
            0,
            Box::new(|b: &mut Aabb| b.max.y = f32::INFINITY),
            BuildError::InfiniteBox { index: 0 },
        ),
        (
            7,
            Box::new(|b: &mut Aabb| b.min.z = f32::NEG_INFINITY),
            BuildError::InfiniteBox { index: 7 },
        ),
        (
            12,
            Box::new(|b: &mut Aabb| b.min.y = b.max.y + 1.0),
            BuildError::InvertedBox { index: 12, axis: 1 },
        ),
        (
            3,
            Box::new(|b: &mut Aabb| *b = Aabb::EMPTY),
            BuildError::InfiniteBox { index: 3 },
        ),
    ];
    for (i, corrupt, expected) in cases {
        let mut boxes = good.clone();
        corrupt(&mut boxes[i]);
        for (_, cfg) in presets() {
            assert_eq!(Bvh::build(&boxes, &cfg), Err(expected.clone()));
        }
        assert!(expected.to_string().contains(&i.to_string()));
    }
}

#[test]
fn huge_coordinates_and_extreme_spreads() {
    let big = f32::MAX / 2.0;
    let boxes = vec![
        bx([-f32::MAX, -f32::MAX, -f32::MAX], [-big, -big, -big]),
        bx([big, big, big], [f32::MAX, f32::MAX, f32::MAX]),
        bx([0.0; 3], [1e-30, 1e-30, 1e-30]),
        bx([-1e30, 0.0, 0.0], [1e30, 0.0, 0.0]),
        bx(
            [f32::MAX, f32::MAX, f32::MAX],
            [f32::MAX, f32::MAX, f32::MAX],
        ),
        bx([1e-40, 1e-40, 1e-40], [2e-40, 2e-40, 2e-40]),
    ];
    let mut many = boxes.clone();
    let mut rng = Rng::new(5);
    for _ in 0..200 {
        let s = 10f32.powi(rng.below(76) as i32 - 38);
        let p = [
            rng.range(-1.0, 1.0) * s,
            rng.range(-1.0, 1.0) * s,
            rng.range(-1.0, 1.0) * s,
        ];
        many.push(bx(p, [p[0] + s * 0.1, p[1], p[2]]));
    }
    for set in [&boxes, &many] {
        for (name, cfg) in presets() {
            let bvh = Bvh::build(set, &cfg).unwrap();
            bvh.validate(set).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn adversarial_spacing_stays_within_max_depth() {
    // Exponentially spaced boxes make the SAH peel one box per level.
    let boxes: Vec<Aabb> = (0..250)
        .map(|i| {
            let x = 1.4f32.powi(i);
            bx([x, 0.0, 0.0], [x * 1.01, 1.0, 1.0])
        })
        .collect();
    for (name, cfg) in presets() {
        let bvh = Bvh::build(
            &boxes,
            &BuildConfig {
                min_leaf_size: 1,
                max_leaf_size: 1,
                ..cfg
            },
        )
        .unwrap();
        let stats = bvh
            .validate(&boxes)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(stats.depth <= MAX_DEPTH);
        if cfg.max_depth == MAX_DEPTH {
            assert_eq!(stats.max_leaf_size, 1, "{name}");
        }
    }
}

#[test]
fn million_identical_boxes() {
    let n = if std::env::var("RAYPICK_LONG").is_ok() {
        4_000_000
    } else {
        1_000_000
    };
    let boxes = identical_boxes(n);
    let bvh = Bvh::build(&boxes, &BuildConfig::fast()).unwrap();
    let stats = bvh.validate(&boxes).unwrap();
    assert!(stats.max_leaf_size <= 8);
    assert!(stats.depth <= 22, "{stats}");
}

#[test]
fn same_tree_whatever_the_thread_count() {
    let mut rng = Rng::new(21);
    let n = if std::env::var("RAYPICK_LONG").is_ok() {
        1_000_000
    } else {
        150_000
    };
    let mut boxes = random_boxes(&mut rng, n, 100.0, 0.5);
    boxes.extend(identical_boxes(5000));
    let cfg = BuildConfig {
        parallel_threshold: 1000,
        ..BuildConfig::balanced()
    };
    let build_in = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Bvh::build(&boxes, &cfg).unwrap())
    };
    let one = build_in(1);
    let two = build_in(2);
    let four = build_in(4);
    one.validate(&boxes).unwrap();
    assert!(one == two, "1 vs 2 threads differ");
    assert!(one == four, "1 vs 4 threads differ");
    // The parallel path finds the same splits as the sequential one: same quality.
    let seq = Bvh::build(
        &boxes,
        &BuildConfig {
            parallel_threshold: usize::MAX,
            ..cfg
        },
    )
    .unwrap();
    assert!((seq.sah_cost() - one.sah_cost()).abs() <= 1e-6 * seq.sah_cost());
    assert_eq!(seq.nodes().len(), one.nodes().len());
}

#[test]
fn validate_names_broken_invariants() {
    let mut rng = Rng::new(8);
    let boxes = random_boxes(&mut rng, 100, 10.0, 1.0);
    let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    assert_eq!(
        bvh.validate(&boxes[..99]),
        Err(ValidationError::BoxCount {
            expected: 100,
            found: 99
        })
    );
    let mut moved = boxes.clone();
    moved[42].max.x += 1000.0;
    match bvh.validate(&moved) {
        Err(ValidationError::PrimNotContained { prim, .. }) => assert_eq!(prim, 42),
        other => panic!("{other:?}"),
    }
}

#[test]
fn progress_reaches_one() {
    let mut rng = Rng::new(9);
    let boxes = random_boxes(&mut rng, 20_000, 10.0, 0.1);
    let seen = std::sync::Mutex::new(Vec::new());
    let cb = |f: f32| seen.lock().unwrap().push(f);
    let observer = BuildObserver {
        progress: Some(&cb),
    };
    let (bvh, report) = Bvh::build_with(&boxes, &BuildConfig::default(), &observer).unwrap();
    bvh.validate(&boxes).unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(seen.len() >= 10, "{}", seen.len());
    assert_eq!(*seen.last().unwrap(), 1.0);
    assert!(seen.iter().all(|f| (0.0..=1.0).contains(f)));
    assert_eq!(report.prim_count, 20_000);
    assert_eq!(report.sah_final, bvh.sah_cost());
}

#[test]
fn depth_limit_is_respected() {
    let mut rng = Rng::new(10);
    let boxes = random_boxes(&mut rng, 3000, 10.0, 0.1);
    for max_depth in 1..=12 {
        let cfg = BuildConfig {
            max_depth,
            ..BuildConfig::balanced()
        };
        let bvh = Bvh::build(&boxes, &cfg).unwrap();
        let stats = bvh.validate(&boxes).unwrap();
        assert!(stats.depth <= max_depth);
        // Median splits near the limit keep leaves as small as the depth allows.
        let cap = 8usize << (max_depth - 1);
        if 3000 <= cap {
            assert!(stats.max_leaf_size <= 8, "max_depth {max_depth}: {stats}");
        }
    }
}

#[test]
fn optimizer_never_raises_cost_and_keeps_tree_valid() {
    let opt = raypick_bvh::OptimizeConfig {
        max_rounds: 20,
        batch_fraction: 0.2,
        min_improvement: 0.0,
    };
    for n in [0usize, 1, 2, 3, 4, 5, 6, 7, 8, 20, 100, 300, 2000] {
        for (fam, boxes) in families(n, 4242 + n as u64) {
            for (name, cfg) in presets() {
                let mut bvh = Bvh::build(&boxes, &cfg).unwrap();
                let before = bvh.sah_cost();
                let report = bvh.optimize(&opt);
                bvh.validate(&boxes)
                    .unwrap_or_else(|e| panic!("{name} {fam} n={n}: {e}"));
                assert!((report.sah_before - before).abs() <= 1e-9 * before.max(1.0));
                assert!(
                    report.sah_after <= before * (1.0 + 1e-5),
                    "{name} {fam} n={n}: {report:?}"
                );
                assert!((report.sah_after - bvh.sah_cost()).abs() <= 1e-9 * before.max(1.0));
            }
        }
    }
}

#[test]
fn high_quality_lowers_sah_and_reports_it() {
    let mut rng = Rng::new(31);
    let boxes = random_boxes(&mut rng, 20_000, 10.0, 0.3);
    let (hq, report) = Bvh::build_with(
        &boxes,
        &BuildConfig::high_quality(),
        &BuildObserver::default(),
    )
    .unwrap();
    hq.validate(&boxes).unwrap();
    let opt = report.optimize.expect("high_quality runs the optimizer");
    assert!(opt.reinsertions > 0);
    assert!(opt.sah_after < opt.sah_before, "{opt:?}");
    assert_eq!(report.sah_final, opt.sah_after);
    let balanced = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
    assert!(
        hq.sah_cost() < balanced.sah_cost(),
        "{} {} {:?}",
        hq.sah_cost(),
        balanced.sah_cost(),
        opt
    );
    // Deterministic.
    assert_eq!(
        Bvh::build(&boxes, &BuildConfig::high_quality()).unwrap(),
        hq
    );
}
