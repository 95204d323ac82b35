//! Batched ray queries, in parallel with rayon.

use raypick_primitives::{Ray, Real};

use raypick_bvh::wide::PACKET_RAYS;

use super::{Hit, Mesh, MeshError, RayQuery};
use crate::image_rows::batch_width;
use crate::par;

/// The mesh size from which batch queries run as streams. Measured (paired runs, 100,000
/// rays on one thread, streamed against one ray at a time): 1.02-1.40x closest hit and
/// 1.29-1.76x any hit on the 1M-triangle meshes, but 0.69-0.85x closest hit on 100,000 random
/// triangles and on the bunny, whose trees stay in the caches. 300,000 triangles is also
/// where `NodeLayout::Auto` turns compact: about 4 MiB of plain nodes and 11 MB of triangle
/// rows.
const STREAM_FROM_TRIANGLES: usize = 300_000;

/// The batch queries' length check: [`MeshError::BatchLengthMismatch`] when they differ.
pub(super) fn check(rays: usize, results: usize) -> Result<(), MeshError> {
    if rays == results {
        Ok(())
    } else {
        Err(MeshError::BatchLengthMismatch {
            inputs: rays,
            outputs: results,
        })
    }
}

/// How close two consecutive rays must pass, over the mesh, to follow each other: a share
/// of the mesh's bounding diagonal. Neighbouring pixels of a render (even at 640 pixels
/// across) pass within 0.3% of it; random pixels of a view, at tens of percent.
const SEQUENCE_SPREAD: Real = 0.01;

impl Mesh {
    /// True when most consecutive rays of `rays` pass close to each other over the mesh
    /// (within [`SEQUENCE_SPREAD`] of its diagonal, origins and directions each): rows of a
    /// render, a LiDAR sweep. Each ray then finds the nodes and triangles it needs in the
    /// caches, where the last one left them, and a stream, which interleaves rays to hide
    /// the wait for memory, only adds its switching (measured by the `coherent` benchmark:
    /// streamed 0.66-0.81x one at a time on such rays). Cheap: a few products per ray.
    pub(crate) fn in_sequence(&self, rays: &[Ray]) -> bool {
        let b = self.bounds();
        let diag = b.extents().norm();
        if !(diag > 0.0 && diag.is_finite()) || rays.len() < 2 {
            return false;
        }
        let centre = b.center();
        let half = 0.5 * SEQUENCE_SPREAD * diag;
        let mut close = 0usize;
        for pair in rays.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            // Unit directions u, v within `half / reach` of each other, where `reach` is how
            // far the rays run through the mesh's box: |u - v|^2 = 2 - 2 cos, tested without
            // square roots as (a.b)^2 >= cos_min^2 |a|^2 |b|^2 with a.b > 0.
            let reach = (centre - a.origin).norm() + 0.5 * diag;
            let cos_min = 1.0 - 0.5 * (half / reach) * (half / reach);
            let dot = a.dir.dot(&b.dir);
            let near = (a.origin - b.origin).norm_squared() <= half * half
                && dot > 0.0
                && dot * dot >= cos_min * cos_min * a.dir.norm_squared() * b.dir.norm_squared();
            close += usize::from(near);
        }
        2 * close >= rays.len() - 1
    }

    /// A batch query: for a batch of an image's rays row after row ([`batch_width`]),
    /// `packet(rays, out)` on its 4 x 4 tiles, as the coherent queries run them; otherwise
    /// `one(ray)` for every ray in parallel, or on a mesh that [`streams`] `stream(rays,
    /// out)` for each chunk, except a chunk [`Mesh::in_sequence`], which runs `one(ray)` ray
    /// after ray.
    ///
    /// [`streams`]: Mesh::streams
    fn batch<T: Send + Copy + Default>(
        &self,
        rays: &[Ray],
        out: &mut [T],
        one: impl Fn(&Ray) -> T + Sync,
        stream: impl Fn(&[Ray], &mut [T]) + Sync,
        packet: impl Fn(&[Ray], &mut [T]) -> bool + Sync,
    ) -> Result<(), MeshError> {
        check(rays.len(), out.len())?;
        if let Some(width) = batch_width(rays) {
            par::fill_tiled(rays, out, width, PACKET_RAYS, one, packet);
        } else if !self.streams() {
            par::fill(rays, out, one);
        } else {
            par::fill_chunks(rays, out, |rays, out| {
                if self.in_sequence(rays) {
                    for (ray, slot) in rays.iter().zip(out) {
                        *slot = one(ray);
                    }
                } else {
                    stream(rays, out);
                }
            });
        }
        Ok(())
    }

    /// True when batches are traversed as streams, several rays in turns (see
    /// `WideBvh::traverse_stream`): from [`STREAM_FROM_TRIANGLES`] triangles.
    pub(crate) fn streams(&self) -> bool {
        self.len() >= STREAM_FROM_TRIANGLES
    }

    /// [`Mesh::closest_hit`] for every ray, in parallel: `out[i]` gets ray `i`'s answer,
    /// exactly what the single-ray call returns. Allocates nothing per ray.
    ///
    /// A batch of at least 4,096 rays that is an image's, row after row (a render's or a
    /// depth camera's pixels, a LiDAR's scan lines; found from the rays themselves, see
    /// [`row_width`](crate::image_rows::row_width)), is cast in 4 x 4 tiles as packets, as
    /// [`Mesh::closest_hit_coherent`] casts tiles. Otherwise, on meshes of 300,000 triangles
    /// or more, each thread runs its rays as a stream: 8 rays take turns through the tree,
    /// each starting to load the node or leaf it needs next while the others work, so that
    /// their cache misses overlap (the `compare` benchmark's `raypick-batch` rows measure
    /// it); smaller meshes, which stay in the caches, run one ray at a time, and so do
    /// chunks of rays that follow each other closely (each ray finds in the caches what the
    /// last one loaded). Every path gives the single-ray answers.
    ///
    /// Errors with [`MeshError::BatchLengthMismatch`] (touching nothing) when `out` and
    /// `rays` differ in length.
    pub fn closest_hit_batch(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [Option<Hit>],
    ) -> Result<(), MeshError> {
        self.batch(
            rays,
            out,
            |ray| self.closest_hit(ray, query),
            |r, o| self.closest_hit_stream(r, query, o),
            |r, o| self.closest_hit_packet(r, query, |_| query.t_max, o),
        )
    }

    /// [`Mesh::any_hit`] for every ray, in parallel, into `out`. The same contract as
    /// [`Mesh::closest_hit_batch`].
    pub fn any_hit_batch(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [bool],
    ) -> Result<(), MeshError> {
        self.batch(
            rays,
            out,
            |ray| self.any_hit(ray, query),
            |r, o| self.any_hit_stream(r, query, o),
            |r, o| self.any_hit_packet(r, query, o),
        )
    }
}

