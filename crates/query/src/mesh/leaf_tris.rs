//! The mesh's triangle corners in leaf order, laid out for the SIMD triangle kernel.
//!
//! Each leaf of the tree is cut into groups of up to [`GROUP`] consecutive slots (from the
//! leaf's first slot on). A group of `n` triangles starting at slot `s` is stored as 9 rows
//! of `n` floats from float `9 * s`: row `3 * corner + axis` holds that coordinate of the
//! group's triangles, lane `slot - s`. So a leaf's triangles still take 36 contiguous bytes
//! each, as the plain `[a, b, c]` layout did, and the kernel loads each row with one vector
//! load instead of transposing 8 triangles in registers (measured: -5% instructions per
//! closest hit on bunny). Random access by slot (a hit's corners, all hits, nearest point,
//! overlaps) finds the slot's group with a bit set of group starts.

use std::ops::Range;

use rayon::join;
use rayon::prelude::*;
use raypick_primitives::simd::huge_page_vec;
use raypick_primitives::{point_triangle_lower_bounds, Aabb, Point3, Real, Triangle};

/// The largest group: the kernel's lane count.
pub(crate) const GROUP: usize = 8;

/// Floats after the last group, so that the kernel's 8-lane loads of every row of the last
/// group stay inside the array (row 8 of a group of `n` reads floats `8n .. 8n + 8`), and
/// that [`LeafTriangles::at`] can read a whole group's worth from any group.
const TAIL: usize = 9 * GROUP;

/// Slots from which `fill` splits its work in two for rayon.
const PARALLEL_SLOTS: usize = 16 * 1024;

/// A triangle's place: lane `lane` of the group of `n` triangles from slot `start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    start: u32,
    n: u32,
    lane: u32,
}

impl Slot {
    /// Lane `lane` of the group of `n` from slot `start` (slots fit in `u32`: see
    /// [`MeshError::TooManyTriangles`](super::MeshError)).
    #[inline(always)]
    pub(crate) fn new(start: usize, n: usize, lane: usize) -> Self {
        Self {
            start: start as u32,
            n: n as u32,
            lane: lane as u32,
        }
    }

    /// The leaf-order slot.
    #[inline(always)]
    pub(crate) fn pos(self) -> usize {
        (self.start + self.lane) as usize
    }
}

/// The triangles of a mesh in leaf order, with their degenerate flags.
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafTriangles {
    /// `9 * len + TAIL` floats, the groups' rows (see the module doc), then zeros.
    rows: Vec<f32>,
    /// Bit `s` set when a group starts at slot `s`.
    starts: Vec<u64>,
    /// Bit `s` set when the triangle in slot `s` is degenerate (zero area).
    degenerate: Vec<u64>,
    len: usize,
}

/// The groups of the slots `range` of one leaf: `(start, n)`, `n` in `1..=GROUP`.
#[inline(always)]
pub(crate) fn groups(range: Range<usize>) -> impl Iterator<Item = (usize, usize)> {
    let end = range.end;
    range.step_by(GROUP).map(move |s| (s, (end - s).min(GROUP)))
}

impl LeafTriangles {
    /// The triangles `tris` (in leaf order, finite corners) grouped by the leaves `leaves`
    /// (the tree's leaf ranges, which cover `0..tris.len()`), with their degenerate flags:
    /// the plain sequential writer, the tests' reference for [`LeafTriangles::fill`].
    #[cfg(test)]
    pub(crate) fn new(tris: &[[Point3<Real>; 3]], leaves: &[Range<usize>]) -> Self {
        let mut out = Self::zeroed(tris.len(), leaves);
        for leaf in leaves {
            for (s, n) in groups(leaf.clone()) {
                let group = &mut out.rows[9 * s..9 * (s + n)];
                for (j, tri) in tris[s..s + n].iter().enumerate() {
                    write_lane(group, n, j, tri);
                }
            }
        }
        for (pos, tri) in tris.iter().enumerate() {
            if zero_cross(tri) {
                out.degenerate[pos / 64] |= 1 << (pos % 64);
            }
        }
        out
    }

