//! The compact 8-wide node layout: child boxes quantized to 8 bits per plane, 128 bytes per
//! node (two cache lines) instead of [`WideNode<8>`]'s 256.
//!
//! Each axis of a node has an origin (the smallest min of its slots) and a power-of-two step;
//! a plane is stored as a byte `q` and means `origin + q * step`. The step being a power of
//! two, `q * step` is exact, so a plane costs one rounding (the addition), and every kernel,
//! scalar or SIMD, computes the same value. The bytes are chosen by checking that very
//! value: a stored min is at most the true min, a stored max at least the true max, so a
//! stored box always contains the true one and traversal stays conservative (a ray may enter
//! a slightly larger box, never miss a true one).
//!
//! Interior slots are quantized from their child node's *stored* boxes, so a slot box
//! contains its child's slot boxes exactly as in the plain layout ([`WideBvh::validate`]
//! checks it). Refit re-quantizes bottom-up.

use raypick_primitives::simd::{huge_page_vec, HUGE_PAGE_MIN_BYTES};
use std::ops::Range;

use raypick_primitives::{Aabb, Point3};

use super::layout::{child_of, sealed::Internal, WideLayout};
use super::quantize::{dequantize, quantize_row, step_for};
use super::{WideBvh, WideChild, WideNode, WideRefitError, EMPTY_SLOT};

/// One compact 8-wide node (128 bytes): per axis an origin and a power-of-two step, the six
/// planes of each slot as bytes, and per slot a child index and a leaf count.
///
/// A slot `i` is a leaf when `count > 0` (leaf-order positions `child .. child + count`), an
/// interior child when `count == 0` (the node at `child`), unused when `child == u32::MAX`;
/// bit `i` of `used` is set exactly for used slots, which come first.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactNode8 {
    pub(crate) origin: [f32; 3],
    pub(crate) step: [f32; 3],
    /// `[min_x, min_y, min_z, max_x, max_y, max_z]` rows, one byte per slot.
    pub(crate) q: [[u8; 8]; 6],
    pub(crate) child: [u32; 8],
    pub(crate) count: [u16; 8],
    pub(crate) used: u32,
}

const _: () = assert!(std::mem::size_of::<CompactNode8>() == 128);
const _: () = assert!(std::mem::align_of::<CompactNode8>() == 64);

/// An 8-wide BVH with [`CompactNode8`] nodes: half the node bytes of a [`Bvh8`](super::Bvh8),
/// for trees larger than the CPU's caches. Made from a [`Bvh8`](super::Bvh8) with
/// [`CompactBvh8::from_wide`].
pub type CompactBvh8 = WideBvh<8, CompactNode8>;

/// Why a tree cannot be stored in the compact layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// A leaf holds more primitives than a compact slot can count (65,535).
    #[error("leaf {start}..{end} holds more than 65535 primitives")]
    LeafTooLarge {
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
    },
    /// A node's boxes span more than the f32 range can quantize (coordinates near
    /// `f32::MAX` in magnitude).
    #[error("wide node {node}: boxes too large to quantize")]
    OutOfRange {
        /// The node.
        node: usize,
    },
}

/// Trees from this many nodes quantize their leaf-only nodes in parallel (rayon).
const PARALLEL_NODES: usize = 1024;

/// The union of the stored boxes of node `c`, a child of node `ni`, found in `tail` (the
/// nodes after `ni`: children come after their parents); empty if it is not there.
#[inline]
fn child_union(tail: &[CompactNode8], ni: usize, c: usize) -> Aabb {
    tail.get(c.wrapping_sub(ni + 1))
        .map_or(Aabb::EMPTY, CompactNode8::union_all)
}

impl CompactNode8 {
    pub(crate) const EMPTY: Self = Self {
        origin: [0.0; 3],
        step: [1.0; 3],
        q: [[0; 8]; 6],
        child: [EMPTY_SLOT; 8],
        count: [0; 8],
        used: 0,
    };

    /// Sets the boxes of the used slots `0..boxes.len()` (finite, `min <= max`, at most 8),
    /// choosing the node's origins and steps; `None` when they span too much to quantize.
    fn set_boxes(&mut self, boxes: &[Aabb]) -> Option<()> {
        let k = boxes.len().min(8);
        let first = boxes.first()?;
        // Unused lanes repeat the first box: quantized for nothing, harmless (`used` masks
        // them), and every lane stays in range, so the row code has no lane condition.
        let mut rows = [[0.0f32; 8]; 6];
        #[allow(clippy::needless_range_loop)] // one lane `i` across six rows
        for i in 0..8 {
            let b = boxes.get(i).unwrap_or(first);
            for a in 0..3 {
                rows[a][i] = b.min[a];
                rows[3 + a][i] = b.max[a];
            }
        }
        for a in 0..3 {
            let lo = rows[a]
                .iter()
                .fold(f32::INFINITY, |m, &x| if x < m { x } else { m });
            let hi = rows[3 + a]
                .iter()
                .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
            let (step, inv) = step_for(lo, hi)?;
            self.origin[a] = lo;
            self.step[a] = step;
            self.q[a] = quantize_row::<true>(lo, step, inv, &rows[a]);
            self.q[3 + a] = quantize_row::<false>(lo, step, inv, &rows[3 + a]);
        }
        // Unused lanes: a canonical inverted box, so equal trees compare equal.
        for (a, row) in self.q.iter_mut().enumerate() {
            let unused = if a < 3 { 255 } else { 0 };
            for (i, q) in row.iter_mut().enumerate() {
                *q = if i < k { *q } else { unused };
            }
        }
        Some(())
    }

