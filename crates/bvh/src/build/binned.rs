//! The binned SAH split of a large node (Wald 2007): centroids binned along one or all three
//! axes, a sweep over the bin boundaries, and an in-place two-pointer partition that also
//! computes each side's exact box and centroid box. Nodes of thousands of primitives bin a
//! fixed-stride sample of them, which finds the same splits for a fraction of the work.

// `!(a < b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use rayon::prelude::*;

use super::prim::{Box3, PrimRef};
use super::small::{median_split, small_split, SMALL};
use super::{capacity, Ctx, Decision, PAR_BIN_MIN, PAR_CHUNK};
use crate::config::MAX_BINS;

/// Maps a centroid coordinate to its bin; the same function bins and partitions, so the two
/// always agree. Clamped to `[0, last]` in float first (NaN, from an overflowing scale, goes
/// to bin 0); then rounded through the float mantissa (adding 2^23 leaves the integer in the
/// low bits), which is exact for `last < 2^22`, vectorizes, and avoids the saturating
/// float-to-int conversion that dominated binning. Subtracting 0.5 first makes the rounding
/// a floor (up to ties), so bins have equal widths.
#[inline(always)]
pub(super) fn bin_of(c: f32, cmin: f32, scale: f32, last: f32) -> usize {
    let x = (c - cmin) * scale - 0.5;
    let x = if x > 0.0 { x } else { 0.0 };
    let x = if x < last { x } else { last };
    ((x + 8_388_608.0).to_bits() & 0x7f_ffff) as usize
}

#[derive(Clone, Copy)]
pub(super) struct Binning {
    pub cmin: [f32; 4],
    pub scale: [f32; 4],
    /// `Some(axis)`: bin along that axis only.
    pub single: Option<usize>,
    /// Index of the last bin.
    pub last: usize,
}

/// Per axis, per bin: the box and count of the primitives whose centroid falls in it.
/// Boxes and counts apart so that boxes stay 32-byte aligned.
#[derive(Clone)]
pub(super) struct Bins {
    pub boxes: [[Box3; MAX_BINS]; 3],
    pub counts: [[u32; MAX_BINS]; 3],
}

impl Bins {
    pub(super) fn new() -> Box<Bins> {
        Box::new(Bins {
            boxes: [[Box3::EMPTY; MAX_BINS]; 3],
            counts: [[0; MAX_BINS]; 3],
        })
    }
}

/// Bins `prims` into the first `bn.last + 1` bins of each axis (only those are reset).
fn bin_into(prims: &[PrimRef], stride: usize, bn: &Binning, bins: &mut Bins) {
    reset(bn, bins);
    #[cfg(target_arch = "x86_64")]
    if bn.single.is_none() {
        super::bin_x86::bin_all_axes(prims, stride, bn, bins);
        return;
    }
    bin_into_scalar(prims, stride, bn, bins);
}

fn reset(bn: &Binning, bins: &mut Bins) {
    for a in bn.single.map_or(0..3, |a| a..a + 1) {
        bins.boxes[a][..=bn.last].fill(Box3::EMPTY);
        bins.counts[a][..=bn.last].fill(0);
    }
}

