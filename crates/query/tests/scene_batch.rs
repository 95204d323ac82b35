//! Scene batches that hand their rays to a sole large mesh (see `Scene::closest_hit_batch`)
//! give exactly the single-ray answers: transformed instances, rays the top-level tree turns
//! away, invalid rays, bounded and culled queries, masks and filters, a stale top-level tree,
//! and scenes where the hand-over does not apply.

mod mesh_util;

use mesh_util::*;
use nalgebra::{Matrix4, Rotation3, Vector3};
use raypick_primitives::{Cull, Ray};
use raypick_query::scene::{InstanceId, Scene, SceneQuery};
use raypick_query::RayQuery;

/// Every batch answer of `scene` equals the single-ray answer, for each query; returns the
/// number of closest hits of each query.
fn check(scene: &Scene, rays: &[Ray], queries: &[SceneQuery<'_>], what: &str) -> Vec<usize> {
    let mut counts = Vec::new();
    for q in queries {
        let mut hits = 0;
        let mut out = vec![None; rays.len()];
        scene.closest_hit_batch(rays, q, &mut out).unwrap();
        let mut any = vec![false; rays.len()];
        scene.any_hit_batch(rays, q, &mut any).unwrap();
        for (i, r) in rays.iter().enumerate() {
            let one = scene.closest_hit(r, q);
            assert_eq!(out[i], one, "{what} {q:?}: ray {i} {r:?}");
            assert_eq!(any[i], scene.any_hit(r, q), "{what} {q:?}: ray {i} {r:?}");
            hits += usize::from(one.is_some());
        }
        counts.push(hits);
    }
    counts
}

#[test]
fn sole_large_mesh_batches_match_single_queries() {
    // 2 * 390^2 = 304,200 triangles: above the mesh batches' stream threshold (300,000).
    let tm = grid(390, 0.3);
    let mut scene = Scene::new();
    let big = tm.mesh();
    assert!(big.len() >= 300_000, "the hand-over needs a streamed mesh");
    let mesh = scene.add_mesh(big);
    let transform = Matrix4::new_translation(&Vector3::new(3.0, -1.0, 0.5))
        * Rotation3::from_euler_angles(0.3, -0.7, 1.1).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 0.5, 1.5));
    let id = scene.add_instance(mesh, &transform).unwrap();
    let world = scene.world_box(id).unwrap();
    // Wide rays: many miss the instance's world box, which the top-level tree turns away.
    let mut wide = world;
    wide.min -= world.extents();
    wide.max += world.extents();
    let mut rays = random_rays(&world, 1200, 31);
    rays.extend(camera_rays(&world, 1200, 32));
    rays.extend(inner_rays(&world, 400, 33));
    rays.extend(random_rays(&wide, 600, 34));
    spoil_rays(&mut rays, 89, world.center() + Vector3::new(0.0, 0.0, 5.0));
    let accept_data_0 = |_: InstanceId, data: u64| data == 0;
    let reject_all = |_: InstanceId, _: u64| false;
    let queries = [
        SceneQuery::default(),
        SceneQuery::new(-0.5, 2.0),
        SceneQuery::new(0.1, 1.5).with_cull(Cull::Back),
        SceneQuery::default().with_cull(Cull::Front),
        SceneQuery::new(1.0, 0.5),
        SceneQuery::default().with_filter(&accept_data_0),
        SceneQuery::default().with_filter(&reject_all),
        SceneQuery::default().with_mask(0),
    ];
    // Before the top-level update every object is tested (no box test), then through the
    // tree.
    assert!(scene.is_stale());
    let stale = check(&scene, &rays, &queries, "stale");
    scene.update();
    let fresh = check(&scene, &rays, &queries, "fresh");
    assert_eq!(stale, fresh);
    // The unbounded queries hit often but not always; the empty interval, the rejecting
    // filter and the zero mask never.
    for (k, &n) in fresh.iter().enumerate() {
        let expect = match k {
            0 | 3 | 5 => n > rays.len() / 10 && n < rays.len(),
            4 | 6 | 7 => n == 0,
            _ => n < rays.len(),
        };
        assert!(expect, "query {k}: {n} hits of {}", rays.len());
    }

    // A second object: every ray answered one at a time again, the same answers.
    let small = scene.add_mesh(grid(4, 0.1).mesh());
    scene
        .add_instance(small, &Matrix4::new_translation(&world.center().coords))
        .unwrap();
    scene.update();
    check(&scene, &rays, &queries[..2], "two objects");
}

