//! raypick-query: queries over triangle meshes and scenes.
//!
//! [`Mesh`] is one triangle mesh with its BVH: watertight closest, any and all ray hits,
//! nearest points, and overlap queries, singly or in parallel batches.

pub mod camera;
pub mod image_rows;
pub mod mesh;
mod par;
pub mod persist;
pub mod points;
pub mod scene;

pub use mesh::{
    FrustumSelection, GridConfig, Hit, Mesh, MeshDistance, MeshError, NearestPoint, RayQuery,
    SignedDistance,
};
pub use scene::{Scene, SceneHit, SceneQuery};
