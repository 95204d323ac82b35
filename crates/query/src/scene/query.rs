//! Ray queries over a [`Scene`]: closest hit, any hit, all hits, and their batches.

use std::ops::ControlFlow;

use parry3d::shape::FeatureId;

use raypick_primitives::{Cull, Point3, Ray, Real, Unit, Vector3};

use super::{shape, Geometry, InstanceId, MeshId, Object, Scene, SceneError};
use crate::{Hit, RayQuery};

/// A filter that accepts (`true`) or rejects an object by id and user data.
pub type Filter<'a> = &'a (dyn Fn(InstanceId, u64) -> bool + Sync);

/// The interval, culling and object filters of a scene query.
///
/// Defaults: `t` in `0..=inf`, no culling, mask `u32::MAX` (every layer), no filter. An
/// object takes part when `object.mask & query.mask != 0` and the filter (if any) accepts
/// it. An empty or NaN interval finds nothing.
#[derive(Clone, Copy)]
pub struct SceneQuery<'a> {
    /// The smallest `t` that counts. Default 0.
    pub t_min: Real,
    /// The largest `t` that counts. Default `+inf`.
    pub t_max: Real,
    /// Which faces to ignore. Faces keep their object-space sides (see [`SceneHit`]).
    /// Default [`Cull::None`].
    pub cull: Cull,
    /// Layer mask. Default `u32::MAX`.
    pub mask: u32,
    /// Optional per-object filter. Default `None`.
    pub filter: Option<Filter<'a>>,
}

impl Default for SceneQuery<'_> {
    fn default() -> Self {
        Self {
            t_min: 0.0,
            t_max: Real::INFINITY,
            cull: Cull::None,
            mask: u32::MAX,
            filter: None,
        }
    }
}

impl From<RayQuery> for SceneQuery<'_> {
    /// The scene query with `q`'s interval and culling, every layer, no filter.
    fn from(q: RayQuery) -> Self {
        SceneQuery::new(q.t_min, q.t_max).with_cull(q.cull)
    }
}

impl std::fmt::Debug for SceneQuery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SceneQuery")
            .field("t_min", &self.t_min)
            .field("t_max", &self.t_max)
            .field("cull", &self.cull)
            .field("mask", &self.mask)
            .field("filter", &self.filter.is_some())
            .finish()
    }
}

impl<'a> SceneQuery<'a> {
    /// A query over `[t_min, t_max]`, otherwise default.
    #[must_use]
    pub fn new(t_min: Real, t_max: Real) -> Self {
        Self {
            t_min,
            t_max,
            ..Self::default()
        }
    }

    /// This query with face culling `cull`.
    #[must_use]
    pub fn with_cull(self, cull: Cull) -> Self {
        Self { cull, ..self }
    }

    /// The part a mesh query takes: interval and culling (mask and filter select objects,
    /// which a mesh has not). The one place a scene query becomes a mesh query.
    #[must_use]
    #[inline]
    pub fn ray_query(&self) -> RayQuery {
        RayQuery {
            t_min: self.t_min,
            t_max: self.t_max,
            cull: self.cull,
        }
    }

    /// This query with layer mask `mask`.
    #[must_use]
    pub fn with_mask(self, mask: u32) -> Self {
        Self { mask, ..self }
    }

    /// This query with an object filter.
    #[must_use]
    pub fn with_filter(self, filter: Filter<'a>) -> Self {
        Self {
            filter: Some(filter),
            ..self
        }
    }

    pub(crate) fn accepts(&self, id: InstanceId, obj: &Object) -> bool {
        obj.mask & self.mask != 0 && self.filter.is_none_or(|f| f(id, obj.user_data))
    }
}

/// What a scene hit landed on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HitGeometry {
    /// A triangle of an instanced mesh.
    Triangle {
        /// The instanced mesh.
        mesh: MeshId,
        /// The triangle's original index in the mesh.
        triangle: u32,
        /// Barycentric weight of the triangle's second corner.
        u: Real,
        /// Barycentric weight of the third corner (the first's is `1 - u - v`).
        v: Real,
    },
    /// A parry3d shape.
    Shape {
        /// The feature parry reports (often [`FeatureId::Unknown`]).
        feature: FeatureId,
    },
}

