//! Pre-splitting of badly boxed triangles before the build (early split clipping, after
//! Karras and Aila 2013). A long thin triangle lying across the axes has a box far larger
//! than itself, which every ray passing near it enters. Such a triangle is given several
//! references, each with the box of the part of the triangle in one cell of a power-of-two
//! grid over the mesh, so that the tree can place the parts apart.
//!
//! Every reference keeps the whole triangle (a leaf tests it entirely), and the union of its
//! references' boxes covers it, so each point of the triangle lies in some reference's box:
//! a query that reaches the triangle without splitting reaches it with splitting too. A
//! triangle in several leaf slots is found once per slot; the queries that enumerate
//! triangles report it once.
//!
//! Each slot of a split triangle keeps which of its pieces it holds, so that a refit after
//! the vertices move boxes that piece of the moved triangle, and a loaded mesh checks that
//! its slots' leaf boxes hold the pieces.

use rayon::prelude::*;
use raypick_primitives::{Aabb, Point3, Real, Triangle};

use super::leaf_tris::LeafTriangles;

/// Boxes up to this many times the least area their triangle's parts could have are left
/// alone (a right triangle in an axis plane has twice that area, a well-shaped tilted one
/// about three times).
const SLACK: f64 = 2.0;
/// The most boxes one triangle gets.
pub(crate) const MAX_PIECES: usize = 64;
/// Triangle counts from which the box areas are summed and the candidates found on rayon.
const PARALLEL: usize = 1 << 15;

/// Half the surface area of `b` (f32 products: a heuristic's measure).
#[inline(always)]
fn half_area(b: &Aabb) -> f64 {
    let (x, y, z) = (b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z);
    f64::from(x * y + y * z + z * x)
}

/// How much the half area of triangle `c`'s box `b` exceeds [`SLACK`] times the sum of the
/// triangle's areas projected on the three axis planes (the half area its parts' boxes
/// approach as it is split finer); 0 when it does not, or for a degenerate triangle.
fn excess(c: &[Point3<Real>; 3], b: &Aabb) -> f64 {
    let [a, p, q] = c.map(|v| v.cast::<f64>());
    let n = (p - a).cross(&(q - a));
    let projected = 0.5 * (n.x.abs() + n.y.abs() + n.z.abs());
    let e = half_area(b) - SLACK * projected;
    if projected > 0.0 && e > 0.0 {
        e
    } else {
        0.0
    }
}

/// The references to build over: the boxes and, when some triangle was split, the triangle
/// of each box and which of its pieces it is (`None`: `boxes` unchanged, one per triangle in
/// order). A triangle gets one more box per `unit` times the mean box half area of the mesh
/// in its excess, up to [`MAX_PIECES`]; `unit <= 0` (or NaN) splits nothing.
/// Deterministic: the same input gives the same references whatever the thread count.
pub(crate) fn presplit(
    positions: &[Point3<Real>],
    triangles: &[[u32; 3]],
    boxes: Vec<Aabb>,
    unit: f32,
) -> (Vec<Aabb>, Option<Refs>) {
    if unit.is_nan() || unit <= 0.0 || triangles.is_empty() {
        return (boxes, None);
    }
    let corners = |t: &[u32; 3]| t.map(|i| positions[i as usize]);
    // Sums by fixed chunks, so that the mean does not depend on how rayon splits the work;
    // and the largest half area, which rules out most meshes at once.
    let chunk_sum = |c: &[Aabb]| {
        c.iter()
            .map(half_area)
            .fold((0.0, 0.0f64), |(s, m), a| (s + a, m.max(a)))
    };
    let sums: Vec<(f64, f64)> = if boxes.len() >= PARALLEL {
        boxes.par_chunks(PARALLEL).map(chunk_sum).collect()
    } else {
        boxes.chunks(PARALLEL).map(chunk_sum).collect()
    };
    let step = f64::from(unit) * sums.iter().map(|s| s.0).sum::<f64>() / boxes.len() as f64;
    if step.is_nan() || step <= 0.0 || step.is_infinite() {
        return (boxes, None);
    }
    if sums.iter().all(|s| s.1 <= step) {
        return (boxes, None);
    }
    // The excess is below the box's half area: most triangles are ruled out by their box.
    let pieces = |i: usize| {
        let b = &boxes[i];
        if half_area(b) <= step {
            return 1;
        }
        let e = excess(&corners(&triangles[i]), b);
        1 + ((e / step) as usize).min(MAX_PIECES - 1)
    };
    let any = if boxes.len() >= PARALLEL {
        (0..boxes.len()).into_par_iter().any(|i| pieces(i) > 1)
    } else {
        (0..boxes.len()).any(|i| pieces(i) > 1)
    };
    if !any {
        return (boxes, None);
    }
    let scene = boxes.iter().fold(Aabb::EMPTY, |u, b| u.union(b));
    let mut out = Vec::with_capacity(boxes.len());
    let mut refs = Refs {
        triangle: Vec::with_capacity(boxes.len()),
        piece: Vec::with_capacity(boxes.len()),
        count: Vec::with_capacity(boxes.len()),
    };
    for (i, b) in boxes.iter().enumerate() {
        let n = pieces(i);
        if n == 1 {
            out.push(*b);
            refs.triangle.push(i as u32);
            refs.piece.push(Piece::WHOLE);
            refs.count.push(1);
        } else {
            split_ranges(
                &corners(&triangles[i]),
                *b,
                n,
                &scene,
                &mut |piece, range| {
                    out.push(piece);
                    refs.triangle.push(i as u32);
                    refs.piece.push(range);
                    refs.count.push(n as u8);
                },
            );
        }
    }
    (out, Some(refs))
}

