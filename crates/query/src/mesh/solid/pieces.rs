//! Open meshes of long slivers (CAD tessellations: fans and strips across whole faces) sum
//! their winding number over compact pieces of their triangles.
//!
//! A cluster's far-field expansion holds only beyond a few radii of its center, and a leaf
//! holding a sliver has the sliver's length as its radius: on such a mesh nearly every leaf
//! is near nearly every point, and the sum costs about what the brute force does. Cut into
//! pieces no longer than a few typical triangle sizes, the same surface sums like a smooth
//! mesh. The pieces tile each triangle (midpoints of long edges, an edge cut the same way on
//! both of its triangles, so the pieces conform where the triangles did), so the winding
//! number is the same up to the f32 rounding of the midpoints, off the surface by more than
//! that rounding.

use raypick_primitives::{Point3, Real};

use crate::Mesh;

/// A mesh is one of slivers when at least [`MIN_SHARE`] of its triangles have an edge longer
/// than this many typical triangle sizes (the side of a square of the mean triangle area,
/// doubled).
const LONG: f64 = 4.0;

/// The share of long triangles ([`LONG`]) that makes a mesh one of slivers (below, they are
/// too few to matter).
const MIN_SHARE: f64 = 0.05;

/// The pieces' edges are cut down to this many typical triangle sizes, or, where that makes
/// more than [`MAX_GROWTH`] pieces per triangle, to the next: finer pieces sum faster (on
/// `cad`, 3 against 4: a fifth less time per point), coarser ones build faster.
const CUT: [f64; 2] = [3.0, LONG];

/// No more pieces than this many per triangle of the mesh, over all (else the mesh sums as
/// it is).
const MAX_GROWTH: usize = 16;

/// Cuts deeper than this are not made (an edge halves at each).
const MAX_DEPTH: u32 = 12;

/// The pieces of `mesh` (each pre-split triangle once) as a mesh of their own, when enough
/// of its triangles are long, with each piece's triangle in `mesh` (its position in leaf
/// order, by the pieces' original indices); `None` otherwise.
pub(super) fn pieces_mesh(mesh: &Mesh) -> Option<(Mesh, Vec<u32>)> {
    let (tris, positions): (Vec<[Point3<Real>; 3]>, Vec<u32>) = mesh
        .tris
        .iter()
        .enumerate()
        .filter(|(pos, _)| !mesh.is_secondary(*pos))
        .map(|(pos, t)| (t, pos as u32))
        .unzip();
    let n = tris.len();
    if n == 0 {
        return None;
    }
    let area: f64 = tris
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|p| p.coords.cast::<f64>());
            0.5 * (b - a).cross(&(c - a)).norm()
        })
        .sum();
    let size = (2.0 * area / n as f64).sqrt();
    if !(size > 0.0 && size.is_finite()) {
        return None;
    }
    let long = tris.iter().filter(|t| longest(t) > LONG * size).count();
    if (long as f64) < MIN_SHARE * n as f64 {
        return None;
    }
    let (out, of) = cut(&tris, size, 3 * MAX_GROWTH * n)?;
    let indices = (0..out.len() as u32 / 3)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    let parents = of.iter().map(|&t| positions[t as usize]).collect();
    // Only winding sums run on the pieces: the quicker build (binned on the widest axis,
    // leaves up to 8) sums as fast, and the first solid query waits less for it.
    let pieces = Mesh::with_config(out, indices, &raypick_bvh::BuildConfig::fast()).ok()?;
    Some((pieces, parents))
}

/// The corners of the pieces of `tris` at the finest of [`CUT`] (in typical sizes `size`)
/// that makes at most `max` corners, and the index in `tris` of each piece's triangle.
fn cut(tris: &[[Point3<Real>; 3]], size: f64, max: usize) -> Option<(Vec<Point3<Real>>, Vec<u32>)> {
    CUT.iter().find_map(|&c| pieces(tris, c * size, max))
}

/// The corners of the pieces of `tris`, edges longer than `long` cut, and the index in
/// `tris` of each piece's triangle, unless they pass `max` corners.
fn pieces(
    tris: &[[Point3<Real>; 3]],
    long: f64,
    max: usize,
) -> Option<(Vec<Point3<Real>>, Vec<u32>)> {
    let mut out: Vec<Point3<Real>> = Vec::new();
    let mut of = Vec::new();
    for (i, t) in tris.iter().enumerate() {
        split(*t, long, 0, &mut out);
        if out.len() > max {
            return None;
        }
        of.resize(out.len() / 3, i as u32);
    }
    Some((out, of))
}

