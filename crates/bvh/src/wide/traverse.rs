//! Ray traversal of 8-wide trees: the one traversal ([`WideBvh::traverse_ray_visit`]) with
//! its leaf visitor ([`RayVisitor`]) and its closure convenience ([`WideBvh::traverse_ray`]);
//! the generic loop, the scalar node kernel, and the dispatch to the SIMD loops
//! (`traverse_x86`).

// `!(a <= b)` is deliberate: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::{ControlFlow, Range};

use raypick_primitives::simd::prefetch_lines;
use raypick_primitives::{Ray, Real};

use super::layout::sealed::Internal;
use super::stack::Stack;
#[cfg(doc)]
use super::CompactNode8;
use super::{WideBvh, WideLayout, WideNode};
use crate::{BoxRay, MAX_DEPTH};

pub use super::visitor::{LeafFn, RayTraversal, RayVisitor};

/// Tests a ray against all child boxes of a node: returns the bit mask of the slots entered
/// within `[t_min, t_max]` and each slot's entry distance (meaningful for set bits only).
///
/// `PAD_NEG` selects how exits are padded: `false` multiplies every exit by
/// `ROBUST_EXIT_SCALE` (enough when `t_min >= 0`, since a negative exit then misses anyway);
/// `true` pads negative exits towards +inf too, exactly as `intersect_robust`.
pub(crate) trait Kernel<const N: usize, L = WideNode<N>>: Copy {
    /// Unused slots of `node` are never in the mask.
    fn test<const PAD_NEG: bool>(
        self,
        node: &L,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; N]);

    /// For each slot `i` set in `mask`, its place from the bottom among the set slots when
    /// they are stacked so that the nearest is on top: the number of set slots `j` farther
    /// (`dist[j] > dist[i]`) or as far and before it (`j < i`). Exactly the order the
    /// insertion of the slots in slot order would give, computed without branches. Slots
    /// not in `mask` get unspecified values.
    #[inline(always)]
    fn ranks(self, dist: &[f32; N], mask: u32) -> [u32; N] {
        scalar_ranks(dist, mask)
    }
}

/// [`Kernel::ranks`] one slot pair at a time: the reference for the SIMD versions.
#[inline(always)]
pub(crate) fn scalar_ranks<const N: usize>(dist: &[f32; N], mask: u32) -> [u32; N] {
    let mut rank = [0u32; N];
    for (i, r) in rank.iter_mut().enumerate() {
        for (j, &dj) in dist.iter().enumerate() {
            let counted = (dj > dist[i]) | ((dj == dist[i]) & (j < i));
            *r += u32::from(counted & (mask >> j & 1 != 0));
        }
    }
    rank
}

/// The scalar kernel: one slot at a time, the same operations in the same order as the SIMD
/// ones (`max(x, acc)` is `if x > acc { x } else { acc }`, so a NaN `x` loses).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

impl<const N: usize, L: WideLayout<N>> Kernel<N, L> for Scalar {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &L,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; N]) {
        let mut dist = [0.0f32; N];
        let mut mask = 0u32;
        for (i, d) in dist.iter_mut().enumerate() {
            let mut near = t_min;
            let mut far = t_max;
            for a in 0..3 {
                let tn = (node.plane(r.near_row(a), i) - r.o[a]) * r.inv[a];
                let tf = pad::<PAD_NEG>(node.plane(r.far_row(a), i) - r.o[a], r, a);
                if tn > near {
                    near = tn;
                }
                if tf < far {
                    far = tf;
                }
            }
            if near <= far {
                mask |= 1 << i;
            }
            *d = near;
        }
        (node.entered(mask), dist)
    }
}

