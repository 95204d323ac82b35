//! Coherent rays: every pixel of the `pick` camera's frame, row by row (`frame`) and in 4 x 4
//! tiles (`tiles`, as the CLI's render casts them), and the `pick` set (random pixels of the
//! same camera), on one thread. Five forms, in turns each round (best of `--reps` rounds):
//! one ray at a time on the mesh (`Mesh::closest_hit`), the batch query
//! (`Mesh::closest_hit_batch`), one ray at a time through a scene holding the mesh once
//! (`Scene::closest_hit`: what the scene adds per ray), and the packet queries for coherent
//! batches (`Mesh::closest_hit_coherent`, `Scene::closest_hit_coherent`, the render's path).
//! Every answer is checked against the mesh's single-ray one.
//!
//! Then any hits, one ray at a time (`Mesh::any_hit`), batched (`Mesh::any_hit_batch`) and
//! in packets (`Mesh::any_hit_coherent`): the tiled frame (does the pixel see the mesh), and
//! `shadow`: from each pixel's hit, in tile order, towards a point light above and beside
//! the camera (`t` in `[1e-4, 1 - 1e-4]`, the light at `t = 1`).
//!
//! ```text
//! cargo run --release -p raypick-benches --bin coherent -- [--workloads bunny,sphere_1m] [--size 960,540] [--reps 3]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use raypick_benches::rays::frame_rays;
use raypick_benches::{parse_flags, parse_list, BenchRay, RaySet, Workload, RAYS_PER_SET};
use raypick_primitives::Ray;
use std::sync::Arc;

use nalgebra::Matrix4;
use raypick_query::scene::{Scene, SceneQuery};
use raypick_query::{Hit, Mesh, RayQuery};

struct Args {
    workloads: Vec<Workload>,
    size: (u32, u32),
    reps: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        workloads: Workload::ALL.to_vec(),
        size: (960, 540),
        reps: 3,
    };
    parse_flags(|flag, value| {
        match flag {
            "--workloads" => {
                a.workloads = parse_list(&value()?, &Workload::ALL, Workload::from_name)?;
            }
            "--size" => {
                let v = value()?;
                let (w, h) = v.split_once(',').ok_or("--size: W,H")?;
                a.size = (
                    w.parse().map_err(|e| format!("--size: {e}"))?,
                    h.parse().map_err(|e| format!("--size: {e}"))?,
                );
            }
            "--reps" => a.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            other => return Err(format!("unknown argument `{other}`")),
        }
        Ok(())
    })?;
    Ok(a)
}

/// Seconds `f` takes.
fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn row(mesh: &Mesh, scene: &Scene, name: &str, set: &str, rays: &[Ray], reps: usize) {
    let q = RayQuery::default();
    let sq = SceneQuery::default();
    let mut single: Vec<Option<Hit>> = vec![None; rays.len()];
    let mut batch: Vec<Option<Hit>> = vec![None; rays.len()];
    let mut in_scene = vec![None; rays.len()];
    let mut packets: Vec<Option<Hit>> = vec![None; rays.len()];
    let mut scene_packets = vec![None; rays.len()];
    // The five in turns, each round, so that a change of load hits them alike; the best
    // round of each.
    let mut best = [f64::INFINITY; 5];
    for _ in 0..reps.max(1) {
        let t = [
            seconds(|| {
                for (r, o) in rays.iter().zip(single.iter_mut()) {
                    *o = mesh.closest_hit(r, &q);
                }
            }),
            seconds(|| {
                mesh.closest_hit_batch(rays, &q, &mut batch)
                    .expect("lengths agree");
            }),
            seconds(|| {
                for (r, o) in rays.iter().zip(in_scene.iter_mut()) {
                    *o = scene.closest_hit(r, &sq);
                }
            }),
            seconds(|| {
                mesh.closest_hit_coherent(rays, &q, &mut packets)
                    .expect("lengths agree");
            }),
            seconds(|| {
                scene
                    .closest_hit_coherent(rays, &sq, &mut scene_packets)
                    .expect("lengths agree");
            }),
        ];
        for (b, t) in best.iter_mut().zip(t) {
            *b = b.min(t);
        }
    }
    let [one, many, through, packed, scene_packed] =
        best.map(|s| rays.len() as f64 / s.max(1e-9) / 1e6);
    let scene_differ = |hits: &[Option<raypick_query::scene::SceneHit>]| {
        single
            .iter()
            .zip(hits)
            .filter(|(a, b)| {
                a.map(|h| (h.t, h.triangle)) != b.map(|h| (h.t, h.triangle().unwrap_or(u32::MAX)))
            })
            .count()
    };
    let differ = single.iter().zip(&batch).filter(|(a, b)| a != b).count()
        + single.iter().zip(&packets).filter(|(a, b)| a != b).count()
        + scene_differ(&in_scene)
        + scene_differ(&scene_packets);
    let hits = single.iter().flatten().count();
    println!(
        "{name:<11} {set:<6} {:>7} rays {hits:>7} hits  Mrays/s: mesh {one:>6.3}  batch {many:>6.3} ({:.2})  scene {through:>6.3} ({:.2})  coherent {packed:>6.3} ({:.2})  scene coherent {scene_packed:>6.3} ({:.2})  differ {differ}",
        rays.len(),
        many / one,
        through / one,
        packed / one,
        scene_packed / through
    );
}

