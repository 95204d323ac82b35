//! Nearest point and overlap queries against brute force over every triangle (the same
//! exact kernels, so the answers must be identical), nearest point against an independent
//! float64 oracle, and everything again after `update_positions`. `--nocapture` prints the
//! figures; `RAYPICK_LONG=1` runs more queries.

mod mesh_util;

use mesh_util::*;
use nalgebra::{Isometry3, Matrix4, UnitQuaternion};
use raypick_bvh::wide::WideChild;
use raypick_primitives::{
    frustum_triangle, point_triangle, triangle_aabb, triangle_obb, triangle_sphere, Aabb,
    Classification, DepthRange, Frustum, Obb, Point3, Sphere, Triangle, Vector3,
};
use raypick_query::mesh::NodeLayout;
use raypick_query::{FrustumSelection, Mesh, RayQuery};

fn triangle(m: &TestMesh, i: usize) -> Triangle {
    let [a, b, c] = m.tri(i);
    Triangle::new(a, b, c)
}

/// Brute-force nearest: the same kernel over every triangle, ties to the lowest index.
fn brute_nearest(m: &TestMesh, p: &Point3<f32>, max_d: f32) -> Option<(f32, usize)> {
    let mut best: Option<(f32, usize)> = None;
    for i in 0..m.triangles.len() {
        let d2 = point_triangle(p, &triangle(m, i)).unwrap().distance_squared;
        if d2 <= max_d * max_d && best.is_none_or(|(b, _)| d2 < b) {
            best = Some((d2, i));
        }
    }
    best
}

fn query_points(m: &TestMesh, n: usize, seed: u64) -> Vec<Point3<f32>> {
    let mut rng = Rng::new(seed);
    let b = m.bounds();
    let big = Aabb::new(b.min - b.extents() * 0.5, b.max + b.extents() * 0.5);
    (0..n)
        .map(|i| match i % 3 {
            0 => rng.point_in(&big),
            // Near the surface: a vertex plus a small offset.
            1 => m.positions[rng.below(m.positions.len())] + rng.unit() * (0.01 * rng.f32()),
            _ => b.center() + rng.unit() * (b.extents().norm() * (1.0 + 3.0 * rng.f32())),
        })
        .collect()
}

fn check_nearest(m: &TestMesh, mesh: &Mesh, n: usize, seed: u64) {
    let mut rng = Rng::new(seed ^ 77);
    let (mut found, mut mismatch, mut worst) = (0usize, 0usize, 0f64);
    let scale = f64::from(m.bounds().extents().norm());
    for p in query_points(m, n, seed) {
        let max_d = if rng.below(4) == 0 {
            rng.f32() * 0.2
        } else {
            f32::INFINITY
        };
        let got = mesh.nearest_point(&p, max_d);
        let want = brute_nearest(m, &p, max_d);
        match (got, want) {
            (None, None) => {}
            (Some(g), Some((d2, i))) => {
                found += 1;
                if g.triangle as usize != i || g.distance != d2.sqrt() {
                    mismatch += 1;
                    eprintln!(
                        "  nearest mismatch {}: {p:?} got {g:?} want {d2} tri {i}",
                        m.name
                    );
                }
                // The point is on its triangle at (u, v), at the reported distance.
                let q = triangle(m, i).point_at(g.u, g.v);
                assert!((q - g.point).norm() <= 1e-5 * (1.0 + q.coords.norm()));
                assert!(((p - g.point).norm() - g.distance).abs() <= 1e-5 * (1.0 + g.distance));
                // The independent f64 oracle.
                let oracle = (0..m.triangles.len())
                    .map(|k| point_tri_dist2_f64(&p, &m.tri(k)))
                    .fold(f64::INFINITY, f64::min)
                    .sqrt();
                let err = (f64::from(g.distance) - oracle).abs() / scale;
                worst = worst.max(err);
                assert!(
                    err <= 1e-6,
                    "{}: {p:?} distance {} oracle {oracle}",
                    m.name,
                    g.distance
                );
            }
            _ => {
                mismatch += 1;
                eprintln!(
                    "  nearest mismatch {}: {p:?} max {max_d} got {got:?} want {want:?}",
                    m.name
                );
            }
        }
    }
    eprintln!(
        "[mesh_queries] nearest {:<20} queries {n:>7}  found {found:>7}  mismatches {mismatch}  \
         max |d - f64 oracle| / size {worst:.1e}",
        m.name
    );
    assert_eq!(mismatch, 0);
}

fn random_obb(rng: &mut Rng, b: &Aabb) -> Obb {
    let q = UnitQuaternion::from_scaled_axis(rng.unit() * (3.0 * rng.f32()));
    let s = b.extents().norm();
    let he = Vector3::new(rng.f32(), rng.f32(), rng.f32()) * (0.2 * s);
    Obb::from_quaternion(rng.point_in(b), he, &q)
}

