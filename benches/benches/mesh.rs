//! raypick's `Mesh` queries on the workloads of `workloads.md`: closest, any and all hits
//! (single rays and rayon batches), nearest point against parry3d's `project_local_point`,
//! and sphere overlap.
//!
//! `cargo bench -p raypick-benches --bench mesh`; `RAYPICK_BENCH_WORKLOADS=bunny,soup_100k`
//! picks workloads (default: bunny and soup_100k, the small ones), `RAYPICK_BENCH_CHUNK` the
//! rays or points per iteration (default 2,000). Each iteration takes the next chunk of the
//! seeded set, cycling, so that the samples cover it all.
//!
//! `mesh_update_positions` times [`Mesh::update_positions`] (vertex copy, triangle boxes and
//! the refit) on `RAYPICK_BENCH_UPDATE_WORKLOADS` (default `sphere_1m,terrain_1m`), moving
//! every vertex back and forth, and the 8-wide tree's refit alone (`WideBvh::refit` by
//! original index, `refit_leaf_order`); it also prints each mesh's bytes per triangle. Run it alone
//! with `cargo bench -p raypick-benches --bench mesh -- update`, and with
//! `RAYON_NUM_THREADS=1` for the single-thread figure.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parry3d::query::PointQuery;
use parry3d::shape::TriMesh;
use raypick_benches::{parse_list, rng::SplitMix64, BenchRay, MeshData, RaySet, Workload};
use raypick_primitives::{Aabb, Point3, Ray, Sphere, Triangle};
use raypick_query::mesh::{MeshTree, NodeLayout};
use raypick_query::{Hit, Mesh, RayQuery};

/// Cycles through `items` one chunk per call.
struct Chunks<'a, T> {
    items: &'a [T],
    chunk: usize,
    at: usize,
}

impl<'a, T> Chunks<'a, T> {
    fn new(items: &'a [T], chunk: usize) -> Self {
        Self {
            items,
            chunk: chunk.min(items.len()).max(1),
            at: 0,
        }
    }
    fn next(&mut self) -> &'a [T] {
        if self.at + self.chunk > self.items.len() {
            self.at = 0;
        }
        let s = &self.items[self.at..self.at + self.chunk];
        self.at += self.chunk;
        s
    }
}

/// Points uniform in the mesh's box grown by 10% per side (as the compare binary uses).
fn query_points(mesh: &MeshData, n: usize) -> Vec<Point3<f32>> {
    let b = mesh.bounds();
    let (lo, hi) = (b.min - b.extents() * 0.1, b.max + b.extents() * 0.1);
    let mut rng = SplitMix64::new(0x9017);
    (0..n)
        .map(|_| {
            let mut c = |i: usize| rng.range_f64(f64::from(lo[i]), f64::from(hi[i])) as f32;
            Point3::new(c(0), c(1), c(2))
        })
        .collect()
}

fn mesh_queries(c: &mut Criterion) {
    let names =
        std::env::var("RAYPICK_BENCH_WORKLOADS").unwrap_or_else(|_| "bunny,soup_100k".into());
    let workloads = parse_list(&names, &Workload::ALL, Workload::from_name)
        .unwrap_or_else(|e| panic!("RAYPICK_BENCH_WORKLOADS: {e}"));
    let chunk: usize = std::env::var("RAYPICK_BENCH_CHUNK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    for w in workloads {
        let data = w.mesh().expect("workload mesh");
        let mesh = Mesh::new(data.positions.clone(), data.triangles.clone()).expect("mesh");
        let parry = TriMesh::new(data.positions.clone(), data.triangles.clone()).expect("parry");

        for set in RaySet::ALL {
            let rays: Vec<BenchRay> = set.rays(w, &data, 20_000);
            let id = format!("{}_{}", w.name(), set.name());
            let mut g = c.benchmark_group("mesh_rays");
            g.throughput(Throughput::Elements(chunk as u64));
            g.measurement_time(Duration::from_secs(3));
            g.sample_size(20);
            let q = |r: &BenchRay| RayQuery::new(0.0, r.t_max);
            let mut it = Chunks::new(&rays, chunk);
            g.bench_function(BenchmarkId::new("closest_hit", &id), |b| {
                b.iter(|| {
                    for r in it.next() {
                        black_box(mesh.closest_hit(black_box(&r.ray), &q(r)));
                    }
                });
            });
            g.bench_function(BenchmarkId::new("any_hit", &id), |b| {
                b.iter(|| {
                    for r in it.next() {
                        black_box(mesh.any_hit(black_box(&r.ray), &q(r)));
                    }
                });
            });
            let mut all: Vec<Hit> = Vec::new();
            g.bench_function(BenchmarkId::new("all_hits_into", &id), |b| {
                b.iter(|| {
                    for r in it.next() {
                        mesh.all_hits_into(black_box(&r.ray), &q(r), &mut all);
                        black_box(all.len());
                    }
                });
            });
            // The batch takes one interval for all rays: the sets' t_max is +inf.
            let plain: Vec<Ray> = rays.iter().map(|r| r.ray).collect();
            let mut out = vec![None; chunk.min(plain.len())];
            let mut pit = Chunks::new(&plain, chunk);
            g.bench_function(BenchmarkId::new("closest_hit_batch", &id), |b| {
                b.iter(|| {
                    let rs = pit.next();
                    mesh.closest_hit_batch(rs, &RayQuery::default(), &mut out[..rs.len()])
                        .expect("lengths match");
                    black_box(&out);
                });
            });
            g.finish();
        }

        let points = query_points(&data, 20_000);
        let mut g = c.benchmark_group("mesh_nearest_point");
        g.throughput(Throughput::Elements(chunk as u64));
        g.measurement_time(Duration::from_secs(3));
        g.sample_size(20);
        let mut it = Chunks::new(&points, chunk);
        g.bench_function(BenchmarkId::new("raypick", w.name()), |b| {
            b.iter(|| {
                for p in it.next() {
                    black_box(mesh.nearest_point(black_box(p), f32::INFINITY));
                }
            });
        });
        g.bench_function(BenchmarkId::new("parry3d", w.name()), |b| {
            b.iter(|| {
                for p in it.next() {
                    black_box(parry.project_local_point(black_box(p), false));
                }
            });
        });
        g.finish();

        let b = data.bounds();
        let r = b.extents().norm() * 0.05;
        let spheres: Vec<Sphere> = points.iter().map(|p| Sphere::new(*p, r)).collect();
        let mut g = c.benchmark_group("mesh_overlap_sphere");
        g.throughput(Throughput::Elements(chunk.min(200) as u64));
        g.measurement_time(Duration::from_secs(3));
        g.sample_size(20);
        let mut it = Chunks::new(&spheres, chunk.min(200));
        let mut out = Vec::new();
        g.bench_function(BenchmarkId::new("raypick", w.name()), |b| {
            b.iter(|| {
                for s in it.next() {
                    mesh.overlap_sphere_into(black_box(s), &mut out);
                    black_box(out.len());
                }
            });
        });
        g.finish();
    }
}