/// The portable binning loop (reset bins in, binned out); the SIMD form is checked against it.
pub(super) fn bin_into_scalar(prims: &[PrimRef], stride: usize, bn: &Binning, bins: &mut Bins) {
    let last = bn.last as f32;
    if let Some(a) = bn.single {
        let (cmin, scale) = (bn.cmin[a], bn.scale[a]);
        for p in prims.iter().step_by(stride) {
            let c = p.min[a] * 0.5 + p.max[a] * 0.5;
            let k = bin_of(c, cmin, scale, last);
            bins.boxes[a][k].grow(&p.min, &p.max);
            bins.counts[a][k] += 1;
        }
        return;
    }
    for p in prims.iter().step_by(stride) {
        for a in 0..3 {
            let c = p.min[a] * 0.5 + p.max[a] * 0.5;
            let k = bin_of(c, bn.cmin[a], bn.scale[a], last);
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

struct BestSplit {
    axis: usize,
    /// Primitives in bins `< split` go left.
    split: usize,
    cost: f32,
    left_count: usize,
}

pub(super) fn decide(
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

    // Small nodes need few bins: resetting and sweeping unused ones dominated them, and one
    // bin per four primitives loses nothing measurable in SAH cost.
    let nb = cfg.bins.min((n / 4).max(4));
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
    let stride = if cfg.sampled_binning {
        sample_stride(n)
    } else {
        1
    };
    let par_bins;
    let bins: &Bins = if parallel && n >= PAR_BIN_MIN {
        let empty = || {
            let mut b = Bins::new();
            bin_into(&[], 1, &bn, &mut b);
            b
        };
        par_bins = prims
            .par_chunks(PAR_CHUNK)
            .map(|c| {
                let mut b = Bins::new();
                bin_into(c, stride, &bn, &mut b);
                b
            })
            .reduce(empty, |x, y| merge_bins(x, y, nb));
        &par_bins
    } else {
        bin_into(prims, stride, &bn, scratch);
        scratch
    };

    // Sweep: right-side areas from the right, then costs from the left.
    let mut best: Option<BestSplit> = None;
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
    if stride == 1 && best.left_count.max(n - best.left_count) > child_cap {
        // Too unbalanced to finish within max_depth: a median split always can.
        return median_split(prims, cbounds, parallel);
    }
    let (mid, left, right) = partition(prims, &bn, best.axis, best.split);
    if stride == 1 {
        debug_assert_eq!(mid, best.left_count);
    } else if mid == 0 || mid == n || mid.max(n - mid) > child_cap {
        // The sample's split leaves one side empty or too large for max_depth.
        return median_split(prims, cbounds, parallel);
    }
    Decision::Split { mid, left, right }
}

/// Partitions `prims` in place: those whose centroid falls in a bin below `split` on `axis`
/// go first. Returns their count and the exact (box, centroid box) of each side, grown in the
/// same pass (the bins' boxes would do for a full binning, but not for a sampled one).
///
/// As [`bin_of`] is monotone in the centroid coordinate, "bin below `split`" is "coordinate
/// below a threshold" ([`split_threshold`]), one comparison per primitive. Hoare's scheme
/// from both ends moves only the primitives on the wrong side, each once.
fn partition(
    prims: &mut [PrimRef],
    bn: &Binning,
    axis: usize,
    split: usize,
) -> (usize, (Box3, Box3), (Box3, Box3)) {
    let t = split_threshold(bn, axis, split);
    #[cfg(target_arch = "x86_64")]
    use super::bin_x86::partition_below;
    #[cfg(not(target_arch = "x86_64"))]
    use partition_below_scalar as partition_below;
    match axis {
        0 => partition_below::<0>(prims, t),
        1 => partition_below::<1>(prims, t),
        _ => partition_below::<2>(prims, t),
    }
}

/// The smallest `f32` whose bin on `axis` is `split` or above (`+inf` if none): every finite
/// `c` then has `bin_of(c) < split` exactly when `c < threshold`, as `bin_of` never
/// decreases with `c`. Found from the boundary's formula and a few steps to the neighbouring
/// floats, or by a binary search over the floats when that does not settle it.
pub(super) fn split_threshold(bn: &Binning, axis: usize, split: usize) -> f32 {
    let (cmin, scale, last) = (bn.cmin[axis], bn.scale[axis], bn.last as f32);
    let below = |c: f32| bin_of(c, cmin, scale, last) < split;
    let guess = cmin + split as f32 / scale;
    if guess.is_finite() {
        let mut t = guess;
        for _ in 0..8 {
            if below(t) {
                t = t.next_up();
            } else if !below(t.next_down()) {
                t = t.next_down();
            } else {
                return t;
            }
        }
    }
    threshold_search(below)
}

/// The smallest `f32` for which `below` is false, for a `below` that is true up to some float
/// and false after it (`+inf` if it is true everywhere): a binary search over the floats in
/// their total order.
fn threshold_search(below: impl Fn(f32) -> bool) -> f32 {
    // The floats' total order as unsigned keys (negative floats reversed below the positive).
    let key = |f: f32| {
        let b = f.to_bits();
        if b >> 31 == 1 {
            !b
        } else {
            b | 1 << 31
        }
    };
    let float = |k: u32| f32::from_bits(if k >> 31 == 1 { k & !(1 << 31) } else { !k });
    if below(f32::INFINITY) {
        return f32::INFINITY;
    }
    if !below(f32::NEG_INFINITY) {
        return f32::NEG_INFINITY;
    }
    // Invariant: `below(float(lo))` and not `below(float(hi))`.
    let (mut lo, mut hi) = (key(f32::NEG_INFINITY), key(f32::INFINITY));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if below(float(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    float(hi)
}

/// [`partition`] on axis `A`: primitives whose centroid coordinate is below `t` go first.
/// The portable loop; the SSE2 form is checked against it.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(super) fn partition_below_scalar<const A: usize>(
    prims: &mut [PrimRef],
    t: f32,
) -> (usize, (Box3, Box3), (Box3, Box3)) {
    let left_of = |p: &PrimRef| p.min[A] * 0.5 + p.max[A] * 0.5 < t;
    let grow = |side: &mut (Box3, Box3), p: &PrimRef| {
        side.0.grow(&p.min, &p.max);
        side.1.grow_point(&p.centroid());
    };
    let (mut left, mut right) = ((Box3::EMPTY, Box3::EMPTY), (Box3::EMPTY, Box3::EMPTY));
    let mut i = 0usize;
    let mut j = prims.len();
    loop {
        while i < j && left_of(&prims[i]) {
            grow(&mut left, &prims[i]);
            i += 1;
        }
        while i < j && !left_of(&prims[j - 1]) {
            grow(&mut right, &prims[j - 1]);
            j -= 1;
        }
        // Here `prims[i]` goes right and `prims[j - 1]` left, so `i < j - 1`.
        if i + 1 >= j {
            break;
        }
        prims.swap(i, j - 1);
        grow(&mut left, &prims[i]);
        grow(&mut right, &prims[j - 1]);
        i += 1;
        j -= 1;
    }
    (i, left, right)
}

/// Nodes of at least this many primitives choose their split from a sample of them.
const SAMPLE_MIN: usize = 4096;
/// The sample size aimed at: between this and twice this.
const SAMPLE_TARGET: usize = 1024;
/// At most one primitive in this many is left out of a sample.
const MAX_STRIDE: usize = 16;

/// Every `stride`-th primitive is binned. A power of two dividing `PAR_CHUNK`, so that
/// parallel chunks bin the same sample as one sequential pass.
fn sample_stride(n: usize) -> usize {
    if n < SAMPLE_MIN {
        1
    } else {
        1 << (n / SAMPLE_TARGET).clamp(1, MAX_STRIDE).ilog2()
    }
}