/// A mesh placed under the identity (the instance whose maps the scene skips) answers
/// exactly as the mesh itself: the same `t`, triangle, barycentrics, point, normal and side,
/// alone in its scene and beside a second instance (where the top-level tree is traversed),
/// one ray at a time and in batches.
#[test]
fn identity_instances_answer_as_their_mesh() {
    let tm = grid(40, 0.3);
    let mesh = tm.mesh();
    let b = tm.bounds();
    let mut rays = random_rays(&b, 1500, 41);
    rays.extend(camera_rays(&b, 1500, 42));
    rays.extend(inner_rays(&b, 300, 43));
    spoil_rays(&mut rays, 47, b.center() + Vector3::new(0.0, 0.0, 2.0));
    let mut scene = Scene::new();
    let id = scene.add_mesh(tm.mesh());
    let only = scene.add_instance(id, &Matrix4::identity()).unwrap();
    scene.update();
    let mut pair = scene.clone();
    let far = Matrix4::new_translation(&Vector3::new(0.0, 0.0, 1e3));
    pair.add_instance(id, &far).unwrap();
    pair.update();
    let q = RayQuery::default();
    let mut hits = 0;
    for (name, s) in [("alone", &scene), ("beside another", &pair)] {
        let mut batch = vec![None; rays.len()];
        s.closest_hit_batch(&rays, &SceneQuery::default(), &mut batch)
            .unwrap();
        for (i, r) in rays.iter().enumerate() {
            let want = mesh.closest_hit(r, &q);
            let got = s.closest_hit(r, &SceneQuery::default());
            assert_eq!(batch[i], got, "{name}: ray {i}");
            match (want, got) {
                (None, None) => {}
                (Some(w), Some(g)) => {
                    assert_eq!(g.instance, only, "{name}: ray {i}");
                    assert_eq!(g.triangle(), Some(w.triangle), "{name}: ray {i}");
                    assert_eq!(g.barycentrics(), Some((w.u, w.v)), "{name}: ray {i}");
                    assert_eq!(
                        (g.t, g.point, g.normal, g.front_face),
                        (w.t, w.point, w.normal, w.front_face),
                        "{name}: ray {i}"
                    );
                    hits += 1;
                }
                (w, g) => panic!("{name}: ray {i}: mesh {w:?}, scene {g:?}"),
            }
        }
    }
    assert!(
        hits > rays.len() / 2,
        "{hits} hits of {} rays, twice",
        rays.len()
    );
}

