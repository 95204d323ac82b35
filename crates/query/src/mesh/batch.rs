//! Batched ray queries, in parallel with rayon.

use raypick_primitives::Ray;

use super::{Hit, Mesh, MeshError, RayQuery};
use crate::par;

/// The mesh size from which batch queries run as streams. Measured (paired runs, 100,000
/// rays on one thread, streamed against one ray at a time): 1.02-1.40x closest hit and
/// 1.29-1.76x any hit on the 1M-triangle meshes, but 0.69-0.85x closest hit on 100,000 random
/// triangles and on the bunny, whose trees stay in the caches. 300,000 triangles is also
/// where `NodeLayout::Auto` turns compact: about 4 MiB of plain nodes and 11 MB of triangle
/// rows.
const STREAM_FROM_TRIANGLES: usize = 300_000;

fn check(rays: usize, results: usize) -> Result<(), MeshError> {
    if rays == results {
        Ok(())
    } else {
        Err(MeshError::BatchLengthMismatch {
            inputs: rays,
            outputs: results,
        })
    }
}

impl Mesh {
    /// True when batches are traversed as streams, several rays in turns (see
    /// `WideBvh::traverse_stream`): from [`STREAM_FROM_TRIANGLES`] triangles.
    pub(crate) fn streams(&self) -> bool {
        self.len() >= STREAM_FROM_TRIANGLES
    }

    /// [`Mesh::closest_hit`] for every ray, in parallel: `out[i]` gets ray `i`'s answer,
    /// exactly what the single-ray call returns. Allocates nothing per ray.
    ///
    /// On meshes of 300,000 triangles or more, each thread runs its rays as a stream: 8 rays
    /// take turns through the tree, each starting to load the node or leaf it needs next
    /// while the others work, so that their cache misses overlap (the `compare` benchmark's
    /// `raypick-batch` rows measure it); smaller meshes, which stay in the caches, run one
    /// ray at a time.
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
        if self.streams() {
            par::fill_chunks(rays, out, |rays, out| {
                self.closest_hit_stream(rays, query, out)
            });
        } else {
            par::fill(rays, out, |ray| self.closest_hit(ray, query));
        }
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
        if self.streams() {
            par::fill_chunks(rays, out, |rays, out| self.any_hit_stream(rays, query, out));
        } else {
            par::fill(rays, out, |ray| self.any_hit(ray, query));
        }
        Ok(())
    }
}
