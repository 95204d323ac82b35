//! Open meshes that hold closed shells (an assembly's bolts and shafts beside open faces):
//! the shells count their winding number by ray, as a closed mesh does, and only the rest
//! is summed.
//!
//! The winding number is a sum over triangles, so it splits over any partition of them. A
//! group of triangles whose rim cancels (corners welded by position) bounds a solid: off
//! its surface its winding number is the integer one ray counts, at any distance from it,
//! where the sums must open every cluster near the point (a shaft of slivers 80 radii long
//! is near every point beside it). The groups are the triangles connected through shared
//! vertex indices, merged where their rim corners share a position (the copies of a vertex
//! at a seam, or an STL file's unshared corners): a group is closed when no rim edge of the
//! mesh, welded, has a corner in it. Edges of two groups never cancel each other, since
//! their corners would be rim corners at one position, and so of one group.

use raypick_primitives::{Point3, Real};

use super::boundary::WeldedRim;
use super::winding::{side_margin, FirstPass, Winding, FINE_TOL};
use crate::Mesh;

/// The closed shells are split off when they hold at least this share of the triangles: the
/// split builds a tree over each part, about the mesh's own build again.
const MIN_SHARE: f64 = 0.02;

/// A mesh's triangles in two meshes: the closed shells, and the rest.
#[derive(Clone, Debug)]
pub(crate) struct Shells {
    /// Every group of triangles whose rim cancels: a closed mesh.
    closed: Mesh,
    /// The other triangles: an open mesh.
    open: Mesh,
}

/// Union-find over vertex indices, halving paths as it goes.
fn find(parent: &mut [u32], mut v: u32) -> u32 {
    while parent[v as usize] != v {
        let up = parent[parent[v as usize] as usize];
        parent[v as usize] = up;
        v = up;
    }
    v
}

fn union(parent: &mut [u32], a: u32, b: u32) {
    let (a, b) = (find(parent, a), find(parent, b));
    if a != b {
        parent[a.max(b) as usize] = a.min(b);
    }
}

/// The leaf slots (each pre-split triangle's first) of the closed groups of `mesh`, an open
/// mesh whose welded rim is `rim`, when they hold at least [`MIN_SHARE`] of its triangles.
pub(super) fn shell_slots(mesh: &Mesh, rim: &WeldedRim) -> Option<Vec<u32>> {
    if rim.edges.is_empty() {
        return None;
    }
    let primary = |pos: &usize| !mesh.is_secondary(*pos);
    let mut parent: Vec<u32> = (0..mesh.vertex_count as u32).collect();
    for (_, t) in mesh
        .indices
        .iter()
        .enumerate()
        .filter(|(pos, _)| primary(pos))
    {
        union(&mut parent, t[0], t[1]);
        union(&mut parent, t[1], t[2]);
    }
    // Rim corners at one position are one corner of one group.
    let mut first = vec![u32::MAX; rim.positions.len()];
    for &(v, w) in &rim.welds {
        match first[w as usize] {
            u32::MAX => first[w as usize] = v,
            u => union(&mut parent, v, u),
        }
    }
    let mut open = vec![false; mesh.vertex_count];
    for &(a, _) in &rim.edges {
        let root = find(&mut parent, first[a as usize]);
        open[root as usize] = true;
    }
    // A triangle with two corners at one position is a needle or a point, of no area, whose
    // edges cancel alone: it would make a closed group by itself (a soup's specks).
    let proper = |pos: usize| {
        let [a, b, c] = mesh.tris.get(pos);
        a != b && b != c && c != a
    };
    let slots: Vec<u32> = (0..mesh.indices.len())
        .filter(primary)
        .filter(|&pos| proper(pos) && !open[find(&mut parent, mesh.indices[pos][0]) as usize])
        .map(|pos| pos as u32)
        .collect();
    (slots.len() as f64 >= MIN_SHARE * mesh.triangle_count as f64).then_some(slots)
}

/// The mesh of the triangles of `mesh` in leaf slots `slots`, their vertices numbered
/// afresh in order of use.
fn part(mesh: &Mesh, slots: impl Iterator<Item = usize>) -> Option<Mesh> {
    let mut index = vec![u32::MAX; mesh.vertex_count];
    let mut positions: Vec<Point3<Real>> = Vec::new();
    let mut triangles = Vec::new();
    for pos in slots {
        let (t, corners) = (mesh.indices[pos], mesh.tris.get(pos));
        triangles.push(std::array::from_fn(|k| {
            let v = &mut index[t[k] as usize];
            if *v == u32::MAX {
                *v = positions.len() as u32;
                positions.push(corners[k]);
            }
            *v
        }));
    }
    Mesh::new(positions, triangles).ok()
}

