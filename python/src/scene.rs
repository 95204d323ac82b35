//! `raypick.Scene`: meshes instanced under 4x4 transforms.

use std::collections::HashMap;
use std::sync::{RwLock, RwLockReadGuard};

use numpy::PyReadonlyArrayDyn;
use numpy::PyUntypedArrayMethods;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use raypick::io::Matrix4;
use raypick::primitives::{Point3, Ray};
use raypick::query::camera::ScreenRect;
use raypick::query::points::PickConfig;
use raypick::query::scene::{
    InstanceId, MeshId, PickOptions, PrimId, SceneError, SelectMode, SelectOptions, VisibleSampling,
};
use raypick::query::{Scene, SceneHit, SceneQuery};

use crate::camera::{viewport, PyCamera};
use crate::convert::arr1;
use crate::mesh::PyMesh;
use crate::points::{PyPointSet, PySegmentSet};
use crate::queries::{self, Near, NearestTarget, Opts, RayArgs, Rec, Target, INVALID};
use crate::RaypickError;

/// A scene's objects and the ids Python sees for them.
pub(crate) struct Inner {
    pub scene: Scene,
    pub meshes: Vec<MeshId>,
    /// Live instances by the id reported in hits (`InstanceId::index`).
    pub instances: HashMap<u32, InstanceId>,
    /// Live point and segment set instances by their id (`PrimId::index`).
    pub prims: HashMap<u32, PrimId>,
}

/// Meshes and their instances under 4x4 transforms, with a top-level BVH.
///
/// Queries run under a read lock; edits need the scene to be free, and raise while a
/// query on another thread is running.
#[pyclass(name = "Scene", module = "raypick._raypick", frozen)]
pub struct PyScene {
    pub(crate) inner: RwLock<Inner>,
}

pub(crate) fn scene_query(o: &Opts) -> SceneQuery<'static> {
    SceneQuery::new(o.t_min, o.t_max)
        .with_cull(o.cull)
        .with_mask(o.mask)
}

fn rec(h: &SceneHit) -> Rec<f32> {
    let (u, v) = h.barycentrics().unwrap_or((0.0, 0.0));
    Rec {
        t: h.t,
        instance: h.instance.index(),
        triangle: h.triangle().unwrap_or(INVALID),
        uv: [u, v],
        point: h.point.into(),
        normal: (*h.normal).into(),
        front_face: h.front_face,
    }
}

impl Target<f32> for Scene {
    type Hit = SceneHit;

