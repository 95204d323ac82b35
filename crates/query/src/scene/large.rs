//! Large coordinates: instances placed by f64 matrices and f64 world rays.
//!
//! Each mesh keeps its f32 triangles and BVH in its own frame; the placement, the world ray
//! and the returned point are f64. A ray goes into an instance's frame in f64 and is rounded
//! to f32 only there, so the answer does not depend on how far the scene is from the
//! origin. The top-level tree stays f32: each instance's world box is computed in f64 and
//! rounded outward, and the f64 ray is tested against those boxes in f64, so no instance the
//! ray reaches is skipped.

use std::cell::Cell;
use std::ops::ControlFlow;

use nalgebra::{Matrix4, Point3, Vector3};
use raypick_primitives::{Aabb, Cull, Ray64, Real};

use super::query::passes_cull;
use super::transform::InstanceTransform;
use super::PickError;
use super::{shape, Geometry, InstanceId, MeshId, Object, Scene, SceneError, SceneHit};
use crate::camera::{Camera, Viewport};
use crate::{Mesh, MeshError, RayQuery};

/// A [`SceneHit`] of an f64 ray, with its parameter and world point in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit64 {
    /// The hit as the f32 API reports it (instance, triangle, barycentrics, normal). Its
    /// `point` is the f64 point rounded to f32.
    pub hit: SceneHit,
    /// Ray parameter in units of the f64 ray's direction.
    pub t: f64,
    /// The world hit point in f64: the local hit point placed by the f64 transform.
    pub point: Point3<f64>,
}

/// A mesh built from f64 vertices, re-centred: its f32 positions are relative to `offset`.
#[derive(Clone, Debug)]
pub struct RecentredMesh {
    /// The mesh, in a frame centred on its bounding box.
    pub mesh: Mesh,
    /// Where the mesh's local origin sits in the input frame: place the mesh with
    /// [`RecentredMesh::placement`] to put it back.
    pub offset: Vector3<f64>,
}

impl RecentredMesh {
    /// Builds a mesh from f64 positions (UTM, ECEF, survey coordinates), moving them by the
    /// centre of their bounding box (rounded to an integer so the offset is exact to read)
    /// before rounding to f32. Non-finite positions are kept as given and reported by
    /// [`Mesh::new`].
    ///
    /// # Errors
    /// Whatever [`Mesh::new`] reports for the re-centred positions.
    pub fn new(positions: &[Point3<f64>], triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        let offset = recentre_offset(positions);
        let local = positions
            .iter()
            .map(|p| Point3::from((p - offset).cast::<Real>()))
            .collect();
        Ok(Self {
            mesh: Mesh::new(local, triangles)?,
            offset: offset.coords,
        })
    }

    /// `transform` (input frame to world) composed with the re-centring offset: the f64
    /// matrix that places [`RecentredMesh::mesh`] where the input positions were.
    #[must_use]
    pub fn placement(&self, transform: &Matrix4<f64>) -> Matrix4<f64> {
        transform * Matrix4::new_translation(&self.offset)
    }
}

/// The centre of the finite positions' box, rounded to whole units (origin when empty).
fn recentre_offset(positions: &[Point3<f64>]) -> Point3<f64> {
    let mut lo = Vector3::repeat(f64::INFINITY);
    let mut hi = Vector3::repeat(f64::NEG_INFINITY);
    for p in positions.iter().filter(|p| p.iter().all(|c| c.is_finite())) {
        lo = lo.inf(&p.coords);
        hi = hi.sup(&p.coords);
    }
    if !(lo.x <= hi.x) {
        return Point3::origin();
    }
    Point3::from(((lo + hi) * 0.5).map(f64::round))
}

impl Scene {
    /// [`Scene::add_instance`] with an f64 placement: for meshes far from the origin
    /// (typically a [`RecentredMesh`] placed by [`RecentredMesh::placement`]). The f32
    /// queries see the rounded matrix; [`Scene::closest_hit_f64`] uses the f64 one.
    ///
    /// # Errors
    /// As [`Scene::add_instance`]; also [`SceneError::NonFiniteTransform`] when an entry
    /// overflows f32.
    pub fn add_instance_f64(
        &mut self,
        mesh: MeshId,
        transform: &Matrix4<f64>,
    ) -> Result<InstanceId, SceneError> {
        let transform = InstanceTransform::new_f64(transform)?;
        // The f32 entry point does the bookkeeping; the f64 transform replaces its rounding.
        let id = self.add_instance(mesh, &transform.matrix())?;
        let obj = self.object_mut(id)?;
        obj.world_box = transform.box_to_world(&mesh_bounds(&obj.geometry));
        obj.transform = transform;
        Ok(id)
    }

    /// The f64 object-to-world matrix of an instance.
    #[must_use]
    pub fn transform_f64(&self, id: InstanceId) -> Option<Matrix4<f64>> {
        self.object(id).map(|o| o.transform.m64)
    }

