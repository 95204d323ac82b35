//! The "allocates nothing" promises of the single-ray queries: `Mesh::closest_hit`,
//! `Mesh::any_hit`, `Scene::closest_hit` and `Scene::any_hit`, counted by a global
//! allocator, on the bunny and on a scene of mesh instances and a shape, with valid and
//! invalid rays.

mod mesh_util;

use mesh_util::{bunny, random_rays, spoil_rays};
use raypick_primitives::{Matrix4, Point3, Vector3};
use raypick_query::scene::{Scene, SceneQuery};
use raypick_query::RayQuery;

raypick_test_support::counting_allocator!();

#[test]
fn mesh_ray_queries_do_not_allocate() {
    let m = bunny();
    let mesh = m.mesh();
    let mut rays = random_rays(&m.bounds(), 2000, 5);
    spoil_rays(&mut rays, 97, Point3::origin());
    let q = RayQuery::default();
    // Warm-up: the SIMD path is chosen on the first query.
    let _ = mesh.closest_hit(&rays[0], &q);
    let (count, (hits, any)) = allocations(|| {
        let mut hits = 0;
        let mut any = 0;
        for r in &rays {
            hits += usize::from(mesh.closest_hit(r, &q).is_some());
            any += usize::from(mesh.any_hit(r, &q));
        }
        (hits, any)
    });
    assert_eq!(count, 0, "Mesh::closest_hit / any_hit allocated");
    assert!(hits > 100, "too few hits to prove anything: {hits}");
    assert_eq!(hits, any, "any_hit and closest_hit disagree");
}

#[test]
fn scene_ray_queries_do_not_allocate() {
    let m = bunny();
    let b = m.bounds();
    let mut scene = Scene::new();
    let id = scene.add_mesh(m.mesh());
    let size = b.half_extents().norm() * 3.0;
    for k in 0..4 {
        let shift = Vector3::new(size * k as f32, 0.0, 0.0);
        scene
            .add_instance(id, &Matrix4::new_translation(&shift))
            .unwrap();
    }
    scene.update();
    let mut rays = random_rays(&b, 2000, 9);
    spoil_rays(&mut rays, 89, Point3::origin());
    let q = SceneQuery::default();
    let _ = scene.closest_hit(&rays[0], &q);
    let (count, (hits, any)) = allocations(|| {
        let mut hits = 0;
        let mut any = 0;
        for r in &rays {
            hits += usize::from(scene.closest_hit(r, &q).is_some());
            any += usize::from(scene.any_hit(r, &q));
        }
        (hits, any)
    });
    assert_eq!(count, 0, "Scene::closest_hit / any_hit allocated");
    assert!(hits > 100, "too few hits to prove anything: {hits}");
    assert_eq!(hits, any, "any_hit and closest_hit disagree");
}
