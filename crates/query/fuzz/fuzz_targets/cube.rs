//! The fuzz target `solid`'s closed test surface, shared with the regression tests that keep
//! its finds (crates/query/tests/solid_fuzz_regressions.rs).

/// A cube's surface cut into 2 x 2 squares per face, two triangles each, wound outward:
/// 26 vertices (on the grid of the cube's 3 x 3 x 3 lattice points, all but the centre) and
/// 48 triangles, every edge used once each way.
pub fn cube_topology() -> (Vec<[i32; 3]>, Vec<[u32; 3]>) {
    let mut lattice = Vec::new();
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                if (x, y, z) != (0, 0, 0) {
                    lattice.push([x, y, z]);
                }
            }
        }
    }
    let index = |p: [i32; 3]| lattice.iter().position(|&q| q == p).unwrap() as u32;
    let mut tris = Vec::new();
    for axis in 0..3 {
        for side in [-1, 1] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for i in -1..1 {
                for j in -1..1 {
                    let at = |a: i32, b: i32| {
                        let mut p = [0; 3];
                        p[axis] = side;
                        p[u] = a;
                        p[v] = b;
                        index(p)
                    };
                    let (p00, p10, p11, p01) =
                        (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                    if side > 0 {
                        tris.push([p00, p10, p11]);
                        tris.push([p00, p11, p01]);
                    } else {
                        tris.push([p00, p11, p10]);
                        tris.push([p00, p01, p11]);
                    }
                }
            }
        }
    }
    (lattice, tris)
}