impl Shells {
    /// `mesh` split into its closed groups, at leaf slots `slots` ([`shell_slots`]), and
    /// the rest.
    pub(super) fn build(mesh: &Mesh, slots: &[u32]) -> Option<Shells> {
        let mut shell = vec![false; mesh.indices.len()];
        for &s in slots {
            shell[s as usize] = true;
        }
        let rest = (0..mesh.indices.len()).filter(|&pos| !shell[pos] && !mesh.is_secondary(pos));
        Some(Shells {
            closed: part(mesh, slots.iter().map(|&s| s as usize))?,
            open: part(mesh, rest)?,
        })
    }

    /// The closed shells, as one closed mesh.
    pub(super) fn closed(&self) -> &Mesh {
        &self.closed
    }

    /// The triangles outside the closed shells, as one open mesh.
    pub(super) fn open(&self) -> &Mesh {
        &self.open
    }

    /// The winding number of the whole mesh at `p` (finite): the shells' and the rest's, as
    /// `Mesh::winding_at` gives each (`distance`, the whole mesh's, bounds each part's from
    /// below), summed with their tolerances. A side decision (`side`) whose total is within
    /// [`side_margin`] of its tolerance from 0.5 sums again at the fine tolerance the parts
    /// that took a cheaper pass.
    pub(super) fn winding_at(
        &self,
        p: Point3<Real>,
        distance: Option<Real>,
        side: Option<FirstPass>,
    ) -> Winding {
        let a = self.closed.winding_at(p, distance, side);
        let b = self.open.winding_at(p, distance, side);
        let w = sum(a, b);
        if side.is_none()
            || w.on_surface
            || (a.tolerance <= FINE_TOL && b.tolerance <= FINE_TOL)
            || (w.value - 0.5).abs() > side_margin(w.tolerance)
        {
            return w;
        }
        let fine = |part: &Mesh, w: Winding| {
            if w.tolerance > FINE_TOL {
                part.winding_at(p, distance, None)
            } else {
                w
            }
        };
        sum(fine(&self.closed, a), fine(&self.open, b))
    }
}

/// The winding number of two parts of a mesh at one point, from each part's.
fn sum(a: Winding, b: Winding) -> Winding {
    Winding {
        value: a.value + b.value,
        on_surface: a.on_surface || b.on_surface,
        tolerance: a.tolerance + b.tolerance,
        off_surface: a.off_surface && b.off_surface,
        untouched: a.untouched && b.untouched,
    }
}

#[cfg(test)]
mod tests {
    use super::super::probes::{brute_winding, octahedron, point_on, sheet};
    use crate::Mesh;
    use rand::{Rng, SeedableRng};
    use raypick_primitives::{Point3, Real};

    /// The triangles of `mesh` as corner positions.
    fn corners(mesh: &Mesh) -> Vec<[Point3<Real>; 3]> {
        mesh.tris.iter().collect()
    }

    /// A closed shaft along x, counter-clockwise seen from outside: `n` slivers around, each
    /// as long as the shaft, and two fans.
    fn shaft(n: usize, length: Real, radius: Real, at: Point3<Real>) -> Vec<[Point3<Real>; 3]> {
        let ring = |x: Real, k: usize| {
            let a = std::f32::consts::TAU * (k % n) as Real / n as Real;
            at + nalgebra::Vector3::new(x, radius * a.cos(), radius * a.sin())
        };
        let (c0, c1) = (at, at + nalgebra::Vector3::x() * length);
        (0..n)
            .flat_map(|k| {
                [
                    [ring(0.0, k), ring(length, k + 1), ring(length, k)],
                    [ring(0.0, k), ring(0.0, k + 1), ring(length, k + 1)],
                    [c0, ring(0.0, k + 1), ring(0.0, k)],
                    [c1, ring(length, k), ring(length, k + 1)],
                ]
            })
            .collect()
    }