/// What [`presplit`] made of each reference: its triangle, and its piece of the triangle as
/// the range of the triangle's pieces it stands for, out of `count`.
pub(crate) struct Refs {
    pub(crate) triangle: Vec<u32>,
    pub(crate) piece: Vec<Piece>,
    pub(crate) count: Vec<u8>,
}

/// A part of a triangle cut into `count` pieces by [`split_ranges`]: pieces `start..start + span`,
/// which a box made at one step of the cut holds together (one piece, unless the cut could
/// not go on there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) start: u8,
    pub(crate) span: u8,
}

impl Piece {
    /// All pieces: the whole triangle (a span past any count).
    pub(crate) const WHOLE: Piece = Piece {
        start: 0,
        span: u8::MAX,
    };
}

/// Which part of a pre-split triangle a leaf slot holds: `piece` of the `count` pieces that
/// [`split_ranges`] cuts it into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotPiece {
    pub(crate) slot: u32,
    pub(crate) piece: Piece,
    pub(crate) count: u8,
}

/// The box of `piece` of the `count` pieces that [`split_ranges`] cuts triangle `c` into, the grid
/// being over `scene`: the cut is followed down while one side's range of pieces holds all
/// of `piece`, and that step's box is the answer (the whole triangle's box when `piece`
/// spans everything). O(depth of the cut).
///
/// Whatever the corners are now, the boxes of pieces whose ranges together make
/// `0..count` cover the triangle: every step of the cut that a range stops at holds the
/// parts of all the steps below it.
pub(crate) fn piece_box(c: &[Point3<Real>; 3], piece: Piece, count: u8, scene: &Aabb) -> Aabb {
    let mut b = Aabb::from_point(c[0]).grow(&c[1]).grow(&c[2]);
    let (want, end) = (
        usize::from(piece.start),
        usize::from(piece.start) + usize::from(piece.span),
    );
    let (mut start, mut n) = (0usize, usize::from(count));
    while n > 1 {
        match cut(c, &b, scene) {
            Cut::Two(l, r) => {
                let nl = left_share(&l, &r, n);
                if end <= start + nl {
                    (b, n) = (l, nl);
                } else if want >= start + nl {
                    (b, start, n) = (r, start + nl, n - nl);
                } else {
                    break;
                }
            }
            Cut::One(one) => b = one,
            Cut::None => break,
        }
    }
    grown(b, scene)
}

