//! The mesh's triangles in leaf order, laid out for the SIMD triangle kernel: corners and
//! original indices.
//!
//! Each leaf of the tree is cut into groups of up to [`GROUP`] consecutive slots (from the
//! leaf's first slot on). A group of `n` triangles starting at slot `s` is stored as
//! [`ROWS`] rows of `n` 32-bit words from word `ROWS * s`: row `3 * corner + axis` holds
//! that coordinate of the group's triangles, lane `slot - s`, and row 9 their original
//! triangle indices. So a leaf's triangles take 40 contiguous bytes each, and the kernel
//! loads each row with one vector load instead of transposing 8 triangles in registers
//! (measured: -5% instructions per closest hit on bunny). A closest hit reads its
//! triangle's index and degenerate flag from the lines the kernel has just loaded, where a
//! separate leaf-order array cost a miss per hit on large meshes (measured: +2-13% on the
//! 1M-triangle meshes; docs/performance.md).
//! Random access by slot (a hit's corners, all hits, nearest point, overlaps) finds the
//! slot's group with a bit set of group starts.

use std::ops::Range;

use rayon::join;
use rayon::prelude::*;
use raypick_primitives::simd::huge_page_vec;
use raypick_primitives::{point_triangle_lower_bounds, Aabb, Point3, Real, Triangle};

/// The largest group: the kernel's lane count.
pub(crate) const GROUP: usize = 8;

/// Rows per group: 9 of corners, then the original indices.
pub(crate) const ROWS: usize = 10;

/// Words after the last group, so that the kernel's 8-lane loads of every row of the last
/// group stay inside the array (row 8 of a group of `n` reads words `8n .. 8n + 8`), and
/// that [`LeafTriangles::at`] can read a whole group's worth from any group.
const TAIL: usize = ROWS * GROUP;

/// An original index (below 2^31) as stored in row 9: its bits with bit 30 flipped, so
/// that the word reads as a normal float (exponent 128 or more, for indices below 2^30)
/// where the kernels' 8-lane loads of row 8 run past a short group's end into the index
/// row (those lanes are discarded, but arithmetic on subnormals is slow on some CPUs); bit
/// 31 the degenerate flag.
#[inline(always)]
fn index_word(index: u32, degenerate: bool) -> f32 {
    f32::from_bits((index ^ (1 << 30)) | (u32::from(degenerate) << 31))
}

/// The original index a row-9 word stores ([`index_word`] inverted).
#[inline(always)]
fn word_index(word: f32) -> u32 {
    (word.to_bits() & !(1 << 31)) ^ (1 << 30)
}

/// The degenerate flag of a row-9 word.
#[inline(always)]
fn word_degenerate(word: f32) -> bool {
    word.is_sign_negative()
}

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

/// The triangles of a mesh in leaf order, with their original indices and degenerate flags
/// (zero area: such a triangle never hits a ray).
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafTriangles {
    /// `ROWS * len + TAIL` words, the groups' rows (see the module doc), then zeros.
    rows: Vec<f32>,
    /// Bit `s` set when a group starts at slot `s`.
    starts: Vec<u64>,
    len: usize,
}

/// The groups of the slots `range` of one leaf: `(start, n)`, `n` in `1..=GROUP`.
#[inline(always)]
pub(crate) fn groups(range: Range<usize>) -> impl Iterator<Item = (usize, usize)> {
    let end = range.end;
    range.step_by(GROUP).map(move |s| (s, (end - s).min(GROUP)))
}

impl LeafTriangles {
    /// The triangles `tris` (in leaf order, finite corners) with original indices `prims`
    /// grouped by the leaves `leaves` (the tree's leaf ranges, which cover
    /// `0..tris.len()`): the plain sequential writer, the tests' reference for
    /// [`LeafTriangles::fill`].
    #[cfg(test)]
    pub(crate) fn new(tris: &[[Point3<Real>; 3]], prims: &[u32], leaves: &[Range<usize>]) -> Self {
        let mut out = Self::zeroed(tris.len(), leaves);
        for leaf in leaves {
            for (s, n) in groups(leaf.clone()) {
                let group = &mut out.rows[ROWS * s..ROWS * (s + n)];
                for (j, tri) in tris[s..s + n].iter().enumerate() {
                    write_lane(group, n, j, tri);
                    group[9 * n + j] = index_word(prims[s + j], zero_cross(tri));
                }
            }
        }
        out
    }

