//! `raypick.PointSet` and `raypick.SegmentSet`: point clouds and line sets with their own
//! BVH, placed in a `Scene` beside meshes, picked under the cursor with a tolerance in pixels
//! and queried around rays and points. The `Scene` methods that take them live in
//! `scene.rs` and call the functions here.

use std::sync::Arc;

use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use raypick::primitives::{Point3, Ray, Vector3};
use raypick::query::points::{PickKind, PointSet, PrimPick, SegmentSet};
use raypick::query::scene::{Scene, SceneQuery};

use crate::convert::{arr1, arr2, points, FloatArg};
use crate::{pool, RaypickError};

fn err(e: impl std::fmt::Display) -> PyErr {
    RaypickError::new_err(e.to_string())
}

/// Reads `(N, 3)` float32 or float64 points, each finite (the error names the first bad one).
fn positions(points_arg: &Bound<'_, PyAny>) -> PyResult<Vec<Point3<f32>>> {
    let a = FloatArg::extract(points_arg, "points", 3)?;
    points(&a.view(), "point", true).map_err(err)
}

/// A point cloud with its BVH (immutable; share it between scenes freely).
#[pyclass(name = "PointSet", module = "raypick._raypick", frozen)]
pub struct PyPointSet {
    pub(crate) set: Arc<PointSet>,
}

#[pymethods]
impl PyPointSet {
    /// Builds the set from `(N, 3)` points.
    #[new]
    fn new(py: Python<'_>, points: &Bound<'_, PyAny>) -> PyResult<Self> {
        let p = positions(points)?;
        let set = py.detach(|| PointSet::new(p)).map_err(err)?;
        Ok(Self { set: Arc::new(set) })
    }

    fn __len__(&self) -> usize {
        self.set.points().len()
    }
}

/// Segments between indexed points (a line list, or a polyline) with their BVH.
#[pyclass(name = "SegmentSet", module = "raypick._raypick", frozen)]
pub struct PySegmentSet {
    pub(crate) set: Arc<SegmentSet>,
}

#[pymethods]
impl PySegmentSet {
    /// Builds the set from `(N, 3)` points and `(M, 2)` int64 point indices; without
    /// `segments`, the polyline through the points in order (`closed` joins the last to the
    /// first).
    #[new]
    #[pyo3(signature = (points, segments=None, closed=false))]
    fn new(
        py: Python<'_>,
        points: &Bound<'_, PyAny>,
        segments: Option<PyReadonlyArrayDyn<'_, i64>>,
        closed: bool,
    ) -> PyResult<Self> {
        let p = positions(points)?;
        let set = match segments {
            None => py.detach(|| SegmentSet::polyline(p, closed)),
            Some(s) => {
                let segs = pairs(&s)?;
                py.detach(|| SegmentSet::new(p, segs))
            }
        }
        .map_err(err)?;
        Ok(Self { set: Arc::new(set) })
    }

    fn __len__(&self) -> usize {
        self.set.segments().len()
    }
}

/// Reads `(M, 2)` int64 point indices, naming the first negative or too large one.
fn pairs(s: &PyReadonlyArrayDyn<'_, i64>) -> PyResult<Vec<[u32; 2]>> {
    if s.shape().len() != 2 || s.shape()[1] != 2 {
        return Err(err(format!(
            "segments must have shape (M, 2), got {:?}",
            s.shape()
        )));
    }
    s.as_array()
        .outer_iter()
        .enumerate()
        .map(|(i, row)| {
            let get = |k: usize| {
                u32::try_from(row[k]).map_err(|_| {
                    err(format!(
                        "segment {i}: point index {} is out of range",
                        row[k]
                    ))
                })
            };
            Ok([get(0)?, get(1)?])
        })
        .collect()
}

fn kind_name(k: PickKind) -> &'static str {
    match k {
        PickKind::Point => "point",
        PickKind::Segment => "segment",
    }
}

