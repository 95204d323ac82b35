//! The compact 8-wide node layout: child boxes quantized to 8 bits per plane, 128 bytes per
//! node (two cache lines) instead of [`WideNode<8>`]'s 256.
//!
//! Each axis of a node has an origin (the smallest min of its slots) and a power-of-two step;
//! a plane is stored as a byte `q` and means `origin + q * step`. The step being a power of
//! two, `q * step` is exact, so a plane costs one rounding (the addition), and every kernel,
//! scalar or SIMD, computes the same value. The bytes are chosen by checking that very
//! value: a stored min is at most the true min, a stored max at least the true max, so a
//! stored box always contains the true one and traversal stays conservative (a ray may enter
//! a slightly larger box, never miss a true one).
//!
//! Interior slots are quantized from their child node's *stored* boxes, so a slot box
//! contains its child's slot boxes exactly as in the plain layout ([`WideBvh::validate`]
//! checks it). Refit re-quantizes bottom-up.

use std::ops::Range;

use raypick_primitives::{Aabb, Point3};

use super::layout::{child_of, sealed::Internal, WideLayout};
use super::{WideBvh, WideChild, WideNode, WideRefitError, EMPTY_SLOT};

/// One compact 8-wide node (128 bytes): per axis an origin and a power-of-two step, the six
/// planes of each slot as bytes, and per slot a child index and a leaf count.
///
/// A slot `i` is a leaf when `count > 0` (leaf-order positions `child .. child + count`), an
/// interior child when `count == 0` (the node at `child`), unused when `child == u32::MAX`;
/// bit `i` of `used` is set exactly for used slots, which come first.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactNode8 {
    pub(crate) origin: [f32; 3],
    pub(crate) step: [f32; 3],
    /// `[min_x, min_y, min_z, max_x, max_y, max_z]` rows, one byte per slot.
    pub(crate) q: [[u8; 8]; 6],
    pub(crate) child: [u32; 8],
    pub(crate) count: [u16; 8],
    pub(crate) used: u32,
}

const _: () = assert!(std::mem::size_of::<CompactNode8>() == 128);
const _: () = assert!(std::mem::align_of::<CompactNode8>() == 64);

/// An 8-wide BVH with [`CompactNode8`] nodes: half the node bytes of a [`Bvh8`](super::Bvh8),
/// for trees larger than the CPU's caches. Made from a [`Bvh8`](super::Bvh8) with
/// [`CompactBvh8::from_wide`].
pub type CompactBvh8 = WideBvh<8, CompactNode8>;

/// Why a tree cannot be stored in the compact layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// A leaf holds more primitives than a compact slot can count (65,535).
    #[error("leaf {start}..{end} holds more than 65535 primitives")]
    LeafTooLarge {
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
    },
    /// A node's boxes span more than the f32 range can quantize (coordinates near
    /// `f32::MAX` in magnitude).
    #[error("wide node {node}: boxes too large to quantize")]
    OutOfRange {
        /// The node.
        node: usize,
    },
}

/// The plane `origin + q * step`, as every kernel computes it (the product is exact).
#[inline(always)]
pub(crate) fn dequantize(origin: f32, q: u8, step: f32) -> f32 {
    origin + f32::from(q) * step
}

/// The union of the stored boxes of node `c`, a child of node `ni`, found in `tail` (the
/// nodes after `ni`: children come after their parents); empty if it is not there.
#[inline]
fn child_union(tail: &[CompactNode8], ni: usize, c: usize) -> Aabb {
    tail.get(c.wrapping_sub(ni + 1))
        .map_or(Aabb::EMPTY, CompactNode8::union_all)
}

/// `2^e` for `-126 <= e <= 127`.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The smallest power-of-two step (a normal f32) with `origin + 255 * step >= hi` as
/// dequantized, and its inverse (exact); `None` when no finite one exists.
#[inline]
fn step_for(origin: f32, hi: f32) -> Option<(f32, f32)> {
    // The exponent of (hi - origin) / 255, from its bits: a step a little too small is
    // corrected by the loop, which then runs once or twice.
    let x = (hi - origin) * (1.0 / 255.0);
    let mut e = if x.is_finite() && x > 0.0 {
        let bits = x.to_bits();
        // Rounded up to a power of two: one more when x is not one already.
        ((bits >> 23) as i32 - 127 + i32::from(bits & 0x7f_ffff != 0)).max(-126)
    } else if x.is_finite() {
        -126
    } else {
        // The extent overflows f32: start from the largest steps.
        120
    };
    loop {
        let step = pow2(e);
        let top = dequantize(origin, 255, step);
        if top >= hi && top.is_finite() {
            // 1 / 2^e is 2^-e, exact (a subnormal at worst for e = 127).
            return Some((step, 1.0 / step));
        }
        if e >= 127 || !top.is_finite() {
            return None;
        }
        e += 1;
    }
}

