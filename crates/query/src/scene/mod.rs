//! [`Scene`]: many mesh instances and analytic shapes under a top-level BVH, with ray,
//! nearest-point, pick, snap and marquee queries.
//!
//! - **Meshes** are added once ([`Scene::add_mesh`]) and shared by any number of
//!   **instances** ([`Scene::add_instance`]), each placed by an invertible affine transform
//!   (rotation, translation, non-uniform scale, mirroring).
//! - **Shapes** are parry3d [`SharedShape`]s ([`Scene::add_shape`]) cast with parry's own ray
//!   and point queries.
//! - Every object has a `u32` layer mask and a `u64` of user data.
//! - A top-level [`Bvh`] holds the objects' world boxes. Edits mark it stale;
//!   [`Scene::update`] refits it (only moves since the last update) or rebuilds it (objects
//!   added or removed). Queries on a stale scene stay **correct**: they test every object
//!   instead of the stale tree, so call `update` after a batch of edits for speed.
//!
//! Rays enter each instance in object space without normalization, so `t` is the same
//! number in world and object space. Normals go through the inverse transpose and come back
//! unit length in world space; front and back faces stay correct under mirroring.
//!
//! ```
//! use raypick_query::scene::{Scene, SceneQuery};
//! use raypick_query::Mesh;
//! use raypick_primitives::{Point3, Ray, Vector3};
//! use nalgebra::Matrix4;
//!
//! let tri = Mesh::new(
//!     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
//!     vec![[0, 1, 2]],
//! )
//! .unwrap();
//! let mut scene = Scene::new();
//! let mesh = scene.add_mesh(tri);
//! // Stretched 2x along x and moved 5 down -z.
//! let m = Matrix4::new_translation(&Vector3::new(0.0, 0.0, -5.0))
//!     * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 1.0, 1.0));
//! let inst = scene.add_instance(mesh, &m).unwrap();
//! scene.update();
//!
//! let ray = Ray::new(Point3::new(1.5, 0.2, 0.0), Vector3::new(0.0, 0.0, -1.0));
//! let hit = scene.closest_hit(&ray, &SceneQuery::default()).unwrap();
//! assert_eq!(hit.instance, inst);
//! assert_eq!(hit.t, 5.0);
//! assert_eq!(hit.triangle(), Some(0));
//! assert!((hit.normal.z - 1.0).abs() < 1e-6);
//! ```

// `!(x > 0.0)` is how this module says "not positive, or NaN": the negation is the point.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod coherent;
mod ids;
mod large;
mod large_batch;
mod large_solid;
mod marquee;
mod nearest;
mod pair;
mod pick;
mod prims;
mod prims_space;
mod query;
pub(crate) mod shape;
mod shared;
mod solid;
mod source;
mod top;
pub(crate) mod transform;

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix4};
/// The parry3d shape type that [`Scene::add_shape`] takes, re-exported so that callers need not
/// depend on parry3d themselves.
pub use parry3d::shape::SharedShape;
use raypick_bvh::Bvh;
use raypick_primitives::{Aabb, Point3, Real};

use crate::{Mesh, MeshError};
pub(crate) use source::MeshSource;
use transform::{is_finite_box, InstanceTransform};

pub use ids::{InstanceId, MeshId, SceneError};
pub use large::{RecentredMesh, SceneHit64};
pub use large_solid::{SceneNearest64, SceneSignedDistance64};
pub use marquee::{SelectMode, SelectOptions, Selected, Selection, VisibleSampling};
pub use nearest::SceneNearest;
pub use pick::{Pick, PickError, PickOptions, SnapEdge, SnapVertex};
pub use prims::{PrimData, PrimId, ScenePrimPick};
pub use prims_space::{ScenePrimNear, ScenePrimNearest, SelectedPrims};
pub use query::{Filter, HitGeometry, SceneHit, SceneQuery};
pub use shared::{SharedScene, Snapshot};
pub use solid::SceneSignedDistance;

#[derive(Clone)]
pub(crate) enum Geometry {
    Mesh {
        id: MeshId,
        mesh: Arc<Mesh>,
        source: Arc<MeshSource>,
    },
    Shape(SharedShape),
}