    /// The union of the used slots' stored boxes. A plane's value grows with its byte (one
    /// rounding of an exact, increasing value), so the union's planes are those of the
    /// extreme bytes: 6 planes dequantized instead of 48.
    fn union_all(&self) -> Aabb {
        let k = self.child_count();
        if k == 0 {
            return Aabb::EMPTY;
        }
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        // Over all 8 lanes, the unused ones masked (a fixed length vectorizes).
        let on = |i: usize| i < k;
        for a in 0..3 {
            let (mut min_q, mut max_q) = (u8::MAX, 0);
            for i in 0..8 {
                min_q = min_q.min(if on(i) { self.q[a][i] } else { u8::MAX });
                max_q = max_q.max(if on(i) { self.q[3 + a][i] } else { 0 });
            }
            lo[a] = dequantize(self.origin[a], min_q, self.step[a]);
            hi[a] = dequantize(self.origin[a], max_q, self.step[a]);
        }
        Aabb::new(lo.into(), hi.into())
    }

    /// What slot `i` holds; [`WideChild::Empty`] for an unused slot or `i >= 8`.
    #[must_use]
    pub fn child(&self, i: usize) -> WideChild {
        if i >= 8 {
            return WideChild::Empty;
        }
        child_of(self.child[i], u32::from(self.count[i]))
    }

    /// The stored box of slot `i` (it contains the exact box it was made from);
    /// `+inf .. -inf` for an unused slot or `i >= 8`.
    #[must_use]
    pub fn child_aabb(&self, i: usize) -> Aabb {
        if i >= 8 || self.used >> i & 1 == 0 {
            return Aabb::EMPTY;
        }
        let p = |row: usize| self.plane(row, i);
        Aabb::new(Point3::new(p(0), p(1), p(2)), Point3::new(p(3), p(4), p(5)))
    }

    /// Number of used slots (1 to 8 in a non-empty tree).
    #[must_use]
    pub fn child_count(&self) -> usize {
        self.used.trailing_ones() as usize
    }
}

impl WideLayout<8> for CompactNode8 {
    #[inline]
    fn child(&self, i: usize) -> WideChild {
        CompactNode8::child(self, i)
    }

    #[inline]
    fn child_aabb(&self, i: usize) -> Aabb {
        CompactNode8::child_aabb(self, i)
    }

    #[inline]
    fn child_count(&self) -> usize {
        CompactNode8::child_count(self)
    }
}

impl Internal<8> for CompactNode8 {
    #[inline(always)]
    fn slot(&self, i: usize) -> (u32, u32) {
        (self.child[i & 7], u32::from(self.count[i & 7]))
    }

    #[inline(always)]
    fn plane(&self, row: usize, i: usize) -> f32 {
        let a = row % 3;
        dequantize(self.origin[a], self.q[row % 6][i & 7], self.step[a])
    }

    #[inline(always)]
    fn used_mask(&self) -> u32 {
        self.used
    }

    #[inline(always)]
    fn entered(&self, mask: u32) -> u32 {
        mask & self.used
    }

    const SAVED_BYTES: usize = CompactNode8::ENCODED_BYTES;

    fn save_to(&self, out: &mut Vec<u8>) {
        self.encode(out);
    }

    fn load_from(b: &[u8]) -> Result<Self, &'static str> {
        CompactNode8::decode(b)
    }

    /// Children before parents, the nodes of leaves only in parallel ([`bottom_up`]): a slot
    /// box depends on the whole node's quantization, so a node's leaf and interior slots are
    /// set together.
    fn refit_tree<F>(nodes: &mut [Self], leaf_box: &F, parallel: bool) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb + Sync,
    {
        bottom_up(nodes, parallel, |ni, node, tail| {
            node.refit_node(ni, tail, leaf_box)
        })
    }
}

/// Calls `set(ni, node, tail)` on every node, children before parents (`tail` holds the nodes
/// after `ni`, its children among them). Nodes whose slots are all leaves depend on no other
/// node: with `parallel`, rayon calls those first (with an empty `tail`), then one reverse
/// pass calls the others. Stops at an error (with `parallel`, any error found first).
fn bottom_up<E, F>(nodes: &mut [CompactNode8], parallel: bool, set: F) -> Result<(), E>
where
    E: Send,
    F: Fn(usize, &mut CompactNode8, &[CompactNode8]) -> Result<(), E> + Sync,
{
    use rayon::prelude::*;
    let only_leaves = |n: &CompactNode8| (0..n.child_count()).all(|i| n.count[i] != 0);
    if parallel {
        nodes
            .par_iter_mut()
            .enumerate()
            .with_min_len(64)
            .try_for_each(|(ni, node)| {
                if only_leaves(node) {
                    set(ni, node, &[])
                } else {
                    Ok(())
                }
            })?;
    }
    for ni in (0..nodes.len()).rev() {
        let (head, tail) = nodes.split_at_mut(ni + 1);
        let node = &mut head[ni];
        if !(parallel && only_leaves(node)) {
            set(ni, node, tail)?;
        }
    }
    Ok(())
}

