//! Mouse picking in a loaded scene: the surface under a pixel, a snap to the nearest vertex
//! and edge within a few pixels, and a marquee selection of what is visible in a rectangle.
//!
//! ```text
//! cargo run --release --example pick [FILE]
//! ```

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run(std::env::args().nth(1).as_deref())
}

/// Runs the example on `file`, the bundled bunny by default (`tests/examples.rs` runs it).
pub fn run(file: Option<&str>) -> Result<(), Error> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let path = file.unwrap_or(bunny);
    let loaded = load_scene(path)?;
    let scene = &loaded.scene;

    // A camera in front of the scene's box, looking at its centre, and an 800x600 window.
    let b = scene.bounds();
    let eye = b.center() + Vector3::new(0.0, 0.0, 2.5 * b.extents().norm());
    let viewport = Viewport::new(800.0, 600.0);
    let projection = Projection::Perspective {
        fov_y: 40f32.to_radians(),
        aspect: 800.0 / 600.0,
        near: 0.01,
        far: Real::INFINITY,
    };
    let camera = Camera::look_at(
        eye,
        b.center(),
        Vector3::y(),
        projection,
        ClipConvention::OPENGL,
    )?;

    // The pixel at the window's centre, snapping to vertices and edges within 8 pixels.
    let options = PickOptions::new().with_snap_radius(8.0);
    let pick = scene.pick(&camera, &viewport, 400.0, 300.0, &options)?;
    match pick.as_ref().and_then(|p| p.hit.as_ref()) {
        Some(hit) => println!(
            "pixel (400, 300): instance {:?}, triangle {:?}, t = {:.4}, point {:.4?}",
            hit.instance,
            hit.triangle(),
            hit.t,
            hit.point.coords
        ),
        None => println!("pixel (400, 300): nothing there"),
    }
    if let Some(v) = pick.as_ref().and_then(|p| p.vertex.as_ref()) {
        println!("snapped vertex: {v:?}");
    }

    // A pixel outside the window is an error, not a miss.
    assert!(scene
        .pick(&camera, &viewport, -5.0, 300.0, &options)
        .is_err());

    // Marquee: the instances entirely inside the middle third of the window, then those
    // touching it, counting only what the camera sees.
    let rect = ScreenRect::new([267.0, 200.0], [533.0, 400.0]);
    for mode in [SelectMode::Inside, SelectMode::Intersecting] {
        let opts = SelectOptions::new()
            .with_mode(mode)
            .with_triangles(true)
            .visible_only();
        let sel = scene.select_rect(&camera, &viewport, &rect, &opts);
        let tris: usize = sel.triangles.iter().map(|s| s.triangles.len()).sum();
        println!(
            "{mode:?}: {} instances, {tris} visible triangles",
            sel.instances.len()
        );
    }
    assert!(pick.is_some_and(|p| p.hit.is_some()));
    Ok(())
}
