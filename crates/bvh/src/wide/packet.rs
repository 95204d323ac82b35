//! Packet traversal of 8-wide trees: a bundle of up to [`PACKET_RAYS`] coherent rays
//! (neighbouring pixels of a camera, a LiDAR sweep) goes down the tree together, each node
//! tested once for the whole bundle with interval arithmetic ([`BoxPacket`]: the frustum
//! test of Boulos et al. 2006), and at each leaf the bundle's rays are tested against the
//! leaf's box, each with its own robust box test, before the visitor tests the triangles of
//! the rays that enter it.
//!
//! The node test is conservative: a node that any member ray's own robust box test
//! ([`BoxRay`]) would enter within its interval is entered, so the leaves each ray is handed
//! are exactly those its single-ray traversal could visit, and a visitor that keeps each
//! ray's best hit finds exactly the single-ray answers.

// `!(a <= b)` is deliberate: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::ops::{ControlFlow, Range};

use raypick_primitives::Real;

use super::layout::sealed::Internal;
use super::stack::Stack;
use super::traverse::{scalar_ranks, stack_cap};
use super::{WideBvh, WideLayout};
use crate::{BoxRay, MAX_DEPTH};

/// The most rays in a [`BoxPacket`]: 16, a 4 x 4 tile of pixels.
pub const PACKET_RAYS: usize = 16;

/// How far each inverse-direction interval is widened, relative to its bounds: far more than
/// the few roundings in a slab distance (about 2^-23 relative), so that the bundle's entry is
/// below and its exit above every member's own, computed and padded ones.
const WIDEN: f32 = 1.0 / (1u32 << 20) as f32;

/// A bundle of up to [`PACKET_RAYS`] rays prepared for [`WideBvh::traverse_packet`]: each
/// member's box-test constants (those of its [`BoxRay`]) and interval, lane by lane, and the
/// bundle's as intervals: per axis, the origins' range and the inverse directions' range. A
/// node is entered when some ray with an origin and an inverse direction in those ranges
/// could enter it, which covers every member.
///
/// Made by [`BoxPacket::new`] only from rays whose directions agree in sign on every axis
/// and whose inverse directions are finite (a ray along a coordinate plane, or a bundle that
/// straddles one, is traversed one ray at a time).
#[derive(Clone, Copy, Debug)]
pub struct BoxPacket {
    /// Per axis, the origin bound subtracted from near planes (the largest origin for a
    /// positive direction, the smallest for a negative one): the nearest entry.
    o_near: [f32; 3],
    /// Per axis, the origin bound subtracted from far planes: the farthest exit.
    o_far: [f32; 3],
    /// Per axis, the inverse directions' range, widened by [`WIDEN`] outwards.
    lo: [f32; 3],
    hi: [f32; 3],
    /// Per axis, 1 when the directions are negative (the near plane is then `max`).
    neg: [usize; 3],
    /// Members: `n` rays, lanes past `n` copies of the first.
    pub(crate) n: usize,
    pub(crate) o: [[f32; PACKET_RAYS]; 3],
    pub(crate) inv: [[f32; PACKET_RAYS]; 3],
    pub(crate) inv_up: [[f32; PACKET_RAYS]; 3],
    pub(crate) inv_down: [[f32; PACKET_RAYS]; 3],
    /// Each member's interval.
    pub(crate) t_min: [f32; PACKET_RAYS],
    t_max: [f32; PACKET_RAYS],
}

