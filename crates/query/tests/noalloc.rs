//! The "allocates nothing" promises of the single-ray queries: `Mesh::closest_hit`,
//! `Mesh::any_hit`, `Scene::closest_hit` and `Scene::any_hit`, counted by a global
//! allocator, on the bunny and on a scene of mesh instances and a shape, with valid and
//! invalid rays.

mod mesh_util;

use mesh_util::{bunny, random_rays, spoil_rays};
use raypick_primitives::{Matrix4, Point3, Ray, Vector3};
use raypick_query::scene::{Scene, SceneQuery};
use raypick_query::RayQuery;

raypick_test_support::counting_allocator!();

/// Runs `closest` and `any` on every ray under the counting allocator; asserts nothing was
/// allocated, that there were hits to prove it on, and that the two queries agree.
fn check_no_allocation(
    what: &str,
    rays: &[Ray],
    closest: impl Fn(&Ray) -> bool,
    any: impl Fn(&Ray) -> bool,
) {
    // Warm-up: the SIMD path is chosen on the first query.
    let _ = closest(&rays[0]);
    let (count, (hits, anys)) = allocations(|| {
        let (mut hits, mut anys) = (0, 0);
        for r in rays {
            hits += usize::from(closest(r));
            anys += usize::from(any(r));
        }
        (hits, anys)
    });
    assert_eq!(count, 0, "{what}: closest_hit / any_hit allocated");
    assert!(hits > 100, "{what}: too few hits to prove anything: {hits}");
    assert_eq!(hits, anys, "{what}: any_hit and closest_hit disagree");
}

#[test]
fn mesh_ray_queries_do_not_allocate() {
    let m = bunny();
    let mesh = m.mesh();
    let mut rays = random_rays(&m.bounds(), 2000, 5);
    spoil_rays(&mut rays, 97, Point3::origin());
    let q = RayQuery::default();
    check_no_allocation(
        "Mesh",
        &rays,
        |r| mesh.closest_hit(r, &q).is_some(),
        |r| mesh.any_hit(r, &q),
    );
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
    check_no_allocation(
        "Scene",
        &rays,
        |r| scene.closest_hit(r, &q).is_some(),
        |r| scene.any_hit(r, &q),
    );
}
