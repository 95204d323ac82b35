//! Ray traversal of wide trees: the generic loop, the scalar node kernel, and dispatch.

// `!(a <= b)` is deliberate: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::{ControlFlow, Range};

use raypick_primitives::ray_aabb::ROBUST_EXIT_SCALE;
use raypick_primitives::{Ray, Real};

use super::layout::sealed::Internal;
use super::simd::{prefetch_lines, Stack};
use super::{CompactNode8, SimdPath, TrianglesRay, WideBvh, WideLayout, WideNode};

/// `1 / ROBUST_EXIT_SCALE`, as `RayAabbPrecomp::intersect_robust` pads negative exits.
pub(crate) const INV_EXIT_SCALE: f32 = 1.0 / ROBUST_EXIT_SCALE;

/// The ray as the node kernels want it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayK {
    pub(crate) o: [f32; 3],
    pub(crate) inv: [f32; 3],
    /// `inv * ROBUST_EXIT_SCALE`: exits are padded by multiplying the slab distance by it
    /// (the same four roundings as padding the product, one multiply fewer per node).
    pub(crate) inv_up: [f32; 3],
    /// `inv * INV_EXIT_SCALE`, for negative exits (see [`Kernel`]).
    pub(crate) inv_down: [f32; 3],
    /// Per axis, 1 when the direction's sign bit is set (the near plane is then `max`).
    neg: [usize; 3],
}

impl RayK {
    /// The constants of `RayAabbPrecomp::new` (the same f32 divisions, the same sign bits),
    /// from a ray's origin and direction.
    #[inline(always)]
    pub(crate) fn from_parts(origin: [f32; 3], dir: [f32; 3]) -> Self {
        let inv = [1.0 / dir[0], 1.0 / dir[1], 1.0 / dir[2]];
        Self {
            o: origin,
            inv,
            inv_up: inv.map(|i| i * ROBUST_EXIT_SCALE),
            inv_down: inv.map(|i| i * INV_EXIT_SCALE),
            neg: dir.map(|d| usize::from(d.is_sign_negative())),
        }
    }

    /// The row of `WideNode::bounds` holding axis `a`'s near plane (min, or max when the
    /// direction is negative). Written so the compiler sees it is below 6: no bounds check.
    #[inline(always)]
    pub(crate) fn near_row(&self, a: usize) -> usize {
        3 * (self.neg[a] & 1) + a % 3
    }

    /// The row of axis `a`'s far plane.
    #[inline(always)]
    pub(crate) fn far_row(&self, a: usize) -> usize {
        3 * ((self.neg[a] ^ 1) & 1) + a % 3
    }
}

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
        r: &RayK,
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
        r: &RayK,
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
fn pad<const PAD_NEG: bool>(d: f32, r: &RayK, a: usize) -> f32 {
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

/// Stack capacity for trees of at most `depth` wide levels: a node at level `L` finds at most
/// `(N - 1) * (L - 1)` pending slots of its ancestors and pushes at most `N`. (The wide depth
/// is at most the binary depth minus one, so below `MAX_DEPTH`.)
pub(crate) const fn stack_cap(n: usize, depth: usize) -> usize {
    (n - 1) * depth + 1
}

/// What a ray traversal ([`WideBvh::traverse_ray_visit`]) calls: `leaf` for each leaf it
/// visits, and `upcoming` for each leaf it pushes for a later visit.
///
/// A type implementing it, with `#[inline(always)]` methods, is compiled into the traversal
/// loop itself (one function per visitor type and code path), where a closure passed to
/// [`WideBvh::traverse_ray_by`] may stay a call per leaf.
pub trait RayVisitor {
    /// Visits the leaf of leaf-order positions `range`. May lower `*t_max` (the closest hit
    /// so far: pending children entered beyond it are skipped); returns
    /// [`ControlFlow::Break`] to stop the traversal at once.
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()>;

    /// The leaf `range` was pushed for a later visit (which it may still skip if `t_max`
    /// drops): a hint to start loading its primitives (see [`prefetch`](super::prefetch)).
    /// Does nothing by default.
    #[inline(always)]
    fn upcoming(&mut self, range: Range<usize>) {
        let _ = range;
    }

    /// Where the primitives of the leaf `range` start in memory, for the traversal to start
    /// loading their first 5 cache lines (320 bytes) when it pushes the leaf, as it does for
    /// nodes. Any address is harmless (nothing is read through it). `None` (nothing to
    /// load) by default.
    ///
    /// It is asked for every pushed child, so that the traversal can pick between a node's
    /// address and a leaf's without a branch: a pushed node comes as an empty range
    /// (`child..child`), and the answer is then ignored. Keep it cheap and free of side
    /// effects.
    #[inline(always)]
    fn leaf_data(&self, range: Range<usize>) -> Option<*const u8> {
        let _ = range;
        None
    }
}

impl<V: RayVisitor + ?Sized> RayVisitor for &mut V {
    #[inline(always)]
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        (**self).leaf(range, t_max)
    }

    #[inline(always)]
    fn upcoming(&mut self, range: Range<usize>) {
        (**self).upcoming(range);
    }

    #[inline(always)]
    fn leaf_data(&self, range: Range<usize>) -> Option<*const u8> {
        (**self).leaf_data(range)
    }
}

