//! Workloads, the exchange format and peer adapters for raypick's benchmarks.
//!
//! Everything here is deterministic: the same workload name always gives the same triangles
//! and the same rays, on every machine, so that every row of BENCHMARKS.md (raypick, its Rust
//! peers and Embree through the exchange files) answers the same question.
//!
//! ```
//! use raypick_benches::{soup, RaySet, Workload};
//!
//! let mesh = soup(100, 7);
//! let rays = RaySet::Random.rays(Workload::Soup100k, &mesh, 10);
//! assert_eq!((mesh.triangles.len(), rays.len()), (100, 10));
//! ```

pub mod exchange;
pub mod noise;
pub mod peers;
pub mod rng;
pub mod workloads;

pub use exchange::{read_mesh, read_rays, write_mesh, write_rays, ExchangeError};
pub use peers::{Peer, PeerError, PeerKind};
pub use workloads::{
    displaced_sphere, load_obj, soup, terrain, BenchRay, MeshData, RaySet, Workload, WorkloadError,
    RAYS_PER_SET,
};