/// The bytes of one row of planes `v` (all 8 lanes): the largest `q` whose plane is at most
/// `v` (`DOWN`, a min row), or the smallest at least `v` (a max row); `v` must lie within
/// `origin ..= origin + 255 * step` as dequantized. The estimate from `(v - origin) / step`
/// is off by at most one from rounding, and so is the dequantized plane; two branch-free
/// corrections per lane fix both (written lane by lane over fixed arrays, so the compiler
/// vectorizes them), and a final check (which finds nothing in practice) makes it certain.
#[inline(always)]
fn quantize_row<const DOWN: bool>(origin: f32, step: f32, inv: f32, v: &[f32; 8]) -> [u8; 8] {
    let mut q = [0i32; 8];
    for (q, &x) in q.iter_mut().zip(v) {
        let t = ((x - origin) * inv).clamp(0.0, 255.0);
        // Truncation is floor here (t >= 0); rounded up for a max plane.
        let f = t as i32;
        *q = if DOWN {
            f
        } else {
            f + i32::from((f as f32) < t)
        };
    }
    for _ in 0..2 {
        for (q, &x) in q.iter_mut().zip(v) {
            let p = origin + *q as f32 * step;
            *q = if DOWN {
                (*q - i32::from(p > x)).max(0)
            } else {
                (*q + i32::from(p < x)).min(255)
            };
        }
    }
    let mut out = [0u8; 8];
    for ((o, &q), &x) in out.iter_mut().zip(&q).zip(v) {
        let mut q = q.clamp(0, 255) as u8;
        if DOWN {
            while q > 0 && dequantize(origin, q, step) > x {
                q -= 1;
            }
        } else {
            while q < 255 && dequantize(origin, q, step) < x {
                q += 1;
            }
        }
        *o = q;
    }
    out
}

impl CompactNode8 {
    const EMPTY: Self = Self {
        origin: [0.0; 3],
        step: [1.0; 3],
        q: [[0; 8]; 6],
        child: [EMPTY_SLOT; 8],
        count: [0; 8],
        used: 0,
    };

    /// Sets the boxes of the used slots `0..boxes.len()` (finite, `min <= max`, at most 8),
    /// choosing the node's origins and steps; `None` when they span too much to quantize.
    fn set_boxes(&mut self, boxes: &[Aabb]) -> Option<()> {
        let k = boxes.len().min(8);
        let first = boxes.first()?;
        // Unused lanes repeat the first box: quantized for nothing, harmless (`used` masks
        // them), and every lane stays in range, so the row code has no lane condition.
        let mut rows = [[0.0f32; 8]; 6];
        #[allow(clippy::needless_range_loop)] // one lane `i` across six rows
        for i in 0..8 {
            let b = boxes.get(i).unwrap_or(first);
            for a in 0..3 {
                rows[a][i] = b.min[a];
                rows[3 + a][i] = b.max[a];
            }
        }
        for a in 0..3 {
            let lo = rows[a]
                .iter()
                .fold(f32::INFINITY, |m, &x| if x < m { x } else { m });
            let hi = rows[3 + a]
                .iter()
                .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
            let (step, inv) = step_for(lo, hi)?;
            self.origin[a] = lo;
            self.step[a] = step;
            self.q[a] = quantize_row::<true>(lo, step, inv, &rows[a]);
            self.q[3 + a] = quantize_row::<false>(lo, step, inv, &rows[3 + a]);
        }
        // Unused lanes: a canonical inverted box, so equal trees compare equal.
        for (a, row) in self.q.iter_mut().enumerate() {
            let unused = if a < 3 { 255 } else { 0 };
            for (i, q) in row.iter_mut().enumerate() {
                *q = if i < k { *q } else { unused };
            }
        }
        Some(())
    }

    /// The union of the used slots' stored boxes.
    fn union_all(&self) -> Aabb {
        (0..self.child_count()).fold(Aabb::EMPTY, |u, i| u.union(&self.child_aabb(i)))
    }

    /// What slot `i` holds; [`WideChild::Empty`] for an unused slot or `i >= 8`.
    #[must_use]
    pub fn child(&self, i: usize) -> WideChild {
        if i >= 8 {
            return WideChild::Empty;
        }
        child_of(self.child[i], u32::from(self.count[i]))
    }

    /// The stored box of slot `i` (it contains the exact box it was made from);
    /// `+inf .. -inf` for an unused slot or `i >= 8`.
    #[must_use]
    pub fn child_aabb(&self, i: usize) -> Aabb {
        if i >= 8 || self.used >> i & 1 == 0 {
            return Aabb::EMPTY;
        }
        let p = |row: usize| self.plane(row, i);
        Aabb::new(Point3::new(p(0), p(1), p(2)), Point3::new(p(3), p(4), p(5)))
    }

    /// Number of used slots (1 to 8 in a non-empty tree).
    #[must_use]
    pub fn child_count(&self) -> usize {
        self.used.trailing_ones() as usize
    }
}

impl WideLayout<8> for CompactNode8 {
    #[inline]
    fn child(&self, i: usize) -> WideChild {
        CompactNode8::child(self, i)
    }

    #[inline]
    fn child_aabb(&self, i: usize) -> Aabb {
        CompactNode8::child_aabb(self, i)
    }

    #[inline]
    fn child_count(&self) -> usize {
        CompactNode8::child_count(self)
    }
}

