//! Refitting a [`WideBvh`]'s boxes after the primitives moved, keeping its shape.
//!
//! Two passes: every leaf slot's box is recomputed from its primitives (independent per
//! node, so in parallel with rayon for large trees: this is where the O(n) work is), then the
//! interior slots are filled bottom-up from their child nodes' slots (children come after
//! their parents, so one reverse pass over the few nodes does it).

use std::ops::Range;

use rayon::prelude::*;
use raypick_primitives::Aabb;

use super::{WideBvh, WideLayout, WideNode, EMPTY_SLOT};

/// Primitive count from which the refit runs its leaf pass (and the input checks) with rayon.
const PARALLEL_THRESHOLD: usize = 32 * 1024;

/// Why a refit of a [`WideBvh`] refused its input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WideRefitError {
    /// `prim_indices` or `boxes` does not have one entry per primitive.
    #[error("refit got {found} {what} for a tree of {expected} primitives")]
    LengthMismatch {
        /// `"boxes"` or `"primitive indices"`.
        what: &'static str,
        /// The tree's primitive count.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A box has a NaN or infinite coordinate, or `min > max`.
    #[error("box {index} is NaN, infinite or inverted")]
    BadBox {
        /// The box (its index in the slice given: the original primitive index for
        /// [`WideBvh::refit`], the leaf-order position for [`WideBvh::refit_leaf_order`]).
        index: usize,
    },
    /// A primitive index is not below the primitive count.
    #[error("leaf-order position {position} holds primitive {index}, out of range")]
    IndexOutOfRange {
        /// The position.
        position: usize,
        /// The index found there.
        index: usize,
    },
    /// The box [`WideBvh::refit_by_leaf`] got for a leaf is NaN, infinite or inverted.
    #[error("the box of leaf {start}..{end} is NaN, infinite or inverted")]
    BadLeafBox {
        /// First leaf-order position of the leaf.
        start: usize,
        /// One past its last position.
        end: usize,
    },
    /// A node of a [`CompactBvh8`](super::CompactBvh8) got boxes spanning too much of the
    /// f32 range to quantize (coordinates near `f32::MAX` in magnitude).
    #[error("wide node {node}: boxes too large to quantize")]
    OutOfRange {
        /// The node.
        node: usize,
    },
}

/// True when the box is finite with `min <= max` on every axis. Non-short-circuit `&`:
/// branch-free, so the check of a whole slice vectorizes.
#[inline(always)]
pub(crate) fn box_ok(b: &Aabb) -> bool {
    let mut ok = true;
    for a in 0..3 {
        ok &= b.min[a].is_finite() & b.max[a].is_finite() & (b.min[a] <= b.max[a]);
    }
    ok
}

/// The union of `boxes` (checked finite); `Aabb::EMPTY` when there are none. Plain
/// comparisons rather than `f32::min` (no NaN to handle): single min/max instructions.
#[inline(always)]
fn union_of<'a>(boxes: impl Iterator<Item = &'a Aabb>) -> Aabb {
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for b in boxes {
        for a in 0..3 {
            lo[a] = if b.min[a] < lo[a] { b.min[a] } else { lo[a] };
            hi[a] = if b.max[a] > hi[a] { b.max[a] } else { hi[a] };
        }
    }
    Aabb::new(lo.into(), hi.into())
}

/// The first index whose box fails [`box_ok`]: a branch-free pass over blocks (in parallel
/// for long slices), then a search for the index only when some block failed.
fn first_bad_box(boxes: &[Aabb]) -> Option<usize> {
    let block_ok = |c: &[Aabb]| c.iter().fold(true, |ok, b| ok & box_ok(b));
    let all_ok = if boxes.len() >= PARALLEL_THRESHOLD {
        boxes.par_chunks(4096).all(block_ok)
    } else {
        boxes.chunks(4096).all(block_ok)
    };
    if all_ok {
        None
    } else {
        boxes.iter().position(|b| !box_ok(b))
    }
}

impl<const N: usize> WideNode<N> {
    /// Sets every leaf slot's box to `leaf_box(range)`; the first bad box stops it.
    #[inline]
    fn refit_leaves<F>(&mut self, leaf_box: &F) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb,
    {
        for i in 0..N {
            if self.count[i] == 0 {
                continue;
            }
            let s = self.child[i] as usize;
            let r = s..s + self.count[i] as usize;
            let b = leaf_box(r.clone());
            if !box_ok(&b) {
                return Err(WideRefitError::BadLeafBox {
                    start: r.start,
                    end: r.end,
                });
            }
            self.set_box(i, &b);
        }
        Ok(())
    }

    #[inline(always)]
    fn set_box(&mut self, i: usize, b: &Aabb) {
        for a in 0..3 {
            self.bounds[a][i] = b.min[a];
            self.bounds[3 + a][i] = b.max[a];
        }
    }

    /// The union of the used slots' boxes (unused slots hold `+inf .. -inf`, which min/max
    /// ignore; slot boxes are finite, so plain comparisons do).
    #[inline(always)]
    fn union_all(&self) -> ([f32; 3], [f32; 3]) {
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for a in 0..3 {
            for (&l, &h) in self.bounds[a].iter().zip(&self.bounds[3 + a]) {
                lo[a] = if l < lo[a] { l } else { lo[a] };
                hi[a] = if h > hi[a] { h } else { hi[a] };
            }
        }
        (lo, hi)
    }
}