    /// The triangles `indices` (leaf order) of `positions` (indices in range, finite
    /// positions) grouped by the leaves `leaves` (the tree's leaf ranges, which cover
    /// `0..indices.len()`), with their degenerate flags; in parallel as [`LeafTriangles::fill`].
    pub(crate) fn from_indices(
        indices: &[[u32; 3]],
        positions: &[Point3<Real>],
        leaves: &[Range<usize>],
    ) -> Self {
        let mut out = Self::zeroed(indices.len(), leaves);
        out.fill(indices, positions);
        out
    }

    /// `len` zero triangles grouped by the leaves `leaves` (which cover `0..len`).
    fn zeroed(len: usize, leaves: &[Range<usize>]) -> Self {
        let words = len.div_ceil(64);
        let mut starts = vec![0u64; words];
        for leaf in leaves {
            for (s, _) in groups(leaf.clone()) {
                starts[s / 64] |= 1 << (s % 64);
            }
        }
        let mut rows = huge_page_vec(9 * len + TAIL);
        // Zeroed in parallel when large and there are threads to share it: the first touch
        // of each page is most of the cost (one thread zeroes faster with `resize`).
        if len >= PARALLEL_SLOTS && rayon::current_num_threads() > 1 {
            rows.par_extend(rayon::iter::repeat_n(0.0, 9 * len + TAIL));
        } else {
            rows.resize(9 * len + TAIL, 0.0);
        }
        Self {
            rows,
            starts,
            degenerate: vec![0; words],
            len,
        }
    }

    /// The rows of the group starting at slot `start`, through the end of the array (the
    /// kernel reads past a short group).
    #[inline(always)]
    pub(crate) fn group_rows(&self, start: usize) -> &[f32] {
        &self.rows[9 * start..]
    }

    /// Where the rows of the group starting at slot `start` begin (for prefetching: any
    /// `start` gives an address, never read through here).
    #[inline(always)]
    pub(crate) fn rows_ptr(&self, start: usize) -> *const u8 {
        self.rows.as_ptr().wrapping_add(9 * start).cast()
    }

    /// The address of the word holding slot `pos`'s degenerate flag (for a prefetch; never
    /// read through, so any `pos` will do).
    #[inline(always)]
    pub(crate) fn degenerate_ptr(&self, pos: usize) -> *const u64 {
        self.degenerate.as_ptr().wrapping_add(pos / 64)
    }

    /// True when the triangle in slot `pos` is degenerate.
    #[inline(always)]
    pub(crate) fn is_degenerate(&self, pos: usize) -> bool {
        self.degenerate[pos / 64] & (1 << (pos % 64)) != 0
    }

    /// The group holding slot `pos < len`.
    #[inline]
    fn slot(&self, pos: usize) -> Slot {
        let (w, b) = (pos / 64, pos % 64);
        // Slot 0 starts a group, so a start at or below `pos` exists, in this word or the
        // one before (groups span at most 8 slots).
        let below = self.starts[w] & (u64::MAX >> (63 - b));
        let start = if below != 0 {
            64 * w + 63 - below.leading_zeros() as usize
        } else {
            64 * (w - 1) + 63 - self.starts[w - 1].leading_zeros() as usize
        };
        let above = self.starts[w] & !(u64::MAX >> (63 - b));
        let next = if above != 0 {
            64 * w + above.trailing_zeros() as usize
        } else {
            match self.starts.get(w + 1) {
                Some(&bits) if bits != 0 => 64 * (w + 1) + bits.trailing_zeros() as usize,
                _ => self.len,
            }
        };
        Slot::new(
            start,
            next.min(self.len).min(start + GROUP) - start,
            pos - start,
        )
    }

    /// The corners of the triangle in slot `pos`; `pos < len`.
    #[inline]
    pub(crate) fn get(&self, pos: usize) -> [Point3<Real>; 3] {
        self.at(self.slot(pos))
    }