fn random_frustum(rng: &mut Rng, b: &Aabb) -> Frustum {
    let s = b.extents().norm();
    let eye = b.center() + rng.unit() * (s * (0.8 + rng.f32()));
    let target = rng.point_in(b);
    let view = Isometry3::look_at_rh(&eye, &target, &Vector3::z());
    // Narrow frusta are what a marquee rectangle makes.
    let fovy = 0.05 + 0.8 * rng.f32();
    let proj = Matrix4::new_perspective(0.5 + rng.f32(), fovy, 0.05 * s, 3.0 * s);
    Frustum::from_view_projection(&(proj * view.to_homogeneous()), DepthRange::NegOneToOne)
}

fn brute<F: Fn(&Triangle) -> bool>(m: &TestMesh, f: F) -> Vec<u32> {
    (0..m.triangles.len())
        .filter(|&i| f(&triangle(m, i)))
        .map(|i| i as u32)
        .collect()
}

fn check_overlaps(m: &TestMesh, mesh: &Mesh, n: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let b = m.bounds();
    let s = b.extents().norm();
    let (mut selected, mut queries) = (0usize, 0usize);
    let mut out = Vec::new();
    let mut sel = FrustumSelection::default();
    for _ in 0..n {
        // Box.
        let c = rng.point_in(&b);
        let h = Vector3::new(rng.f32(), rng.f32(), rng.f32()) * (0.15 * s);
        let aabb = Aabb::new(c - h, c + h);
        mesh.overlap_aabb_into(&aabb, &mut out);
        assert_eq!(
            out,
            brute(m, |t| triangle_aabb(t, &aabb)),
            "{} {aabb:?}",
            m.name
        );
        selected += out.len();
        // Sphere.
        let sphere = Sphere::new(rng.point_in(&b), rng.f32() * 0.2 * s);
        mesh.overlap_sphere_into(&sphere, &mut out);
        assert_eq!(
            out,
            brute(m, |t| triangle_sphere(t, &sphere)),
            "{} {sphere:?}",
            m.name
        );
        selected += out.len();
        // Oriented box.
        let obb = random_obb(&mut rng, &b);
        mesh.overlap_obb_into(&obb, &mut out);
        assert_eq!(
            out,
            brute(m, |t| triangle_obb(t, &obb)),
            "{} {obb:?}",
            m.name
        );
        selected += out.len();
        // Frustum.
        let f = random_frustum(&mut rng, &b);
        mesh.classify_frustum_into(&f, &mut sel);
        let class = |c| brute(m, |t| frustum_triangle(&f, t) == c);
        assert_eq!(sel.inside, class(Classification::Inside), "{}", m.name);
        assert_eq!(
            sel.intersecting,
            class(Classification::Intersecting),
            "{}",
            m.name
        );
        selected += sel.inside.len() + sel.intersecting.len();
        queries += 4;
    }
    eprintln!(
        "[mesh_queries] overlap {:<20} queries {queries:>7}  triangles selected {selected:>9}  \
         mismatches 0",
        m.name
    );
    assert!(selected > 0);
}

/// `m` with compact nodes.
fn compact(m: &TestMesh) -> Mesh {
    let mut mesh = m.mesh();
    mesh.set_node_layout(NodeLayout::Compact).unwrap();
    assert_eq!(mesh.node_layout(), NodeLayout::Compact);
    mesh
}

fn meshes() -> Vec<TestMesh> {
    vec![
        soup(2000, 0.05, 5),
        grid(30, 0.2),
        uv_sphere(30, 40, 0.15),
        bunny(),
    ]
}

#[test]
fn nearest_point_matches_brute_force() {
    for (k, m) in meshes().iter().enumerate() {
        check_nearest(m, &m.mesh(), scale(600, 50_000), 1000 + k as u64);
        check_nearest(m, &compact(m), scale(300, 50_000), 1500 + k as u64);
    }
}

#[test]
fn overlaps_match_brute_force() {
    for (k, m) in meshes().iter().enumerate() {
        check_overlaps(m, &m.mesh(), scale(60, 5_000), 2000 + k as u64);
        check_overlaps(m, &compact(m), scale(30, 5_000), 2500 + k as u64);
    }
}

