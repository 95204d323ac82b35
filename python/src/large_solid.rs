//! float64 points on a `Scene`: the library's f64 nearest-point and solid queries
//! (`Scene::nearest_point_f64`, `signed_distances_f64`, `contains_points_f64`,
//! `winding_numbers_f64`), where each instance gets the point in its own frame before
//! anything is rounded to float32. Nearest points and distances come back in float64.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use raypick::primitives::Point3;
use raypick::query::scene::HitGeometry;
use raypick::query::{Scene, SceneQuery};

use crate::convert::{arr1, points64, FloatArg};
use crate::queries::{nearest_columns, Near, INVALID};
use crate::solid::{signed_columns, Signed};
use crate::{pool, RaypickError};

/// The triangle and barycentrics of a scene answer (invalid for a shape).
fn triangle_of(g: HitGeometry) -> (u32, [f32; 2]) {
    match g {
        HitGeometry::Triangle { triangle, u, v, .. } => (triangle, [u, v]),
        HitGeometry::Shape { .. } => (INVALID, [0.0; 2]),
    }
}

/// Runs `f` over the float64 points of `pts` without the GIL.
fn over_points64<'py, T: Send>(
    py: Python<'py>,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
    f: impl FnOnce(&[Point3<f64>]) -> T + Send,
) -> PyResult<T> {
    let pa = FloatArg::extract(pts, "points", 3)?;
    let pv = pa.view();
    pool::run(py, threads, || Ok(f(&points64(&pv, "point", strict)?)))
}

/// The nearest surface point of each float64 point within `max_distance`, as columns.
pub fn nearest<'py>(
    py: Python<'py>,
    scene: &Scene,
    pts: &Bound<'py, PyAny>,
    max_distance: f64,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let q = SceneQuery::default();
    let found = over_points64(py, pts, strict, threads, |p| {
        p.par_iter()
            .with_min_len(64)
            .map(|p| {
                scene.nearest_point_f64(p, max_distance, &q).map(|n| {
                    let (triangle, uv) = triangle_of(n.nearest.geometry);
                    Near {
                        instance: n.nearest.instance.index(),
                        triangle,
                        uv,
                        point: n.point.into(),
                        distance: n.distance,
                    }
                })
            })
            .collect::<Vec<_>>()
    })?;
    nearest_columns(py, found)
}

/// The solid query `kind` of the scene at float64 points (see `solid::solid_query`).
pub fn solid<'py>(
    py: Python<'py>,
    kind: &str,
    scene: &Scene,
    pts: &Bound<'py, PyAny>,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    match kind {
        "winding_number" => {
            let w = over_points64(py, pts, strict, threads, |p| scene.winding_numbers_f64(p))?;
            Ok(arr1(py, w).into_any())
        }
        "contains" => {
            let c = over_points64(py, pts, strict, threads, |p| scene.contains_points_f64(p))?;
            Ok(arr1(py, c).into_any())
        }
        "signed_distance" => {
            let found = over_points64(py, pts, strict, threads, |p| {
                scene
                    .signed_distances_f64(p)
                    .into_iter()
                    .map(|s| {
                        s.map(|s| {
                            let (triangle, uv) = triangle_of(s.geometry);
                            Signed {
                                distance: s.distance,
                                point: s.point.into(),
                                instance: s.instance.index(),
                                triangle,
                                uv,
                                winding_number: s.winding_number,
                            }
                        })
                    })
                    .collect::<Vec<_>>()
            })?;
            Ok(signed_columns(py, found)?.into_any())
        }
        other => Err(RaypickError::new_err(format!(
            "unknown solid query {other:?}"
        ))),
    }
}
