//! Test meshes and points for the distance-0 guarantees of the solid queries: soups at
//! ordinary, offset, huge and tiny coordinates, specks of triangles a few f32 steps across,
//! and points on, beside and off their triangles.

use crate::Mesh;
use rand::Rng;
use raypick_primitives::{Point3, Real};

/// Points on, beside and off `mesh`'s triangles: corners, edge points, centroids, each
/// nudged by a few f32 steps along every axis, and by fractions of the coordinate scale.
pub(crate) fn probes(mesh: &Mesh, rng: &mut rand_pcg::Pcg64) -> Vec<Point3<Real>> {
    let b = mesh.bounds();
    let s = crate::mesh::nearest::coordinate_scale(&b, &Point3::origin());
    let mut out = Vec::new();
    for t in mesh.tris.iter() {
        let mid = |a: Point3<Real>, b: Point3<Real>| Point3::from((a.coords + b.coords) * 0.5);
        let c = Point3::from((t[0].coords + t[1].coords + t[2].coords) / 3.0);
        for base in [t[0], t[1], t[2], mid(t[0], t[1]), mid(t[1], t[2]), c] {
            out.push(base);
            let a = rng.gen_range(0..3);
            let mut q = base;
            for _ in 0..rng.gen_range(1..4) {
                q[a] = if rng.gen::<bool>() {
                    q[a].next_up()
                } else {
                    q[a].next_down()
                };
            }
            out.push(q);
            let mut q = base;
            q[a] += s * [1e-7, 1e-6, 1e-5, 1e-3][rng.gen_range(0..4)];
            out.push(q);
        }
    }
    for _ in 0..2_000 {
        out.push(Point3::from(std::array::from_fn(|a| {
            let (lo, hi) = (b.min[a], b.max[a]);
            lo + (hi - lo) * rng.gen_range(-0.2f32..1.2)
        })));
    }
    out
}

/// Checks every [`probes`] point of `mesh`: a side decision that vouches for the point
/// being at a distance other than 0 from every triangle is right (the distance-0 check
/// `contains` then skips finds nothing), and `contains` answers as with that check.
/// Returns how many points were vouched for and how many lie at distance 0.
pub(crate) fn check_vouching(mesh: &Mesh, rng: &mut rand_pcg::Pcg64) -> (usize, usize) {
    let (mut vouched, mut touching) = (0, 0);
    for p in probes(mesh, rng) {
        let w = mesh.winding_side(p, None);
        let at_zero = mesh.nearest_point(&p, 0.0).is_some();
        assert!(
            !(w.untouched && at_zero),
            "{p:?} vouched for, at distance 0"
        );
        vouched += usize::from(w.untouched);
        touching += usize::from(at_zero);
        let want = w.on_surface || w.value >= 0.5 || at_zero;
        assert_eq!(mesh.contains(p), want, "{p:?}");
    }
    (vouched, touching)
}

/// The winding number of `p` summed in f64 over `tris`, triangle by triangle: the tests'
/// oracle.
pub(crate) fn brute_winding(
    tris: impl IntoIterator<Item = [Point3<Real>; 3]>,
    p: &Point3<Real>,
) -> f64 {
    use super::angle::{solid_angle, v64};
    tris.into_iter()
        .map(|t| solid_angle(v64(p), v64(&t[0]), v64(&t[1]), v64(&t[2])).0)
        .sum()
}

/// A point uniform on the triangle `t`.
pub(crate) fn point_on(t: &[Point3<Real>], rng: &mut rand_pcg::Pcg64) -> Point3<Real> {
    let (u, v) = (rng.gen::<f32>(), rng.gen::<f32>());
    let (u, v) = if u + v > 1.0 {
        (1.0 - u, 1.0 - v)
    } else {
        (u, v)
    };
    t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v
}

/// A soup of `n` triangles in the cube of side `size` at `offset`: most small, some
/// long slivers, some degenerate, a few far smaller than the coordinates' f32 steps
/// allow to tell apart (corners a step or two apart).
pub(crate) fn soup(n: usize, size: f32, offset: f32, rng: &mut rand_pcg::Pcg64) -> Mesh {
    let mut pos = Vec::new();
    for i in 0..n {
        let c: [f32; 3] = std::array::from_fn(|_| offset + size * rng.gen::<f32>());
        let e = size * [0.05, 0.3, 1e-6, 0.0][i % 4];
        let corner = |rng: &mut rand_pcg::Pcg64| {
            Point3::from(std::array::from_fn(|a| {
                let x = c[a] + e * (rng.gen::<f32>() - 0.5);
                if i % 4 == 3 && rng.gen::<bool>() {
                    x.next_up()
                } else {
                    x
                }
            }))
        };
        let (a, b, d) = (corner(rng), corner(rng), corner(rng));
        pos.extend([a, b, d]);
    }
    let tris = (0..n as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    Mesh::new(pos, tris).expect("finite soup")
}

/// Clusters of 4 triangles whose corners are a few f32 steps apart, spread over a cube
/// of side 4e4 off the origin: each cluster a leaf whose radius is below the rounding
/// of the far test, which may then call it far from a point on it.
pub(crate) fn specks(rng: &mut rand_pcg::Pcg64) -> Mesh {
    let mut pos = Vec::new();
    for _ in 0..150 {
        let c: [f32; 3] = std::array::from_fn(|_| rng.gen_range(-1.0e4..3.0e4f32));
        for _ in 0..4 {
            for _ in 0..3 {
                pos.push(Point3::from(std::array::from_fn(|a| {
                    let mut x = c[a];
                    for _ in 0..rng.gen_range(0..4) {
                        x = x.next_up();
                    }
                    x
                })));
            }
        }
    }
    let tris = (0..pos.len() as u32 / 3)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    Mesh::new(pos, tris).expect("finite specks")
}

/// A bumpy open sheet of `n` x `n` quads over the unit square, normals up: points just
/// below it have winding numbers near 0.5, where side decisions need the fine sum.
pub(crate) fn sheet(n: usize) -> Mesh {
    let h = |i: usize, j: usize| 0.05 * ((i * 7 + j * 13) % 5) as f32 / 5.0;
    let pos: Vec<_> = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| (i, j)))
        .map(|(i, j)| Point3::new(i as f32 / n as f32, j as f32 / n as f32, h(i, j)))
        .collect();
    Mesh::new(pos, grid_triangles(n)).expect("valid sheet")
}

/// The triangles of an `n` x `n` grid of quads over `(n + 1)²` vertices in rows (x
/// fastest), two per quad, counter-clockwise seen from `+z` when x and y grow along the
/// rows and columns.
pub(crate) fn grid_triangles(n: usize) -> Vec<[u32; 3]> {
    let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    (0..n)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .flat_map(|(i, j)| {
            [
                [v(i, j), v(i + 1, j), v(i + 1, j + 1)],
                [v(i, j), v(i + 1, j + 1), v(i, j + 1)],
            ]
        })
        .collect()
}

/// A closed octahedron of radius `r` around `c`, counter-clockwise seen from outside.
pub(crate) fn octahedron(c: Point3<Real>, r: Real) -> Mesh {
    let v = |x: Real, y: Real, z: Real| Point3::new(c.x + x * r, c.y + y * r, c.z + z * r);
    let pos = vec![
        v(1.0, 0.0, 0.0),
        v(-1.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
        v(0.0, -1.0, 0.0),
        v(0.0, 0.0, 1.0),
        v(0.0, 0.0, -1.0),
    ];
    let tris = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    Mesh::new(pos, tris).expect("valid octahedron")
}
