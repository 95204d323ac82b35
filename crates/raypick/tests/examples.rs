//! Runs the examples, so that they keep compiling and working.

#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/pick.rs"]
mod pick;
#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/ray_queries.rs"]
mod ray_queries;
#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/scene_instances.rs"]
mod scene_instances;
#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/signed_distance.rs"]
mod signed_distance;

#[test]
fn pick_example_runs() {
    pick::run(None).unwrap();
}

#[test]
fn ray_queries_example_runs() {
    ray_queries::run(None).unwrap();
}

#[test]
fn scene_instances_example_runs() {
    scene_instances::run().unwrap();
}

#[test]
fn signed_distance_example_runs() {
    signed_distance::run(None).unwrap();
}

#[path = "../examples/large_coordinates.rs"]
mod large_coordinates;

#[test]
fn large_coordinates_example_runs() {
    large_coordinates::main().unwrap();
}

#[path = "../examples/pick_points.rs"]
mod pick_points;

#[test]
fn pick_points_example_runs() {
    pick_points::main().unwrap();
}

#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/saved_scene.rs"]
mod saved_scene;

#[test]
fn saved_scene_example_runs() {
    saved_scene::run(None).unwrap();
}

#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/shared_scene.rs"]
mod shared_scene;

#[test]
fn shared_scene_example_runs() {
    shared_scene::run().unwrap();
}

#[path = "../examples/scene_points.rs"]
mod scene_points;

#[test]
fn scene_points_example_runs() {
    scene_points::main().unwrap();
}

#[allow(dead_code)] // `main`: the test calls `run`
#[path = "../examples/depth_image.rs"]
mod depth_image;

#[test]
fn depth_image_example_runs() {
    depth_image::run(None).unwrap();
}