    /// `parts` as one mesh: each triangle's corners their own vertices where `soup`, else
    /// shared by position within the part.
    fn assemble(parts: &[(Vec<[Point3<Real>; 3]>, bool)]) -> Mesh {
        let (mut pos, mut tris) = (Vec::new(), Vec::new());
        for (part, soup) in parts {
            let mut seen: Vec<(Point3<Real>, u32)> = Vec::new();
            for t in part {
                tris.push(std::array::from_fn(|k| {
                    if !soup {
                        if let Some(&(_, i)) = seen.iter().find(|(q, _)| *q == t[k]) {
                            return i;
                        }
                    }
                    pos.push(t[k]);
                    let i = pos.len() as u32 - 1;
                    seen.push((t[k], i));
                    i
                }));
            }
        }
        Mesh::new(pos, tris).expect("valid assembly")
    }

    /// An open sheet with closed shells around it: a shaft of slivers through it, an
    /// octahedron as an STL soup (closed only once its corners are welded), one in two
    /// halves that share no vertex index (closed only together), and one touching a corner
    /// of the sheet's rim. The shells are split off; the winding number, inside/outside and
    /// signed distances answer as the f64 brute force over every triangle, near every part.
    #[test]
    fn shells_count_by_ray_beside_open_parts() {
        let open = corners(&sheet(12));
        let soup = corners(&octahedron(Point3::new(0.5, 0.5, -0.4), 0.2));
        let halves = corners(&octahedron(Point3::new(0.3, 0.7, 0.4), 0.15));
        let touching = corners(&octahedron(Point3::new(-0.1, 0.0, 0.0), 0.1));
        let mesh = assemble(&[
            (open.clone(), false),
            (shaft(24, 1.6, 0.03, Point3::new(-0.3, 0.4, 0.02)), false),
            (soup, true),
            (halves[..4].to_vec(), false),
            (halves[4..].to_vec(), false),
            (touching, false),
        ]);
        let shells = mesh.winding_tree().shells(&mesh).expect("shells split off");
        assert_eq!(shells.open().triangle_count, open.len());
        assert_eq!(shells.closed().triangle_count, 24 * 4 + 3 * 8);
        assert!(shells.closed().winding_tree().closed(shells.closed()));

        let all = corners(&mesh);
        let brute = |p: Point3<Real>| brute_winding(all.iter().copied(), &p);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5_4e11);
        let b = mesh.bounds();
        let mut points = Vec::new();
        for i in 0..3_000 {
            points.push(if i % 3 == 0 {
                Point3::from(std::array::from_fn(|a| {
                    let (lo, hi) = (b.min[a], b.max[a]);
                    lo + (hi - lo) * rng.gen_range(-0.2f32..1.2)
                }))
            } else {
                // Beside a random triangle, either side, at 1e-4 to 1e-2.
                let t = &all[rng.gen_range(0..all.len())];
                let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
                let d = [1e-4f32, 1e-3, 1e-2][rng.gen_range(0..3)];
                point_on(t, &mut rng) + n * if rng.gen::<bool>() { d } else { -d }
            });
        }
        let (mut decided, mut near_half) = (0, 0);
        for &p in &points {
            if mesh.nearest_point(&p, 5e-5).is_some() {
                continue;
            }
            let (w, want) = (f64::from(mesh.winding_number(p)), brute(p));
            assert!((w - want).abs() <= 1e-3, "{w} against {want} at {p:?}");
            if (want - 0.5).abs() > 2e-3 {
                assert_eq!(mesh.contains(p), want >= 0.5, "side at {p:?}: {want}");
                let s = mesh.signed_distance(p).expect("a distance");
                assert_eq!(s.distance < 0.0, want >= 0.5, "sign at {p:?}");
                decided += 1;
            } else {
                near_half += 1;
            }
        }
        assert!(decided > 2_000, "{decided} decided, {near_half} near 0.5");
        let batch = mesh.contains_points(&points);
        let single: Vec<bool> = points.iter().map(|&p| mesh.contains(p)).collect();
        assert_eq!(batch, single);
    }

    /// Closed shells holding less than 2% of the triangles are left in the sum.
    #[test]
    fn few_shells_stay_in_the_sum() {
        let mesh = assemble(&[
            (corners(&sheet(40)), false),
            (corners(&octahedron(Point3::new(0.5, 0.5, 0.5), 0.1)), false),
        ]);
        assert!(mesh.winding_tree().shells(&mesh).is_none());
        let mesh = assemble(&[
            (corners(&sheet(4)), false),
            (corners(&octahedron(Point3::new(0.5, 0.5, 0.5), 0.1)), false),
        ]);
        assert!(mesh.winding_tree().shells(&mesh).is_some());
    }
}