impl BoxPacket {
    /// The bundle of `rays`, each `(ray, t_min, t_max)`, or `None` when there is no ray or
    /// more than [`PACKET_RAYS`], a ray is invalid or has a zero or subnormal direction
    /// component, or the rays' directions differ in sign on an axis.
    #[must_use]
    pub fn new<'a>(rays: impl IntoIterator<Item = (&'a BoxRay, Real, Real)>) -> Option<Self> {
        let mut it = rays.into_iter();
        let (first, t0, t1) = it.next()?;
        let usable = |r: &BoxRay| r.is_valid() && r.inv.iter().all(|i| i.is_finite());
        if !usable(first) {
            return None;
        }
        let neg = first.neg;
        let mut p = Self {
            o_near: first.o,
            o_far: first.o,
            lo: first.inv,
            hi: first.inv,
            neg,
            n: 1,
            o: first.o.map(|v| [v; PACKET_RAYS]),
            inv: first.inv.map(|v| [v; PACKET_RAYS]),
            inv_up: first.inv_up.map(|v| [v; PACKET_RAYS]),
            inv_down: first.inv_down.map(|v| [v; PACKET_RAYS]),
            t_min: [t0; PACKET_RAYS],
            t_max: [t1; PACKET_RAYS],
        };
        // `o_near` and `o_far` hold the origins' smallest and largest values until the end.
        for (r, t0, t1) in it {
            if p.n == PACKET_RAYS || !usable(r) || r.neg != neg {
                return None;
            }
            let j = p.n;
            for a in 0..3 {
                p.o_near[a] = p.o_near[a].min(r.o[a]);
                p.o_far[a] = p.o_far[a].max(r.o[a]);
                p.lo[a] = p.lo[a].min(r.inv[a]);
                p.hi[a] = p.hi[a].max(r.inv[a]);
                p.o[a][j] = r.o[a];
                p.inv[a][j] = r.inv[a];
                p.inv_up[a][j] = r.inv_up[a];
                p.inv_down[a][j] = r.inv_down[a];
            }
            p.t_min[j] = t0;
            p.t_max[j] = t1;
            p.n += 1;
        }
        for (a, &negative) in neg.iter().enumerate() {
            let (small, large) = (p.o_near[a], p.o_far[a]);
            let positive = negative == 0;
            p.o_near[a] = if positive { large } else { small };
            p.o_far[a] = if positive { small } else { large };
            p.lo[a] -= p.lo[a].abs() * WIDEN;
            p.hi[a] += p.hi[a].abs() * WIDEN;
        }
        Some(p)
    }

    /// Number of member rays.
    #[must_use]
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false: a packet has at least one ray.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The row of a wide node's bounds holding axis `a`'s near plane (as [`BoxRay`]).
    #[inline(always)]
    pub(crate) fn near_row(&self, a: usize) -> usize {
        crate::ray::near_row(&self.neg, a)
    }

    /// The row of axis `a`'s far plane.
    #[inline(always)]
    pub(crate) fn far_row(&self, a: usize) -> usize {
        crate::ray::far_row(&self.neg, a)
    }

    #[inline(always)]
    pub(crate) fn o_near(&self, a: usize) -> f32 {
        self.o_near[a]
    }

    #[inline(always)]
    pub(crate) fn o_far(&self, a: usize) -> f32 {
        self.o_far[a]
    }

    #[inline(always)]
    pub(crate) fn inv_lo(&self, a: usize) -> f32 {
        self.lo[a]
    }

    #[inline(always)]
    pub(crate) fn inv_hi(&self, a: usize) -> f32 {
        self.hi[a]
    }

    /// Bit `j` set for each member lane below `n`.
    #[inline(always)]
    pub(crate) fn lanes(&self) -> u32 {
        (1u32 << self.n) - 1
    }

    /// The members whose robust box test ([`BoxRay`]'s, lane by lane) enters slot `i` of
    /// `node` within `[t_min[j], bound[j]]`: the reference for the SIMD version.
    #[inline(always)]
    pub(crate) fn members_scalar<L: Internal<8>>(
        &self,
        node: &L,
        i: usize,
        bound: &[f32; PACKET_RAYS],
    ) -> u32 {
        let mut mask = 0u32;
        for (j, &b) in bound.iter().enumerate().take(self.n) {
            let mut near = self.t_min[j];
            let mut far = b;
            for a in 0..3 {
                let np = node.plane(self.near_row(a), i);
                let fp = node.plane(self.far_row(a), i);
                let tn = (np - self.o[a][j]) * self.inv[a][j];
                let d = fp - self.o[a][j];
                let tf = max_of(d * self.inv_up[a][j], d * self.inv_down[a][j]);
                near = max_of(tn, near);
                far = min_of(tf, far);
            }
            if near <= far {
                mask |= 1 << j;
            }
        }
        mask
    }
}

