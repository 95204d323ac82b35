//! What a ray query does with the hits its leaves report: keep the nearest (closest hit),
//! stop at the first (any hit), or collect every one (all hits).

use std::ops::ControlFlow;

use raypick_primitives::Real;

use super::super::leaf_tris::Slot;
use super::super::triangle_kernel::RawHit;
use super::{prune_bound, Hit, LeafSink, Mesh};

/// The state of a closest-hit query.
pub(super) struct Closest {
    best_t: Real,
    /// The kernel's and the traversal's bound: `best_t` padded, so that a box whose entry
    /// rounds a little past it still has its hits at exactly `best_t` (ties) tested, or,
    /// before the first hit, the query's `t_max` widened by
    /// [`traversal_range`](super::traversal_range); [`LeafSink::hit`] then compares the
    /// reported `t` with `best_t`.
    bound: Real,
    pub(super) best: Option<(RawHit, Slot)>,
    best_prim: u32,
    /// [`prune_bound`]'s absolute pad for this ray.
    pad: Real,
}

impl Closest {
    /// No hit yet, below `t_max`; `bound` is the traversal's widened `t_max`, `pad` the
    /// ray's [`prune_pad`](super::prune_pad).
    #[inline(always)]
    pub(super) fn new(t_max: Real, bound: Real, pad: Real) -> Self {
        Self {
            best_t: t_max,
            bound,
            best: None,
            best_prim: u32::MAX,
            pad,
        }
    }
}

impl LeafSink for Closest {
    #[inline(always)]
    fn bound(&self) -> Real {
        self.bound
    }

    /// Takes the hit if it is nearer, or as near with a lower original index, and the
    /// triangle is not degenerate.
    #[inline(always)]
    fn hit(&mut self, mesh: &Mesh, slot: Slot, h: RawHit) -> ControlFlow<()> {
        // The original index and degenerate flag are in the lines the kernel has just read.
        let (prim, degenerate) = mesh.tris.prim_degenerate_at(slot);
        let better = h.t < self.best_t || (h.t == self.best_t && prim < self.best_prim);
        if better && !degenerate {
            self.best_t = h.t;
            self.best_prim = prim;
            self.best = Some((h, slot));
            let padded = prune_bound(h.t, self.pad);
            if padded < self.bound {
                self.bound = padded;
            }
        }
        ControlFlow::Continue(())
    }
}

/// The state of an any-hit query: stops at the first hit on a non-degenerate triangle with
/// `t <= t_max`.
pub(super) struct AnyHit {
    t_max: Real,
    /// `t_max` widened by [`traversal_range`](super::traversal_range), for the kernel and
    /// the traversal: a hit at exactly `t_max` is kept, and [`LeafSink::hit`] drops the
    /// ones past it.
    bound: Real,
    pub(super) found: bool,
}

impl AnyHit {
    /// No hit yet, below `t_max`; `bound` is the traversal's widened `t_max`.
    #[inline(always)]
    pub(super) fn new(t_max: Real, bound: Real) -> Self {
        Self {
            t_max,
            bound,
            found: false,
        }
    }
}

impl LeafSink for AnyHit {
    #[inline(always)]
    fn bound(&self) -> Real {
        self.bound
    }

    #[inline(always)]
    fn hit(&mut self, mesh: &Mesh, slot: Slot, h: RawHit) -> ControlFlow<()> {
        if h.t > self.t_max || mesh.tris.degenerate_at(slot) {
            return ControlFlow::Continue(());
        }
        self.found = true;
        ControlFlow::Break(())
    }
}

/// The state of an all-hits query: every hit of a non-degenerate triangle within
/// `[t_min, t_max]`, as a pending record for [`all_hits::merge_crossings`].
///
/// [`all_hits::merge_crossings`]: super::super::all_hits::merge_crossings
pub(super) struct Every<'a> {
    pub(super) t_max: Real,
    /// The traversal's `t_max` widened by [`traversal_range`](super::traversal_range), also
    /// the kernel's bound (it decides on the reported `t` alone, so the hits kept are those
    /// of a kernel bounded by `t_max`).
    pub(super) bound: Real,
    pub(super) out: &'a mut Vec<Hit>,
}

impl LeafSink for Every<'_> {
    #[inline(always)]
    fn bound(&self) -> Real {
        self.bound
    }

    /// The SIMD lanes hand over hits whose edge functions are all nonzero (zero-weight mask
    /// empty, as the scalar kernel would report it); lanes on an edge or a vertex come
    /// through the scalar kernel with their mask.
    #[inline(always)]
    fn hit(&mut self, mesh: &Mesh, slot: Slot, h: RawHit) -> ControlFlow<()> {
        if h.t <= self.t_max && !mesh.tris.degenerate_at(slot) {
            self.out
                .push(super::super::all_hits::pending(slot.pos(), &h));
        }
        ControlFlow::Continue(())
    }
}
