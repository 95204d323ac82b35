//! The ray queries of one mesh: the closest hit, whether anything blocks a segment, every
//! surface crossing along a ray, the nearest surface point, and a batch of rays in parallel.
//!
//! ```text
//! cargo run --release --example ray_queries [FILE]
//! ```

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run(std::env::args().nth(1).as_deref())
}

/// Runs the example on `file`, the bundled bunny by default (`tests/examples.rs` runs it).
pub fn run(file: Option<&str>) -> Result<(), Error> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let path = file.unwrap_or(bunny);
    let mesh = load_mesh(path)?;
    let b = mesh.bounds();
    println!(
        "{} triangles, bounds {:?} .. {:?}",
        mesh.len(),
        b.min,
        b.max
    );

    // A ray from in front of the box through its centre. The direction is not normalized:
    // `t` is in units of it, so `t = 0.5` is half way to the centre.
    let origin = b.center() + Vector3::new(0.0, 0.0, 2.0 * b.extents().z);
    let ray = Ray::new(origin, b.center() - origin);
    let all = RayQuery::default();
    match mesh.closest_hit(&ray, &all) {
        Some(hit) => println!(
            "closest hit: triangle {} at t = {:.4}, point {:.4?}, front face {}",
            hit.triangle, hit.t, hit.point.coords, hit.front_face
        ),
        None => println!("closest hit: none"),
    }

    // Does anything lie between the origin and the centre? A segment is a ray with t_max.
    let blocked = mesh.any_hit(&ray, &RayQuery::new(0.0, 1.0));
    println!("segment to the centre blocked: {blocked}");

    // Every crossing along the whole line, sorted by t, one per surface crossing.
    let hits = mesh.all_hits(&ray, &RayQuery::new(Real::NEG_INFINITY, Real::INFINITY));
    let ts: Vec<String> = hits.iter().map(|h| format!("{:.4}", h.t)).collect();
    println!(
        "{} crossings along the line, t = [{}]",
        hits.len(),
        ts.join(", ")
    );

    // The nearest surface point to a point beside the mesh (no distance limit).
    let p = b.max + b.extents() * 0.25;
    if let Some(n) = mesh.nearest_point(&p, Real::INFINITY) {
        println!(
            "nearest to {:.3?}: {:.4?} on triangle {}, distance {:.4}",
            p.coords, n.point.coords, n.triangle, n.distance
        );
    }

    // A batch: one ray per row of a 64x64 grid, answered on all cores.
    let rays: Vec<Ray> = (0..64 * 64)
        .map(|i| {
            let (u, v) = ((i % 64) as Real / 63.0, (i / 64) as Real / 63.0);
            let target = Point3::new(
                b.min.x + u * (b.max.x - b.min.x),
                b.min.y + v * (b.max.y - b.min.y),
                b.center().z,
            );
            Ray::new(
                target + Vector3::new(0.0, 0.0, 2.0 * b.extents().z),
                -Vector3::z(),
            )
        })
        .collect();
    let mut out = vec![None; rays.len()];
    mesh.closest_hit_batch(&rays, &all, &mut out)?;
    let n = out.iter().flatten().count();
    println!("batch: {n} of {} rays hit", rays.len());
    assert!(n > 0 && n < rays.len() && !hits.is_empty() && hits.len() % 2 == 0);
    Ok(())
}
