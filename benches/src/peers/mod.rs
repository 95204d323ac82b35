//! Peer adapters: every engine builds its acceleration structure from the same positions and
//! indices and answers the same questions, with `t` in units of the ray direction as given.
//!
//! - [`PeerKind::Brute`]: every triangle, raypick's watertight test (the oracle; slow).
//! - [`PeerKind::Parry`]: parry3d 0.25 `TriMesh` + `RayCast::cast_local_ray` (solid = true).
//! - [`PeerKind::BvhCrate`]: the `bvh` crate 0.13, its nearest-first traversal iterator and
//!   raypick's watertight test on each candidate.
//! - [`PeerKind::Obvhs`]: obvhs 0.4 CWBVH (`medium_build`) with its own triangle test.
//! - [`PeerKind::Raypick`]: `raypick_query::Mesh` (balanced preset).

use std::fmt;

use raypick_primitives::Point3;

use crate::workloads::{BenchRay, MeshData};

mod brute;
mod bvh_crate;
mod obvhs;
mod parry;
mod raypick;

pub use brute::{closest_point_triangle, BrutePeer};
pub use bvh_crate::BvhCratePeer;
pub use obvhs::ObvhsPeer;
pub use parry::ParryPeer;
pub use raypick::RaypickPeer;

/// One engine, built over one mesh.
pub trait Peer: Sync {
    /// The row label.
    fn name(&self) -> &'static str;

    /// The smallest `t` in `[0, t_max]` at which the ray hits a triangle, or `None`.
    fn closest_hit(&self, ray: &BenchRay) -> Option<f32>;

    /// The hit count and the sum of hit distances of `rays` through the engine's own batch
    /// closest-hit query, on the current rayon pool, for a peer timed that way (`None`
    /// otherwise, or when it cannot take these rays in one batch).
    fn closest_hits(&self, rays: &[BenchRay]) -> Option<(usize, f64)> {
        let _ = rays;
        None
    }

    /// The number of `rays` that hit something, through the engine's own batch any-hit
    /// query, as [`Peer::closest_hits`].
    fn any_hits(&self, rays: &[BenchRay]) -> Option<usize> {
        let _ = rays;
        None
    }

    /// True when the engine has a dedicated any-hit (occlusion) query; otherwise
    /// [`Peer::any_hit`] falls back to the closest hit and the table leaves the column empty.
    fn has_any_hit(&self) -> bool {
        false
    }

    /// True when the ray hits some triangle in `[0, t_max]`.
    fn any_hit(&self, ray: &BenchRay) -> bool {
        self.closest_hit(ray).is_some()
    }

    /// True when [`Peer::nearest_point`] is implemented.
    fn has_nearest_point(&self) -> bool {
        false
    }

    /// Distance from `p` to the closest point of the surface; `None` when not implemented or
    /// the mesh is empty.
    fn nearest_point(&self, _p: &Point3<f32>) -> Option<f32> {
        None
    }

    /// Bytes held by the structure (nodes plus the triangle data the queries read), when the
    /// engine lets us count them.
    fn memory_bytes(&self) -> Option<usize>;
}

/// The engines the benchmarks know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerKind {
    /// raypick's own `Mesh` (not wired until `raypick_query::Mesh` exists).
    Raypick,
    /// The same `Mesh` through its batch queries (`closest_hit_batch`, `any_hit_batch`) over
    /// the whole ray set: what a caller with many rays at once uses (on meshes from
    /// 300,000 triangles the batch runs as a stream, several rays in turns).
    RaypickBatch,
    /// parry3d 0.25 `TriMesh`.
    Parry,
    /// The `bvh` crate 0.13.
    BvhCrate,
    /// obvhs 0.4 CWBVH.
    Obvhs,
    /// Brute force over all triangles.
    Brute,
}

/// A peer that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// The engine rejected the mesh.
    #[error("{peer}: {message}")]
    Rejected {
        /// Which engine.
        peer: &'static str,
        /// Its message.
        message: String,
    },
    /// The engine is not available in this build.
    #[error("{0} is not available yet")]
    Unavailable(&'static str),
}

impl PeerKind {
    /// Every peer, in table order.
    pub const ALL: [PeerKind; 6] = [
        PeerKind::Raypick,
        PeerKind::RaypickBatch,
        PeerKind::Parry,
        PeerKind::BvhCrate,
        PeerKind::Obvhs,
        PeerKind::Brute,
    ];

