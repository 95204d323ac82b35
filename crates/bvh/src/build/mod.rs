//! The binned SAH builder (Wald 2007), sequential below a size threshold and rayon-parallel
//! above it, deterministic whatever the thread count.
//!
//! The builder sees only boxes. It sorts an array of 32-byte primitive references in place
//! (no sorting: a two-pointer partition per split), so a leaf's primitives are a contiguous
//! range of that array, which becomes [`crate::Bvh::prim_indices`].

// `!(a < b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use raypick_primitives::Aabb;

#[cfg(target_arch = "x86_64")]
mod bin_x86;
mod binned;
pub(crate) mod morton;
mod prim;
mod small;

use crate::config::Resolved;
use crate::wide::collapse::{plan_nodes, plan_parent, Plan, Rules, Sub};
use crate::wide::CollapseConfig;
use crate::{BuildError, Node};
use binned::Bins;
use prim::{bounds_of, xyz, Box3, PrimRef};

/// Checks one box; the error names `index`.
#[inline]
pub(crate) fn check_box(index: usize, b: &Aabb) -> Result<(), BuildError> {
    let c = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
    if c.iter().any(|v| v.is_nan()) {
        return Err(BuildError::NanBox { index });
    }
    if c.iter().any(|v| v.is_infinite()) {
        return Err(BuildError::InfiniteBox { index });
    }
    for axis in 0..3 {
        if c[axis] > c[axis + 3] {
            return Err(BuildError::InvertedBox { index, axis });
        }
    }
    Ok(())
}

/// Checks every box, returning the error of the first bad one.
pub(crate) fn check_boxes(boxes: &[Aabb]) -> Result<(), BuildError> {
    // Fast path: one branch-free scan; the precise error only on failure.
    let ok = boxes.iter().all(|b| {
        let c = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
        c.iter().all(|v| v.is_finite())
            && b.min.x <= b.max.x
            && b.min.y <= b.max.y
            && b.min.z <= b.max.z
    });
    if ok {
        return Ok(());
    }
    for (i, b) in boxes.iter().enumerate() {
        check_box(i, b)?;
    }
    Ok(())
}

/// Progress reporting shared by the build tasks.
pub(crate) struct Progress<'a> {
    pub callback: Option<&'a (dyn Fn(f32) + Sync)>,
    pub done: AtomicUsize,
    pub total: usize,
    pub step: usize,
}

impl Progress<'_> {
    #[inline]
    fn leaf_done(&self, count: usize) {
        if let Some(cb) = self.callback {
            let before = self.done.fetch_add(count, Ordering::Relaxed);
            let after = before + count;
            if before / self.step != after / self.step {
                cb(after as f32 / self.total.max(1) as f32);
            }
        }
    }
}

struct Ctx<'a> {
    cfg: Resolved,
    progress: &'a Progress<'a>,
    /// The 8-wide collapse's rules when its plan is made as the tree is built: each
    /// sequential part solves its nodes while they are in cache, on its own thread.
    plan: Option<Rules>,
}

/// The collapse plan's width.
pub(crate) const PLAN_WIDTH: usize = 8;

/// A part's plan: its nodes' decisions, in its node order, and what its root's parent needs.
type PartPlan = (Plan<PLAN_WIDTH>, Sub<PLAN_WIDTH>);

/// Primitive counts at or above which binning runs in parallel chunks.
const PAR_BIN_MIN: usize = 1 << 16;
const PAR_CHUNK: usize = 1 << 14;