/// The padded exit from the far plane's offset `d = far - o` on axis `a`, written as the SIMD
/// kernels compute it: `max(d * inv_up, d * inv_down)` is the exit scaled up when it is
/// `>= 0` and scaled down below, as `intersect_robust` does.
#[inline(always)]
fn pad<const PAD_NEG: bool>(d: f32, r: &BoxRay, a: usize) -> f32 {
    let up = d * r.inv_up[a];
    if PAD_NEG {
        let down = d * r.inv_down[a];
        if up > down {
            up
        } else {
            down
        }
    } else {
        up
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Item {
    pub(crate) t: f32,
    pub(crate) child: u32,
    pub(crate) count: u32,
}

impl Item {
    /// The root, entered at `t`.
    #[inline(always)]
    pub(crate) fn root(t: f32) -> Self {
        Self {
            t,
            child: 0,
            count: 0,
        }
    }

    /// Slot `i` of `node`, entered at `dist[i]`.
    #[inline(always)]
    pub(crate) fn slot<const N: usize, L: Internal<N>>(
        node: &L,
        dist: &[f32; N],
        i: usize,
    ) -> Self {
        let (child, count) = node.slot(i);
        Self {
            t: dist[i],
            child,
            count,
        }
    }

    /// The two slots entered when `mask` has exactly two bits: the one to visit now and the
    /// one to push. The nearer goes first; the later slot on a tie or when unordered, as
    /// the general sorted push would. Chosen by index, which compiles to a conditional move:
    /// a branch on the two distances mispredicts about every other time.
    #[inline(always)]
    pub(crate) fn two<const N: usize, const ORDERED: bool, L: Internal<N>>(
        node: &L,
        dist: &[f32; N],
        mask: u32,
    ) -> (Self, Self) {
        let rest = mask & (mask - 1);
        let (i, j) = (
            mask.trailing_zeros() as usize,
            rest.trailing_zeros() as usize,
        );
        let f = if ORDERED && dist[i] < dist[j] { i } else { j };
        let s = (i ^ j ^ f) & (N - 1);
        (Self::slot(node, dist, f), Self::slot(node, dist, s))
    }
}

/// Stack capacity for trees of at most `depth` wide levels: a node at level `L` finds at most
/// `(N - 1) * (L - 1)` pending slots of its ancestors and pushes at most `N`. (The wide depth
/// is at most the binary depth minus one, so below `MAX_DEPTH`.)
pub(crate) const fn stack_cap(n: usize, depth: usize) -> usize {
    (n - 1) * depth + 1
}

/// How a traversal runs: exit padding (see [`Kernel`]) and whether children are visited
/// nearest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode {
    pub(crate) pad_neg: bool,
    pub(crate) ordered: bool,
}

/// Runs [`traverse_with_kernel`] on an 8-wide tree in the [`Mode`] the query needs. The
/// stack holds `stack_cap(8, MAX_DEPTH)` items, enough for any tree, and costs nothing to set
/// up.
#[inline(always)]
pub(crate) fn run8_loop<L, K, F>(
    k: K,
    nodes: &[L],
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
    mode: Mode,
    leaf: &mut F,
) where
    L: Internal<8>,
    K: Kernel<8, L>,
    F: RayVisitor,
{
    const CAP: usize = stack_cap(8, MAX_DEPTH);
    match (mode.pad_neg, mode.ordered) {
        (true, true) => {
            traverse_with_kernel::<8, CAP, true, true, _, _, _>(k, nodes, r, t_min, t_max, leaf)
        }
        (false, true) => {
            traverse_with_kernel::<8, CAP, false, true, _, _, _>(k, nodes, r, t_min, t_max, leaf)
        }
        (true, false) => {
            traverse_with_kernel::<8, CAP, true, false, _, _, _>(k, nodes, r, t_min, t_max, leaf)
        }
        (false, false) => {
            traverse_with_kernel::<8, CAP, false, false, _, _, _>(k, nodes, r, t_min, t_max, leaf)
        }
    }
}

/// The traversal loop, generic over the node kernel. `#[inline(always)]` so that it is
/// compiled inside each SIMD entry point with that entry point's target features.
/// `ORDERED` pushes a node's entered children sorted so the nearest is visited first; without
/// it they go in slot order (any-hit queries, which stop at the first hit found anyway).
#[inline(always)]
pub(crate) fn traverse_with_kernel<
    const N: usize,
    const CAP: usize,
    const PAD_NEG: bool,
    const ORDERED: bool,
    L,
    K,
    F,
>(
    k: K,
    nodes: &[L],
    r: &BoxRay,
    t_min: f32,
    mut t_max: f32,
    leaf: &mut F,
) where
    L: Internal<N>,
    K: Kernel<N, L>,
    F: RayVisitor,
{
    // CAP bounds the pending slots (see `stack_cap`).
    let mut stack: Stack<Item, CAP> = Stack::new();
    let mut item = Item::root(t_min);
    loop {
        if item.count > 0 {
            let s = item.child as usize;
            if leaf.leaf(s..s + item.count as usize, &mut t_max).is_break() {
                return;
            }
        } else {
            leaf.node(item.child as usize);
            let node = &nodes[item.child as usize];
            let (mask, dist) = k.test::<PAD_NEG>(node, r, t_min, t_max);
            if mask != 0 {
                if mask & (mask - 1) == 0 {
                    let i = mask.trailing_zeros() as usize;
                    item = Item::slot(node, &dist, i);
                    continue;
                }
                let rest = mask & (mask - 1);
                if rest & (rest - 1) == 0 {
                    // Two entered (the common case).
                    let (first, second) = Item::two::<N, ORDERED, _>(node, &dist, mask);
                    announce(nodes, &second, leaf);
                    stack.push(second);
                    item = first;
                    continue;
                }
                push_entered::<N, ORDERED, CAP, _, _, _>(
                    k, &mut stack, nodes, node, &dist, mask, leaf,
                );
                if let Some(top) = stack.pop() {
                    item = top;
                }
                continue;
            }
        }
        // Pop the nearest pending slot still entered before the current t_max.
        loop {
            let Some(top) = stack.pop() else { return };
            item = top;
            if item.t <= t_max {
                break;
            }
        }
    }
}

/// Pushes the slots of `node` set in `mask` (three or more entered) onto `stack`, each
/// announced, sorted so that the nearest ends on top: each goes straight to its rank's
/// place (no data-dependent branches beyond the slot loop), or in slot order when
/// unordered. Shared by the single-ray loop and the stream.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn push_entered<const N: usize, const ORDERED: bool, const CAP: usize, L, K, F>(
    k: K,
    stack: &mut Stack<Item, CAP>,
    nodes: &[L],
    node: &L,
    dist: &[f32; N],
    mask: u32,
    leaf: &mut F,
) where
    L: Internal<N>,
    K: Kernel<N, L>,
    F: RayVisitor,
{
    let rank = if ORDERED { k.ranks(dist, mask) } else { [0; N] };
    let mut bits = mask;
    let mut placed = stack.place_ranked();
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let it = Item::slot(node, dist, i);
        announce(nodes, &it, leaf);
        if ORDERED {
            placed.put(rank[i] as usize, it);
        } else {
            placed.push(it);
        }
    }
    placed.finish();
}

