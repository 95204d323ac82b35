//! The boundary curve (rim) of an open mesh, and the winding number it gives.
//!
//! Across the surface the winding number jumps by exactly 1; modulo 1 it is the solid angle,
//! over 4π, of any surface spanning the mesh's boundary curve (two such surfaces differ by a
//! closed one, whose solid angle is a multiple of 4π). On a mesh with a short rim (a terrain,
//! a scan with holes) the curve has far fewer edges than the mesh has triangles, and a point
//! near the surface, where the triangle sum needs its finest expansions, is far from most
//! of it. The whole winding number is the spanning surface's, whole, plus the crossings of
//! one ray (see [`Rim::swept`]); where that is in doubt, the fraction from the rim and the
//! integer part from the coarse sum, which is within 3e-2 of the exact one.
//!
//! The spanning surface: each rim edge `u -> v` swept to infinity along an axis `d`, a flat
//! strip whose solid angle from `p` is that of the spherical triangle with corners `u - p`,
//! `v - p` and `d`. Van Oosterom and Strackee's formula gives half of that angle as the
//! argument of a complex number `D + iN`, so the strips' sum modulo 4π is twice the argument
//! of the product of those numbers: one `atan2` per query. A run of consecutive edges from
//! its anchor `A` spans the same curve, modulo 4π, as the fan of triangles `(A, u, v)` over
//! its edges plus the strips from `A` to its ends; far from the run, the fan is replaced by
//! its far-field expansion, as the triangle sum's clusters are. A far run thus costs one
//! expansion lane and a factor per end, a near leaf run a factor per edge.

use raypick_primitives::{Point3, Real};

use super::angle::{dot, sub, V64};
use super::boundary::rim_loops;
use super::expansion::{centroid, Expansion};
use super::lanes::{ExpansionLanes, Frame, LANES};
use super::stack::Stack;
use super::strips::{multiply, StripLanes, Turn};

/// How far a run must be for its fan's expansion to stand in for it, in its radii.
const RIM_RATIO: f64 = 3.0;

/// [`RIM_RATIO`] for a side decision's first look at the rim ([`Rim::swept_coarse`]):
/// measured within 4.8e-3 of the exact fraction on the test meshes (1.2e-2 at 1.3, 7.0e-4
/// at 2), for about a fifth fewer instructions per `contains` on `terrain_1m`.
const RIM_COARSE_RATIO: f64 = 1.5;

/// The stated accuracy of [`Rim::swept_coarse`] (modulo 1).
pub(crate) const RIM_COARSE_TOL: f64 = 1e-2;

/// Edges per leaf run.
const LEAF: usize = 8;

/// The most ends a run keeps besides its anchor; a run with more is never taken whole (a
/// run across the junction of two loops has 3).
const ENDS: usize = 3;

/// No child: a leaf run.
const LEAF_RUN: u32 = u32::MAX;

/// A slot of the rim's tree: a run of consecutive rim edges.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    /// The node of the run's sub-runs, or [`LEAF_RUN`].
    child: u32,
    /// For a leaf run, its lanes in [`Rim::leaves`] and its number of edges.
    leaf: u32,
    len: u8,
    /// The first corner of the run's first edge, which its fan shares.
    anchor: V64,
    /// The corners where the run's edges do not join up, other than the anchor, with their
    /// net multiplicity (edges ending there minus edges starting there).
    ends: [(V64, i32); ENDS],
    n_ends: u8,
}

/// What a node's far runs need besides their expansions.
#[derive(Clone, Debug, Default)]
struct FarStrips {
    /// Lane `s`: the strip from slot `s`'s anchor to its one end.
    lanes: StripLanes,
    /// The slots with one end of multiplicity 1 (in `lanes`), those whose one is -1
    /// (conjugated), and those with other ends (taken one by one).
    single: u32,
    conj: u32,
    other: u32,
}

/// The rim of an open mesh as loops of edges, and the expansions of the fans of its runs in
/// an 8-wide tree. Coordinates are turned (a cyclic permutation, which keeps orientations)
/// so that the axis the strips are swept along, the rim's thinnest, is the last.
#[derive(Clone, Debug)]
pub(crate) struct Rim {
    /// One node's runs per entry, as expansion lanes in `frame`.
    lanes: Vec<ExpansionLanes>,
    /// `runs[node * 8 + slot]`.
    runs: Vec<Run>,
    /// Per node.
    far: Vec<FarStrips>,
    /// The edges of each leaf run.
    leaves: Vec<StripLanes>,
    /// The lanes' frame (the mesh's, turned).
    frame: Frame,
    /// Turned coordinate `k` is the mesh's coordinate `turn[k]`.
    turn: [usize; 3],
    /// The edges, turned, in loop order.
    edges: Vec<[V64; 2]>,
}

