//! Inputs on which the `solid` fuzz target (crates/query/fuzz) found `Mesh`'s solid queries
//! wrong, kept as plain tests: the subdivided cube of the target, one vertex or three moved,
//! triangles removed (a short rim), built with slivers pre-split hard.

use raypick_bvh::BuildConfig;
use raypick_primitives::Point3;
use raypick_query::Mesh;

/// The winding number of `p` summed in f64 over every triangle.
fn oracle(positions: &[[f32; 3]], triangles: &[[u32; 3]], p: [f32; 3]) -> f64 {
    let q = p.map(f64::from);
    let mut w = 0.0;
    for t in triangles {
        let [a, b, c] = t.map(|i| {
            let v = positions[i as usize];
            [0, 1, 2].map(|k| f64::from(v[k]) - q[k])
        });
        let dot = |x: [f64; 3], y: [f64; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
        let bc = [
            b[1] * c[2] - b[2] * c[1],
            b[2] * c[0] - b[0] * c[2],
            b[0] * c[1] - b[1] * c[0],
        ];
        let (la, lb, lc) = (dot(a, a).sqrt(), dot(b, b).sqrt(), dot(c, c).sqrt());
        let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
        w += 2.0 * dot(a, bc).atan2(den);
    }
    w / (4.0 * std::f64::consts::PI)
}

fn split_mesh(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Mesh {
    let config = BuildConfig {
        presplit: 0.25,
        ..BuildConfig::default()
    };
    let points = positions.iter().map(|&p| Point3::from(p)).collect();
    Mesh::with_config(points, triangles.to_vec(), &config).expect("valid mesh")
}

#[path = "../fuzz/fuzz_targets/cube.rs"]
mod cube;

/// The fuzz target's cube (its order of points and triangles), as f32 positions.
fn cube() -> (Vec<[f32; 3]>, Vec<[u32; 3]>) {
    let (lattice, tris) = cube::cube_topology();
    (lattice.iter().map(|p| p.map(|c| c as f32)).collect(), tris)
}

/// The cube with the triangles at `removed` (ascending) taken out.
fn holed(tris: &[[u32; 3]], removed: &[usize]) -> Vec<[u32; 3]> {
    tris.iter()
        .enumerate()
        .filter(|(k, _)| !removed.contains(k))
        .map(|(_, t)| *t)
        .collect()
}

/// The winding number, contains and signed distance at `p` against the oracle.
fn check(positions: &[[f32; 3]], triangles: &[[u32; 3]], p: [f32; 3]) {
    let mesh = split_mesh(positions, triangles);
    let want = oracle(positions, triangles, p);
    let w = f64::from(mesh.winding_number(Point3::from(p)));
    assert!((w - want).abs() <= 1e-3, "winding {w} against {want}");
    let s = mesh.signed_distance(Point3::from(p)).expect("triangles");
    assert!((f64::from(s.winding_number) - want).abs() <= 0.1);
    assert_eq!(mesh.contains(Point3::from(p)), want >= 0.5);
    assert_eq!(s.distance < 0.0, want >= 0.5);
}

/// A slot holding only the other pieces of pre-split triangles has no moments and radius 0,
/// its center where the query point was: a hair away in f32, it counted as far, and the
/// seventh power of the inverse distance overflowed, making the winding number NaN. Slots
/// nearer than 1e-5 of the mesh's size are now taken apart (and lengths are in units of
/// that size, so that this holds whatever the mesh's units).
#[test]
fn an_empty_slot_at_the_query_point_is_not_far() {
    let (mut positions, tris) = cube();
    positions[0] = [2.0, 2.0, 2.0];
    positions[4] = [-1.5, -2.0, -2.0];
    positions[5..8].fill([-2.0, -2.0, -2.0]);
    positions[8] = [-2.0, -1.5, -1.5];
    check(&positions, &holed(&tris, &[32, 34, 36]), [-0.5, -0.5, -0.5]);
}

/// A folded vertex (out at (1.5, 1.5, 1.5)) and two triangles removed: the side decision's
/// first sum is 4.6e-2 off the exact winding number here, past the 3e-2 it keeps on
/// ordinary meshes but well inside the 0.1 from 0.5 at which it decides; the winding
/// number (the rim's fraction and that sum's integer part) is within 1e-3.
#[test]
fn a_folded_cube_with_a_hole_decides_its_side() {
    let (mut positions, tris) = cube();
    positions[16] = [1.5, 1.5, 1.5];
    check(&positions, &holed(&tris, &[34, 38]), [0.0, 0.25, 0.0]);
}