/// A [`RayVisitor`] from two closures.
pub(crate) struct Visitor<F, P>(pub(crate) F, pub(crate) P);

impl<F, P> RayVisitor for Visitor<F, P>
where
    F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    P: FnMut(Range<usize>),
{
    #[inline(always)]
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        (self.0)(range, t_max)
    }

    #[inline(always)]
    fn upcoming(&mut self, range: Range<usize>) {
        (self.1)(range);
    }
}

/// How [`WideBvh::traverse_ray_by`] runs. The default is [`RayTraversal::nearest_first`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayTraversal {
    /// The code path for the node tests (default [`SimdPath::best`]).
    pub path: SimdPath,
    /// Visit a node's entered children nearest first (closest-hit queries; default), or in
    /// slot order, which saves sorting them (any-hit queries, which stop at the first hit).
    pub ordered: bool,
}

impl RayTraversal {
    /// Nearest child first, on the fastest path: for closest-hit queries.
    #[must_use]
    pub fn nearest_first() -> Self {
        Self {
            path: SimdPath::best(),
            ordered: true,
        }
    }

    /// Children in slot order, on the fastest path: for any-hit (occlusion) queries.
    #[must_use]
    pub fn unordered() -> Self {
        Self {
            path: SimdPath::best(),
            ordered: false,
        }
    }
}

impl Default for RayTraversal {
    fn default() -> Self {
        Self::nearest_first()
    }
}

/// How a traversal runs: exit padding (see [`Kernel`]) and whether children are visited
/// nearest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode {
    pub(crate) pad_neg: bool,
    pub(crate) ordered: bool,
}