impl<const N: usize, L: WideLayout<N>> WideBvh<N, L> {
    /// Refits the boxes after the primitives moved, keeping the tree's shape: `boxes` is
    /// indexed by original primitive index and `prim_indices` maps leaf-order positions to
    /// original indices (for a tree collapsed from a [`Bvh`](crate::Bvh), its
    /// [`Bvh::prim_indices`](crate::Bvh::prim_indices)). O(n), allocates nothing; in parallel
    /// with rayon from 32,768 primitives: every leaf slot of the plain layout, the nodes of
    /// leaves only of a [`CompactBvh8`] (whose other nodes are then re-quantized bottom-up on
    /// one thread, so a compact refit costs more than a plain one).
    ///
    /// [`CompactBvh8`]: super::CompactBvh8
    ///
    /// Rejects, before changing anything, lengths other than [`WideBvh::len`], a box with a
    /// NaN or infinite coordinate or `min > max` (the first such index), and an index out of
    /// range. Afterwards every slot box is exactly the union of what lies below it.
    pub fn refit(&mut self, prim_indices: &[u32], boxes: &[Aabb]) -> Result<(), WideRefitError> {
        for (what, found) in [
            ("primitive indices", prim_indices.len()),
            ("boxes", boxes.len()),
        ] {
            if found != self.prim_count {
                return Err(WideRefitError::LengthMismatch {
                    what,
                    expected: self.prim_count,
                    found,
                });
            }
        }
        if let Some(index) = first_bad_box(boxes) {
            return Err(WideRefitError::BadBox { index });
        }
        // The largest index first (vectorizes); the position only when it is out of range.
        let largest = prim_indices.iter().fold(0u32, |m, &p| m.max(p));
        if largest as usize >= boxes.len() {
            if let Some(position) = prim_indices.iter().position(|&p| p as usize >= boxes.len()) {
                return Err(WideRefitError::IndexOutOfRange {
                    position,
                    index: prim_indices[position] as usize,
                });
            }
        }
        self.refit_by_leaf(|r| union_of(prim_indices[r].iter().map(|&p| &boxes[p as usize])))
    }

    /// [`WideBvh::refit`] with the boxes already in leaf order (`boxes[pos]` is the box of the
    /// primitive at leaf-order position `pos`), which saves the indirection. The same checks
    /// (a bad box is reported by its position), O(n), allocates nothing.
    pub fn refit_leaf_order(&mut self, boxes: &[Aabb]) -> Result<(), WideRefitError> {
        if boxes.len() != self.prim_count {
            return Err(WideRefitError::LengthMismatch {
                what: "boxes",
                expected: self.prim_count,
                found: boxes.len(),
            });
        }
        if let Some(index) = first_bad_box(boxes) {
            return Err(WideRefitError::BadBox { index });
        }
        self.refit_by_leaf(|r| union_of(boxes[r].iter()))
    }

    /// Refits from a function giving the box of a leaf: `leaf_box(range)` must return the
    /// union of the boxes of the primitives at leaf-order positions `range` (it is called
    /// once per leaf, from several threads for trees of 32,768 primitives or more). The
    /// cheapest refit when the caller can compute a leaf's box from its own leaf-order data
    /// directly (no per-primitive box buffer). O(n), allocates nothing.
    ///
    /// A NaN, infinite or inverted box stops it with [`WideRefitError::BadLeafBox`] naming
    /// the leaf; the boxes of the other leaves may then already be refit while the interior
    /// slots are not, so the tree does not bound its primitives until a refit succeeds.
    /// On success every slot box is exactly the union of what lies below it.
    pub fn refit_by_leaf<F>(&mut self, leaf_box: F) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb + Sync,
    {
        let parallel = self.prim_count >= PARALLEL_THRESHOLD;
        L::refit_tree(&mut self.nodes, &leaf_box, parallel)
    }
}

/// The plain layout's refit: every leaf slot from `leaf_box` (in parallel when `parallel`),
/// then the interior slots bottom-up.
pub(crate) fn refit_plain<const N: usize, F>(
    nodes: &mut [WideNode<N>],
    leaf_box: &F,
    parallel: bool,
) -> Result<(), WideRefitError>
where
    F: Fn(Range<usize>) -> Aabb + Sync,
{
    if parallel {
        nodes
            .par_iter_mut()
            .with_min_len(64)
            .try_for_each(|n| n.refit_leaves(leaf_box))?;
    } else {
        for n in nodes.iter_mut() {
            n.refit_leaves(leaf_box)?;
        }
    }
    refit_interior(nodes);
    Ok(())
}

/// Sets every interior slot's box to the union of its child node's slots, children first.
fn refit_interior<const N: usize>(nodes: &mut [WideNode<N>]) {
    for ni in (0..nodes.len()).rev() {
        let (head, tail) = nodes.split_at_mut(ni + 1);
        let node = &mut head[ni];
        for slot in 0..N {
            if node.count[slot] != 0 || node.child[slot] == EMPTY_SLOT {
                continue;
            }
            // Children come after their parents (a type invariant), so `c > ni`.
            let Some(child) = (node.child[slot] as usize)
                .checked_sub(ni + 1)
                .and_then(|c| tail.get(c))
            else {
                continue;
            };
            let (lo, hi) = child.union_all();
            for a in 0..3 {
                node.bounds[a][slot] = lo[a];
                node.bounds[3 + a][slot] = hi[a];
            }
        }
    }
}