/// A ray hit in a scene.
///
/// `normal` is the object-space normal taken through the inverse transpose and normalized:
/// for a triangle the normal `(b - a) x (c - a)` of its object-space corners, for a shape
/// the outward normal. Faces keep their object-space sides: under a mirroring transform the
/// outside of a closed mesh is still its front, as renderers arrange by flipping the
/// winding for negative-determinant transforms (the world-space winding `(b' - a') x
/// (c' - a')` then points against `normal`). For shapes `front_face` means the ray enters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The object hit.
    pub instance: InstanceId,
    /// The mesh triangle or shape hit.
    pub geometry: HitGeometry,
    /// Ray parameter, in units of the world ray's direction (the same in object space).
    pub t: Real,
    /// The world hit point.
    pub point: Point3<Real>,
    /// The world unit normal (see above).
    pub normal: Unit<Vector3<Real>>,
    /// True when the ray hit the front face (against `normal`).
    pub front_face: bool,
    /// The object's user data.
    pub user_data: u64,
}

impl SceneHit {
    /// The triangle's original index for a mesh hit, `None` for a shape.
    #[must_use]
    pub fn triangle(&self) -> Option<u32> {
        match self.geometry {
            HitGeometry::Triangle { triangle, .. } => Some(triangle),
            HitGeometry::Shape { .. } => None,
        }
    }

    /// The mesh for a mesh hit, `None` for a shape.
    #[must_use]
    pub fn mesh(&self) -> Option<MeshId> {
        match self.geometry {
            HitGeometry::Triangle { mesh, .. } => Some(mesh),
            HitGeometry::Shape { .. } => None,
        }
    }

    /// The barycentrics `(u, v)` for a mesh hit, `None` for a shape.
    #[must_use]
    pub fn barycentrics(&self) -> Option<(Real, Real)> {
        match self.geometry {
            HitGeometry::Triangle { u, v, .. } => Some((u, v)),
            HitGeometry::Shape { .. } => None,
        }
    }
}

/// Orders hits by `t`, then instance, then triangle: the deterministic tie-break.
pub(super) fn before(a: &SceneHit, b: &SceneHit) -> bool {
    (a.t, a.instance, a.triangle()) < (b.t, b.instance, b.triangle())
}

fn world_normal(obj: &Object, n: &Vector3<Real>, ray: &Ray) -> Unit<Vector3<Real>> {
    obj.transform
        .normal_to_world(n)
        .or_else(|| Unit::try_new(-ray.dir, 0.0))
        .unwrap_or_else(Vector3::z_axis)
}

impl Scene {
    pub(crate) fn mesh_hit(&self, id: InstanceId, obj: &Object, mesh: MeshId, h: &Hit) -> SceneHit {
        SceneHit {
            instance: id,
            geometry: HitGeometry::Triangle {
                mesh,
                triangle: h.triangle,
                u: h.u,
                v: h.v,
            },
            t: h.t,
            point: obj.transform.point_to_world(&h.point),
            normal: obj.transform.unit_normal_to_world(&h.normal),
            front_face: h.front_face,
            user_data: obj.user_data,
        }
    }

    pub(crate) fn shape_hit(
        &self,
        id: InstanceId,
        obj: &Object,
        ray: &Ray,
        h: &shape::ShapeHit,
    ) -> SceneHit {
        SceneHit {
            instance: id,
            geometry: HitGeometry::Shape { feature: h.feature },
            t: h.t,
            point: ray.at(h.t),
            normal: world_normal(obj, &h.normal, ray),
            front_face: h.front_face,
            user_data: obj.user_data,
        }
    }

