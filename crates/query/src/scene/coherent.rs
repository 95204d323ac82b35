//! Coherent batches over a scene: tiles of rays whose objects are each answered for the
//! whole tile at once, by the mesh's packet traversals (`Mesh::closest_hit_packet`,
//! `Mesh::any_hit_packet`).

use std::ops::ControlFlow;

use raypick_bvh::wide::PACKET_RAYS as PACKET;
use raypick_primitives::{Ray, Real};
use smallvec::SmallVec;

use super::query::{before, check_batch};
use super::{Geometry, Object, Scene, SceneError, SceneHit, SceneQuery};

impl Scene {
    /// [`Scene::closest_hit`] for every ray of a coherent batch, such as the pixels of a
    /// render in 4 x 4 tiles (16 consecutive rays per tile): `out[i]` gets exactly ray `i`'s
    /// single-ray answer.
    ///
    /// Each tile gathers the objects any of its rays may reach (the top-level tree, ray by
    /// ray), then asks each mesh instance for the whole tile at once, in the instance's
    /// frame, as [`Mesh::closest_hit_coherent`](crate::Mesh::closest_hit_coherent) does (one
    /// packet traversal, each ray bounded by its nearest hit so far); shapes are asked ray
    /// by ray. It pays where the tile's rays run close together (the rays of a render);
    /// for scattered rays use [`Scene::closest_hit_batch`]. In parallel over chunks of rays;
    /// allocates nothing per ray.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] (touching nothing) when the lengths differ.
    pub fn closest_hit_coherent(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [Option<SceneHit>],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        crate::par::fill_groups(
            rays,
            out,
            PACKET,
            |ray| self.closest_hit(ray, query),
            |rays, out| self.closest_hit_tile(rays, query, out),
        );
        Ok(())
    }

    /// [`Scene::any_hit`] for every ray of a coherent batch, into `out`: exactly the
    /// single-ray answers, with the tiles of [`Scene::closest_hit_coherent`] (16
    /// consecutive rays). Each tile's mesh instances are asked for the tile's rays that have
    /// found nothing yet, as one packet in the instance's frame
    /// ([`Mesh::any_hit_coherent`](crate::Mesh::any_hit_coherent)); shapes ray by ray. For
    /// shadow rays from a render's pixels towards a light, and visibility tests of a frame.
    /// In parallel over chunks of rays; allocates nothing per ray.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] (touching nothing) when the lengths differ.
    pub fn any_hit_coherent(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [bool],
    ) -> Result<(), SceneError> {
        check_batch(rays.len(), out.len())?;
        crate::par::fill_groups(
            rays,
            out,
            PACKET,
            |ray| self.any_hit(ray, query),
            |rays, out| self.any_hit_tile(rays, query, out),
        );
        Ok(())
    }

