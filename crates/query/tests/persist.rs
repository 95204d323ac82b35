//! Saved meshes and scenes: round trips answer bit for bit as before, and every corrupted,
//! truncated or hostile input is rejected (or, when the change keeps it valid, loads to a
//! tree that validates and answers like a fresh build of what it holds).

mod mesh_util;

use std::sync::Arc;

use mesh_util::{bipyramid, cad_cylinder, grid, noisy_grid, random_rays, soup, TestMesh};
use nalgebra::{Isometry3, Matrix4};
use raypick_bvh::BuildConfig;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::mesh::NodeLayout;
use raypick_query::persist::{saved_kind, LoadError, SavedKind, FORMAT_VERSION, MAGIC};
use raypick_query::points::{PointSet, SegmentSet};
use raypick_query::scene::{PrimId, SceneQuery, SharedShape};
use raypick_query::{Mesh, RayQuery, Scene};
use raypick_test_support::Rng;

fn meshes() -> Vec<TestMesh> {
    let degenerate = TestMesh {
        name: "degenerate".into(),
        positions: vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(2.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(9.0, 9.0, 9.0), // used by no triangle
        ],
        triangles: vec![[0, 1, 2], [0, 1, 3], [3, 3, 3]],
    };
    let one = TestMesh {
        name: "one".into(),
        positions: vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        ],
        triangles: vec![[0, 1, 2]],
    };
    let empty = TestMesh {
        name: "empty".into(),
        positions: vec![Point3::new(1.0, 2.0, 3.0)],
        triangles: vec![],
    };
    vec![
        empty,
        one,
        degenerate,
        soup(2, 0.3, 1),
        soup(300, 0.1, 2),
        grid(20, 0.3),
        noisy_grid(40, 3.0, 3),
        cad_cylinder(48, 1.0, 5.0),
        bipyramid(16),
    ]
}

/// Everything a ray query answers, for comparing two meshes bit for bit.
fn answers(mesh: &Mesh, rays: &[Ray]) -> Vec<String> {
    let q = RayQuery::default();
    rays.iter()
        .map(|r| {
            format!(
                "{:?} {:?} {:?} {:?}",
                mesh.closest_hit(r, &q),
                mesh.any_hit(r, &q),
                mesh.all_hits(r, &q),
                mesh.nearest_point(&r.origin, f32::INFINITY),
            )
        })
        .collect()
}

fn rays_for(m: &TestMesh, n: usize) -> Vec<Ray> {
    let b = if m.triangles.is_empty() {
        raypick_primitives::Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0))
    } else {
        m.bounds()
    };
    random_rays(&b, n, 7)
}

#[test]
fn meshes_round_trip_bit_for_bit_in_every_layout() {
    for m in meshes() {
        for layout in [NodeLayout::Auto, NodeLayout::Plain, NodeLayout::Compact] {
            for config in [BuildConfig::fast(), BuildConfig::balanced()] {
                let mut mesh =
                    Mesh::with_config(m.positions.clone(), m.triangles.clone(), &config).unwrap();
                mesh.set_node_layout(layout).unwrap();
                let bytes = mesh.to_bytes();
                assert_eq!(saved_kind(&bytes), Some(SavedKind::Mesh));
                let loaded = Mesh::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", m.name));
                assert_eq!(loaded.tree(), mesh.tree(), "{}", m.name);
                assert!(loaded.prim_indices().eq(mesh.prim_indices()));
                assert_eq!(loaded.leaf_vertex_indices(), mesh.leaf_vertex_indices());
                assert_eq!(loaded.vertex_count(), mesh.vertex_count());
                assert_eq!(loaded.node_layout(), mesh.node_layout());
                assert_eq!(loaded.to_bytes(), bytes, "{}: saving is stable", m.name);
                let rays = rays_for(&m, 200);
                assert_eq!(answers(&loaded, &rays), answers(&mesh, &rays), "{}", m.name);
            }
        }
    }
}