/// The any-hit row: one ray at a time, the batch, and the packets, in turns, best of
/// `reps` rounds; every answer checked against the single-ray one.
fn any_row(mesh: &Mesh, name: &str, set: &str, rays: &[Ray], q: &RayQuery, reps: usize) {
    let mut single = vec![false; rays.len()];
    let mut batch = vec![false; rays.len()];
    let mut packets = vec![false; rays.len()];
    let mut best = [f64::INFINITY; 3];
    for _ in 0..reps.max(1) {
        let t = [
            seconds(|| {
                for (r, o) in rays.iter().zip(single.iter_mut()) {
                    *o = mesh.any_hit(r, q);
                }
            }),
            seconds(|| {
                mesh.any_hit_batch(rays, q, &mut batch)
                    .expect("lengths agree");
            }),
            seconds(|| {
                mesh.any_hit_coherent(rays, q, &mut packets)
                    .expect("lengths agree");
            }),
        ];
        for (b, t) in best.iter_mut().zip(t) {
            *b = b.min(t);
        }
    }
    let [one, many, packed] = best.map(|s| rays.len() as f64 / s.max(1e-9) / 1e6);
    let differ = single.iter().zip(&batch).filter(|(a, b)| a != b).count()
        + single.iter().zip(&packets).filter(|(a, b)| a != b).count();
    let hits = single.iter().filter(|&&h| h).count();
    println!(
        "{name:<11} {set:<6} {:>7} rays {hits:>7} hits  any hit Mrays/s: mesh {one:>6.3}  batch {many:>6.3} ({:.2})  coherent {packed:>6.3} ({:.2})  differ {differ}",
        rays.len(),
        many / one,
        packed / one,
    );
}

/// Shadow rays: from the hit of each of `rays` that hits `mesh`, in their order, towards a
/// point light above and beside the camera, at `t = 1`.
fn shadow_rays(mesh: &Mesh, rays: &[Ray]) -> Vec<Ray> {
    let b = mesh.bounds();
    let light = b.center()
        + nalgebra::Vector3::new(-0.5, -0.8, 1.0).normalize() * (2.0 * b.extents().norm());
    rays.iter()
        .filter_map(|r| mesh.closest_hit(r, &RayQuery::default()))
        .map(|h| Ray::new(h.point, light - h.point))
        .collect()
}

/// The rays of a frame `width` pixels wide, given row by row, in 4 x 4 tiles (left to right,
/// top to bottom; each tile row by row), as the CLI's render casts them.
fn tile_order(frame: &[Ray], width: usize) -> Vec<Ray> {
    let height = frame.len() / width.max(1);
    let mut out = Vec::with_capacity(frame.len());
    for y0 in (0..height).step_by(4) {
        for x0 in (0..width).step_by(4) {
            for y in y0..(y0 + 4).min(height) {
                for x in x0..(x0 + 4).min(width) {
                    out.push(frame[y * width + x]);
                }
            }
        }
    }
    out
}

fn run(a: &Args) -> Result<(), String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .map_err(|e| e.to_string())?;
    for &w in &a.workloads {
        let data = w.mesh().map_err(|e| e.to_string())?;
        let mesh = Arc::new(
            Mesh::new(data.positions.clone(), data.triangles.clone()).map_err(|e| e.to_string())?,
        );
        let mut scene = Scene::new();
        let id = scene.add_shared_mesh(Arc::clone(&mesh));
        scene
            .add_instance(id, &Matrix4::identity())
            .map_err(|e| e.to_string())?;
        scene.update();
        let frame: Vec<Ray> = frame_rays(&data, a.size.0, a.size.1)
            .into_iter()
            .map(|r: BenchRay| r.ray)
            .collect();
        row(&mesh, &scene, w.name(), "frame", &frame, a.reps);
        let tiles = tile_order(&frame, a.size.0 as usize);
        row(&mesh, &scene, w.name(), "tiles", &tiles, a.reps);
        any_row(
            &mesh,
            w.name(),
            "tiles",
            &tiles,
            &RayQuery::default(),
            a.reps,
        );
        let shadows = shadow_rays(&mesh, &tiles);
        let lit = RayQuery::new(1e-4, 1.0 - 1e-4);
        any_row(&mesh, w.name(), "shadow", &shadows, &lit, a.reps);
        let pick: Vec<Ray> = RaySet::Pick
            .rays(w, &data, RAYS_PER_SET)
            .into_iter()
            .map(|r| r.ray)
            .collect();
        row(&mesh, &scene, w.name(), "pick", &pick, a.reps);
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_args().and_then(|a| run(&a)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coherent: {e}");
            ExitCode::FAILURE
        }
    }
}
