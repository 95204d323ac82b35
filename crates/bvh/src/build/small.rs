//! Splits of small nodes (an exact sweep over sorted centroids) and the median split that
//! keeps the depth bounded.

// `!(a < b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::prim::{bounds_of, Box3, PrimRef};
use super::Decision;
use crate::config::Resolved;

/// Nodes up to this size are split by an exact sweep over their sorted centroids instead of
/// binning: cheaper (no bins to reset and sweep) and exact. Most nodes are this small.
pub(super) const SMALL: usize = 8;

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
pub(super) fn small_split(
    cfg: &Resolved,
    prims: &mut [PrimRef],
    bounds: &Box3,
    cbounds: &Box3,
    child_cap: usize,
) -> Decision {
    let n = prims.len();
    // Centroids by axis, padded with +inf, which sorts after every (finite) centroid.
    let mut cent = [[f32::INFINITY; SMALL]; 3];
    for (i, p) in prims.iter().enumerate() {
        for (a, c) in cent.iter_mut().enumerate() {
            c[i] = p.min[a] * 0.5 + p.max[a] * 0.5;
        }
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
        let order = stable_order(&cent[a], n);
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
pub(super) fn median_split(prims: &mut [PrimRef], cbounds: &Box3, parallel: bool) -> Decision {
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

/// The positions of `c[..n]` in a stable ascending sort. An insertion sort: primitives arrive
/// in mesh order, nearly sorted, where it beats branch-free ranking (measured).
fn stable_order(c: &[f32; SMALL], n: usize) -> [u8; SMALL] {
    let mut order: [u8; SMALL] = std::array::from_fn(|i| i as u8);
    for i in 1..n {
        let mut j = i;
        while j > 0 && c[usize::from(order[j - 1])] > c[usize::from(order[j])] {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    order
}
