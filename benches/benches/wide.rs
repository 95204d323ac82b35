//! Wide BVH traversal (`raypick_bvh::wide`) against the binary tree: closest hit on real
//! triangles with the watertight test, single thread, every SIMD path.
//!
//! `cargo bench -p raypick-benches --bench wide` runs every workload and both ray sets;
//! `RAYPICK_WIDE_WORKLOADS=bunny,soup_100k` picks workloads, `RAYPICK_WIDE_RAYS` the rays per
//! iteration (default 20,000, a prefix of the workload's ray set). Before timing, every
//! variant's hit count and sum of hit distances is checked against the binary tree's. obvhs
//! (CWBVH) runs in the same groups as the yardstick; its checksum is printed, not asserted
//! (it has its own, non-watertight triangle test).

use std::hint::black_box;
use std::ops::{ControlFlow, Range};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use raypick_benches::peers::ObvhsPeer;
use raypick_benches::{BenchRay, MeshData, Peer, RaySet, Workload};
use raypick_bvh::wide::{Bvh8, LeafFn, RayTraversal};
use raypick_bvh::{BoxRay, BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Aabb, Cull, Point3, Ray, WatertightRay};

/// A mesh as a closest-hit query wants it: triangles in leaf order, and the trees.
struct Scene {
    tris: Vec<[Point3<f32>; 3]>,
    bvh: Bvh,
    w8: Bvh8,
}

