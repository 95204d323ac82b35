//! The node layouts a [`WideBvh`](super::WideBvh) can store, behind one trait: the plain
//! f32 layout ([`WideNode`]) and the quantized one ([`CompactNode8`](super::CompactNode8)).
//! Traversals, validation, statistics and refits are written once against it.

use std::ops::Range;

use raypick_primitives::Aabb;

use super::{WideChild, WideNode, WideRefitError, EMPTY_SLOT};

/// A wide node layout: what a slot holds and its box. Implemented by [`WideNode`] and
/// [`CompactNode8`](super::CompactNode8) only (sealed).
pub trait WideLayout<const N: usize>:
    Copy + Send + Sync + std::fmt::Debug + PartialEq + sealed::Internal<N>
{
    /// What slot `i` holds; [`WideChild::Empty`] for an unused slot or `i >= N`.
    fn child(&self, i: usize) -> WideChild;

    /// The box of slot `i` (for a quantized layout, the stored box, which contains the exact
    /// one); `+inf .. -inf` for an unused slot or `i >= N`.
    fn child_aabb(&self, i: usize) -> Aabb;

    /// Number of used slots (1 to `N` in a non-empty tree).
    fn child_count(&self) -> usize;
}

pub(crate) mod sealed {
    use super::{Aabb, Range, WideRefitError};

    /// What the crate's traversals need of a layout; not nameable outside the crate.
    pub trait Internal<const N: usize>: Sized {
        /// Slot `i`'s raw pair: `(child, count)` (see [`WideNode`](crate::wide::WideNode)).
        fn slot(&self, i: usize) -> (u32, u32);

        /// Plane `row` (`[min_x, min_y, min_z, max_x, max_y, max_z]`) of slot `i`, as the
        /// ray kernels compute it. Unused slots: `+inf` for min rows, `-inf` for max rows
        /// for [`WideNode`](crate::wide::WideNode); any value for a quantized layout (use
        /// [`Internal::used_mask`]).
        fn plane(&self, row: usize, i: usize) -> f32;

        /// Bit `i` set for each used slot.
        #[inline(always)]
        fn used_mask(&self) -> u32 {
            let mut m = 0u32;
            for i in 0..N {
                m |= u32::from(self.slot(i).0 != crate::wide::EMPTY_SLOT) << i;
            }
            m
        }

        /// Bit `i` set for each leaf slot.
        #[inline(always)]
        fn leaf_mask(&self) -> u32 {
            let mut m = 0u32;
            for i in 0..N {
                m |= u32::from(self.slot(i).1 > 0) << i;
            }
            m
        }

        /// The ray kernels' hit mask, restricted to used slots where the layout's unused
        /// slots could be entered (the plain layout's cannot: identity).
        fn entered(&self, mask: u32) -> u32;

        /// Refits every slot box of `nodes` (a tree, root first, children after parents):
        /// leaf slots from `leaf_box`, interior slots from their child nodes.
        /// Bytes of one node saved by `save_to` (`persist`).
        const SAVED_BYTES: usize;

        /// Appends the node's fields, little-endian.
        fn save_to(&self, out: &mut Vec<u8>);

        /// A node from `SAVED_BYTES` untrusted bytes, its own fields checked.
        fn load_from(b: &[u8]) -> Result<Self, &'static str>;

        fn refit_tree<F>(
            nodes: &mut [Self],
            leaf_box: &F,
            parallel: bool,
        ) -> Result<(), WideRefitError>
        where
            F: Fn(Range<usize>) -> Aabb + Sync;
    }
}

/// The leaf range of slot `i`.
#[inline(always)]
pub(crate) fn slot_range<const N: usize, L: sealed::Internal<N>>(n: &L, i: usize) -> Range<usize> {
    let (s, c) = n.slot(i);
    s as usize..s as usize + c as usize
}

/// [`WideLayout::child`] from the raw pair.
#[inline]
pub(crate) fn child_of(child: u32, count: u32) -> WideChild {
    match (child, count) {
        (EMPTY_SLOT, 0) => WideChild::Empty,
        (c, 0) => WideChild::Node(c as usize),
        (s, n) => WideChild::Leaf(s as usize..s as usize + n as usize),
    }
}

impl<const N: usize> WideLayout<N> for WideNode<N> {
    #[inline]
    fn child(&self, i: usize) -> WideChild {
        WideNode::child(self, i)
    }

    #[inline]
    fn child_aabb(&self, i: usize) -> Aabb {
        WideNode::child_aabb(self, i)
    }

    #[inline]
    fn child_count(&self) -> usize {
        WideNode::child_count(self)
    }
}

impl<const N: usize> sealed::Internal<N> for WideNode<N> {
    #[inline(always)]
    fn slot(&self, i: usize) -> (u32, u32) {
        (self.child[i], self.count[i])
    }

    #[inline(always)]
    fn plane(&self, row: usize, i: usize) -> f32 {
        self.bounds[row][i]
    }

    #[inline(always)]
    fn entered(&self, mask: u32) -> u32 {
        mask
    }

    const SAVED_BYTES: usize = WideNode::<N>::ENCODED_BYTES;

    fn save_to(&self, out: &mut Vec<u8>) {
        self.encode(out);
    }

    fn load_from(b: &[u8]) -> Result<Self, &'static str> {
        WideNode::decode(b)
    }

    fn refit_tree<F>(nodes: &mut [Self], leaf_box: &F, parallel: bool) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb + Sync,
    {
        super::refit::refit_plain(nodes, leaf_box, parallel)
    }
}
