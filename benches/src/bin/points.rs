//! Pixel-tolerance picks on a 1M-point cloud and 1M segments, single thread, beside a
//! brute-force baseline that projects every primitive.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin points
//! ```

use std::time::Instant;

use raypick_primitives::{Point3, Vector3};
use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
use raypick_query::points::{PickConfig, PointSet, SegmentSet};

/// xorshift64*: a fixed, dependency-free sequence for reproducible inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32) / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

fn stats(mut us: Vec<f64>) -> (f64, f64) {
    us.sort_by(f64::total_cmp);
    (us[us.len() / 2], us[us.len() * 99 / 100])
}

fn main() {
    let n = 1_000_000;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pts: Vec<Point3<f32>> = (0..n)
        .map(|_| {
            Point3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
        })
        .collect();
    let t = Instant::now();
    let cloud = PointSet::new(pts.clone()).expect("finite points");
    let build_points = t.elapsed().as_secs_f64();

    let mut seg_pts = Vec::with_capacity(2 * n);
    for p in &pts {
        seg_pts.push(*p);
        seg_pts.push(
            p + Vector3::new(
                rng.range(-0.01, 0.01),
                rng.range(-0.01, 0.01),
                rng.range(-0.01, 0.01),
            ),
        );
    }
    let segs: Vec<[u32; 2]> = (0..n as u32).map(|i| [2 * i, 2 * i + 1]).collect();
    let t = Instant::now();
    let lines = SegmentSet::new(seg_pts, segs).expect("valid segments");
    let build_segments = t.elapsed().as_secs_f64();

    let camera = Camera::look_at(
        Point3::new(0.5, 0.8, 4.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(45f32.to_radians(), 16.0 / 9.0, 0.1, 100.0),
        ClipConvention::OPENGL,
    )
    .expect("valid camera");
    let vp = Viewport::new(1920.0, 1080.0);
    let config = PickConfig::xray(5.0);
    let cursors: Vec<(f64, f64)> = (0..2000)
        .map(|_| {
            (
                f64::from(rng.range(660.0, 1260.0)),
                f64::from(rng.range(240.0, 840.0)),
            )
        })
        .collect();

    let time = |f: &dyn Fn(f64, f64) -> bool| {
        let mut us = Vec::new();
        let mut hits = 0;
        for &(x, y) in &cursors {
            let t = Instant::now();
            hits += usize::from(std::hint::black_box(f(x, y)));
            us.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let (med, p99) = stats(us);
        (med, p99, hits)
    };
    let (pm, p99, ph) = time(&|x, y| cloud.pick(&camera, &vp, x, y, &config, None).is_some());
    let (sm, s99, sh) = time(&|x, y| lines.pick(&camera, &vp, x, y, &config, None).is_some());

    // Brute force: project every point, keep the nearest in depth within 5 px.
    let mut brute = Vec::new();
    for &(x, y) in cursors.iter().take(10) {
        let t = Instant::now();
        let mut best = f64::INFINITY;
        for p in &pts {
            if let Some((px, py, z)) = camera.project_f64(&p.cast(), &vp) {
                if (px - x).hypot(py - y) <= 5.0 && z < best {
                    best = z;
                }
            }
        }
        std::hint::black_box(best);
        brute.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (bm, _) = stats(brute);

    println!(
        "{}",
        serde_json::json!({
            "points": n,
            "build_points_s": build_points,
            "build_segments_s": build_segments,
            "pick_points_median_us": pm, "pick_points_p99_us": p99, "pick_points_hits": ph,
            "pick_segments_median_us": sm, "pick_segments_p99_us": s99, "pick_segments_hits": sh,
            "brute_points_median_us": bm,
            "picks": cursors.len(),
        })
    );
}
