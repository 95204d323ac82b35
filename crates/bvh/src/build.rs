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

use crate::config::{Resolved, MAX_BINS};
use crate::node::half_area;
use crate::{BuildError, Node};

/// A primitive reference: its box and original index, 32 bytes, moved around by partitions.
/// Four lanes per corner so box updates compile to 4-wide min/max; lane 3 of `min` holds the
/// index's bits, lane 3 of `max` is 0, and lane 3 of every box computed from them is junk that
/// nothing reads.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimRef {
    min: [f32; 4],
    max: [f32; 4],
}

impl PrimRef {
    #[inline(always)]
    fn idx(&self) -> u32 {
        self.min[3].to_bits()
    }

    /// The centre, computed without overflow for huge coordinates (lane 3 junk).
    #[inline(always)]
    fn centroid(&self) -> [f32; 4] {
        std::array::from_fn(|a| self.min[a] * 0.5 + self.max[a] * 0.5)
    }
}

/// The first three lanes.
#[inline(always)]
fn xyz(v: &[f32; 4]) -> [f32; 3] {
    [v[0], v[1], v[2]]
}

/// `min` without NaN handling (one instruction): build inputs are checked NaN-free.
#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// `max` without NaN handling, see [`fmin`].
#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// A plain box used during the build (lane 3 unused).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Box3 {
    pub min: [f32; 4],
    pub max: [f32; 4],
}

impl Box3 {
    pub const EMPTY: Box3 = Box3 {
        min: [f32::INFINITY; 4],
        max: [f32::NEG_INFINITY; 4],
    };

    #[inline(always)]
    fn grow(&mut self, min: &[f32; 4], max: &[f32; 4]) {
        for a in 0..4 {
            self.min[a] = fmin(self.min[a], min[a]);
            self.max[a] = fmax(self.max[a], max[a]);
        }
    }

    #[inline(always)]
    fn grow_point(&mut self, p: &[f32; 4]) {
        self.grow(p, p);
    }

    #[inline(always)]
    fn union(&self, o: &Box3) -> Box3 {
        let mut b = *self;
        b.grow(&o.min, &o.max);
        b
    }

    #[inline(always)]
    fn half_area(&self) -> f32 {
        half_area(&xyz(&self.min), &xyz(&self.max))
    }

    /// The intersection (componentwise max of mins, min of maxes).
    #[inline(always)]
    fn intersect(&self, o: &Box3) -> Box3 {
        let mut b = *self;
        for a in 0..4 {
            b.min[a] = fmax(b.min[a], o.min[a]);
            b.max[a] = fmin(b.max[a], o.max[a]);
        }
        b
    }

    /// Half area without the emptiness check: garbage for an empty box, which the sweep
    /// never uses (a side with no primitive is skipped).
    #[inline(always)]
    fn half_area_unchecked(&self) -> f32 {
        let ex = self.max[0] - self.min[0];
        let ey = self.max[1] - self.min[1];
        let ez = self.max[2] - self.min[2];
        ex * ey + ey * ez + ez * ex
    }

    fn extent(&self, a: usize) -> f32 {
        self.max[a] - self.min[a]
    }
}

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
}

/// Primitive counts at or above which binning runs in parallel chunks.
const PAR_BIN_MIN: usize = 1 << 16;
const PAR_CHUNK: usize = 1 << 14;

/// Builds the nodes over `boxes` (already checked, non-empty). Returns nodes, the leaf-order
/// primitive indices and the depth.
pub(crate) fn build_nodes(
    boxes: &[Aabb],
    cfg: Resolved,
    progress: &Progress<'_>,
) -> (Vec<Node>, Vec<u32>, usize) {
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
    let ctx = Ctx { cfg, progress };
    let part = build_part(&ctx, &mut prims, 0, bounds, cbounds, cfg.max_depth);
    let (nodes, depth) = match part {
        Part::Seq { nodes, depth } => (nodes, depth),
        part => {
            let mut out = Vec::with_capacity(part.node_count());
            out.push(Node {
                min: [0.0; 3],
                index: 0,
                max: [0.0; 3],
                count: 0,
            });
            let depth = flatten(part, 0, &mut out);
            (out, depth)
        }
    };
    let indices = if parallel {
        prims.par_iter().map(PrimRef::idx).collect()
    } else {
        prims.iter().map(PrimRef::idx).collect()
    };
    (nodes, indices, depth)
}

