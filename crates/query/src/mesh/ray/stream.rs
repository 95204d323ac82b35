//! Batches of rays traversed as streams: several rays take turns through the tree, each
//! prefetching what it visits next (`WideBvh::traverse_stream`), with the same leaf sinks as
//! the single-ray queries.

use std::ops::ControlFlow;

use raypick_bvh::wide::{RayTraversal, RayVisitor, StreamRay};
use raypick_bvh::BoxRay;
use raypick_primitives::{Ray, Real};

use super::{ray_extent, traversal_range, AnyHit, Closest, Hit, LeafSink, Leaves, RayQuery};
use crate::mesh::triangle_kernel::{LaneHits, TriangleRay};
use crate::mesh::{with_tree, Mesh};

/// A ray of a batch traversed as a stream (`WideBvh::traverse_stream`): its own kernel and
/// query state, and its place in the batch.
struct Streamed<'a, S> {
    v: Leaves<'a, S, TriangleRay>,
    index: usize,
}

impl<S: LeafSink> RayVisitor for Streamed<'_, S> {
    #[inline(always)]
    fn leaf(&mut self, range: std::ops::Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        self.v.leaf(range, t_max)
    }

    #[inline(always)]
    fn leaf_data(&self, range: std::ops::Range<usize>) -> Option<*const u8> {
        self.v.leaf_data(range)
    }
}

impl<S: LeafSink> StreamRay for Streamed<'_, S> {
    #[inline(always)]
    fn ray(&self) -> &BoxRay {
        &self.v.k.boxes
    }
}

impl Mesh {
    /// The rays of `rays` as a stream, each with the sink `sink(widened t_max, k)` makes (`k`
    /// the prepared ray, `None` for a ray passing beside the mesh, which joins no stream);
    /// `done(index, sink)` gets each ray's final sink (invalid rays included, untouched).
    /// The stream's interval, and every sink's bound, is the union of the rays' widened
    /// ones ([`traversal_range`]): at least each ray's own, and the sinks decide on `t`.
    #[inline(always)]
    fn stream<'a, S: LeafSink + 'a>(
        &'a self,
        rays: &[Ray],
        query: &RayQuery,
        ordered: bool,
        sink: impl Fn(Real, Option<&TriangleRay>) -> S,
        done: impl FnMut(usize, S),
    ) {
        let (mut lo, mut hi) = (query.t_min, query.t_max);
        for ray in rays.iter().filter(|r| r.is_valid()) {
            let (o, d) = (ray.origin, ray.dir);
            let (l, h) = traversal_range(query.t_min, query.t_max, || {
                ray_extent(&self.bounds(), [o.x, o.y, o.z], [d.x, d.y, d.z])
            });
            (lo, hi) = (lo.min(l), hi.max(h));
        }
        // Rays passing beside the mesh get their untouched sink without joining the stream.
        let done = std::cell::RefCell::new(done);
        let mut next = rays.iter().enumerate().filter_map(|(index, ray)| {
            if self.reach.misses(ray, query.t_min) {
                (done.borrow_mut())(index, sink(hi, None));
                return None;
            }
            let k = TriangleRay::new(ray);
            let sink = sink(hi, Some(&k));
            Some(Streamed {
                v: Leaves {
                    mesh: self,
                    k,
                    t_min: query.t_min,
                    cull: query.cull,
                    lanes: LaneHits::default(),
                    sink,
                },
                index,
            })
        });
        with_tree!(&self.wide, t => t.traverse_stream(
            if ordered {
                RayTraversal::nearest_first()
            } else {
                RayTraversal::unordered()
            },
            lo,
            hi,
            || next.next(),
            |s: Streamed<'_, S>| (done.borrow_mut())(s.index, s.v.sink),
        ));
    }

    /// [`Mesh::closest_hit`] of every ray of `rays` into `out` (same length), traversed as
    /// a stream: the same answers.
    pub(crate) fn closest_hit_stream(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [Option<Hit>],
    ) {
        let sink = |bound, k: Option<&TriangleRay>| {
            // A ray beside the mesh keeps its sink untouched: no pad needed.
            let pad = k.map_or(0.0, |k| k.prune_pad(self));
            Closest::new(query.t_max, bound, pad)
        };
        self.stream(rays, query, true, sink, |i, c| {
            out[i] = c.best.map(|(h, slot)| self.make_hit(slot, &h));
        });
    }

    /// [`Mesh::any_hit`] of every ray of `rays` into `out` (same length), traversed as a
    /// stream: the same answers.
    pub(crate) fn any_hit_stream(&self, rays: &[Ray], query: &RayQuery, out: &mut [bool]) {
        let sink = |bound, _: Option<&TriangleRay>| AnyHit::new(query.t_max, bound);
        self.stream(rays, query, false, sink, |i, a| out[i] = a.found);
    }
}