/// A picked point or segment as a dict: `kind` ("point" or "segment"), `set` (the id
/// `add_points` or `add_segments` returned), `index`, `u` (along a segment), `point` (world,
/// float64), `distance_px` and `depth`.
pub(crate) fn pick_dict<'py>(
    py: Python<'py>,
    set: u32,
    p: &PrimPick,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("kind", kind_name(p.kind))?;
    d.set_item("set", set)?;
    d.set_item("index", p.index)?;
    d.set_item("u", p.u)?;
    d.set_item("point", [p.point.x, p.point.y, p.point.z])?;
    d.set_item("distance_px", p.pixel_distance)?;
    d.set_item("depth", p.depth)?;
    Ok(d)
}

/// `Scene.prims_within_ray`: every point and segment within `radius` of the ray, as columns
/// sorted by `t` (`set`, `kind` 0 for points and 1 for segments, `index`, `t`, `u`,
/// `distance`).
pub(crate) fn within_ray<'py>(
    py: Python<'py>,
    scene: &Scene,
    origin: [f32; 3],
    direction: [f32; 3],
    radius: f64,
    mask: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let ray = Ray::new(Point3::from(origin), Vector3::from(direction));
    let q = SceneQuery::default().with_mask(mask);
    let near = py.detach(|| scene.prims_within_ray(&ray, radius, &q));
    let d = PyDict::new(py);
    d.set_item("set", arr1(py, near.iter().map(|n| n.id.index()).collect()))?;
    let kind = near
        .iter()
        .map(|n| u8::from(n.kind == PickKind::Segment))
        .collect();
    d.set_item("kind", arr1::<u8>(py, kind))?;
    d.set_item(
        "index",
        arr1(py, near.iter().map(|n| n.near.index).collect()),
    )?;
    d.set_item("t", arr1(py, near.iter().map(|n| n.near.t).collect()))?;
    d.set_item("u", arr1(py, near.iter().map(|n| n.near.u).collect()))?;
    d.set_item(
        "distance",
        arr1(py, near.iter().map(|n| n.near.distance).collect()),
    )?;
    Ok(d)
}

/// `Scene.nearest_prim`: for each point, the nearest point or segment within
/// `max_distance`, as columns (`found`, `set`, `kind`, `index`, `u`, `point` float64,
/// `distance`), in parallel.
pub(crate) fn nearest<'py>(
    py: Python<'py>,
    scene: &Scene,
    pts: &Bound<'py, PyAny>,
    max_distance: f64,
    mask: u32,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = FloatArg::extract(pts, "points", 3)?;
    let v = a.view();
    let q = SceneQuery::default().with_mask(mask);
    let found = pool::run(py, threads, || {
        let p = points(&v, "point", true)?;
        Ok(p.par_iter()
            .with_min_len(64)
            .map(|p| scene.nearest_prim(*p, max_distance, &q))
            .collect::<Vec<_>>())
    })?;
    let n = found.len();
    let (mut hit, mut set, mut kind, mut index, mut u, mut point, mut distance) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(3 * n),
        Vec::with_capacity(n),
    );
    for f in &found {
        hit.push(f.is_some());
        set.push(f.map_or(crate::queries::INVALID, |f| f.id.index()));
        kind.push(f.map_or(0u8, |f| u8::from(f.kind == PickKind::Segment)));
        index.push(f.map_or(crate::queries::INVALID, |f| f.nearest.index));
        u.push(f.map_or(0.0, |f| f.nearest.u));
        let p = f.map_or([f64::NAN; 3], |f| {
            [f.nearest.point.x, f.nearest.point.y, f.nearest.point.z]
        });
        point.extend_from_slice(&p);
        distance.push(f.map_or(f64::INFINITY, |f| f.nearest.distance));
    }
    let d = PyDict::new(py);
    d.set_item("found", arr1(py, hit))?;
    d.set_item("set", arr1(py, set))?;
    d.set_item("kind", arr1(py, kind))?;
    d.set_item("index", arr1(py, index))?;
    d.set_item("u", arr1(py, u))?;
    d.set_item("point", arr2(py, point, 3)?)?;
    d.set_item("distance", arr1(py, distance))?;
    Ok(d)
}