impl Rim {
    /// The rim `rim` (directed edges between `positions`, as [`mesh_rim`](super::boundary::mesh_rim) gives) of a mesh
    /// with bounds `b`, or `None` when it has no edge or more than `max_edges`.
    pub(super) fn build(
        rim: Vec<(u32, u32)>,
        positions: &[[Real; 3]],
        b: &raypick_primitives::Aabb,
        max_edges: usize,
    ) -> Option<Rim> {
        if rim.is_empty() || rim.len() > max_edges {
            return None;
        }
        let (edges, loop_end) = rim_loops(rim, positions);
        // The axis along which the rim is thinnest: its sweep lines pass its corners least.
        let (mut lo, mut hi) = ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]);
        for p in edges.iter().flatten() {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let axis = (0..3)
            .min_by(|&x, &y| (hi[x] - lo[x]).total_cmp(&(hi[y] - lo[y])))
            .unwrap_or(2);
        let turn = [(axis + 1) % 3, (axis + 2) % 3, axis];
        let turned = |p: [Real; 3]| turn.map(|k| f64::from(p[k]));
        let edges: Vec<[V64; 2]> = edges.iter().map(|e| e.map(turned)).collect();
        let mut frame = super::tree::frame_of(b);
        frame.origin = turn.map(|k| frame.origin[k]);
        let mut rim = Rim {
            lanes: Vec::new(),
            runs: Vec::new(),
            far: Vec::new(),
            leaves: Vec::new(),
            frame,
            turn,
            edges: Vec::new(),
        };
        // Nodes breadth first: each node's runs, with a child node for a run longer than a
        // leaf.
        let mut queue = vec![(0usize, edges.len())];
        let mut n = 0;
        while n < queue.len() {
            let (s, e) = queue[n];
            let len = e - s;
            let size = if len <= LANES * LEAF {
                LEAF
            } else {
                len.div_ceil(LANES)
            };
            let mut slots = Vec::new();
            let mut runs = [Run::default(); LANES];
            let mut far = FarStrips::default();
            let mut singles = [([0.0; 3], [0.0; 3]); LANES];
            for (k, start) in (s..e).step_by(size).enumerate() {
                let end = (start + size).min(e);
                let mut run = Run {
                    child: LEAF_RUN,
                    ..Run::default()
                };
                if end - start > LEAF {
                    queue.push((start, end));
                    run.child = (queue.len() - 1) as u32;
                } else {
                    run.leaf = rim.leaves.len() as u32;
                    run.len = (end - start) as u8;
                    rim.leaves.push(StripLanes::new(
                        edges[start..end].iter().map(|e| (e[0], e[1])),
                    ));
                }
                slots.push(run_fan(&edges, start, end, &loop_end, &mut run));
                match run.ends[..usize::from(run.n_ends)] {
                    [] => {}
                    [(x, m)] if m.abs() == 1 => {
                        far.single |= 1 << k;
                        far.conj |= u32::from(m < 0) << k;
                        singles[k] = (run.anchor, x);
                    }
                    _ => far.other |= 1 << k,
                }
                runs[k] = run;
            }
            far.lanes = StripLanes::new(singles.into_iter());
            rim.lanes.push(ExpansionLanes::new(&slots, &rim.frame));
            rim.runs.extend(runs);
            rim.far.push(far);
            n += 1;
        }
        rim.edges = edges;
        Some(rim)
    }

    /// The edges, turned (see [`Rim::turned`]), in loop order: consecutive edges are near.
    pub(super) fn edges(&self) -> &[[V64; 2]] {
        &self.edges
    }

    /// `p` in the rim's turned coordinates (the sweep axis last).
    pub(super) fn turned(&self, p: &Point3<Real>) -> V64 {
        self.turn.map(|k| f64::from(p[k]))
    }

    /// The mesh point of turned coordinates `q`.
    pub(super) fn unturned(&self, q: [Real; 3]) -> Point3<Real> {
        let mut p = Point3::origin();
        for (k, &a) in self.turn.iter().enumerate() {
            p[a] = q[k];
        }
        p
    }

    /// The mesh axis the strips are swept along (towards `+`).
    pub(crate) fn axis(&self) -> usize {
        self.turn[2]
    }

    /// The winding number of `p` (finite) of the surface the rim's edges sweep along
    /// [`Rim::axis`] to infinity, and whether it is whole: if not, only its value modulo 1
    /// is, which is the mesh's winding number modulo 1. Within 1e-3 of the exact one
    /// (measured within 5e-5). `None` where a strip's argument is in doubt (`p` within about
    /// 1e-6 radian of the rim, or of the half-line down the sweep axis from one of its
    /// corners). Not whole where the projection of `p` along the axis is within `margin` of
    /// a rim edge's, or within a far run's column (see below).
    ///
    /// The mesh's own winding number is this plus the signed crossings of the ray from `p`
    /// down the axis: the mesh and the swept surface bound a closed one, the ray runs beside
    /// every strip (it is parallel to them) and ends far below, where both winding numbers
    /// vanish. So that the count and the strips agree on which side of each rim edge the
    /// ray passes, it must pass farther from them than the kernel's rounding (`margin`).
    ///
    /// A far run stands for its strips as its fan plus the strips to its ends only modulo 1:
    /// the three bound the column above the fan, whose winding number is the crossings of
    /// that same ray with the fan. Outside the column of the run's ball they are none.
    pub(crate) fn swept(&self, p: Point3<Real>, margin: f64) -> Option<(f64, bool)> {
        self.swept_at(p, margin, RIM_RATIO)
    }

    /// [`Rim::swept`] with the runs' expansions taken from [`RIM_COARSE_RATIO`] radii:
    /// within [`RIM_COARSE_TOL`] of the exact value modulo 1.
    pub(crate) fn swept_coarse(&self, p: Point3<Real>, margin: f64) -> Option<(f64, bool)> {
        self.swept_at(p, margin, RIM_COARSE_RATIO)
    }

    /// [`Rim::swept`] with far runs beyond `ratio` of their radii.
    fn swept_at(&self, p: Point3<Real>, margin: f64, ratio: f64) -> Option<(f64, bool)> {
        let q = self.turned(&p);
        // The columns grown by the margin and the lanes' rounding (the frame's coordinates
        // are within a few units).
        let grow = (self.frame.length(margin) + 1e-6) as f32;
        let mut whole = true;
        let rel = self.frame.offset(q);
        let ratio2 = (ratio * ratio) as f32;
        #[cfg(target_arch = "x86_64")]
        let cpu = raypick_primitives::simd::CpuPath::best();
        let mut value = 0.0;
        let mut turn = Turn::default();
        let mut stack = Stack::new();
        stack.push(0);
        while let Some(n) = stack.pop() {
            let lanes = &self.lanes[n];
            #[cfg(target_arch = "x86_64")]
            let (far, sum) = crate::mesh::triangle_kernel_x86::eval_far8(cpu, lanes, rel, ratio2);
            #[cfg(not(target_arch = "x86_64"))]
            let (far, sum) = lanes.eval_far(rel, ratio2);
            value += f64::from(sum);
            if whole && far & lanes.columns(rel, grow) != 0 {
                whole = false;
            }
            let f = &self.far[n];
            let single = far & f.single;
            if single != 0 {
                #[cfg(target_arch = "x86_64")]
                multiply(&mut turn, &f.lanes, q, single, f.conj, cpu)?;
                #[cfg(not(target_arch = "x86_64"))]
                multiply(&mut turn, &f.lanes, q, single, f.conj)?;
            }
            let mut other = far & f.other;
            while other != 0 {
                let s = other.trailing_zeros() as usize;
                other &= other - 1;
                let run = &self.runs[n * LANES + s];
                for &(x, m) in &run.ends[..usize::from(run.n_ends)] {
                    turn.strip(q, run.anchor, x, m)?;
                }
            }
            let mut near = lanes.used & !far;
            while near != 0 {
                let s = near.trailing_zeros() as usize;
                near &= near - 1;
                let run = &self.runs[n * LANES + s];
                if run.child != LEAF_RUN {
                    stack.push(run.child as usize);
                } else {
                    let all = (1u32 << run.len) - 1;
                    let leaf = &self.leaves[run.leaf as usize];
                    if whole && !leaf.clear_of(q, all, margin) {
                        whole = false;
                    }
                    #[cfg(target_arch = "x86_64")]
                    multiply(&mut turn, leaf, q, all, 0, cpu)?;
                    #[cfg(not(target_arch = "x86_64"))]
                    multiply(&mut turn, leaf, q, all, 0)?;
                }
            }
        }
        let half = turn.unwrapped_half_angle();
        Some((value + half / (2.0 * std::f64::consts::PI), whole))
    }
}

