//! float64 points on a `Scene`: the library's f64 nearest-point and solid queries
//! (`Scene::nearest_point_f64`, `signed_distances_f64`, `contains_points_f64`,
//! `winding_numbers_f64`; [`Far`] serves them to `solid::solid_query`), where each
//! instance gets the point in its own frame before anything is rounded to float32. Nearest
//! points and distances come back in float64.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use raypick::primitives::Point3;
use raypick::query::{Scene, SceneQuery};

use crate::convert::{points64, Floats};
use crate::queries::{nearest_columns, Near};
use crate::solid::{over_points, scene_signed, triangle_of, Signed, SolidTarget};

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
    let found = over_points::<Far<'_>, _>(py, pts, strict, threads, |p| {
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

/// A scene asked at float64 points: its f64 solid queries.
pub struct Far<'a>(pub &'a Scene);

impl SolidTarget for Far<'_> {
    type P = Point3<f64>;
    type C = f64;
    fn read(v: &Floats<'_>, strict: bool) -> Result<Vec<Point3<f64>>, String> {
        points64(v, "point", strict)
    }
    fn winding_numbers(&self, p: &[Point3<f64>]) -> Vec<f32> {
        self.0.winding_numbers_f64(p)
    }
    fn contains_points(&self, p: &[Point3<f64>]) -> Vec<bool> {
        self.0.contains_points_f64(p)
    }
    fn signed_distances(&self, p: &[Point3<f64>]) -> Vec<Option<Signed<f64>>> {
        self.0
            .signed_distances_f64(p)
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
