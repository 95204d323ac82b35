//! The ids of a scene's meshes and objects, and the errors of its edits.

#[cfg(doc)]
use super::Scene;

/// A mesh added to a [`Scene`], shared by its instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub(crate) u32);

impl MeshId {
    /// The mesh's index in the order meshes were added.
    #[must_use]
    pub fn index(self) -> u32 {
        self.0
    }
}

/// An object (mesh instance or shape) in a [`Scene`].
///
/// Ids are never reused for a different object: a removed id's slot may be reused, but with a
/// new generation, so a stale id is reported as unknown rather than naming the new object.
/// Ids order by slot, which is how ties between objects are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceId {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl InstanceId {
    /// The slot index (reused after removal, with a new generation).
    #[must_use]
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Why a scene edit was refused. The scene is unchanged after an error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The mesh id does not belong to this scene.
    #[error("unknown mesh {0:?}")]
    UnknownMesh(MeshId),
    /// The instance id does not belong to this scene, or was removed.
    #[error("unknown or removed instance {0:?}")]
    UnknownInstance(InstanceId),
    /// The point or segment set id does not belong to this scene, or was removed.
    #[error("unknown or removed point or segment set {0:?}")]
    UnknownPrims(super::PrimId),
    /// A transform entry is NaN or infinite.
    #[error("transform entry ({row}, {column}) is not finite")]
    NonFiniteTransform {
        /// Row of the bad entry.
        row: usize,
        /// Column of the bad entry.
        column: usize,
    },
    /// The bottom row of the transform is not `0 0 0 1`.
    #[error("the transform is projective (bottom row is not 0 0 0 1)")]
    ProjectiveTransform,
    /// The linear part cannot be inverted (zero scale, collapsed axis).
    #[error("the transform is singular (determinant {determinant})")]
    SingularTransform {
        /// The determinant of the 3x3 linear part (in f64).
        determinant: f64,
    },
    /// Shapes accept rotations, translations, mirrors and uniform scale only, because
    /// parry's point queries are not valid under non-uniform scale.
    #[error("shapes need a similarity transform (no non-uniform scale)")]
    ShapeNeedsUniformScale,
    /// A batch query got an output slice of a different length than its input.
    #[error("batch of {inputs} queries but {outputs} result slots")]
    BatchLengthMismatch {
        /// Number of queries.
        inputs: usize,
        /// Number of result slots.
        outputs: usize,
    },
}