    /// The name used on command lines and in tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PeerKind::Raypick => "raypick",
            PeerKind::RaypickBatch => "raypick-batch",
            PeerKind::Parry => "parry3d",
            PeerKind::BvhCrate => "bvh",
            PeerKind::Obvhs => "obvhs",
            PeerKind::Brute => "brute",
        }
    }

    /// The peer called `name`, or `None`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// True when this build can construct the peer (all of them now; kept so that a peer
    /// can be switched off without touching the binaries).
    #[must_use]
    pub fn available(self) -> bool {
        true
    }

    /// Builds the peer's structure over `mesh` on the calling thread: raypick with
    /// `parallel_threshold = usize::MAX`, bvh's `Bvh::build` (not `build_par`), obvhs without
    /// its `parallel` feature; parry's build is serial.
    ///
    /// # Errors
    /// When the engine rejects the mesh (parry refuses an empty one) or is unavailable.
    pub fn build(self, mesh: &MeshData) -> Result<Box<dyn Peer>, PeerError> {
        Ok(match self {
            PeerKind::Raypick => Box::new(RaypickPeer::new(mesh, false)?),
            PeerKind::RaypickBatch => Box::new(RaypickPeer::new(mesh, false)?.batched()),
            PeerKind::Parry => Box::new(ParryPeer::new(mesh)?),
            PeerKind::BvhCrate => Box::new(BvhCratePeer::new(mesh)),
            PeerKind::Obvhs => Box::new(ObvhsPeer::new(mesh)),
            PeerKind::Brute => Box::new(BrutePeer::new(mesh)),
        })
    }

    /// Builds with the engine's parallel builder on rayon's global pool, for the engines that
    /// have one (raypick, the `bvh` crate's `build_par`); `None` for the others.
    ///
    /// # Errors
    /// As [`PeerKind::build`].
    pub fn build_parallel(self, mesh: &MeshData) -> Option<Result<Box<dyn Peer>, PeerError>> {
        match self {
            PeerKind::Raypick => {
                Some(RaypickPeer::new(mesh, true).map(|p| Box::new(p) as Box<dyn Peer>))
            }
            PeerKind::RaypickBatch => {
                Some(RaypickPeer::new(mesh, true).map(|p| Box::new(p.batched()) as Box<dyn Peer>))
            }
            PeerKind::BvhCrate => Some(Ok(Box::new(BvhCratePeer::with_builder(mesh, true)))),
            _ => None,
        }
    }
}

impl fmt::Display for PeerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::{displaced_sphere, soup, RaySet, Workload};

    fn check_peers(mesh: &MeshData) {
        let mut rays = RaySet::Random.rays(Workload::Soup100k, mesh, 300);
        rays.extend(RaySet::Pick.rays(Workload::Soup100k, mesh, 300));
        let brute = BrutePeer::new(mesh);
        let expected: Vec<Option<f32>> = rays.iter().map(|r| brute.closest_hit(r)).collect();
        let hits = expected.iter().flatten().count();
        assert!(hits >= 10 && hits < rays.len(), "{hits} hits: a weak test");
        for kind in [
            PeerKind::Raypick,
            PeerKind::Parry,
            PeerKind::BvhCrate,
            PeerKind::Obvhs,
        ] {
            let peer = kind.build(mesh).unwrap();
            let mut bad = 0;
            for (r, e) in rays.iter().zip(&expected) {
                let got = peer.closest_hit(r);
                let ok = match (got, e) {
                    (Some(g), Some(e)) => (g - e).abs() <= 1e-4 * e.abs().max(1e-3),
                    (None, None) => true,
                    _ => false,
                };
                bad += usize::from(!ok || peer.any_hit(r) != e.is_some());
            }
            // obvhs' test is not watertight: allow a stray edge ray, no more.
            assert!(bad <= 1, "{kind}: {bad} mismatches");
        }
    }

    #[test]
    fn peers_agree_with_brute_force() {
        check_peers(&displaced_sphere(16, 24, 3));
        check_peers(&soup(3000, 21));
    }

    #[test]
    fn nearest_point_matches_brute_force() {
        let mesh = soup(200, 5);
        let brute = BrutePeer::new(&mesh);
        let parry = ParryPeer::new(&mesh).unwrap();
        let raypick = RaypickPeer::new(&mesh, false).unwrap();
        for i in 0..50 {
            let f = i as f32 / 50.0;
            let p = Point3::new(f, 1.0 - f, 0.3 + 0.5 * f);
            let (b, q) = (
                brute.nearest_point(&p).unwrap(),
                parry.nearest_point(&p).unwrap(),
            );
            assert!((b - q).abs() <= 1e-5 + 1e-4 * b, "{b} vs {q}");
            let r = raypick.nearest_point(&p).unwrap();
            assert!((b - r).abs() <= 1e-5 + 1e-4 * b, "{b} vs {r}");
        }
        // Hand-checked: straight above the middle of a unit triangle, and beyond a vertex.
        let (o, x, y) = (
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        );
        let cp = |p| closest_point_triangle(&p, &o, &x, &y);
        assert_eq!(
            cp(Point3::new(0.25, 0.25, 2.0)),
            Point3::new(0.25, 0.25, 0.0)
        );
        assert_eq!(cp(Point3::new(2.0, -1.0, 0.0)), x);
        assert_eq!(cp(Point3::new(1.0, 1.0, 0.0)), Point3::new(0.5, 0.5, 0.0));
    }
}
