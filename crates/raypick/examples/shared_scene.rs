//! Picking while the scene changes: a UI thread picks on snapshots of a `SharedScene` while
//! another thread moves an instance; each pick sees a whole scene, before or after an edit.
//!
//! ```text
//! cargo run --release --example shared_scene
//! ```

use std::sync::Arc;

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run()
}

/// Runs the example (`tests/examples.rs` runs it).
pub fn run() -> Result<(), Error> {
    let square = Mesh::new(
        vec![
            Point3::new(-0.5, -0.5, 0.0),
            Point3::new(0.5, -0.5, 0.0),
            Point3::new(0.5, 0.5, 0.0),
            Point3::new(-0.5, 0.5, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )?;
    let mut scene = Scene::new();
    let mesh = scene.add_mesh(square);
    let moving = scene.add_instance(
        mesh,
        &Matrix4::new_translation(&Vector3::new(0.0, 0.0, -2.0)),
    )?;
    let shared = Arc::new(SharedScene::new(scene));

    // The "physics" thread: moves the square away, one step per edit.
    let physics = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || -> Result<(), raypick::SceneError> {
            for step in 1..=100 {
                let z = -2.0 - step as f32 * 0.1;
                shared.edit(|s| {
                    s.set_transform(
                        moving,
                        &Matrix4::new_translation(&Vector3::new(0.0, 0.0, z)),
                    )
                })?;
            }
            Ok(())
        })
    };

    // The "UI" thread (here): picks on whatever snapshot is current; each answer belongs to
    // the snapshot it was asked of.
    let ray = Ray::new(Point3::origin(), -Vector3::z());
    for _ in 0..50 {
        let snap = shared.snapshot();
        let hit = snap.closest_hit(&ray, &SceneQuery::default());
        let z = snap.transform(moving).map(|m| m[(2, 3)]);
        assert_eq!(hit.map(|h| -h.t), z);
    }
    physics.join().expect("the physics thread")?;
    let last = shared.snapshot();
    println!(
        "{} edits published; the square is now at z = {:?}",
        last.version(),
        last.transform(moving).map(|m| m[(2, 3)])
    );
    Ok(())
}
