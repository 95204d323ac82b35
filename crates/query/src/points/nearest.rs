//! The point of a point set or segment set nearest a query point.

use std::ops::ControlFlow;

use nalgebra::Point3 as P3;
use raypick_primitives::{Aabb, Point3, Real};

use super::{PointSet, SegmentSet};

/// The nearest primitive: its index, the segment parameter (0 for points), the nearest
/// world point and the distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearestPrim {
    /// Index of the point or segment.
    pub index: u32,
    /// Parameter along the segment (0 for points).
    pub u: f64,
    /// The nearest point.
    pub point: P3<f64>,
    /// Distance from the query.
    pub distance: f64,
}

/// The point of segment `a..b` nearest `q`, with its parameter (0 at `a`; a degenerate
/// segment is its one point).
pub(crate) fn closest_on_segment(q: &P3<f64>, a: &P3<f64>, b: &P3<f64>) -> (f64, P3<f64>) {
    let e = b - a;
    let ee = e.norm_squared();
    let u = if ee > 0.0 {
        ((q - a).dot(&e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (u, a + e * u)
}

/// The distance from `q` to the box, in f64, rounded down a little so that the f32 bound
/// never prunes the exact answer.
fn box_dist(b: &Aabb, q: &P3<f64>) -> Real {
    let mut d2 = 0.0;
    for k in 0..3 {
        let c = q[k].clamp(f64::from(b.min[k]), f64::from(b.max[k]));
        d2 += (q[k] - c) * (q[k] - c);
    }
    (d2.sqrt() * (1.0 - 1e-6)) as Real
}

/// The nearest candidate to `q` (in the tree's frame) by `cand(index)`, within `max`.
///
/// `cand` may measure in another frame than the tree's (a scene instance's world), where
/// distances are at least `1 / k` times the tree frame's: `k` is 1 in the tree's own frame,
/// and the inverse of the smallest scale of the instance's transform otherwise.
pub(crate) fn search<C>(
    bvh: &raypick_bvh::Bvh,
    q: &P3<f64>,
    max: f64,
    k: f64,
    cand: C,
) -> Option<NearestPrim>
where
    C: Fn(u32) -> NearestPrim,
{
    if !q.iter().all(|c| c.is_finite()) || max.is_nan() || k.is_nan() || k <= 0.0 {
        return None;
    }
    let idx = bvh.prim_indices();
    let mut best: Option<NearestPrim> = None;
    let bound = |d: f64| (k * d * (1.0 + 1e-6) + 1e-30) as Real;
    bvh.traverse_best_first(
        bound(max),
        |b| box_dist(b, q),
        |range, limit| {
            for pos in range {
                let c = cand(idx[pos]);
                let better = best
                    .as_ref()
                    .is_none_or(|b| (c.distance, c.index) < (b.distance, b.index));
                if c.distance <= max && better {
                    *limit = bound(c.distance);
                    best = Some(c);
                }
            }
            ControlFlow::Continue(())
        },
    );
    best
}

impl PointSet {
    /// The point nearest `q` within `max_distance` (infinity for no limit); ties go to the
    /// smaller index. `None` for an empty set, a non-finite `q` or nothing within range.
    #[must_use]
    pub fn nearest_point(&self, q: Point3<Real>, max_distance: f64) -> Option<NearestPrim> {
        let q64 = q.cast::<f64>();
        search(&self.bvh, &q64, max_distance, 1.0, |i| {
            let p = self.points[i as usize].cast::<f64>();
            NearestPrim {
                index: i,
                u: 0.0,
                point: p,
                distance: (p - q64).norm(),
            }
        })
    }
}

impl SegmentSet {
    /// The point on a segment nearest `q` within `max_distance`; as
    /// [`PointSet::nearest_point`]. A degenerate segment is its one point.
    #[must_use]
    pub fn nearest_point(&self, q: Point3<Real>, max_distance: f64) -> Option<NearestPrim> {
        let q64 = q.cast::<f64>();
        search(&self.bvh, &q64, max_distance, 1.0, |i| {
            let s = self.segments[i as usize];
            let a = self.points[s[0] as usize].cast::<f64>();
            let b = self.points[s[1] as usize].cast::<f64>();
            let (u, p) = closest_on_segment(&q64, &a, &b);
            NearestPrim {
                index: i,
                u,
                point: p,
                distance: (p - q64).norm(),
            }
        })
    }
}
