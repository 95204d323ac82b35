//! BVH build benchmarks: raypick-bvh beside parry3d's `Bvh`, the `bvh` crate and obvhs, on
//! the workloads of `workloads.md` (a ~100k displaced sphere, `sphere_1m`, `terrain_1m`,
//! `soup_100k`), single thread (a rayon pool of 1) and all threads.
//!
//! `cargo bench -p raypick-benches --bench build` runs the criterion groups.
//! `RAYPICK_BUILD_REPORT=1 cargo bench -p raypick-benches --bench build` instead prints a
//! table per workload: build time (median of a few runs), SAH cost (unit traversal and
//! intersection costs, leaves weighted by their primitive count, the same formula for every
//! tree) and bytes per triangle of the tree (nodes plus index arrays), then raypick's
//! `validate()` statistics. `RAYPICK_BUILD_REPORT_RUNS` sets the runs per cell (default 3);
//! `RAYPICK_BUILD_WORKLOADS=sphere_1m,terrain_1m` limits either mode to some workloads, and
//! `RAYPICK_BUILD_PEERS=0` leaves the peers out of the table.
//!
//! Peers are built the way their docs recommend: parry3d 0.25 `Bvh::from_leaves` (binned,
//! serial), `bvh` 0.13 `Bvh::build` (serial) and `build_with_executor(rayon_executor)`,
//! obvhs 0.4 `build_bvh2_from_tris` with `medium_build` (PLOC + reinsertion + collapse; serial,
//! its `parallel` feature is off). Every build starts from the triangles, so computing the
//! boxes is part of every time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use raypick_benches::{displaced_sphere, MeshData, Workload};
use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Point3};

fn tri_boxes(mesh: &MeshData) -> Vec<Aabb> {
    (0..mesh.triangles.len())
        .filter_map(|i| mesh.triangle(i))
        .map(|[a, b, c]| Aabb::from_point(a).grow(&b).grow(&c))
        .collect()
}

fn raypick_build(mesh: &MeshData, cfg: &BuildConfig) -> Bvh {
    Bvh::build(&tri_boxes(mesh), cfg).expect("workload triangles are finite")
}

fn parry_build(mesh: &MeshData) -> parry3d::partitioning::Bvh {
    let boxes: Vec<parry3d::bounding_volume::Aabb> = tri_boxes(mesh)
        .iter()
        .map(|b| parry3d::bounding_volume::Aabb::new(b.min, b.max))
        .collect();
    parry3d::partitioning::Bvh::from_leaves(parry3d::partitioning::BvhBuildStrategy::Binned, &boxes)
}

/// A triangle as the `bvh` crate's shape.
struct BvhTri {
    min: [f32; 3],
    max: [f32; 3],
    node_index: usize,
}

impl bvh::aabb::Bounded<f32, 3> for BvhTri {
    fn aabb(&self) -> bvh::aabb::Aabb<f32, 3> {
        bvh::aabb::Aabb::with_bounds(self.min.into(), self.max.into())
    }
}

impl bvh::bounding_hierarchy::BHShape<f32, 3> for BvhTri {
    fn set_bh_node_index(&mut self, index: usize) {
        self.node_index = index;
    }

    fn bh_node_index(&self) -> usize {
        self.node_index
    }
}

fn bvh_crate_shapes(mesh: &MeshData) -> Vec<BvhTri> {
    tri_boxes(mesh)
        .iter()
        .map(|b| BvhTri {
            min: [b.min.x, b.min.y, b.min.z],
            max: [b.max.x, b.max.y, b.max.z],
            node_index: 0,
        })
        .collect()
}

fn bvh_crate_build(mesh: &MeshData, parallel: bool) -> bvh::bvh::Bvh<f32, 3> {
    let mut shapes = bvh_crate_shapes(mesh);
    if parallel {
        bvh::bvh::Bvh::build_with_executor(&mut shapes, bvh::bvh::rayon_executor)
    } else {
        bvh::bvh::Bvh::build(&mut shapes)
    }
}

fn obvhs_tris(mesh: &MeshData) -> Vec<obvhs::triangle::Triangle> {
    let v = |p: &Point3<f32>| glam::Vec3A::new(p.x, p.y, p.z);
    (0..mesh.triangles.len())
        .filter_map(|i| mesh.triangle(i))
        .map(|[a, b, c]| obvhs::triangle::Triangle {
            v0: v(&a),
            v1: v(&b),
            v2: v(&c),
        })
        .collect()
}

fn obvhs_build(tris: &[obvhs::triangle::Triangle]) -> obvhs::bvh2::Bvh2 {
    let mut core = Duration::default();
    obvhs::bvh2::builder::build_bvh2_from_tris(
        tris,
        obvhs::BvhBuildParams::medium_build(),
        &mut core,
    )
}

