//! Runs the examples, so that they keep compiling and working.

#[path = "../examples/signed_distance.rs"]
mod signed_distance;

#[test]
fn signed_distance_example_runs() {
    signed_distance::main().unwrap();
}

#[path = "../examples/pick_points.rs"]
mod pick_points;

#[test]
fn pick_points_example_runs() {
    pick_points::main().unwrap();
}