impl Scene {
    fn new(mesh: &MeshData) -> Scene {
        let tris: Vec<[Point3<f32>; 3]> = (0..mesh.triangles.len())
            .map(|i| mesh.triangle(i).expect("generated meshes are valid"))
            .collect();
        let boxes: Vec<Aabb> = tris.iter().map(|t| Aabb::from_points(t)).collect();
        let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).expect("valid boxes");
        let tris: Vec<[Point3<f32>; 3]> = bvh
            .prim_indices()
            .iter()
            .map(|&p| tris[p as usize])
            .collect();
        let w8 = Bvh8::from_bvh(&bvh);
        Scene { tris, bvh, w8 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Binary,
    Wide8(SimdPath),
}

impl Variant {
    fn name(self) -> String {
        match self {
            Variant::Binary => "binary".into(),
            Variant::Wide8(p) => format!("bvh8_{p:?}").to_lowercase(),
        }
    }
}

fn variants() -> Vec<Variant> {
    let mut v = vec![Variant::Binary];
    v.extend(SimdPath::available().map(Variant::Wide8));
    v
}

/// Closest hit of one ray: (leaf-order position, t), or `None`.
#[inline(always)]
fn closest(scene: &Scene, v: Variant, ray: &Ray, t_max: f32) -> Option<(usize, f32)> {
    let wr = WatertightRay::new(ray);
    let mut best = None;
    let tris = &scene.tris;
    let leaf = |range: Range<usize>, t_max: &mut f32| {
        for pos in range {
            let [a, b, c] = &tris[pos];
            if let Some(h) = wr.intersect(a, b, c, 0.0, *t_max, Cull::None) {
                *t_max = h.t;
                best = Some((pos, h.t));
            }
        }
        ControlFlow::Continue(())
    };
    match v {
        Variant::Binary => scene.bvh.traverse_ray(ray, 0.0, t_max, leaf),
        Variant::Wide8(p) => scene.w8.traverse_ray_visit(
            RayTraversal::nearest_first().on(p),
            &BoxRay::new(ray),
            0.0,
            t_max,
            &mut LeafFn(leaf),
        ),
    }
    best
}

/// Any hit (occlusion): stops at the first triangle hit. Binary or 8-wide (best path).
fn any_hits(scene: &Scene, wide: bool, rays: &[BenchRay]) -> usize {
    if wide {
        rays.iter().filter(|r| any_hit(scene, true, r)).count()
    } else {
        rays.iter().filter(|r| any_hit(scene, false, r)).count()
    }
}

#[inline(always)]
fn any_hit(scene: &Scene, wide: bool, r: &BenchRay) -> bool {
    let wr = WatertightRay::new(&r.ray);
    let mut hit = false;
    let tris = &scene.tris;
    let leaf = |range: Range<usize>, t_max: &mut f32| {
        for pos in range {
            let [a, b, c] = &tris[pos];
            if wr.intersect(a, b, c, 0.0, *t_max, Cull::None).is_some() {
                hit = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    };
    if wide {
        scene.w8.traverse_ray(&r.ray, 0.0, r.t_max, leaf);
    } else {
        scene.bvh.traverse_ray(&r.ray, 0.0, r.t_max, leaf);
    }
    hit
}

fn run(scene: &Scene, v: Variant, rays: &[BenchRay]) -> (usize, f64) {
    let mut hits = 0;
    let mut sum = 0.0f64;
    for r in rays {
        if let Some((_, t)) = closest(scene, v, &r.ray, r.t_max) {
            hits += 1;
            sum += f64::from(t);
        }
    }
    (hits, sum)
}

/// Throughput robust to a shared, loaded machine: the rays run in chunks of 500, each chunk
/// `reps` times, and the fastest run of each chunk counts (preemption only adds time).
/// Returns million rays per second.
fn min_chunk_mrays<F: FnMut(&[BenchRay])>(rays: &[BenchRay], reps: usize, mut f: F) -> f64 {
    let mut total = 0.0;
    for chunk in rays.chunks(500) {
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let t0 = std::time::Instant::now();
            f(black_box(chunk));
            best = best.min(t0.elapsed().as_secs_f64());
        }
        total += best;
    }
    rays.len() as f64 / total / 1e6
}

fn workloads() -> Vec<Workload> {
    match std::env::var("RAYPICK_WIDE_WORKLOADS") {
        Ok(list) => list.split(',').filter_map(Workload::from_name).collect(),
        Err(_) => Workload::ALL.to_vec(),
    }
}

fn bench_wide(c: &mut Criterion) {
    let n_rays: usize = std::env::var("RAYPICK_WIDE_RAYS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    for w in workloads() {
        let mesh = match w.mesh() {
            Ok(m) => m,
            Err(e) => {
                eprintln!("skipping {w}: {e}");
                continue;
            }
        };
        let scene = Scene::new(&mesh);
        // The yardstick: raypick must reach 2x obvhs (CWBVH, its own triangle test).
        let obvhs = ObvhsPeer::new(&mesh);
        let ntri = scene.tris.len() as f64;
        eprintln!(
            "{w}: {} triangles; nodes: binary {:.1} B/tri (depth {}), bvh8 {:.1} B/tri (depth {})",
            scene.tris.len(),
            std::mem::size_of_val(scene.bvh.nodes()) as f64 / ntri,
            scene.bvh.depth(),
            scene.w8.memory_bytes() as f64 / ntri,
            scene.w8.depth(),
        );
        for set in RaySet::ALL {
            let rays = set.rays(w, &mesh, n_rays);
            let reference = run(&scene, Variant::Binary, &rays);
            eprintln!(
                "{w}/{}: checksum {} hits, sum t {:.6}",
                set.name(),
                reference.0,
                reference.1
            );
            // Summary line: best-of-5 per chunk, for ratios that survive a busy machine.
            let mut line = format!("{w}/{}:", set.name());
            // Once untimed-for-ratio first, so the binary tree's figure is not the cold one.
            min_chunk_mrays(&rays, 1, |r| {
                black_box(run(&scene, Variant::Binary, r));
            });
            let mut base = f64::NAN;
            for v in variants() {
                let m = min_chunk_mrays(&rays, 5, |r| {
                    black_box(run(&scene, v, r));
                });
                if v == Variant::Binary {
                    base = m;
                }
                line += &format!(" {} {m:.2} ({:.2}x)", v.name(), m / base);
            }
            let m = min_chunk_mrays(&rays, 5, |r| {
                black_box(r.iter().filter_map(|r| obvhs.closest_hit(r)).count());
            });
            line += &format!(" obvhs {m:.2} ({:.2}x)", m / base);
            assert_eq!(any_hits(&scene, true, &rays), reference.0, "any-hit count");
            assert_eq!(any_hits(&scene, false, &rays), reference.0, "any-hit count");
            let a0 = min_chunk_mrays(&rays, 5, |r| {
                black_box(any_hits(&scene, false, r));
            });
            let a1 = min_chunk_mrays(&rays, 5, |r| {
                black_box(any_hits(&scene, true, r));
            });
            line += &format!(
                "; any-hit: binary {a0:.2}, bvh8_best {a1:.2} ({:.2}x)",
                a1 / a0
            );
            eprintln!("best-of-5 Mrays/s {line}");
            let mut group = c.benchmark_group(format!("wide_closest/{w}/{}", set.name()));
            group.sample_size(10);
            group.throughput(Throughput::Elements(rays.len() as u64));
            for v in variants() {
                let got = run(&scene, v, &rays);
                assert_eq!(
                    got.0,
                    reference.0,
                    "{w}/{}: {} hit count",
                    set.name(),
                    v.name()
                );
                assert!(
                    (got.1 - reference.1).abs() <= 1e-9 * reference.1.abs().max(1.0),
                    "{w}/{}: {} checksum {} vs {}",
                    set.name(),
                    v.name(),
                    got.1,
                    reference.1
                );
                group.bench_with_input(BenchmarkId::from_parameter(v.name()), &v, |b, &v| {
                    b.iter(|| black_box(run(&scene, v, black_box(&rays))))
                });
            }
            let got: (usize, f64) = rays.iter().fold((0, 0.0), |(n, s), r| {
                obvhs
                    .closest_hit(r)
                    .map_or((n, s), |t| (n + 1, s + f64::from(t)))
            });
            eprintln!(
                "{w}/{}: obvhs checksum {} hits, sum t {:.6}",
                set.name(),
                got.0,
                got.1
            );
            group.bench_function("obvhs", |b| {
                b.iter(|| {
                    black_box(&rays)
                        .iter()
                        .filter_map(|r| obvhs.closest_hit(r))
                        .count()
                })
            });
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench_wide
}
criterion_main!(benches);