    /// The corners of the triangle at `slot` (a slot of one of the groups).
    #[inline(always)]
    pub(crate) fn at(&self, slot: Slot) -> [Point3<Real>; 3] {
        // A whole group's worth of floats (the tail makes room for it after any group), and
        // indices that provably stay below 72: one bounds check instead of nine.
        let rows: &[f32; 9 * GROUP] = self.rows[9 * slot.start as usize..][..9 * GROUP]
            .try_into()
            .expect("9 * GROUP floats");
        lane_corners(rows, slot.n as usize, slot.lane as usize)
    }

    /// The corners of the triangles in slots `range` of one leaf, in order.
    #[inline]
    pub(crate) fn leaf(&self, range: Range<usize>) -> impl Iterator<Item = [Point3<Real>; 3]> + '_ {
        self.leaf_slots(range).map(|slot| self.at(slot))
    }

    /// For each triangle of the leaf `range` that may hold a point within squared distance
    /// `*bound` of `p`, calls `f(slot, corners, bound)` in order (`f` may lower the bound).
    ///
    /// The rejection is [`point_triangle_lower_bounds`], 4 or 8 lanes at a time from the rows
    /// (lanes past a group's end are discarded), whose root may exceed the distance by
    /// `1e-5 * scale` (`scale` at least the largest coordinate magnitude of `p` and the
    /// mesh; infinite turns the rejection off): a triangle holding the nearest point or a
    /// tie is never dropped. (A box test before it
    /// rejected little that the bound does not, and cost 4% on sphere_1m grid rows.)
    #[inline(always)]
    pub(crate) fn for_each_near(
        &self,
        range: Range<usize>,
        p: &Point3<Real>,
        scale: Real,
        bound: &mut Real,
        mut f: impl FnMut(usize, [Point3<Real>; 3], &mut Real),
    ) {
        let q = [p.x, p.y, p.z];
        let slack = 1e-5 * scale;
        #[cfg(target_arch = "x86_64")]
        let cpu = raypick_primitives::simd::CpuPath::best();
        let reach = |bound: Real| {
            let r = bound.sqrt() + slack;
            r * r
        };
        for (start, n) in groups(range) {
            let g: &[f32; 9 * GROUP] = self.rows[9 * start..][..9 * GROUP]
                .try_into()
                .expect("9 * GROUP floats");
            let n = n.min(GROUP);
            // Four lanes when they hold the group (the bound costs per lane), else eight, on
            // AVX2 where the CPU has it.
            let mut lower = [0.0; GROUP];
            if n <= 4 {
                let rows: [[Real; 4]; 9] =
                    std::array::from_fn(|r| std::array::from_fn(|l| g[r * n + l]));
                lower[..4].copy_from_slice(&point_triangle_lower_bounds(q, &rows, scale));
            } else {
                let rows: [[Real; GROUP]; 9] = std::array::from_fn(|r| {
                    std::array::from_fn(|l| g[(r * n + l).min(9 * GROUP - 1)])
                });
                #[cfg(target_arch = "x86_64")]
                {
                    lower = super::triangle_kernel_x86::lower_bounds8(cpu, q, &rows, scale);
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    lower = point_triangle_lower_bounds(q, &rows, scale);
                }
            }
            let mut reach2 = reach(*bound);
            for (j, &lower) in lower.iter().enumerate().take(n) {
                if lower > reach2 {
                    continue;
                }
                f(start + j, lane_corners(g, n, j), bound);
                reach2 = reach(*bound);
            }
        }
    }

    /// The slots of one leaf, in order.
    #[inline]
    pub(crate) fn leaf_slots(&self, range: Range<usize>) -> impl Iterator<Item = Slot> {
        groups(range).flat_map(|(start, n)| (0..n).map(move |lane| Slot::new(start, n, lane)))
    }

    /// Every triangle, in slot order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = [Point3<Real>; 3]> + '_ {
        (0..self.len).map(|pos| self.get(pos))
    }

    /// The box of the triangles in slots `range` of one leaf (not empty): the minimum and
    /// maximum of each row, then of the three corners.
    #[inline]
    pub(crate) fn leaf_box(&self, range: Range<usize>) -> Aabb {
        // Per axis, over the axis's three rows of each group, with the running minimum and
        // maximum in registers. Plain comparisons: the vertices are finite.
        let (mut lo, mut hi) = ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]);
        for (s, n) in groups(range) {
            let g = &self.rows[9 * s..9 * (s + n)];
            for a in 0..3 {
                let (mut l, mut h) = (lo[a], hi[a]);
                for c in 0..3 {
                    for &x in &g[(3 * c + a) * n..(3 * c + a + 1) * n] {
                        l = if x < l { x } else { l };
                        h = if x > h { x } else { h };
                    }
                }
                (lo[a], hi[a]) = (l, h);
            }
        }
        Aabb::new(Point3::from(lo), Point3::from(hi))
    }

    /// Rewrites every triangle from `positions` and the leaf-order vertex indices
    /// `indices`, and recomputes the degenerate flags; in parallel (rayon) from 32,768
    /// triangles, allocation-free.
    pub(crate) fn fill(&mut self, indices: &[[u32; 3]], positions: &[Point3<Real>]) {
        let Self {
            rows,
            starts,
            degenerate,
            len,
        } = self;
        let job = Fill {
            starts,
            indices,
            positions,
            len: *len,
        };
        let tail = rows.len() - TAIL;
        job.run(0..*len, &mut rows[..tail], degenerate);
    }

    /// Bytes held on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.rows.capacity() * size_of::<f32>()
            + (self.starts.capacity() + self.degenerate.capacity()) * size_of::<u64>()
    }
}

