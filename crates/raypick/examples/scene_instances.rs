//! A scene built by hand: one mesh shared by two instances, a parry3d shape, masks that
//! hide objects from a query, and an instance moved between queries.
//!
//! ```text
//! cargo run --release --example scene_instances
//! ```

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run()
}

/// Runs the example (`tests/examples.rs` runs it).
pub fn run() -> Result<(), Error> {
    // A unit square in the z = 0 plane, two triangles.
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
    // The mesh is stored once; each instance places it with its own transform.
    let near = scene.add_instance(
        mesh,
        &Matrix4::new_translation(&Vector3::new(0.0, 0.0, -2.0)),
    )?;
    let far = scene.add_instance(
        mesh,
        &Matrix4::new_translation(&Vector3::new(0.0, 0.0, -6.0)).prepend_scaling(4.0),
    )?;
    let ball = scene.add_shape(
        SharedShape::ball(0.25),
        &Isometry3::translation(0.0, 0.0, -4.0),
    )?;
    // User data maps a hit back to the application's own objects.
    scene.set_user_data(near, 100)?;
    scene.set_user_data(far, 200)?;
    scene.set_user_data(ball, 300)?;
    // Masks: a query sees an object when `object mask & query mask != 0`.
    scene.set_mask(near, 0b01)?;
    scene.set_mask(far, 0b10)?;
    scene.set_mask(ball, 0b10)?;
    scene.update();

    let ray = Ray::new(Point3::origin(), -Vector3::z());
    let report = |scene: &Scene, what: &str, query: &SceneQuery| {
        match scene.closest_hit(&ray, query) {
            Some(h) => println!("{what}: user data {} at t = {:.3}", h.user_data, h.t),
            None => println!("{what}: nothing"),
        }
        scene.closest_hit(&ray, query).map(|h| h.user_data)
    };
    let first = report(&scene, "everything", &SceneQuery::default());
    let masked = report(&scene, "mask 0b10", &SceneQuery::default().with_mask(0b10));

    // Move the near square aside; queries see the move after `update`.
    scene.set_transform(
        near,
        &Matrix4::new_translation(&Vector3::new(5.0, 0.0, -2.0)),
    )?;
    scene.update();
    let moved = report(
        &scene,
        "after moving the near square",
        &SceneQuery::default(),
    );

    let all: Vec<u64> = scene
        .all_hits(&ray, &SceneQuery::default())
        .iter()
        .map(|h| h.user_data)
        .collect();
    println!("all hits along the ray: {all:?}");
    assert_eq!((first, masked, moved), (Some(100), Some(300), Some(300)));
    Ok(())
}