/// The expansion of the fan of the run of `edges[start..end]` (`loop_end` from
/// [`rim_loops`]), with its anchor and net ends written into `run`.
fn run_fan(
    edges: &[[V64; 2]],
    start: usize,
    end: usize,
    loop_end: &[u32],
    run: &mut Run,
) -> Expansion {
    let anchor = edges[start][0];
    // Net ends: each piece of a loop in the run starts at its first edge's start (-1) and
    // stops at its last edge's end (+1); a whole loop's two cancel.
    let mut ends: Vec<(V64, i32)> = Vec::new();
    let mut add = |x: V64, m: i32| match ends.iter_mut().find(|e| e.0 == x) {
        Some(e) => e.1 += m,
        None => ends.push((x, m)),
    };
    let mut i = start;
    while i < end {
        let stop = (loop_end[i] as usize).min(end);
        add(edges[i][0], -1);
        add(edges[stop - 1][1], 1);
        i = stop;
    }
    ends.retain(|e| e.1 != 0 && e.0 != anchor);
    let run_edges = &edges[start..end];
    let fan = || run_edges.iter().map(move |e| [anchor, e[0], e[1]]);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in run_edges.iter().flatten() {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let c = centroid(fan(), [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a])));
    let radius = if ends.len() > ENDS {
        f64::INFINITY
    } else {
        run_edges
            .iter()
            .flatten()
            .map(|p| {
                let d = sub(*p, c);
                dot(d, d).sqrt()
            })
            .fold(0.0, f64::max)
    };
    let mut expansion = Expansion::of_triangles(fan(), c, radius);
    expansion.finish();
    run.anchor = anchor;
    for (slot, e) in run.ends.iter_mut().zip(&ends) {
        *slot = *e;
    }
    run.n_ends = ends.len().min(ENDS) as u8;
    expansion
}

