//! Scene solid queries (winding number, contains, signed distance) against a float64 brute
//! force over every world triangle (mirrored instances' triangles reversed, so the oracle
//! sees the solid the instance places), and instance-against-instance queries against the
//! mesh forms.

mod mesh_util;

use mesh_util::*;
use nalgebra::{Matrix4, UnitQuaternion, Vector3};
use raypick_primitives::Point3;
use raypick_query::Scene;

fn oracle(world: &[[Point3<f32>; 3]], p: &Point3<f32>) -> (f64, f64) {
    let q = v64(p);
    let (mut w, mut d2) = (0.0, f64::INFINITY);
    for t in world {
        w += winding_term_64(q, t.map(|x| v64(&x)));
        d2 = d2.min(point_tri_dist2_f64(p, t));
    }
    (w, d2.sqrt())
}

/// A scene holding each mesh once, under its pose, updated.
fn scene_of(parts: &[(&TestMesh, Matrix4<f32>)]) -> Scene {
    let mut scene = Scene::new();
    for (m, pose) in parts {
        let id = scene.add_mesh(m.mesh());
        scene.add_instance(id, pose).unwrap();
    }
    scene.update();
    scene
}

/// The triangles of `m` under `pose`, reversed under a mirror: the solid the instance places.
fn placed(m: &TestMesh, pose: &Matrix4<f32>) -> Vec<[Point3<f32>; 3]> {
    let flip = pose.fixed_view::<3, 3>(0, 0).determinant() < 0.0;
    (0..m.triangles.len())
        .map(|i| {
            let mut t = m.tri(i).map(|p| pose.transform_point(&p));
            if flip {
                t.swap(1, 2);
            }
            t
        })
        .collect()
}

#[test]
fn scene_against_world_oracle() {
    let sphere = icosphere(2);
    let mut scene = Scene::new();
    let ms = scene.add_mesh(sphere.mesh());
    let poses = [
        Matrix4::new_translation(&Vector3::new(-2.0, 0.0, 0.0))
            * Matrix4::new_nonuniform_scaling(&Vector3::new(1.5, 0.7, 1.0)),
        // Mirrored and rotated.
        Matrix4::new_translation(&Vector3::new(2.0, 0.5, 0.0))
            * UnitQuaternion::from_euler_angles(0.3, 0.2, 1.1).to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 1.2, 0.8)),
    ];
    let mut world = Vec::new();
    let mut ids = Vec::new();
    for pose in &poses {
        ids.push(scene.add_instance(ms, pose).unwrap());
        world.extend(placed(&sphere, pose));
    }
    scene.update();
    let b =
        raypick_primitives::Aabb::new(Point3::new(-4.0, -2.0, -2.0), Point3::new(4.0, 2.0, 2.0));
    let mut rng = Rng::new(9);
    let pts: Vec<Point3<f32>> = (0..scale(400, 5000)).map(|_| rng.point_in(&b)).collect();
    let (batch_w, batch_c, batch_s) = (
        scene.winding_numbers(&pts),
        scene.contains_points(&pts),
        scene.signed_distances(&pts),
    );
    let mut inside = 0;
    for (i, p) in pts.iter().enumerate() {
        let (ow, od) = oracle(&world, p);
        let w = scene.winding_number(*p);
        assert!((f64::from(w) - ow).abs() <= 2e-3, "{p:?}: {w} against {ow}");
        let c = scene.contains(*p);
        assert_eq!(c, ow >= 0.5, "{p:?}");
        let s = scene.signed_distance(*p).unwrap();
        // Relative to at least 1e-2: nearer the surface the f32 placement's rounding (1e-7
        // at these coordinates) is what remains.
        let r = (f64::from(s.distance.abs()) - od).abs() / od.max(1e-2);
        assert!(r <= 1e-5, "{p:?}: {} against {od}", s.distance);
        assert_eq!(s.distance < 0.0, c);
        assert_eq!((batch_w[i], batch_c[i], batch_s[i]), (w, c, Some(s)));
        inside += usize::from(c);
    }
    assert!(inside > 20, "{inside}");
    assert!(Scene::new().signed_distance(Point3::origin()).is_none());
    assert!(!Scene::new().contains(Point3::origin()));

    // Instance against instance: the mesh form under the instances' transforms.
    let mesh = sphere.mesh();
    let (a, bb) = (ids[0], ids[1]);
    assert_eq!(
        scene.instances_intersect(a, bb),
        Some(mesh.intersects(&poses[0], &mesh, &poses[1]))
    );
    let d = scene.instance_distance(a, bb, f32::INFINITY).unwrap();
    assert_eq!(
        Some(d),
        mesh.min_distance(&poses[0], &mesh, &poses[1], f32::INFINITY)
    );
    assert!(d.distance > 0.0);
    assert_eq!(
        scene.intersecting_pairs(a, a).map(|v| v.is_empty()),
        Some(false)
    );
    scene.remove(bb).unwrap();
    assert_eq!(scene.instances_intersect(a, bb), None);
}

