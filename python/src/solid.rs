//! Solid queries on `raypick.Mesh` and `raypick.Scene`: winding numbers, inside tests,
//! signed distances.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use raypick::primitives::Point3;
use raypick::query::scene::{HitGeometry, InstanceId};
use raypick::query::{Mesh, Scene};

use crate::convert::{arr1, arr2, points, Coord, FloatArg, Floats};
use crate::queries::INVALID;
use crate::{pool, RaypickError};

/// One signed distance, whatever it was measured to (`C`: f64 on the scene's f64 path).
pub struct Signed<C = f32> {
    pub distance: C,
    pub point: [C; 3],
    pub instance: u32,
    pub triangle: u32,
    pub uv: [f32; 2],
    pub winding_number: f32,
}

/// The triangle and barycentrics of a scene answer (invalid for a shape).
pub fn triangle_of(g: HitGeometry) -> (u32, [f32; 2]) {
    match g {
        HitGeometry::Triangle { triangle, u, v, .. } => (triangle, [u, v]),
        HitGeometry::Shape { .. } => (INVALID, [0.0; 2]),
    }
}

/// A scene's signed distance as one row.
pub fn scene_signed<C>(
    distance: C,
    point: [C; 3],
    instance: InstanceId,
    geometry: HitGeometry,
    winding_number: f32,
) -> Signed<C> {
    let (triangle, uv) = triangle_of(geometry);
    Signed {
        distance,
        point,
        instance: instance.index(),
        triangle,
        uv,
        winding_number,
    }
}

/// A mesh or a scene, asked the solid queries in batches (each the library's own batch),
/// at points of `P` (f32, or f64 on the scene's f64 path), measuring in `C`.
pub trait SolidTarget: Sync {
    type P: Send + Sync;
    type C: Coord;
    /// The points of `v`, checked finite when `strict`.
    fn read(v: &Floats<'_>, strict: bool) -> Result<Vec<Self::P>, String>;
    fn winding_numbers(&self, p: &[Self::P]) -> Vec<f32>;
    fn contains_points(&self, p: &[Self::P]) -> Vec<bool>;
    fn signed_distances(&self, p: &[Self::P]) -> Vec<Option<Signed<Self::C>>>;
}

impl SolidTarget for Mesh {
    type P = Point3<f32>;
    type C = f32;
    fn read(v: &Floats<'_>, strict: bool) -> Result<Vec<Point3<f32>>, String> {
        points(v, "point", strict)
    }
    fn winding_numbers(&self, p: &[Point3<f32>]) -> Vec<f32> {
        Mesh::winding_numbers(self, p)
    }
    fn contains_points(&self, p: &[Point3<f32>]) -> Vec<bool> {
        Mesh::contains_points(self, p)
    }
    fn signed_distances(&self, p: &[Point3<f32>]) -> Vec<Option<Signed>> {
        Mesh::signed_distances(self, p)
            .into_iter()
            .map(|s| {
                s.map(|s| Signed {
                    distance: s.distance,
                    point: s.point.into(),
                    instance: 0,
                    triangle: s.triangle,
                    uv: [s.u, s.v],
                    winding_number: s.winding_number,
                })
            })
            .collect()
    }
}

impl SolidTarget for Scene {
    type P = Point3<f32>;
    type C = f32;
    fn read(v: &Floats<'_>, strict: bool) -> Result<Vec<Point3<f32>>, String> {
        points(v, "point", strict)
    }
    fn winding_numbers(&self, p: &[Point3<f32>]) -> Vec<f32> {
        Scene::winding_numbers(self, p)
    }
    fn contains_points(&self, p: &[Point3<f32>]) -> Vec<bool> {
        Scene::contains_points(self, p)
    }
    fn signed_distances(&self, p: &[Point3<f32>]) -> Vec<Option<Signed>> {
        Scene::signed_distances(self, p)
            .into_iter()
            .map(|s| {
                s.map(|s| {
                    scene_signed(
                        s.distance,
                        s.point.into(),
                        s.instance,
                        s.geometry,
                        s.winding_number,
                    )
                })
            })
            .collect()
    }
}

/// Runs `f` over the points of `pts`, read as `S` reads them, without the GIL.
pub fn over_points<'py, S: SolidTarget, T: Send>(
    py: Python<'py>,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
    f: impl FnOnce(&[S::P]) -> T + Send,
) -> PyResult<T> {
    let pa = FloatArg::extract(pts, "points", 3)?;
    let pv = pa.view();
    pool::run(py, threads, || Ok(f(&S::read(&pv, strict)?)))
}

/// The solid query `kind` ("winding_number", "contains" or "signed_distance") of `target`
/// at the points: winding numbers in float32 (NaN for a non-finite point when not strict),
/// inside tests (false for one), signed distances as columns.
pub fn solid_query<'py, T: SolidTarget>(
    py: Python<'py>,
    kind: &str,
    target: &T,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    match kind {
        "winding_number" => {
            let w = over_points::<T, _>(py, pts, strict, threads, |p| target.winding_numbers(p))?;
            Ok(arr1(py, w).into_any())
        }
        "contains" => {
            let c = over_points::<T, _>(py, pts, strict, threads, |p| target.contains_points(p))?;
            Ok(arr1(py, c).into_any())
        }
        "signed_distance" => Ok(signed_distances(py, target, pts, strict, threads)?.into_any()),
        other => Err(RaypickError::new_err(format!(
            "unknown solid query {other:?}"
        ))),
    }
}

/// Signed distances (negative inside) with the nearest points, as columns.
fn signed_distances<'py, T: SolidTarget>(
    py: Python<'py>,
    target: &T,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let found = over_points::<T, _>(py, pts, strict, threads, |p| target.signed_distances(p))?;
    signed_columns(py, found)
}

/// Signed distances as columns (NaN, with invalid ids, where there is none).
pub fn signed_columns<C: Coord>(
    py: Python<'_>,
    found: Vec<Option<Signed<C>>>,
) -> PyResult<Bound<'_, PyDict>> {
    let n = found.len();
    let (mut distance, mut point, mut instance, mut triangle, mut uv, mut winding) = (
        Vec::with_capacity(n),
        Vec::with_capacity(3 * n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(2 * n),
        Vec::with_capacity(n),
    );
    for s in found {
        let s = s.unwrap_or(Signed {
            distance: C::NAN,
            point: [C::NAN; 3],
            instance: INVALID,
            triangle: INVALID,
            uv: [0.0; 2],
            winding_number: f32::NAN,
        });
        distance.push(s.distance);
        point.extend_from_slice(&s.point);
        instance.push(s.instance);
        triangle.push(s.triangle);
        uv.extend_from_slice(&s.uv);
        winding.push(s.winding_number);
    }
    let d = PyDict::new(py);
    d.set_item("distance", arr1(py, distance))?;
    d.set_item("point", arr2(py, point, 3)?)?;
    d.set_item("instance", arr1(py, instance))?;
    d.set_item("triangle", arr1(py, triangle))?;
    d.set_item("uv", arr2(py, uv, 2)?)?;
    d.set_item("winding_number", arr1(py, winding))?;
    Ok(d)
}