#[cfg(test)]
mod tests {
    use super::super::boundary::mesh_rim;
    use super::*;
    use crate::Mesh;
    use rand::{Rng, SeedableRng};

    /// The brute-force winding number of `p`.
    fn exact(mesh: &Mesh, p: Point3<Real>) -> f64 {
        let tris = mesh
            .tris
            .iter()
            .enumerate()
            .filter(|(pos, _)| !mesh.is_secondary(*pos))
            .map(|(_, t)| t);
        super::super::probes::brute_winding(tris, &p)
    }

    /// The distance of `x` from the nearest integer.
    fn off_integer(x: f64) -> f64 {
        (x - x.round()).abs()
    }

    /// The rim tests' meshes: an open sheet, a half sphere, a box with two holes of very
    /// different sizes, and two annuli.
    fn test_meshes() -> [Mesh; 5] {
        [
            super::super::probes::sheet(24),
            half_sphere(16, 32),
            holed_box(),
            annulus(0.2, 64),
            annulus(0.05, 8),
        ]
    }

    /// The rim of `mesh`, however long.
    fn rim_of(mesh: &Mesh) -> Rim {
        let (edges, positions) = mesh_rim(mesh);
        Rim::build(edges, &positions, &mesh.bounds(), usize::MAX).expect("open")
    }

    /// Probe `i` of a rim test: uniform in the box grown by a fifth of its diagonal (flat
    /// meshes have flat boxes) for even `i`, else 1e-4, 1e-3 or 1e-2 off the surface along a
    /// triangle's normal, either side.
    fn probe(mesh: &Mesh, i: usize, rng: &mut rand_pcg::Pcg64) -> Point3<Real> {
        let b = mesh.bounds();
        if i.is_multiple_of(2) {
            let grow = 0.2 * (b.max - b.min).norm();
            Point3::from(std::array::from_fn(|a| {
                rng.gen_range(b.min[a] - grow..b.max[a] + grow)
            }))
        } else {
            let t = mesh.tris.get(rng.gen_range(0..mesh.tris.iter().len()));
            let x = super::super::probes::point_on(&t, rng);
            let h = [1e-4f32, 1e-3, 1e-2][i % 3] * if rng.gen() { 1.0 } else { -1.0 };
            x + (t[1] - t[0]).cross(&(t[2] - t[0])).normalize() * h
        }
    }

