//! Batches of rays traversed as streams: several rays take turns through the tree, each
//! prefetching what it visits next (`WideBvh::traverse_stream`), with the same leaf sinks as
//! the single-ray queries.

use std::ops::ControlFlow;

use raypick_bvh::wide::{RayTraversal, RayVisitor, StreamRay};
use raypick_bvh::BoxRay;
use raypick_primitives::{Ray, Real};

use super::{AnyHit, Closest, Hit, LeafSink, Leaves, RayQuery};
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
    /// The rays of `rays` as a stream, each with the sink `sink()` makes; `done(index, sink)`
    /// gets each ray's final sink (invalid rays included, untouched).
    #[inline(always)]
    fn stream<'a, S: LeafSink + 'a>(
        &'a self,
        rays: &[Ray],
        query: &RayQuery,
        ordered: bool,
        sink: impl Fn() -> S,
        mut done: impl FnMut(usize, S),
    ) {
        let mut next = rays.iter().enumerate().map(|(index, ray)| Streamed {
            v: Leaves {
                mesh: self,
                k: TriangleRay::new(ray),
                t_min: query.t_min,
                cull: query.cull,
                lanes: LaneHits::default(),
                sink: sink(),
            },
            index,
        });
        with_tree!(&self.wide, t => t.traverse_stream(
            if ordered {
                RayTraversal::nearest_first()
            } else {
                RayTraversal::unordered()
            },
            query.t_min,
            query.t_max,
            || next.next(),
            |s: Streamed<'_, S>| done(s.index, s.v.sink),
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
        let sink = || Closest::new(self, query.t_max);
        self.stream(rays, query, true, sink, |i, c| {
            out[i] = c.best.map(|(h, slot)| self.make_hit(slot, &h));
        });
    }

    /// [`Mesh::any_hit`] of every ray of `rays` into `out` (same length), traversed as a
    /// stream: the same answers.
    pub(crate) fn any_hit_stream(&self, rays: &[Ray], query: &RayQuery, out: &mut [bool]) {
        let sink = || AnyHit {
            t_max: query.t_max,
            found: false,
        };
        self.stream(rays, query, false, sink, |i, a| out[i] = a.found);
    }
}
