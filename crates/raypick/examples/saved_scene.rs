//! Build once, load fast: a loaded file's BVHs saved to a `.rpk` file and loaded back without
//! rebuilding, answering exactly as before. (`raypick build FILE -o FILE.rpk` does the same
//! from the command line.)
//!
//! ```text
//! cargo run --release --example saved_scene [FILE]
//! ```

use std::time::Instant;

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run(std::env::args().nth(1).as_deref())
}

/// Runs the example on `file`, the bundled bunny by default (`tests/examples.rs` runs it).
pub fn run(file: Option<&str>) -> Result<(), Error> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let t0 = Instant::now();
    let built = load_scene(file.unwrap_or(bunny))?;
    println!("read and built in {:.2?}", t0.elapsed());

    // Saved bytes: versioned, checksummed, every invariant checked again on load.
    let bytes = built.scene.to_bytes()?;
    let t0 = Instant::now();
    let loaded = Scene::from_bytes(&bytes)?;
    println!("{} bytes loaded in {:.2?}", bytes.len(), t0.elapsed());

    // Same ids, same answers, bit for bit.
    let b = built.scene.bounds();
    let ray = Ray::new(
        b.center() + Vector3::new(0.0, 0.0, 2.0 * b.extents().norm()),
        -Vector3::z(),
    );
    let before = built.scene.closest_hit(&ray, &SceneQuery::default());
    let after = loaded.closest_hit(&ray, &SceneQuery::default());
    assert_eq!(before, after);
    if let Some(h) = after {
        println!("the same hit: object {} at t = {}", h.user_data, h.t);
    }

    // A damaged file is an error that says what is wrong, never a crash.
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 1;
    match Scene::from_bytes(&damaged) {
        Err(e) => println!("damaged file: {e}"),
        Ok(_) => unreachable!("a changed byte fails the checksum"),
    }
    Ok(())
}