    /// The closest hit on one object in `[t_min, t_max]`.
    pub(crate) fn hit_object(
        &self,
        id: InstanceId,
        obj: &Object,
        ray: &Ray,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<SceneHit> {
        let local = obj.transform.ray_to_object(ray);
        match &obj.geometry {
            Geometry::Mesh { id: mid, mesh, .. } => {
                let q = RayQuery { t_min, t_max, cull };
                let h = mesh.closest_hit(&local, &q)?;
                Some(self.mesh_hit(id, obj, *mid, &h))
            }
            Geometry::Shape(s) => {
                let h = if cull == Cull::None {
                    shape::cast(s, &local, t_min, t_max)
                } else {
                    let mut first = None;
                    shape::cast_all(s, &local, t_min, t_max, |h| {
                        if first.is_none() && passes_cull(h.front_face, cull) {
                            first = Some(h);
                        }
                    });
                    first
                }?;
                Some(self.shape_hit(id, obj, ray, &h))
            }
        }
    }

    /// Calls `visit(slot, &mut t_max)` for every object the ray may hit within
    /// `[t_min, *t_max]`, through the top-level tree when it is fresh.
    pub(crate) fn visit_ray<F>(&self, ray: &Ray, t_min: Real, t_max: Real, mut visit: F)
    where
        F: FnMut(u32, &mut Real) -> ControlFlow<()>,
    {
        let mut t_max = t_max;
        let mut stopped = false;
        // A ray passing beside every object of the tree skips it (and its preparation).
        if let Some(bvh) = self
            .fresh_top()
            .filter(|_| !self.top_reach().misses(ray, t_min))
        {
            let leaf = self.top_leaf();
            if let [root] = bvh.nodes() {
                if root.count == 1 {
                    // One object: its own query rejects what the root's box test would (its
                    // mesh's reach test before preparing the ray), so the box test and its
                    // ray preparation (about 90 instructions) are skipped.
                    if visit(leaf[root.index as usize], &mut t_max).is_break() {
                        return;
                    }
                    self.for_each_extra_slot(|slot| visit(slot, &mut t_max));
                    return;
                }
            }
            // The boxes are tested on the interval widened past the rounding of the objects'
            // `t`, so that an object hit at exactly `t_min` or the current `t_max` is still
            // visited.
            let (o, d) = (ray.origin, ray.dir);
            let widen = |t_max| {
                crate::mesh::traversal_range(t_min, t_max, || {
                    crate::mesh::ray_extent(&bvh.bounds(), [o.x, o.y, o.z], [d.x, d.y, d.z])
                })
            };
            let (lo, hi) = widen(t_max);
            bvh.traverse_ray(ray, lo, hi, |range, tm| {
                for pos in range {
                    if visit(leaf[pos], &mut t_max).is_break() {
                        stopped = true;
                        return ControlFlow::Break(());
                    }
                }
                *tm = widen(t_max).1;
                ControlFlow::Continue(())
            });
        }
        if stopped {
            return;
        }
        self.for_each_extra_slot(|slot| visit(slot, &mut t_max));
    }

    /// The nearest hit over all objects that pass the query's mask and filter, with
    /// `query.t_min <= t <= query.t_max`, or `None`.
    ///
    /// Among hits at exactly the same `t` the lowest [`InstanceId`] wins (then, within a
    /// mesh, the lowest triangle). A ray with a NaN, an infinity or a zero direction, and an
    /// empty or NaN interval, find nothing. Allocates nothing.
    #[must_use]
    pub fn closest_hit(&self, ray: &Ray, query: &SceneQuery<'_>) -> Option<SceneHit> {
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return None;
        }
        let mut best: Option<SceneHit> = None;
        let mut best_t = query.t_max;
        self.visit_ray(ray, query.t_min, query.t_max, |slot, tm| {
            let id = self.id_of(slot);
            let Some(obj) = self.slot_object(slot) else {
                return ControlFlow::Continue(());
            };
            if query.accepts(id, obj) {
                if let Some(h) = self.hit_object(id, obj, ray, query.t_min, best_t, query.cull) {
                    if best.as_ref().is_none_or(|b| before(&h, b)) {
                        best_t = h.t;
                        best = Some(h);
                    }
                }
            }
            *tm = best_t;
            ControlFlow::Continue(())
        });
        best
    }