/// Half area of a box given by corners.
fn half_area(min: [f32; 3], max: [f32; 3]) -> f64 {
    let e = [0, 1, 2].map(|a| (max[a] - min[a]).max(0.0) as f64);
    e[0] * e[1] + e[1] * e[2] + e[2] * e[0]
}

/// SAH cost from (half area, primitive count or 0 for interior) of every node, root first.
fn sah(nodes: impl IntoIterator<Item = (f64, usize)>) -> f64 {
    let mut it = nodes.into_iter();
    let Some((root_area, root_count)) = it.next() else {
        return 0.0;
    };
    let w = |count: usize| if count == 0 { 1.0 } else { count as f64 };
    let ratio = |a: f64| if root_area > 0.0 { a / root_area } else { 1.0 };
    w(root_count) + it.map(|(a, c)| ratio(a) * w(c)).sum::<f64>()
}

fn parry_sah(bvh: &parry3d::partitioning::Bvh) -> f64 {
    let root = bvh.root_aabb();
    let mut nodes = vec![(half_area(root.mins.into(), root.maxs.into()), 0)];
    bvh.traverse(|n| {
        let count = usize::from(n.is_leaf());
        nodes.push((half_area(n.mins().into(), n.maxs().into()), count));
        parry3d::partitioning::TraversalAction::Continue
    });
    if nodes.len() == 2 {
        // A single leaf: its node is the root.
        nodes.remove(0);
    }
    sah(nodes)
}

fn bvh_crate_sah(bvh: &bvh::bvh::Bvh<f32, 3>, shapes: &[BvhTri]) -> f64 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for s in shapes {
        for a in 0..3 {
            lo[a] = lo[a].min(s.min[a]);
            hi[a] = hi[a].max(s.max[a]);
        }
    }
    let mut nodes = vec![(half_area(lo, hi), 0)];
    for n in &bvh.nodes {
        if let bvh::bvh::BvhNode::Node {
            child_l_index,
            child_l_aabb,
            child_r_index,
            child_r_aabb,
            ..
        } = n
        {
            for (i, b) in [(child_l_index, child_l_aabb), (child_r_index, child_r_aabb)] {
                let leaf = matches!(bvh.nodes[*i], bvh::bvh::BvhNode::Leaf { .. });
                let (min, max) = (b.min, b.max);
                nodes.push((
                    half_area([min[0], min[1], min[2]], [max[0], max[1], max[2]]),
                    usize::from(leaf),
                ));
            }
        }
    }
    sah(nodes)
}

fn obvhs_sah(bvh: &obvhs::bvh2::Bvh2) -> f64 {
    let mut nodes = Vec::new();
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        let Some(n) = bvh.nodes.get(i) else { continue };
        let (min, max) = (n.aabb.min, n.aabb.max);
        nodes.push((
            half_area([min.x, min.y, min.z], [max.x, max.y, max.z]),
            n.prim_count as usize,
        ));
        if n.prim_count == 0 {
            stack.push(n.first_index as usize + 1);
            stack.push(n.first_index as usize);
        }
    }
    // Root first: the stack visits it first.
    sah(nodes)
}

/// The workloads, optionally only those named in `RAYPICK_BUILD_WORKLOADS` (comma list).
fn workloads() -> Vec<(&'static str, MeshData)> {
    let only = std::env::var("RAYPICK_BUILD_WORKLOADS").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| w == name))
    };
    let mut v = Vec::new();
    if wanted("sphere_100k") {
        v.push(("sphere_100k", displaced_sphere(160, 312, 0x5EED_0001)));
    }
    for w in [Workload::Soup100k, Workload::Sphere1m, Workload::Terrain1m] {
        if wanted(w.name()) {
            v.push((w.name(), w.mesh().expect("generated workloads never fail")));
        }
    }
    v
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn bench_build(c: &mut Criterion) {
    let single = pool(1);
    let all = pool(0);
    let threads = all.current_num_threads();
    for (name, mesh) in workloads() {
        let mut g = c.benchmark_group(format!("build/{name}"));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(if mesh.triangles.len() > 500_000 {
            20
        } else {
            5
        }));
        for (preset, cfg) in [
            ("fast", BuildConfig::fast()),
            ("balanced", BuildConfig::balanced()),
        ] {
            g.bench_function(format!("raypick_{preset}/1t"), |b| {
                b.iter(|| single.install(|| black_box(raypick_build(&mesh, &cfg))))
            });
            g.bench_function(format!("raypick_{preset}/{threads}t"), |b| {
                b.iter(|| all.install(|| black_box(raypick_build(&mesh, &cfg))))
            });
        }
        g.bench_function("parry3d/1t", |b| b.iter(|| black_box(parry_build(&mesh))));
        g.bench_function("bvh/1t", |b| {
            b.iter(|| black_box(bvh_crate_build(&mesh, false)))
        });
        g.bench_function(format!("bvh/{threads}t"), |b| {
            b.iter(|| all.install(|| black_box(bvh_crate_build(&mesh, true))))
        });
        let tris = obvhs_tris(&mesh);
        g.bench_function("obvhs/1t", |b| b.iter(|| black_box(obvhs_build(&tris))));
        g.finish();
    }
}

