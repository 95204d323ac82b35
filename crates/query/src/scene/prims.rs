//! Point sets and segment sets as scene objects: shared data, each instance under its own
//! transform, with a layer mask and user data, picked under the cursor with a tolerance in
//! pixels and hidden by the scene's surfaces.
//!
//! They have no area, so ray queries (`closest_hit`, ...) do not see them; [`Scene::pick`]
//! reports them beside the surface it hits ([`Pick::prim`](super::Pick::prim)), and [`Scene::pick_prims`] picks
//! them alone.

use std::sync::Arc;

use nalgebra::{Matrix4, Point3 as P3};
use raypick_primitives::{Ray, Real};

use super::transform::InstanceTransform;
use super::{Scene, SceneError, SceneQuery};
use crate::camera::{Camera, Viewport};
use crate::points::{Occluder, PickConfig, PointSet, PrimPick, SegmentSet};

/// A point set or segment set placed in a [`Scene`] ([`Scene::add_point_set`],
/// [`Scene::add_segment_set`]). Stale ids (removed) are unknown, as for instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrimId {
    index: u32,
    generation: u32,
}

impl PrimId {
    /// The slot index (reused after removal, with a new generation).
    #[must_use]
    pub fn index(self) -> u32 {
        self.index
    }
}

/// A set-instance slot as saved (see [`Scene::prim_slots`]).
pub(crate) type SavedPrimSlot<'a> = (u32, Option<(&'a PrimData, &'a Matrix4<f64>, u32, u64)>);

/// The data of a placed set, shared between its instances.
#[derive(Clone, Debug)]
pub enum PrimData {
    /// A point cloud.
    Points(Arc<PointSet>),
    /// Line segments.
    Segments(Arc<SegmentSet>),
}

#[derive(Clone)]
pub(crate) struct PrimObject {
    pub(super) data: PrimData,
    pub(super) transform: InstanceTransform,
    pub(super) mask: u32,
    pub(super) user_data: u64,
}

#[derive(Clone, Default)]
pub(crate) struct PrimSlot {
    generation: u32,
    object: Option<PrimObject>,
}

/// A point or segment picked in a scene: which set instance, the pick (its point in world
/// space), and the set's user data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenePrimPick {
    /// The set instance.
    pub id: PrimId,
    /// Kind, index, parameter along a segment, the world point (f64), pixel distance and
    /// view-space depth.
    pub pick: PrimPick,
    /// The set's user data.
    pub user_data: u64,
}

/// The scene's surfaces seen from an instance's frame: a ray in that frame, moved to the
/// world (its `t` unchanged by the affine map), blocked by whatever `query` accepts.
pub(super) struct PlacedOccluder<'a> {
    pub(super) scene: &'a Scene,
    pub(super) transform: &'a InstanceTransform,
    pub(super) query: SceneQuery<'a>,
}

impl Occluder for PlacedOccluder<'_> {
    fn blocks(&self, ray: &Ray, t_max: Real) -> bool {
        let t = self.transform;
        let world = Ray::new(
            P3::from(t.linear * ray.origin.coords + t.translation),
            t.linear * ray.dir,
        );
        self.scene.any_hit(
            &world,
            &SceneQuery {
                t_max,
                ..self.query
            },
        )
    }
}

impl Scene {
    /// Adds an instance of a point set placed by `transform` (object to world; any
    /// invertible affine matrix), with mask `u32::MAX` and user data 0. The set is shared,
    /// not copied.
    ///
    /// # Errors
    /// The transform errors of [`Scene::add_instance`].
    pub fn add_point_set(
        &mut self,
        set: Arc<PointSet>,
        transform: &Matrix4<Real>,
    ) -> Result<PrimId, SceneError> {
        self.add_prims(PrimData::Points(set), transform)
    }

    /// [`Scene::add_point_set`] for a segment set.
    ///
    /// # Errors
    /// As [`Scene::add_point_set`].
    pub fn add_segment_set(
        &mut self,
        set: Arc<SegmentSet>,
        transform: &Matrix4<Real>,
    ) -> Result<PrimId, SceneError> {
        self.add_prims(PrimData::Segments(set), transform)
    }

    fn add_prims(
        &mut self,
        data: PrimData,
        transform: &Matrix4<Real>,
    ) -> Result<PrimId, SceneError> {
        let object = PrimObject {
            data,
            transform: InstanceTransform::new(transform)?,
            mask: u32::MAX,
            user_data: 0,
        };
        if let Some(index) = self.prims.iter().position(|s| s.object.is_none()) {
            let slot = &mut self.prims[index];
            slot.object = Some(object);
            return Ok(PrimId {
                index: index as u32,
                generation: slot.generation,
            });
        }
        self.prims.push(PrimSlot {
            generation: 0,
            object: Some(object),
        });
        Ok(PrimId {
            index: (self.prims.len() - 1) as u32,
            generation: 0,
        })
    }

    fn prim_mut(&mut self, id: PrimId) -> Result<&mut PrimObject, SceneError> {
        self.prims
            .get_mut(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.object.as_mut())
            .ok_or(SceneError::UnknownPrims(id))
    }

    fn prim(&self, id: PrimId) -> Option<&PrimObject> {
        self.prims
            .get(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.object.as_ref())
    }

    /// Removes a point or segment set instance; its id becomes unknown.
    ///
    /// # Errors
    /// [`SceneError::UnknownPrims`] for a foreign or removed id.
    pub fn remove_prims(&mut self, id: PrimId) -> Result<(), SceneError> {
        self.prim_mut(id)?;
        let slot = &mut self.prims[id.index as usize];
        slot.object = None;
        slot.generation = slot.generation.wrapping_add(1);
        Ok(())
    }