    /// The objects some ray of `rays` (at most [`PACKET`]) could reach through its own
    /// top-level traversal, each with the rays (bit `i`: ray `i`) that could: a ray is asked
    /// only about those, as its single-ray query is (a ray that passes just beside an
    /// object's box could still graze the object in its frame, where its single-ray query
    /// never looks).
    fn tile_objects(&self, rays: &[Ray], query: &SceneQuery<'_>) -> SmallVec<[(u32, u32); PACKET]> {
        let mut slots: SmallVec<[(u32, u32); PACKET]> = SmallVec::new();
        for (i, ray) in rays.iter().enumerate().filter(|(_, r)| r.is_valid()) {
            self.visit_ray(ray, query.t_min, query.t_max, |slot, _| {
                match slots.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, rays)) => *rays |= 1 << i,
                    None => slots.push((slot, 1 << i)),
                }
                ControlFlow::Continue(())
            });
        }
        slots
    }

    /// [`Scene::any_hit`] of each ray of a tile (at most [`PACKET`] rays) into `out`; true
    /// when a mesh's packet wasted its work.
    pub(super) fn any_hit_tile(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [bool],
    ) -> bool {
        out.fill(false);
        if !(query.t_min <= query.t_max) {
            return false;
        }
        let mut open = u32::MAX;
        let mut wasteful = false;
        for (slot, mask) in self.tile_objects(rays, query) {
            let mask = mask & open;
            let id = self.id_of(slot);
            let Some(obj) = self.slot_object(slot) else {
                continue;
            };
            if mask == 0 || !query.accepts(id, obj) {
                continue;
            }
            let asked = (0..rays.len()).filter(|i| mask >> i & 1 != 0);
            match &obj.geometry {
                Geometry::Mesh { mesh, .. } if mask.count_ones() > 1 => {
                    let (index, local) = in_object(obj, rays, asked);
                    let mut found = [false; PACKET];
                    wasteful |=
                        mesh.any_hit_packet(&local, &query.ray_query(), &mut found[..index.len()]);
                    for (&i, &f) in index.iter().zip(&found) {
                        if f {
                            out[i] = true;
                            open &= !(1 << i);
                        }
                    }
                }
                _ => {
                    for i in asked {
                        if self.object_any_hit(obj, &obj.transform.ray_to_object(&rays[i]), query) {
                            out[i] = true;
                            open &= !(1 << i);
                        }
                    }
                }
            }
        }
        wasteful
    }

    /// [`Scene::closest_hit`] of each ray of a tile (at most [`PACKET`] rays) into `out`;
    /// true when a mesh's packet wasted its work.
    pub(super) fn closest_hit_tile(
        &self,
        rays: &[Ray],
        query: &SceneQuery<'_>,
        out: &mut [Option<SceneHit>],
    ) -> bool {
        out.fill(None);
        if !(query.t_min <= query.t_max) {
            return false;
        }
        let slots = self.tile_objects(rays, query);
        let mut best_t: [Real; PACKET] = [query.t_max; PACKET];
        let mut wasteful = false;
        for (slot, mask) in slots {
            let id = self.id_of(slot);
            let Some(obj) = self.slot_object(slot) else {
                continue;
            };
            if !query.accepts(id, obj) {
                continue;
            }
            let mut keep = |i: usize, h: SceneHit, best_t: &mut [Real; PACKET]| {
                if out[i].as_ref().is_none_or(|b| before(&h, b)) {
                    best_t[i] = h.t;
                    out[i] = Some(h);
                }
            };
            let asked = (0..rays.len()).filter(|i| mask >> i & 1 != 0);
            match &obj.geometry {
                Geometry::Mesh { id: mid, mesh, .. } if mask.count_ones() > 1 => {
                    let (index, local) = in_object(obj, rays, asked);
                    let mut hits = [None; PACKET];
                    let bound = best_t;
                    wasteful |= mesh.closest_hit_packet(
                        &local,
                        &query.ray_query(),
                        |j| bound[index[j]],
                        &mut hits[..index.len()],
                    );
                    for (&i, h) in index.iter().zip(&hits) {
                        if let Some(h) = h {
                            keep(i, self.mesh_hit(id, obj, *mid, h), &mut best_t);
                        }
                    }
                }
                _ => {
                    for i in asked {
                        let h =
                            self.hit_object(id, obj, &rays[i], query.t_min, best_t[i], query.cull);
                        if let Some(h) = h {
                            keep(i, h, &mut best_t);
                        }
                    }
                }
            }
        }
        wasteful
    }
}

/// The rays `asked` of a tile, by index, and each moved into `obj`'s frame: what a mesh
/// instance's packet query takes.
fn in_object(
    obj: &Object,
    rays: &[Ray],
    asked: impl Iterator<Item = usize>,
) -> (SmallVec<[usize; PACKET]>, SmallVec<[Ray; PACKET]>) {
    let index: SmallVec<[usize; PACKET]> = asked.collect();
    let local = index
        .iter()
        .map(|&i| obj.transform.ray_to_object(&rays[i]))
        .collect();
    (index, local)
}
