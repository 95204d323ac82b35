//! Batches of f64 rays: [`Scene::closest_hit_batch_f64`] and [`Scene::any_hit_batch_f64`].

use std::cell::Cell;
use std::ops::ControlFlow;

use rayon::prelude::*;
use raypick_primitives::{Point3, Ray, Ray64, Vector3};

use super::query::{check_batch, unequal, SoleMesh};
use super::{Scene, SceneError, SceneHit64, SceneQuery};

impl Scene {
    /// [`Scene::closest_hit_f64`] for every ray, in parallel (rayon), with the contract of
    /// [`Scene::closest_hit_batch`]: a scene of one large mesh instance hands the rays, in
    /// the instance's frame, to the mesh's batch; other scenes answer one ray at a time.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] (touching nothing) when the lengths differ.
    pub fn closest_hit_batch_f64(
        &self,
        rays: &[Ray64],
        query: &SceneQuery<'_>,
        out: &mut [Option<SceneHit64>],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        if let Some(sole) = self.sole_streamed_mesh(query) {
            let local = local_rays64(self, &sole, rays, query);
            let mut hits = vec![None; rays.len()];
            sole.mesh
                .closest_hit_batch(&local, &query.ray_query(), &mut hits)
                .map_err(|_| unequal(rays.len()))?;
            crate::par::fill_from(&hits, out, |h| {
                h.map(|h| {
                    let point = sole.obj.transform.point_to_world64(&h.point);
                    let mut hit = self.mesh_hit(sole.id, sole.obj, sole.mesh_id, &h);
                    hit.point = point.cast();
                    SceneHit64 {
                        hit,
                        t: f64::from(hit.t),
                        point,
                    }
                })
            });
        } else {
            crate::par::fill_from(rays, out, |ray| self.closest_hit_f64(ray, query));
        }
        Ok(())
    }

    /// [`Scene::any_hit_f64`] for every ray, in parallel; the contract of
    /// [`Scene::closest_hit_batch_f64`].
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] when the lengths differ.
    pub fn any_hit_batch_f64(
        &self,
        rays: &[Ray64],
        query: &SceneQuery<'_>,
        out: &mut [bool],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        if let Some(sole) = self.sole_streamed_mesh(query) {
            let local = local_rays64(self, &sole, rays, query);
            sole.mesh
                .any_hit_batch(&local, &query.ray_query(), out)
                .map_err(|_| unequal(rays.len()))?;
        } else {
            crate::par::fill_from(rays, out, |ray| self.any_hit_f64(ray, query));
        }
        Ok(())
    }
}

/// Each ray in the sole instance's frame (through the f64 inverse) where the single-ray
/// query would test the mesh with it, and a zero-direction ray, which finds nothing, where
/// it would not.
fn local_rays64(
    scene: &Scene,
    sole: &SoleMesh<'_>,
    rays: &[Ray64],
    query: &SceneQuery<'_>,
) -> Vec<Ray> {
    rays.par_iter()
        .map(|ray| {
            let mut visited = false;
            if ray.is_valid() && query.t_min <= query.t_max {
                let t_max = Cell::new(query.t_max);
                scene.visit_ray64(ray, query, &t_max, |_, _| {
                    visited = true;
                    ControlFlow::Break(())
                });
            }
            if visited {
                sole.obj.transform.ray64_to_object(ray)
            } else {
                Ray::new(Point3::origin(), Vector3::zeros())
            }
        })
        .collect()
}