/// `b` grown on every side by a few f32 steps of the mesh's largest coordinate: the
/// watertight kernel decides its edges in f32 after moving the triangle by the ray's
/// origin, so it may take a hit a rounding error off the exact triangle. A whole triangle's
/// box reaches far past its edges except at its extreme corners; a part's box ends at the
/// cut, right where the cut crosses an edge, so it is grown by that error, for ray origins
/// as far out as the mesh's own coordinates (the fuzz target found a ray from a point on an
/// edge, where a cut at 0 crosses it, missed).
fn grown(b: Aabb, scene: &Aabb) -> Aabb {
    let m = [scene.min, scene.max]
        .iter()
        .flat_map(|p| p.iter().map(|c| c.abs()))
        .fold(0.0f32, f32::max);
    let d = 16.0 * Real::EPSILON * m.max(Real::MIN_POSITIVE);
    Aabb::new(
        Point3::new(b.min.x - d, b.min.y - d, b.min.z - d),
        Point3::new(b.max.x + d, b.max.y + d, b.max.z + d),
    )
}

/// How many of `pieces` the left part `l` gets beside `r`: a share by their lengths, at
/// least one each.
fn left_share(l: &Aabb, r: &Aabb, pieces: usize) -> usize {
    let (wl, wr) = (f64::from(l.extents().max()), f64::from(r.extents().max()));
    let share = pieces as f64 * wl / (wl + wr);
    if share.is_finite() {
        (share.round() as usize).clamp(1, pieces - 1)
    } else {
        pieces / 2
    }
}

/// Emits up to `pieces` boxes that together cover the part of triangle `c` inside `b`, each
/// with the range of pieces it stands for: `b` is cut at the coarsest grid plane of `scene`
/// across its longest axis, each side's part gets a share of the pieces by its length, and
/// so on down to one piece, or to a part the cut cannot divide.
pub(crate) fn split_ranges(
    c: &[Point3<Real>; 3],
    b: Aabb,
    pieces: usize,
    scene: &Aabb,
    emit: &mut impl FnMut(Aabb, Piece),
) {
    fn go(
        c: &[Point3<Real>; 3],
        b: Aabb,
        start: usize,
        pieces: usize,
        scene: &Aabb,
        emit: &mut impl FnMut(Aabb, Piece),
    ) {
        let range = Piece {
            start: start as u8,
            span: pieces as u8,
        };
        if pieces <= 1 {
            emit(grown(b, scene), range);
            return;
        }
        match cut(c, &b, scene) {
            Cut::Two(l, r) => {
                let nl = left_share(&l, &r, pieces);
                go(c, l, start, nl, scene, emit);
                go(c, r, start + nl, pieces - nl, scene, emit);
            }
            Cut::One(one) => go(c, one, start, pieces, scene, emit),
            Cut::None => emit(grown(b, scene), range),
        }
    }
    go(c, b, 0, pieces.min(MAX_PIECES), scene, emit);
}

