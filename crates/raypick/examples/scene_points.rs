//! A scene holding a surface, a point cloud placed twice and a polyline: the mouse pick
//! that prefers a point within tolerance to the surface behind it, the points within a
//! radius of a ray, the nearest point or segment to a point, and a marquee.
//!
//! ```text
//! cargo run --release --example scene_points
//! ```

use std::sync::Arc;

use raypick::query::points::{PickKind, PointSet, SegmentSet};
use raypick::{
    Camera, ClipConvention, Matrix4, Mesh, PickOptions, Point3, Projection, Ray, Scene, SceneQuery,
    ScreenRect, SelectOptions, Vector3, Viewport,
};

/// Runs the example (public so that `tests/examples.rs` can run it).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A wall at z = -1 behind everything.
    let wall = Mesh::new(
        vec![
            Point3::new(-3.0, -3.0, -1.0),
            Point3::new(3.0, -3.0, -1.0),
            Point3::new(3.0, 3.0, -1.0),
            Point3::new(-3.0, 3.0, -1.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )?;
    // A 20 x 20 grid of points, 0.05 apart, shared by two instances.
    let grid: Vec<Point3<f32>> = (0..400)
        .map(|i| Point3::new((i % 20) as f32 * 0.05, (i / 20) as f32 * 0.05, 0.0))
        .collect();
    let cloud = Arc::new(PointSet::new(grid)?);
    // A polyline across the view.
    let path = Arc::new(SegmentSet::polyline(
        vec![
            Point3::new(-2.0, -1.5, 0.2),
            Point3::new(0.0, -1.2, 0.2),
            Point3::new(2.0, -1.6, 0.2),
        ],
        false,
    )?);

    let mut scene = Scene::new();
    let wall_mesh = scene.add_mesh(wall);
    scene.add_instance(wall_mesh, &Matrix4::identity())?;
    let left = scene.add_point_set(
        Arc::clone(&cloud),
        &Matrix4::new_translation(&Vector3::new(-1.5, 0.0, 0.0)),
    )?;
    let right = scene.add_point_set(
        cloud,
        &(Matrix4::new_translation(&Vector3::new(0.5, 0.0, 0.0))
            * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 1.0, 1.0))),
    )?;
    scene.set_prims_user_data(left, 1)?;
    scene.set_prims_user_data(right, 2)?;
    let line = scene.add_segment_set(path, &Matrix4::identity())?;
    scene.set_prims_user_data(line, 3)?;
    scene.update();

    let camera = Camera::look_at(
        Point3::new(0.0, 0.0, 5.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(45f32.to_radians(), 4.0 / 3.0, 0.1, 100.0),
        ClipConvention::OPENGL,
    )?;
    let viewport = Viewport::new(800.0, 600.0);

    // The cursor near a point of the right cloud: the point wins over the wall behind it.
    let pick = scene
        .pick(&camera, &viewport, 547.0, 229.0, &PickOptions::default())?
        .ok_or("expected a pick")?;
    let prim = pick.prim.ok_or("expected a point within 5 px")?;
    let p = prim.pick.point;
    println!(
        "pick: {:?} {} of set {} at ({:.3}, {:.3}, {:.3}), {:.2} px away; the wall behind at t = {:.3}",
        prim.pick.kind,
        prim.pick.index,
        prim.user_data,
        p.x,
        p.y,
        p.z,
        prim.pick.pixel_distance,
        pick.hit.map_or(f32::NAN, |h| h.t),
    );

    // Everything within 0.03 of a ray along x through the clouds' second row.
    let ray = Ray::new(Point3::new(-3.0, 0.05, 0.0), Vector3::new(1.0, 0.0, 0.0));
    let near = scene.prims_within_ray(&ray, 0.03, &SceneQuery::default());
    let first = near.first().ok_or("expected points near the ray")?;
    println!(
        "within 0.03 of the ray: {} points; the first is {} of set {} at t = {:.2}",
        near.len(),
        first.near.index,
        first.user_data,
        first.near.t
    );

    // The nearest point or segment to a point below the clouds: the polyline.
    let q = Point3::new(0.3, -1.0, 0.2);
    let nearest = scene
        .nearest_prim(q, f64::INFINITY, &SceneQuery::default())
        .ok_or("expected a nearest primitive")?;
    println!(
        "nearest to (0.3, -1.0, 0.2): {:?} {} of set {} at u = {:.3}, distance {:.4}",
        nearest.kind,
        nearest.nearest.index,
        nearest.user_data,
        nearest.nearest.u,
        nearest.nearest.distance
    );

    // A marquee over the left half of the window.
    let rect = ScreenRect::new([0.0, 0.0], [400.0, 600.0]);
    let selection = scene.select_rect(&camera, &viewport, &rect, &SelectOptions::new());
    for s in &selection.prims {
        let what = match s.kind {
            PickKind::Point => "points",
            PickKind::Segment => "segments",
        };
        println!(
            "marquee: set {}, {} {what}",
            scene.prims_user_data(s.id).unwrap_or(0),
            s.indices.len(),
        );
    }
    if prim.user_data != 2 || nearest.user_data != 3 || selection.prims.is_empty() {
        return Err("unexpected answers".into());
    }
    Ok(())
}
