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

/// `2^e` for `-126 <= e <= 127`.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The smallest power-of-two step (a normal f32) with `origin + 255 * step >= hi` as
/// dequantized; `None` when no finite one exists.
fn step_for(origin: f32, hi: f32) -> Option<f32> {
    let ext = f64::from(hi) - f64::from(origin);
    let mut e = if ext > 0.0 {
        ((ext / 255.0).log2().ceil() as i32).clamp(-126, 127)
    } else {
        -126
    };
    loop {
        let top = dequantize(origin, 255, pow2(e));
        if top >= hi && top.is_finite() {
            return Some(pow2(e));
        }
        if e >= 127 || !top.is_finite() {
            return None;
        }
        e += 1;
    }
}

/// The largest byte whose plane is at most `v` (0 qualifies: `origin <= v`).
#[inline]
fn quantize_down(origin: f32, step: f32, v: f32) -> u8 {
    let est = ((v - origin) / step).floor();
    let mut q = if est >= 255.0 {
        255
    } else if est > 0.0 {
        est as u8
    } else {
        0
    };
    while q > 0 && dequantize(origin, q, step) > v {
        q -= 1;
    }
    q
}

/// The smallest byte whose plane is at least `v` (255 qualifies: see [`step_for`]).
#[inline]
fn quantize_up(origin: f32, step: f32, v: f32) -> u8 {
    let est = ((v - origin) / step).ceil();
    let mut q = if est >= 255.0 {
        255
    } else if est > 0.0 {
        est as u8
    } else {
        0
    };
    while q < 255 && dequantize(origin, q, step) < v {
        q += 1;
    }
    q
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

    /// Sets the boxes of the used slots `0..boxes.len()` (finite, `min <= max`), choosing
    /// the node's origins and steps; `None` when they span too much to quantize.
    fn set_boxes(&mut self, boxes: &[Aabb]) -> Option<()> {
        for a in 0..3 {
            let lo = boxes.iter().fold(f32::INFINITY, |m, b| m.min(b.min[a]));
            let hi = boxes.iter().fold(f32::NEG_INFINITY, |m, b| m.max(b.max[a]));
            let step = step_for(lo, hi)?;
            self.origin[a] = lo;
            self.step[a] = step;
            for (i, b) in boxes.iter().enumerate() {
                self.q[a][i] = quantize_down(lo, step, b.min[a]);
                self.q[3 + a][i] = quantize_up(lo, step, b.max[a]);
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
                    // Children come after their parents (a type invariant).
                    WideChild::Node(c) => tail
                        .get(c.wrapping_sub(ni + 1))
                        .map_or(Aabb::EMPTY, CompactNode8::union_all),
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
                    WideChild::Node(c) => tail
                        .get(c.wrapping_sub(ni + 1))
                        .map_or(Aabb::EMPTY, CompactNode8::union_all),
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
