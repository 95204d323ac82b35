//! Runs the examples, so that they keep compiling and working.

#[path = "../examples/signed_distance.rs"]
mod signed_distance;

#[test]
fn signed_distance_example_runs() {
    signed_distance::main().unwrap();
}
