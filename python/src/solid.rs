//! Solid queries on `raypick.Mesh`: winding numbers, inside tests, signed distances.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use raypick::query::Mesh;

use crate::convert::{arr1, arr2, points, FloatArg};
use crate::{pool, RaypickError};

/// Runs `f` over the points of `pts` without the GIL.
fn over_points<'py, T: Send>(
    py: Python<'py>,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
    f: impl FnOnce(&[raypick::primitives::Point3<f32>]) -> T + Send,
) -> PyResult<T> {
    let pa = FloatArg::extract(pts, "points", 3)?;
    let pv = pa.view();
    pool::run(py, threads, || Ok(f(&points(&pv, "point", strict)?)))
}

/// The solid query `kind` ("winding_number", "contains" or "signed_distance") of `mesh`
/// at the points: winding numbers in float32 (NaN for a non-finite point when not strict),
/// inside tests (false for one), signed distances as columns.
pub fn solid_query<'py>(
    py: Python<'py>,
    kind: &str,
    mesh: &Mesh,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    match kind {
        "winding_number" => {
            let w = over_points(py, pts, strict, threads, |p| mesh.winding_numbers(p))?;
            Ok(arr1(py, w).into_any())
        }
        "contains" => {
            let c = over_points(py, pts, strict, threads, |p| mesh.contains_points(p))?;
            Ok(arr1(py, c).into_any())
        }
        "signed_distance" => Ok(signed_distances(py, mesh, pts, strict, threads)?.into_any()),
        other => Err(RaypickError::new_err(format!(
            "unknown solid query {other:?}"
        ))),
    }
}

/// Signed distances (negative inside) with the nearest points, as columns.
fn signed_distances<'py>(
    py: Python<'py>,
    mesh: &Mesh,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let found = over_points(py, pts, strict, threads, |p| mesh.signed_distances(p))?;
    let n = found.len();
    let (mut distance, mut point, mut triangle, mut uv, mut winding) = (
        Vec::with_capacity(n),
        Vec::with_capacity(3 * n),
        Vec::with_capacity(n),
        Vec::with_capacity(2 * n),
        Vec::with_capacity(n),
    );
    for s in found {
        match s {
            Some(s) => {
                distance.push(s.distance);
                point.extend_from_slice(&<[f32; 3]>::from(s.point));
                triangle.push(s.triangle);
                uv.extend_from_slice(&[s.u, s.v]);
                winding.push(s.winding_number);
            }
            None => {
                distance.push(f32::NAN);
                point.extend_from_slice(&[f32::NAN; 3]);
                triangle.push(crate::queries::INVALID);
                uv.extend_from_slice(&[0.0; 2]);
                winding.push(f32::NAN);
            }
        }
    }
    let d = PyDict::new(py);
    d.set_item("distance", arr1(py, distance))?;
    d.set_item("point", arr2(py, point, 3)?)?;
    d.set_item("triangle", arr1(py, triangle))?;
    d.set_item("uv", arr2(py, uv, 2)?)?;
    d.set_item("winding_number", arr1(py, winding))?;
    Ok(d)
}