    /// An open sheet, a half sphere and a box with two holes of very different sizes: the
    /// rim's fraction equals the brute-force winding number modulo 1 within 1e-3, and its
    /// coarse fraction (side decisions) within its stated accuracy (measured 4.8e-3; this
    /// fails at 1.1 radii), at points uniform in the box grown by a fifth of its diagonal and
    /// just off the surface along its normal.
    #[test]
    fn fraction_is_the_winding_number_modulo_1() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x7141_0001);
        for mesh in &test_meshes() {
            let rim = rim_of(mesh);
            let (mut checked, mut worst, mut coarse) = (0, 0.0f64, 0.0f64);
            for i in 0..3_000 {
                let p = probe(mesh, i, &mut rng);
                let (Some((f, _)), Some((c, _))) = (rim.swept(p, 0.0), rim.swept_coarse(p, 0.0))
                else {
                    continue;
                };
                let want = exact(mesh, p);
                worst = worst.max(off_integer(f - want));
                coarse = coarse.max(off_integer(c - want));
                checked += 1;
            }
            assert!(checked > 2_900, "{checked} points answered");
            assert!(worst < 1e-3, "worst {worst}");
            assert!(coarse < RIM_COARSE_TOL, "coarse worst {coarse}");
        }
    }

    /// On the same meshes and points: the swept surface's winding number plus the crossings
    /// of the ray down its axis is the brute-force winding number within 1e-3, whole, and so
    /// is [`Mesh::winding_number`].
    #[test]
    fn swept_strips_and_the_ray_give_the_whole_winding_number() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x7141_0002);
        let mut whole = 0;
        for mesh in &test_meshes() {
            let rim = rim_of(mesh);
            let b = mesh.bounds();
            let margin = 1e-5 * (b.max - b.min).norm();
            let (mut checked, mut worst) = (0, 0.0f64);
            for i in 0..3_000 {
                let p = probe(mesh, i, &mut rng);
                let Some((swept, true)) = rim.swept(p, f64::from(margin)) else {
                    continue;
                };
                if mesh.nearest_point(&p, margin).is_some() {
                    continue;
                }
                let mut dir = raypick_primitives::Vector3::zeros();
                dir[rim.axis()] = -1.0;
                let w = swept + mesh.crossings(p, dir).expect("a valid ray") as f64;
                let want = exact(mesh, p);
                worst = worst.max((w - want).abs());
                whole += usize::from(want.abs() > 0.5);
                let public = f64::from(mesh.winding_number(p));
                worst = worst.max((public - want).abs());
                checked += 1;
            }
            assert!(checked > 2_500, "{checked} points answered");
            assert!(worst < 1e-3, "worst {worst}");
        }
        // The meshes that wrap around points (a flat sheet or ring does not).
        assert!(
            whole > 500,
            "{whole} points with a winding number beyond 0.5"
        );
    }

    /// Points whose ray down the sweep axis passes through a rim edge, a few f32 steps
    /// beside it, or 2e-5 and 1e-4 beside it (above and below a sheet's border): within the
    /// margin the ray's count and the strips could disagree by one (without the margin's
    /// check this fails by 1.0), so the rim's value is not whole there, and the winding
    /// number stays within 1e-3 of the brute force everywhere.
    #[test]
    fn rays_through_the_rim_leave_it_to_the_sum() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x7141_0003);
        let mesh = super::super::probes::sheet(24);
        let rim = rim_of(&mesh);
        // The closed meshes' margin at this sheet's scale (its coordinates are at most 1).
        let margin = 1e-5;
        let mut worst = 0.0f64;
        for i in 0..2_000 {
            let along = rng.gen_range(0.0f32..1.0);
            let border = [0.0f32, 1.0][i % 2];
            let off = [0.0f32, 1e-7, -1e-7, 1e-6, -1e-6, 2e-5, -2e-5, 1e-4, -1e-4][i % 9];
            let height = rng.gen_range(0.06f32..0.5) * if rng.gen() { 1.0 } else { -0.2 };
            let (x, y) = if i % 4 < 2 {
                (border + off, along)
            } else {
                (along, border + off)
            };
            let p = Point3::new(x, y, height);
            if f64::from(off.abs()) < margin {
                let whole = rim.swept(p, margin).is_some_and(|(_, whole)| whole);
                assert!(!whole, "whole within the margin at {p:?}");
            }
            let err = (f64::from(mesh.winding_number(p)) - exact(&mesh, p)).abs();
            worst = worst.max(err);
        }
        assert!(worst < 1e-3, "worst {worst}");
    }

    /// A flat ring in `z = 0` between radius `inner` and 1, `n` segments, normals up: its
    /// inner rim's runs span wide fans.
    fn annulus(inner: f32, n: usize) -> Mesh {
        let mut pos = Vec::new();
        for r in [inner, 1.0] {
            for s in 0..n {
                let ph = std::f32::consts::TAU * s as f32 / n as f32;
                pos.push(Point3::new(r * ph.cos(), r * ph.sin(), 0.0));
            }
        }
        let (i, o) = (|s: usize| (s % n) as u32, |s: usize| (n + s % n) as u32);
        let tris = (0..n)
            .flat_map(|s| [[i(s), o(s), o(s + 1)], [i(s), o(s + 1), i(s + 1)]])
            .collect();
        Mesh::new(pos, tris).expect("valid annulus")
    }

    /// A half sphere of radius 1 about the origin, `z >= 0`, counter-clockwise from outside.
    fn half_sphere(rings: usize, segments: usize) -> Mesh {
        let mut pos = vec![Point3::new(0.0, 0.0, 1.0)];
        for r in 1..=rings {
            let th = std::f32::consts::FRAC_PI_2 * r as f32 / rings as f32;
            for s in 0..segments {
                let ph = std::f32::consts::TAU * s as f32 / segments as f32;
                pos.push(Point3::new(
                    th.sin() * ph.cos(),
                    th.sin() * ph.sin(),
                    th.cos(),
                ));
            }
        }
        let ring = |r: usize, s: usize| (1 + (r - 1) * segments + s % segments) as u32;
        let mut tris = Vec::new();
        for s in 0..segments {
            tris.push([0, ring(1, s), ring(1, s + 1)]);
        }
        for r in 1..rings {
            for s in 0..segments {
                let (a, b, c, d) = (
                    ring(r, s),
                    ring(r, s + 1),
                    ring(r + 1, s),
                    ring(r + 1, s + 1),
                );
                tris.push([a, c, d]);
                tris.push([a, d, b]);
            }
        }
        Mesh::new(pos, tris).expect("valid half sphere")
    }

    /// The unit cube as 12 x 12 quads per face, outward, with one quad missing on the top
    /// face and a 4 x 4 window missing on a side.
    fn holed_box() -> Mesh {
        let n = 12;
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for face in 0..6 {
            let (axis, high) = (face / 2, face % 2 == 1);
            let base = pos.len() as u32;
            for j in 0..=n {
                for i in 0..=n {
                    let (s, t) = (i as f32 / n as f32, j as f32 / n as f32);
                    let mut p = [0.0f32; 3];
                    p[axis] = if high { 1.0 } else { 0.0 };
                    p[(axis + 1) % 3] = s;
                    p[(axis + 2) % 3] = t;
                    pos.push(Point3::from(p));
                }
            }
            for j in 0..n {
                for i in 0..n {
                    let skip = (face == 5 && i == 3 && j == 7)
                        || (face == 0 && (4..8).contains(&i) && (2..6).contains(&j));
                    if skip {
                        continue;
                    }
                    let v = |i: usize, j: usize| base + (j * (n + 1) + i) as u32;
                    let (a, b, c, d) = (v(i, j), v(i + 1, j), v(i, j + 1), v(i + 1, j + 1));
                    if high {
                        tris.push([a, b, d]);
                        tris.push([a, d, c]);
                    } else {
                        tris.push([a, d, b]);
                        tris.push([a, c, d]);
                    }
                }
            }
        }
        Mesh::new(pos, tris).expect("valid box")
    }
}
