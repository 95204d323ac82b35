//! Integration tests of raypick-primitives: hand-computed cases and proptest properties
//! against slow f64 oracles, one module per kernel (test names start with the kernel name,
//! so `cargo test -p raypick-primitives --test kernels -- --list` counts them per kernel).
//!
//! Property case counts default to a few thousand; set `RAYPICK_PROPTEST_CASES=N` for more,
//! or `RAYPICK_LONG=1` for ten times the default. The seed is fixed for reproducible CI;
//! `RAYPICK_PROPTEST_SEED=random` (or a number) explores other inputs.

mod common;

mod aabb_aabb;
mod aabb_sphere;
mod bounding;
mod frustum;
mod line_aabb;
mod no_panic;
mod obb_obb;
mod plane_aabb;
mod point_triangle;
mod ray_aabb;
mod ray_obb;
mod ray_plane;
mod ray_segment;
mod ray_sphere;
mod ray_triangle;
mod segment_aabb;
mod sphere_sphere;
mod triangle_aabb;
mod triangle_sphere;
mod types;