/// Whether the boxes `leaves` cover triangle `c` (whose box is `b`) the way [`split_ranges`] covers
/// it: the same cuts, stopping where a part's box lies inside one of `leaves`. Used to check
/// a loaded mesh, whose leaf boxes must hold the parts of a triangle stored in several
/// slots. At most `budget` parts are looked at; false beyond.
pub(crate) fn covered(c: &[Point3<Real>; 3], b: Aabb, scene: &Aabb, leaves: &[Aabb]) -> bool {
    fn go(
        c: &[Point3<Real>; 3],
        b: Aabb,
        scene: &Aabb,
        leaves: &[Aabb],
        budget: &mut usize,
    ) -> bool {
        if leaves.iter().any(|l| l.contains_aabb(&b)) {
            return true;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match cut(c, &b, scene) {
            Cut::Two(l, r) => go(c, l, scene, leaves, budget) && go(c, r, scene, leaves, budget),
            Cut::One(one) => go(c, one, scene, leaves, budget),
            Cut::None => false,
        }
    }
    // A triangle split into n pieces was cut at most n - 1 times (plus single-sided cuts,
    // each of which tightens a box and is rare); 4 * MAX_PIECES bounds the work.
    go(c, b, scene, leaves, &mut (4 * MAX_PIECES))
}

enum Cut {
    Two(Aabb, Aabb),
    One(Aabb),
    None,
}

/// `b` (holding part of triangle `c`) cut at the coarsest grid plane across its longest
/// axis: the boxes of the triangle's part on each side.
fn cut(c: &[Point3<Real>; 3], b: &Aabb, scene: &Aabb) -> Cut {
    let axis = b.largest_axis();
    let Some(s) = grid_plane(scene.min[axis], scene.max[axis], b.min[axis], b.max[axis]) else {
        return Cut::None;
    };
    match clip(c, b, axis, s) {
        (Some(l), Some(r)) => Cut::Two(l, r),
        (Some(one), None) | (None, Some(one)) => {
            if one == *b {
                Cut::None
            } else {
                Cut::One(one)
            }
        }
        (None, None) => Cut::None,
    }
}

/// The coarsest plane of the power-of-two grid over `[lo, hi]` strictly inside `(a, b)`,
/// else `(a, b)`'s midpoint when it lies strictly inside.
fn grid_plane(lo: Real, hi: Real, a: Real, b: Real) -> Option<Real> {
    let ext = hi - lo;
    if ext.is_nan() || ext <= 0.0 || b.partial_cmp(&a) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let mut cell = ext;
    for _ in 0..24 {
        cell *= 0.5;
        let s = lo + (((a - lo) / cell).floor() + 1.0) * cell;
        if s > a && s < b {
            return Some(s);
        }
    }
    let s = a + (b - a) * 0.5;
    (s > a && s < b).then_some(s)
}

/// The boxes of triangle `c`'s points on each side of the plane `x[axis] = s` (the plane's
/// own points on both), each cut to `b`; `None` for a side with none of them in `b`. The
/// points where edges cross the plane are computed in f64 and their box widened by one f32
/// step, so the boxes hold the exact parts.
fn clip(c: &[Point3<Real>; 3], b: &Aabb, axis: usize, s: Real) -> (Option<Aabb>, Option<Aabb>) {
    let mut left = Aabb::EMPTY;
    let mut right = Aabb::EMPTY;
    for v in c {
        if v[axis] <= s {
            left = left.grow(v);
        }
        if v[axis] >= s {
            right = right.grow(v);
        }
    }
    for i in 0..3 {
        let (p, q) = (c[i], c[(i + 1) % 3]);
        if (p[axis] < s && q[axis] > s) || (p[axis] > s && q[axis] < s) {
            let (pd, qd) = (p.cast::<f64>(), q.cast::<f64>());
            let f = (f64::from(s) - pd[axis]) / (qd[axis] - pd[axis]);
            let x = pd + (qd - pd) * f;
            let mut lo = Point3::new(x.x as Real, x.y as Real, x.z as Real);
            let mut hi = lo;
            for k in 0..3 {
                if k == axis {
                    (lo[k], hi[k]) = (s, s);
                } else {
                    (lo[k], hi[k]) = (lo[k].next_down(), hi[k].next_up());
                }
            }
            let crossing = Aabb::new(lo, hi);
            left = left.union(&crossing);
            right = right.union(&crossing);
        }
    }
    let within = |x: Aabb| {
        let m = Aabb::new(
            Point3::new(
                x.min.x.max(b.min.x),
                x.min.y.max(b.min.y),
                x.min.z.max(b.min.z),
            ),
            Point3::new(
                x.max.x.min(b.max.x),
                x.max.y.min(b.max.y),
                x.max.z.min(b.max.z),
            ),
        );
        (m.min.x <= m.max.x && m.min.y <= m.max.y && m.min.z <= m.max.z).then_some(m)
    };
    (within(left), within(right))
}

/// The `Mesh::split` and `Mesh::secondary` bits of leaf order `prims` over
/// `triangle_count` triangles (every index below it): both empty when there are no more
/// slots than triangles.
pub(crate) fn split_slots(prims: &[u32], triangle_count: usize) -> (Vec<u64>, Vec<u64>) {
    if prims.len() <= triangle_count {
        return (Vec::new(), Vec::new());
    }
    let mut seen = vec![0u64; triangle_count.div_ceil(64)];
    let mut again = vec![0u64; triangle_count.div_ceil(64)];
    let mut secondary = vec![0u64; prims.len().div_ceil(64)];
    for (pos, &p) in prims.iter().enumerate() {
        let (w, bit) = (p as usize / 64, 1u64 << (p % 64));
        if seen[w] & bit != 0 {
            secondary[pos / 64] |= 1 << (pos % 64);
            again[w] |= bit;
        }
        seen[w] |= bit;
    }
    let mut split = vec![0u64; prims.len().div_ceil(64)];
    for (pos, &p) in prims.iter().enumerate() {
        if again[p as usize / 64] >> (p % 64) & 1 != 0 {
            split[pos / 64] |= 1 << (pos % 64);
        }
    }
    (split, secondary)
}

/// The `Mesh::pieces` of a freshly built mesh: for each slot marked in `split`, the piece
/// of the reference it holds (`refs_of_slots`: the builder's leaf order over the references).
pub(crate) fn slot_pieces(split: &[u64], refs_of_slots: &[u32], refs: &Refs) -> Vec<SlotPiece> {
    (0..refs_of_slots.len())
        .filter(|&pos| bit(split, pos))
        .map(|pos| {
            let r = refs_of_slots[pos] as usize;
            SlotPiece {
                slot: pos as u32,
                piece: refs.piece[r],
                count: refs.count[r],
            }
        })
        .collect()
}

/// The boxes a refit gives the leaves: their triangles' boxes, but for the slots of a
/// pre-split triangle the box of their piece of it, cut on the grid over the moved mesh.
pub(crate) struct SlotBoxes<'a> {
    tris: &'a LeafTriangles,
    split: &'a [u64],
    pieces: &'a [SlotPiece],
    scene: Aabb,
}

