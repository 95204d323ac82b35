//! [`MeshTree`]: a mesh's 8-wide tree in one of two node layouts, and the rule that picks one.

use std::ops::{ControlFlow, Range};

use raypick_bvh::wide::{
    Bvh8, CompactBvh8, CompactError, WideRefitError, WideStats, WideValidationError,
};
use raypick_primitives::{Aabb, Point3, Real};

/// Which node layout a mesh's tree uses (see [`MeshTree`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NodeLayout {
    /// [`NodeLayout::Compact`] when the plain nodes would take at least
    /// [`NodeLayout::COMPACT_FROM_BYTES`], else [`NodeLayout::Plain`] (the default).
    #[default]
    Auto,
    /// 256-byte nodes of f32 boxes: the fewest instructions per node, fastest while the
    /// nodes stay in the CPU's caches.
    Plain,
    /// 128-byte nodes of quantized boxes ([`CompactBvh8`]): half the node memory, so fewer
    /// cache misses on large meshes, for a few more instructions per node.
    Compact,
}

impl NodeLayout {
    /// The plain node bytes from which [`NodeLayout::Auto`] goes compact: 4 MiB, about
    /// 300,000 triangles, where the compact nodes' fewer cache misses start to outweigh their
    /// extra instructions (measured on the benchmark workloads: `docs/performance.md`).
    pub const COMPACT_FROM_BYTES: usize = 4 << 20;
}

/// A mesh's 8-wide tree, in the layout [`NodeLayout`] chose. Both answer every query alike
/// (the compact one may test a few more triangles: its boxes are slightly larger).
#[derive(Clone, Debug, PartialEq)]
pub enum MeshTree {
    /// Plain f32 boxes.
    Plain(Bvh8),
    /// Quantized boxes.
    Compact(CompactBvh8),
}

/// Runs `$e` with `$t` bound to the tree, whichever its layout.
macro_rules! with_tree {
    ($tree:expr, $t:ident => $e:expr) => {
        match $tree {
            $crate::mesh::MeshTree::Plain($t) => $e,
            $crate::mesh::MeshTree::Compact($t) => $e,
        }
    };
}
pub(crate) use with_tree;

impl MeshTree {
    /// `plain` in `layout` (for [`NodeLayout::Auto`], by its node bytes). A tree the compact
    /// layout cannot hold stays plain under `Auto`; under `Compact` that is the error.
    pub(crate) fn new(plain: Bvh8, layout: NodeLayout) -> Result<Self, CompactError> {
        Self::with_threshold(plain, layout, NodeLayout::COMPACT_FROM_BYTES)
    }

    /// [`MeshTree::new`] with `Auto` going compact from `compact_from` plain node bytes.
    pub(crate) fn with_threshold(
        plain: Bvh8,
        layout: NodeLayout,
        compact_from: usize,
    ) -> Result<Self, CompactError> {
        let compact = match layout {
            NodeLayout::Plain => false,
            NodeLayout::Compact => true,
            NodeLayout::Auto => plain.memory_bytes() >= compact_from,
        };
        if !compact {
            return Ok(MeshTree::Plain(plain));
        }
        match CompactBvh8::from_wide(&plain) {
            Ok(c) => Ok(MeshTree::Compact(c)),
            Err(_) if layout == NodeLayout::Auto => Ok(MeshTree::Plain(plain)),
            Err(e) => Err(e),
        }
    }

    /// The layout in use: [`NodeLayout::Plain`] or [`NodeLayout::Compact`].
    #[must_use]
    pub fn layout(&self) -> NodeLayout {
        match self {
            MeshTree::Plain(_) => NodeLayout::Plain,
            MeshTree::Compact(_) => NodeLayout::Compact,
        }
    }

    /// The plain tree, if that is the layout.
    #[must_use]
    pub fn as_plain(&self) -> Option<&Bvh8> {
        match self {
            MeshTree::Plain(t) => Some(t),
            MeshTree::Compact(_) => None,
        }
    }