/// Median wall time of `runs` calls.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let out = black_box(f());
        times.push(t.elapsed());
        last = Some(out);
    }
    times.sort();
    (times[times.len() / 2], last.expect("at least one run"))
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn report() {
    let runs: usize = std::env::var("RAYPICK_BUILD_REPORT_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let peers = std::env::var("RAYPICK_BUILD_PEERS").map_or(true, |v| v != "0");
    let single = pool(1);
    let all = pool(0);
    let threads = all.current_num_threads();
    println!("threads available: {threads}; median of {runs} runs per cell");
    for (name, mesh) in workloads() {
        let n = mesh.triangles.len();
        println!("\n### {name} ({n} triangles)\n");
        println!("| builder | 1 thread (ms) | {threads} threads (ms) | SAH cost | bytes/tri |");
        println!("|---|---:|---:|---:|---:|");
        for (preset, cfg) in [
            ("fast", BuildConfig::fast()),
            ("balanced", BuildConfig::balanced()),
            ("high_quality", BuildConfig::high_quality()),
        ] {
            let r = if preset == "high_quality" { 1 } else { runs };
            let (t1, bvh) = time(r, || single.install(|| raypick_build(&mesh, &cfg)));
            let (tn, _) = time(r, || all.install(|| raypick_build(&mesh, &cfg)));
            let s = bvh.stats();
            println!(
                "| raypick `{preset}` | {} | {} | {:.2} | {:.1} |",
                ms(t1),
                ms(tn),
                s.sah_cost,
                s.bytes_per_prim
            );
        }
        if peers {
            let (t1, bvh) = time(runs, || parry_build(&mesh));
            println!(
                "| parry3d 0.25 `Bvh` (binned) | {} | (serial) | {:.2} | {:.1} |",
                ms(t1),
                parry_sah(&bvh),
                bvh.total_memory_size() as f64 / n as f64
            );
            let (t1, bvh) = time(runs, || bvh_crate_build(&mesh, false));
            let (tn, _) = time(runs, || all.install(|| bvh_crate_build(&mesh, true)));
            let shapes = bvh_crate_shapes(&mesh);
            println!(
                "| bvh 0.13 | {} | {} | {:.2} | {:.1} |",
                ms(t1),
                ms(tn),
                bvh_crate_sah(&bvh, &shapes),
                (bvh.nodes.len() * std::mem::size_of::<bvh::bvh::BvhNode<f32, 3>>()) as f64
                    / n as f64
            );
            let tris = obvhs_tris(&mesh);
            let (t1, bvh) = time(runs, || obvhs_build(&tris));
            println!(
                "| obvhs 0.4 BVH2 `medium_build` | {} | (serial) | {:.2} | {:.1} |",
                ms(t1),
                obvhs_sah(&bvh),
                (bvh.nodes.len() * std::mem::size_of::<obvhs::bvh2::node::Bvh2Node>()
                    + bvh.primitive_indices.len() * 4) as f64
                    / n as f64
            );
        }
        let boxes = tri_boxes(&mesh);
        let (_, hq) = single
            .install(|| Bvh::build_with(&boxes, &BuildConfig::high_quality(), &Default::default()))
            .expect("finite");
        if let Some(opt) = hq.optimize {
            println!(
                "\nraypick `high_quality` (1 thread): binned build {} ms, SAH {:.2}; reinsertion \
                 optimizer {} ms ({} moves), SAH {:.2} -> {:.2} ({:.2}% lower)",
                ms(hq.build_time),
                opt.sah_before,
                ms(opt.time),
                opt.reinsertions,
                opt.sah_before,
                opt.sah_after,
                100.0 * (1.0 - opt.sah_after / opt.sah_before)
            );
        }
        let balanced = Bvh::build(&boxes, &BuildConfig::balanced()).expect("finite");
        match balanced.validate(&boxes) {
            Ok(stats) => println!("\nraypick `balanced` validate(): {stats}"),
            Err(e) => println!("\nraypick `balanced` validate() FAILED: {e}"),
        }
    }
}

criterion_group!(benches, bench_build);

fn main() {
    if std::env::var_os("RAYPICK_BUILD_REPORT").is_some() {
        report();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