/// Builds the nodes over `boxes` (already checked, non-empty). Returns nodes, the leaf-order
/// primitive indices and the depth, and with `collapse`, the 8-wide collapse's plan of the
/// nodes under it (exactly what [`crate::wide::WideBvh::from_bvh_with`] would solve).
pub(crate) fn build_nodes(
    boxes: &[Aabb],
    cfg: Resolved,
    progress: &Progress<'_>,
    collapse: Option<&CollapseConfig>,
) -> (Vec<Node>, Vec<u32>, usize, Option<Plan<PLAN_WIDTH>>) {
    let n = boxes.len();
    let parallel = n >= cfg.parallel_threshold;
    let to_ref = |(i, b): (usize, &Aabb)| PrimRef {
        min: [b.min.x, b.min.y, b.min.z, f32::from_bits(i as u32)],
        max: [b.max.x, b.max.y, b.max.z, 0.0],
    };
    let mut prims: Vec<PrimRef> = if parallel {
        boxes.par_iter().enumerate().map(to_ref).collect()
    } else {
        boxes.iter().enumerate().map(to_ref).collect()
    };
    let (bounds, cbounds) = bounds_of(&prims, parallel);
    let plan = collapse.map(|c| Rules::new(c, &interior_node(&bounds, 0)));
    let ctx = Ctx {
        cfg,
        progress,
        plan,
    };
    let part = build_part(&ctx, &mut prims, 0, bounds, cbounds, cfg.max_depth);
    let (nodes, depth, plan) = match part {
        Part::Seq { nodes, depth, plan } => (nodes, depth, plan.map(|p| p.0)),
        part => {
            let len = part.node_count();
            let mut out = Vec::with_capacity(len);
            out.push(Node {
                min: [0.0; 3],
                index: 0,
                max: [0.0; 3],
                count: 0,
            });
            let mut plan = ctx.plan.map(|_| {
                let mut p = Plan::with_capacity(len);
                p.push_unsolved();
                p
            });
            let (depth, _) = flatten(&ctx, part, 0, &mut out, plan.as_mut());
            (out, depth, plan)
        }
    };
    let indices = if parallel {
        prims.par_iter().map(PrimRef::idx).collect()
    } else {
        prims.iter().map(PrimRef::idx).collect()
    };
    (nodes, indices, depth, plan)
}

/// A built piece of tree: a sequentially built node array, or a split whose halves were built
/// as parallel tasks. Flattened once at the end, so the layout never depends on scheduling.
enum Part {
    Seq {
        nodes: Vec<Node>,
        depth: usize,
        plan: Option<PartPlan>,
    },
    Split {
        bounds: Box3,
        children: Box<(Part, Part)>,
    },
}

impl Part {
    fn node_count(&self) -> usize {
        match self {
            Part::Seq { nodes, .. } => nodes.len(),
            Part::Split { children, .. } => 1 + children.0.node_count() + children.1.node_count(),
        }
    }
}

fn leaf_node(b: &Box3, start: usize, count: usize) -> Node {
    Node {
        min: xyz(&b.min),
        index: start as u32,
        max: xyz(&b.max),
        count: count as u32,
    }
}

/// An interior node over `b` whose children sit at `first_child` and `first_child + 1`.
fn interior_node(b: &Box3, first_child: usize) -> Node {
    Node {
        count: 0,
        ..leaf_node(b, first_child, 0)
    }
}

/// Writes `part` with its root at `out[slot]`, appending its other nodes, and likewise its
/// plan into `plan`; returns its depth, and what its root's parent needs of the plan.
fn flatten(
    ctx: &Ctx<'_>,
    part: Part,
    slot: usize,
    out: &mut Vec<Node>,
    mut plan: Option<&mut Plan<PLAN_WIDTH>>,
) -> (usize, Option<Sub<PLAN_WIDTH>>) {
    match part {
        Part::Seq {
            nodes,
            depth,
            plan: part_plan,
        } => {
            // Local child indices c >= 1 move to base + c - 1; the local root goes to `slot`.
            let base = out.len();
            out[slot] = nodes[0];
            out.extend_from_slice(&nodes[1..]);
            for n in std::iter::once(slot).chain(base..out.len()) {
                if out[n].count == 0 {
                    out[n].index = (base + out[n].index as usize - 1) as u32;
                }
            }
            let sub = match (plan, part_plan) {
                (Some(plan), Some((p, sub))) => {
                    plan.set_from(slot, &p, 0);
                    plan.extend_from(&p, 1);
                    Some(sub)
                }
                _ => None,
            };
            (depth, sub)
        }
        Part::Split { bounds, children } => {
            let c = out.len();
            out[slot] = interior_node(&bounds, c);
            out.push(out[slot]);
            out.push(out[slot]);
            if let Some(plan) = plan.as_deref_mut() {
                plan.push_unsolved();
                plan.push_unsolved();
            }
            let (l, r) = *children;
            let (dl, ls) = flatten(ctx, l, c, out, plan.as_deref_mut());
            let (dr, rs) = flatten(ctx, r, c + 1, out, plan.as_deref_mut());
            let sub = match (plan, ctx.plan, ls, rs) {
                (Some(plan), Some(rules), Some(ls), Some(rs)) => {
                    let (p, sub) = plan_parent(&rules, &out[slot], &ls, &rs);
                    plan.set_from(slot, &p, 0);
                    Some(sub)
                }
                _ => None,
            };
            (1 + dl.max(dr), sub)
        }
    }
}