impl<'a> SlotBoxes<'a> {
    pub(crate) fn new(tris: &'a LeafTriangles, split: &'a [u64], pieces: &'a [SlotPiece]) -> Self {
        let tri_box = |c: [Point3<Real>; 3]| Triangle::new(c[0], c[1], c[2]).aabb();
        let scene = if pieces.is_empty() {
            Aabb::EMPTY
        } else {
            tris.iter().fold(Aabb::EMPTY, |u, c| u.union(&tri_box(c)))
        };
        SlotBoxes {
            tris,
            split,
            pieces,
            scene,
        }
    }

    /// The box of leaf slots `r`.
    pub(crate) fn leaf(&self, r: std::ops::Range<usize>) -> Aabb {
        if self.pieces.is_empty() || !r.clone().any(|pos| bit(self.split, pos)) {
            return self.tris.leaf_box(r);
        }
        r.map(|pos| {
            let c = self.tris.get(pos);
            let piece = bit(self.split, pos)
                .then(|| self.pieces.binary_search_by_key(&(pos as u32), |p| p.slot))
                .and_then(Result::ok)
                .map(|i| self.pieces[i]);
            match piece {
                Some(p) => piece_box(&c, p.piece, p.count, &self.scene),
                None => Triangle::new(c[0], c[1], c[2]).aabb(),
            }
        })
        .fold(Aabb::EMPTY, |u, b| u.union(&b))
    }
}

