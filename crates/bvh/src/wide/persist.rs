//! Saving and loading a wide tree's nodes: each layout's fields written one by one,
//! little-endian, and read back with every invariant checked before the tree is used.
//!
//! The container around the nodes (header, counts, checksum) belongs to whoever saves the
//! tree; this module only turns nodes into bytes and untrusted bytes into a valid tree.

use raypick_primitives::simd::huge_page_vec;

use super::compact::CompactNode8;
use super::{WideBvh, WideLayout, WideNode, WideValidationError, EMPTY_SLOT};
use crate::MAX_DEPTH;

/// Why saved nodes were rejected by [`WideBvh::read_nodes`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WideLoadError {
    /// The byte count is not a whole number of nodes.
    #[error("{bytes} bytes is not a whole number of {node_bytes}-byte nodes")]
    Length {
        /// Bytes given.
        bytes: usize,
        /// Bytes per saved node.
        node_bytes: usize,
    },
    /// A node's own fields are inconsistent: unused slots that are not canonical, a used
    /// slot after an unused one, or (compact) a bad origin, step or slot mask.
    #[error("wide node {node}: {what}")]
    BadNode {
        /// The node.
        node: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// The stated depth is beyond what traversal supports.
    #[error("depth {depth} is beyond the maximum {MAX_DEPTH}")]
    TooDeep {
        /// The depth stated.
        depth: usize,
    },
    /// The nodes are well formed one by one but do not make a valid tree.
    #[error(transparent)]
    Invalid(#[from] WideValidationError),
}

#[inline]
fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// The number of used slots, given whether each slot holds something: they must come first.
fn leading_used(used: impl Iterator<Item = bool>) -> Option<usize> {
    let mut k = 0;
    let mut ended = false;
    for u in used {
        match (u, ended) {
            (true, false) => k += 1,
            (true, true) => return None,
            (false, _) => ended = true,
        }
    }
    Some(k)
}

impl<const N: usize> WideNode<N> {
    /// Saved size: six rows of `N` f32 planes, then `N` child and `N` count u32s.
    pub(crate) const ENCODED_BYTES: usize = 32 * N;

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for row in &self.bounds {
            for v in row {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for v in self.child.iter().chain(&self.count) {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Self, &'static str> {
        let mut n = Self::EMPTY;
        let mut at = 0;
        for row in &mut n.bounds {
            for v in row.iter_mut() {
                *v = f32_at(b, at);
                at += 4;
            }
        }
        for v in n.child.iter_mut() {
            *v = u32_at(b, at);
            at += 4;
        }
        for v in n.count.iter_mut() {
            *v = u32_at(b, at);
            at += 4;
        }
        let k = leading_used((0..N).map(|i| !(n.child[i] == EMPTY_SLOT && n.count[i] == 0)))
            .ok_or("a used slot after an unused one")?;
        // Traversal relies on an unused slot's box being empty (no ray may enter it).
        let canonical = (k..N).all(|i| {
            (0..3)
                .all(|a| n.bounds[a][i] == f32::INFINITY && n.bounds[3 + a][i] == f32::NEG_INFINITY)
        });
        if !canonical {
            return Err("an unused slot has a box");
        }
        Ok(n)
    }
}

impl CompactNode8 {
    /// Saved size: origins, steps, planes, children, counts, slot mask, 4 zero bytes.
    pub(crate) const ENCODED_BYTES: usize = 128;

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        for v in self.origin.iter().chain(&self.step) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for row in &self.q {
            out.extend_from_slice(row);
        }
        for v in &self.child {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.count {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.used.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Self, &'static str> {
        let mut n = Self::EMPTY;
        for a in 0..3 {
            n.origin[a] = f32_at(b, 4 * a);
            n.step[a] = f32_at(b, 12 + 4 * a);
        }
        for (r, row) in n.q.iter_mut().enumerate() {
            row.copy_from_slice(&b[24 + 8 * r..32 + 8 * r]);
        }
        for i in 0..8 {
            n.child[i] = u32_at(b, 72 + 4 * i);
            n.count[i] = u16::from_le_bytes([b[104 + 2 * i], b[105 + 2 * i]]);
        }
        n.used = u32_at(b, 120);
        if u32_at(b, 124) != 0 {
            return Err("reserved bytes are not zero");
        }
        if !n.origin.iter().all(|o| o.is_finite()) {
            return Err("an origin is not finite");
        }
        // Every kernel computes `origin + q * step` alike only for a normal power-of-two step.
        let pow2 = |s: f32| {
            let bits = s.to_bits();
            bits & 0x807f_ffff == 0 && (1..255).contains(&(bits >> 23))
        };
        if !n.step.iter().all(|&s| pow2(s)) {
            return Err("a step is not a power of two");
        }
        let k = leading_used((0..8).map(|i| !(n.child[i] == EMPTY_SLOT && n.count[i] == 0)))
            .ok_or("a used slot after an unused one")?;
        if n.used != (1u32 << k) - 1 {
            return Err("the slot mask disagrees with the slots");
        }
        let canonical = (k..8).all(|i| (0..3).all(|a| n.q[a][i] == 255 && n.q[3 + a][i] == 0));
        if !canonical {
            return Err("an unused slot has planes");
        }
        Ok(n)
    }
}

impl<const N: usize, L: WideLayout<N>> WideBvh<N, L> {
    /// Bytes per node in the saved form ([`WideBvh::write_nodes`]): 256 for a plain 8-wide
    /// node, 128 for a compact one.
    pub const SAVED_NODE_BYTES: usize = L::SAVED_BYTES;

    /// Appends the nodes to `out`, field by field, little-endian, root first
    /// ([`WideBvh::SAVED_NODE_BYTES`] each). With [`WideBvh::len`] and [`WideBvh::depth`]
    /// this is everything [`WideBvh::read_nodes`] needs.
    pub fn write_nodes(&self, out: &mut Vec<u8>) {
        out.reserve(self.nodes.len() * L::SAVED_BYTES);
        for n in &self.nodes {
            n.save_to(out);
        }
    }

    /// The tree saved by [`WideBvh::write_nodes`], over `prim_count` leaf-order positions
    /// and of depth `depth`, from untrusted bytes.
    ///
    /// Every invariant traversal relies on is checked before the tree is returned: each
    /// node's slots (used first, unused ones canonical; compact: finite origins,
    /// power-of-two steps, the slot mask), the depth (at most [`MAX_DEPTH`]), then
    /// [`WideBvh::validate`] (child order, boxes containing their children, leaves covering
    /// `0..prim_count` once). Leaf boxes are not checked against primitives (the tree has
    /// none): the caller does that. Allocates at most one node per
    /// [`WideBvh::SAVED_NODE_BYTES`] bytes given; never panics.
    pub fn read_nodes(
        bytes: &[u8],
        prim_count: usize,
        depth: usize,
    ) -> Result<Self, WideLoadError> {
        let size = L::SAVED_BYTES;
        if !bytes.len().is_multiple_of(size) {
            return Err(WideLoadError::Length {
                bytes: bytes.len(),
                node_bytes: size,
            });
        }
        if depth > MAX_DEPTH {
            return Err(WideLoadError::TooDeep { depth });
        }
        let mut nodes = huge_page_vec(bytes.len() / size);
        for (node, b) in bytes.chunks_exact(size).enumerate() {
            nodes.push(L::load_from(b).map_err(|what| WideLoadError::BadNode { node, what })?);
        }
        let tree = Self {
            nodes,
            prim_count,
            depth,
        };
        tree.validate()?;
        Ok(tree)
    }
}
