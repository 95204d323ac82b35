//! Queries and refit allocate nothing: counted with a wrapping global allocator.

mod common;

raypick_test_support::counting_allocator!();

use std::ops::ControlFlow;

use common::*;
use raypick_bvh::{BestFirstScratch, BuildConfig, Bvh};
use raypick_primitives::Point3;

#[test]
fn queries_and_refit_do_not_allocate() {
    let mut rng = Rng::new(3);
    let boxes = random_boxes(&mut rng, 20_000, 10.0, 0.3);
    let mut bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    let rays: Vec<_> = (0..200).map(|_| random_ray(&mut rng, 12.0)).collect();
    let mut scratch = BestFirstScratch::new();
    let p = Point3::new(0.5, 0.5, 0.5);
    let dist = |b: &raypick_primitives::Aabb| {
        let mut d = 0.0f32;
        for a in 0..3 {
            let e = (b.min[a] - p[a]).max(0.0).max(p[a] - b.max[a]);
            d += e * e;
        }
        d
    };
    // Warm the scratch up once.
    bvh.traverse_best_first_in(&mut scratch, f32::INFINITY, dist, |_, _| {
        ControlFlow::Continue(())
    });
    let (count, visited) = allocations(|| {
        let mut visited = 0usize;
        for ray in &rays {
            bvh.traverse_ray(ray, 0.0, f32::INFINITY, |r, _| {
                visited += r.len();
                ControlFlow::Continue(())
            });
        }
        bvh.traverse_aabb(&bx([-1.0; 3], [1.0; 3]), |r| {
            visited += r.len();
            ControlFlow::Continue(())
        });
        bvh.traverse_where(
            |b| dist(b) < 4.0,
            |r| {
                visited += r.len();
                ControlFlow::Continue(())
            },
        );
        bvh.traverse_best_first_in(&mut scratch, f32::INFINITY, dist, |r, best| {
            visited += r.len();
            *best = best.min(1.0);
            ControlFlow::Continue(())
        });
        visited
    });
    assert!(visited > 0);
    assert_eq!(count, 0, "queries allocated {count} times");
    let (count, res) = allocations(|| bvh.refit(&boxes));
    res.unwrap();
    assert_eq!(count, 0, "refit allocated {count} times");
}
