//! Traversals: ray (near child first, robust slabs), box overlap, node predicate and
//! best-first. None allocates (best-first only when its frontier outgrows 64 entries, see
//! [`BestFirstScratch`]).

// `!(a <= b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::{ControlFlow, Range};

use raypick_primitives::{Aabb, Ray, Real};
use smallvec::SmallVec;

use crate::wide::stack::Stack;
use crate::{heap, BoxRay, Bvh, Node, MAX_DEPTH};

#[inline(always)]
fn overlaps(n: &Node, q: &Aabb) -> bool {
    n.min[0] <= q.max.x
        && q.min.x <= n.max[0]
        && n.min[1] <= q.max.y
        && q.min.y <= n.max[1]
        && n.min[2] <= q.max.z
        && q.min.z <= n.max[2]
}

#[inline(always)]
fn leaf_range(n: &Node) -> Range<usize> {
    let s = n.index as usize;
    s..s + n.count as usize
}

/// Reusable storage for the best-first traversals of both trees
/// ([`Bvh::traverse_best_first_in`], [`WideBvh::traverse_best_first_in`]): its heap keeps
/// 64 entries inline and keeps any larger capacity it grew to, so reusing it makes queries
/// allocation-free. One scratch serves either tree.
///
/// [`WideBvh::traverse_best_first_in`]: crate::wide::WideBvh::traverse_best_first_in
#[derive(Clone, Debug, Default)]
pub struct BestFirstScratch {
    /// Pending entries: bound, then a node index (binary tree) or a slot's child/count pair
    /// (wide tree).
    pub(crate) heap: SmallVec<[heap::Pending; 64]>,
}

