//! Inside or outside, signed distance, an occupancy grid, and mesh against mesh, on the
//! bunny.
//!
//! ```text
//! cargo run --release --example signed_distance [FILE.obj]
//! ```

use nalgebra::{Matrix4, Vector3};
use raypick::io::load_scene;
use raypick::primitives::Point3;
use raypick::query::{GridConfig, Mesh};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    run(std::env::args().nth(1).as_deref())
}

/// Runs the example on `file`, the bundled bunny by default (`tests/examples.rs` runs it).
pub fn run(file: Option<&str>) -> Result<(), Box<dyn std::error::Error>> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let path = file.unwrap_or(bunny);
    let loaded = load_scene(path)?;
    let mesh: &Mesh = loaded.scene.mesh(loaded.meshes[0]).ok_or("no mesh")?;

    // One point at a time: the sign comes from the generalized winding number.
    for p in [Point3::new(0.0, 5.0, 0.0), Point3::new(0.0, 5.0, 20.0)] {
        let s = mesh.signed_distance(p).ok_or("empty mesh")?;
        println!(
            "{p}: signed distance {:.4}, winding number {:.4}, inside {}, nearest {} on triangle {}",
            s.distance,
            s.winding_number,
            mesh.contains(p),
            s.point,
            s.triangle
        );
    }

    // Many points in parallel: an occupancy grid over the bounds grown by 10%.
    let grid = GridConfig::around(mesh, 32, 0.1);
    let occupancy = mesh.occupancy_grid(&grid);
    let inside = occupancy.iter().filter(|&&b| b).count();
    println!("{inside} of {} grid points inside", occupancy.len());

    // Mesh against mesh: the bunny and a copy moved 12 units along x.
    let id = Matrix4::identity();
    let moved = Matrix4::new_translation(&Vector3::new(12.0, 0.0, 0.0));
    let d = mesh
        .min_distance(&id, mesh, &moved, f32::INFINITY)
        .ok_or("empty mesh")?;
    println!(
        "copy 12 to the right: {:.4} apart, triangles {} and {}, touching: {}",
        d.distance,
        d.triangle_a,
        d.triangle_b,
        mesh.intersects(&id, mesh, &moved)
    );
    assert!(inside > 0 && inside < occupancy.len());
    Ok(())
}