    /// Moves a point or segment set instance.
    ///
    /// # Errors
    /// [`SceneError::UnknownPrims`], or a transform error as in [`Scene::add_instance`].
    pub fn set_prims_transform(
        &mut self,
        id: PrimId,
        transform: &Matrix4<Real>,
    ) -> Result<(), SceneError> {
        let t = InstanceTransform::new(transform)?;
        self.prim_mut(id)?.transform = t;
        Ok(())
    }

    /// Sets the layer mask of a point or segment set instance.
    ///
    /// # Errors
    /// [`SceneError::UnknownPrims`].
    pub fn set_prims_mask(&mut self, id: PrimId, mask: u32) -> Result<(), SceneError> {
        self.prim_mut(id)?.mask = mask;
        Ok(())
    }

    /// Sets the user data of a point or segment set instance.
    ///
    /// # Errors
    /// [`SceneError::UnknownPrims`].
    pub fn set_prims_user_data(&mut self, id: PrimId, data: u64) -> Result<(), SceneError> {
        self.prim_mut(id)?.user_data = data;
        Ok(())
    }

    /// The live point and segment set instances, in id order.
    pub fn prim_ids(&self) -> impl Iterator<Item = PrimId> + '_ {
        self.prim_objects(u32::MAX).map(|(id, _)| id)
    }

    /// The user data of a point or segment set instance; `None` for an unknown id.
    #[must_use]
    pub fn prims_user_data(&self, id: PrimId) -> Option<u64> {
        self.prim(id).map(|o| o.user_data)
    }

    /// The data and the object-to-world matrix of a point or segment set instance.
    #[must_use]
    pub fn prims(&self, id: PrimId) -> Option<(&PrimData, Matrix4<Real>)> {
        self.prim(id).map(|o| (&o.data, o.transform.matrix()))
    }

    /// The live point and segment set instances whose mask meets `mask`, in id order.
    pub(super) fn prim_objects(&self, mask: u32) -> impl Iterator<Item = (PrimId, &PrimObject)> {
        self.prims
            .iter()
            .enumerate()
            .filter_map(move |(index, slot)| {
                let o = slot.object.as_ref().filter(|o| o.mask & mask != 0)?;
                let id = PrimId {
                    index: index as u32,
                    generation: slot.generation,
                };
                Some((id, o))
            })
    }

    /// The camera seen from an instance's frame: world-to-view after object-to-world.
    pub(super) fn local_camera(camera: &Camera, o: &PrimObject) -> Option<Camera> {
        let view = camera.view_matrix() * o.transform.m64;
        Camera::from_matrices_f64(&view, &camera.projection_matrix(), camera.convention()).ok()
    }

    /// Every set-instance slot as saved: its generation, and for a live one the set, the
    /// f64 object-to-world matrix, the mask and the user data.
    pub(crate) fn prim_slots(&self) -> impl Iterator<Item = SavedPrimSlot<'_>> {
        self.prims.iter().map(|s| {
            let o = s
                .object
                .as_ref()
                .map(|o| (&o.data, &o.transform.m64, o.mask, o.user_data));
            (s.generation, o)
        })
    }

    /// Appends a set-instance slot as loaded (see [`Scene::prim_slots`]).
    ///
    /// # Errors
    /// The transform errors of [`Scene::add_instance`].
    pub(crate) fn push_prim_slot(
        &mut self,
        generation: u32,
        object: Option<(PrimData, Matrix4<f64>, u32, u64)>,
    ) -> Result<(), SceneError> {
        let object = match object {
            Some((data, m, mask, user_data)) => Some(PrimObject {
                data,
                transform: InstanceTransform::new_f64(&m)?,
                mask,
                user_data,
            }),
            None => None,
        };
        self.prims.push(PrimSlot { generation, object });
        Ok(())
    }

    /// True when the scene holds point or segment sets.
    pub(crate) fn has_prims(&self) -> bool {
        self.prims.iter().any(|s| s.object.is_some())
    }

    /// The point or segment whose projection lies within `config.radius_px` of window
    /// position `(x, y)`, over every point and segment set instance `query` accepts (by
    /// mask), nearest the camera; unless `config.xray`, one hidden by a surface the query
    /// accepts is passed over. Ties go to the lower pixel distance, then the lower id.
    /// `None` when nothing is within the tolerance.
    #[must_use]
    pub fn pick_prims(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: f64,
        y: f64,
        config: &PickConfig,
        query: &SceneQuery<'_>,
    ) -> Option<ScenePrimPick> {
        let mut best: Option<ScenePrimPick> = None;
        for (id, o) in self.prim_objects(query.mask) {
            let Some(local) = Self::local_camera(camera, o) else {
                continue;
            };
            let occluder = PlacedOccluder {
                scene: self,
                transform: &o.transform,
                query: *query,
            };
            let hit = match &o.data {
                PrimData::Points(s) => s.pick(&local, viewport, x, y, config, Some(&occluder)),
                PrimData::Segments(s) => s.pick(&local, viewport, x, y, config, Some(&occluder)),
            };
            let Some(mut h) = hit else { continue };
            h.point = o.transform.m64.transform_point(&h.point);
            let c = ScenePrimPick {
                id,
                pick: h,
                user_data: o.user_data,
            };
            let key = |p: &ScenePrimPick| (p.pick.depth, p.pick.pixel_distance, p.id);
            let better = best.as_ref().is_none_or(|b| key(&c) < key(b));
            if better {
                best = Some(c);
            }
        }
        best
    }
}
