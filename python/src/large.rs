//! float64 rays on a `Scene`: the f64 path of the library (`Scene::closest_hit_batch_f64`),
//! where each instance gets the ray in its own frame before anything is rounded to float32,
//! so that scenes placed in map or survey coordinates are picked exactly. `t` and `point`
//! come back in float64; the batch functions of `queries` serve both precisions.

use pyo3::prelude::*;
use raypick::primitives::Ray64;
use raypick::query::scene::SceneHit64;
use raypick::query::Scene;

use crate::queries::{Opts, Rec, Target, INVALID};
use crate::scene::scene_query;

/// True when the ray arrays are float64 (origins, and directions when given).
pub fn wants_f64(origins: &Bound<'_, PyAny>, directions: Option<&Bound<'_, PyAny>>) -> bool {
    let is64 = |a: &Bound<'_, PyAny>| {
        a.extract::<numpy::PyReadonlyArrayDyn<'_, f64>>().is_ok()
            && a.extract::<numpy::PyReadonlyArrayDyn<'_, f32>>().is_err()
    };
    is64(origins) && directions.is_none_or(is64)
}

fn rec(h: &SceneHit64) -> Rec<f64> {
    let (u, v) = h.hit.barycentrics().unwrap_or((0.0, 0.0));
    Rec {
        t: h.t,
        instance: h.hit.instance.index(),
        triangle: h.hit.triangle().unwrap_or(INVALID),
        uv: [u, v],
        point: [h.point.x, h.point.y, h.point.z],
        normal: (*h.hit.normal).into(),
        front_face: h.hit.front_face,
    }
}

impl Target<f64> for Scene {
    type Hit = SceneHit64;

    fn closest_into(
        &self,
        rays: &[Ray64],
        o: &Opts,
        out: &mut [Option<SceneHit64>],
    ) -> Result<(), String> {
        self.closest_hit_batch_f64(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn rec(h: &SceneHit64) -> Rec<f64> {
        rec(h)
    }

    fn any_into(&self, rays: &[Ray64], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_hit_batch_f64(rays, &scene_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn all_into(&self, ray: &Ray64, o: &Opts, out: &mut Vec<SceneHit64>) {
        *out = self.all_hits_f64(ray, &scene_query(o));
    }
}