/// `update_positions` on the big meshes, alternating between the original positions and a
/// copy moved along a smooth field, so each call really changes every triangle.
fn mesh_update(c: &mut Criterion) {
    let names = std::env::var("RAYPICK_BENCH_UPDATE_WORKLOADS")
        .unwrap_or_else(|_| "sphere_1m,terrain_1m".into());
    let workloads = parse_list(&names, &Workload::ALL, Workload::from_name)
        .unwrap_or_else(|e| panic!("RAYPICK_BENCH_UPDATE_WORKLOADS: {e}"));
    // Criterion filters only the timed functions; skip building the meshes when the filter
    // excludes this group.
    if let Some(filter) = std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        if !"mesh_update_positions".contains(filter.as_str()) {
            return;
        }
    }
    for w in workloads {
        let data = w.mesh().expect("workload mesh");
        let mut mesh = Mesh::new(data.positions.clone(), data.triangles.clone()).expect("mesh");
        let scale = data.bounds().extents().norm() * 1e-3;
        let moved: Vec<Point3<f32>> = data
            .positions
            .iter()
            .map(|p| p + nalgebra::Vector3::new(p.y.sin(), p.z.cos(), p.x.sin()) * scale)
            .collect();
        let sets = [&data.positions, &moved];
        mesh.update_positions(&moved).expect("update");
        println!(
            "{}: {} triangles, {:.1} bytes per triangle after an update",
            w.name(),
            mesh.len(),
            mesh.bytes_per_triangle()
        );
        let mut g = c.benchmark_group("mesh_update_positions");
        g.throughput(Throughput::Elements(mesh.len() as u64));
        g.measurement_time(Duration::from_secs(5));
        g.sample_size(20);
        let mut k = 0usize;
        g.bench_function(BenchmarkId::new("raypick", w.name()), |b| {
            b.iter(|| {
                k += 1;
                mesh.update_positions(black_box(sets[k % 2]))
                    .expect("update");
            });
        });
        // The same on a mesh that keeps its compact nodes (re-quantized at each update).
        let mut compact = mesh.clone();
        compact
            .set_node_layout(NodeLayout::Compact)
            .expect("compact layout");
        g.bench_function(BenchmarkId::new("raypick_compact", w.name()), |b| {
            b.iter(|| {
                k += 1;
                compact
                    .update_positions(black_box(sets[k % 2]))
                    .expect("update");
            });
        });
        drop(compact);
        // The tree refit alone, from triangle boxes by original index (the generic API) and
        // in leaf order (no indirection).
        let mut wide = mesh.tree().clone();
        let prims: Vec<u32> = mesh.prim_indices().collect();
        let boxes: Vec<Aabb> = (0..data.triangles.len())
            .map(|t| {
                let [a, b, c] = data.triangles[t].map(|v| moved[v as usize]);
                Triangle::new(a, b, c).aabb()
            })
            .collect();
        let leaf_order: Vec<Aabb> = prims.iter().map(|&p| boxes[p as usize]).collect();
        g.bench_function(BenchmarkId::new("wide_refit", w.name()), |b| {
            b.iter(|| match &mut wide {
                MeshTree::Plain(t) => t.refit(&prims, black_box(&boxes)).expect("refit"),
                MeshTree::Compact(t) => t.refit(&prims, black_box(&boxes)).expect("refit"),
            });
        });
        g.bench_function(BenchmarkId::new("wide_refit_leaf_order", w.name()), |b| {
            b.iter(|| {
                match &mut wide {
                    MeshTree::Plain(t) => t.refit_leaf_order(black_box(&leaf_order)),
                    MeshTree::Compact(t) => t.refit_leaf_order(black_box(&leaf_order)),
                }
                .expect("refit")
            });
        });
        g.finish();
    }
}

criterion_group!(benches, mesh_queries, mesh_update);
criterion_main!(benches);