    /// The triangles `indices` (leaf order) of `positions` (indices in range, finite
    /// positions), whose original indices are `prims` (leaf order, as long as `indices`),
    /// grouped by the leaves `leaves` (the tree's leaf ranges, which cover
    /// `0..indices.len()`), with their degenerate flags; in parallel as [`LeafTriangles::fill`].
    pub(crate) fn from_indices(
        indices: &[[u32; 3]],
        prims: &[u32],
        positions: &[Point3<Real>],
        leaves: &[Range<usize>],
    ) -> Self {
        let mut out = Self::zeroed(indices.len(), leaves);
        out.fill_rows(indices, Some(prims), positions);
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
        let mut rows = huge_page_vec(ROWS * len + TAIL);
        // Zeroed in parallel when large and there are threads to share it: the first touch
        // of each page is most of the cost (one thread zeroes faster with `resize`).
        if len >= PARALLEL_SLOTS && rayon::current_num_threads() > 1 {
            rows.par_extend(rayon::iter::repeat_n(0.0, ROWS * len + TAIL));
        } else {
            rows.resize(ROWS * len + TAIL, 0.0);
        }
        Self { rows, starts, len }
    }

    /// The rows of the group starting at slot `start`, through the end of the array (the
    /// kernel reads past a short group).
    #[inline(always)]
    pub(crate) fn group_rows(&self, start: usize) -> &[f32] {
        &self.rows[ROWS * start..]
    }

    /// Where the rows of the group starting at slot `start` begin (for prefetching: any
    /// `start` gives an address, never read through here).
    #[inline(always)]
    pub(crate) fn rows_ptr(&self, start: usize) -> *const u8 {
        self.rows.as_ptr().wrapping_add(ROWS * start).cast()
    }

    /// True when the triangle in slot `pos` is degenerate (zero area).
    #[cfg(test)]
    pub(crate) fn is_degenerate(&self, pos: usize) -> bool {
        self.degenerate_at(self.slot(pos))
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
        let rows: &[f32; 9 * GROUP] = self.rows[ROWS * slot.start as usize..][..9 * GROUP]
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
    /// `*bound` of `p`, calls `f(slot, corners, bound)` in order (`f` may lower the bound;
    /// [`LeafTriangles::prim_at`] gives the slot's original index from the lines just read).
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
        mut f: impl FnMut(Slot, [Point3<Real>; 3], &mut Real),
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
            let g: &[f32; 9 * GROUP] = self.rows[ROWS * start..][..9 * GROUP]
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
                f(Slot::new(start, n, j), lane_corners(g, n, j), bound);
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
            let g = &self.rows[ROWS * s..ROWS * s + 9 * n];
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
    /// `indices`, with their degenerate flags; in parallel (rayon) from 32,768
    /// triangles, allocation-free. The original indices stay.
    pub(crate) fn fill(&mut self, indices: &[[u32; 3]], positions: &[Point3<Real>]) {
        self.fill_rows(indices, None, positions);
    }

    /// [`LeafTriangles::fill`], writing the original indices `prims` too when given.
    fn fill_rows(
        &mut self,
        indices: &[[u32; 3]],
        prims: Option<&[u32]>,
        positions: &[Point3<Real>],
    ) {
        let Self { rows, starts, len } = self;
        let job = Fill {
            starts,
            indices,
            prims,
            positions,
            len: *len,
        };
        let tail = rows.len() - TAIL;
        job.run(0..*len, &mut rows[..tail]);
    }

    /// The number of slots.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The original index of the triangle at `slot` (a slot of one of the groups).
    #[inline(always)]
    pub(crate) fn prim_at(&self, slot: Slot) -> u32 {
        word_index(self.word_at(slot))
    }

    /// The original index of the triangle at `slot`, and whether it is degenerate: one word
    /// from the lines the kernel has just read.
    #[inline(always)]
    pub(crate) fn prim_degenerate_at(&self, slot: Slot) -> (u32, bool) {
        let w = self.word_at(slot);
        (word_index(w), word_degenerate(w))
    }

    /// Whether the triangle at `slot` is degenerate, from its index word (the lines the
    /// kernel has just read).
    #[inline(always)]
    pub(crate) fn degenerate_at(&self, slot: Slot) -> bool {
        word_degenerate(self.word_at(slot))
    }

    /// The row-9 word of `slot`.
    #[inline(always)]
    fn word_at(&self, slot: Slot) -> f32 {
        // A whole group's worth of words (the tail makes room for it after any group), and
        // an index that provably stays below `ROWS * GROUP`: one bounds check.
        let words: &[f32; ROWS * GROUP] = self.rows[ROWS * slot.start as usize..][..ROWS * GROUP]
            .try_into()
            .expect("ROWS * GROUP words");
        let (n, lane) = ((slot.n as usize).min(GROUP), slot.lane as usize % GROUP);
        words[9 * n + lane]
    }

    /// The original index of the triangle in slot `pos`; `pos < len`.
    #[inline]
    pub(crate) fn prim(&self, pos: usize) -> u32 {
        self.prim_at(self.slot(pos))
    }

    /// The original indices of the slots `range` of one leaf, in order.
    #[inline]
    pub(crate) fn leaf_prims(&self, range: Range<usize>) -> impl Iterator<Item = u32> + '_ {
        self.leaf_slots(range).map(|slot| self.prim_at(slot))
    }

