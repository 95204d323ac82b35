//! Non-ray traversals of a [`WideBvh`]: box overlap, node predicate, best-first and
//! nearest-first by distance to a point, with the contracts of the binary tree's
//! [`Bvh::traverse_aabb`](crate::Bvh::traverse_aabb),
//! [`Bvh::traverse_where`](crate::Bvh::traverse_where) and
//! [`Bvh::traverse_best_first`](crate::Bvh::traverse_best_first); and tree statistics.
//!
//! A wide node has no box of its own: each of its child slots has one, so every test below
//! is made per used slot (unused slots are never tested and never visited). Callbacks get
//! ranges of leaf-order positions, as the binary traversals do.

// `!(a <= b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::{ControlFlow, Range};

use raypick_primitives::{Aabb, Point3, Real};

use super::layout::{sealed::Internal, slot_range};
use super::stack::Stack;
use super::{WideBvh, WideLayout, WideStats};
use crate::heap::Pending;
use crate::{heap, BestFirstScratch, MAX_DEPTH};

/// Scales a squared box distance computed in f32 down past its rounding error (a few ulps),
/// so that it stays a lower bound of the exact squared distance of every point in the box.
const DIST2_SCALE: Real = 1.0 - 8.0 * Real::EPSILON;

/// Bit `i` set for each used slot of `n` whose box overlaps `q` (closed boxes). Unused
/// slots are masked out: their boxes are inverted or arbitrary.
#[inline(always)]
fn overlap_mask<const N: usize, L: Internal<N>>(n: &L, q: &Aabb) -> u32 {
    let mut m = 0u32;
    for i in 0..N {
        let b = |row: usize| n.plane(row, i);
        let ok = b(0) <= q.max.x
            && q.min.x <= b(3)
            && b(1) <= q.max.y
            && q.min.y <= b(4)
            && b(2) <= q.max.z
            && q.min.z <= b(5);
        m |= u32::from(ok) << i;
    }
    m & n.used_mask()
}

/// A lower bound of the squared distance from `p` to each slot's box of `n` (0 inside);
/// meaningless for unused slots (mask them with `used_mask`).
#[inline(always)]
fn dist2<const N: usize, L: Internal<N>>(n: &L, p: &Point3<Real>) -> [Real; N] {
    // Compare-and-select rather than `f32::max` (no NaN here: finite point, finite or
    // +-inf bounds), so the lanes vectorize to plain max instructions.
    let max = |a: Real, b: Real| if a > b { a } else { b };
    let mut d = [0.0; N];
    for (i, d) in d.iter_mut().enumerate() {
        let b = |row: usize| n.plane(row, i);
        let dx = max(max(b(0) - p.x, p.x - b(3)), 0.0);
        let dy = max(max(b(1) - p.y, p.y - b(4)), 0.0);
        let dz = max(max(b(2) - p.z, p.z - b(5)), 0.0);
        *d = (dx * dx + dy * dy + dz * dz) * DIST2_SCALE;
    }
    d
}