/// The corners of lane `j` of a group of `n` (at most `GROUP`), from a window of a whole
/// group's floats: the indices provably stay below 72, so no bounds check.
#[inline(always)]
fn lane_corners(g: &[f32; 9 * GROUP], n: usize, j: usize) -> [Point3<Real>; 3] {
    let (n, j) = (n.min(GROUP), j % GROUP);
    let p = |c: usize| {
        Point3::new(
            g[3 * c * n + j],
            g[(3 * c + 1) * n + j],
            g[(3 * c + 2) * n + j],
        )
    };
    [p(0), p(1), p(2)]
}

/// Writes `tri` as lane `j` of the group of `n` whose rows are `group` (`9n` floats): the
/// tests' plain writer.
#[cfg(test)]
fn write_lane(group: &mut [f32], n: usize, j: usize, tri: &[Point3<Real>; 3]) {
    for (c, p) in tri.iter().enumerate() {
        for a in 0..3 {
            group[(3 * c + a) * n + j] = p[a];
        }
    }
}

/// Writes `tri` as lane `j` of a group of `n` into the group's block: `n` at most `GROUP` and `j < GROUP` (the clamps
/// let the compiler see every index below `9 * GROUP`).
#[inline(always)]
fn write_block_lane(block: &mut [f32; 9 * GROUP], n: usize, j: usize, tri: &[Point3<Real>; 3]) {
    let (n, j) = (n.min(GROUP), j % GROUP);
    for (c, p) in tri.iter().enumerate() {
        for a in 0..3 {
            block[(3 * c + a) * n + j] = p[a];
        }
    }
}

/// `triangle_kernel::is_degenerate` for finite corners, branch-free: the f64 cross product of the
/// edges (products of f32 differences cannot overflow in f64) is exactly zero.
#[inline(always)]
pub(crate) fn zero_cross(tri: &[Point3<Real>; 3]) -> bool {
    let n = Triangle::new(tri[0], tri[1], tri[2]).scaled_normal_f64();
    (n.x == 0.0) & (n.y == 0.0) & (n.z == 0.0)
}

