//! Solid queries side by side: raypick's `Mesh::signed_distance` and `Mesh::contains`
//! against parry3d's `project_local_point` (with its pseudo-normal sign) and
//! `contains_local_point` on a `TriMesh` built with `TriMeshFlags::ORIENTED`, on the same
//! points (uniform in the mesh's box grown by 20%), one thread each, back to back. Counts
//! the points where parry's inside/outside differs from raypick's winding-number answer
//! (on closed meshes the winding number is the truth: within 1e-3 of 0 or 1), and times a
//! 128³ signed-distance grid on all threads.
//!
//! raypick is timed twice: one query per point, in the points' order (as parry), and the
//! batch form (`Mesh::signed_distances`, `Mesh::contains_points`) on a one-thread pool,
//! which answers large batches in the points' Morton order. The last column times parry's
//! loop over the points in that same order, to show what the order alone gives a peer.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin solid -- [--workloads bunny,sphere_1m] [--points N] [--grid N]
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use parry3d::query::PointQuery;
use parry3d::shape::{TriMesh, TriMeshFlags};
use raypick_benches::{parse_list, rng::SplitMix64, MeshData, Workload};
use raypick_primitives::Point3;
use raypick_query::{GridConfig, Mesh};

fn points(mesh: &MeshData, n: usize) -> Vec<Point3<f32>> {
    let b = mesh.bounds();
    let g = (b.max - b.min) * 0.2;
    let (lo, hi) = (b.min - g, b.max + g);
    let mut rng = SplitMix64::new(0x5011D);
    (0..n)
        .map(|_| {
            let mut c = |i: usize| rng.range_f64(f64::from(lo[i]), f64::from(hi[i])) as f32;
            Point3::new(c(0), c(1), c(2))
        })
        .collect()
}

fn rate(n: usize, secs: f64) -> String {
    format!("{:.2} M/s", n as f64 / secs / 1e6)
}

