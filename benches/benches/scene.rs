//! raypick's `Scene`: pick latency (mean from criterion, and median / 99th percentile of
//! single picks printed once per scene), the top-level update after moving 10% of 10,000
//! instances, and marquee selection over 1M triangles.
//!
//! `cargo bench -p raypick-benches --bench scene`. Scenes (seeded):
//! - `inst1000`: 1,000 instances (random rotation, non-uniform scale, some mirrored) of one
//!   10,082-triangle sphere, on a 10 x 10 x 10 grid; 10.1M triangles in all;
//! - `mesh1m`: one 1,000,000-triangle sphere (a 500 x 1,000 grid).
//!
//! Picks go through pixels spread over a 1920 x 1080 viewport whose camera sees the whole
//! scene, so most picks hit.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Matrix4, UnitQuaternion, Vector3};
use raypick_primitives::{Point3, Real};
use raypick_query::camera::{Camera, ClipConvention, Projection, ScreenRect, Viewport};
use raypick_query::scene::{PickOptions, Scene, SelectMode, SelectOptions};

/// SplitMix64, enough for seeded scenes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}

/// A unit UV sphere of `2 * rings * segments` triangles (poles included as thin quads).
fn sphere(rings: usize, segments: usize) -> (Vec<Point3<Real>>, Vec<[u32; 3]>) {
    let mut p = Vec::new();
    for i in 0..=rings {
        let th = std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..segments {
            let ph = std::f32::consts::TAU * j as f32 / segments as f32;
            p.push(Point3::new(
                th.sin() * ph.cos(),
                th.cos(),
                th.sin() * ph.sin(),
            ));
        }
    }
    let mut t = Vec::new();
    let s = segments as u32;
    for i in 0..rings as u32 {
        for j in 0..s {
            let a = i * s + j;
            let b = i * s + (j + 1) % s;
            let (c, d) = (a + s, b + s);
            t.push([a, c, b]);
            t.push([b, c, d]);
        }
    }
    (p, t)
}

fn camera_for(center: Point3<Real>, radius: Real) -> (Camera, Viewport) {
    let vp = Viewport::new(1920.0, 1080.0);
    let eye = center + Vector3::new(0.6, 0.5, 1.0).normalize() * radius * 2.2;
    let cam = Camera::look_at(
        eye,
        center,
        Vector3::y(),
        Projection::perspective(0.9, 1920.0 / 1080.0, 0.1, radius * 10.0),
        ClipConvention::ZERO_TO_ONE.reversed_z(),
    )
    .unwrap();
    (cam, vp)
}

fn random_affine(r: &mut Rng, at: Vector3<f32>) -> Matrix4<f32> {
    let rot = UnitQuaternion::from_euler_angles(r.f(-3.0, 3.0), r.f(-1.5, 1.5), r.f(-3.0, 3.0));
    let mut s = Vector3::new(r.f(0.5, 1.5), r.f(0.5, 1.5), r.f(0.5, 1.5));
    if r.next().is_multiple_of(4) {
        s.x = -s.x;
    }
    Matrix4::new_translation(&at) * rot.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s)
}

fn inst1000() -> (Scene, Point3<Real>, Real) {
    let (p, t) = sphere(71, 71); // 10,082 triangles
    let mut scene = Scene::new();
    let m = scene.add_mesh_with_source(p, t).unwrap();
    let mut r = Rng(7);
    for i in 0..1000 {
        let at = Vector3::new((i % 10) as f32, ((i / 10) % 10) as f32, (i / 100) as f32) * 4.0;
        scene.add_instance(m, &random_affine(&mut r, at)).unwrap();
    }
    scene.update();
    (scene, Point3::new(18.0, 18.0, 18.0), 36.0)
}

fn mesh1m() -> (Scene, Point3<Real>, Real) {
    let (p, t) = sphere(500, 1000); // 1,000,000 triangles
    let mut scene = Scene::new();
    let m = scene.add_mesh_with_source(p, t).unwrap();
    scene.add_instance(m, &Matrix4::identity()).unwrap();
    scene.update();
    (scene, Point3::origin(), 1.0)
}

fn pixels(n: usize) -> Vec<(f32, f32)> {
    let mut r = Rng(11);
    (0..n)
        .map(|_| (r.f(480.0, 1440.0), r.f(270.0, 810.0)))
        .collect()
}