impl Internal<8> for CompactNode8 {
    #[inline(always)]
    fn slot(&self, i: usize) -> (u32, u32) {
        (self.child[i & 7], u32::from(self.count[i & 7]))
    }

    #[inline(always)]
    fn plane(&self, row: usize, i: usize) -> f32 {
        let a = row % 3;
        dequantize(self.origin[a], self.q[row % 6][i & 7], self.step[a])
    }

    #[inline(always)]
    fn used_mask(&self) -> u32 {
        self.used
    }

    #[inline(always)]
    fn entered(&self, mask: u32) -> u32 {
        mask & self.used
    }

    /// One reverse pass (children before parents), on one thread: a slot box depends on the
    /// whole node's quantization, so leaf and interior slots are set together.
    fn refit_tree<F>(
        nodes: &mut [Self],
        leaf_box: &F,
        _parallel: bool,
    ) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb + Sync,
    {
        for ni in (0..nodes.len()).rev() {
            let (head, tail) = nodes.split_at_mut(ni + 1);
            let node = &mut head[ni];
            let k = node.child_count();
            let mut boxes = [Aabb::EMPTY; 8];
            for (i, b) in boxes.iter_mut().enumerate().take(k) {
                *b = match node.child(i) {
                    WideChild::Leaf(r) => {
                        let lb = leaf_box(r.clone());
                        if !super::refit::box_ok(&lb) {
                            return Err(WideRefitError::BadLeafBox {
                                start: r.start,
                                end: r.end,
                            });
                        }
                        lb
                    }
                    WideChild::Node(c) => child_union(tail, ni, c),
                    WideChild::Empty => Aabb::EMPTY,
                };
            }
            if node.set_boxes(&boxes[..k]).is_none() {
                return Err(WideRefitError::OutOfRange { node: ni });
            }
        }
        Ok(())
    }
}

impl CompactBvh8 {
    /// The compact form of `wide`: same shape, same slots, same leaf ranges, each box stored
    /// in 8 bits per plane so that it contains the original (see the module docs). Half the
    /// node memory; traversals visit every leaf `wide` visits, and perhaps a few more whose
    /// stored box grew to reach the ray.
    ///
    /// Errors: a leaf of more than 65,535 primitives, or boxes spanning nearly the whole f32
    /// range ([`CompactError`]). An empty tree gives an empty tree. O(nodes).
    pub fn from_wide(wide: &WideBvh<8>) -> Result<Self, CompactError> {
        let src = wide.nodes();
        let mut nodes = if std::mem::size_of_val(src) / 2 >= super::simd::HUGE_PAGE_MIN_BYTES {
            super::huge_page_vec(src.len())
        } else {
            Vec::with_capacity(src.len())
        };
        nodes.resize(src.len(), CompactNode8::EMPTY);
        // Children first, so that interior slots are quantized from their children's stored
        // boxes.
        for ni in (0..src.len()).rev() {
            let n: &WideNode<8> = &src[ni];
            let k = n.child_count();
            let mut boxes = [Aabb::EMPTY; 8];
            let (head, tail) = nodes.split_at_mut(ni + 1);
            let out = &mut head[ni];
            for (i, b) in boxes.iter_mut().enumerate().take(k) {
                out.child[i] = n.child[i];
                out.count[i] = u16::try_from(n.count[i]).map_err(|_| {
                    let s = n.child[i] as usize;
                    CompactError::LeafTooLarge {
                        start: s,
                        end: s + n.count[i] as usize,
                    }
                })?;
                *b = match n.child(i) {
                    WideChild::Node(c) => child_union(tail, ni, c),
                    _ => n.child_aabb(i),
                };
            }
            out.used = (1u32 << k) - 1;
            if out.set_boxes(&boxes[..k]).is_none() {
                return Err(CompactError::OutOfRange { node: ni });
            }
        }
        Ok(WideBvh {
            nodes,
            prim_count: wide.len(),
            depth: wide.depth(),
        })
    }
}

impl WideBvh<8> {
    /// The plain form of a compact tree: same shape and leaf ranges, each slot box the
    /// stored (dequantized) one, which contains the exact box it was made from. Refit it
    /// ([`WideBvh::refit_with`]) to tighten the boxes again. O(nodes).
    #[must_use]
    pub fn from_compact(compact: &CompactBvh8) -> Self {
        let src = compact.nodes();
        let mut nodes = if std::mem::size_of_val(src) * 2 >= super::simd::HUGE_PAGE_MIN_BYTES {
            super::huge_page_vec(src.len())
        } else {
            Vec::with_capacity(src.len())
        };
        nodes.extend(src.iter().map(|c| {
            let mut n = WideNode::<8>::EMPTY;
            for i in 0..c.child_count() {
                let b = c.child_aabb(i);
                for a in 0..3 {
                    n.bounds[a][i] = b.min[a];
                    n.bounds[3 + a][i] = b.max[a];
                }
                n.child[i] = c.child[i];
                n.count[i] = u32::from(c.count[i]);
            }
            n
        }));
        WideBvh {
            nodes,
            prim_count: compact.len(),
            depth: compact.depth(),
        }
    }
}