    /// True when some object that passes the query's filters is hit within the interval;
    /// stops at the first hit found (occlusion and shadow tests). Allocates nothing.
    #[must_use]
    pub fn any_hit(&self, ray: &Ray, query: &SceneQuery<'_>) -> bool {
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return false;
        }
        let mut found = false;
        self.visit_ray(ray, query.t_min, query.t_max, |slot, _| {
            let id = self.id_of(slot);
            let Some(obj) = self.slot_object(slot) else {
                return ControlFlow::Continue(());
            };
            if query.accepts(id, obj)
                && self.object_any_hit(obj, &obj.transform.ray_to_object(ray), query)
            {
                found = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        found
    }

    /// Whether `local` (a ray in `obj`'s frame) hits `obj` as `query` asks.
    pub(crate) fn object_any_hit(&self, obj: &Object, local: &Ray, query: &SceneQuery<'_>) -> bool {
        match &obj.geometry {
            Geometry::Mesh { mesh, .. } => mesh.any_hit(local, &query.ray_query()),
            Geometry::Shape(s) => {
                if query.cull == Cull::None {
                    shape::cast(s, local, query.t_min, query.t_max).is_some()
                } else {
                    let mut any = false;
                    shape::cast_all(s, local, query.t_min, query.t_max, |h| {
                        any |= passes_cull(h.front_face, query.cull);
                    });
                    any
                }
            }
        }
    }

    /// Every crossing of the ray with the objects that pass the filters, sorted by `t` (ties
    /// by instance, then triangle). Within a mesh, one crossing per surface crossing as in
    /// [`crate::Mesh::all_hits`]; across objects nothing is merged (two overlapping objects
    /// are two surfaces). Shapes report their crossings by repeated casts (see
    /// [`Scene::all_hits_into`]).
    #[must_use]
    pub fn all_hits(&self, ray: &Ray, query: &SceneQuery<'_>) -> Vec<SceneHit> {
        let mut out = Vec::new();
        self.all_hits_into(ray, query, &mut out);
        out
    }

    /// [`Scene::all_hits`] into a reused vector (cleared first).
    ///
    /// A shape's crossings come from parry's first-hit cast repeated from just past each
    /// crossing (a step of 1e-4 of the shape's size, see the shape notes), at most 64 per
    /// shape.
    pub fn all_hits_into(&self, ray: &Ray, query: &SceneQuery<'_>, out: &mut Vec<SceneHit>) {
        out.clear();
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return;
        }
        let mut tmp: Vec<Hit> = Vec::new();
        let rq = query.ray_query();
        self.visit_ray(ray, query.t_min, query.t_max, |slot, _| {
            let id = self.id_of(slot);
            let Some(obj) = self.slot_object(slot) else {
                return ControlFlow::Continue(());
            };
            if !query.accepts(id, obj) {
                return ControlFlow::Continue(());
            }
            let local = obj.transform.ray_to_object(ray);
            match &obj.geometry {
                Geometry::Mesh { id: mid, mesh, .. } => {
                    mesh.all_hits_into(&local, &rq, &mut tmp);
                    out.extend(tmp.iter().map(|h| self.mesh_hit(id, obj, *mid, h)));
                }
                Geometry::Shape(s) => {
                    shape::cast_all(s, &local, query.t_min, query.t_max, |h| {
                        if passes_cull(h.front_face, query.cull) {
                            out.push(self.shape_hit(id, obj, ray, &h));
                        }
                    });
                }
            }
            ControlFlow::Continue(())
        });
        out.sort_by(|a, b| {
            a.t.total_cmp(&b.t)
                .then(a.instance.cmp(&b.instance))
                .then(a.triangle().cmp(&b.triangle()))
        });
    }

    /// [`Scene::closest_hit`] for every ray, in parallel with rayon: `out[i]` gets exactly
    /// ray `i`'s single-ray answer.
    ///
    /// A scene whose only object is an instance of a mesh large enough for
    /// [`Mesh::closest_hit_batch`](crate::Mesh::closest_hit_batch) to stream (300,000
    /// triangles or more) hands the batch to that mesh, in the instance's frame, so that it
    /// gains as the mesh's own batch does. The query's filter is then asked once for the
    /// batch rather than once per ray, and two buffers are allocated per batch (the rays in
    /// the instance's frame, the mesh's hits). Other scenes answer a batch of 4,096 rays
    /// or more that is an image's rows (found from the rays, see
    /// [`row_width`](crate::image_rows::row_width)) in 4 x 4 tiles, as
    /// [`Scene::closest_hit_coherent`] answers tiles, with a buffer per task; any other
    /// batch one ray at a time, allocating nothing.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] (touching nothing) when the lengths differ.
    pub fn closest_hit_batch(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [Option<SceneHit>],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        if let Some(sole) = self.sole_streamed_mesh(query) {
            let local = sole.local_rays(self, rays, query);
            let mut hits = vec![None; rays.len()];
            sole.mesh
                .closest_hit_batch(&local, &query.ray_query(), &mut hits)
                .map_err(|_| unequal(rays.len()))?;
            crate::par::fill_from(&hits, out, |h| {
                h.map(|h| self.mesh_hit(sole.id, sole.obj, sole.mesh_id, &h))
            });
        } else {
            crate::par::fill_rows_or_each(
                rays,
                out,
                |ray| self.closest_hit(ray, query),
                |rays, out| self.closest_hit_tile(rays, query, out),
            );
        }
        Ok(())
    }

    /// [`Scene::any_hit`] for every ray, in parallel; the contract of
    /// [`Scene::closest_hit_batch`], including its hand-over to a sole large mesh.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] when the lengths differ.
    pub fn any_hit_batch(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [bool],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        if let Some(sole) = self.sole_streamed_mesh(query) {
            let local = sole.local_rays(self, rays, query);
            sole.mesh
                .any_hit_batch(&local, &query.ray_query(), out)
                .map_err(|_| unequal(rays.len()))?;
        } else {
            crate::par::fill_rows_or_each(
                rays,
                out,
                |ray| self.any_hit(ray, query),
                |rays, out| self.any_hit_tile(rays, query, out),
            );
        }
        Ok(())
    }
}

/// The only object of a scene, an instance of a mesh whose batches stream, that passes a
/// query's mask and filter: batches over the scene are batches over that mesh.
pub(super) struct SoleMesh<'s> {
    pub id: InstanceId,
    pub obj: &'s Object,
    pub mesh_id: MeshId,
    pub mesh: &'s crate::Mesh,
}

