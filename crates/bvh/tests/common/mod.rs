//! Shared test helpers: box generators and brute-force oracles (the seeded RNG is
//! `raypick_test_support`'s).
#![allow(dead_code)]

use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Point3, Ray, Vector3};

pub mod wide;

#[allow(unused_imports)]
pub use raypick_test_support::{env_cases, Rng};

pub fn presets() -> Vec<(&'static str, BuildConfig)> {
    vec![
        ("fast", BuildConfig::fast()),
        ("balanced", BuildConfig::balanced()),
        ("high_quality", BuildConfig::high_quality()),
        ("morton", BuildConfig::morton()),
        (
            "morton_leaf1_depth5",
            BuildConfig {
                max_leaf_size: 1,
                max_depth: 5,
                ..BuildConfig::morton()
            },
        ),
        (
            "tiny_depth",
            BuildConfig {
                max_depth: 3,
                ..BuildConfig::balanced()
            },
        ),
        (
            "parallel",
            BuildConfig {
                parallel_threshold: 64,
                ..BuildConfig::balanced()
            },
        ),
        (
            "leaf1",
            BuildConfig {
                min_leaf_size: 1,
                max_leaf_size: 1,
                bins: 2,
                ..BuildConfig::fast()
            },
        ),
    ]
}

pub fn bx(min: [f32; 3], max: [f32; 3]) -> Aabb {
    Aabb::new(
        Point3::new(min[0], min[1], min[2]),
        Point3::new(max[0], max[1], max[2]),
    )
}

pub fn random_boxes(rng: &mut Rng, n: usize, extent: f32, size: f32) -> Vec<Aabb> {
    (0..n)
        .map(|_| {
            let c = [
                rng.range(-extent, extent),
                rng.range(-extent, extent),
                rng.range(-extent, extent),
            ];
            let h = [
                rng.range(0.0, size),
                rng.range(0.0, size),
                rng.range(0.0, size),
            ];
            bx(
                [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
            )
        })
        .collect()
}

pub fn clustered_boxes(rng: &mut Rng, n: usize) -> Vec<Aabb> {
    let centres: Vec<[f32; 3]> = (0..4)
        .map(|_| {
            [
                rng.range(-100.0, 100.0),
                rng.range(-100.0, 100.0),
                rng.range(-100.0, 100.0),
            ]
        })
        .collect();
    (0..n)
        .map(|_| {
            let c = centres[rng.below(centres.len())];
            let p = [
                c[0] + rng.range(-0.01, 0.01),
                c[1] + rng.range(-0.01, 0.01),
                c[2] + rng.range(-0.01, 0.01),
            ];
            bx(p, [p[0] + 0.001, p[1] + 0.002, p[2]])
        })
        .collect()
}

pub fn identical_boxes(n: usize) -> Vec<Aabb> {
    vec![bx([1.0, 2.0, 3.0], [1.5, 2.5, 3.5]); n]
}

/// Points, flat boxes and segments mixed.
pub fn degenerate_boxes(rng: &mut Rng, n: usize) -> Vec<Aabb> {
    (0..n)
        .map(|i| {
            let p = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), (i % 3) as f32];
            match i % 4 {
                0 => bx(p, p),
                1 => bx(p, [p[0] + 0.1, p[1] + 0.1, p[2]]),
                2 => bx(p, [p[0], p[1], p[2] + 0.5]),
                _ => bx([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
            }
        })
        .collect()
}

/// The box families used by the exhaustive tests.
pub fn families(n: usize, seed: u64) -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = Rng::new(seed);
    vec![
        ("random", random_boxes(&mut rng, n, 10.0, 1.0)),
        ("clustered", clustered_boxes(&mut rng, n)),
        ("identical", identical_boxes(n)),
        ("degenerate", degenerate_boxes(&mut rng, n)),
    ]
}

pub fn random_ray(rng: &mut Rng, extent: f32) -> Ray {
    let o = Point3::new(
        rng.range(-extent, extent),
        rng.range(-extent, extent),
        rng.range(-extent, extent),
    );
    let target = Point3::new(
        rng.range(-extent, extent),
        rng.range(-extent, extent),
        rng.range(-extent, extent),
    );
    let mut d = target - o;
    // Axis-parallel directions are the classic corner case: make some.
    match rng.below(6) {
        0 => d.x = 0.0,
        1 => {
            d.y = 0.0;
            d.z = -0.0;
        }
        _ => {}
    }
    if d == Vector3::zeros() {
        d.x = 1.0;
    }
    Ray::new(o, d)
}

/// Original indices of every primitive in the leaves visited, each leaf's primitives kept
/// when `keep` says so.
pub fn collect(bvh: &Bvh, ranges: &[std::ops::Range<usize>]) -> Vec<usize> {
    let mut v: Vec<usize> = ranges
        .iter()
        .flat_map(|r| r.clone().map(|p| bvh.prim_indices()[p] as usize))
        .collect();
    v.sort_unstable();
    v
}