impl<const N: usize, L: WideLayout<N>> WideBvh<N, L> {
    /// The box of all primitives (the union of the root's slot boxes); `Aabb::EMPTY` for an
    /// empty tree.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, |root| {
            (0..root.child_count()).fold(Aabb::EMPTY, |b, i| b.union(&root.child_aabb(i)))
        })
    }

    /// Calls `leaf(range)` for every leaf whose box overlaps `aabb` (boxes closed: touching
    /// counts); `range` is a range of leaf-order positions. A query box with a NaN, or
    /// inverted (e.g. `Aabb::EMPTY`), overlaps nothing. Stop early with
    /// [`ControlFlow::Break`]. Allocates nothing. The same leaves as
    /// [`Bvh::traverse_aabb`](crate::Bvh::traverse_aabb) on a tree with these leaf boxes, in
    /// an unspecified order.
    pub fn traverse_aabb<F>(&self, aabb: &Aabb, leaf: F)
    where
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        if aabb.is_empty() {
            return;
        }
        self.traverse_masked(|n| overlap_mask(n, aabb), leaf);
    }

    /// Generic traversal: descends into every slot whose box satisfies `node_pred` (sphere,
    /// OBB or frustum tests) and calls `leaf(range)` for each leaf slot that does. The
    /// predicate should be conservative (true whenever the box may hold something of
    /// interest); it is called once per used slot reached, never for unused slots. Stop early
    /// with [`ControlFlow::Break`]. Allocates nothing. Order unspecified.
    pub fn traverse_where<P, F>(&self, mut node_pred: P, leaf: F)
    where
        P: FnMut(&Aabb) -> bool,
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        self.traverse_masked(
            |n| {
                let mut m = 0u32;
                for i in 0..n.child_count() {
                    m |= u32::from(node_pred(&n.child_aabb(i))) << i;
                }
                m
            },
            leaf,
        );
    }

    /// Depth-first traversal visiting the slots in `mask(node)` (only used ones): each node's
    /// leaves first, then its interior children. One stack entry per level (the node and its
    /// interior slots still to visit), in a fixed stack.
    #[inline(always)]
    fn traverse_masked<M, F>(&self, mut mask: M, mut leaf: F)
    where
        M: FnMut(&L) -> u32,
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        let nodes = &self.nodes[..];
        if nodes.is_empty() {
            return;
        }
        // Depth <= MAX_DEPTH (wide depth <= binary depth), so at most MAX_DEPTH - 1 entries.
        let mut stack: Stack<(u32, u32), MAX_DEPTH> = Stack::new();
        let mut cur = 0usize;
        loop {
            let node = &nodes[cur];
            let hit = mask(node);
            let leaves = node.leaf_mask();
            let mut bits = hit & leaves;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if leaf(slot_range(node, i)).is_break() {
                    return;
                }
            }
            let mut inner = hit & !leaves;
            if inner == 0 {
                // Resume the deepest node with interior slots left.
                let Some((n, rest)) = stack.pop() else {
                    return;
                };
                cur = n as usize;
                inner = rest;
            }
            let i = inner.trailing_zeros() as usize;
            let rest = inner & (inner - 1);
            let parent = cur;
            if rest != 0 {
                stack.push((parent as u32, rest));
            }
            cur = nodes[parent].slot(i).0 as usize;
        }
    }

    /// Best-first traversal by a lower bound, for nearest-point and nearest-object queries:
    /// the contract of [`Bvh::traverse_best_first`](crate::Bvh::traverse_best_first)
    /// (bounds, pruning, stopping, NaN, allocation) over the wide tree's slots. Use
    /// [`WideBvh::traverse_best_first_in`] with a reused [`BestFirstScratch`] to never
    /// allocate.
    pub fn traverse_best_first<D, F>(&self, max_dist: Real, node_dist: D, leaf: F)
    where
        D: FnMut(&Aabb) -> Real,
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        let mut scratch = BestFirstScratch::new();
        self.traverse_best_first_in(&mut scratch, max_dist, node_dist, leaf);
    }

    /// [`WideBvh::traverse_best_first`] with caller-owned scratch memory, so repeated queries
    /// never allocate once the scratch has grown to the largest frontier seen.
    pub fn traverse_best_first_in<D, F>(
        &self,
        scratch: &mut BestFirstScratch,
        max_dist: Real,
        mut node_dist: D,
        leaf: F,
    ) where
        D: FnMut(&Aabb) -> Real,
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        let nodes = &self.nodes[..];
        if nodes.is_empty() {
            scratch.heap.clear();
            return;
        }
        heap::best_first(
            &mut scratch.heap,
            max_dist,
            |node, heap, best| {
                // The root's slots first, then each popped node's.
                let n = &nodes[node.unwrap_or(0) as usize];
                for i in 0..n.child_count() {
                    let d = node_dist(&n.child_aabb(i));
                    if d <= best {
                        let (c, k) = n.slot(i);
                        heap::push(heap, (d, c, k));
                    }
                }
            },
            leaf,
        );
    }

    /// Nearest-first traversal for the closest point to `p`: depth first, into the slot of
    /// each node with the smallest lower bound of its squared distance to `p` first (its
    /// other slots later, in no set order), pruning every slot whose bound exceeds the best
    /// squared distance so far.
    ///
    /// `leaf(range, &mut best2)` may lower `best2` (which starts at `max_dist2`, a squared
    /// distance; `f32::INFINITY` means no limit). A slot is visited when its bound is `<=`
    /// `best2` at the time it is reached, so leaves at exactly the best distance are seen
    /// (for tie-breaking). The bound is the f32 squared distance to the box scaled down by
    /// `8 * f32::EPSILON` (relative), so rounding never makes it exceed the true squared
    /// distance of a point in the box. A non-finite `p` or a NaN `max_dist2` visits
    /// nothing. Stop early with [`ControlFlow::Break`]. Allocates nothing (a fixed stack).
    ///
    /// For one query point this is cheaper than [`WideBvh::traverse_best_first`]: no heap,
    /// the box distances of a node's slots computed together, and no sort (only the nearest
    /// slot is picked; on the soup and terrain meshes that beat sorting all slots by 20%).
    pub fn traverse_nearest_first<F>(&self, p: &Point3<Real>, max_dist2: Real, leaf: F)
    where
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        self.traverse_nearest_first_with(p, max_dist2, |_, _, _| {}, leaf);
    }

    /// [`WideBvh::traverse_nearest_first`] with the caller's own lower bounds on top of the
    /// boxes': at each node, `bound(node, within, &mut d)` gets the node's index, the mask
    /// of its slots whose box is within reach, and their squared box distances `d`, and
    /// may raise any of those (a tighter lower bound of the squared distance from `p` to
    /// the slot's primitives, for example from a shape the caller keeps per slot). A bound
    /// above the true squared distance of a primitive would hide it.
    pub fn traverse_nearest_first_with<B, F>(
        &self,
        p: &Point3<Real>,
        max_dist2: Real,
        bound: B,
        leaf: F,
    ) where
        B: FnMut(usize, u32, &mut [Real; N]),
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        if self.nodes.is_empty() || max_dist2.is_nan() || !p.iter().all(|c| c.is_finite()) {
            return;
        }
        // A node pushes at most N slots and pops one, so the stack never holds more than
        // depth * (N - 1) + 1 <= MAX_DEPTH * (N - 1) + 1 entries (wide depth <= binary depth).
        if N <= 8 {
            self.nearest_first_in::<B, F, { 7 * MAX_DEPTH + 1 }>(p, max_dist2, bound, leaf);
        } else {
            self.nearest_first_in::<B, F, { 31 * MAX_DEPTH + 1 }>(p, max_dist2, bound, leaf);
        }
    }

    #[inline(always)]
    fn nearest_first_in<B, F, const CAP: usize>(
        &self,
        p: &Point3<Real>,
        max_dist2: Real,
        mut bound: B,
        mut leaf: F,
    ) where
        B: FnMut(usize, u32, &mut [Real; N]),
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        let nodes = &self.nodes[..];
        let mut best2 = max_dist2;
        let mut stack: Stack<Pending, CAP> = Stack::new();
        let mut cur = 0usize;
        loop {
            let node = &nodes[cur];
            let mut d = dist2(node, p);
            let mut reach = 0u32;
            for (i, &di) in d.iter().enumerate() {
                if di <= best2 {
                    reach |= 1 << i;
                }
            }
            bound(cur, reach & node.used_mask(), &mut d);
            // The used slots within reach go on the stack, the nearest last (popped next).
            let mut within = node.used_mask();
            let mut near = usize::MAX;
            let mut dn = Real::INFINITY;
            while within != 0 {
                let i = within.trailing_zeros() as usize;
                within &= within - 1;
                if d[i] <= best2 {
                    if near == usize::MAX || d[i] < dn {
                        if near != usize::MAX {
                            let (c, k) = node.slot(near);
                            stack.push((dn, c, k));
                        }
                        near = i;
                        dn = d[i];
                    } else {
                        let (c, k) = node.slot(i);
                        stack.push((d[i], c, k));
                    }
                }
            }
            if near != usize::MAX {
                let (c, k) = node.slot(near);
                stack.push((dn, c, k));
            }
            // Pop until an interior slot to descend into; leaves are visited on the way.
            loop {
                let Some((dist, child, count)) = stack.pop() else {
                    return;
                };
                if !(dist <= best2) {
                    continue;
                }
                if count == 0 {
                    cur = child as usize;
                    break;
                }
                let s = child as usize;
                if leaf(s..s + count as usize, &mut best2).is_break() {
                    return;
                }
            }
        }
    }

    /// Statistics of the tree as it is (no check; see [`WideBvh::validate`] for one): node,
    /// leaf and primitive counts, the stored depth, mean used slots per node and node bytes.
    /// O(nodes), allocates nothing.
    #[must_use]
    pub fn stats(&self) -> WideStats {
        let (mut leaves, mut used) = (0usize, 0usize);
        for n in &self.nodes {
            leaves += n.leaf_mask().count_ones() as usize;
            used += n.used_mask().count_ones() as usize;
        }
        WideStats {
            node_count: self.nodes.len(),
            leaf_count: leaves,
            prim_count: self.prim_count,
            depth: self.depth,
            mean_children: if self.nodes.is_empty() {
                0.0
            } else {
                used as f64 / self.nodes.len() as f64
            },
            memory_bytes: self.memory_bytes(),
        }
    }

    /// The SAH cost with unit node-visit and intersection costs: 1 for the root, plus for
    /// each interior slot `A(slot) / A(root)` (one node visit) and for each leaf slot
    /// `A(slot) / A(root) * count`, A the surface area and the root's box
    /// [`WideBvh::bounds`]. Comparable between wide trees of the same width over the same
    /// primitives (not with a binary tree's cost); lower is better. 0 for an empty tree; when
    /// the root's area is 0 every ratio counts as 1.
    #[must_use]
    pub fn sah_cost(&self) -> f64 {
        if self.nodes.is_empty() {
            return 0.0;
        }
        let area = |b: &Aabb| {
            let e = b.max - b.min;
            f64::from(e.x) * f64::from(e.y)
                + f64::from(e.y) * f64::from(e.z)
                + f64::from(e.z) * f64::from(e.x)
        };
        let root = area(&self.bounds());
        let mut sum = 1.0;
        for n in &self.nodes {
            for i in 0..n.child_count() {
                let ratio = if root > 0.0 {
                    area(&n.child_aabb(i)) / root
                } else {
                    1.0
                };
                sum += ratio * f64::from(n.slot(i).1.max(1));
            }
        }
        sum
    }
}
