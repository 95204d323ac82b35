//! The query interval `[t_min, t_max]` is closed at a hit's reported `t`: a query bounded to
//! exactly that `t` (above, or on both sides) finds the hit again. The kernel's range test
//! and the box tests round differently from `t`; flat, axis-aligned parts (zero-thickness
//! boxes, whose entry is the hit) are where that shows, so the meshes here are made of them.

use nalgebra::Matrix4;
use rand::{Rng, SeedableRng};
use raypick_primitives::{Point3, Ray, Real, Vector3};
use raypick_query::scene::{Scene, SceneQuery};
use raypick_query::{Mesh, RayQuery};

/// Axis-aligned squares of random sizes in the three axis planes, at coordinates that are
/// not round numbers, each two triangles.
fn flat_parts(rng: &mut rand_pcg::Pcg64, n: usize) -> Mesh {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for _ in 0..n {
        let axis = rng.gen_range(0..3usize);
        let at: Real = rng.gen_range(-3.0..3.0);
        let (c0, c1): (Real, Real) = (rng.gen_range(-3.0..3.0), rng.gen_range(-3.0..3.0));
        let h: Real = rng.gen_range(0.05..1.5);
        let base = positions.len() as u32;
        for (du, dv) in [(-h, -h), (h, -h), (h, h), (-h, h)] {
            let mut p = [0.0; 3];
            p[axis] = at;
            p[(axis + 1) % 3] = c0 + du;
            p[(axis + 2) % 3] = c1 + dv;
            positions.push(Point3::from(p));
        }
        triangles.push([base, base + 1, base + 2]);
        triangles.push([base, base + 2, base + 3]);
    }
    Mesh::new(positions, triangles).expect("valid parts")
}

fn random_ray(rng: &mut rand_pcg::Pcg64) -> Ray {
    let o = Point3::new(
        rng.gen_range(-6.0..6.0),
        rng.gen_range(-6.0..6.0),
        rng.gen_range(-6.0..6.0),
    );
    let target = Point3::new(
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
    );
    Ray::new(o, target - o)
}

#[test]
fn mesh_queries_bounded_to_a_hits_t_find_it() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x1A7E);
    let mesh = flat_parts(&mut rng, 300);
    let (mut hits, mut checked) = (0, 0);
    let mut all = Vec::new();
    for _ in 0..20_000 {
        let ray = random_ray(&mut rng);
        let Some(h) = mesh.closest_hit(&ray, &RayQuery::default()) else {
            continue;
        };
        hits += 1;
        for q in [RayQuery::new(0.0, h.t), RayQuery::new(h.t, h.t)] {
            checked += 1;
            assert_eq!(
                mesh.closest_hit(&ray, &q),
                Some(h),
                "{ray:?} bounded by {q:?}"
            );
            assert!(mesh.any_hit(&ray, &q), "{ray:?} bounded by {q:?}");
            mesh.all_hits_into(&ray, &q, &mut all);
            assert!(all.iter().any(|a| a.t == h.t), "{ray:?} bounded by {q:?}");
        }
        // Batches take the same interval.
        let q = RayQuery::new(h.t, h.t);
        let mut out = [None];
        mesh.closest_hit_batch(&[ray], &q, &mut out).unwrap();
        assert_eq!(out[0], Some(h));
    }
    assert!(hits > 2_000, "the rays should hit: {hits}");
    assert!(checked > 4_000);
}

#[test]
fn scene_queries_bounded_to_a_hits_t_find_it() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5CE4);
    let mut scene = Scene::new();
    // Each object one flat square, placed by a translation that is not a round number, so
    // that the top-level boxes are flat too.
    for _ in 0..60 {
        let id = scene.add_mesh(flat_parts(&mut rng, 1));
        let shift = Vector3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        scene
            .add_instance(id, &Matrix4::new_translation(&shift))
            .unwrap();
    }
    scene.update();
    let mut hits = 0;
    for _ in 0..20_000 {
        let ray = random_ray(&mut rng);
        let Some(h) = scene.closest_hit(&ray, &SceneQuery::default()) else {
            continue;
        };
        hits += 1;
        for q in [SceneQuery::new(0.0, h.t), SceneQuery::new(h.t, h.t)] {
            assert_eq!(scene.closest_hit(&ray, &q), Some(h), "{ray:?} to {}", h.t);
            assert!(scene.any_hit(&ray, &q), "{ray:?} to {}", h.t);
        }
    }
    assert!(hits > 1_000, "the rays should hit: {hits}");
}