    /// The compact tree, if that is the layout.
    #[must_use]
    pub fn as_compact(&self) -> Option<&CompactBvh8> {
        match self {
            MeshTree::Plain(_) => None,
            MeshTree::Compact(t) => Some(t),
        }
    }

    /// Number of triangles (leaf-order positions `0..len()`).
    #[must_use]
    pub fn len(&self) -> usize {
        with_tree!(self, t => t.len())
    }

    /// True when the tree holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        with_tree!(self, t => t.is_empty())
    }

    /// Bytes taken by the nodes.
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        with_tree!(self, t => t.memory_bytes())
    }

    /// The union of the root's slot boxes (for the compact layout, the stored boxes, which
    /// contain the exact ones); [`Aabb::EMPTY`] when empty.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        with_tree!(self, t => t.bounds())
    }

    /// The leaf ranges in depth-first order (allocates).
    #[must_use]
    pub fn leaf_ranges(&self) -> Vec<Range<usize>> {
        with_tree!(self, t => t.leaf_ranges())
    }

    /// See [`raypick_bvh::wide::WideBvh::validate`].
    pub fn validate(&self) -> Result<WideStats, WideValidationError> {
        with_tree!(self, t => t.validate())
    }

    /// See [`raypick_bvh::wide::WideBvh::stats`].
    #[must_use]
    pub fn stats(&self) -> WideStats {
        with_tree!(self, t => t.stats())
    }

    /// See [`raypick_bvh::wide::WideBvh::sah_cost`].
    #[must_use]
    pub fn sah_cost(&self) -> f64 {
        with_tree!(self, t => t.sah_cost())
    }

    /// See [`raypick_bvh::wide::WideBvh::traverse_aabb`].
    pub fn traverse_aabb<F>(&self, aabb: &Aabb, leaf: F)
    where
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        with_tree!(self, t => t.traverse_aabb(aabb, leaf));
    }

    /// See [`raypick_bvh::wide::WideBvh::traverse_where`].
    pub fn traverse_where<P, F>(&self, node_pred: P, leaf: F)
    where
        P: FnMut(&Aabb) -> bool,
        F: FnMut(Range<usize>) -> ControlFlow<()>,
    {
        with_tree!(self, t => t.traverse_where(node_pred, leaf));
    }

    /// See [`raypick_bvh::wide::WideBvh::traverse_best_first`].
    pub fn traverse_best_first<D, F>(&self, max_dist: Real, node_dist: D, leaf: F)
    where
        D: FnMut(&Aabb) -> Real,
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        with_tree!(self, t => t.traverse_best_first(max_dist, node_dist, leaf));
    }

    /// See [`raypick_bvh::wide::WideBvh::traverse_nearest_first`].
    pub fn traverse_nearest_first<F>(&self, p: &Point3<Real>, max_dist2: Real, leaf: F)
    where
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        with_tree!(self, t => t.traverse_nearest_first(p, max_dist2, leaf));
    }

    /// See [`raypick_bvh::wide::WideBvh::traverse_nearest_first_with`].
    #[inline(always)]
    pub(crate) fn traverse_nearest_first_with<B, F>(
        &self,
        p: &Point3<Real>,
        max_dist2: Real,
        bound: B,
        leaf: F,
    ) where
        B: FnMut(usize, u32, &mut [Real; 8]),
        F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
    {
        with_tree!(self, t => t.traverse_nearest_first_with(p, max_dist2, bound, leaf));
    }

    /// See [`raypick_bvh::wide::WideBvh::refit_by_leaf`].
    pub(crate) fn refit_by_leaf<F>(&mut self, leaf_box: F) -> Result<(), WideRefitError>
    where
        F: Fn(Range<usize>) -> Aabb + Sync,
    {
        with_tree!(self, t => t.refit_by_leaf(leaf_box))
    }
}