fn main() -> ExitCode {
    let mut workloads = vec![Workload::Bunny, Workload::Sphere1m];
    let mut n = 100_000;
    let mut grid_n = 128;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next();
        match (a.as_str(), v) {
            ("--workloads", Some(v)) => match parse_list(v, &Workload::ALL, Workload::from_name) {
                Ok(w) => workloads = w,
                Err(e) => {
                    eprintln!("solid: {e}");
                    return ExitCode::from(2);
                }
            },
            ("--points", Some(v)) => n = v.parse().unwrap_or(n),
            ("--grid", Some(v)) => grid_n = v.parse().unwrap_or(grid_n),
            _ => {
                eprintln!("solid: unknown option {a}");
                return ExitCode::from(2);
            }
        }
    }
    println!(
        "| mesh | triangles | query | raypick 1T | raypick batch 1T | parry3d 1T | ratio | batch ratio | parry sign disagreements | parry3d 1T, points in Morton order |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    for w in workloads {
        let data = match w.mesh() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("solid: {w}: {e}");
                return ExitCode::from(1);
            }
        };
        let t = Instant::now();
        let mesh = one.install(|| Mesh::new(data.positions.clone(), data.triangles.clone()));
        let mesh = mesh.expect("mesh");
        let t_build = t.elapsed().as_secs_f64();
        let pts = points(&data, n);
        // What the first solid query builds (expansions, rim, pieces; the nearest-point
        // disks), on the one-thread pool: a user who loads a mesh and asks at once waits
        // for it.
        let t = Instant::now();
        one.install(|| black_box(mesh.signed_distances(&pts[..1])));
        let t_first = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let parry = match TriMesh::with_flags(
            data.positions.clone(),
            data.triangles.clone(),
            TriMeshFlags::ORIENTED,
        ) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("solid: {w}: parry rejects the mesh: {e:?}");
                continue;
            }
        };
        let t_parry_build = t.elapsed().as_secs_f64();
        println!(
            "<!-- {w}: raypick Mesh::new {:.0} ms, then its first signed distance {:.0} ms; parry3d TriMesh (oriented) {:.0} ms; 1 thread -->",
            t_build * 1e3,
            t_first * 1e3,
            t_parry_build * 1e3
        );
        let sorted: Vec<Point3<f32>> = raypick_bvh::morton_order(&pts)
            .iter()
            .map(|&i| pts[i as usize])
            .collect();
        // Warm up: builds all of raypick's solid structure (a vertex lies on the surface,
        // where even a closed mesh sums, so its expansions are built too) and touches both
        // trees.
        black_box(mesh.signed_distance(data.positions[0]));
        black_box(mesh.signed_distance(pts[0]));
        black_box(parry.project_local_point(&pts[0], false));

        let t = Instant::now();
        let ours: Vec<f32> = pts
            .iter()
            .map(|p| mesh.signed_distance(*p).map_or(f32::NAN, |s| s.distance))
            .collect();
        let t_ours = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let batch = one.install(|| mesh.signed_distances(&pts));
        let t_batch = t.elapsed().as_secs_f64();
        assert!(
            batch
                .iter()
                .zip(&ours)
                .all(|(b, o)| b.map_or(f32::NAN, |s| s.distance).to_bits() == o.to_bits()),
            "{w}: the batch answers as one query per point"
        );
        let parry_sd = |p: &Point3<f32>| {
            let proj = parry.project_local_point(p, false);
            let d = (proj.point - p).norm();
            if proj.is_inside {
                -d
            } else {
                d
            }
        };
        let t = Instant::now();
        let theirs: Vec<f32> = pts.iter().map(parry_sd).collect();
        let t_parry = t.elapsed().as_secs_f64();
        let t = Instant::now();
        black_box(sorted.iter().map(parry_sd).collect::<Vec<f32>>());
        let t_parry_sorted = t.elapsed().as_secs_f64();
        let diag = (data.bounds().max - data.bounds().min).norm();
        let (mut sign_diff, mut dist_diff) = (0, 0);
        for (a, b) in ours.iter().zip(&theirs) {
            if a.abs() > 1e-6 * diag && (*a < 0.0) != (*b < 0.0) {
                sign_diff += 1;
            }
            if (a.abs() - b.abs()).abs() > 1e-5 * a.abs().max(1e-6 * diag) {
                dist_diff += 1;
            }
        }
        println!(
            "| {w} | {} | signed_distance | {} | {} | {} | {:.2}x | {:.2}x | {sign_diff} (distances differing > 1e-5: {dist_diff}) | {} |",
            data.triangles.len(),
            rate(n, t_ours),
            rate(n, t_batch),
            rate(n, t_parry),
            t_parry / t_ours,
            t_parry / t_batch,
            rate(n, t_parry_sorted),
        );

        let t = Instant::now();
        let ours: Vec<bool> = pts.iter().map(|p| mesh.contains(*p)).collect();
        let t_ours = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let batch = one.install(|| mesh.contains_points(&pts));
        let t_batch = t.elapsed().as_secs_f64();
        assert_eq!(batch, ours, "{w}: the batch answers as one query per point");
        let t = Instant::now();
        let theirs: Vec<bool> = pts.iter().map(|p| parry.contains_local_point(p)).collect();
        let t_parry = t.elapsed().as_secs_f64();
        let t = Instant::now();
        black_box(
            sorted
                .iter()
                .map(|p| parry.contains_local_point(p))
                .collect::<Vec<bool>>(),
        );
        let t_parry_sorted = t.elapsed().as_secs_f64();
        let diff = ours.iter().zip(&theirs).filter(|(a, b)| a != b).count();
        println!(
            "| {w} | {} | contains | {} | {} | {} | {:.2}x | {:.2}x | {diff} | {} |",
            data.triangles.len(),
            rate(n, t_ours),
            rate(n, t_batch),
            rate(n, t_parry),
            t_parry / t_ours,
            t_parry / t_batch,
            rate(n, t_parry_sorted),
        );

        if grid_n > 0 {
            let grid = GridConfig::around(&mesh, grid_n, 0.1);
            let t = Instant::now();
            let sd = mesh.signed_distance_grid(&grid);
            let secs = t.elapsed().as_secs_f64();
            println!(
                "<!-- {w}: {grid_n}^3 signed-distance grid in {secs:.2} s on {} threads ({} inside) -->",
                rayon::current_num_threads(),
                sd.iter().filter(|d| **d < 0.0).count()
            );
        }
    }
    ExitCode::SUCCESS
}
