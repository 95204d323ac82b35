//! Batched ray queries, in parallel with rayon.

use raypick_primitives::Ray;

use super::{Hit, Mesh, MeshError, RayQuery};
use crate::par;

fn check(rays: usize, results: usize) -> Result<(), MeshError> {
    if rays == results {
        Ok(())
    } else {
        Err(MeshError::BatchLengthMismatch { rays, results })
    }
}

impl Mesh {
    /// [`Mesh::closest_hit`] for every ray, in parallel: `out[i]` gets ray `i`'s answer,
    /// exactly what the single-ray call returns. Allocates nothing per ray.
    ///
    /// Errors with [`MeshError::BatchLengthMismatch`] (touching nothing) when `out` and
    /// `rays` differ in length.
    pub fn closest_hit_batch(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [Option<Hit>],
    ) -> Result<(), MeshError> {
        check(rays.len(), out.len())?;
        par::fill(rays, out, |ray| self.closest_hit(ray, query));
        Ok(())
    }

    /// [`Mesh::any_hit`] for every ray, in parallel, into `out`. The same contract as
    /// [`Mesh::closest_hit_batch`].
    pub fn any_hit_batch(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [bool],
    ) -> Result<(), MeshError> {
        check(rays.len(), out.len())?;
        par::fill(rays, out, |ray| self.any_hit(ray, query));
        Ok(())
    }
}