    /// The original index of every slot, in slot order.
    pub(crate) fn prims(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        (0..self.len).map(|pos| self.prim(pos))
    }

    /// Bytes held on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.rows.capacity() * size_of::<f32>() + self.starts.capacity() * size_of::<u64>()
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
/// let the compiler see every index below `ROWS * GROUP`).
#[inline(always)]
fn write_block_lane(block: &mut [f32; ROWS * GROUP], n: usize, j: usize, tri: &[Point3<Real>; 3]) {
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
    /// The original indices to write, or `None` to keep those in place.
    prims: Option<&'a [u32]>,
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

    /// Fills the groups that start in `slots`: `rows` are their words, from the first such
    /// group's (a group that runs past `slots.end` is filled here too).
    fn run(&self, slots: Range<usize>, rows: &mut [f32]) {
        let first = self.next_start(slots.start);
        if slots.len() >= PARALLEL_SLOTS {
            let mid = slots.start + slots.len() / 2;
            let split = self.next_start(mid);
            let (left_rows, right_rows) = rows.split_at_mut(ROWS * (split - first));
            join(
                || self.run(slots.start..mid, left_rows),
                || self.run(mid..slots.end, right_rows),
            );
            return;
        }
        let mut s = first;
        let mut off = 0;
        // Each group is written into this block, whose indices provably stay in bounds (no
        // check per float), then copied; only its first `ROWS * n` words are ever read.
        let mut block = [0.0; ROWS * GROUP];
        while s < slots.end {
            let next = self.next_start(s + 1);
            let n = next - s;
            for j in 0..n {
                let tri = self.indices[s + j].map(|i| self.positions[i as usize]);
                write_block_lane(&mut block, n, j, &tri);
                let zero = zero_cross(&tri);
                debug_assert_eq!(zero, super::triangle_kernel::is_degenerate(&tri));
                // The index row: the given index, or the one in place, with the flag.
                let at = (9 * n.min(GROUP) + j % GROUP).min(ROWS * GROUP - 1);
                let index = match self.prims {
                    Some(prims) => prims[s + j],
                    None => word_index(rows[off + 9 * n + j]),
                };
                block[at] = index_word(index, zero);
            }
            rows[off..off + ROWS * n].copy_from_slice(&block[..ROWS * n]);
            off += ROWS * n;
            s = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::MAX_TRIANGLES;
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

    fn check(
        lt: &LeafTriangles,
        tris: &[[Point3<Real>; 3]],
        prims: &[u32],
        leaves: &[Range<usize>],
    ) {
        assert_eq!(lt.len, tris.len());
        assert_eq!(lt.rows.len(), ROWS * tris.len() + TAIL);
        assert!(
            lt.rows[ROWS * tris.len()..].iter().all(|&x| x == 0.0),
            "tail stays zero"
        );
        assert_eq!(lt.prims().collect::<Vec<_>>(), prims);
        for (pos, tri) in tris.iter().enumerate() {
            assert_eq!(lt.get(pos), *tri, "slot {pos}");
            assert_eq!(lt.prim(pos), prims[pos], "slot {pos}");
            let slot = lt.slot(pos);
            assert_eq!(
                lt.prim_degenerate_at(slot),
                (prims[pos], lt.is_degenerate(pos)),
                "slot {pos}"
            );
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
            assert_eq!(
                lt.leaf_prims(leaf.clone()).collect::<Vec<_>>(),
                &prims[leaf.clone()]
            );
            // The kernel's layout: row `3 * corner + axis`, lane `slot - start`.
            for (s, n) in groups(leaf.clone()) {
                let rows = lt.group_rows(s);
                for j in 0..n {
                    for c in 0..3 {
                        for a in 0..3 {
                            assert_eq!(rows[(3 * c + a) * n + j], tris[s + j][c][a]);
                        }
                    }
                    // Row 9 reads as a normal float for indices below 2^30 (the kernels'
                    // loads past row 8 of a short group compute on it).
                    if prims[s + j] < 1 << 30 {
                        assert!(rows[9 * n + j].is_normal(), "slot {}", s + j);
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
                // Original indices of any size, some past 2^30 and the largest.
                let prims: Vec<u32> = (0..len)
                    .map(|i| match i % 5 {
                        0 => MAX_TRIANGLES as u32 - i as u32,
                        1 => (1 << 30) + i as u32,
                        _ => r.gen_range(0..1 << 24),
                    })
                    .collect();
                let mut lt = LeafTriangles::new(&tris0, &prims, &leaves);
                check(&lt, &tris0, &prims, &leaves);
                let built = LeafTriangles::from_indices(&indices, &prims, &p0, &leaves);
                let bits =
                    |l: &LeafTriangles| l.rows.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&built), bits(&lt));
                let p1 = lattice(&mut r, verts as usize);
                lt.fill(&indices, &p1);
                check(&lt, &gather(&indices, &p1), &prims, &leaves);
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