/// Starts loading a pushed child: its node, or its leaf's primitives where the visitor says
/// ([`RayVisitor::leaf_data`]), 5 lines from an address computed without bounds checks
/// (measured: 12-26 fewer instructions per closest hit than a prefetch of checked slices).
/// Then tells the visitor of a pushed leaf ([`RayVisitor::upcoming`]).
#[inline(always)]
pub(crate) fn announce<L, F: RayVisitor>(nodes: &[L], it: &Item, leaf: &mut F) {
    prefetch_item(nodes, it, leaf);
    if it.count != 0 {
        let c = it.child as usize;
        leaf.upcoming(c..c + it.count as usize);
    }
}

/// The prefetch of [`announce`] alone.
#[inline(always)]
pub(crate) fn prefetch_item<L, F: RayVisitor>(nodes: &[L], it: &Item, leaf: &F) {
    let c = it.child as usize;
    let node = nodes.as_ptr().wrapping_add(c).cast::<u8>();
    // Both addresses are computed and one picked without a branch: whether a pushed child is
    // a node or a leaf is a coin toss (0.8 simulated mispredicts per bunny ray as a branch).
    let at = match leaf.leaf_data(c..c + it.count as usize) {
        Some(data) => Some(if it.count == 0 { node } else { data }),
        None => (it.count == 0).then_some(node),
    };
    if let Some(p) = at {
        prefetch_lines(p);
    }
}

/// What the 8-wide traversals need of a node layout beyond [`WideLayout`]: its SIMD node
/// tests on x86_64, nothing elsewhere. Implemented for [`WideNode<8>`] and [`CompactNode8`].
#[cfg(target_arch = "x86_64")]
pub use super::traverse_x86::SimdNode as Node8;

/// What the 8-wide traversals need of a node layout beyond [`WideLayout`]: nothing off x86_64.
#[cfg(not(target_arch = "x86_64"))]
pub trait Node8: Internal<8> {}

#[cfg(not(target_arch = "x86_64"))]
impl<L: Internal<8>> Node8 for L {}

/// An 8-wide node layout the ray traversals run on: [`WideNode<8>`] and [`CompactNode8`]
/// (sealed). Write generic code over both trees as `WideBvh<8, L>` with `L: RayLayout8`.
pub trait RayLayout8: WideLayout<8> + Node8 {}

impl<L: WideLayout<8> + Node8> RayLayout8 for L {}

