//! The cost of the f64 path: `Scene::closest_hit` (f32) against `Scene::closest_hit_f64` on
//! the same scene, one instance of each benchmark mesh, with the pick and random ray sets;
//! the f64 path both at the origin and placed at (5e6, 4e6, 300) (UTM-like, rays moved
//! with it). One thread, best of 5 passes over the rays; prints the time per ray and the
//! ratio f64 / f32. Then the batches (`closest_hit_batch` against `closest_hit_batch_f64`,
//! every ray to infinity, on rayon's pool) and their ratios.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin large_coordinates -- [--workloads bunny,terrain] [--rays N]
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use nalgebra::{Matrix4, Vector3};
use raypick_benches::{parse_list, RaySet, Workload};
use raypick_primitives::Ray64;
use raypick_query::{Mesh, Scene, SceneQuery};

fn best_of<F: FnMut() -> usize>(mut f: F) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut hits = 0;
    for _ in 0..5 {
        let t = Instant::now();
        hits = black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, hits)
}

fn main() -> ExitCode {
    let mut workloads = vec![Workload::Bunny];
    let mut n = 200_000;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--workloads", Some(v)) => match parse_list(v, &Workload::ALL, Workload::from_name) {
                Ok(w) => workloads = w,
                Err(e) => {
                    eprintln!("large_coordinates: {e}");
                    return ExitCode::from(2);
                }
            },
            ("--rays", Some(v)) => n = v.parse().unwrap_or(n),
            _ => {
                eprintln!("large_coordinates: unknown option {a}");
                return ExitCode::from(2);
            }
        }
    }
    let far = Vector3::new(5e6, 4e6, 300.0);
    for w in workloads {
        let data = match w.mesh() {
            Ok(d) => d,
            Err(e) => {
                eprintln!("large_coordinates: {}: {e}", w.name());
                return ExitCode::from(1);
            }
        };
        let mesh = match Mesh::new(data.positions.clone(), data.triangles.clone()) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("large_coordinates: {}: {e}", w.name());
                return ExitCode::from(1);
            }
        };
        let mut near = Scene::new();
        let id = near.add_mesh(mesh);
        let mut far_scene = near.clone();
        near.add_instance(id, &Matrix4::identity())
            .expect("identity");
        far_scene
            .add_instance_f64(id, &Matrix4::new_translation(&far))
            .expect("translation");
        near.update();
        far_scene.update();
        for set in RaySet::ALL {
            let rays = set.rays(w, &data, n);
            let rays64: Vec<(Ray64, f32)> =
                rays.iter().map(|r| (Ray64::from(r.ray), r.t_max)).collect();
            let rays_far: Vec<(Ray64, f32)> = rays64
                .iter()
                .map(|(r, t)| (Ray64::new(r.origin + far, r.dir), *t))
                .collect();
            let (t32, h32) = best_of(|| {
                rays.iter()
                    .filter(|r| {
                        near.closest_hit(&r.ray, &SceneQuery::new(0.0, r.t_max))
                            .is_some()
                    })
                    .count()
            });
            let run64 = |scene: &Scene, rays: &[(Ray64, f32)]| {
                best_of(|| {
                    rays.iter()
                        .filter(|(r, t)| {
                            scene
                                .closest_hit_f64(r, &SceneQuery::new(0.0, *t))
                                .is_some()
                        })
                        .count()
                })
            };
            let (t64, h64) = run64(&near, &rays64);
            let (tfar, hfar) = run64(&far_scene, &rays_far);
            let q = SceneQuery::default();
            let plain: Vec<_> = rays.iter().map(|r| r.ray).collect();
            let (b32, _) = best_of(|| {
                let mut out = vec![None; plain.len()];
                near.closest_hit_batch(&plain, &q, &mut out)
                    .expect("lengths");
                out.iter().filter(|h| h.is_some()).count()
            });
            let batch64 = |scene: &Scene, rays: &[(Ray64, f32)]| {
                let rays: Vec<Ray64> = rays.iter().map(|(r, _)| *r).collect();
                best_of(|| {
                    let mut out = vec![None; rays.len()];
                    scene
                        .closest_hit_batch_f64(&rays, &q, &mut out)
                        .expect("lengths");
                    out.iter().filter(|h| h.is_some()).count()
                })
            };
            let (b64, _) = batch64(&near, &rays64);
            let (bfar, _) = batch64(&far_scene, &rays_far);
            let ns = |t: f64| t / rays.len() as f64 * 1e9;
            println!(
                "{{\"workload\":\"{}\",\"rays\":\"{}\",\"n\":{},\"f32_ns\":{:.1},\"f64_ns\":{:.1},\"f64_far_ns\":{:.1},\"ratio\":{:.3},\"ratio_far\":{:.3},\"batch_ratio\":{:.3},\"batch_ratio_far\":{:.3},\"hits\":[{h32},{h64},{hfar}]}}",
                w.name(),
                set.name(),
                rays.len(),
                ns(t32),
                ns(t64),
                ns(tfar),
                t64 / t32,
                tfar / t32,
                b64 / b32,
                bfar / b32,
            );
        }
    }
    ExitCode::SUCCESS
}
