//! Pixel-tolerance picks on a 1M-point cloud and 1M segments, single thread, beside a
//! brute-force baseline that projects every primitive.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin points
//! cargo run --release -p raypick-benches --bin points -- --export DIR
//! ```
//!
//! With `--export DIR` it also writes the cloud (`points.f32`: x, y, z per point) and the
//! cursor rays (`rays.f32`: origin and unit direction per cursor, from the camera's near
//! plane) as little-endian f32, and `meta.json` with the world radius that 5 px spans at
//! the cloud's centre, for `scripts/points_three.sh` (three-mesh-bvh's `PointsBVH` on the
//! same data), and times raypick's world-space form of that query (`nearest_along_ray`).

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

fn write_f32(path: &std::path::Path, values: impl Iterator<Item = f32>) {
    let bytes: Vec<u8> = values.flat_map(f32::to_le_bytes).collect();
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let export = args
        .iter()
        .position(|a| a == "--export")
        .map(|i| std::path::PathBuf::from(args.get(i + 1).expect("--export DIR")));
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

    // The world-space form: the point nearest along the cursor's ray within the radius 5 px
    // spans at the cloud's centre (a cylinder, where the pixel pick is a cone).
    let eye = Point3::new(0.5f32, 0.8, 4.0);
    let radius = 5.0 * 2.0 * f64::from(eye.coords.norm()) * (22.5f64.to_radians()).tan() / 1080.0;
    let rays: Vec<raypick_primitives::Ray> = cursors
        .iter()
        .map(|&(x, y)| {
            camera
                .ray_from_pixel(x as f32, y as f32, &vp)
                .expect("a ray")
        })
        .collect();
    let mut us = Vec::new();
    let mut world_hits = 0;
    for ray in &rays {
        let t = Instant::now();
        world_hits +=
            usize::from(std::hint::black_box(cloud.nearest_along_ray(ray, radius)).is_some());
        us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (wm, w99) = stats(us);
    if let Some(dir) = &export {
        std::fs::create_dir_all(dir).expect("create the export directory");
        write_f32(
            &dir.join("points.f32"),
            pts.iter().flat_map(|p| [p.x, p.y, p.z]),
        );
        write_f32(
            &dir.join("rays.f32"),
            rays.iter().flat_map(|r| {
                let d = r.dir.normalize();
                [r.origin.x, r.origin.y, r.origin.z, d.x, d.y, d.z]
            }),
        );
        std::fs::write(
            dir.join("meta.json"),
            serde_json::json!({"points": n, "rays": rays.len(), "radius": radius}).to_string(),
        )
        .expect("write meta.json");
    }

    println!(
        "{}",
        serde_json::json!({
            "world_radius": radius,
            "nearest_along_ray_median_us": wm, "nearest_along_ray_p99_us": w99,
            "nearest_along_ray_hits": world_hits,
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
