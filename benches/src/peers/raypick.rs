//! raypick's `Mesh`, the peer the others are measured against.

use raypick_primitives::Point3;

use super::{Peer, PeerError};
use crate::workloads::{BenchRay, MeshData};

/// raypick's `Mesh` (balanced preset), watertight closest / any hit and nearest point.
pub struct RaypickPeer {
    mesh: raypick_query::Mesh,
    /// Timed through the batch queries ([`PeerKind::RaypickBatch`](super::PeerKind::RaypickBatch)).
    batched: bool,
    /// Rays and answers of the batch queries, reused across calls so that only the queries
    /// are timed.
    buffers: std::sync::Mutex<BatchBuffers>,
}

#[derive(Default)]
struct BatchBuffers {
    rays: Vec<raypick_primitives::Ray>,
    hits: Vec<Option<raypick_query::Hit>>,
    any: Vec<bool>,
}

impl BatchBuffers {
    /// The rays of `rays` and their shared query, or `None` when their `t_max` differ.
    fn load(&mut self, rays: &[BenchRay]) -> Option<raypick_query::RayQuery> {
        let t_max = rays.first()?.t_max;
        if rays.iter().any(|r| r.t_max.to_bits() != t_max.to_bits()) {
            return None;
        }
        self.rays.clear();
        self.rays.extend(rays.iter().map(|r| r.ray));
        Some(raypick_query::RayQuery::new(0.0, t_max))
    }
}

impl RaypickPeer {
    /// Builds the mesh with [`BuildConfig::balanced`](raypick_bvh::BuildConfig::balanced);
    /// `parallel` false builds on the calling thread only (`parallel_threshold = usize::MAX`).
    ///
    /// # Errors
    /// raypick's `MeshError` (bad index or non-finite vertex), as text.
    pub fn new(mesh: &MeshData, parallel: bool) -> Result<Self, PeerError> {
        let mut config = raypick_bvh::BuildConfig::balanced();
        if !parallel {
            config.parallel_threshold = usize::MAX;
        }
        raypick_query::Mesh::with_config(mesh.positions.clone(), mesh.triangles.clone(), &config)
            .map(|mesh| Self {
                mesh,
                batched: false,
                buffers: std::sync::Mutex::default(),
            })
            .map_err(|e| PeerError::Rejected {
                peer: "raypick",
                message: e.to_string(),
            })
    }

    /// The same peer timed through the batch queries ([`PeerKind::RaypickBatch`](super::PeerKind::RaypickBatch)).
    #[must_use]
    pub fn batched(self) -> Self {
        Self {
            batched: true,
            ..self
        }
    }

    /// The batch buffers holding `rays`, and their shared query: `None` unless this peer is
    /// timed through the batch queries and the rays share one `t_max`.
    fn batch(
        &self,
        rays: &[BenchRay],
    ) -> Option<(
        std::sync::MutexGuard<'_, BatchBuffers>,
        raypick_query::RayQuery,
    )> {
        if !self.batched {
            return None;
        }
        let mut b = self.buffers.lock().ok()?;
        let q = b.load(rays)?;
        Some((b, q))
    }

    /// The raypick mesh itself (for its batch queries).
    #[must_use]
    pub fn mesh(&self) -> &raypick_query::Mesh {
        &self.mesh
    }
}

impl Peer for RaypickPeer {
    fn name(&self) -> &'static str {
        if self.batched {
            "raypick-batch"
        } else {
            "raypick"
        }
    }

    fn closest_hit(&self, r: &BenchRay) -> Option<f32> {
        let q = raypick_query::RayQuery::new(0.0, r.t_max);
        self.mesh.closest_hit(&r.ray, &q).map(|h| h.t)
    }

    /// One `closest_hit_batch` over all the rays (they must share one `t_max`).
    fn closest_hits(&self, rays: &[BenchRay]) -> Option<(usize, f64)> {
        let (mut b, q) = self.batch(rays)?;
        let BatchBuffers { rays, hits, .. } = &mut *b;
        hits.resize(rays.len(), None);
        self.mesh.closest_hit_batch(rays, &q, hits).ok()?;
        Some(
            hits.iter()
                .flatten()
                .fold((0, 0.0), |(n, s), h| (n + 1, s + f64::from(h.t))),
        )
    }

    /// One `any_hit_batch` over all the rays (they must share one `t_max`).
    fn any_hits(&self, rays: &[BenchRay]) -> Option<usize> {
        let (mut b, q) = self.batch(rays)?;
        let BatchBuffers { rays, any, .. } = &mut *b;
        any.resize(rays.len(), false);
        self.mesh.any_hit_batch(rays, &q, any).ok()?;
        Some(any.iter().filter(|&&a| a).count())
    }

    fn has_any_hit(&self) -> bool {
        true
    }

    fn any_hit(&self, r: &BenchRay) -> bool {
        self.mesh
            .any_hit(&r.ray, &raypick_query::RayQuery::new(0.0, r.t_max))
    }

    fn has_nearest_point(&self) -> bool {
        true
    }

    fn nearest_point(&self, p: &Point3<f32>) -> Option<f32> {
        self.mesh
            .nearest_point(p, f32::INFINITY)
            .map(|n| n.distance)
    }

    fn memory_bytes(&self) -> Option<usize> {
        Some(self.mesh.memory_bytes())
    }
}
