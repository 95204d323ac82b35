//! Interleaved ray traversal: several rays walk the tree at once, one node or leaf visit
//! each in turn, so that the memory a ray needs next is loaded while the others work.
//!
//! On trees much larger than the caches a single ray mostly waits: each step down the tree
//! needs a node that is not cached yet, and the next step depends on it. Taking turns, a
//! ray prefetches its next node (or leaf) at the end of its visit and uses it only after
//! the other rays have each made a visit of their own.

// `!(a >= b)` is deliberate: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::ControlFlow;

use super::layout::sealed::Internal;
use super::stack::Stack;
use super::traverse::{
    announce, prefetch_item, push_entered, Item, Kernel, Mode, RayLayout8, RayTraversal, RayVisitor,
};
use super::WideBvh;
use crate::BoxRay;
use raypick_primitives::Real;

/// A ray of an interleaved traversal ([`WideBvh::traverse_stream`](super::WideBvh)): its
/// leaf visitor, which also carries the ray prepared for the box tests.
pub trait StreamRay: RayVisitor {
    /// The ray, prepared once.
    fn ray(&self) -> &BoxRay;
}

/// Where one ray of the stream is: the slot it visits next, and the slots pending.
pub(crate) struct Walk<const CAP: usize> {
    item: Item,
    stack: Stack<Item, CAP>,
    t_max: f32,
}

impl<const CAP: usize> Walk<CAP> {
    /// At the root, with `[t_min, t_max]`.
    #[inline(always)]
    fn new(t_min: f32, t_max: f32) -> Self {
        Self {
            item: Item::root(t_min),
            stack: Stack::new(),
            t_max,
        }
    }

    /// Restarts at the root for a new ray.
    #[inline(always)]
    fn reset(&mut self, t_min: f32, t_max: f32) {
        self.item = Item::root(t_min);
        self.stack.clear();
        self.t_max = t_max;
    }
}

/// One visit of `w`'s current slot: a leaf through `leaf`, or a node's test and the choice
/// of the next slot, exactly as `traverse_with_kernel` makes them (the same pushes, the same
/// `upcoming` calls); then starts loading the next slot, which `traverse_with_kernel` would
/// visit at once. False when the ray is done.
///
/// This is `traverse_with_kernel`'s loop body with its locals in a [`Walk`]. The single-ray
/// loop keeps its own copy: run through this function it took 2-5% more instructions per
/// closest hit (measured with callgrind), and the test `traverse_stream_matches_traverse_ray_visit`
/// holds the two to the same events.
#[inline(always)]
fn step<const N: usize, const CAP: usize, const PAD_NEG: bool, const ORDERED: bool, L, K, F>(
    k: K,
    nodes: &[L],
    r: &BoxRay,
    t_min: f32,
    w: &mut Walk<CAP>,
    leaf: &mut F,
) -> bool
where
    L: Internal<N>,
    K: Kernel<N, L>,
    F: RayVisitor,
{
    let item = w.item;
    if item.count > 0 {
        let s = item.child as usize;
        if let ControlFlow::Break(()) = leaf.leaf(s..s + item.count as usize, &mut w.t_max) {
            return false;
        }
    } else {
        leaf.node(item.child as usize);
        let node = &nodes[item.child as usize];
        let (mask, dist) = k.test::<PAD_NEG>(node, r, t_min, w.t_max);
        if mask != 0 {
            if mask & (mask - 1) == 0 {
                let i = mask.trailing_zeros() as usize;
                w.item = Item::slot(node, &dist, i);
                prefetch_item(nodes, &w.item, leaf);
                return true;
            }
            let rest = mask & (mask - 1);
            if rest & (rest - 1) == 0 {
                let (first, second) = Item::two::<N, ORDERED, _>(node, &dist, mask);
                announce(nodes, &second, leaf);
                w.stack.push(second);
                prefetch_item(nodes, &first, leaf);
                w.item = first;
                return true;
            }
            push_entered::<N, ORDERED, CAP, _, _, _>(
                k,
                &mut w.stack,
                nodes,
                node,
                &dist,
                mask,
                leaf,
            );
        }
    }
    // The nearest pending slot still entered before t_max (announced when pushed).
    loop {
        let Some(top) = w.stack.pop() else {
            return false;
        };
        if top.t <= w.t_max {
            w.item = top;
            return true;
        }
    }
}