/// The shared inputs of [`LeafTriangles::fill`].
struct Fill<'a> {
    starts: &'a [u64],
    indices: &'a [[u32; 3]],
    positions: &'a [Point3<Real>],
    len: usize,
}

impl Fill<'_> {
    /// The first group start at or after slot `pos` (`len` when none).
    fn next_start(&self, pos: usize) -> usize {
        if pos >= self.len {
            return self.len;
        }
        let (w, b) = (pos / 64, pos % 64);
        let here = self.starts[w] >> b;
        let next = if here != 0 {
            pos + here.trailing_zeros() as usize
        } else {
            // Groups span at most 8 slots: the next start, if any, is in the next word.
            match self.starts.get(w + 1) {
                Some(&bits) if bits != 0 => 64 * (w + 1) + bits.trailing_zeros() as usize,
                _ => self.len,
            }
        };
        next.min(self.len)
    }

    /// Fills the groups that start in `slots` (`slots.start` a multiple of 64): `rows` are
    /// their floats, `degenerate` the flag words from `slots.start / 64` to the end of the
    /// mesh's. A group that runs past `slots.end` is filled here too; its flags past
    /// `slots.end` (in word `slots.end / 64`) are returned rather than written, so that
    /// the two halves of a split never share a word.
    fn run(&self, slots: Range<usize>, rows: &mut [f32], degenerate: &mut [u64]) -> u64 {
        if slots.len() >= PARALLEL_SLOTS {
            let mid = (slots.start + slots.len() / 2) & !63;
            let split = self.next_start(mid);
            let first = self.next_start(slots.start);
            let (left_rows, right_rows) = rows.split_at_mut(9 * (split - first));
            let (left_deg, right_deg) = degenerate.split_at_mut(mid / 64 - slots.start / 64);
            let (carry, right_carry) = join(
                || self.run(slots.start..mid, left_rows, left_deg),
                || self.run(mid..slots.end, right_rows, right_deg),
            );
            right_deg[0] |= carry;
            return right_carry;
        }
        let base = slots.start / 64;
        let mut carry = 0u64;
        let first = self.next_start(slots.start);
        let words = slots.len().div_ceil(64).min(degenerate.len());
        degenerate[..words].iter_mut().for_each(|w| *w = 0);
        let mut s = first;
        let mut off = 0;
        // Each group is written into this block, whose indices provably stay in bounds (no
        // check per float), then copied; only its first `9 * n` floats are ever read.
        let mut block = [0.0; 9 * GROUP];
        while s < slots.end {
            let next = self.next_start(s + 1);
            let n = next - s;
            for j in 0..n {
                let tri = self.indices[s + j].map(|i| self.positions[i as usize]);
                write_block_lane(&mut block, n, j, &tri);
                let zero = zero_cross(&tri);
                debug_assert_eq!(zero, super::triangle_kernel::is_degenerate(&tri));
                if zero {
                    let pos = s + j;
                    if pos >= slots.end {
                        carry |= 1 << (pos % 64);
                    } else {
                        degenerate[pos / 64 - base] |= 1 << (pos % 64);
                    }
                }
            }
            rows[off..off + 9 * n].copy_from_slice(&block[..9 * n]);
            off += 9 * n;
            s = next;
        }
        carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Leaf ranges of random sizes `1..=max` covering `0..len`.
    fn leaves(r: &mut impl Rng, len: usize, max: usize) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut s = 0;
        while s < len {
            let e = (s + r.gen_range(1..=max)).min(len);
            out.push(s..e);
            s = e;
        }
        out
    }

    /// Vertices on a small integer lattice, so that many triangles are degenerate (two
    /// equal or three collinear corners).
    fn lattice(r: &mut impl Rng, count: usize) -> Vec<Point3<Real>> {
        (0..count)
            .map(|_| {
                Point3::new(
                    r.gen_range(0..3) as f32,
                    r.gen_range(0..3) as f32,
                    r.gen_range(-1..2) as f32 * 0.5,
                )
            })
            .collect()
    }

    fn gather(indices: &[[u32; 3]], positions: &[Point3<Real>]) -> Vec<[Point3<Real>; 3]> {
        indices
            .iter()
            .map(|t| t.map(|i| positions[i as usize]))
            .collect()
    }

    fn check(lt: &LeafTriangles, tris: &[[Point3<Real>; 3]], leaves: &[Range<usize>]) {
        assert_eq!(lt.len, tris.len());
        assert_eq!(lt.rows.len(), 9 * tris.len() + TAIL);
        assert!(
            lt.rows[9 * tris.len()..].iter().all(|&x| x == 0.0),
            "tail stays zero"
        );
        for (pos, tri) in tris.iter().enumerate() {
            assert_eq!(lt.get(pos), *tri, "slot {pos}");
            assert_eq!(
                lt.is_degenerate(pos),
                super::super::triangle_kernel::is_degenerate(tri),
                "slot {pos}"
            );
        }
        assert_eq!(lt.iter().collect::<Vec<_>>(), tris);
        for leaf in leaves {
            assert_eq!(
                lt.leaf(leaf.clone()).collect::<Vec<_>>(),
                &tris[leaf.clone()]
            );
            let want = tris[leaf.clone()].iter().fold(Aabb::EMPTY, |b, t| {
                b.union(&Triangle::new(t[0], t[1], t[2]).aabb())
            });
            assert_eq!(lt.leaf_box(leaf.clone()), want);
            // The kernel's layout: row `3 * corner + axis`, lane `slot - start`.
            for (s, n) in groups(leaf.clone()) {
                let rows = lt.group_rows(s);
                for j in 0..n {
                    for c in 0..3 {
                        for a in 0..3 {
                            assert_eq!(rows[(3 * c + a) * n + j], tris[s + j][c][a]);
                        }
                    }
                }
                assert!(
                    rows.len() >= 8 * n + 8,
                    "the kernel may read 8 lanes of every row"
                );
            }
        }
    }

    #[test]
    fn groups_cut_leaves_by_eight() {
        assert_eq!(groups(3..3).count(), 0);
        assert_eq!(groups(5..6).collect::<Vec<_>>(), [(5, 1)]);
        assert_eq!(groups(0..8).collect::<Vec<_>>(), [(0, 8)]);
        assert_eq!(
            groups(10..27).collect::<Vec<_>>(),
            [(10, 8), (18, 8), (26, 1)]
        );
    }

    /// Built and then refilled from moved vertices, every slot, flag, leaf box and row is
    /// what the plain leaf-order gather gives, over sizes that take the sequential and the
    /// split (parallel) fill, and leaves longer than a group.
    #[test]
    fn fill_matches_the_gather() {
        let mut r = rand_pcg::Pcg64::seed_from_u64(7);
        for len in [
            0,
            1,
            2,
            63,
            64,
            65,
            1000,
            2 * PARALLEL_SLOTS + 777,
            4 * PARALLEL_SLOTS,
        ] {
            for max_leaf in [1, 8, 20] {
                let verts = 40;
                let indices: Vec<[u32; 3]> = (0..len)
                    .map(|_| [0; 3].map(|_| r.gen_range(0..verts)))
                    .collect();
                let leaves = leaves(&mut r, len, max_leaf);
                let p0 = lattice(&mut r, verts as usize);
                let tris0 = gather(&indices, &p0);
                let mut lt = LeafTriangles::new(&tris0, &leaves);
                check(&lt, &tris0, &leaves);
                let p1 = lattice(&mut r, verts as usize);
                lt.fill(&indices, &p1);
                check(&lt, &gather(&indices, &p1), &leaves);
                if len > 100 {
                    assert!(
                        (0..len).any(|p| lt.is_degenerate(p))
                            && (0..len).any(|p| !lt.is_degenerate(p))
                    );
                }
            }
        }
    }
}
