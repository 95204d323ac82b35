//! The Morton builder (a linear BVH, after Lauterbach et al. 2009 and Karras 2012): box
//! centres quantized to a grid of 2^21 cells per axis, sorted by their 63-bit Morton code
//! with a radix sort, and each range split at the highest bit where its first and last codes
//! differ. No cost is evaluated, so it builds several times faster than the binned SAH; its
//! splits are spatial medians of a sort, which suit point clouds and proximity queries
//! better than long rays through triangle soups.
//!
//! Ranges whose codes are all equal, and every range once the depth left could not hold a
//! tree of bit splits, are halved by count, so the depth stays within `max_depth`.

use rayon::prelude::*;
use raypick_primitives::{Aabb, Point3};

use super::Progress;
use crate::config::Resolved;
use crate::Node;

/// Bits per axis of the quantized centres: 3 × 21 = 63 bits of code.
const BITS: u32 = 21;

/// Spreads the low 21 bits of `v` to every third bit.
fn spread(v: u64) -> u64 {
    let mut x = v & 0x1f_ffff;
    x = (x | x << 32) & 0x001f_0000_0000_ffff;
    x = (x | x << 16) & 0x001f_0000_ff00_00ff;
    x = (x | x << 8) & 0x100f_00f0_0f00_f00f;
    x = (x | x << 4) & 0x10c3_0c30_c30c_30c3;
    x = (x | x << 2) & 0x1249_2492_4924_9249;
    x
}

fn centre(b: &Aabb) -> [f64; 3] {
    [
        0.5 * (f64::from(b.min.x) + f64::from(b.max.x)),
        0.5 * (f64::from(b.min.y) + f64::from(b.max.y)),
        0.5 * (f64::from(b.min.z) + f64::from(b.max.z)),
    ]
}

/// `(code, primitive index)` per box, in primitive order.
fn codes(boxes: &[Aabb], parallel: bool) -> Vec<(u64, u32)> {
    let fold = |(mut lo, mut hi): ([f64; 3], [f64; 3]), b: &Aabb| {
        let c = centre(b);
        for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
        }
        (lo, hi)
    };
    let empty = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    let merge = |a: ([f64; 3], [f64; 3]), b: ([f64; 3], [f64; 3])| {
        (
            [0, 1, 2].map(|k| a.0[k].min(b.0[k])),
            [0, 1, 2].map(|k| a.1[k].max(b.1[k])),
        )
    };
    let (lo, hi) = if parallel {
        boxes
            .par_iter()
            .fold(|| empty, fold)
            .reduce(|| empty, merge)
    } else {
        boxes.iter().fold(empty, fold)
    };
    let cells = f64::from((1u32 << BITS) - 1);
    // A flat axis (or one too wide for f64, impossible for f32 input) quantizes to 0.
    let scale = [0, 1, 2].map(|k| {
        let s = cells / (hi[k] - lo[k]);
        if s.is_finite() {
            s
        } else {
            0.0
        }
    });
    let code = |(i, b): (usize, &Aabb)| {
        let c = centre(b);
        let q = [0, 1, 2].map(|k| ((c[k] - lo[k]) * scale[k]).clamp(0.0, cells) as u64);
        (
            spread(q[0]) | spread(q[1]) << 1 | spread(q[2]) << 2,
            i as u32,
        )
    };
    if parallel {
        boxes.par_iter().enumerate().map(code).collect()
    } else {
        boxes.iter().enumerate().map(code).collect()
    }
}

/// Point counts from which [`morton_order`] works in parallel.
const PARALLEL_POINTS: usize = 1 << 14;

/// Spreads the low 10 bits of `v` to every third bit (a 30-bit Morton code from three).
fn spread10(v: u32) -> u32 {
    // Bit 9 lands on bit 27: the 63-bit spread fits in 32 bits for 10-bit inputs.
    spread(u64::from(v & 0x3ff)) as u32
}