/// A scene of one object skips the top-level box test (the object's own query rejects what
/// it would): its closest, any and all hits equal those of the same object in a scene where
/// a second, masked-out object makes the top-level tree traversed. A rotated and scaled mesh
/// instance and a ball, with bounded, culled and spoiled rays.
#[test]
fn one_object_scenes_answer_as_with_the_top_level_box_test() {
    use parry3d::shape::SharedShape;
    use raypick_primitives::Isometry3;
    let tm = grid(30, 0.3);
    let b = tm.bounds();
    let mut rays = random_rays(&b, 800, 61);
    rays.extend(camera_rays(&b, 800, 62));
    rays.extend(inner_rays(&b, 200, 63));
    spoil_rays(&mut rays, 67, b.center() + Vector3::new(0.0, 0.0, 2.0));
    let place = Matrix4::new_translation(&Vector3::new(0.1, -0.2, 0.05))
        * Rotation3::from_euler_angles(0.3, -0.2, 0.7).to_homogeneous()
        * Matrix4::new_scaling(1.3);
    let mut mesh = Scene::new();
    let id = mesh.add_mesh(tm.mesh());
    mesh.add_instance(id, &place).unwrap();
    let mut ball = Scene::new();
    let c = b.center();
    ball.add_shape(
        SharedShape::ball(0.3),
        &Isometry3::translation(c.x, c.y, c.z),
    )
    .unwrap();
    let queries = [
        SceneQuery::default(),
        SceneQuery::from(RayQuery::new(0.2, 1.5)),
        SceneQuery::from(RayQuery::default().with_cull(Cull::Back)),
    ];
    for (name, mut scene) in [("mesh", mesh), ("ball", ball)] {
        scene.update();
        let mut pair = scene.clone();
        let far = Isometry3::translation(1e3, 1e3, 1e3);
        let other = pair.add_shape(SharedShape::ball(0.1), &far).unwrap();
        pair.set_mask(other, 2).unwrap();
        pair.update();
        let mut hits = 0;
        for q in &queries {
            let q = q.with_mask(1);
            for (i, r) in rays.iter().enumerate() {
                let one = scene.closest_hit(r, &q);
                assert_eq!(one, pair.closest_hit(r, &q), "{name} {q:?}: ray {i}");
                assert_eq!(scene.any_hit(r, &q), pair.any_hit(r, &q), "{name}: ray {i}");
                assert_eq!(
                    scene.all_hits(r, &q),
                    pair.all_hits(r, &q),
                    "{name}: ray {i}"
                );
                hits += usize::from(one.is_some());
            }
        }
        assert!(hits > rays.len() / 4, "{name}: {hits} hits");
    }
}

/// A frame's rays row after row, as a flat batch over a scene of several objects (two
/// instances of the bunny, one mirrored, and a ball): the batch finds the rows and casts
/// them in tiles, and every answer is the single-ray one, for the default, bounded, culled
/// and masked queries, with invalid rays in the frame.
#[test]
fn frames_over_scenes_of_several_objects_match_single_queries() {
    use parry3d::shape::SharedShape;
    use raypick_primitives::{Isometry3, Point3};
    let tm = bunny();
    let b = tm.bounds();
    let mut scene = Scene::new();
    let id = scene.add_mesh(tm.mesh());
    scene.add_instance(id, &Matrix4::identity()).unwrap();
    let mirror = Matrix4::new_translation(&Vector3::new(b.extents().x * 0.7, 0.0, 0.0))
        * Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 1.0, 1.0));
    let second = scene.add_instance(id, &mirror).unwrap();
    scene.set_mask(second, 2).unwrap();
    let c = b.center();
    scene
        .add_shape(
            SharedShape::ball(b.half_extents().norm() * 0.2),
            &Isometry3::translation(c.x, c.y - b.extents().y * 0.4, c.z),
        )
        .unwrap();
    scene.update();
    let world = b.grow(&(c + b.extents()));
    let (w, h) = (90usize, 60usize);
    let r = world.half_extents().norm();
    let eye = world.center() + Vector3::new(0.3, 0.4, 1.0).normalize() * (3.0 * r);
    let fwd = (world.center() - eye).normalize();
    let right = fwd.cross(&Vector3::y()).normalize();
    let up = right.cross(&fwd);
    let mut rays: Vec<Ray> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| {
            let sx = (x as f32 + 0.5) / w as f32 - 0.5;
            let sy = (y as f32 + 0.5) / h as f32 - 0.5;
            Ray::new(eye, fwd + right * (0.5 * sx) + up * (0.5 * sy))
        })
        .collect();
    for y in (2..h).step_by(5) {
        rays[y * w + 7] = Ray::new(Point3::new(f32::NAN, 0.0, 0.0), fwd);
    }
    let found = raypick_query::image_rows::ray_row_width(&rays);
    assert_eq!(found, Some(w), "the frame's rows are found");
    let queries = [
        SceneQuery::default(),
        SceneQuery::from(RayQuery::new(2.5 * r, 3.2 * r)),
        SceneQuery::from(RayQuery::default().with_cull(Cull::Back)),
        SceneQuery::default().with_mask(1),
    ];
    let counts = check(&scene, &rays, &queries, "frame");
    assert!(
        counts[0] > rays.len() / 10 && counts[0] < rays.len(),
        "{counts:?}"
    );
    assert!(
        counts[3] < counts[0],
        "the mask hides the second bunny: {counts:?}"
    );
}