impl<L: RayLayout8> WideBvh<8, L> {
    /// Ray traversal with a closure, the drop-in for
    /// [`Bvh::traverse_ray`](crate::Bvh::traverse_ray): calls
    /// `leaf(range, &mut t_max)` for every leaf whose box the ray enters within
    /// `[t_min, *t_max]`, nearest entered child first, on the fastest path. It is
    /// [`Self::traverse_ray_visit`] with [`RayTraversal::nearest_first`] and a
    /// [`LeafFn`]; see there for the contract and the edge cases.
    #[inline]
    pub fn traverse_ray<F>(&self, ray: &Ray, t_min: Real, t_max: Real, leaf: F)
    where
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        self.traverse_ray_visit(
            RayTraversal::nearest_first(),
            &BoxRay::new(ray),
            t_min,
            t_max,
            &mut LeafFn(leaf),
        );
    }

    /// The ray traversal: calls `visitor.leaf(range, &mut t_max)` for every leaf whose
    /// box the ray enters within `[t_min, *t_max]`, in the order `how` says (nearest
    /// entered child first, or slot order), and `visitor.upcoming(range)` for each
    /// leaf it pushes for a later visit. `range` is a range of leaf-order positions of
    /// the binary tree this one was collapsed from.
    ///
    /// The visitor may lower `*t_max` (the closest hit so far): pending children
    /// entered beyond it are skipped. It returns [`ControlFlow::Break`] to stop at
    /// once (any-hit). The box test is
    /// [`RayAabbPrecomp::intersect_robust`](raypick_primitives::RayAabbPrecomp::intersect_robust)
    /// (Ize 2013) evaluated for all children at once, so every leaf whose box that
    /// test accepts is visited unless pruned. An invalid ray ([`BoxRay::is_valid`]),
    /// or bounds with `!(t_min <= t_max)` (NaN included), visits nothing. Every
    /// [`SimdPath`](raypick_primitives::simd::SimdPath) visits the same leaves in the same order with the same `t_max`
    /// values. The visitor's methods are compiled into the traversal loop. Allocates
    /// nothing.
    #[inline]
    pub fn traverse_ray_visit<V: RayVisitor>(
        &self,
        how: RayTraversal,
        ray: &BoxRay,
        t_min: Real,
        t_max: Real,
        visitor: &mut V,
    ) {
        if !ray.is_valid() {
            return;
        }
        let nodes = &self.nodes[..];
        if nodes.is_empty() || !(t_min <= t_max) {
            return;
        }
        let mode = Mode {
            // Negative exits matter only when t_min < 0 (see `Kernel`).
            pad_neg: !(t_min >= 0.0),
            ordered: how.ordered,
        };
        #[cfg(target_arch = "x86_64")]
        if super::traverse_x86::run8(how.cpu(), nodes, ray, t_min, t_max, mode, visitor) {
            return;
        }
        Self::run_scalar(nodes, ray, t_min, t_max, mode, visitor);
    }

    /// The scalar loop (the reference path, and the fallback), out of line.
    #[inline(never)]
    fn run_scalar<F: RayVisitor>(
        nodes: &[L],
        r: &BoxRay,
        t_min: Real,
        t_max: Real,
        mode: Mode,
        leaf: &mut F,
    ) {
        run8_loop(Scalar, nodes, r, t_min, t_max, mode, leaf);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::scalar_ranks;

    /// The places an insertion in slot order gives (the sorted push this replaced): each new
    /// slot goes below the ones nearer than it, above the ones as far or farther.
    fn insertion_places(dist: &[f32; 8], mask: u32) -> Vec<(usize, usize)> {
        let mut stack: Vec<usize> = Vec::new();
        for i in (0..8).filter(|i| mask >> i & 1 != 0) {
            let mut j = stack.len();
            while j > 0 && dist[stack[j - 1]] < dist[i] {
                j -= 1;
            }
            stack.insert(j, i);
        }
        let mut places: Vec<(usize, usize)> =
            stack.iter().enumerate().map(|(p, &i)| (i, p)).collect();
        places.sort_unstable();
        places
    }

    /// Random distances and entered masks for the rank tests: few distinct values, so that
    /// ties are common, and NaN only in unentered slots (entered slots never have one).
    pub(crate) fn rank_cases(seed: u64, n: usize) -> impl Iterator<Item = ([f32; 8], u32)> {
        let mut seed = seed;
        (0..n).map(move |_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut dist = [0.0f32; 8];
            for (k, d) in dist.iter_mut().enumerate() {
                *d = match (seed >> (4 * k)) & 7 {
                    7 => f32::NAN,
                    v => v as f32 * 0.5 - 1.0,
                };
            }
            let mut mask = (seed >> 40) as u32 & 0xff;
            for (i, d) in dist.iter().enumerate() {
                if d.is_nan() {
                    mask &= !(1 << i);
                }
            }
            (dist, mask)
        })
    }

    #[test]
    fn ranks_are_the_insertion_order_with_ties_and_any_mask() {
        let mut ties = 0;
        for (dist, mask) in rank_cases(0x9e37_79b9_7f4a_7c15, 20_000) {
            let rank = scalar_ranks(&dist, mask);
            let got: Vec<(usize, usize)> = (0..8)
                .filter(|i| mask >> i & 1 != 0)
                .map(|i| (i, rank[i] as usize))
                .collect();
            assert_eq!(got, insertion_places(&dist, mask), "{dist:?} {mask:#b}");
            let entered: Vec<f32> = (0..8)
                .filter(|i| mask >> i & 1 != 0)
                .map(|i| dist[i])
                .collect();
            ties += usize::from((1..entered.len()).any(|k| entered[..k].contains(&entered[k])));
        }
        assert!(ties > 1000, "too few ties exercised: {ties}");
    }
}
