//! Picking while the scene changes: reader threads pick on `SharedScene` snapshots and check
//! every answer against a brute force over the snapshot they hold, while a writer moves, adds
//! and removes instances as fast as it can. No panic, no wrong answer, no deadlock.
//!
//! Geometry, translations and rays are on coarse binary grids, so moving a triangle into
//! world space and a ray into object space are exact: the brute force (the scalar watertight
//! kernel over every world triangle) and the scene's answer must agree bit for bit.
//!
//! The run lasts 2 s; `RAYPICK_LONG=1` makes it 60 s. `--nocapture` prints the counts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nalgebra::Matrix4;
use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Triangle, Vector3};
use raypick_query::scene::{InstanceId, MeshId, Scene, SceneQuery, SharedScene, Snapshot};
use raypick_query::Mesh;
use raypick_test_support::Rng;

/// A bumpy `k x k` grid with vertices on a grid of quarters.
fn bumpy(k: u32, seed: u32) -> Mesh {
    let mut positions = Vec::new();
    for j in 0..=k {
        for i in 0..=k {
            let z = ((i * 7 + j * 3 + seed) % 5) as f32 * 0.25 - 0.5;
            positions.push(Point3::new(i as f32 * 0.5 - 2.0, j as f32 * 0.5 - 2.0, z));
        }
    }
    let w = k + 1;
    let mut triangles = Vec::new();
    for j in 0..k {
        for i in 0..k {
            let p = j * w + i;
            triangles.push([p, p + 1, p + w + 1]);
            triangles.push([p, p + w + 1, p + w]);
        }
    }
    Mesh::new(positions, triangles).unwrap()
}

fn translation(rng: &mut Rng) -> Matrix4<f32> {
    let mut c = || rng.below(21) as f32 - 10.0;
    Matrix4::new_translation(&Vector3::new(c(), c(), c()))
}

/// A ray from a grid of eighths with a small integer direction (never zero).
fn ray(rng: &mut Rng) -> Ray {
    let mut o = || (rng.below(257) as f32 - 128.0) * 0.125;
    let origin = Point3::new(o(), o(), o());
    loop {
        let mut d = || rng.below(7) as f32 - 3.0;
        let dir = Vector3::new(d(), d(), d());
        if dir != Vector3::zeros() {
            return Ray::new(origin, dir);
        }
    }
}

/// The closest `t` over every triangle of every instance of `snap`, moved into world space
/// (exactly: integer translations of quarter-grid vertices), and the instances that reach it.
fn brute_force(snap: &Snapshot, ray: &Ray) -> (Option<f32>, Vec<InstanceId>) {
    let mut best: Option<f32> = None;
    let mut who = Vec::new();
    for id in snap.instances() {
        let (Some(mesh), Some(m)) = (snap.instance_mesh(id), snap.transform(id)) else {
            continue;
        };
        let t = Vector3::new(m[(0, 3)], m[(1, 3)], m[(2, 3)]);
        for [a, b, c] in snap.mesh(mesh).unwrap().leaf_triangles() {
            let tri = Triangle::new(a + t, b + t, c + t);
            let Some(h) = ray_triangle(ray, &tri, 0.0, f32::INFINITY, Cull::None) else {
                continue;
            };
            match best {
                Some(b) if h.t > b => {}
                Some(b) if h.t == b => who.push(id),
                _ => {
                    best = Some(h.t);
                    who = vec![id];
                }
            }
        }
    }
    (best, who)
}

#[test]
fn readers_pick_exactly_while_a_writer_edits() {
    let long = std::env::var_os("RAYPICK_LONG").is_some();
    let run_for = Duration::from_secs(if long { 60 } else { 2 });
    let mut scene = Scene::new();
    let meshes: Vec<MeshId> = (0..3)
        .map(|s| scene.add_mesh(bumpy(6 + 2 * s, s)))
        .collect();
    let mut rng = Rng::new(1);
    for k in 0..30 {
        scene
            .add_instance(meshes[k % 3], &translation(&mut rng))
            .unwrap();
    }
    let shared = Arc::new(SharedScene::new(scene));
    let stop = Arc::new(AtomicBool::new(false));
    let checked = Arc::new(AtomicU64::new(0));
    let hits = Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = (0..3u64)
        .map(|r| {
            let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
            let (checked, hits) = (Arc::clone(&checked), Arc::clone(&hits));
            std::thread::spawn(move || {
                let mut rng = Rng::new(100 + r);
                let mut last = 0;
                let q = SceneQuery::default();
                while !stop.load(Ordering::Relaxed) {
                    let snap = shared.snapshot();
                    assert!(snap.version() >= last, "snapshots go forward");
                    last = snap.version();
                    assert!(!snap.is_stale(), "a published snapshot is up to date");
                    for _ in 0..8 {
                        let ray = ray(&mut rng);
                        let (t, who) = brute_force(&snap, &ray);
                        let hit = snap.closest_hit(&ray, &q);
                        assert_eq!(hit.map(|h| h.t), t, "version {}: {ray:?}", snap.version());
                        if let Some(h) = hit {
                            assert!(who.contains(&h.instance), "{ray:?}: {h:?} not in {who:?}");
                            hits.fetch_add(1, Ordering::Relaxed);
                        }
                        assert_eq!(snap.any_hit(&ray, &q), t.is_some(), "{ray:?}");
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                }
                last
            })
        })
        .collect();
    let start = Instant::now();
    let mut edits = 0u64;
    let mut rng = Rng::new(2);
    while start.elapsed() < run_for {
        let op = rng.below(10);
        let (mesh, m, pick) = (meshes[rng.below(3)], translation(&mut rng), rng.below(1000));
        shared.edit(|s| {
            let live: Vec<InstanceId> = s.instances().collect();
            let victim = live.get(pick % live.len().max(1)).copied();
            match (op, victim) {
                (0..=5, Some(id)) => s.set_transform(id, &m).unwrap(),
                (6..=7, _) if live.len() < 60 => {
                    s.add_instance(mesh, &m).unwrap();
                }
                (_, Some(id)) if live.len() > 10 => s.remove(id).unwrap(),
                _ => {
                    s.add_instance(mesh, &m).unwrap();
                }
            }
        });
        edits += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().expect("a reader failed");
    }
    let checked = checked.load(Ordering::Relaxed);
    println!(
        "{checked} picks checked ({} hits) on snapshots while {edits} edits were published, in {:.1} s",
        hits.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
    assert_eq!(shared.snapshot().version(), edits);
    assert!(checked > 0 && edits > 0);
}

#[test]
fn a_panicking_edit_publishes_nothing() {
    let mut scene = Scene::new();
    let mesh = scene.add_mesh(bumpy(2, 0));
    let shared = SharedScene::new(scene);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        shared.edit(|s| {
            s.add_instance(mesh, &Matrix4::identity()).unwrap();
            panic!("the edit fails half way");
        })
    }));
    assert!(caught.is_err());
    let snap = shared.snapshot();
    assert_eq!((snap.version(), snap.len()), (0, 0));
    shared
        .edit(|s| s.add_instance(mesh, &Matrix4::identity()).map(|_| ()))
        .unwrap();
    assert_eq!(
        (shared.snapshot().version(), shared.snapshot().len()),
        (1, 1)
    );
    // A snapshot taken before an edit keeps its scene.
    assert_eq!(snap.len(), 0);
}