/// The indices of `points` in Morton order over their box (a space-filling curve: points
/// near each other mostly come near each other), on a grid of 1,024 cells per axis, points
/// in one cell in index order. Queries answered in this order find in cache what the
/// previous point's query loaded. Points with a non-finite coordinate come in no
/// particular place. More than `u32::MAX` points are not supported (the indices are
/// `u32`).
#[must_use]
pub fn morton_order(points: &[Point3<f32>]) -> Vec<u32> {
    let parallel = points.len() >= PARALLEL_POINTS;
    let fold = |(mut lo, mut hi): ([f32; 3], [f32; 3]), p: &Point3<f32>| {
        for k in 0..3 {
            // NaN fails both comparisons and is left out.
            if p[k] < lo[k] {
                lo[k] = p[k];
            }
            if p[k] > hi[k] {
                hi[k] = p[k];
            }
        }
        (lo, hi)
    };
    let empty = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    let merge = |a: ([f32; 3], [f32; 3]), b: ([f32; 3], [f32; 3])| {
        let (x, y) = fold(a, &Point3::from(b.0));
        fold((x, y), &Point3::from(b.1))
    };
    let (lo, hi) = if parallel {
        points
            .par_iter()
            .fold(|| empty, fold)
            .reduce(|| empty, merge)
    } else {
        points.iter().fold(empty, fold)
    };
    let cells = 1023.0f32;
    // In f64 so that huge boxes do not overflow; a flat axis quantizes to 0.
    let scale = [0, 1, 2].map(|k| {
        let s = (f64::from(cells) / (f64::from(hi[k]) - f64::from(lo[k]))) as f32;
        if s.is_finite() {
            s
        } else {
            0.0
        }
    });
    let code = |(i, p): (usize, &Point3<f32>)| {
        // `as` saturates, and takes NaN to 0.
        let q = [0, 1, 2].map(|k| ((p[k] - lo[k]) * scale[k]).clamp(0.0, cells) as u32);
        (
            spread10(q[0]) | spread10(q[1]) << 1 | spread10(q[2]) << 2,
            i as u32,
        )
    };
    let mut keys: Vec<(u32, u32)> = if parallel {
        points.par_iter().enumerate().map(code).collect()
    } else {
        points.iter().enumerate().map(code).collect()
    };
    // Stable: a cell's points keep their order.
    radsort::sort_by_key(&mut keys, |k| k.0);
    keys.into_iter().map(|k| k.1).collect()
}

struct Builder<'a> {
    boxes: &'a [Aabb],
    keys: &'a [(u64, u32)],
    cfg: Resolved,
    progress: &'a Progress<'a>,
    nodes: Vec<Node>,
    depth: usize,
}

impl Builder<'_> {
    /// Fills `nodes[slot]` with the subtree over leaf-order range `lo..hi` at `level`
    /// (root = 1) and returns its box.
    fn subtree(&mut self, slot: usize, lo: usize, hi: usize, level: usize) -> ([f32; 3], [f32; 3]) {
        let count = hi - lo;
        if count <= self.cfg.max_leaf || level >= self.cfg.max_depth {
            let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for &(_, i) in &self.keys[lo..hi] {
                let b = &self.boxes[i as usize];
                for k in 0..3 {
                    min[k] = min[k].min(b.min[k]);
                    max[k] = max[k].max(b.max[k]);
                }
            }
            self.nodes[slot] = Node {
                min,
                index: lo as u32,
                max,
                count: count as u32,
            };
            self.depth = self.depth.max(level);
            self.progress.leaf_done(count);
            return (min, max);
        }
        let mid = self.split(lo, hi, level);
        let first = self.nodes.len();
        self.nodes.extend([Node::default(); 2]);
        let (amin, amax) = self.subtree(first, lo, mid, level + 1);
        let (bmin, bmax) = self.subtree(first + 1, mid, hi, level + 1);
        let min = [0, 1, 2].map(|k| amin[k].min(bmin[k]));
        let max = [0, 1, 2].map(|k| amax[k].max(bmax[k]));
        self.nodes[slot] = Node {
            min,
            index: first as u32,
            max,
            count: 0,
        };
        (min, max)
    }

    /// Where to split `lo..hi` (at least 2 more primitives than a leaf holds): at the
    /// highest differing code bit, or by count when the codes are equal or the depth left
    /// is only enough for halving.
    fn split(&self, lo: usize, hi: usize, level: usize) -> usize {
        let count = hi - lo;
        let halves = usize::BITS - (count.div_ceil(self.cfg.max_leaf) - 1).leading_zeros();
        let (a, b) = (self.keys[lo].0, self.keys[hi - 1].0);
        if a == b || level + halves as usize >= self.cfg.max_depth {
            return lo + count / 2;
        }
        let bit = 1u64 << (63 - (a ^ b).leading_zeros());
        // The range shares every code bit above `bit`, so the zeros at `bit` come first.
        lo + self.keys[lo..hi].partition_point(|k| k.0 & bit == 0)
    }
}