#[test]
fn a_loaded_mesh_keeps_its_requested_layout_and_updates() {
    let m = noisy_grid(30, 2.0, 5);
    let mut mesh = m.mesh();
    mesh.set_node_layout(NodeLayout::Compact).unwrap();
    let mut loaded = Mesh::from_bytes(&mesh.to_bytes()).unwrap();
    let moved: Vec<_> = m
        .positions
        .iter()
        .map(|p| p + Vector3::new(0.0, 0.0, 0.5))
        .collect();
    mesh.update_positions(&moved).unwrap();
    loaded.update_positions(&moved).unwrap();
    assert_eq!(loaded.node_layout(), NodeLayout::Compact);
    assert_eq!(loaded.tree(), mesh.tree());
    let rays = rays_for(&m, 200);
    assert_eq!(answers(&loaded, &rays), answers(&mesh, &rays));
}

/// Rewrites the header's checksum over the (changed) payload, so that the structural checks,
/// not the checksum, have to catch the change.
fn rechecksum(bytes: &mut [u8]) {
    let crc = crc32(&bytes[32..]);
    bytes[24..28].copy_from_slice(&crc.to_le_bytes());
}

/// CRC-32 (IEEE), bit by bit: the test's own, independent of the library's.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A loaded mesh that got through the checks must be sound: its tree validates and it
/// answers exactly as a fresh build over the triangles it holds.
fn check_sound(loaded: &Mesh, rays: &[Ray]) {
    loaded.tree().validate().expect("a loaded tree validates");
    let (positions, triangles) = loaded.vertices_and_triangles();
    let fresh = Mesh::new(positions, triangles).unwrap();
    let q = RayQuery::default();
    for r in rays {
        let (a, b) = (loaded.closest_hit(r, &q), fresh.closest_hit(r, &q));
        assert_eq!(a.map(|h| h.t), b.map(|h| h.t), "{r:?}");
        assert_eq!(
            loaded.all_hits(r, &q).len(),
            fresh.all_hits(r, &q).len(),
            "{r:?}"
        );
    }
}