#[derive(Clone)]
pub(crate) struct Object {
    pub geometry: Geometry,
    pub transform: InstanceTransform,
    pub mask: u32,
    pub user_data: u64,
    pub world_box: Aabb,
}

#[derive(Clone)]
pub(crate) struct Slot {
    pub generation: u32,
    pub object: Option<Object>,
}

/// Meshes, their instances and shapes, with a top-level BVH; see the [module docs](self).
///
/// `Scene` is `Send + Sync`: queries take `&self` and may run from many threads; edits take
/// `&mut self`.
#[derive(Clone, Default)]
pub struct Scene {
    pub(crate) meshes: Vec<(Arc<Mesh>, Arc<MeshSource>)>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) free: Vec<u32>,
    pub(crate) live: usize,
    top: Option<Bvh>,
    /// The top-level tree's root box, for the ray queries' test of rays passing beside
    /// every object in it; set wherever the tree is built or refit.
    top_reach: crate::mesh::ray::RootReach,
    /// Slot of each top-level primitive (build order).
    top_slots: Vec<u32>,
    /// Slot of each top-level leaf-order position.
    top_leaf: Vec<u32>,
    /// Objects with an infinite world box (half-spaces): tested on every query.
    unbounded: Vec<u32>,
    /// Reused box buffer for refits.
    top_boxes: Vec<Aabb>,
    pub(crate) structure_dirty: bool,
    moved_dirty: bool,
    /// Set once a query met the stale state and warned (reset by [`Scene::update`]).
    warned_stale: top::WarnedOnce,
    /// Point and segment set instances ([`Scene::add_point_set`]).
    pub(crate) prims: Vec<prims::PrimSlot>,
}

impl std::fmt::Debug for Scene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scene")
            .field("meshes", &self.meshes.len())
            .field("objects", &self.live)
            .field("stale", &self.is_stale())
            .finish()
    }
}

