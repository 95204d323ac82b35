//! Pre-split meshes (`BuildConfig::presplit`: a sliver fills several leaf slots) answer every
//! query exactly as the same mesh built without splitting: rays (closest, any, all hits, also
//! through shared edges and vertices), inside and outside, distances, selections, mesh
//! pairs, after a save and load and after moving the vertices.

mod mesh_util;

use mesh_util::{cad_cylinder, camera_rays, preset, random_rays, Rng, TestMesh};
use nalgebra::Rotation3;
use raypick_bvh::BuildConfig;
use raypick_primitives::{Aabb, Matrix4, Point3, Ray, Vector3};
use raypick_query::{Mesh, RayQuery};

/// A closed cylinder with fan caps, turned so that its fans' slivers lie across the axes.
fn turned_cylinder(segments: usize) -> TestMesh {
    let mut m = cad_cylinder(segments, 1.0, 6.0);
    let r = Rotation3::from_euler_angles(0.7, 0.4, 0.9);
    for p in &mut m.positions {
        *p = r * *p;
    }
    m
}

fn build(m: &TestMesh, presplit: f32) -> Mesh {
    let config = BuildConfig {
        presplit,
        ..preset()
    };
    Mesh::with_config(m.positions.clone(), m.triangles.clone(), &config).unwrap()
}

/// Rays at every vertex and at points along every edge of `m`, from random origins.
fn feature_rays(m: &TestMesh, seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    let b = m.bounds();
    let mut out = Vec::new();
    for t in &m.triangles {
        for i in 0..3 {
            let (p, q) = (
                m.positions[t[i] as usize],
                m.positions[t[(i + 1) % 3] as usize],
            );
            for target in [p, p + (q - p) * 0.5, p + (q - p) * 0.25] {
                let o = Point3::new(
                    rng.range(b.min.x - 3.0, b.max.x + 3.0),
                    rng.range(b.min.y - 3.0, b.max.y + 3.0),
                    rng.range(b.min.z - 3.0, b.max.z + 3.0),
                );
                out.push(Ray::new(o, target - o));
            }
        }
    }
    out
}

fn points(b: &Aabb, n: usize, seed: u64) -> Vec<Point3<f32>> {
    let mut rng = Rng::new(seed);
    let (lo, hi) = (b.min - b.extents() * 0.2, b.max + b.extents() * 0.2);
    (0..n)
        .map(|_| {
            Point3::new(
                rng.range(lo.x, hi.x),
                rng.range(lo.y, hi.y),
                rng.range(lo.z, hi.z),
            )
        })
        .collect()
}

fn same_answers(split: &Mesh, plain: &Mesh, m: &TestMesh, seed: u64, pairs: bool) {
    assert_eq!(split.len(), m.triangles.len());
    assert_eq!(split.vertices_and_triangles().1, m.triangles);
    split.tree().validate().unwrap();
    let b = m.bounds();
    let q = RayQuery::default();
    let mut rays = random_rays(&b, 600, seed);
    rays.extend(camera_rays(&b, 600, seed + 1));
    rays.extend(feature_rays(m, seed + 2));
    for r in &rays {
        assert_eq!(split.closest_hit(r, &q), plain.closest_hit(r, &q), "{r:?}");
        assert_eq!(split.any_hit(r, &q), plain.any_hit(r, &q), "{r:?}");
        assert_eq!(split.all_hits(r, &q), plain.all_hits(r, &q), "{r:?}");
    }
    for p in points(&b, 400, seed + 3) {
        assert_eq!(split.contains(p), plain.contains(p), "{p:?}");
        let (s, t) = (
            split.signed_distance(p).unwrap(),
            plain.signed_distance(p).unwrap(),
        );
        assert_eq!(s.distance, t.distance, "{p:?}");
        assert_eq!(s.distance < 0.0, t.distance < 0.0, "{p:?}");
        let (ws, wt) = (split.winding_number(p), plain.winding_number(p));
        assert!((ws - wt).abs() < 1e-3, "{p:?}: {ws} against {wt}");
        let (ns, nt) = (
            split.nearest_point(&p, f32::INFINITY).unwrap(),
            plain.nearest_point(&p, f32::INFINITY).unwrap(),
        );
        assert_eq!(ns.distance, nt.distance, "{p:?}");
        let bx = Aabb::new(p, p + Vector3::new(0.8, 0.5, 1.1));
        assert_eq!(split.overlap_aabb(&bx), plain.overlap_aabb(&bx), "{bx:?}");
    }
    if !pairs {
        return;
    }
    let id = Matrix4::identity();
    for k in 0..3 {
        let shift = Vector3::new(0.7 * k as f32 + 1.0, 1.5, 0.5);
        let pose = Matrix4::new_translation(&shift) * Matrix4::from(Rotation3::new(shift * 0.3));
        assert_eq!(
            split.intersecting_pairs(&id, split, &pose),
            plain.intersecting_pairs(&id, plain, &pose)
        );
        let (ds, dt) = (
            split.min_distance(&id, split, &pose, f32::INFINITY),
            plain.min_distance(&id, plain, &pose, f32::INFINITY),
        );
        assert_eq!(ds.map(|d| d.distance), dt.map(|d| d.distance));
    }
}

#[test]
fn split_meshes_answer_as_unsplit_ones() {
    for (segments, presplit) in [(48, 0.5), (96, 0.3), (160, 0.2)] {
        let m = turned_cylinder(segments);
        let plain = build(&m, 0.0);
        assert!(!plain.has_split_triangles());
        let split = build(&m, presplit);
        assert!(
            split.has_split_triangles(),
            "{segments} segments, presplit {presplit}: nothing was split"
        );
        assert!(split.prim_indices().len() > m.triangles.len());
        same_answers(&split, &plain, &m, segments as u64, true);

        // Saved and loaded: the same answers, the same bytes again.
        let bytes = split.to_bytes();
        let loaded = Mesh::from_bytes(&bytes).unwrap();
        assert!(loaded.has_split_triangles());
        assert_eq!(loaded.to_bytes(), bytes);
        same_answers(&loaded, &plain, &m, 7, true);

        // The same positions again: each slot boxes the same piece of its triangle, so the
        // refit gives back the built tree, also from a loaded mesh (whose slots' pieces are
        // found again from their leaf boxes).
        for mesh in [&split, &loaded] {
            let mut again = mesh.clone();
            again.update_positions(&m.positions).unwrap();
            assert_eq!(again.tree(), split.tree());
        }

        // Moved: each slot boxes its piece of the moved triangle, the same answers.
        let mut moved = m.clone();
        for p in &mut moved.positions {
            *p = Point3::new(p.x * 1.1 + 0.2, p.y * 0.9, p.z + 0.05 * p.x);
        }
        let (mut split, mut plain) = (split, plain);
        split.update_positions(&moved.positions).unwrap();
        plain.update_positions(&moved.positions).unwrap();
        same_answers(&split, &plain, &moved, 11, true);
    }
}