impl CompactNode8 {
    /// Re-quantizes node `ni` from its leaves' boxes (`leaf_box`) and its child nodes' stored
    /// boxes (found in `tail`, the nodes after it).
    fn refit_node<F>(
        &mut self,
        ni: usize,
        tail: &[Self],
        leaf_box: &F,
    ) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb,
    {
        let k = self.child_count();
        let mut boxes = [Aabb::EMPTY; 8];
        for (i, b) in boxes.iter_mut().enumerate().take(k) {
            *b = match self.child(i) {
                WideChild::Leaf(r) => {
                    let lb = leaf_box(r.clone());
                    if !super::refit::box_ok(&lb) {
                        return Err(WideRefitError::BadLeafBox {
                            start: r.start,
                            end: r.end,
                        });
                    }
                    lb
                }
                WideChild::Node(c) => child_union(tail, ni, c),
                WideChild::Empty => Aabb::EMPTY,
            };
        }
        self.set_boxes(&boxes[..k])
            .ok_or(WideRefitError::OutOfRange { node: ni })
    }
}

impl CompactBvh8 {
    /// The compact form of `wide`: same shape, same slots, same leaf ranges, each box stored
    /// in 8 bits per plane so that it contains the original (see the module docs). Half the
    /// node memory; traversals visit every leaf `wide` visits, and perhaps a few more whose
    /// stored box grew to reach the ray.
    ///
    /// Errors: a leaf of more than 65,535 primitives, or boxes spanning nearly the whole f32
    /// range ([`CompactError`]). An empty tree gives an empty tree. O(nodes).
    pub fn from_wide(wide: &WideBvh<8>) -> Result<Self, CompactError> {
        let src = wide.nodes();
        let mut nodes = if std::mem::size_of_val(src) / 2 >= HUGE_PAGE_MIN_BYTES {
            huge_page_vec(src.len())
        } else {
            Vec::with_capacity(src.len())
        };
        nodes.resize(src.len(), CompactNode8::EMPTY);
        for (out, n) in nodes.iter_mut().zip(src) {
            let k = n.child_count();
            for i in 0..k {
                out.child[i] = n.child[i];
                out.count[i] = u16::try_from(n.count[i]).map_err(|_| {
                    let s = n.child[i] as usize;
                    CompactError::LeafTooLarge {
                        start: s,
                        end: s + n.count[i] as usize,
                    }
                })?;
            }
            out.used = (1u32 << k) - 1;
        }
        // Node `ni`'s boxes: its leaves' exact boxes, its child nodes' stored ones (in `tail`,
        // the nodes after it).
        let quantize = |ni: usize, out: &mut CompactNode8, tail: &[CompactNode8]| {
            let n = &src[ni];
            let k = n.child_count();
            let mut boxes = [Aabb::EMPTY; 8];
            for (i, b) in boxes.iter_mut().enumerate().take(k) {
                *b = match n.child(i) {
                    WideChild::Node(c) => child_union(tail, ni, c),
                    _ => n.child_aabb(i),
                };
            }
            out.set_boxes(&boxes[..k])
                .ok_or(CompactError::OutOfRange { node: ni })
        };
        // Children first, so that interior slots are quantized from their children's stored
        // boxes; the nodes of leaves only in parallel on large trees.
        bottom_up(&mut nodes, src.len() >= PARALLEL_NODES, quantize)?;
        Ok(WideBvh {
            nodes,
            prim_count: wide.len(),
            depth: wide.depth(),
        })
    }
}

impl WideBvh<8> {
    /// The plain form of a compact tree: same shape and leaf ranges, each slot box the
    /// stored (dequantized) one, which contains the exact box it was made from. Refit it
    /// ([`WideBvh::refit_by_leaf`]) to tighten the boxes again. O(nodes).
    #[must_use]
    pub fn from_compact(compact: &CompactBvh8) -> Self {
        let src = compact.nodes();
        let mut nodes = if std::mem::size_of_val(src) * 2 >= HUGE_PAGE_MIN_BYTES {
            huge_page_vec(src.len())
        } else {
            Vec::with_capacity(src.len())
        };
        nodes.extend(src.iter().map(|c| {
            let mut n = WideNode::<8>::EMPTY;
            for i in 0..c.child_count() {
                let b = c.child_aabb(i);
                for a in 0..3 {
                    n.bounds[a][i] = b.min[a];
                    n.bounds[3 + a][i] = b.max[a];
                }
                n.child[i] = c.child[i];
                n.count[i] = u32::from(c.count[i]);
            }
            n
        }));
        WideBvh {
            nodes,
            prim_count: compact.len(),
            depth: compact.depth(),
        }
    }
}