impl BestFirstScratch {
    /// An empty scratch (no allocation).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl Bvh {
    /// Ray traversal: calls `leaf(range, &mut t_max)` for every leaf whose box the ray enters
    /// within `[t_min, *t_max]`, nearer child first. `range` is a range of leaf-order
    /// positions (see [`Bvh::prim_indices`]).
    ///
    /// The callback may lower `*t_max` (the closest hit so far): subtrees entered beyond it
    /// are pruned. It returns [`ControlFlow::Break`] to stop at once (any-hit). The box test
    /// is the robust slab test of [`RayAabbPrecomp::intersect_robust`](raypick_primitives::RayAabbPrecomp::intersect_robust) (Ize 2013), so no leaf
    /// whose primitives' boxes the ray touches is skipped; `t` is in units of `ray.dir` as
    /// given. A ray with a NaN or infinite component or a zero direction, or bounds with
    /// `!(t_min <= t_max)` (NaN included), visits nothing. Allocates nothing.
    ///
    /// ```
    /// use std::ops::ControlFlow;
    /// use raypick_bvh::{BuildConfig, Bvh};
    /// use raypick_primitives::{Aabb, Point3, Ray, Vector3};
    ///
    /// let boxes: Vec<Aabb> = (0..10)
    ///     .map(|i| {
    ///         let x = i as f32 * 2.0;
    ///         Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0))
    ///     })
    ///     .collect();
    /// let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    /// let ray = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
    /// let mut first = None;
    /// bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |range, t_max| {
    ///     for pos in range {
    ///         let prim = bvh.prim_indices()[pos] as usize;
    ///         let t = boxes[prim].min.x - ray.origin.x; // entry distance of this box
    ///         if t < *t_max {
    ///             *t_max = t;
    ///             first = Some(prim);
    ///         }
    ///     }
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(first, Some(0));
    /// ```
    #[inline]
    pub fn traverse_ray<F>(&self, ray: &Ray, t_min: Real, t_max: Real, mut leaf: F)
    where
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        let nodes = &self.nodes[..];
        if nodes.is_empty() {
            return;
        }
        let r = BoxRay::new(ray);
        if !r.is_valid() || !(t_min <= t_max) {
            return;
        }
        let mut t_max = t_max;
        if r.enter(&nodes[0].min, &nodes[0].max, t_min, t_max)
            .is_none()
        {
            return;
        }
        if nodes[0].count > 0 {
            // A single leaf (a scene of one object): no loop and no stack, and all of this
            // inlined into the caller with its leaf closure.
            let _ = leaf(leaf_range(&nodes[0]), &mut t_max);
            return;
        }
        Self::traverse_ray_below_root(nodes, &r, t_min, t_max, leaf);
    }

    /// [`Bvh::traverse_ray`] from an inner root the ray enters, out of line.
    #[inline(never)]
    fn traverse_ray_below_root<F>(
        nodes: &[Node],
        r: &BoxRay,
        t_min: Real,
        mut t_max: Real,
        mut leaf: F,
    ) where
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        // Depth <= MAX_DEPTH (a type invariant), so at most MAX_DEPTH - 1 entries are pushed.
        // Not zeroed: a slot is read only after it is written.
        let mut stack: Stack<(u32, f32), MAX_DEPTH> = Stack::new();
        let mut cur = 0usize;
        loop {
            let node = &nodes[cur];
            if node.count > 0 {
                if leaf(leaf_range(node), &mut t_max).is_break() {
                    return;
                }
            } else {
                let c = node.index as usize;
                let ta = r.enter(&nodes[c].min, &nodes[c].max, t_min, t_max);
                let tb = r.enter(&nodes[c + 1].min, &nodes[c + 1].max, t_min, t_max);
                match (ta, tb) {
                    (Some(ea), Some(eb)) => {
                        let (near, far, e_far) = if ea <= eb {
                            (c, c + 1, eb)
                        } else {
                            (c + 1, c, ea)
                        };
                        stack.push((far as u32, e_far));
                        cur = near;
                        continue;
                    }
                    (Some(_), None) => {
                        cur = c;
                        continue;
                    }
                    (None, Some(_)) => {
                        cur = c + 1;
                        continue;
                    }
                    (None, None) => {}
                }
            }
            // Pop the nearest pending subtree still entered before the current t_max.
            loop {
                let Some((n, entry)) = stack.pop() else {
                    return;
                };
                if entry <= t_max {
                    cur = n as usize;
                    break;
                }
            }
        }
    }

    /// Calls `leaf(range)` for every leaf whose box overlaps `aabb` (boxes closed: touching
    /// counts). A query box with a NaN, or inverted (e.g. `Aabb::EMPTY`), overlaps nothing.
    /// Stop early with [`ControlFlow::Break`]. Allocates nothing.
    pub fn traverse_aabb<F>(&self, aabb: &Aabb, mut leaf: F)
    where
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        if aabb.is_empty() {
            return;
        }
        self.traverse_nodes(|n| overlaps(n, aabb), &mut leaf);
    }

    /// Generic traversal: descends into every node whose box satisfies `node_pred` (sphere,
    /// OBB or frustum tests) and calls `leaf(range)` for each leaf that does. The predicate
    /// should be conservative (true whenever the box may hold something of interest).
    /// Stop early with [`ControlFlow::Break`]. Allocates nothing.
    pub fn traverse_where<P, F>(&self, mut node_pred: P, mut leaf: F)
    where
        P: FnMut(&Aabb) -> bool,
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        self.traverse_nodes(|n| node_pred(&n.aabb()), &mut leaf);
    }

    #[inline(always)]
    fn traverse_nodes<P, F>(&self, mut pred: P, mut leaf: F)
    where
        P: FnMut(&Node) -> bool,
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        let nodes = &self.nodes[..];
        if nodes.is_empty() || !pred(&nodes[0]) {
            return;
        }
        let mut stack = [0u32; MAX_DEPTH];
        let mut sp = 0usize;
        let mut cur = 0usize;
        loop {
            let node = &nodes[cur];
            if node.count > 0 {
                if leaf(leaf_range(node)).is_break() {
                    return;
                }
            } else {
                let c = node.index as usize;
                let ha = pred(&nodes[c]);
                let hb = pred(&nodes[c + 1]);
                match (ha, hb) {
                    (true, true) => {
                        stack[sp] = (c + 1) as u32;
                        sp += 1;
                        cur = c;
                        continue;
                    }
                    (true, false) => {
                        cur = c;
                        continue;
                    }
                    (false, true) => {
                        cur = c + 1;
                        continue;
                    }
                    (false, false) => {}
                }
            }
            if sp == 0 {
                return;
            }
            sp -= 1;
            cur = stack[sp] as usize;
        }
    }

    /// Best-first traversal by a lower bound, for nearest-point and nearest-object queries.
    ///
    /// `node_dist(&aabb)` returns a lower bound of the distance from the query to anything in
    /// the box (any monotone measure, e.g. squared distance). Leaves are visited in
    /// increasing order of their bound; `leaf(range, &mut best)` may lower `best` (which
    /// starts at `max_dist`), and nodes whose bound exceeds `best` are pruned. Visiting stops
    /// when the smallest pending bound exceeds `best`, or on [`ControlFlow::Break`]. A NaN
    /// bound prunes its node; a NaN `max_dist` visits nothing.
    ///
    /// Keeps up to 64 pending nodes inline; a larger frontier (many boxes at nearly the same
    /// bound) allocates. Use [`Bvh::traverse_best_first_in`] with a reused
    /// [`BestFirstScratch`] to avoid that.
    pub fn traverse_best_first<D, F>(&self, max_dist: Real, node_dist: D, leaf: F)
    where
        D: FnMut(&Aabb) -> Real,
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        let mut scratch = BestFirstScratch::new();
        self.traverse_best_first_in(&mut scratch, max_dist, node_dist, leaf);
    }

    /// [`Bvh::traverse_best_first`] with caller-owned scratch memory, so repeated queries
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
                // The root is offered whole; a node's two children one by one.
                let offered = match node {
                    None => 0..1,
                    Some(i) => {
                        let c = nodes[i as usize].index as usize;
                        c..c + 2
                    }
                };
                for i in offered {
                    let n = &nodes[i];
                    let d = node_dist(&n.aabb());
                    if d <= best {
                        // A leaf's entry is its range; a node's is its index.
                        let e = if n.count > 0 {
                            (d, n.index, n.count)
                        } else {
                            (d, i as u32, 0)
                        };
                        heap::push(heap, e);
                    }
                }
            },
            leaf,
        );
    }
}