    /// [`Scene::closest_hit`] for an f64 world ray: exact for scenes far from the origin.
    ///
    /// The ray goes into each instance's frame through the f64 inverse and is rounded to
    /// f32 there; `query.t_min`/`t_max` are in units of `ray.dir`. Ties resolve as in
    /// [`Scene::closest_hit`]. An invalid ray or interval finds nothing.
    ///
    /// ```
    /// use raypick_query::{scene::RecentredMesh, Scene, SceneQuery};
    /// use raypick_primitives::Ray64;
    /// use nalgebra::{Matrix4, Point3, Vector3};
    /// // A triangle in UTM-like coordinates (metres).
    /// let e = 5.0e6;
    /// let n = 4.0e6;
    /// let tri = [Point3::new(e, n, 0.0), Point3::new(e + 1.0, n, 0.0), Point3::new(e, n + 1.0, 0.0)];
    /// let rec = RecentredMesh::new(&tri, vec![[0, 1, 2]]).unwrap();
    /// let mut scene = Scene::new();
    /// let mesh = scene.add_mesh(rec.mesh.clone());
    /// scene.add_instance_f64(mesh, &rec.placement(&Matrix4::identity())).unwrap();
    /// scene.update();
    /// let ray = Ray64::new(Point3::new(e + 0.25, n + 0.25, 10.0), -Vector3::z());
    /// let hit = scene.closest_hit_f64(&ray, &SceneQuery::default()).unwrap();
    /// assert!((hit.point.x - (e + 0.25)).abs() < 1e-6);
    /// assert!((hit.t - 10.0).abs() < 1e-5);
    /// ```
    #[must_use]
    pub fn closest_hit_f64(
        &self,
        ray: &Ray64,
        query: &super::SceneQuery<'_>,
    ) -> Option<SceneHit64> {
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return None;
        }
        let mut best: Option<SceneHit64> = None;
        let best_t = Cell::new(query.t_max);
        self.visit_ray64(ray, query, &best_t, |id, obj| {
            if let Some(h) = self.hit_object64(id, obj, ray, query.t_min, best_t.get(), query.cull)
            {
                let better = best.as_ref().is_none_or(|b| {
                    (h.hit.t, h.hit.instance, h.hit.triangle())
                        < (b.hit.t, b.hit.instance, b.hit.triangle())
                });
                if better {
                    best_t.set(h.hit.t);
                    best = Some(h);
                }
            }
            ControlFlow::Continue(())
        });
        best
    }

    /// [`Scene::any_hit`] for an f64 world ray (see [`Scene::closest_hit_f64`]).
    #[must_use]
    pub fn any_hit_f64(&self, ray: &Ray64, query: &super::SceneQuery<'_>) -> bool {
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return false;
        }
        let mut found = false;
        let t_max = Cell::new(query.t_max);
        self.visit_ray64(ray, query, &t_max, |_, obj| {
            let local = obj.transform.ray64_to_object(ray);
            if self.object_any_hit(obj, &local, query) {
                found = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        found
    }

    /// [`Scene::all_hits`] for an f64 world ray (see [`Scene::closest_hit_f64`]): every
    /// crossing, sorted by `t`, then instance, then triangle.
    #[must_use]
    pub fn all_hits_f64(&self, ray: &Ray64, query: &super::SceneQuery<'_>) -> Vec<SceneHit64> {
        let mut out = Vec::new();
        if !ray.is_valid() || !(query.t_min <= query.t_max) {
            return out;
        }
        let t_max = Cell::new(query.t_max);
        let rq = query.ray_query();
        self.visit_ray64(ray, query, &t_max, |id, obj| {
            let local = obj.transform.ray64_to_object(ray);
            let place = |hit: SceneHit, local_point: &raypick_primitives::Point3<Real>| {
                let point = obj.transform.point_to_world64(local_point);
                let mut hit = hit;
                hit.point = point.cast();
                SceneHit64 {
                    hit,
                    t: f64::from(hit.t),
                    point,
                }
            };
            match &obj.geometry {
                Geometry::Mesh { id: mid, mesh, .. } => {
                    for h in mesh.all_hits(&local, &rq) {
                        out.push(place(self.mesh_hit(id, obj, *mid, &h), &h.point));
                    }
                }
                Geometry::Shape(s) => {
                    shape::cast_all(s, &local, query.t_min, query.t_max, |h| {
                        if passes_cull(h.front_face, query.cull) {
                            let hit = self.shape_hit(id, obj, &ray.to_f32(), &h);
                            out.push(place(hit, &local.at(h.t)));
                        }
                    });
                }
            }
            ControlFlow::Continue(())
        });
        out.sort_by(|a, b| {
            (a.hit.t, a.hit.instance, a.hit.triangle())
                .partial_cmp(&(b.hit.t, b.hit.instance, b.hit.triangle()))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        out
    }

    /// Calls `visit` on every object `query` accepts whose world box the f64 `ray` may enter
    /// within `[query.t_min, t_max]` (`t_max` read at each box: the caller may lower it),
    /// then on the unbounded and stale objects; stops at a break.
    pub(super) fn visit_ray64<F>(
        &self,
        ray: &Ray64,
        query: &super::SceneQuery<'_>,
        t_max: &Cell<Real>,
        mut visit: F,
    ) where
        F: FnMut(InstanceId, &Object) -> ControlFlow<()>,
    {
        let mut stopped = false;
        let mut on_slot = |slot: u32| {
            let id = self.id_of(slot);
            match self.slot_object(slot) {
                Some(obj) if query.accepts(id, obj) => visit(id, obj),
                _ => ControlFlow::Continue(()),
            }
        };
        if let Some(bvh) = self.fresh_top() {
            let leaf = self.top_leaf();
            let (t0, d) = (f64::from(query.t_min), ray_inv(ray));
            bvh.traverse_where(
                |b| slab64(ray, &d, b, t0, f64::from(t_max.get())),
                |range| {
                    for pos in range {
                        if on_slot(leaf[pos]).is_break() {
                            stopped = true;
                            return ControlFlow::Break(());
                        }
                    }
                    ControlFlow::Continue(())
                },
            );
        }
        if !stopped {
            self.for_each_extra_slot(&mut on_slot);
        }
    }

    /// The f64 form of [`Scene::pick`] without snapping: the camera's f64 ray through
    /// window position `(x, y)` (pixels, top left) and its [`Scene::closest_hit_f64`].
    /// For cameras and scenes far from the origin, where the f32 ray of [`Scene::pick`]
    /// would move by up to half a unit in the last place of the coordinates.
    ///
    /// # Errors
    /// As [`Scene::pick`]: an invalid viewport, a cursor outside it or no ray.
    pub fn pick_f64(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: f64,
        y: f64,
        query: &super::SceneQuery<'_>,
    ) -> Result<Option<SceneHit64>, PickError> {
        if !viewport.is_valid() {
            return Err(PickError::InvalidViewport);
        }
        let (xs, ys) = (x as Real, y as Real);
        let (vx, vy) = (f64::from(viewport.x), f64::from(viewport.y));
        let inside = x >= vx
            && x <= vx + f64::from(viewport.width)
            && y >= vy
            && y <= vy + f64::from(viewport.height);
        if !inside {
            return Err(PickError::CursorOutside { x: xs, y: ys });
        }
        let (o, d) = camera
            .ray_from_pixel_f64(x, y, viewport)
            .ok_or(PickError::NoRay { x: xs, y: ys })?;
        Ok(self.closest_hit_f64(&Ray64::new(o, d), query))
    }

    fn hit_object64(
        &self,
        id: InstanceId,
        obj: &Object,
        ray: &Ray64,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<SceneHit64> {
        let local = obj.transform.ray64_to_object(ray);
        let (hit, local_point) = match &obj.geometry {
            Geometry::Mesh { id: mid, mesh, .. } => {
                let h = mesh.closest_hit(&local, &RayQuery { t_min, t_max, cull })?;
                (self.mesh_hit(id, obj, *mid, &h), h.point)
            }
            Geometry::Shape(s) => {
                let mut first = None;
                shape::cast_all(s, &local, t_min, t_max, |h| {
                    if first.is_none() && passes_cull(h.front_face, cull) {
                        first = Some(h);
                    }
                });
                let h = first?;
                (self.shape_hit(id, obj, &ray.to_f32(), &h), local.at(h.t))
            }
            #[allow(unreachable_patterns)]
            _ => return None,
        };
        let point = obj.transform.point_to_world64(&local_point);
        let mut hit = hit;
        hit.point = point.cast();
        Some(SceneHit64 {
            hit,
            t: f64::from(hit.t),
            point,
        })
    }
}

fn mesh_bounds(g: &Geometry) -> Aabb {
    match g {
        Geometry::Mesh { mesh, .. } => mesh.bounds(),
        #[allow(unreachable_patterns)]
        _ => Aabb::EMPTY,
    }
}

fn ray_inv(ray: &Ray64) -> Vector3<f64> {
    ray.dir.map(|c| 1.0 / c)
}

/// Conservative f64 slab test of `ray` against an f32 box over `[t0, t1]`: the box is
/// widened by a relative 1e-12 so that the f64 rounding of the test cannot drop a box.
fn slab64(ray: &Ray64, inv: &Vector3<f64>, b: &Aabb, t0: f64, t1: f64) -> bool {
    let mut lo = t0;
    let mut hi = t1;
    for i in 0..3 {
        let (bmin, bmax) = (f64::from(b.min[i]), f64::from(b.max[i]));
        let pad = 1e-12 * (bmin.abs().max(bmax.abs()) + (bmax - bmin)) + 1e-30;
        let (bmin, bmax) = (bmin - pad, bmax + pad);
        let o = ray.origin[i];
        if ray.dir[i] == 0.0 {
            if o < bmin || o > bmax {
                return false;
            }
            continue;
        }
        let a = (bmin - o) * inv[i];
        let c = (bmax - o) * inv[i];
        let (near, far) = if a <= c { (a, c) } else { (c, a) };
        lo = lo.max(near * (1.0 - 1e-12) - 1e-300);
        hi = hi.min(far * (1.0 + 1e-12) + 1e-300);
        if !(lo <= hi) {
            return false;
        }
    }
    true
}