/// With open meshes in the scene, the side may be decided from the meshes' coarser sums:
/// it still matches the oracle's away from 0.5, and the signed distance's winding number
/// stays within the stated bounds of the exact sum (looser farther from 0.5).
#[test]
fn scene_with_open_meshes_against_world_oracle() {
    let mut half = icosphere(3);
    let all = half.clone();
    half.triangles.retain(|tri| {
        tri.iter()
            .map(|&k| all.positions[k as usize].z)
            .sum::<f32>()
            > 0.0
    });
    let wavy = grid(10, 0.2);
    let mut scene = Scene::new();
    let poses = [
        Matrix4::new_translation(&Vector3::new(-1.5, 0.0, 0.0)),
        Matrix4::new_translation(&Vector3::new(1.5, 0.0, 0.3))
            * Matrix4::new_nonuniform_scaling(&Vector3::new(1.0, -1.0, 1.0)),
    ];
    let mut world = Vec::new();
    for (m, pose) in [&half, &wavy].into_iter().zip(&poses) {
        let id = scene.add_mesh(m.mesh());
        scene.add_instance(id, pose).unwrap();
        world.extend(placed(m, pose));
    }
    scene.update();
    let b =
        raypick_primitives::Aabb::new(Point3::new(-3.0, -1.5, -1.5), Point3::new(3.0, 1.5, 1.5));
    let mut rng = Rng::new(21);
    let (mut checked, mut inside) = (0, 0);
    for _ in 0..scale(400, 4000) {
        let p = rng.point_in(&b);
        let (ow, _) = oracle(&world, &p);
        let c = scene.contains(p);
        let s = scene.signed_distance(p).unwrap();
        assert_eq!(s.distance < 0.0, c && s.distance != 0.0, "{p:?}");
        // A sum is kept at least `side_margin` of its summed stated errors from 0.5, so
        // those errors are under 0.3 of its distance from 0.5.
        let sw = f64::from(s.winding_number);
        assert!(
            (sw - ow).abs() <= (0.3 * (sw - 0.5).abs()).max(4e-2),
            "{p:?}: {sw} against {ow}"
        );
        if (ow - 0.5).abs() > 1e-2 {
            assert_eq!(c, ow >= 0.5, "{p:?}: winding {ow}");
            checked += 1;
            inside += usize::from(c);
        }
    }
    assert!(checked > 300 && inside > 10, "{checked} {inside}");
}

/// A scene holding one open mesh with a short rim, under the identity, takes the mesh's own
/// side decisions: the winding number its signed distance reports is the mesh's, bit for
/// bit, also where the mesh decided from the rim's coarse fraction (within 0.1 of 0.5, which
/// a scene that summed such points again in full would report differently).
#[test]
fn scene_keeps_a_single_meshs_side_decisions() {
    let sheet = grid(24, 0.2);
    let mesh = sheet.mesh();
    let scene = scene_of(&[(&sheet, Matrix4::identity())]);
    let b = mesh.bounds();
    let grow = Vector3::new(0.3, 0.3, 0.5);
    let b = raypick_primitives::Aabb::new(b.min - grow, b.max + grow);
    let mut rng = Rng::new(22);
    let mut near_half = 0;
    for _ in 0..scale(2_000, 20_000) {
        let p = rng.point_in(&b);
        let s = scene.signed_distance(p).unwrap();
        let m = mesh.signed_distance(p).unwrap();
        assert_eq!(s.distance < 0.0, m.distance < 0.0, "{p:?}");
        assert_eq!(
            s.winding_number.to_bits(),
            m.winding_number.to_bits(),
            "{p:?}: {} against {}",
            s.winding_number,
            m.winding_number
        );
        let w = f64::from(m.winding_number);
        near_half += usize::from((w - 0.5).abs() > 1.0 / 30.0 && (w - 0.5).abs() <= 0.1);
    }
    // Points the rim's coarse fraction may decide, which the scene keeps.
    assert!(near_half > 20, "{near_half}");
}

/// Open meshes without a short rim (soups) decide most sides by a mesh's first, cheapest
/// pass. A scene holding one keeps those decisions, bit for bit. A scene holding two asks
/// neither for its first pass (their stated errors would add up); what is checked there is
/// that its sides match the oracle away from 0.5, and its winding numbers the stated bounds.
#[test]
fn scene_side_decisions_on_soups() {
    let (a, b) = (soup(300, 0.4, 31), soup(300, 0.4, 32));
    let mesh = a.mesh();
    let one = scene_of(&[(&a, Matrix4::identity())]);
    let pose = Matrix4::new_translation(&Vector3::new(0.25, 0.0, 0.1));
    let two = scene_of(&[(&a, Matrix4::identity()), (&b, pose)]);
    let mut world = placed(&a, &Matrix4::identity());
    world.extend(placed(&b, &pose));
    let bb =
        raypick_primitives::Aabb::new(Point3::new(-0.3, -0.3, -0.3), Point3::new(1.5, 1.3, 1.4));
    let mut rng = Rng::new(23);
    let mut checked = 0;
    for _ in 0..scale(600, 6000) {
        let p = rng.point_in(&bb);
        let s = one.signed_distance(p).unwrap();
        let m = mesh.signed_distance(p).unwrap();
        assert_eq!(
            s.winding_number.to_bits(),
            m.winding_number.to_bits(),
            "{p:?}"
        );
        assert_eq!(one.contains(p), mesh.contains(p), "{p:?}");
        let (ow, _) = oracle(&world, &p);
        let s = two.signed_distance(p).unwrap();
        let sw = f64::from(s.winding_number);
        assert!(
            (sw - ow).abs() <= (0.3 * (sw - 0.5).abs()).max(4e-2),
            "{p:?}: {sw} against {ow}"
        );
        if (ow - 0.5).abs() > 0.05 {
            assert_eq!(two.contains(p), ow >= 0.5, "{p:?}: winding {ow}");
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}
