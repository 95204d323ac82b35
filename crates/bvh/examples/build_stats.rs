//! Builds a BVH over the boxes of a displaced-sphere-like triangle soup and prints timings
//! and statistics for every preset.
//!
//! `cargo run --release -p raypick-bvh --example build_stats -- [triangles]`

use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Point3};

/// Boxes of the triangles of a UV sphere with `rings x segs x 2` triangles, radially wobbled.
fn sphere_boxes(rings: usize, segs: usize) -> Vec<Aabb> {
    let vert = |i: usize, j: usize| {
        let th = std::f32::consts::PI * i as f32 / rings as f32;
        let ph = std::f32::consts::TAU * j as f32 / segs as f32;
        let r =
            1.0 + 0.05 * (7.0 * th).sin() * (5.0 * ph).cos() + 0.02 * (23.0 * th + 17.0 * ph).sin();
        Point3::new(
            r * th.sin() * ph.cos(),
            r * th.sin() * ph.sin(),
            r * th.cos(),
        )
    };
    let mut boxes = Vec::with_capacity(rings * segs * 2);
    for i in 0..rings {
        for j in 0..segs {
            let (a, b, c, d) = (
                vert(i, j),
                vert(i + 1, j),
                vert(i + 1, j + 1),
                vert(i, j + 1),
            );
            boxes.push(Aabb::from_point(a).grow(&b).grow(&c));
            boxes.push(Aabb::from_point(a).grow(&c).grow(&d));
        }
    }
    boxes
}

fn main() {
    let tris: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let rings = ((tris as f64 / 2.0 / 2.0).sqrt()).max(2.0) as usize;
    let segs = (tris / 2 / rings).max(3);
    let boxes = sphere_boxes(rings, segs);
    println!("{} triangle boxes", boxes.len());
    let only = std::env::args().nth(2);
    let thread_counts: Vec<usize> = match std::env::args().nth(3) {
        Some(t) => vec![t.parse().unwrap()],
        None => vec![1, 0],
    };
    for (name, cfg) in [
        ("fast", BuildConfig::fast()),
        ("balanced", BuildConfig::balanced()),
        ("high_quality", BuildConfig::high_quality()),
    ] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for &threads in &thread_counts {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let t = std::time::Instant::now();
            let (bvh, report) = pool
                .install(|| Bvh::build_with(&boxes, &cfg, &Default::default()))
                .unwrap();
            let dt = t.elapsed();
            println!(
                "{name:>12} threads={} {:>8.1} ms  SAH {:.3} -> {:.3}  (build {:.1} ms, optimize {:.1} ms)",
                pool.current_num_threads(),
                dt.as_secs_f64() * 1e3,
                report.sah_after_build,
                report.sah_final,
                report.build_time.as_secs_f64() * 1e3,
                report.optimize.as_ref().map_or(0.0, |r| r.time.as_secs_f64() * 1e3)
            );
            if threads == 0 {
                println!("             {}", bvh.validate(&boxes).unwrap());
            }
        }
    }
}
