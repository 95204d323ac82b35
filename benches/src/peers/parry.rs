//! parry3d's `TriMesh` with its own ray cast and point projection.

use raypick_primitives::Point3;

use super::{Peer, PeerError};
use crate::workloads::{BenchRay, MeshData};

/// parry3d 0.25 `TriMesh` (no optional flags), queried in its local frame.
pub struct ParryPeer {
    mesh: parry3d::shape::TriMesh,
}

impl ParryPeer {
    /// Builds the `TriMesh` (clones the buffers, as a parry user handing over owned data would).
    ///
    /// # Errors
    /// parry rejects empty meshes.
    pub fn new(mesh: &MeshData) -> Result<Self, PeerError> {
        parry3d::shape::TriMesh::new(mesh.positions.clone(), mesh.triangles.clone())
            .map(|mesh| Self { mesh })
            .map_err(|e| PeerError::Rejected {
                peer: "parry3d",
                message: format!("{e:?}"),
            })
    }
}

fn parry_ray(r: &BenchRay) -> parry3d::query::Ray {
    parry3d::query::Ray::new(r.ray.origin, r.ray.dir)
}

impl Peer for ParryPeer {
    fn name(&self) -> &'static str {
        "parry3d"
    }

    fn closest_hit(&self, r: &BenchRay) -> Option<f32> {
        use parry3d::query::RayCast;
        // parry's time of impact is in units of the direction as given (origin + dir * toi).
        self.mesh.cast_local_ray(&parry_ray(r), r.t_max, true)
    }

    fn has_any_hit(&self) -> bool {
        // `intersects_local_ray` exists, but for a TriMesh it is `cast_local_ray(..).is_some()`.
        true
    }

    fn any_hit(&self, r: &BenchRay) -> bool {
        use parry3d::query::RayCast;
        self.mesh.intersects_local_ray(&parry_ray(r), r.t_max)
    }

    fn has_nearest_point(&self) -> bool {
        true
    }

    fn nearest_point(&self, p: &Point3<f32>) -> Option<f32> {
        use parry3d::query::PointQuery;
        // solid = false: the distance to the surface, also from inside.
        let proj = self.mesh.project_local_point(p, false);
        Some((proj.point - p).norm())
    }

    fn memory_bytes(&self) -> Option<usize> {
        Some(self.mesh.total_memory_size())
    }
}