/// The next valid ray from `next`, with its box constants copied (`step` borrows the
/// visitor mutably); invalid ones go straight to `done` (they visit nothing, as in
/// `traverse_ray_visit`).
#[inline(always)]
fn next_valid<V: StreamRay>(
    next: &mut impl FnMut() -> Option<V>,
    done: &mut impl FnMut(V),
) -> Option<(V, BoxRay)> {
    loop {
        let v = next()?;
        if v.ray().is_valid() {
            let r = *v.ray();
            return Some((v, r));
        }
        done(v);
    }
}

/// Traverses the rays `next()` hands out, `R` at a time in turns (see the module doc);
/// each ray's visitor goes to `done` when its traversal ends.
#[inline(always)]
pub(crate) fn stream_with_kernel<
    const N: usize,
    const CAP: usize,
    const PAD_NEG: bool,
    const ORDERED: bool,
    const R: usize,
    L,
    K,
    V,
    S,
    D,
>(
    k: K,
    nodes: &[L],
    t_min: f32,
    t_max: f32,
    next: &mut S,
    done: &mut D,
) where
    L: Internal<N>,
    K: Kernel<N, L>,
    V: StreamRay,
    S: FnMut() -> Option<V>,
    D: FnMut(V),
{
    let mut walks: [Walk<CAP>; R] = std::array::from_fn(|_| Walk::new(t_min, t_max));
    let mut rays: [Option<(V, BoxRay)>; R] = std::array::from_fn(|_| next_valid(next, done));
    loop {
        let mut live = false;
        for (w, slot) in walks.iter_mut().zip(rays.iter_mut()) {
            let Some((v, r)) = slot else { continue };
            live = true;
            if !step::<N, CAP, PAD_NEG, ORDERED, L, K, V>(k, nodes, r, t_min, w, v) {
                if let Some((v, _)) = slot.take() {
                    done(v);
                }
                *slot = next_valid(next, done);
                w.reset(t_min, t_max);
            }
        }
        if !live {
            return;
        }
    }
}

impl<L: RayLayout8> WideBvh<8, L> {
    /// Traverses every ray that `next()` hands out (until it returns `None`), each as
    /// [`Self::traverse_ray_visit`] would with the same `how`, `t_min` and `t_max`:
    /// the same leaves in the same order, with the same `t_max` values, and nothing
    /// for an invalid ray or bounds with `!(t_min <= t_max)`. Each ray's visitor is
    /// handed to `done` when its traversal ends, not necessarily in the order given.
    ///
    /// On AVX2 (`how.path()`) the rays take turns, 8 in flight: each visit of a node
    /// or a leaf ends by starting to load what that ray visits next, which arrives
    /// while the other rays make their visits. That hides memory latency on trees
    /// much larger than the caches and only adds the switching on trees that stay
    /// cached (see `docs/performance.md`). Other paths traverse the rays one by one.
    /// Allocates nothing.
    #[inline]
    pub fn traverse_stream<V, S, D>(
        &self,
        how: RayTraversal,
        t_min: Real,
        t_max: Real,
        mut next: S,
        mut done: D,
    ) where
        V: StreamRay,
        S: FnMut() -> Option<V>,
        D: FnMut(V),
    {
        #[cfg(target_arch = "x86_64")]
        if !self.nodes.is_empty() && t_min <= t_max {
            let mode = Mode {
                // Negative exits matter only when t_min < 0 (see `Kernel`).
                pad_neg: !(t_min >= 0.0),
                ordered: how.is_ordered(),
            };
            if super::traverse_x86::stream8(
                how.cpu(),
                &self.nodes,
                t_min,
                t_max,
                mode,
                &mut next,
                &mut done,
            ) {
                return;
            }
        }
        while let Some(mut v) = next() {
            let ray = *v.ray();
            self.traverse_ray_visit(how, &ray, t_min, t_max, &mut v);
            done(v);
        }
    }
}
