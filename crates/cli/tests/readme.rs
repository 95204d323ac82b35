//! The README's "library in ten lines", kept compiling and true.

use raypick::io::load_scene;
use raypick::primitives::{Point3, Vector3};
use raypick::query::camera::{Camera, ClipConvention, Projection, Viewport};
use raypick::query::scene::PickOptions;

#[test]
fn readme_library_example() -> Result<(), Box<dyn std::error::Error>> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    // --- as in the README, with the path above ---
    let loaded = load_scene(bunny)?; // parse, check, build the BVHs
    let camera = Camera::look_at(
        Point3::new(0.0, 5.0, 25.0),
        Point3::new(0.0, 5.0, 0.0),
        Vector3::y(),
        Projection::perspective(0.7, 4.0 / 3.0, 0.1, 100.0),
        ClipConvention::OPENGL,
    )?;
    let viewport = Viewport::new(800.0, 600.0);
    let pick = loaded.scene.pick(
        &camera,
        &viewport,
        400.0,
        300.0,
        &PickOptions::snap_radius(8.0),
    );
    if let Some(hit) = pick.and_then(|p| p.hit) {
        println!(
            "object {} triangle {:?} at {:?}",
            hit.user_data,
            hit.triangle(),
            hit.point
        );
    }
    // --- end ---
    let pick = pick.expect("a pick");
    let hit = pick
        .hit
        .expect("the bunny is under the centre of the window");
    assert_eq!(hit.user_data, 0);
    assert!(hit.triangle().is_some());
    assert!(pick.vertex.is_some(), "a vertex within 8 px");
    Ok(())
}