/// `if a < b { a } else { b }`: `_mm256_min_ps(a, b)` lane for lane.
#[inline(always)]
pub(crate) fn min_of(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// `if a > b { a } else { b }`: `_mm256_max_ps(a, b)` lane for lane.
#[inline(always)]
pub(crate) fn max_of(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// The bundle's node test, and its members' test at a leaf slot. The SIMD versions compute
/// the same operations.
pub(crate) trait PacketKernel<L>: Copy {
    /// The mask of `node`'s slots the bundle may enter within `[t_min, t_max]`, and each
    /// slot's bundle entry (meaningful for set bits only).
    fn test(self, node: &L, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]);

    /// [`BoxPacket::members_scalar`].
    fn members(self, node: &L, i: usize, p: &BoxPacket, bound: &[f32; PACKET_RAYS]) -> u32;

    /// As [`super::traverse::Kernel::ranks`].
    #[inline(always)]
    fn ranks(self, dist: &[f32; 8], mask: u32) -> [u32; 8] {
        scalar_ranks(dist, mask)
    }
}

/// The scalar packet kernel: the reference for the SIMD one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScalarPacket;

impl<L: Internal<8>> PacketKernel<L> for ScalarPacket {
    #[inline(always)]
    fn test(self, node: &L, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        let mut dist = [0.0f32; 8];
        let mut mask = 0u32;
        for (i, d) in dist.iter_mut().enumerate() {
            let mut near = t_min;
            let mut far = t_max;
            for a in 0..3 {
                let dn = node.plane(p.near_row(a), i) - p.o_near(a);
                let tn = min_of(dn * p.inv_lo(a), dn * p.inv_hi(a));
                let df = node.plane(p.far_row(a), i) - p.o_far(a);
                let tf = max_of(df * p.inv_lo(a), df * p.inv_hi(a));
                near = max_of(tn, near);
                far = min_of(tf, far);
            }
            if near <= far {
                mask |= 1 << i;
            }
            *d = near;
        }
        (node.entered(mask), dist)
    }

    #[inline(always)]
    fn members(self, node: &L, i: usize, p: &BoxPacket, bound: &[f32; PACKET_RAYS]) -> u32 {
        p.members_scalar(node, i, bound)
    }
}

/// What a packet traversal ([`WideBvh::traverse_packet`]) calls for each leaf its members
/// reach.
pub trait PacketVisitor {
    /// Visits the leaf of leaf-order positions `range` for the members set in `members`
    /// (bit `j`: member `j`, whose own box test enters the leaf's box within its interval).
    /// `bound[j]` is member `j`'s upper bound on `t`, which the visitor may lower (its
    /// closest hit so far): nodes and leaves entered beyond every member's bound are then
    /// skipped. Returns [`ControlFlow::Break`] to stop at once.
    fn leaf(
        &mut self,
        range: Range<usize>,
        members: u32,
        bound: &mut [Real; PACKET_RAYS],
    ) -> ControlFlow<()>;

    /// The traversal is about to test the child boxes of node `node` for the bundle: a
    /// hook for counting the work, which may return [`ControlFlow::Break`] to abandon the
    /// traversal there (a visitor whose bundle turned out too spread out for packets then
    /// finishes its rays one at a time). Continues by default, which costs nothing.
    #[inline(always)]
    fn node(&mut self, node: usize) -> ControlFlow<()> {
        let _ = node;
        ControlFlow::Continue(())
    }
}

/// A pending child: entered at `t` (the bundle's nearest entry), `child`/`count` as in a
/// node slot, and where its box is (node `parent`, slot `slot`).
#[derive(Clone, Copy, Debug)]
struct PacketItem {
    t: f32,
    child: u32,
    count: u32,
    parent: u32,
    slot: u32,
}

/// The largest of the members' bounds: the bundle's.
#[inline(always)]
fn largest(bound: &[f32; PACKET_RAYS], n: usize) -> f32 {
    let mut t = bound[0];
    for &b in &bound[1..n.min(PACKET_RAYS)] {
        t = max_of(b, t);
    }
    t
}

/// The packet loop, generic over the node kernel: nearest entered child first, children
/// entered past the bundle's bound skipped.
#[inline(always)]
pub(crate) fn packet_with_kernel<L, K, V>(k: K, nodes: &[L], p: &BoxPacket, visitor: &mut V)
where
    L: Internal<8>,
    K: PacketKernel<L>,
    V: PacketVisitor,
{
    const CAP: usize = stack_cap(8, MAX_DEPTH);
    let mut bound = p.t_max;
    let t_min = p.t_min[..p.n]
        .iter()
        .fold(f32::INFINITY, |a, &b| min_of(b, a));
    let mut t_max = largest(&bound, p.n);
    if !(t_min <= t_max) {
        return;
    }
    let mut stack: Stack<PacketItem, CAP> = Stack::new();
    let mut item = PacketItem {
        t: t_min,
        child: 0,
        count: 0,
        parent: 0,
        slot: 0,
    };
    loop {
        if item.count > 0 {
            let parent = &nodes[item.parent as usize];
            let members = k.members(parent, item.slot as usize & 7, p, &bound);
            if members != 0 {
                let s = item.child as usize;
                if visitor
                    .leaf(s..s + item.count as usize, members, &mut bound)
                    .is_break()
                {
                    return;
                }
                t_max = largest(&bound, p.n);
            }
        } else {
            let at = item.child;
            if visitor.node(at as usize).is_break() {
                return;
            }
            let node = &nodes[at as usize];
            let (mask, dist) = k.test(node, p, t_min, t_max);
            if mask != 0 {
                let slot = |i: usize| {
                    let (child, count) = node.slot(i);
                    PacketItem {
                        t: dist[i],
                        child,
                        count,
                        parent: at,
                        slot: i as u32,
                    }
                };
                if mask & (mask - 1) == 0 {
                    item = slot(mask.trailing_zeros() as usize);
                    continue;
                }
                let rank = k.ranks(&dist, mask);
                let mut bits = mask;
                let mut placed = stack.place_ranked();
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    placed.put(rank[i] as usize, slot(i));
                }
                placed.finish();
                if let Some(top) = stack.pop() {
                    item = top;
                }
                continue;
            }
        }
        loop {
            let Some(top) = stack.pop() else { return };
            item = top;
            if item.t <= t_max {
                break;
            }
        }
    }
}

impl<L: WideLayout<8> + super::traverse::Node8> WideBvh<8, L> {
    /// Traverses the tree with a bundle of rays: calls `visitor.leaf(range, members, &mut
    /// bound)` for every leaf that some member's robust box test (the single-ray
    /// traversal's) enters within its interval `[t_min, bound]`, with those members,
    /// nearest bundle entry first. The nodes are tested once for the bundle, conservatively
    /// (see [`BoxPacket`]), so each member is handed every leaf its single-ray traversal
    /// could visit. Members with `!(t_min <= t_max)` (NaN included) are handed nothing.
    /// Allocates nothing.
    #[inline]
    pub fn traverse_packet<V: PacketVisitor>(&self, p: &BoxPacket, visitor: &mut V) {
        let nodes = &self.nodes[..];
        if nodes.is_empty() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if super::slab_x86::packet8(nodes, p, visitor) {
            return;
        }
        Self::packet_scalar(nodes, p, visitor);
    }

    /// The scalar packet loop (the reference path, and the fallback), out of line.
    #[inline(never)]
    fn packet_scalar<V: PacketVisitor>(nodes: &[L], p: &BoxPacket, visitor: &mut V) {
        packet_with_kernel(ScalarPacket, nodes, p, visitor);
    }
}
