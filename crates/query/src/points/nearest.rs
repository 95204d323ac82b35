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

fn box_dist2(b: &Aabb, q: &Point3<Real>) -> Real {
    // Rounded down a little so that the f32 bound never prunes the exact answer.
    (b.closest_point(q) - q).norm_squared() * (1.0 - 1e-5)
}

fn search<C>(bvh: &raypick_bvh::Bvh, q: &Point3<Real>, max: f64, cand: C) -> Option<NearestPrim>
where
    C: Fn(u32) -> NearestPrim,
{
    if !q.iter().all(|c| c.is_finite()) || max.is_nan() {
        return None;
    }
    let idx = bvh.prim_indices();
    let mut best: Option<NearestPrim> = None;
    let lim = (max * max) as Real;
    bvh.traverse_best_first(
        if lim.is_finite() {
            lim * 1.00001
        } else {
            Real::INFINITY
        },
        |b| box_dist2(b, q),
        |range, bound| {
            for pos in range {
                let c = cand(idx[pos]);
                let better = best
                    .as_ref()
                    .is_none_or(|b| (c.distance, c.index) < (b.distance, b.index));
                if c.distance <= max && better {
                    *bound = ((c.distance * c.distance) * (1.0 + 1e-6) + 1e-12) as Real;
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
        search(&self.bvh, &q, max_distance, |i| {
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
        search(&self.bvh, &q, max_distance, |i| {
            let s = self.segments[i as usize];
            let a = self.points[s[0] as usize].cast::<f64>();
            let b = self.points[s[1] as usize].cast::<f64>();
            let e = b - a;
            let ee = e.norm_squared();
            let u = if ee > 0.0 {
                ((q64 - a).dot(&e) / ee).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let p = a + e * u;
            NearestPrim {
                index: i,
                u,
                point: p,
                distance: (p - q64).norm(),
            }
        })
    }
}