fn build_part(
    ctx: &Ctx<'_>,
    prims: &mut [PrimRef],
    offset: usize,
    bounds: Box3,
    cbounds: Box3,
    remaining: usize,
) -> Part {
    let n = prims.len();
    if n < ctx.cfg.parallel_threshold {
        let mut nodes = Vec::with_capacity(n + 1);
        nodes.push(leaf_node(&bounds, offset, n));
        let mut scratch = Bins::new();
        let depth = build_seq(
            ctx,
            prims,
            offset,
            bounds,
            cbounds,
            remaining,
            &mut nodes,
            0,
            &mut scratch,
        );
        let plan = ctx.plan.map(|rules| plan_nodes(&nodes, &rules));
        return Part::Seq { nodes, depth, plan };
    }
    let mut scratch = Bins::new();
    match binned::decide(ctx, prims, &bounds, &cbounds, remaining, true, &mut scratch) {
        Decision::Leaf => {
            ctx.progress.leaf_done(n);
            let nodes = vec![leaf_node(&bounds, offset, n)];
            let plan = ctx.plan.map(|rules| plan_nodes(&nodes, &rules));
            Part::Seq {
                nodes,
                depth: 1,
                plan,
            }
        }
        Decision::Split { mid, left, right } => {
            let (lp, rp) = prims.split_at_mut(mid);
            let (l, r) = rayon::join(
                || build_part(ctx, lp, offset, left.0, left.1, remaining - 1),
                || build_part(ctx, rp, offset + mid, right.0, right.1, remaining - 1),
            );
            Part::Split {
                bounds,
                children: Box::new((l, r)),
            }
        }
    }
}

/// Builds the subtree rooted at `nodes[at]` (already pushed); returns its depth.
#[allow(clippy::too_many_arguments)]
fn build_seq(
    ctx: &Ctx<'_>,
    prims: &mut [PrimRef],
    offset: usize,
    bounds: Box3,
    cbounds: Box3,
    remaining: usize,
    nodes: &mut Vec<Node>,
    at: usize,
    scratch: &mut Bins,
) -> usize {
    match binned::decide(ctx, prims, &bounds, &cbounds, remaining, false, scratch) {
        Decision::Leaf => {
            nodes[at] = leaf_node(&bounds, offset, prims.len());
            ctx.progress.leaf_done(prims.len());
            1
        }
        Decision::Split { mid, left, right } => {
            let c = nodes.len();
            nodes[at] = interior_node(&bounds, c);
            nodes.push(nodes[at]);
            nodes.push(nodes[at]);
            let (lp, rp) = prims.split_at_mut(mid);
            let dl = build_seq(
                ctx,
                lp,
                offset,
                left.0,
                left.1,
                remaining - 1,
                nodes,
                c,
                scratch,
            );
            let dr = build_seq(
                ctx,
                rp,
                offset + mid,
                right.0,
                right.1,
                remaining - 1,
                nodes,
                c + 1,
                scratch,
            );
            1 + dl.max(dr)
        }
    }
}

enum Decision {
    Leaf,
    /// Split after `mid` primitives; (box, centroid box) of each side.
    Split {
        mid: usize,
        left: (Box3, Box3),
        right: (Box3, Box3),
    },
}

/// The largest number of primitives a subtree with `levels` levels can hold in leaves of at
/// most `max_leaf` (saturating).
fn capacity(max_leaf: usize, levels: usize) -> usize {
    if levels == 0 {
        return 0;
    }
    let shift = (levels - 1).min(62) as u32;
    max_leaf.saturating_mul(1usize.checked_shl(shift).unwrap_or(usize::MAX))
}
