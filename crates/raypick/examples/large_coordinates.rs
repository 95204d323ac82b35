//! Picking a building placed in UTM coordinates (zone 32N, metres), where f32 can only
//! step by 0.5 m, through the f64 path: the mesh is re-centred when built, its offset goes
//! into the instance's f64 transform, and rays, hit points and query points stay f64.
//!
//! ```text
//! cargo run --release --example large_coordinates
//! ```

use nalgebra::{Matrix4, Point3, Vector3};
use raypick::primitives::{Ray, Ray64};
use raypick::query::scene::RecentredMesh;
use raypick::{Camera, ClipConvention, Mesh, Projection, Scene, SceneQuery, Viewport};

/// A 12 m x 8 m x 15 m block with its south-west corner at `corner`.
fn block(corner: Point3<f64>) -> (Vec<Point3<f64>>, Vec<[u32; 3]>) {
    let size = Vector3::new(12.0, 8.0, 15.0);
    let p = (0..8)
        .map(|i| {
            let f = Vector3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from(i >> 2));
            corner + f.component_mul(&size)
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

/// Runs the example (public so that `tests/examples.rs` can run it).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corner = Point3::new(691_650.25, 5_335_120.75, 520.0);
    let (positions, triangles) = block(corner);

    // The f64 path: re-centre, then place with the offset in the f64 transform.
    let rec = RecentredMesh::new(&positions, triangles.clone())?;
    println!("re-centred by {:?}", rec.offset);
    let mut scene = Scene::new();
    let mesh = scene.add_mesh(rec.mesh.clone());
    scene.add_instance_f64(mesh, &rec.placement(&Matrix4::identity()))?;
    scene.update();

    // A surveyor's ray from 30 m south of the wall, aimed 1.3 cm above its foot.
    let target = Point3::new(corner.x + 3.37, corner.y, corner.z + 0.013);
    let origin = target - Vector3::new(0.0, 30.0, 0.0);
    let ray = Ray64::new(origin, target - origin);
    let hit = scene
        .closest_hit_f64(&ray, &SceneQuery::default())
        .ok_or("the f64 ray missed")?;
    println!(
        "f64 path: t = {:.9}, point = ({:.4}, {:.4}, {:.4}), triangle {:?}",
        hit.t,
        hit.point.x,
        hit.point.y,
        hit.point.z,
        hit.hit.triangle()
    );
    let err64 = (hit.point - target).norm();
    assert!(err64 < 1e-4, "f64 path error {err64} m");

    // The naive f32 path: the same triangles rounded to f32 world coordinates.
    let world: Vec<_> = positions.iter().map(|p| p.cast::<f32>()).collect();
    let mut naive = Scene::new();
    let id = naive.add_mesh(Mesh::new(world, triangles)?);
    naive.add_instance(id, &Matrix4::identity())?;
    naive.update();
    let r32 = Ray::new(origin.cast(), (target - origin).cast());
    match naive.closest_hit(&r32, &SceneQuery::default()) {
        Some(h) => println!(
            "f32 path: point = ({:.4}, {:.4}, {:.4}), off by {:.3} m",
            h.point.x,
            h.point.y,
            h.point.z,
            (h.point.cast::<f64>() - target).norm()
        ),
        None => println!("f32 path: missed"),
    }

    // A point 4 cm in front of the wall: its signed distance through the f64 path, and
    // through the f32 one (the point rounded to f32 world coordinates first).
    let probe = Point3::new(corner.x + 3.37, corner.y - 0.04, corner.z + 1.0);
    let sd = scene
        .signed_distance_f64(probe)
        .ok_or("no signed distance")?;
    println!(
        "f64 path: signed distance {:.4} m, inside {}",
        sd.distance,
        scene.contains_f64(probe)
    );
    assert!((sd.distance - 0.04).abs() < 1e-4);
    let sd32 = scene
        .signed_distance(probe.cast())
        .ok_or("no signed distance")?;
    println!("f32 path: signed distance {:.4} m", sd32.distance);

    // A camera placed in the same coordinates picks through the same path.
    let eye = Point3::new(corner.x + 6.0, corner.y - 40.0, corner.z + 7.5);
    let look = Point3::new(corner.x + 6.0, corner.y, corner.z + 7.5);
    let view = nalgebra::Isometry3::look_at_rh(&eye, &look, &Vector3::z()).to_homogeneous();
    let projection = Projection::Perspective {
        fov_y: 0.8,
        aspect: 4.0 / 3.0,
        near: 0.1,
        far: 1000.0,
    }
    .matrix(ClipConvention::OPENGL)?;
    let camera = Camera::from_matrices_f64(&view, &projection, ClipConvention::OPENGL)?;
    let viewport = Viewport::new(640.0, 480.0);
    let pick = scene
        .pick_f64(&camera, &viewport, 320.0, 240.0, &SceneQuery::default())?
        .ok_or("the pick missed")?;
    println!(
        "pick at the centre: t = {:.6}, point = ({:.4}, {:.4}, {:.4})",
        pick.t, pick.point.x, pick.point.y, pick.point.z
    );
    assert!((pick.point - look).norm() < 1e-3);
    Ok(())
}