/// Bit `i` of `bits` (false beyond its end).
#[inline]
pub(crate) fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use raypick_primitives::Triangle;

    fn pt(x: f32, y: f32, z: f32) -> Point3<Real> {
        Point3::new(x, y, z)
    }

    /// Pieces of slivers cover every sampled point of their triangle (barycentric grid,
    /// corners and edges included), stay inside the triangle's box, and number at most what
    /// was asked.
    #[test]
    fn pieces_cover_the_triangle() {
        let scene = Aabb::new(pt(-3.0, -2.0, -1.0), pt(5.0, 7.0, 3.0));
        let slivers = [
            [
                pt(-2.9, -1.9, -0.9),
                pt(4.9, 6.9, 2.9),
                pt(-2.8, -1.9, -0.9),
            ],
            [pt(0.1, 0.3, 0.0), pt(4.0, 6.5, 0.0), pt(0.12, 0.31, 0.0)],
            [pt(1.0, 1.0, 1.0), pt(1.0, 6.0, 2.5), pt(1.0, 1.0, 1.01)],
            [pt(-1.0, 0.0, 0.0), pt(3.0, 0.1, 0.0), pt(-1.0, 0.0, 0.0)],
        ];
        for c in &slivers {
            let b = Triangle::new(c[0], c[1], c[2]).aabb();
            for n in [2, 3, 7, 64] {
                let mut pieces = Vec::new();
                split_ranges(c, b, n, &scene, &mut |p, _| pieces.push(p));
                assert!(
                    !pieces.is_empty() && pieces.len() <= n,
                    "{} pieces",
                    pieces.len()
                );
                assert!(pieces.iter().all(|p| grown(b, &scene).contains_aabb(p)));
                let k = 64;
                for i in 0..=k {
                    for j in 0..=k - i {
                        let (u, v) = (i as f64 / k as f64, j as f64 / k as f64);
                        let [a, p, q] = c.map(|x| x.cast::<f64>());
                        let x = a + (p - a) * u + (q - a) * v;
                        let x = pt(x.x as f32, x.y as f32, x.z as f32);
                        // The rounded sample may leave the exact triangle by an ulp: test it
                        // against the pieces grown by a few ulps.
                        let near = |p: &Aabb| {
                            (0..3).all(|k| {
                                let pad = 4.0 * f32::EPSILON * x[k].abs().max(1.0);
                                p.min[k] - pad <= x[k] && x[k] <= p.max[k] + pad
                            })
                        };
                        assert!(pieces.iter().any(near), "{x:?} not covered, n {n}");
                    }
                }
                assert!(
                    covered(c, b, &scene, &pieces),
                    "the pieces pass the load check"
                );
                if pieces.len() > 1 {
                    assert!(
                        !covered(c, b, &scene, &pieces[1..]),
                        "one piece missing fails the load check"
                    );
                }
            }
        }
    }

    /// A sliver across the axes is split, well-shaped and axis-aligned triangles are not,
    /// and the references map back to their triangles in order.
    #[test]
    fn only_slivers_split() {
        let positions = vec![
            pt(0.0, 0.0, 0.0),
            pt(1.0, 0.0, 0.0),
            pt(0.0, 1.0, 0.0),
            pt(1.0, 1.0, 1.0),
            pt(0.5, 0.0, 1.0),
            pt(40.0, 30.0, 20.0),
            pt(0.01, 0.0, 0.0),
        ];
        let mut triangles = vec![[0, 1, 2], [0, 1, 3], [1, 2, 4]];
        triangles.push([0, 5, 6]);
        let boxes: Vec<Aabb> = triangles
            .iter()
            .map(|t| {
                Triangle::new(
                    positions[t[0] as usize],
                    positions[t[1] as usize],
                    positions[t[2] as usize],
                )
                .aabb()
            })
            .collect();
        let (none, refs) = presplit(&positions, &triangles, boxes.clone(), 0.0);
        assert!(refs.is_none() && none == boxes);
        let (split_boxes, refs) = presplit(&positions, &triangles, boxes.clone(), 1.0);
        let refs = refs.expect("the sliver is split");
        let scene = boxes.iter().fold(Aabb::EMPTY, |u, b| u.union(b));
        let c = [positions[0], positions[5], positions[6]];
        let n = refs.count[3];
        for (k, b) in split_boxes[3..].iter().enumerate() {
            // The sliver splits cleanly: one piece per box, in order.
            assert_eq!(
                refs.piece[3 + k],
                Piece {
                    start: k as u8,
                    span: 1
                }
            );
            assert_eq!(piece_box(&c, refs.piece[3 + k], n, &scene), *b);
        }
        assert_eq!(usize::from(n), split_boxes.len() - 3);
        let whole = Triangle::new(c[0], c[1], c[2]).aabb();
        assert_eq!(piece_box(&c, Piece::WHOLE, n, &scene), grown(whole, &scene));
        // A range of several pieces gets the box of the step that holds them all.
        let pair = piece_box(&c, Piece { start: 0, span: 2 }, n, &scene);
        assert!(pair.contains_aabb(&split_boxes[3]) && pair.contains_aabb(&split_boxes[4]));
        let refs = refs.triangle;
        assert_eq!(split_boxes.len(), refs.len());
        assert_eq!(
            &refs[..3],
            &[0, 1, 2],
            "the others keep one box each, in order"
        );
        assert_eq!(&split_boxes[..3], &boxes[..3]);
        assert!(refs[3..].iter().all(|&r| r == 3) && refs.len() > 4);
    }
}
