//! Picking a point in a cloud and a segment of a polyline under the mouse, with a tolerance
//! in pixels, a surface in front that occludes, x-ray selection that ignores it, and a
//! marquee over both.
//!
//! ```text
//! cargo run --release --example pick_points
//! ```

use raypick::query::points::{PickConfig, PointSet, SegmentSet};
use raypick::{
    Camera, ClipConvention, Mesh, Point3, Projection, ScreenRect, SelectMode, Vector3, Viewport,
};

/// Runs the example (public so that `tests/examples.rs` can run it).
pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 100 x 100 grid of points in the plane z = 0, 0.02 apart.
    let cloud: Vec<Point3<f32>> = (0..10_000)
        .map(|i| {
            Point3::new(
                (i % 100) as f32 * 0.02 - 1.0,
                (i / 100) as f32 * 0.02 - 1.0,
                0.0,
            )
        })
        .collect();
    let points = PointSet::new(cloud)?;
    // A closed square polyline around it, a little in front.
    let square =
        [(-1.1, -1.1), (1.1, -1.1), (1.1, 1.1), (-1.1, 1.1)].map(|(x, y)| Point3::new(x, y, 0.1));
    let lines = SegmentSet::polyline(square.to_vec(), true)?;
    // A small quad in front of the cloud's centre.
    let quad = Mesh::new(
        vec![
            Point3::new(-0.1, -0.1, 0.5),
            Point3::new(0.1, -0.1, 0.5),
            Point3::new(0.1, 0.1, 0.5),
            Point3::new(-0.1, 0.1, 0.5),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )?;

    let camera = Camera::look_at(
        Point3::new(0.0, 0.0, 4.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(45f32.to_radians(), 1.0, 0.1, 100.0),
        ClipConvention::OPENGL,
    )?;
    let viewport = Viewport::new(800.0, 800.0);
    let config = PickConfig::default(); // 5 px, occlusion on

    // A cursor over the cloud, away from the quad.
    let hit = points.pick(&camera, &viewport, 560.0, 300.0, &config, Some(&quad));
    let hit = hit.ok_or("expected a point under the cursor")?;
    println!(
        "point {} at ({:.3}, {:.3}, {:.3}), {:.2} px from the cursor, depth {:.3}",
        hit.index, hit.point.x, hit.point.y, hit.point.z, hit.pixel_distance, hit.depth
    );

    // Over the quad: the points behind it are occluded, unless x-ray selection is chosen.
    let hidden = points.pick(&camera, &viewport, 400.0, 400.0, &config, Some(&quad));
    let xray = points.pick(
        &camera,
        &viewport,
        400.0,
        400.0,
        &PickConfig::xray(5.0),
        Some(&quad),
    );
    println!(
        "behind the quad: {hidden:?}; x-ray: point {:?}",
        xray.map(|h| h.index)
    );
    if hidden.is_some() || xray.is_none() {
        return Err("occlusion did not behave".into());
    }

    // A segment of the square: its index, the parameter along it and the world point.
    let seg = lines
        .pick(&camera, &viewport, 430.0, 130.0, &config, Some(&quad))
        .ok_or("expected the square's edge")?;
    println!(
        "segment {} at u = {:.3}, point ({:.3}, {:.3}, {:.3}), {:.2} px away",
        seg.index, seg.u, seg.point.x, seg.point.y, seg.point.z, seg.pixel_distance
    );

    // A marquee over the cloud's centre: the points in it, then only those the quad leaves
    // visible; and the square's sides crossing a strip along its top.
    let rect = ScreenRect::new([350.0, 350.0], [450.0, 450.0]);
    let all = points.select_rect(&camera, &viewport, &rect, None);
    let visible = points.select_rect(&camera, &viewport, &rect, Some(&quad));
    let strip = ScreenRect::new([0.0, 100.0], [800.0, 140.0]);
    let sides = lines.select_rect(&camera, &viewport, &strip, SelectMode::Intersecting, None);
    println!(
        "marquee: {} points, {} of them visible; sides crossing the strip: {sides:?}",
        all.len(),
        visible.len()
    );
    if visible.len() >= all.len() || sides.is_empty() {
        return Err("marquee did not behave".into());
    }
    Ok(())
}
