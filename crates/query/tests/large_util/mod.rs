//! The scene of the large-coordinate tests: meshes in f64, instances under non-uniform
//! scales and mirrors, and the placements that move it far from the origin.

#![allow(dead_code)]

use nalgebra::{Matrix4, Point3, Rotation3, Unit, Vector3};
use raypick_query::scene::RecentredMesh;
use raypick_query::{Mesh, Scene};

pub type M4 = Matrix4<f64>;

pub fn sphere(n: u32, m: u32) -> (Vec<Point3<f64>>, Vec<[u32; 3]>) {
    let mut p = Vec::new();
    for i in 0..=m {
        let th = std::f64::consts::PI * f64::from(i) / f64::from(m);
        for j in 0..n {
            let ph = 2.0 * std::f64::consts::PI * f64::from(j) / f64::from(n);
            p.push(Point3::new(
                th.sin() * ph.cos(),
                th.sin() * ph.sin(),
                th.cos(),
            ));
        }
    }
    let mut t = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let a = i * n + j;
            let b = i * n + (j + 1) % n;
            let (c, d) = (a + n, b + n);
            t.push([a, c, b]);
            t.push([b, c, d]);
        }
    }
    (p, t)
}

pub fn cube() -> (Vec<Point3<f64>>, Vec<[u32; 3]>) {
    let p = (0..8)
        .map(|i| {
            Point3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from(i >> 2)) * 2.0
                - Vector3::repeat(1.0)
        })
        .collect();
    let t = vec![
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    (p, t)
}

pub fn terrain(n: u32) -> (Vec<Point3<f64>>, Vec<[u32; 3]>) {
    let mut p = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, y) = (
                f64::from(i) / f64::from(n) * 2.0 - 1.0,
                f64::from(j) / f64::from(n) * 2.0 - 1.0,
            );
            p.push(Point3::new(x, y, 0.1 * (5.0 * x).sin() * (4.0 * y).cos()));
        }
    }
    let mut t = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let a = i * (n + 1) + j;
            t.push([a, a + n + 1, a + 1]);
            t.push([a + 1, a + n + 1, a + n + 2]);
        }
    }
    (p, t)
}

pub type Geo = (Vec<Point3<f64>>, Vec<[u32; 3]>);

/// The meshes and the instances (mesh index, scene-frame placement): non-uniform scale and a
/// mirror among them.
pub fn scene_parts() -> (Vec<Geo>, Vec<(usize, M4)>) {
    let meshes = vec![sphere(24, 16), cube(), terrain(24)];
    let rot = |axis: Vector3<f64>, a: f64| {
        Rotation3::from_axis_angle(&Unit::new_normalize(axis), a).to_homogeneous()
    };
    let tr = |x: f64, y: f64, z: f64| M4::new_translation(&Vector3::new(x, y, z));
    let sc = |x: f64, y: f64, z: f64| M4::new_nonuniform_scaling(&Vector3::new(x, y, z));
    let inst = vec![
        (0, M4::identity()),
        (
            0,
            tr(6.0, 0.0, 1.0) * rot(Vector3::new(0.0, 1.0, 1.0), 0.4) * sc(3.0, 1.0, 0.5),
        ),
        (
            1,
            tr(-5.0, 2.0, 0.0) * rot(Vector3::new(1.0, 2.0, 0.5), 0.9) * sc(-1.0, 1.0, 1.0),
        ),
        (2, tr(0.0, 0.0, -3.0) * sc(10.0, 10.0, 1.0)),
        (
            1,
            tr(2.0, -6.0, 2.0) * rot(Vector3::new(0.3, -1.0, 0.2), 2.1) * sc(2.0, 0.7, 1.3),
        ),
        (0, tr(-3.0, -4.0, 3.0) * sc(-1.5, 1.5, 1.5)),
    ];
    (meshes, inst)
}

pub fn placements() -> Vec<(&'static str, M4)> {
    let c = Vector3::new(3.1e6, -2.4e6, 5.2e6);
    let far_rot = M4::new_translation(&c)
        * Rotation3::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 2.0, 3.0)), 0.7)
            .to_homogeneous()
        * M4::new_translation(&-c);
    vec![
        ("origin", M4::identity()),
        (
            "utm (5e6, 4e6, 300)",
            M4::new_translation(&Vector3::new(5e6, 4e6, 300.0)),
        ),
        (
            "ecef (4.2e6, 0.17e6, 4.78e6)",
            M4::new_translation(&Vector3::new(4.2e6, 0.17e6, 4.78e6)),
        ),
        ("rotated about a far axis", far_rot),
    ]
}

/// The scene through the f64 path: meshes re-centred from f64 positions, instances placed by
/// `place * instance`.
pub fn build_f64(place: &M4) -> Scene {
    let (meshes, inst) = scene_parts();
    let mut scene = Scene::new();
    let rec: Vec<_> = meshes
        .iter()
        .map(|(p, t)| RecentredMesh::new(p, t.clone()).unwrap())
        .collect();
    let ids: Vec<_> = rec.iter().map(|r| scene.add_mesh(r.mesh.clone())).collect();
    for (m, t) in &inst {
        scene
            .add_instance_f64(ids[*m], &rec[*m].placement(&(place * t)))
            .unwrap();
    }
    scene.update();
    scene
}

/// The naive f32 scene: each instance's triangles pre-transformed to f32 world coordinates.
pub fn build_naive(place: &M4) -> Scene {
    let (meshes, inst) = scene_parts();
    let mut scene = Scene::new();
    for (m, t) in &inst {
        let (p, tris) = &meshes[*m];
        let world = p
            .iter()
            .map(|v| (place * t).transform_point(v).cast::<f32>())
            .collect();
        let id = scene.add_mesh(Mesh::new(world, tris.clone()).unwrap());
        scene.add_instance(id, &Matrix4::identity()).unwrap();
    }
    scene.update();
    scene
}

/// Instance world sizes (diagonal of the origin placement's boxes).
pub fn sizes(scene: &Scene) -> Vec<f64> {
    scene
        .instances()
        .map(|id| {
            let b = scene.world_box(id).unwrap();
            f64::from((b.max - b.min).norm())
        })
        .collect()
}