/// The length of a triangle's longest edge.
fn longest(t: &[Point3<Real>; 3]) -> f64 {
    (0..3)
        .map(|i| edge(t[i], t[(i + 1) % 3]))
        .fold(0.0, f64::max)
}

fn edge(a: Point3<Real>, b: Point3<Real>) -> f64 {
    (b.coords.cast::<f64>() - a.coords.cast::<f64>()).norm()
}

/// The midpoint of `a` and `b` in f32, the same whichever comes first.
fn mid(a: Point3<Real>, b: Point3<Real>) -> Point3<Real> {
    Point3::from((a.coords + b.coords) * 0.5)
}

/// Appends the pieces of `t`: each edge longer than `long` cut at its midpoint (a decision
/// that depends on the edge alone, so a neighbour cuts it too), the parts cut again, each
/// piece wound as `t`.
fn split(t: [Point3<Real>; 3], long: f64, depth: u32, out: &mut Vec<Point3<Real>>) {
    let cut: [bool; 3] = std::array::from_fn(|i| edge(t[i], t[(i + 1) % 3]) > long);
    let count = cut.iter().filter(|&&c| c).count();
    if count == 0 || depth >= MAX_DEPTH {
        out.extend(t);
        return;
    }
    // Turned so that edge 0 (corners 0 -> 1) is cut, and with two cuts, edge 1 too.
    let r = (0..3)
        .find(|&i| cut[i] && (count != 2 || cut[(i + 1) % 3]))
        .unwrap_or(0);
    let [a, b, c] = [t[r], t[(r + 1) % 3], t[(r + 2) % 3]];
    let next = depth + 1;
    match count {
        1 => {
            let m = mid(a, b);
            split([a, m, c], long, next, out);
            split([m, b, c], long, next, out);
        }
        2 => {
            let (mab, mbc) = (mid(a, b), mid(b, c));
            split([mab, b, mbc], long, next, out);
            split([a, mab, mbc], long, next, out);
            split([a, mbc, c], long, next, out);
        }
        _ => {
            let (mab, mbc, mca) = (mid(a, b), mid(b, c), mid(c, a));
            split([a, mab, mca], long, next, out);
            split([mab, b, mbc], long, next, out);
            split([mca, mbc, c], long, next, out);
            split([mab, mbc, mca], long, next, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The pieces are cut at 3 typical sizes, or at 4 where 3 would make too many.
    #[test]
    fn a_cut_past_the_cap_falls_back_to_the_coarser() {
        let t = [
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(100.0, 0.0, 0.0),
            Point3::new(50.0, 1.0, 0.0),
        ];
        let at = |c: f64| pieces(&[t], c, usize::MAX).expect("no cap").0.len();
        let (fine, coarse) = (at(3.0), at(4.0));
        assert!(fine > coarse, "{fine} {coarse}");
        assert_eq!(cut(&[t], 1.0, fine).map(|p| p.0.len()), Some(fine));
        assert_eq!(cut(&[t], 1.0, fine - 1).map(|p| p.0.len()), Some(coarse));
        assert_eq!(cut(&[t], 1.0, coarse - 1), None);
    }

    /// The corners of a bumpy sheet of small triangles beside a fan of 32 slivers of radius
    /// 3, three per triangle.
    fn sheet_and_fan() -> Vec<Point3<Real>> {
        let sheet = super::super::probes::sheet(16);
        let mut pos: Vec<Point3<Real>> = sheet.tris.iter().flatten().collect();
        let centre = Point3::new(0.5, 0.5, 0.4);
        for s in 0..32 {
            let angle = |k: usize| std::f32::consts::TAU * k as f32 / 32.0;
            let rim = |k: usize| {
                centre + nalgebra::Vector3::new(3.0 * angle(k).cos(), 3.0 * angle(k).sin(), 0.0)
            };
            pos.extend([centre, rim(s), rim(s + 1)]);
        }
        pos
    }

    /// The mesh of `pos`, three corners per triangle.
    fn soup_of(pos: Vec<Point3<Real>>) -> Mesh {
        let tris = (0..pos.len() as u32 / 3)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect();
        Mesh::new(pos, tris).expect("valid mesh")
    }

    /// The sum over the pieces vouches for a point being off the mesh's own triangles (not
    /// only off the pieces, which the midpoints' rounding moves) only where it is: the
    /// distance-0 check `contains` then skips finds nothing. Points on, within f32 steps
    /// of, and off the triangles, at ordinary, offset, large and small coordinates.
    #[test]
    fn vouched_points_are_off_the_triangles_the_pieces_were_cut_from() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x9_1ece6);
        let (mut vouched, mut touching) = (0usize, 0usize);
        for (size, offset) in [(1.0, 0.0), (1.0, 1.0e4), (1e6, -2e6), (1e-3, 0.37)] {
            let pos = sheet_and_fan()
                .into_iter()
                .map(|p| p.map(|c| c * size + offset));
            let mesh = soup_of(pos.collect());
            assert!(mesh.winding_tree().pieces(&mesh).is_some(), "slivers cut");
            let (v, t) = super::super::probes::check_vouching(&mesh, &mut rng);
            vouched += v;
            touching += t;
        }
        // Both kinds of point occur, so the assertions above could fail.
        assert!(vouched > 5_000 && touching > 1_000, "{vouched} {touching}");
    }

    /// A bumpy sheet of small triangles beside a fan of 32 slivers of radius 3, 8 triangles
    /// with one long edge and a large one, all open: the long triangles are cut (each of
    /// the three ways is needed here), and the winding number, inside/outside and signed
    /// distance answer as over the whole triangles.
    #[test]
    fn slivers_sum_as_their_pieces() {
        let mut pos = sheet_and_fan();
        // Triangles with one long edge (2 against 1.04), cut once.
        for k in 0..8 {
            let y = -2.0 + 0.5 * k as f32;
            pos.extend([
                Point3::new(-2.5, y, 1.0),
                Point3::new(-0.5, y, 1.0),
                Point3::new(-1.5, y + 0.3, 1.0),
            ]);
        }
        // A large triangle, every edge long (cut into four, and again).
        pos.extend([
            Point3::new(-3.0, 3.0, -0.8),
            Point3::new(0.0, 3.0, -0.8),
            Point3::new(-1.5, 5.6, -0.8),
        ]);
        let mesh = soup_of(pos.clone());
        let pieces = mesh.winding_tree().pieces(&mesh).expect("slivers cut");
        // The pieces sum with the mesh's rim (its long edges not cut), given to them.
        assert!(pieces.winding_tree().rim(pieces).is_some(), "a short rim");
        let brute = |p: Point3<Real>| {
            super::super::probes::brute_winding(pos.chunks(3).map(|t| [t[0], t[1], t[2]]), &p)
        };
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x9_1ece5);
        let mut checked = 0;
        for i in 0..2_000 {
            let p = if i % 2 == 0 {
                Point3::new(
                    rng.gen_range(-3.5..4.5),
                    rng.gen_range(-3.5..4.5),
                    rng.gen_range(-1.0..2.0),
                )
            } else {
                // Just above or below a sliver, where its pieces are near.
                let t = &pos[pos.len() - 27 - 3 * rng.gen_range(1..=32)..][..3];
                let x = super::super::probes::point_on(t, &mut rng);
                x + nalgebra::Vector3::z()
                    * [1e-3f32, -1e-3, 2e-2, -2e-2][i % 4 / 2 * 2 + usize::from(rng.gen::<bool>())]
            };
            if mesh.nearest_point(&p, 1e-4).is_some() {
                continue;
            }
            let (w, want) = (f64::from(mesh.winding_number(p)), brute(p));
            assert!((w - want).abs() <= 1e-3, "{w} against {want} at {p:?}");
            if (want - 0.5).abs() > 0.01 {
                assert_eq!(mesh.contains(p), want >= 0.5, "{p:?}: {want}");
                let s = mesh.signed_distance(p).expect("triangles");
                assert_eq!(s.distance < 0.0, want >= 0.5, "{p:?}: {want}");
            }
            checked += 1;
        }
        assert!(checked > 1_500, "{checked}");
        // On the slivers' corners: inside, at distance 0 (their midpoints and centroids round
        // off the triangles by less than 1e-6, where either side may be answered).
        for t in pos[pos.len() - 123..pos.len() - 27].chunks(3) {
            assert!(mesh.contains(t[1]), "{:?} on the surface", t[1]);
            let s = mesh.signed_distance(t[1]).expect("triangles");
            assert_eq!(s.distance, 0.0, "{:?}", t[1]);
            for p in [
                Point3::from((t[0].coords + t[1].coords) * 0.5),
                Point3::from((t[0].coords + t[1].coords + t[2].coords) / 3.0),
            ] {
                let s = mesh.signed_distance(p).expect("triangles");
                assert!(s.distance.abs() < 1e-6, "{p:?}: {}", s.distance);
            }
        }
    }
}
