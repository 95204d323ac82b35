//! Mesh against mesh side by side: raypick's `Mesh::intersects` and `Mesh::min_distance`
//! against parry3d's `query::intersection_test` and `query::distance` between two
//! `TriMesh`es, one thread each, back to back. Each workload's mesh is tested against a
//! copy of itself, rotated and moved along x by a share of the mesh's bounding diagonal
//! (0: the copies interpenetrate; 1.2: apart). Each cell is the best of up to 5 runs (fewer
//! when one run takes more than a second). The last columns are the answers: whether they
//! touch and how far apart they are, for each engine.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin pairs -- [--workloads bunny,soup_100k,cad] [--offsets 0,0.3,0.6,1.2]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use nalgebra::{Isometry3, Matrix4, Translation3, UnitQuaternion};
use parry3d::shape::TriMesh;
use raypick_benches::{parse_flags, parse_list, Workload};
use raypick_query::Mesh;

/// The best time of `f` in milliseconds, over up to 5 runs and about a second, and its last
/// answer.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..5 {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        if start.elapsed().as_secs_f64() > 1.0 {
            break;
        }
    }
    (best, out.expect("at least one run"))
}

fn main() -> ExitCode {
    let mut workloads = vec![Workload::Bunny, Workload::Soup100k, Workload::Cad];
    let mut offsets = vec![0.0f32, 0.3, 0.6, 1.2];
    let parsed = parse_flags(|flag, value| {
        match flag {
            "--workloads" => {
                workloads = parse_list(&value()?, &Workload::ALL, Workload::from_name)?
            }
            "--offsets" => {
                let v = value()?;
                offsets = v
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("--offsets {v}: {e}"))?;
            }
            other => return Err(format!("unknown option {other}")),
        }
        Ok(())
    });
    if let Err(e) = parsed {
        eprintln!("pairs: {e}");
        return ExitCode::from(2);
    }
    println!(
        "| mesh | triangles | offset | raypick intersects ms | parry3d intersection_test ms | ratio | raypick min_distance ms | parry3d distance ms | ratio | touch (raypick / parry3d) | distance (raypick / parry3d) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for w in workloads {
        let data = match w.mesh() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("pairs: {}: {e}", w.name());
                return ExitCode::FAILURE;
            }
        };
        let diag = data.bounds().extents().norm();
        let mesh = match Mesh::new(data.positions.clone(), data.triangles.clone()) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("pairs: {}: {e}", w.name());
                return ExitCode::FAILURE;
            }
        };
        let peer = match TriMesh::new(data.positions.clone(), data.triangles.clone()) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("pairs: {}: parry3d: {e}", w.name());
                return ExitCode::FAILURE;
            }
        };
        for &k in &offsets {
            let iso = Isometry3::from_parts(
                Translation3::new(k * diag, 0.1 * diag, 0.0),
                UnitQuaternion::from_euler_angles(0.4, 0.2, -0.3),
            );
            let (id, pose) = (Matrix4::identity(), iso.to_homogeneous());
            let here = Isometry3::identity();
            let (ri, rt) = best(|| mesh.intersects(&id, &mesh, &pose));
            let (pi, pt) =
                best(|| parry3d::query::intersection_test(&here, &peer, &iso, &peer).ok());
            let (rd, rdist) = best(|| mesh.min_distance(&id, &mesh, &pose, f32::INFINITY));
            let (pd, pdist) = best(|| parry3d::query::distance(&here, &peer, &iso, &peer).ok());
            let show = |t: Option<bool>| t.map_or("-".to_string(), |b| b.to_string());
            let dist = |d: Option<f32>| d.map_or("-".to_string(), |d| format!("{d:.6}"));
            println!(
                "| {} | {} | {k} | {ri:.3} | {pi:.3} | {:.2} | {rd:.3} | {pd:.3} | {:.2} | {} / {} | {} / {} |",
                w.name(),
                data.triangles.len(),
                pi / ri,
                pd / rd,
                rt,
                show(pt),
                dist(rdist.map(|d| d.distance)),
                dist(pdist),
            );
        }
    }
    ExitCode::SUCCESS
}
