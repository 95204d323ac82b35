//! Mesh against mesh (`intersects`, `intersecting_pairs`, `min_distance`) against brute
//! force over every pair of world triangles, under random affine poses (rotation,
//! translation, non-uniform scale, mirroring), touching and apart. `RAYPICK_LONG=1` runs
//! more poses.

mod mesh_util;

use mesh_util::*;
use nalgebra::{Matrix4, UnitQuaternion, Vector3};
use raypick_primitives::{triangle_triangle, triangle_triangle_distance, Triangle};
use raypick_query::Mesh;

fn world(m: &TestMesh, pose: &Matrix4<f32>) -> Vec<Triangle> {
    (0..m.triangles.len())
        .map(|i| {
            let t = m.tri(i).map(|p| pose.transform_point(&p));
            Triangle::new(t[0], t[1], t[2])
        })
        .collect()
}

fn random_pose(rng: &mut Rng, spread: f32) -> Matrix4<f32> {
    let axis = rng.unit();
    let rot =
        UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), rng.range(0.0, 6.3));
    let t = Vector3::new(
        rng.range(-spread, spread),
        rng.range(-spread, spread),
        rng.range(-spread, spread),
    );
    let mut s = Vector3::new(
        rng.range(0.5, 1.5),
        rng.range(0.5, 1.5),
        rng.range(0.5, 1.5),
    );
    if rng.f32() < 0.2 {
        s.x = -s.x;
    }
    Matrix4::new_translation(&t) * rot.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s)
}

fn check(
    ma: &TestMesh,
    a: &Mesh,
    mb: &TestMesh,
    b: &Mesh,
    pa: &Matrix4<f32>,
    pb: &Matrix4<f32>,
) -> (bool, f32) {
    let (wa, wb) = (world(ma, pa), world(mb, pb));
    let mut pairs = Vec::new();
    let mut best = f32::INFINITY;
    for (i, ta) in wa.iter().enumerate() {
        for (j, tb) in wb.iter().enumerate() {
            if triangle_triangle(ta, tb) {
                pairs.push((i as u32, j as u32));
            }
            best = best.min(triangle_triangle_distance(ta, tb).unwrap().distance);
        }
    }
    assert_eq!(a.intersects(pa, b, pb), !pairs.is_empty());
    assert_eq!(a.intersecting_pairs(pa, b, pb), pairs);
    let d = a.min_distance(pa, b, pb, f32::INFINITY).unwrap();
    assert_eq!(d.distance, best, "{} vs {}", ma.name, mb.name);
    let own =
        triangle_triangle_distance(&wa[d.triangle_a as usize], &wb[d.triangle_b as usize]).unwrap();
    assert_eq!(own.distance, d.distance);
    assert_eq!((own.point_a, own.point_b), (d.point_a, d.point_b));
    // A limit below the answer finds nothing; at the answer, the answer.
    if best > 0.0 {
        assert!(a.min_distance(pa, b, pb, best * 0.999).is_none());
    }
    assert_eq!(
        a.min_distance(pa, b, pb, best).map(|x| x.distance),
        Some(best)
    );
    (!pairs.is_empty(), best)
}

#[test]
fn against_brute_force_pairs() {
    let meshes = [
        icosphere(2),
        torus(16, 8, 1.0, 0.3),
        subdivided_box(3),
        soup(150, 0.3, 5),
    ];
    let built: Vec<Mesh> = meshes.iter().map(TestMesh::mesh).collect();
    let mut rng = Rng::new(42);
    let (mut touching, mut apart) = (0, 0);
    let poses = scale(4, 100);
    for i in 0..meshes.len() {
        for j in 0..meshes.len() {
            for k in 0..poses {
                let spread = if k % 2 == 0 { 1.0 } else { 3.5 };
                let (pa, pb) = (random_pose(&mut rng, spread), random_pose(&mut rng, spread));
                let (hit, _) = check(&meshes[i], &built[i], &meshes[j], &built[j], &pa, &pb);
                if hit {
                    touching += 1
                } else {
                    apart += 1
                }
            }
        }
    }
    println!("touching {touching}, apart {apart}");
    assert!(touching > 8 && apart > 8, "{touching} {apart}");
}

/// Meshes placed far apart, where the squared gaps between their boxes overflow f32 (from
/// about 2e19): the search still finds the nearest pair, not the first one it meets.
#[test]
fn far_apart_pairs() {
    let (ma, mb) = (icosphere(1), soup(40, 0.3, 9));
    let (a, b) = (ma.mesh(), mb.mesh());
    let mut rng = Rng::new(7);
    for far in [1e19f32, 3e20, 2e34] {
        for _ in 0..4 {
            let pa = random_pose(&mut rng, 1.0);
            let pb = Matrix4::new_translation(&Vector3::new(far, -0.5 * far, 0.25 * far))
                * random_pose(&mut rng, 1.0)
                * Matrix4::new_scaling(far * 1e-4);
            let (hit, best) = check(&ma, &a, &mb, &b, &pa, &pb);
            assert!(!hit && best > 0.5 * far, "{far}: {best}");
        }
    }
}

#[test]
fn bunny_against_sphere() {
    let bunny = bunny();
    let sphere = icosphere(2);
    let (a, b) = (bunny.mesh(), sphere.mesh());
    let bb = bunny.bounds();
    let c = nalgebra::center(&bb.min, &bb.max);
    let r = (bb.max - bb.min).norm() * 0.15;
    let id = Matrix4::identity();
    let n = scale(1, 12);
    let mut rng = Rng::new(3);
    for _ in 0..n {
        let off = rng.unit() * (bb.max - bb.min).norm() * rng.range(0.0, 0.8);
        let pose = Matrix4::new_translation(&(c.coords + off)) * Matrix4::new_scaling(r);
        check(&bunny, &a, &sphere, &b, &id, &pose);
    }
}

#[test]
fn empty_and_bad_poses() {
    let m = icosphere(1).mesh();
    let empty = Mesh::new(vec![], vec![]).unwrap();
    let id = Matrix4::identity();
    assert!(!m.intersects(&id, &empty, &id));
    assert!(m.intersecting_pairs(&empty_pose(), &m, &id).is_empty());
    assert!(m.min_distance(&id, &empty, &id, f32::INFINITY).is_none());
    assert!(!m.intersects(&empty_pose(), &m, &id));
    assert!(m.min_distance(&id, &m, &id, -1.0).is_none());
    assert!(m.min_distance(&id, &m, &id, f32::NAN).is_none());
    assert_eq!(m.min_distance(&id, &m, &id, 0.0).unwrap().distance, 0.0);
}

fn empty_pose() -> Matrix4<f32> {
    let mut p = Matrix4::identity();
    p[(0, 3)] = f32::NAN;
    p
}
