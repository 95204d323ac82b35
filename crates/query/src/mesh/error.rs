//! Errors of mesh construction, update and batch queries.

use raypick_bvh::wide::{CompactError, WideRefitError};
use raypick_bvh::BuildError;

/// Why a [`crate::Mesh`] could not be built or updated, or a batch query not run. Each
/// variant names the culprit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle}: vertex index {index} (corner {corner}) is out of range \
         ({vertex_count} vertices)"
    )]
    IndexOutOfRange {
        /// The triangle's index.
        triangle: usize,
        /// Which corner (0, 1 or 2) holds the bad index.
        corner: usize,
        /// The bad vertex index.
        index: u32,
        /// The number of vertices given.
        vertex_count: usize,
    },
    /// A vertex has a NaN or infinite coordinate.
    #[error("vertex {vertex} is not finite: ({x}, {y}, {z})")]
    NonFiniteVertex {
        /// The vertex's index.
        vertex: usize,
        /// Its x coordinate.
        x: f32,
        /// Its y coordinate.
        y: f32,
        /// Its z coordinate.
        z: f32,
    },
    /// More triangles than the leaf rows' 31-bit original index can name (`2^31 - 1` at
    /// most; bit 31 holds the degenerate flag).
    #[error(
        "{count} triangles: at most {} are supported",
        crate::mesh::MAX_TRIANGLES
    )]
    TooManyTriangles {
        /// The number of triangles given.
        count: usize,
    },
    /// [`crate::Mesh::update_positions`] got a different number of vertices than the mesh has.
    #[error("{found} positions given, the mesh has {expected} vertices")]
    VertexCountMismatch {
        /// The mesh's vertex count.
        expected: usize,
        /// The number of positions given.
        found: usize,
    },
    /// A batch query got an output slice of another length than its input slice (the same
    /// fields as `SceneError::BatchLengthMismatch`).
    #[error("batch of {inputs} queries but {outputs} result slots")]
    BatchLengthMismatch {
        /// The number of queries (rays or points).
        inputs: usize,
        /// The length of the output slice.
        outputs: usize,
    },
    /// The BVH builder rejected the triangle boxes (should not happen for finite vertices).
    #[error("BVH build failed: {0}")]
    Bvh(#[from] BuildError),
    /// The tree refused a refit in [`crate::Mesh::update_positions`] (should not happen: the
    /// vertices are checked first; the mesh may then answer queries wrongly until a
    /// successful update).
    #[error("BVH refit failed: {0}")]
    Refit(#[from] WideRefitError),
    /// The tree cannot be stored in the compact node layout
    /// ([`NodeLayout::Compact`](crate::mesh::NodeLayout::Compact)).
    #[error("compact node layout: {0}")]
    Compact(#[from] CompactError),
}
