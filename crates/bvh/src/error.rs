//! Error types.

/// Why a build or refit rejected its input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A box has a NaN coordinate.
    #[error("box {index} has a NaN coordinate")]
    NanBox {
        /// The primitive's index.
        index: usize,
    },
    /// A box has an infinite coordinate. Infinite boxes are rejected: they have no finite
    /// centre for the binning and make every ancestor's SAH infinite.
    #[error("box {index} has an infinite coordinate")]
    InfiniteBox {
        /// The primitive's index.
        index: usize,
    },
    /// A box has `min > max` on some axis (this includes `Aabb::EMPTY`).
    #[error("box {index} is inverted on axis {axis} (min > max)")]
    InvertedBox {
        /// The primitive's index.
        index: usize,
        /// The axis (0, 1 or 2).
        axis: usize,
    },
    /// More primitives than `u32` indices can address.
    #[error("{count} primitives is more than the {max} a tree can hold")]
    TooManyPrimitives {
        /// The number given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// `refit` got a different number of boxes than the tree was built over.
    #[error("refit got {found} boxes but the tree holds {expected} primitives")]
    LengthMismatch {
        /// The tree's primitive count.
        expected: usize,
        /// The number of boxes given.
        found: usize,
    },
}

/// The first broken invariant [`crate::Bvh::validate`] (or loading) found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// An empty tree must have neither nodes nor indices, a non-empty one both.
    #[error("{nodes} nodes for {prims} primitives")]
    NodeCount {
        /// Node count.
        nodes: usize,
        /// Primitive count.
        prims: usize,
    },
    /// `validate` got a different number of boxes than the tree holds primitives.
    #[error("{found} boxes given for a tree of {expected} primitives")]
    BoxCount {
        /// The tree's primitive count.
        expected: usize,
        /// The number of boxes given.
        found: usize,
    },
    /// An interior node's children are out of range or not after it.
    #[error("node {node} has children at {child}, which is not in {node}+1..{len}-1")]
    BadChild {
        /// The parent.
        node: usize,
        /// The first child index.
        child: usize,
        /// The node count.
        len: usize,
    },
    /// A node is the child of two parents.
    #[error("node {node} is reached twice")]
    SharedNode {
        /// The node.
        node: usize,
    },
    /// A node is not reached from the root.
    #[error("node {node} is not reachable from the root")]
    UnreachableNode {
        /// The node.
        node: usize,
    },
    /// A leaf's range lies outside the primitive positions.
    #[error(
        "leaf {node} covers positions {start}..{start}+{count}, beyond the {prims} primitives"
    )]
    LeafOutOfRange {
        /// The leaf.
        node: usize,
        /// First position.
        start: usize,
        /// Count.
        count: usize,
        /// Primitive count.
        prims: usize,
    },
    /// Two leaves cover the same position.
    #[error("position {position} is covered by leaf {node} and an earlier leaf")]
    PositionCoveredTwice {
        /// The second leaf.
        node: usize,
        /// The position.
        position: usize,
    },
    /// No leaf covers a position.
    #[error("position {position} is in no leaf")]
    PositionNotCovered {
        /// The position.
        position: usize,
    },
    /// A primitive index is out of range.
    #[error("position {position} holds primitive {index}, beyond the {prims} primitives")]
    IndexOutOfRange {
        /// The position.
        position: usize,
        /// The index found there.
        index: usize,
        /// Primitive count.
        prims: usize,
    },
    /// A primitive index appears twice.
    #[error("primitive {index} appears twice (second at position {position})")]
    DuplicateIndex {
        /// The second position.
        position: usize,
        /// The primitive.
        index: usize,
    },
    /// A node's box has a NaN or infinite coordinate or is inverted.
    #[error("node {node} has a non-finite or inverted box")]
    BadNodeBox {
        /// The node.
        node: usize,
    },
    /// A child's box sticks out of its parent's.
    #[error("node {child}'s box is not inside its parent {node}'s")]
    ChildNotContained {
        /// The parent.
        node: usize,
        /// The child.
        child: usize,
    },
    /// A primitive's box sticks out of its leaf's.
    #[error("primitive {prim}'s box is not inside leaf {node}'s")]
    PrimNotContained {
        /// The leaf.
        node: usize,
        /// The primitive (original index).
        prim: usize,
    },
    /// The tree is deeper than [`crate::MAX_DEPTH`].
    #[error("depth {depth} exceeds the maximum {max}")]
    TooDeep {
        /// The depth found (root = 1).
        depth: usize,
        /// The limit.
        max: usize,
    },
    /// The stored depth disagrees with the tree's.
    #[error("stored depth {stored} but the tree's depth is {actual}")]
    DepthMismatch {
        /// The stored depth.
        stored: usize,
        /// The actual depth.
        actual: usize,
    },
}
