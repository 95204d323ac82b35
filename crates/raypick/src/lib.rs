//! raypick: BVH-accelerated ray picking over triangle meshes and scenes.
//!
//! This facade re-exports the workspace crates.

pub use raypick_bvh as bvh;
pub use raypick_io as io;
pub use raypick_primitives as primitives;
pub use raypick_query as query;
