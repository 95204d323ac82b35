//! Mesh instance against mesh instance: [`Mesh::intersects`](crate::Mesh::intersects),
//! [`Mesh::intersecting_pairs`](crate::Mesh::intersecting_pairs) and
//! [`Mesh::min_distance`](crate::Mesh::min_distance) under the instances' transforms.

use nalgebra::Matrix4;
use raypick_primitives::Real;

use super::{Geometry, InstanceId, Scene};
use crate::{Mesh, MeshDistance};

impl Scene {
    /// The mesh and world transform of a live mesh instance.
    fn placed_mesh(&self, id: InstanceId) -> Option<(&Mesh, Matrix4<Real>)> {
        let obj = self.slot_object(id.index())?;
        if self.id_of(id.index()) != id {
            return None;
        }
        match &obj.geometry {
            Geometry::Mesh { mesh, .. } => Some((mesh, obj.transform.matrix())),
            Geometry::Shape(_) => None,
        }
    }

    /// Whether mesh instances `a` and `b` touch in world space ([`Mesh::intersects`]).
    /// `None` when either is not a live mesh instance (removed, or a shape).
    #[must_use]
    pub fn instances_intersect(&self, a: InstanceId, b: InstanceId) -> Option<bool> {
        let ((ma, pa), (mb, pb)) = (self.placed_mesh(a)?, self.placed_mesh(b)?);
        Some(ma.intersects(&pa, mb, &pb))
    }

    /// The touching triangle pairs of mesh instances `a` and `b`
    /// ([`Mesh::intersecting_pairs`]), sorted. `None` as for
    /// [`Scene::instances_intersect`].
    #[must_use]
    pub fn intersecting_pairs(&self, a: InstanceId, b: InstanceId) -> Option<Vec<(u32, u32)>> {
        let ((ma, pa), (mb, pb)) = (self.placed_mesh(a)?, self.placed_mesh(b)?);
        Some(ma.intersecting_pairs(&pa, mb, &pb))
    }

    /// The world closest points of mesh instances `a` and `b` within `max_distance`
    /// ([`Mesh::min_distance`]). `None` as for [`Scene::instances_intersect`], or when
    /// nothing is within `max_distance`.
    #[must_use]
    pub fn instance_distance(
        &self,
        a: InstanceId,
        b: InstanceId,
        max_distance: Real,
    ) -> Option<MeshDistance> {
        let ((ma, pa), (mb, pb)) = (self.placed_mesh(a)?, self.placed_mesh(b)?);
        ma.min_distance(&pa, mb, &pb, max_distance)
    }
}
