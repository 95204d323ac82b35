//! float64 rays on a `Scene`: the f64 path of the library (`Scene::closest_hit_batch_f64`),
//! where each instance gets the ray in its own frame before anything is rounded to float32,
//! so that scenes placed in map or survey coordinates are picked exactly. `t` and `point`
//! come back in float64.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use raypick::primitives::Ray64;
use raypick::query::scene::SceneHit64;
use raypick::query::Scene;

use crate::convert::{arr1, arr2, ray_parts, Floats};
use crate::pool;
use crate::queries::{ray_args, Opts, INVALID};
use crate::scene::scene_query;

/// True when the ray arrays are float64 (origins, and directions when given).
pub fn wants_f64(origins: &Bound<'_, PyAny>, directions: Option<&Bound<'_, PyAny>>) -> bool {
    let is64 = |a: &Bound<'_, PyAny>| {
        a.extract::<numpy::PyReadonlyArrayDyn<'_, f64>>().is_ok()
            && a.extract::<numpy::PyReadonlyArrayDyn<'_, f32>>().is_err()
    };
    is64(origins) && directions.is_none_or(is64)
}

/// [`ray_parts`] as f64 rays.
fn rays64(o: &Floats<'_>, d: Option<&Floats<'_>>, strict: bool) -> Result<Vec<Ray64>, String> {
    Ok(ray_parts::<f64>(o, d, strict)?
        .into_iter()
        .map(|(o, d)| Ray64::new(o.into(), d.into()))
        .collect())
}

/// `Scene.closest_hit` for float64 rays: the columns of the f32 form, with `t` and `point`
/// in float64.
pub fn closest_hit<'py>(
    py: Python<'py>,
    scene: &Scene,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    o: Opts,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let (oa, da) = ray_args(origins, directions)?;
    let (ov, dv) = (oa.view(), da.as_ref().map(|d| d.view()));
    let hits = pool::run(py, threads, || {
        let rays = rays64(&ov, dv.as_ref(), o.strict)?;
        let mut out = vec![None; rays.len()];
        scene
            .closest_hit_batch_f64(&rays, &scene_query(&o), &mut out)
            .map_err(|e| e.to_string())?;
        Ok(out)
    })?;
    columns(py, &hits)
}

/// `Scene.any_hit` for float64 rays.
pub fn any_hit<'py>(
    py: Python<'py>,
    scene: &Scene,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    o: Opts,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let (oa, da) = ray_args(origins, directions)?;
    let (ov, dv) = (oa.view(), da.as_ref().map(|d| d.view()));
    let hits = pool::run(py, threads, || {
        let rays = rays64(&ov, dv.as_ref(), o.strict)?;
        let mut out = vec![false; rays.len()];
        scene
            .any_hit_batch_f64(&rays, &scene_query(&o), &mut out)
            .map_err(|e| e.to_string())?;
        Ok(out)
    })?;
    Ok(arr1(py, hits).into_any())
}

/// Rays per parallel task of [`all_hits`].
const ALL_CHUNK: usize = 256;

/// `Scene.all_hits` for float64 rays: every crossing, flat, sorted by ray then `t`, with the
/// ray index of each; `t` and `point` in float64.
pub fn all_hits<'py>(
    py: Python<'py>,
    scene: &Scene,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    o: Opts,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    use rayon::prelude::*;
    let (oa, da) = ray_args(origins, directions)?;
    let (ov, dv) = (oa.view(), da.as_ref().map(|d| d.view()));
    let (hits, ray_index) = pool::run(py, threads, || {
        let rays = rays64(&ov, dv.as_ref(), o.strict)?;
        let q = scene_query(&o);
        let chunks: Vec<(Vec<Option<SceneHit64>>, Vec<u64>)> = rays
            .par_chunks(ALL_CHUNK)
            .enumerate()
            .map(|(c, rays)| {
                let (mut hits, mut idx) = (Vec::new(), Vec::new());
                for (i, ray) in rays.iter().enumerate() {
                    let all = scene.all_hits_f64(ray, &q);
                    idx.resize(idx.len() + all.len(), (c * ALL_CHUNK + i) as u64);
                    hits.extend(all.into_iter().map(Some));
                }
                (hits, idx)
            })
            .collect();
        let mut hits = Vec::new();
        let mut ray_index = Vec::new();
        for (h, i) in chunks {
            hits.extend(h);
            ray_index.extend(i);
        }
        Ok((hits, ray_index))
    })?;
    let d = columns(py, &hits)?;
    d.set_item("ray", arr1(py, ray_index))?;
    Ok(d)
}

fn columns<'py>(py: Python<'py>, hits: &[Option<SceneHit64>]) -> PyResult<Bound<'py, PyDict>> {
    let n = hits.len();
    let (mut t, mut hit, mut instance, mut triangle) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut uv, mut point, mut normal, mut front) = (
        Vec::with_capacity(2 * n),
        Vec::with_capacity(3 * n),
        Vec::with_capacity(3 * n),
        Vec::with_capacity(n),
    );
    for h in hits {
        match h {
            Some(h) => {
                let (u, v) = h.hit.barycentrics().unwrap_or((0.0, 0.0));
                t.push(h.t);
                hit.push(true);
                instance.push(h.hit.instance.index());
                triangle.push(h.hit.triangle().unwrap_or(INVALID));
                uv.extend_from_slice(&[u, v]);
                point.extend_from_slice(&[h.point.x, h.point.y, h.point.z]);
                normal.extend_from_slice(&[h.hit.normal.x, h.hit.normal.y, h.hit.normal.z]);
                front.push(h.hit.front_face);
            }
            None => {
                t.push(f64::INFINITY);
                hit.push(false);
                instance.push(INVALID);
                triangle.push(INVALID);
                uv.extend_from_slice(&[0.0, 0.0]);
                point.extend_from_slice(&[f64::NAN; 3]);
                normal.extend_from_slice(&[0.0; 3]);
                front.push(false);
            }
        }
    }
    let d = PyDict::new(py);
    d.set_item("t", arr1(py, t))?;
    d.set_item("hit", arr1(py, hit))?;
    d.set_item("instance", arr1(py, instance))?;
    d.set_item("triangle", arr1(py, triangle))?;
    d.set_item("uv", arr2(py, uv, 2)?)?;
    d.set_item("point", arr2(py, point, 3)?)?;
    d.set_item("normal", arr2(py, normal, 3)?)?;
    d.set_item("front_face", arr1(py, front))?;
    Ok(d)
}