#[test]
fn every_byte_change_and_truncation_is_caught() {
    for m in [soup(9, 0.3, 11), grid(4, 0.2)] {
        let mut mesh = m.mesh();
        for layout in [NodeLayout::Plain, NodeLayout::Compact] {
            mesh.set_node_layout(layout).unwrap();
            let bytes = mesh.to_bytes();
            let rays = rays_for(&m, 40);
            for len in 0..bytes.len() {
                assert!(
                    Mesh::from_bytes(&bytes[..len]).is_err(),
                    "truncated to {len}"
                );
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(matches!(
                Mesh::from_bytes(&longer),
                Err(LoadError::TrailingBytes { extra: 1 })
            ));
            let (mut rejected, mut sound) = (0, 0);
            for i in 0..bytes.len() {
                for flip in [0x01u8, 0x80, 0xff] {
                    let mut bad = bytes.clone();
                    bad[i] ^= flip;
                    // A single changed byte never gets past the header and checksum.
                    assert!(Mesh::from_bytes(&bad).is_err(), "byte {i} ^ {flip:#x}");
                    // With the checksum made to match, the structural checks must hold the
                    // line: an error, or a mesh that is sound.
                    if i >= 32 {
                        rechecksum(&mut bad);
                        match Mesh::from_bytes(&bad) {
                            Err(_) => rejected += 1,
                            Ok(loaded) => {
                                check_sound(&loaded, &rays);
                                sound += 1;
                            }
                        }
                    }
                }
            }
            // Vertex bits are mostly free to change (a moved vertex outside its leaf box is
            // caught, one inside it is a valid mesh): both outcomes must occur.
            assert!(
                rejected > 0 && sound > 0,
                "{rejected} rejected, {sound} sound"
            );
        }
    }
}

#[test]
fn errors_name_the_problem() {
    let mesh = grid(3, 0.0).mesh();
    let bytes = mesh.to_bytes();
    assert_eq!(
        Mesh::from_bytes(b"solid x\n").unwrap_err(),
        LoadError::BadMagic
    );
    assert_eq!(
        Scene::from_bytes(&bytes).unwrap_err().to_string(),
        "the file holds a mesh, not a scene"
    );
    let mut next = bytes.clone();
    next[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        Mesh::from_bytes(&next).unwrap_err(),
        LoadError::UnsupportedVersion {
            found: FORMAT_VERSION + 1
        }
    );
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 1;
    assert!(Mesh::from_bytes(&corrupt)
        .unwrap_err()
        .to_string()
        .contains("checksum"));
    // A vertex index out of range, behind a matching checksum: named by slot and corner.
    let mut bad = bytes.clone();
    let v = mesh.vertex_count();
    let first_index = 32 + 40 + 12 * v;
    bad[first_index..first_index + 4].copy_from_slice(&(v as u32).to_le_bytes());
    rechecksum(&mut bad);
    let e = Mesh::from_bytes(&bad).unwrap_err().to_string();
    assert!(
        e.contains("leaf slot 0, corner 0") && e.contains("out of range"),
        "{e}"
    );
    // A huge count is an error, not an allocation.
    let mut huge = bytes.clone();
    huge[32 + 16..32 + 24].copy_from_slice(&u64::MAX.to_le_bytes());
    rechecksum(&mut huge);
    assert!(matches!(
        Mesh::from_bytes(&huge),
        Err(LoadError::Truncated { .. })
    ));
    assert_eq!(MAGIC.len(), 8);
}

/// Random bytes behind a valid header and checksum never panic.
#[test]
fn random_payloads_never_panic() {
    let mut rng = Rng::new(99);
    let template = grid(3, 0.1).mesh().to_bytes();
    for case in 0..2000 {
        let len = rng.below(600);
        let mut bytes = template[..32].to_vec();
        // Keep the mesh header's counts small half of the time so that the node and index
        // checks are reached.
        for i in 0..len {
            bytes.push(if i < 40 && case % 2 == 0 {
                template.get(32 + i).copied().unwrap_or(0)
            } else {
                rng.next_u64() as u8
            });
        }
        bytes[16..24].copy_from_slice(&(len as u64).to_le_bytes());
        rechecksum(&mut bytes);
        let _ = Mesh::from_bytes(&bytes);
        let _ = Scene::from_bytes(&bytes);
    }
}

fn scene_fixture() -> (Scene, Vec<raypick_query::scene::InstanceId>) {
    let mut scene = Scene::new();
    let a = scene.add_mesh(noisy_grid(12, 2.0, 1).mesh());
    let b = scene.add_mesh(cad_cylinder(24, 0.5, 2.0).mesh());
    let mut ids = Vec::new();
    let stretch = Matrix4::new_translation(&Vector3::new(0.0, 0.0, -3.0))
        * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 1.0, 0.5));
    let mirror = Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 1.0, 1.0))
        * Matrix4::new_translation(&Vector3::new(1.0, 0.5, 0.0));
    ids.push(scene.add_instance(a, &stretch).unwrap());
    ids.push(scene.add_instance(a, &mirror).unwrap());
    ids.push(scene.add_instance(b, &Matrix4::identity()).unwrap());
    let gone = scene
        .add_instance(b, &Matrix4::new_translation(&Vector3::new(5.0, 0.0, 0.0)))
        .unwrap();
    let far = Matrix4::<f64>::new_translation(&nalgebra::Vector3::new(0.25, 0.5, 0.125));
    ids.push(scene.add_instance_f64(b, &far).unwrap());
    let pose = Isometry3::translation(0.0, 2.0, 0.0);
    ids.push(scene.add_shape(SharedShape::ball(0.5), &pose).unwrap());
    ids.push(
        scene
            .add_shape(
                SharedShape::cuboid(0.2, 0.3, 0.4),
                &Isometry3::translation(1.0, -1.0, 0.5),
            )
            .unwrap(),
    );
    ids.push(
        scene
            .add_shape(
                SharedShape::halfspace(Vector3::y_axis()),
                &Isometry3::translation(0.0, -4.0, 0.0),
            )
            .unwrap(),
    );
    scene.remove(gone).unwrap();
    for (k, &id) in ids.iter().enumerate() {
        scene.set_user_data(id, 1000 + k as u64).unwrap();
        scene.set_mask(id, 1 << (k % 3)).unwrap();
    }
    scene.update();
    (scene, ids)
}