impl Scene {
    pub(super) fn sole_streamed_mesh(&self, query: &SceneQuery<'_>) -> Option<SoleMesh<'_>> {
        if self.len() != 1 {
            return None;
        }
        let id = self.instances().next()?;
        let obj = self.object(id)?;
        match &obj.geometry {
            Geometry::Mesh {
                id: mesh_id, mesh, ..
            } if mesh.streams() && query.accepts(id, obj) => Some(SoleMesh {
                id,
                obj,
                mesh_id: *mesh_id,
                mesh,
            }),
            _ => None,
        }
    }
}

impl SoleMesh<'_> {
    /// Each ray in the instance's frame where the single-ray query would test the mesh
    /// with it (a valid ray and interval, through the top-level tree's box test), and a
    /// zero-direction ray, which finds nothing, where it would not.
    fn local_rays(&self, scene: &Scene, rays: &[Ray], query: &SceneQuery<'_>) -> Vec<Ray> {
        use rayon::prelude::*;
        rays.par_iter()
            .map(|ray| {
                let mut visited = false;
                if ray.is_valid() && query.t_min <= query.t_max {
                    scene.visit_ray(ray, query.t_min, query.t_max, |_, _| {
                        visited = true;
                        ControlFlow::Break(())
                    });
                }
                if visited {
                    self.obj.transform.ray_to_object(ray)
                } else {
                    Ray::new(Point3::origin(), Vector3::zeros())
                }
            })
            .collect()
    }
}

/// The error of a mesh batch handed `n` rays: cannot happen, as the lengths are checked
/// first, but reported rather than unwrapped.
pub(super) fn unequal(n: usize) -> SceneError {
    SceneError::BatchLengthMismatch {
        inputs: n,
        outputs: n,
    }
}

pub(crate) fn check_batch(inputs: usize, outputs: usize) -> Result<(), SceneError> {
    if inputs == outputs {
        Ok(())
    } else {
        Err(SceneError::BatchLengthMismatch { inputs, outputs })
    }
}

pub(crate) fn passes_cull(front_face: bool, cull: Cull) -> bool {
    match cull {
        Cull::None => true,
        Cull::Back => front_face,
        Cull::Front => !front_face,
    }
}