impl Scene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a mesh to be instanced; the scene shares it (one BVH, many instances).
    ///
    /// The scene also keeps the mesh's index triples and used vertices by original index
    /// (12 bytes per vertex and per triangle, recovered from the mesh) for snapping
    /// ([`PickOptions::snap_radius`]) and world-space nearest points under non-uniform scale.
    pub fn add_mesh(&mut self, mesh: Mesh) -> MeshId {
        self.add_shared_mesh(Arc::new(mesh))
    }

    /// [`Scene::add_mesh`] for a mesh already behind an `Arc` (shared with other scenes).
    pub fn add_shared_mesh(&mut self, mesh: Arc<Mesh>) -> MeshId {
        let source = Arc::new(MeshSource::from_mesh(&mesh));
        self.meshes.push((mesh, source));
        MeshId((self.meshes.len() - 1) as u32)
    }

    /// Builds a [`Mesh`] from `positions` and `triangles` and adds it, as [`Scene::add_mesh`]
    /// does, but keeps the vertex data as given instead of recovering it from the mesh.
    ///
    /// # Errors
    /// The [`MeshError`] of [`Mesh::new`].
    pub fn add_mesh_with_source(
        &mut self,
        positions: Vec<Point3<Real>>,
        triangles: Vec<[u32; 3]>,
    ) -> Result<MeshId, MeshError> {
        let mesh = Mesh::new(positions.clone(), triangles.clone())?;
        self.meshes.push((
            Arc::new(mesh),
            Arc::new(MeshSource {
                positions,
                triangles,
            }),
        ));
        Ok(MeshId((self.meshes.len() - 1) as u32))
    }

    /// The mesh behind `id`, or `None` for a foreign id.
    #[must_use]
    pub fn mesh(&self, id: MeshId) -> Option<&Arc<Mesh>> {
        self.meshes.get(id.0 as usize).map(|m| &m.0)
    }

    /// The ids of the meshes added, in the order they were added.
    pub fn mesh_ids(&self) -> impl ExactSizeIterator<Item = MeshId> + '_ {
        (0..self.meshes.len() as u32).map(MeshId)
    }

    /// Adds an instance of `mesh` placed by `transform` (object to world), with layer mask
    /// `u32::MAX` and user data 0.
    ///
    /// Any invertible affine matrix works: rotation, translation, non-uniform scale,
    /// mirroring. Pass `affine.to_homogeneous()` or `isometry.to_homogeneous()` for nalgebra
    /// transforms.
    ///
    /// # Errors
    /// [`SceneError::UnknownMesh`], [`SceneError::NonFiniteTransform`],
    /// [`SceneError::ProjectiveTransform`] or [`SceneError::SingularTransform`].
    pub fn add_instance(
        &mut self,
        mesh: MeshId,
        transform: &Matrix4<Real>,
    ) -> Result<InstanceId, SceneError> {
        let (arc, source) = self
            .meshes
            .get(mesh.0 as usize)
            .ok_or(SceneError::UnknownMesh(mesh))?
            .clone();
        let transform = InstanceTransform::new(transform)?;
        let world_box = transform.box_to_world(&arc.bounds());
        Ok(self.insert(Object {
            geometry: Geometry::Mesh {
                id: mesh,
                mesh: arc,
                source,
            },
            transform,
            mask: u32::MAX,
            user_data: 0,
            world_box,
        }))
    }

    /// Adds an analytic shape (ball, cuboid, capsule, cylinder, cone, convex hull, half-space,
    /// ...) placed by `pose`, with layer mask `u32::MAX` and user data 0. Its ray and point
    /// queries are parry3d's own.
    ///
    /// # Errors
    /// [`SceneError::NonFiniteTransform`] for a NaN or infinite pose.
    pub fn add_shape(
        &mut self,
        shape: SharedShape,
        pose: &Isometry3<Real>,
    ) -> Result<InstanceId, SceneError> {
        let transform = InstanceTransform::new(&pose.to_homogeneous())?;
        let world_box = shape::shape_world_box(&shape, &transform);
        Ok(self.insert(Object {
            geometry: Geometry::Shape(shape),
            transform,
            mask: u32::MAX,
            user_data: 0,
            world_box,
        }))
    }

    fn insert(&mut self, object: Object) -> InstanceId {
        self.structure_dirty = true;
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.object = Some(object);
            InstanceId {
                index,
                generation: slot.generation,
            }
        } else {
            self.slots.push(Slot {
                generation: 0,
                object: Some(object),
            });
            InstanceId {
                index: (self.slots.len() - 1) as u32,
                generation: 0,
            }
        }
    }

    pub(crate) fn object(&self, id: InstanceId) -> Option<&Object> {
        self.slots
            .get(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.object.as_ref())
    }

    fn object_mut(&mut self, id: InstanceId) -> Result<&mut Object, SceneError> {
        self.slots
            .get_mut(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.object.as_mut())
            .ok_or(SceneError::UnknownInstance(id))
    }

    /// The id of the object in `slot` (which must be live).
    pub(crate) fn id_of(&self, slot: u32) -> InstanceId {
        InstanceId {
            index: slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    pub(crate) fn slot_object(&self, slot: u32) -> Option<&Object> {
        self.slots
            .get(slot as usize)
            .and_then(|s| s.object.as_ref())
    }

    /// Removes an object. Its id becomes unknown; the top-level tree is rebuilt at the next
    /// [`Scene::update`].
    ///
    /// # Errors
    /// [`SceneError::UnknownInstance`] for a foreign or already removed id.
    pub fn remove(&mut self, id: InstanceId) -> Result<(), SceneError> {
        self.object_mut(id)?;
        let slot = &mut self.slots[id.index as usize];
        slot.object = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.live -= 1;
        self.structure_dirty = true;
        Ok(())
    }

    /// Moves an object: `transform` replaces its object-to-world matrix. The top-level tree
    /// is refitted (not rebuilt) at the next [`Scene::update`].
    ///
    /// # Errors
    /// [`SceneError::UnknownInstance`], a transform error as in [`Scene::add_instance`], or
    /// [`SceneError::ShapeNeedsUniformScale`] for a shape given a non-uniform scale.
    pub fn set_transform(
        &mut self,
        id: InstanceId,
        transform: &Matrix4<Real>,
    ) -> Result<(), SceneError> {
        self.set_instance_transform(id, InstanceTransform::new(transform)?)
    }

    /// [`Scene::set_transform`] with an f64 matrix (large coordinates, see
    /// [`Scene::add_instance_f64`]).
    ///
    /// # Errors
    /// As [`Scene::set_transform`]; also [`SceneError::NonFiniteTransform`] when an entry
    /// overflows f32.
    pub fn set_transform_f64(
        &mut self,
        id: InstanceId,
        transform: &Matrix4<f64>,
    ) -> Result<(), SceneError> {
        self.set_instance_transform(id, InstanceTransform::new_f64(transform)?)
    }

    fn set_instance_transform(
        &mut self,
        id: InstanceId,
        t: InstanceTransform,
    ) -> Result<(), SceneError> {
        let obj = self.object_mut(id)?;
        let world_box = match &obj.geometry {
            Geometry::Mesh { mesh, .. } => t.box_to_world(&mesh.bounds()),
            Geometry::Shape(s) => {
                if t.uniform_scale.is_none() {
                    return Err(SceneError::ShapeNeedsUniformScale);
                }
                shape::shape_world_box(s, &t)
            }
        };
        let was_bounded = is_finite_box(&obj.world_box);
        obj.transform = t;
        obj.world_box = world_box;
        if was_bounded != is_finite_box(&world_box) {
            self.structure_dirty = true;
        } else {
            self.moved_dirty = true;
        }
        Ok(())
    }

    /// The object-to-world matrix of an object, or `None` for an unknown id.
    #[must_use]
    pub fn transform(&self, id: InstanceId) -> Option<Matrix4<Real>> {
        self.object(id).map(|o| o.transform.matrix())
    }

    /// The world box of an object, or `None` for an unknown id. Empty for an empty mesh,
    /// infinite for a half-space.
    #[must_use]
    pub fn world_box(&self, id: InstanceId) -> Option<Aabb> {
        self.object(id).map(|o| o.world_box)
    }

    /// The world box of every object with a finite box (half-spaces are left out, so that
    /// a camera can frame the rest); empty for an empty scene. Current after edits, without
    /// [`Scene::update`].
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.slots
            .iter()
            .filter_map(|s| s.object.as_ref())
            .map(|o| o.world_box)
            .filter(transform::is_finite_box)
            .fold(Aabb::default(), |acc, b| acc.union(&b))
    }

    /// Sets an object's layer mask. Queries see it when `mask & query.mask != 0`.
    ///
    /// # Errors
    /// [`SceneError::UnknownInstance`].
    pub fn set_mask(&mut self, id: InstanceId, mask: u32) -> Result<(), SceneError> {
        self.object_mut(id)?.mask = mask;
        Ok(())
    }

    /// An object's layer mask, or `None` for an unknown id.
    #[must_use]
    pub fn mask(&self, id: InstanceId) -> Option<u32> {
        self.object(id).map(|o| o.mask)
    }

    /// Sets an object's user data (reported in hits and passed to filters).
    ///
    /// # Errors
    /// [`SceneError::UnknownInstance`].
    pub fn set_user_data(&mut self, id: InstanceId, data: u64) -> Result<(), SceneError> {
        self.object_mut(id)?.user_data = data;
        Ok(())
    }

    /// An object's user data, or `None` for an unknown id.
    #[must_use]
    pub fn user_data(&self, id: InstanceId) -> Option<u64> {
        self.object(id).map(|o| o.user_data)
    }

    /// The mesh an object instances, or `None` for a shape or an unknown id.
    #[must_use]
    pub fn instance_mesh(&self, id: InstanceId) -> Option<MeshId> {
        match &self.object(id)?.geometry {
            Geometry::Mesh { id, .. } => Some(*id),
            Geometry::Shape(_) => None,
        }
    }

    /// The shape of an object, or `None` for a mesh instance or an unknown id.
    #[must_use]
    pub fn shape(&self, id: InstanceId) -> Option<&SharedShape> {
        match &self.object(id)?.geometry {
            Geometry::Mesh { .. } => None,
            Geometry::Shape(s) => Some(s),
        }
    }

    /// The number of objects (instances and shapes).
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the scene has no objects.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The ids of all objects, in slot order.
    pub fn instances(&self) -> impl Iterator<Item = InstanceId> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.object.is_some())
            .map(|(i, s)| InstanceId {
                index: i as u32,
                generation: s.generation,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Scene>();
    }
}