#[test]
fn scenes_round_trip_with_their_ids_and_answers() {
    let (mut scene, ids) = scene_fixture();
    let bytes = scene.to_bytes().unwrap();
    assert_eq!(saved_kind(&bytes), Some(SavedKind::Scene));
    let mut loaded = Scene::from_bytes(&bytes).unwrap();
    assert!(!loaded.is_stale());
    assert_eq!(loaded.len(), scene.len());
    assert_eq!(loaded.to_bytes().unwrap(), bytes);
    for &id in &ids {
        assert_eq!(loaded.transform_f64(id), scene.transform_f64(id));
        assert_eq!(loaded.mask(id), scene.mask(id));
        assert_eq!(loaded.user_data(id), scene.user_data(id));
        assert_eq!(loaded.instance_mesh(id), scene.instance_mesh(id));
    }
    let box3 =
        raypick_primitives::Aabb::new(Point3::new(-3.0, -3.0, -4.0), Point3::new(3.0, 3.0, 3.0));
    let rays = random_rays(&box3, 400, 3);
    for mask in [u32::MAX, 1, 2] {
        let q = SceneQuery {
            mask,
            ..SceneQuery::default()
        };
        for r in &rays {
            assert_eq!(loaded.closest_hit(r, &q), scene.closest_hit(r, &q), "{r:?}");
            assert_eq!(loaded.all_hits(r, &q), scene.all_hits(r, &q), "{r:?}");
        }
    }
    // The free slot is reused the same way by both.
    let m = scene.instance_mesh(ids[0]).unwrap();
    let a = scene.add_instance(m, &Matrix4::identity()).unwrap();
    let b = loaded.add_instance(m, &Matrix4::identity()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn scenes_reject_broken_references_and_unsavable_shapes() {
    let (scene, _) = scene_fixture();
    let bytes = scene.to_bytes().unwrap();
    for len in (0..bytes.len()).step_by(7) {
        assert!(
            Scene::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    let mut with_hull = Scene::new();
    let hull = SharedShape::convex_hull(&[
        Point3::new(0.0, 0.0, 0.0),
        Point3::new(1.0, 0.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
        Point3::new(0.0, 0.0, 1.0),
    ])
    .unwrap();
    with_hull.add_shape(hull, &Isometry3::identity()).unwrap();
    let e = with_hull.to_bytes().unwrap_err().to_string();
    assert!(e.contains("cannot be saved"), "{e}");
    // Every payload byte changed behind a matching checksum: an error or a sound scene,
    // never a panic.
    for i in (32..bytes.len()).step_by(3) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x5a;
        rechecksum(&mut bad);
        if let Ok(s) = Scene::from_bytes(&bad) {
            let r = Ray::new(Point3::new(0.1, 5.0, 0.1), Vector3::new(0.0, -1.0, 0.0));
            let _ = s.closest_hit(&r, &SceneQuery::default());
        }
    }
}

/// The scene fixture with point and segment sets: one cloud placed twice (shared), a
/// polyline under a mirror, a removed set slot, masks and user data.
fn scene_with_sets() -> (Scene, Vec<PrimId>) {
    let (mut scene, _) = scene_fixture();
    let mut rng = Rng::new(21);
    let pts: Vec<Point3<f32>> = (0..500)
        .map(|_| {
            Point3::new(
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
                rng.range(-2.0, 2.0),
            )
        })
        .collect();
    let cloud = Arc::new(PointSet::new(pts.clone()).unwrap());
    let line = Arc::new(SegmentSet::polyline(pts[..60].to_vec(), true).unwrap());
    let stretch = Matrix4::new_nonuniform_scaling(&Vector3::new(1.5, 0.5, 1.0));
    let mirror = Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 1.0, 1.0))
        * Matrix4::new_translation(&Vector3::new(0.5, 0.0, 0.25));
    let mut ids = vec![
        scene
            .add_point_set(Arc::clone(&cloud), &Matrix4::identity())
            .unwrap(),
        scene.add_point_set(cloud, &stretch).unwrap(),
    ];
    let gone = scene.add_segment_set(Arc::clone(&line), &stretch).unwrap();
    ids.push(scene.add_segment_set(line, &mirror).unwrap());
    scene.remove_prims(gone).unwrap();
    for (k, &id) in ids.iter().enumerate() {
        scene.set_prims_user_data(id, 70 + k as u64).unwrap();
        scene.set_prims_mask(id, 1 << (k % 2)).unwrap();
    }
    (scene, ids)
}

#[test]
fn scenes_with_point_and_segment_sets_round_trip() {
    let (mut scene, ids) = scene_with_sets();
    let bytes = scene.to_bytes().unwrap();
    assert_eq!(
        &bytes[8..12],
        &2u32.to_le_bytes(),
        "sets need format version 2"
    );
    assert_eq!(
        &scene_fixture().0.to_bytes().unwrap()[8..12],
        &1u32.to_le_bytes()
    );
    let mut loaded = Scene::from_bytes(&bytes).unwrap();
    assert_eq!(
        loaded.to_bytes().unwrap(),
        bytes,
        "the shared cloud is saved once"
    );
    for &id in &ids {
        assert_eq!(loaded.prims(id).map(|p| p.1), scene.prims(id).map(|p| p.1));
        assert_eq!(loaded.prims_user_data(id), scene.prims_user_data(id));
    }
    let mut rng = Rng::new(22);
    for mask in [u32::MAX, 1, 2] {
        let q = SceneQuery::default().with_mask(mask);
        for _ in 0..100 {
            let p = Point3::new(
                rng.range(-4.0, 4.0),
                rng.range(-4.0, 4.0),
                rng.range(-3.0, 3.0),
            );
            assert_eq!(
                loaded.nearest_prim(p, f64::INFINITY, &q),
                scene.nearest_prim(p, f64::INFINITY, &q)
            );
            let d = Vector3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            let r = Ray::new(p, d);
            assert_eq!(
                loaded.prims_within_ray(&r, 0.2, &q),
                scene.prims_within_ray(&r, 0.2, &q)
            );
        }
    }
    // The removed slot is reused the same way by both.
    let again = Arc::new(PointSet::new(vec![Point3::origin()]).unwrap());
    let a = scene
        .add_point_set(Arc::clone(&again), &Matrix4::identity())
        .unwrap();
    let b = loaded.add_point_set(again, &Matrix4::identity()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn broken_point_and_segment_sets_are_rejected() {
    let (scene, _) = scene_with_sets();
    let bytes = scene.to_bytes().unwrap();
    for len in (0..bytes.len()).step_by(11) {
        assert!(
            Scene::from_bytes(&bytes[..len]).is_err(),
            "truncated to {len}"
        );
    }
    // Every byte of the sets' section changed behind a matching checksum: an error or a
    // sound scene, never a panic.
    let sets_start = scene_fixture().0.to_bytes().unwrap().len();
    let p = Point3::new(0.1, 0.2, 0.3);
    for i in (sets_start..bytes.len()).step_by(5) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x5a;
        rechecksum(&mut bad);
        if let Ok(s) = Scene::from_bytes(&bad) {
            let _ = s.nearest_prim(p, f64::INFINITY, &SceneQuery::default());
        }
    }
    // A NaN point and an out-of-range segment index are named.
    let nan_at = sets_start + 8 + 20; // the first set's first coordinate
    let mut bad = bytes.clone();
    bad[nan_at..nan_at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    rechecksum(&mut bad);
    let e = Scene::from_bytes(&bad).unwrap_err().to_string();
    assert!(
        e.contains("point or segment set 0") && e.contains("non-finite"),
        "{e}"
    );
    let mut future = bytes.clone();
    future[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert!(matches!(
        Scene::from_bytes(&future),
        Err(LoadError::UnsupportedVersion { found: 3 })
    ));
}
