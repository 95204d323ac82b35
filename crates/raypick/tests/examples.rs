//! Runs the examples, so that they keep compiling and working.

#[path = "../examples/signed_distance.rs"]
mod signed_distance;

#[test]
fn signed_distance_example_runs() {
    signed_distance::main().unwrap();
}

#[path = "../examples/large_coordinates.rs"]
mod large_coordinates;

#[test]
fn large_coordinates_example_runs() {
    large_coordinates::main().unwrap();
}
