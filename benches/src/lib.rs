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
pub mod hard;
pub mod machine;
pub mod noise;
pub mod peers;
pub mod rays;
pub mod rng;
pub mod workloads;

pub use exchange::{read_mesh, read_rays, write_mesh, write_rays, ExchangeError};
pub use hard::{architecture, cad_part, noisy_terrain};
pub use peers::{Peer, PeerError, PeerKind};
pub use workloads::{
    displaced_sphere, load_obj, query_points, soup, terrain, BenchRay, MeshData, RaySet, Workload,
    WorkloadError, RAYS_PER_SET,
};

/// The default directory for exchange files and Embree results: `bench-data/` at the
/// repository root (gitignored).
#[must_use]
pub fn default_data_dir() -> std::path::PathBuf {
    let benches = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    benches.parent().unwrap_or(benches).join("bench-data")
}

/// File name of a workload's mesh in the data directory: `<workload>.mesh`.
#[must_use]
pub fn mesh_file_name(w: Workload) -> String {
    format!("{}.mesh", w.name())
}

/// File name of a ray set in the data directory: `<workload>_<set>.rays`.
#[must_use]
pub fn rays_file_name(w: Workload, s: RaySet) -> String {
    format!("{}_{}.rays", w.name(), s.name())
}

/// Calls `on(flag, value)` for each command-line argument after the program's name, in
/// order; `value()` takes the next argument as the flag's value (an error naming the flag
/// when there is none). Stops at the first error.
///
/// # Errors
/// The first error of `on` or `value`.
pub fn parse_flags(
    mut on: impl FnMut(&str, &mut dyn FnMut() -> Result<String, String>) -> Result<(), String>,
) -> Result<(), String> {
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        on(&flag, &mut value)?;
    }
    Ok(())
}

/// Parses a comma-separated list of names with `parse`; `all` (or an empty list) gives
/// `all_items`.
///
/// # Errors
/// The first unknown name.
pub fn parse_list<T: Copy>(
    list: &str,
    all_items: &[T],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, String> {
    if list.is_empty() || list == "all" {
        return Ok(all_items.to_vec());
    }
    list.split(',')
        .map(|n| parse(n.trim()).ok_or_else(|| format!("unknown name `{n}`")))
        .collect()
}