/// Median and 99th percentile of single picks, timed one by one (printed, not asserted).
fn print_percentiles(name: &str, scene: &Scene, cam: &Camera, vp: &Viewport, opts: &PickOptions) {
    // Snapping is far slower than a pick: fewer samples keep the run short.
    let n = if opts.snap_radius.is_some() {
        1000
    } else {
        20_000
    };
    let px = pixels(n);
    let mut hits = 0;
    // Warm up.
    for &(x, y) in &px[..n / 10] {
        let _ = black_box(scene.pick(cam, vp, x, y, opts));
    }
    let mut ns: Vec<u64> = px
        .iter()
        .map(|&(x, y)| {
            let t = Instant::now();
            let p = black_box(scene.pick(cam, vp, x, y, opts));
            let e = t.elapsed().as_nanos() as u64;
            hits += usize::from(p.is_ok_and(|p| p.is_some_and(|p| p.hit.is_some())));
            e
        })
        .collect();
    ns.sort_unstable();
    let q = |f: f64| ns[((ns.len() as f64 - 1.0) * f) as usize] as f64 / 1000.0;
    println!(
        "{name}: single pick median {:.2} us, p99 {:.2} us, max {:.2} us ({} of {} hit)",
        q(0.5),
        q(0.99),
        q(1.0),
        hits,
        ns.len()
    );
}

fn pick(c: &mut Criterion) {
    let mut g = c.benchmark_group("scene_pick");
    g.measurement_time(Duration::from_secs(4)).sample_size(30);
    for (name, build) in [
        ("inst1000", inst1000 as fn() -> (Scene, Point3<Real>, Real)),
        ("mesh1m", mesh1m),
    ] {
        let (scene, center, radius) = build();
        let (cam, vp) = camera_for(center, radius);
        for (label, opts) in [
            ("pick", PickOptions::default()),
            ("pick_snap8px", PickOptions::new().with_snap_radius(8.0)),
        ] {
            print_percentiles(&format!("{name}/{label}"), &scene, &cam, &vp, &opts);
            let px = pixels(4096);
            let mut i = 0;
            g.bench_function(format!("{name}/{label}"), |b| {
                b.iter(|| {
                    let (x, y) = px[i % px.len()];
                    i += 1;
                    black_box(scene.pick(&cam, &vp, x, y, &opts))
                })
            });
        }
        // Marquee: a quarter of the screen, and the whole screen.
        let quarter = ScreenRect::new([480.0, 270.0], [1440.0, 810.0]);
        let whole = ScreenRect::new([0.0, 0.0], [1920.0, 1080.0]);
        for (label, rect, mode) in [
            (
                "marquee_quarter_crossing",
                quarter,
                SelectMode::Intersecting,
            ),
            ("marquee_whole_window", whole, SelectMode::Inside),
        ] {
            let opts = SelectOptions {
                mode,
                triangles: true,
                ..SelectOptions::default()
            };
            let sel = scene.select_rect(&cam, &vp, &rect, &opts);
            let tris: usize = sel.triangles.iter().map(|s| s.triangles.len()).sum();
            println!(
                "{name}/{label}: {} instances, {tris} triangles selected",
                sel.instances.len()
            );
            g.bench_function(format!("{name}/{label}"), |b| {
                b.iter(|| black_box(scene.select_rect(&cam, &vp, &rect, &opts)))
            });
        }
    }
    g.finish();
}

/// Refit after moving 1,000 of 10,000 instances (12-triangle boxes), and a full rebuild for
/// comparison. Only `update` is timed.
fn update(c: &mut Criterion) {
    let (p, t) = sphere(2, 3); // 12 triangles
    let mut scene = Scene::new();
    let m = scene.add_mesh_with_source(p, t).unwrap();
    let mut r = Rng(3);
    let ids: Vec<_> = (0..10_000)
        .map(|i| {
            let at = Vector3::new((i % 25) as f32, ((i / 25) % 20) as f32, (i / 500) as f32) * 3.0;
            scene.add_instance(m, &random_affine(&mut r, at)).unwrap()
        })
        .collect();
    scene.update();
    let moves: Vec<Matrix4<f32>> = (0..1000)
        .map(|_| {
            let at = Vector3::new(r.f(0.0, 75.0), r.f(0.0, 60.0), r.f(0.0, 60.0));
            random_affine(&mut r, at)
        })
        .collect();
    let mut g = c.benchmark_group("scene_update");
    g.sample_size(50);
    let mut round = 0usize;
    g.bench_function("refit_after_moving_10pct_of_10k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                for (k, mv) in moves.iter().enumerate() {
                    let id = ids[(k * 10 + round) % ids.len()];
                    scene.set_transform(id, mv).unwrap();
                }
                round += 1;
                let t = Instant::now();
                scene.update();
                total += t.elapsed();
            }
            total
        })
    });
    g.bench_function("rebuild_10k_after_add_remove", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let id = scene.add_instance(m, &moves[0]).unwrap();
                scene.remove(id).unwrap();
                let t = Instant::now();
                scene.update();
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, pick, update);
criterion_main!(benches);