/// Runs `traverse_with_kernel` in the [`Mode`] the query needs. The stack holds
/// `stack_cap(N, MAX_DEPTH)` items, enough for any tree, and costs nothing to set up.
macro_rules! run_kernel {
    ($n:literal, $k:expr, $nodes:expr, $r:expr, $t_min:expr, $t_max:expr, $mode:expr, $leaf:expr) => {{
        use $crate::wide::traverse::{stack_cap, traverse_with_kernel};
        use $crate::MAX_DEPTH;
        const CAP: usize = stack_cap($n, MAX_DEPTH);
        let m: $crate::wide::traverse::Mode = $mode;
        match (m.pad_neg, m.ordered) {
            (true, true) => traverse_with_kernel::<$n, CAP, true, true, _, _, _>(
                $k, $nodes, $r, $t_min, $t_max, $leaf,
            ),
            (false, true) => traverse_with_kernel::<$n, CAP, false, true, _, _, _>(
                $k, $nodes, $r, $t_min, $t_max, $leaf,
            ),
            (true, false) => traverse_with_kernel::<$n, CAP, true, false, _, _, _>(
                $k, $nodes, $r, $t_min, $t_max, $leaf,
            ),
            (false, false) => traverse_with_kernel::<$n, CAP, false, false, _, _, _>(
                $k, $nodes, $r, $t_min, $t_max, $leaf,
            ),
        }
    }};
}
#[cfg(target_arch = "x86_64")]
pub(crate) use run_kernel;

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
    r: &RayK,
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
    let mut item = Item {
        t: t_min,
        child: 0,
        count: 0,
    };
    loop {
        if item.count > 0 {
            let s = item.child as usize;
            if leaf.leaf(s..s + item.count as usize, &mut t_max).is_break() {
                return;
            }
        } else {
            let node = &nodes[item.child as usize];
            let (mask, dist) = k.test::<PAD_NEG>(node, r, t_min, t_max);
            if mask != 0 {
                if mask & (mask - 1) == 0 {
                    let i = mask.trailing_zeros() as usize;
                    item = Item {
                        t: dist[i],
                        child: node.slot(i).0,
                        count: node.slot(i).1,
                    };
                    continue;
                }
                let rest = mask & (mask - 1);
                if rest & (rest - 1) == 0 {
                    // Two entered (the common case): visit the nearer now, the later slot on
                    // a tie or when unordered, as the general loop below would.
                    // Chosen by index, which compiles to a conditional move: a branch on the
                    // two distances mispredicts about every other time.
                    let (i, j) = (
                        mask.trailing_zeros() as usize,
                        rest.trailing_zeros() as usize,
                    );
                    let f = if ORDERED && dist[i] < dist[j] { i } else { j };
                    let s = (i ^ j ^ f) & (N - 1);
                    let first = Item {
                        t: dist[f],
                        child: node.slot(f).0,
                        count: node.slot(f).1,
                    };
                    let second = Item {
                        t: dist[s],
                        child: node.slot(s).0,
                        count: node.slot(s).1,
                    };
                    announce(nodes, &second, leaf);
                    stack.push(second);
                    item = first;
                    continue;
                }
                // Push the entered slots sorted so that the nearest ends on top: each goes
                // straight to its rank's place (no data-dependent branches beyond the slot
                // loop), or in slot order when unordered.
                let rank = if ORDERED {
                    k.ranks(&dist, mask)
                } else {
                    [0; N]
                };
                let mut bits = mask;
                let mut placed = stack.place_ranked();
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let it = Item {
                        t: dist[i],
                        child: node.slot(i).0,
                        count: node.slot(i).1,
                    };
                    announce(nodes, &it, leaf);
                    if ORDERED {
                        placed.put(rank[i] as usize, it);
                    } else {
                        placed.push(it);
                    }
                }
                placed.finish();
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

macro_rules! wide_traverse_ray {
    ($n:literal, $layout:ty, $simd_run:ident) => {
        impl WideBvh<$n, $layout> {
            /// Ray traversal, the drop-in for [`Bvh::traverse_ray`](crate::Bvh::traverse_ray):
            /// calls `leaf(range, &mut t_max)` for every leaf whose box the ray enters within
            /// `[t_min, *t_max]`, nearest entered child first. `range` is a range of
            /// leaf-order positions of the binary tree this one was collapsed from.
            ///
            /// The callback may lower `*t_max` (the closest hit so far): pending children
            /// entered beyond it are skipped. It returns [`ControlFlow::Break`] to stop at
            /// once (any-hit). The box test is [`RayAabbPrecomp::intersect_robust`]
            /// (Ize 2013) evaluated for all children at once, so every leaf whose box that
            /// test accepts is visited unless pruned. A ray with a NaN or infinite component
            /// or a zero direction, or bounds with `!(t_min <= t_max)` (NaN included), visits
            /// nothing. Uses the fastest [`SimdPath`] (see [`SimdPath::best`]). Allocates
            /// nothing.
            ///
            /// [`RayAabbPrecomp::intersect_robust`]: raypick_primitives::RayAabbPrecomp::intersect_robust
            #[inline]
            pub fn traverse_ray<F>(&self, ray: &Ray, t_min: Real, t_max: Real, leaf: F)
            where
                F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
            {
                self.traverse_ray_with(SimdPath::best(), ray, t_min, t_max, leaf);
            }

            /// [`Self::traverse_ray`] on a chosen code path; a path this CPU lacks runs the
            /// scalar one. Every path visits the same leaves in the same order with the same
            /// `t_max` values.
            pub fn traverse_ray_with<F>(
                &self,
                path: SimdPath,
                ray: &Ray,
                t_min: Real,
                t_max: Real,
                leaf: F,
            ) where
                F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
            {
                self.run_ray(path, ray, t_min, t_max, true, Visitor(leaf, |_| {}));
            }

            /// The general ray traversal behind the others: runs as `how` says (code path,
            /// nearest-first or unordered) and also calls `upcoming(range)` for each leaf it
            /// pushes for a later visit (one it may still skip if `t_max` drops), so that the
            /// caller can start loading that leaf's primitives (see
            /// [`prefetch`](crate::wide::prefetch)) while nearer children are visited. Visits
            /// the same leaves in the same order as [`Self::traverse_ray_with`] (ordered) or
            /// [`Self::traverse_ray_unordered_with`]; same edge cases; allocates nothing.
            #[inline]
            pub fn traverse_ray_by<P, F>(
                &self,
                how: RayTraversal,
                ray: &Ray,
                t_min: Real,
                t_max: Real,
                upcoming: P,
                leaf: F,
            ) where
                P: FnMut(Range<usize>),
                F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
            {
                self.run_ray(
                    how.path,
                    ray,
                    t_min,
                    t_max,
                    how.ordered,
                    Visitor(leaf, upcoming),
                );
            }

            /// [`Self::traverse_ray_by`] with a [`RayVisitor`] instead of two closures: the
            /// visitor's methods are compiled into the traversal loop. Same leaves, same
            /// order, same edge cases; allocates nothing.
            #[inline]
            pub fn traverse_ray_visit<V: RayVisitor>(
                &self,
                how: RayTraversal,
                ray: &Ray,
                t_min: Real,
                t_max: Real,
                visitor: &mut V,
            ) {
                self.run_ray(how.path, ray, t_min, t_max, how.ordered, visitor);
            }

            /// [`Self::traverse_ray_visit`] for a ray already prepared for the triangle tests
            /// (a mesh query's own [`TrianglesRay`]): its box-test constants and its checked
            /// [`SimdPath`] ([`TrianglesRay::path`]) are reused, so nothing is prepared or
            /// detected twice per ray. Visits the same leaves in the same order as
            /// `traverse_ray_visit` with `RayTraversal { path: ray.path(), ordered }` on the
            /// same ray; same edge cases (an invalid ray visits nothing); allocates nothing.
            #[inline]
            pub fn traverse_prepared<V: RayVisitor>(
                &self,
                ordered: bool,
                ray: &TrianglesRay,
                t_min: Real,
                t_max: Real,
                visitor: &mut V,
            ) {
                if ray.ray().valid {
                    self.run_k(
                        #[cfg(target_arch = "x86_64")]
                        ray.cpu(),
                        &ray.boxes,
                        t_min,
                        t_max,
                        ordered,
                        visitor,
                    );
                }
            }

            /// [`Self::traverse_ray`] without the nearest-first order: the entered children
            /// of a node are visited in slot order, which saves sorting them. For any-hit
            /// (occlusion) queries, which stop at the first hit found; the same leaves are
            /// visited when nothing lowers `t_max` or breaks. Same edge cases; allocates
            /// nothing.
            #[inline]
            pub fn traverse_ray_unordered<F>(&self, ray: &Ray, t_min: Real, t_max: Real, leaf: F)
            where
                F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
            {
                self.run_ray(
                    SimdPath::best(),
                    ray,
                    t_min,
                    t_max,
                    false,
                    Visitor(leaf, |_| {}),
                );
            }

            /// [`Self::traverse_ray_unordered`] on a chosen code path (as
            /// [`Self::traverse_ray_with`]).
            pub fn traverse_ray_unordered_with<F>(
                &self,
                path: SimdPath,
                ray: &Ray,
                t_min: Real,
                t_max: Real,
                leaf: F,
            ) where
                F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
            {
                self.run_ray(path, ray, t_min, t_max, false, Visitor(leaf, |_| {}));
            }

            fn run_ray<F>(
                &self,
                path: SimdPath,
                ray: &Ray,
                t_min: Real,
                t_max: Real,
                ordered: bool,
                mut leaf: F,
            ) where
                F: RayVisitor,
            {
                if !ray.is_valid() {
                    return;
                }
                let (o, d) = (&ray.origin, &ray.dir);
                let r = RayK::from_parts([o.x, o.y, o.z], [d.x, d.y, d.z]);
                #[cfg(not(target_arch = "x86_64"))]
                let _ = path;
                self.run_k(
                    #[cfg(target_arch = "x86_64")]
                    super::simd::CpuPath::new(path),
                    &r,
                    t_min,
                    t_max,
                    ordered,
                    &mut leaf,
                );
            }

            /// Both entry points' common part, for a valid ray: the interval check and the
            /// dispatch to the SIMD loop that `simd` proves available, or the scalar one.
            #[inline(always)]
            fn run_k<F: RayVisitor>(
                &self,
                #[cfg(target_arch = "x86_64")] simd: Option<super::simd::CpuPath>,
                r: &RayK,
                t_min: Real,
                t_max: Real,
                ordered: bool,
                leaf: &mut F,
            ) {
                let nodes = &self.nodes[..];
                if nodes.is_empty() || !(t_min <= t_max) {
                    return;
                }
                let mode = Mode {
                    // Negative exits matter only when t_min < 0 (see `Kernel`).
                    pad_neg: !(t_min >= 0.0),
                    ordered,
                };
                #[cfg(target_arch = "x86_64")]
                if super::simd::$simd_run(simd, self, r, t_min, t_max, mode, leaf) {
                    return;
                }
                Self::run_scalar(nodes, r, t_min, t_max, mode, leaf);
            }

            /// The scalar loop (the reference path, and the fallback), out of line.
            #[inline(never)]
            fn run_scalar<F: RayVisitor>(
                nodes: &[$layout],
                r: &RayK,
                t_min: Real,
                t_max: Real,
                mode: Mode,
                leaf: &mut F,
            ) {
                run_kernel!($n, Scalar, nodes, r, t_min, t_max, mode, leaf)
            }
        }
    };
}

wide_traverse_ray!(4, WideNode<4>, run4);
wide_traverse_ray!(8, WideNode<8>, run8);
wide_traverse_ray!(8, CompactNode8, run8c);

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