#[test]
fn update_positions_then_oracle_again() {
    let m0 = uv_sphere(30, 40, 0.15);
    let mut mesh = m0.mesh();
    let before = mesh.memory_bytes();
    let mut rng = Rng::new(9);
    for round in 0..3 {
        // Move every vertex: a twist and a wobble, so that boxes really change.
        let a = 0.3 * (round + 1) as f32;
        let mut m = m0.clone();
        m.name = format!("uv_sphere moved {round}");
        for p in m.positions.iter_mut() {
            let (s, c) = (a * p.z).sin_cos();
            *p = Point3::new(c * p.x - s * p.y, s * p.x + c * p.y, p.z * 1.3) + rng.unit() * 0.02;
        }
        mesh.update_positions(&m.positions).unwrap();
        let boxes: Vec<Aabb> = (0..m.triangles.len())
            .map(|i| triangle(&m, i).aabb())
            .collect();
        // The refit tree is valid and tight: every leaf box is the union of its triangles'.
        let wide = mesh.tree();
        assert_eq!(wide.validate().unwrap().prim_count, m.triangles.len());
        let prims: Vec<u32> = mesh.prim_indices().collect();
        for node in wide.as_plain().unwrap().nodes() {
            for slot in 0..8 {
                if let WideChild::Leaf(r) = node.child(slot) {
                    let tight = prims[r]
                        .iter()
                        .fold(Aabb::EMPTY, |b, &t| b.union(&boxes[t as usize]));
                    assert_eq!(node.child_aabb(slot), tight, "round {round}");
                }
            }
        }
        // The refit mesh answers exactly like a fresh build over the moved vertices.
        let fresh = m.mesh();
        let q = RayQuery::default();
        let b = m.bounds();
        for ray in random_rays(&b, 500, 30 + round)
            .iter()
            .chain(&camera_rays(&b, 500, 40 + round))
        {
            assert_eq!(mesh.closest_hit(ray, &q), fresh.closest_hit(ray, &q));
            assert_eq!(mesh.all_hits(ray, &q), fresh.all_hits(ray, &q));
            // And the f64 oracle agrees on hit or miss away from edges.
            let o = oracle_closest(&m, ray, 0.0, f32::INFINITY);
            if o.ambiguous_before.is_infinite() {
                assert_eq!(mesh.closest_hit(ray, &q).is_some(), o.hit.is_some());
            }
        }
        check_nearest(&m, &mesh, 200, 50 + round);
        check_overlaps(&m, &mesh, 15, 60 + round);
        // The refit works in place: no buffer, no growth.
        assert_eq!(mesh.memory_bytes(), before);
    }
    // Rejected updates leave the mesh as it was.
    let snapshot = mesh.clone();
    let mut bad = m0.positions.clone();
    bad[17].y = f32::NAN;
    assert!(mesh.update_positions(&bad).is_err());
    assert!(mesh.update_positions(&bad[1..]).is_err());
    let ray = random_rays(&m0.bounds(), 1, 1)[0];
    assert_eq!(
        mesh.closest_hit(&ray, &RayQuery::default()),
        snapshot.closest_hit(&ray, &RayQuery::default())
    );
}

#[test]
fn update_positions_on_a_mesh_large_enough_for_the_parallel_path() {
    // 2 * 129^2 = 33,282 triangles: above the 32,768 from which the vertex fill and the refit
    // run with rayon.
    let m0 = grid(130, 0.2);
    assert!(m0.triangles.len() >= 32_768);
    let mut mesh = m0.mesh();
    let mut m = m0.clone();
    m.name = "grid 130 moved".into();
    let mut rng = Rng::new(77);
    for p in m.positions.iter_mut() {
        *p = Point3::new(p.x * 1.1, p.y + 0.3 * p.x.sin(), p.z * 2.0) + rng.unit() * 0.01;
    }
    // Zero-area triangles: a few vertices moved onto their neighbour.
    for v in [5, 777, 4_000, 12_345] {
        m.positions[v] = m.positions[v + 1];
    }
    mesh.update_positions(&m.positions).unwrap();
    for (orig, corners) in mesh.prim_indices().zip(mesh.leaf_triangles()) {
        assert_eq!(corners, m.tri(orig as usize));
    }
    let prims: Vec<u32> = mesh.prim_indices().collect();
    for node in mesh.tree().as_plain().unwrap().nodes() {
        for slot in 0..8 {
            if let WideChild::Leaf(r) = node.child(slot) {
                let tight = prims[r].iter().fold(Aabb::EMPTY, |b, &t| {
                    b.union(&triangle(&m, t as usize).aabb())
                });
                assert_eq!(node.child_aabb(slot), tight);
            }
        }
    }
    mesh.tree().validate().unwrap();
    // The same answers as a mesh built over the moved vertices (degenerate flags included).
    let fresh = m.mesh();
    let q = RayQuery::default();
    let b = m.bounds();
    for ray in random_rays(&b, 300, 80)
        .iter()
        .chain(&camera_rays(&b, 300, 81))
    {
        assert_eq!(mesh.closest_hit(ray, &q), fresh.closest_hit(ray, &q));
        assert_eq!(mesh.any_hit(ray, &q), fresh.any_hit(ray, &q));
    }
    check_nearest(&m, &mesh, 60, 82);
    check_overlaps(&m, &mesh, 5, 83);
}