/// Box and centroid box of a slice of primitives.
fn bounds_of(prims: &[PrimRef], parallel: bool) -> (Box3, Box3) {
    let seq = |ps: &[PrimRef]| {
        let mut b = Box3::EMPTY;
        let mut c = Box3::EMPTY;
        for p in ps {
            b.grow(&p.min, &p.max);
            c.grow_point(&p.centroid());
        }
        (b, c)
    };
    if parallel && prims.len() >= PAR_BIN_MIN {
        // min/max are exact, so the reduction order does not matter: deterministic.
        prims.par_chunks(PAR_CHUNK).map(seq).reduce(
            || (Box3::EMPTY, Box3::EMPTY),
            |a, b| (a.0.union(&b.0), a.1.union(&b.1)),
        )
    } else {
        seq(prims)
    }
}

/// A built piece of tree: a sequentially built node array, or a split whose halves were built
/// as parallel tasks. Flattened once at the end, so the layout never depends on scheduling.
enum Part {
    Seq {
        nodes: Vec<Node>,
        depth: usize,
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

/// Writes `part` with its root at `out[slot]`, appending its other nodes; returns its depth.
fn flatten(part: Part, slot: usize, out: &mut Vec<Node>) -> usize {
    match part {
        Part::Seq { nodes, depth } => {
            // Local child indices c >= 1 move to base + c - 1; the local root goes to `slot`.
            let base = out.len();
            out[slot] = nodes[0];
            out.extend_from_slice(&nodes[1..]);
            for n in std::iter::once(slot).chain(base..out.len()) {
                if out[n].count == 0 {
                    out[n].index = (base + out[n].index as usize - 1) as u32;
                }
            }
            depth
        }
        Part::Split { bounds, children } => {
            let c = out.len();
            out[slot] = interior_node(&bounds, c);
            out.push(out[slot]);
            out.push(out[slot]);
            let (l, r) = *children;
            let dl = flatten(l, c, out);
            let dr = flatten(r, c + 1, out);
            1 + dl.max(dr)
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
        return Part::Seq { nodes, depth };
    }
    let mut scratch = Bins::new();
    match decide(ctx, prims, &bounds, &cbounds, remaining, true, &mut scratch) {
        Decision::Leaf => {
            ctx.progress.leaf_done(n);
            Part::Seq {
                nodes: vec![leaf_node(&bounds, offset, n)],
                depth: 1,
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
    match decide(ctx, prims, &bounds, &cbounds, remaining, false, scratch) {
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

/// Maps a centroid coordinate to its bin; the same function bins and partitions, so the two
/// always agree. Clamped to `[0, last]` in float first (NaN, from an overflowing scale, goes
/// to bin 0); then rounded through the float mantissa (adding 2^23 leaves the integer in the
/// low bits), which is exact for `last < 2^22`, vectorizes, and avoids the saturating
/// float-to-int conversion that dominated binning. Subtracting 0.5 first makes the rounding
/// a floor (up to ties), so bins have equal widths.
#[inline(always)]
fn bin_of(c: f32, cmin: f32, scale: f32, last: f32) -> usize {
    let x = (c - cmin) * scale - 0.5;
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < last { x } else { last };
    ((x + 8_388_608.0).to_bits() & 0x7f_ffff) as usize
}

#[derive(Clone, Copy)]
struct Binning {
    cmin: [f32; 4],
    scale: [f32; 4],
    /// `Some(axis)`: bin along that axis only.
    single: Option<usize>,
    /// Index of the last bin.
    last: usize,
}

/// Per axis, per bin: the box and count of the primitives whose centroid falls in it.
/// Boxes and counts apart so that boxes stay 32-byte aligned.
#[derive(Clone)]
struct Bins {
    boxes: [[Box3; MAX_BINS]; 3],
    counts: [[u32; MAX_BINS]; 3],
}

impl Bins {
    fn new() -> Box<Bins> {
        Box::new(Bins {
            boxes: [[Box3::EMPTY; MAX_BINS]; 3],
            counts: [[0; MAX_BINS]; 3],
        })
    }
}

/// Bins `prims` into the first `bn.last + 1` bins of each axis (only those are reset).
fn bin_into(prims: &[PrimRef], bn: &Binning, bins: &mut Bins) {
    for a in bn.single.map_or(0..3, |a| a..a + 1) {
        bins.boxes[a][..=bn.last].fill(Box3::EMPTY);
        bins.counts[a][..=bn.last].fill(0);
    }
    let last = bn.last as f32;
    if let Some(a) = bn.single {
        let (cmin, scale) = (bn.cmin[a], bn.scale[a]);
        for p in prims {
            let c = p.min[a] * 0.5 + p.max[a] * 0.5;
            let k = bin_of(c, cmin, scale, last);
            bins.boxes[a][k].grow(&p.min, &p.max);
            bins.counts[a][k] += 1;
        }
        return;
    }
    for p in prims {
        let c = p.centroid();
        let mut ks = [0usize; 4];
        for a in 0..4 {
            ks[a] = bin_of(c[a], bn.cmin[a], bn.scale[a], last);
        }
        for (a, &k) in ks[..3].iter().enumerate() {
            bins.boxes[a][k].grow(&p.min, &p.max);
            bins.counts[a][k] += 1;
        }
    }
}

fn merge_bins(mut x: Box<Bins>, y: Box<Bins>, nb: usize) -> Box<Bins> {
    for a in 0..3 {
        for k in 0..nb {
            // Axes not binned hold stale data on both sides; merging it is harmless.
            x.boxes[a][k] = x.boxes[a][k].union(&y.boxes[a][k]);
            x.counts[a][k] += y.counts[a][k];
        }
    }
    x
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

struct BestSplit {
    axis: usize,
    /// Primitives in bins `< split` go left.
    split: usize,
    cost: f32,
    left_count: usize,
    left_box: Box3,
    right_box: Box3,
}

fn decide(
    ctx: &Ctx<'_>,
    prims: &mut [PrimRef],
    bounds: &Box3,
    cbounds: &Box3,
    remaining: usize,
    parallel: bool,
    scratch: &mut Bins,
) -> Decision {
    let cfg = &ctx.cfg;
    let n = prims.len();
    if n <= cfg.min_leaf || remaining <= 1 {
        return Decision::Leaf;
    }
    let child_cap = capacity(cfg.max_leaf, remaining - 1);
    let flat = (0..3).all(|a| !(cbounds.extent(a) > 0.0));
    if flat {
        // Every centroid coincides: the SAH cannot separate them; split by count.
        if n <= cfg.max_leaf {
            return Decision::Leaf;
        }
        return median_split(prims, cbounds, parallel);
    }
    if n <= SMALL {
        return small_split(cfg, prims, bounds, cbounds, child_cap);
    }

    // Small nodes need few bins; resetting and sweeping unused ones dominated small nodes.
    let nb = cfg.bins.min((n / 2).max(4));
    let mut bn = Binning {
        cmin: [cbounds.min[0], cbounds.min[1], cbounds.min[2], 0.0],
        scale: [0.0; 4],
        single: None,
        last: nb - 1,
    };
    if !cfg.all_axes {
        let mut axis = 0;
        for a in 1..3 {
            if cbounds.extent(a) > cbounds.extent(axis) {
                axis = a;
            }
        }
        bn.single = Some(axis);
    }
    for a in 0..3 {
        let e = cbounds.extent(a);
        // A zero or overflowing extent bins everything to bin 0 on that axis (no split there).
        bn.scale[a] = if e > 0.0 { nb as f32 / e } else { 0.0 };
    }
    let par_bins;
    let bins: &Bins = if parallel && n >= PAR_BIN_MIN {
        let empty = || {
            let mut b = Bins::new();
            bin_into(&[], &bn, &mut b);
            b
        };
        par_bins = prims
            .par_chunks(PAR_CHUNK)
            .map(|c| {
                let mut b = Bins::new();
                bin_into(c, &bn, &mut b);
                b
            })
            .reduce(empty, |x, y| merge_bins(x, y, nb));
        &par_bins
    } else {
        bin_into(prims, &bn, scratch);
        scratch
    };

    // Sweep: right-side areas from the right, then costs from the left.
    let mut best: Option<BestSplit> = None;
    let mut right_box = [Box3::EMPTY; MAX_BINS];
    let mut right_area = [0.0f32; MAX_BINS];
    let mut right_count = [0u32; MAX_BINS];
    let axes = bn.single.map_or(0..3, |a| a..a + 1);
    for a in axes {
        let (boxes_a, counts_a) = (&bins.boxes[a], &bins.counts[a]);
        let mut acc = Box3::EMPTY;
        let mut cnt = 0u32;
        for k in (1..nb).rev() {
            acc = acc.union(&boxes_a[k]);
            cnt += counts_a[k];
            right_box[k] = acc;
            right_area[k] = acc.half_area_unchecked();
            right_count[k] = cnt;
        }
        let mut lacc = Box3::EMPTY;
        let mut lcnt = 0u32;
        for k in 1..nb {
            lacc = lacc.union(&boxes_a[k - 1]);
            lcnt += counts_a[k - 1];
            let rcnt = right_count[k];
            if lcnt == 0 || rcnt == 0 {
                continue;
            }
            let cost = lacc.half_area_unchecked() * lcnt as f32 + right_area[k] * rcnt as f32;
            // Strict: the first best wins (deterministic); NaN never wins.
            if best.as_ref().is_none_or(|b| cost < b.cost) {
                best = Some(BestSplit {
                    axis: a,
                    split: k,
                    cost,
                    left_count: lcnt as usize,
                    left_box: lacc,
                    right_box: right_box[k],
                });
            }
        }
    }

    let Some(best) = best else {
        // No bin boundary separates anything (extents too small or too large for f32 bins).
        if n <= cfg.max_leaf {
            return Decision::Leaf;
        }
        return median_split(prims, cbounds, parallel);
    };
    let area = bounds.half_area();
    let leaf_cost = cfg.intersection_cost * n as f32 * area;
    let split_cost = cfg.traversal_cost * area + cfg.intersection_cost * best.cost;
    if n <= cfg.max_leaf && !(split_cost < leaf_cost) {
        return Decision::Leaf;
    }
    if best.left_count.max(n - best.left_count) > child_cap {
        // Too unbalanced to finish within max_depth: a median split always can.
        return median_split(prims, cbounds, parallel);
    }

    // Partition in place. The children's boxes are the bins' unions (exact); for their
    // centroid boxes the intersection of their box with this node's centroid box is used: a
    // slightly larger but valid range for binning, and it keeps this loop minimal.
    let a = best.axis;
    let (cmin, scale, last) = (bn.cmin[a], bn.scale[a], bn.last as f32);
    let mut i = 0usize;
    let mut j = n;
    while i < j {
        let p = &prims[i];
        let c = p.min[a] * 0.5 + p.max[a] * 0.5;
        if bin_of(c, cmin, scale, last) < best.split {
            i += 1;
        } else {
            j -= 1;
            prims.swap(i, j);
        }
    }
    debug_assert_eq!(i, best.left_count);
    let left_cb = best.left_box.intersect(cbounds);
    let right_cb = best.right_box.intersect(cbounds);
    Decision::Split {
        mid: i,
        left: (best.left_box, left_cb),
        right: (best.right_box, right_cb),
    }
}

/// Nodes up to this size are split by an exact sweep over their sorted centroids instead of
/// binning: cheaper (no bins to reset and sweep) and exact. Most nodes are this small.
const SMALL: usize = 16;

fn widest_axis(b: &Box3) -> usize {
    let mut axis = 0;
    for a in 1..3 {
        if b.extent(a) > b.extent(axis) {
            axis = a;
        }
    }
    axis
}

/// The exact SAH sweep for `2 <= n <= SMALL` primitives whose centroids do not all coincide.
fn small_split(
    cfg: &Resolved,
    prims: &mut [PrimRef],
    bounds: &Box3,
    cbounds: &Box3,
    child_cap: usize,
) -> Decision {
    let n = prims.len();
    let mut cent = [[0.0f32; 4]; SMALL];
    for (c, p) in cent.iter_mut().zip(prims.iter()) {
        *c = p.centroid();
    }
    let axes = if cfg.all_axes {
        0..3
    } else {
        let a = widest_axis(cbounds);
        a..a + 1
    };
    let mut best: Option<(f32, usize)> = None;
    let mut best_order = [0u8; SMALL];
    for a in axes {
        let mut order: [u8; SMALL] = std::array::from_fn(|i| i as u8);
        // Insertion sort by centroid: stable, so deterministic on ties.
        for i in 1..n {
            let mut j = i;
            while j > 0 && cent[order[j - 1] as usize][a] > cent[order[j] as usize][a] {
                order.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut right_area = [0.0f32; SMALL];
        let mut acc = Box3::EMPTY;
        for k in (1..n).rev() {
            let p = &prims[order[k] as usize];
            acc.grow(&p.min, &p.max);
            right_area[k] = acc.half_area_unchecked();
        }
        let mut lacc = Box3::EMPTY;
        for k in 1..n {
            let p = &prims[order[k - 1] as usize];
            lacc.grow(&p.min, &p.max);
            let cost = lacc.half_area_unchecked() * k as f32 + right_area[k] * (n - k) as f32;
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, k));
                best_order = order;
            }
        }
    }
    let Some((cost, k)) = best else {
        return Decision::Leaf;
    };
    let area = bounds.half_area();
    let leaf_cost = cfg.intersection_cost * n as f32 * area;
    let split_cost = cfg.traversal_cost * area + cfg.intersection_cost * cost;
    if n <= cfg.max_leaf && !(split_cost < leaf_cost) {
        return Decision::Leaf;
    }
    if k.max(n - k) > child_cap {
        return median_split(prims, cbounds, false);
    }
    let mut tmp = [prims[0]; SMALL];
    tmp[..n].copy_from_slice(prims);
    for (dst, &src) in prims.iter_mut().zip(best_order.iter()) {
        *dst = tmp[src as usize];
    }
    let (l, r) = prims.split_at(k);
    Decision::Split {
        mid: k,
        left: bounds_of(l, false),
        right: bounds_of(r, false),
    }
}

/// Splits at `n / 2` after ordering by the centroid on the widest centroid axis (by index
/// order when every centroid coincides). Always balanced, so depth stays logarithmic.
fn median_split(prims: &mut [PrimRef], cbounds: &Box3, parallel: bool) -> Decision {
    let n = prims.len();
    let mid = n / 2;
    let mut axis = 0;
    for a in 1..3 {
        if cbounds.extent(a) > cbounds.extent(axis) {
            axis = a;
        }
    }
    if cbounds.extent(axis) > 0.0 {
        prims.select_nth_unstable_by(mid, |p, q| {
            p.centroid()[axis].total_cmp(&q.centroid()[axis])
        });
    }
    let (l, r) = prims.split_at(mid);
    Decision::Split {
        mid,
        left: bounds_of(l, parallel),
        right: bounds_of(r, parallel),
    }
}