#[cfg(test)]
mod tests {
    use raypick_primitives::{Point3, Vector3};

    use super::*;

    fn plane() -> Mesh {
        let p = |x: f32, y: f32| Point3::new(x, y, 0.0);
        Mesh::new(
            vec![p(0.0, 0.0), p(1.0, 0.0), p(0.0, 1.0), p(1.0, 1.0)],
            vec![[0, 1, 2], [1, 3, 2]],
        )
        .unwrap()
    }

    /// A render row follows itself; rays to random points of the view, and invalid input,
    /// do not.
    #[test]
    fn in_sequence_tells_rows_from_scattered_rays() {
        let mesh = plane();
        let eye = Point3::new(0.5, 0.5, 2.0);
        let row: Vec<Ray> = (0..256)
            .map(|i| Ray::new(eye, Vector3::new(i as f32 * 1e-3 - 0.128, 0.1, -1.0)))
            .collect();
        assert!(mesh.in_sequence(&row));
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let scattered: Vec<Ray> = (0..256)
            .map(|_| Ray::new(eye, Vector3::new(next(), next(), -1.0)))
            .collect();
        assert!(!mesh.in_sequence(&scattered));
        // Every other ray of the row turned around: half the pairs are apart.
        let mut flipped = row.clone();
        for r in flipped.iter_mut().skip(1).step_by(2) {
            r.dir = -r.dir;
        }
        assert!(!mesh.in_sequence(&flipped));
        assert!(!mesh.in_sequence(&row[..1]));
        let empty = Mesh::new(Vec::new(), Vec::new()).unwrap();
        assert!(!empty.in_sequence(&row));
        let nan = vec![Ray::new(Point3::new(f32::NAN, 0.0, 0.0), Vector3::z()); 4];
        assert!(!mesh.in_sequence(&nan));
    }
}