/// Builds the nodes over `boxes` (already checked, non-empty) in Morton order. Returns the
/// nodes, the leaf-order primitive indices and the depth.
pub(crate) fn build_nodes(
    boxes: &[Aabb],
    cfg: Resolved,
    progress: &Progress<'_>,
) -> (Vec<Node>, Vec<u32>, usize) {
    let parallel = boxes.len() >= cfg.parallel_threshold;
    let mut keys = codes(boxes, parallel);
    // Stable: equal codes keep primitive order, so the tree is deterministic.
    radsort::sort_by_key(&mut keys, |k| k.0);
    let mut builder = Builder {
        boxes,
        keys: &keys,
        cfg,
        progress,
        nodes: Vec::with_capacity(2 * boxes.len().div_ceil(cfg.max_leaf)),
        depth: 0,
    };
    builder.nodes.push(Node::default());
    builder.subtree(0, 0, boxes.len(), 1);
    let (nodes, depth) = (builder.nodes, builder.depth);
    (nodes, keys.iter().map(|k| k.1).collect(), depth)
}

#[cfg(test)]
mod tests {
    use super::{morton_order, spread, spread10};
    use raypick_primitives::Point3;

    #[test]
    fn spread10_puts_each_bit_three_apart() {
        for bit in 0..10 {
            assert_eq!(spread10(1 << bit), 1 << (3 * bit), "bit {bit}");
        }
        assert_eq!(spread10(u32::MAX), 0x0924_9249, "bits above 10 ignored");
    }

    /// The order is a permutation, follows the codes of a hand-made layout, keeps equal
    /// points in index order, and tolerates non-finite and flat inputs.
    #[test]
    fn morton_order_sorts_points_along_the_curve() {
        let p = |x: f32, y: f32, z: f32| Point3::new(x, y, z);
        // Corners of the unit cube in an order the curve does not follow.
        let pts = [
            p(1.0, 1.0, 1.0),
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(0.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, 0.0, 1.0),
        ];
        // Codes: x is bit 0, y bit 1, z bit 2 of each level.
        assert_eq!(morton_order(&pts), vec![1, 3, 2, 4, 5, 0]);
        let many: Vec<Point3<f32>> = (0..40_000)
            .map(|i| p((i * 7919 % 40_000) as f32, (i % 13) as f32, f32::NAN))
            .collect();
        let mut order = morton_order(&many);
        order.sort_unstable();
        assert!(order.iter().enumerate().all(|(i, &k)| k as usize == i));
        assert_eq!(morton_order(&[p(2.0, 2.0, 2.0); 3]), vec![0, 1, 2]);
        assert!(morton_order(&[]).is_empty());
    }

    #[test]
    fn spread_puts_each_bit_three_apart() {
        for bit in 0..21 {
            assert_eq!(spread(1 << bit), 1 << (3 * bit), "bit {bit}");
        }
        assert_eq!(spread(0x1f_ffff), 0x1249_2492_4924_9249);
        assert_eq!(
            spread(u64::MAX),
            0x1249_2492_4924_9249,
            "bits above 21 ignored"
        );
    }
}