    fn closest_into(
        &self,
        rays: &[Ray],
        o: &Opts,
        out: &mut [Option<SceneHit>],
    ) -> Result<(), String> {
        self.closest_hit_batch(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn closest_tiles_into(
        &self,
        rays: &[Ray],
        o: &Opts,
        out: &mut [Option<SceneHit>],
    ) -> Result<(), String> {
        self.closest_hit_coherent(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn rec(h: &SceneHit) -> Rec<f32> {
        rec(h)
    }

    fn any_into(&self, rays: &[Ray], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_hit_batch(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn any_tiles_into(&self, rays: &[Ray], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_hit_coherent(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn all_into(&self, ray: &Ray, o: &Opts, out: &mut Vec<SceneHit>) {
        self.all_hits_into(ray, &scene_query(o), out);
    }
}

impl NearestTarget for Scene {
    fn nearest(&self, p: &[Point3<f32>], max_distance: f32) -> Result<Vec<Option<Near>>, String> {
        let mut out = vec![None; p.len()];
        self.nearest_point_batch(p, max_distance, &SceneQuery::default(), &mut out)
            .map_err(|e| e.to_string())?;
        Ok(out
            .iter()
            .map(|n| {
                n.as_ref().map(|n| {
                    let (triangle, uv) = match n.geometry {
                        raypick::query::scene::HitGeometry::Triangle { triangle, u, v, .. } => {
                            (triangle, [u, v])
                        }
                        raypick::query::scene::HitGeometry::Shape { .. } => (INVALID, [0.0; 2]),
                    };
                    Near {
                        instance: n.instance.index(),
                        triangle,
                        uv,
                        point: n.point.into(),
                        distance: n.distance,
                    }
                })
            })
            .collect())
    }
}

fn scene_err(e: impl std::fmt::Display) -> PyErr {
    RaypickError::new_err(e.to_string())
}

fn unknown_set(set: u32) -> PyErr {
    RaypickError::new_err(format!("point or segment set {set} does not exist"))
}

fn matrix(t: Option<PyReadonlyArrayDyn<'_, f64>>) -> PyResult<Matrix4<f64>> {
    let Some(t) = t else {
        return Ok(Matrix4::identity());
    };
    if t.shape() != [4, 4] {
        return Err(RaypickError::new_err(format!(
            "transform must have shape (4, 4), got {:?}",
            t.shape()
        )));
    }
    let a = t.as_array();
    Ok(Matrix4::from_fn(|r, c| a[[r, c]]))
}

impl PyScene {
    pub(crate) fn from_inner(inner: Inner) -> Self {
        Self {
            inner: RwLock::new(inner),
        }
    }

    /// The scene for a query, its top-level tree brought up to date when nothing else
    /// holds it.
    fn read(&self) -> RwLockReadGuard<'_, Inner> {
        if let Ok(mut w) = self.inner.try_write() {
            w.scene.update();
        }
        self.inner.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Places a point or segment set by `add` under `transform` and returns its id.
    fn place(
        &self,
        transform: Option<PyReadonlyArrayDyn<'_, f64>>,
        add: impl FnOnce(&mut Scene, &Matrix4<f32>) -> Result<PrimId, SceneError>,
    ) -> PyResult<u32> {
        let m = matrix(transform)?.cast::<f32>();
        self.edit(|s| {
            let id = add(&mut s.scene, &m).map_err(scene_err)?;
            s.prims.insert(id.index(), id);
            Ok(id.index())
        })
    }

    fn edit<T>(&self, f: impl FnOnce(&mut Inner) -> PyResult<T>) -> PyResult<T> {
        let mut w = self.inner.try_write().map_err(|_| {
            RaypickError::new_err("the scene is being queried on another thread; edit it after")
        })?;
        f(&mut w)
    }
}

#[pymethods]
impl PyScene {
    /// An empty scene.
    #[new]
    fn new() -> Self {
        Self::from_inner(Inner {
            scene: Scene::new(),
            meshes: Vec::new(),
            instances: HashMap::new(),
            prims: HashMap::new(),
        })
    }

    /// Saves the scene with its BVHs to `path` (raypick's `.rpk` format), for `load_scene`
    /// to load without rebuilding; same ids, same answers.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let inner = self.read();
        let scene = &inner.scene;
        py.detach(|| raypick::io::save_scene(scene, &path))
            .map_err(|e| RaypickError::new_err(e.to_string()))
    }

    /// Adds a mesh (shared, not copied) and returns its mesh id.
    fn add_mesh(&self, mesh: &PyMesh) -> PyResult<u32> {
        self.edit(|s| {
            let id = s.scene.add_shared_mesh(mesh.mesh.clone());
            s.meshes.push(id);
            Ok(id.index())
        })
    }

    /// Adds an instance of mesh `mesh_id` under the 4x4 object-to-world `transform`
    /// (identity when omitted) and returns its instance id.
    #[pyo3(signature = (mesh_id, transform=None))]
    fn add_instance(
        &self,
        mesh_id: u32,
        transform: Option<PyReadonlyArrayDyn<'_, f64>>,
    ) -> PyResult<u32> {
        let m = matrix(transform)?;
        self.edit(|s| {
            let mesh = *s.meshes.get(mesh_id as usize).ok_or_else(|| {
                RaypickError::new_err(format!(
                    "mesh {mesh_id} does not exist ({} meshes)",
                    s.meshes.len()
                ))
            })?;
            let id = s
                .scene
                .add_instance_f64(mesh, &m)
                .map_err(|e| RaypickError::new_err(e.to_string()))?;
            s.instances.insert(id.index(), id);
            Ok(id.index())
        })
    }

    /// Moves instance `instance` to a new 4x4 transform.
    fn set_transform(&self, instance: u32, transform: PyReadonlyArrayDyn<'_, f64>) -> PyResult<()> {
        let m = matrix(Some(transform))?;
        self.edit(|s| {
            let id = *s
                .instances
                .get(&instance)
                .ok_or_else(|| unknown(instance))?;
            s.scene
                .set_transform_f64(id, &m)
                .map_err(|e| RaypickError::new_err(e.to_string()))
        })
    }

    /// Removes instance `instance` (its id may be reused by a later instance).
    fn remove(&self, instance: u32) -> PyResult<()> {
        self.edit(|s| {
            let id = s
                .instances
                .remove(&instance)
                .ok_or_else(|| unknown(instance))?;
            s.scene
                .remove(id)
                .map_err(|e| RaypickError::new_err(e.to_string()))
        })
    }

    /// Places a point set under the 4x4 `transform` (identity when omitted) and returns its
    /// id (its own id space, apart from the instances').
    #[pyo3(signature = (points, transform=None))]
    fn add_points(
        &self,
        points: &PyPointSet,
        transform: Option<PyReadonlyArrayDyn<'_, f64>>,
    ) -> PyResult<u32> {
        self.place(transform, |scene, m| {
            scene.add_point_set(points.set.clone(), m)
        })
    }

    /// [`PyScene::add_points`] for a segment set.
    #[pyo3(signature = (segments, transform=None))]
    fn add_segments(
        &self,
        segments: &PySegmentSet,
        transform: Option<PyReadonlyArrayDyn<'_, f64>>,
    ) -> PyResult<u32> {
        self.place(transform, |scene, m| {
            scene.add_segment_set(segments.set.clone(), m)
        })
    }

    /// Sets the layer mask of point or segment set `set`.
    fn set_prims_mask(&self, set: u32, mask: u32) -> PyResult<()> {
        self.edit(|s| {
            let id = *s.prims.get(&set).ok_or_else(|| unknown_set(set))?;
            s.scene.set_prims_mask(id, mask).map_err(scene_err)
        })
    }

    /// Removes point or segment set `set`.
    fn remove_prims(&self, set: u32) -> PyResult<()> {
        self.edit(|s| {
            let id = s.prims.remove(&set).ok_or_else(|| unknown_set(set))?;
            s.scene.remove_prims(id).map_err(scene_err)
        })
    }

    /// Every point and segment within `radius` of the ray (columns sorted by `t`).
    #[pyo3(signature = (origin, direction, radius, mask=u32::MAX))]
    fn prims_within_ray<'py>(
        &self,
        py: Python<'py>,
        origin: [f32; 3],
        direction: [f32; 3],
        radius: f64,
        mask: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let g = self.read();
        crate::points::within_ray(py, &g.scene, origin, direction, radius, mask)
    }

    /// The nearest point or segment to each point within `max_distance` (columns).
    #[pyo3(signature = (points, max_distance=f64::INFINITY, mask=u32::MAX, threads=None))]
    fn nearest_prim<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_distance: f64,
        mask: u32,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let g = self.read();
        crate::points::nearest(py, &g.scene, points, max_distance, mask, threads)
    }

    /// The live instance ids, ascending.
    fn instances(&self) -> Vec<u32> {
        let g = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<u32> = g.instances.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// The 4x4 transform of instance `instance`, row-major nested lists.
    fn transform(&self, instance: u32) -> PyResult<Vec<Vec<f64>>> {
        let g = self.inner.read().unwrap_or_else(|p| p.into_inner());
        let id = *g
            .instances
            .get(&instance)
            .ok_or_else(|| unknown(instance))?;
        let m = g.scene.transform_f64(id).ok_or_else(|| unknown(instance))?;
        Ok((0..4)
            .map(|r| (0..4).map(|c| m[(r, c)]).collect())
            .collect())
    }

    fn __len__(&self) -> usize {
        self.inner
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .scene
            .len()
    }

    fn __repr__(&self) -> String {
        let g = self.inner.read().unwrap_or_else(|p| p.into_inner());
        format!(
            "Scene({} meshes, {} instances)",
            g.meshes.len(),
            g.scene.len()
        )
    }

    /// The ray queries behind the package's `Scene.closest_hit`, `any_hit` and `all_hits`
    /// (`kind` "closest", "any" or "all"; "cast" and "first" for the drop-ins; `query` the
    /// dict of `_Queries._kw`). float64 rays
    /// take the f64 path.
    fn rays<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        origins: &Bound<'py, PyAny>,
        directions: Option<&Bound<'py, PyAny>>,
        query: RayArgs,
    ) -> PyResult<Bound<'py, PyAny>> {
        let g = self.read();
        if crate::large::wants_f64(origins, directions) {
            return queries::ray_query::<f64, _>(py, kind, &g.scene, origins, directions, &query);
        }
        queries::ray_query::<f32, _>(py, kind, &g.scene, origins, directions, &query)
    }

    /// The solid queries behind the package's `Scene.winding_number` (the sum over every
    /// instance under its transform, plus 1 inside each shape), `contains` (winding number
    /// >= 0.5, or exactly on a surface) and `signed_distance` (negative inside, with the
    /// nearest surface points and their instances): `kind` "winding_number", "contains" or
    /// "signed_distance". Every object counts, whatever its mask. float64 points take the
    /// f64 path (signed distances and nearest points come back in float64).
    #[pyo3(signature = (kind, points, strict=true, threads=None))]
    fn solid<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        points: &Bound<'py, PyAny>,
        strict: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let g = self.read();
        if crate::large::wants_f64(points, None) {
            let far = crate::large_solid::Far(&g.scene);
            return crate::solid::solid_query(py, kind, &far, points, strict, threads);
        }
        crate::solid::solid_query(py, kind, &g.scene, points, strict, threads)
    }

    /// What the cursor at window position `(x, y)` of a `width` x `height` viewport picks:
    /// `None` for nothing, else a dict with `hit` (a dict or `None`), with `snap_radius`
    /// (pixels) the nearest `vertex` and `edge` within it, and `prim`: the point or segment
    /// within `radius_px` that no surface hides (or any, with `xray`), which wins over the
    /// surface behind it.
    #[pyo3(signature = (camera, width, height, x, y, snap_radius=None, snap_occluded=false, mask=u32::MAX, radius_px=5.0, xray=false))]
    #[allow(clippy::too_many_arguments)]
    fn pick<'py>(
        &self,
        py: Python<'py>,
        camera: &PyCamera,
        width: f32,
        height: f32,
        x: f32,
        y: f32,
        snap_radius: Option<f32>,
        snap_occluded: bool,
        mask: u32,
        radius_px: f64,
        xray: bool,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let vp = viewport(width, height)?;
        let mut options = PickOptions::default()
            .with_query(SceneQuery::default().with_mask(mask))
            .with_snap_occluded(snap_occluded);
        options.snap_radius = snap_radius;
        options.prims = PickConfig { radius_px, xray };
        let g = self.read();
        // A pixel outside the viewport or a camera that cannot make a ray is an error; an
        // empty pixel is None.
        let picked = g.scene.pick(&camera.cam, &vp, x, y, &options);
        let Some(p) = picked.map_err(|e| crate::RaypickError::new_err(e.to_string()))? else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item(
            "ray",
            [
                p.ray.origin.x,
                p.ray.origin.y,
                p.ray.origin.z,
                p.ray.dir.x,
                p.ray.dir.y,
                p.ray.dir.z,
            ],
        )?;
        d.set_item("hit", p.hit.map(|h| hit_dict(py, &h)).transpose()?)?;
        let prim = p
            .prim
            .map(|c| crate::points::pick_dict(py, c.id.index(), &c.pick));
        d.set_item("prim", prim.transpose()?)?;
        let vertex = p.vertex.map(|v| {
            let e = PyDict::new(py);
            e.set_item("instance", v.instance.index())?;
            e.set_item("vertex", v.vertex)?;
            e.set_item("point", <[f32; 3]>::from(v.point))?;
            e.set_item("distance_px", v.distance_px)?;
            Ok::<_, PyErr>(e)
        });
        d.set_item("vertex", vertex.transpose()?)?;
        let edge = p.edge.map(|v| {
            let e = PyDict::new(py);
            e.set_item("instance", v.instance.index())?;
            e.set_item("vertices", v.vertices)?;
            e.set_item("point", <[f32; 3]>::from(v.point))?;
            e.set_item("distance_px", v.distance_px)?;
            Ok::<_, PyErr>(e)
        });
        d.set_item("edge", edge.transpose()?)?;
        Ok(Some(d))
    }

    /// The objects (and with `triangles`, their triangles) inside or intersecting the
    /// window rectangle with corners `(x0, y0)` and `(x1, y1)`: a dict with `instances`
    /// (list) and `triangles` (instance id to a uint32 array). `mode` is "inside" or
    /// "intersecting"; `visible_only` keeps what sample rays reach first.
    #[pyo3(signature = (camera, width, height, x0, y0, x1, y1, mode="inside", triangles=false, visible_only=false, mask=u32::MAX))]
    #[allow(clippy::too_many_arguments)]
    fn select_rect<'py>(
        &self,
        py: Python<'py>,
        camera: &PyCamera,
        width: f32,
        height: f32,
        x0: f32,
        y0: f32,
        x1: f32,
        y1: f32,
        mode: &str,
        triangles: bool,
        visible_only: bool,
        mask: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let vp = viewport(width, height)?;
        let mode = match mode {
            "inside" => SelectMode::Inside,
            "intersecting" => SelectMode::Intersecting,
            other => {
                return Err(RaypickError::new_err(format!(
                    "mode must be 'inside' or 'intersecting', got {other:?}"
                )))
            }
        };
        let options = SelectOptions {
            mode,
            triangles,
            prims: true,
            visible_only: visible_only.then(VisibleSampling::default),
            query: SceneQuery::default().with_mask(mask),
        };
        let rect = ScreenRect::new([x0, y0], [x1, y1]);
        let g = self.read();
        let cam = camera.cam;
        let sel = py.detach(|| g.scene.select_rect(&cam, &vp, &rect, &options));
        let d = PyDict::new(py);
        let ids: Vec<u32> = sel.instances.iter().map(|i| i.index()).collect();
        d.set_item("instances", ids)?;
        let tris = PyDict::new(py);
        for s in sel.triangles {
            tris.set_item(s.instance.index(), arr1(py, s.triangles))?;
        }
        d.set_item("triangles", tris)?;
        let prims = PyDict::new(py);
        for s in sel.prims {
            prims.set_item(s.id.index(), arr1(py, s.indices))?;
        }
        d.set_item("prims", prims)?;
        Ok(d)
    }

    /// The nearest surface point to each point within `max_distance`. float64 points take
    /// the f64 path (points and distances come back in float64).
    #[pyo3(signature = (points, max_distance=f64::INFINITY, strict=true, threads=None))]
    fn nearest_point<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_distance: f64,
        strict: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let g = self.read();
        if crate::large::wants_f64(points, None) {
            return crate::large_solid::nearest(
                py,
                &g.scene,
                points,
                max_distance,
                strict,
                threads,
            );
        }
        let max = max_distance as f32;
        queries::nearest_point(py, &g.scene, points, max, strict, threads)
    }
}

fn hit_dict<'py>(py: Python<'py>, h: &SceneHit) -> PyResult<Bound<'py, PyDict>> {
    let r = rec(h);
    let d = PyDict::new(py);
    d.set_item("t", r.t)?;
    d.set_item("instance", r.instance)?;
    d.set_item("triangle", r.triangle)?;
    d.set_item("uv", r.uv)?;
    d.set_item("point", r.point)?;
    d.set_item("normal", r.normal)?;
    d.set_item("front_face", r.front_face)?;
    Ok(d)
}

fn unknown(instance: u32) -> PyErr {
    RaypickError::new_err(format!("instance {instance} does not exist"))
}
