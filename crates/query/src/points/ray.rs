//! World-space queries around a ray: the points and segments within a radius of it (a
//! capsule around the ray from its origin), with the closest approach.

use std::ops::ControlFlow;

use nalgebra::{Point3 as P3, Vector3 as V3};
use raypick_primitives::{Aabb, Ray, Real};

pub use raypick_primitives::ray_segment::{closest_ray_point, closest_ray_segment};

use super::{PointSet, SegmentSet};

/// A point or segment near a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayNear {
    /// Index of the point or segment.
    pub index: u32,
    /// Ray parameter of the closest approach (in units of the ray's direction).
    pub t: f64,
    /// Segment parameter of the closest approach (0 for points).
    pub u: f64,
    /// Distance between the ray and the primitive at the closest approach.
    pub distance: f64,
}

fn ray64(ray: &Ray) -> (P3<f64>, V3<f64>) {
    (ray.origin.cast::<f64>(), ray.dir.cast::<f64>())
}

/// Where the ray enters the box grown by `radius` (`t >= 0`), or `None` when it misses
/// it: a primitive in the box within `radius` of the ray has its closest approach at a
/// `t` no lower (the ray's point there lies in the grown box). Slightly generous, to stay
/// conservative under rounding.
fn box_entry(b: &Aabb, o: &P3<f64>, d: &V3<f64>, radius: f64) -> Option<f64> {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..3 {
        let lo = f64::from(b.min[k]) - radius;
        let hi = f64::from(b.max[k]) + radius;
        if d[k] == 0.0 {
            if o[k] < lo || o[k] > hi {
                return None;
            }
        } else {
            let (a, c) = ((lo - o[k]) / d[k], (hi - o[k]) / d[k]);
            t0 = t0.max(a.min(c));
            t1 = t1.min(a.max(c));
        }
    }
    (t0 <= t1 * (1.0 + 1e-9) + 1e-9).then_some(t0)
}

fn box_near_ray(b: &Aabb, o: &P3<f64>, d: &V3<f64>, radius: f64) -> bool {
    box_entry(b, o, d, radius).is_some()
}

fn valid(o: &P3<f64>, d: &V3<f64>, radius: f64) -> bool {
    !(radius.is_nan() || radius < 0.0) && o.iter().chain(d.iter()).all(|c| c.is_finite())
}

/// The primitive of `bvh` with the lowest `(t, index)` among those `approach(index)` (its
/// ray parameter, parameter along itself and distance) puts within `radius`: best-first by
/// where the ray enters each box grown by `local_radius`, pruned by the best `t`.
///
/// `o`, `d` and `local_radius` are in the tree's frame; `approach` and `radius` may be in
/// another (a scene instance's world) as long as `t` is the same in both (affine maps keep
/// it) and a primitive within `radius` there is within `local_radius` here.
pub(crate) fn nearest_along(
    bvh: &raypick_bvh::Bvh,
    o: &P3<f64>,
    d: &V3<f64>,
    local_radius: f64,
    radius: f64,
    approach: impl Fn(u32) -> (f64, f64, f64),
) -> Option<RayNear> {
    if !valid(o, d, local_radius) || radius.is_nan() || radius < 0.0 {
        return None;
    }
    let idx = bvh.prim_indices();
    let mut best: Option<RayNear> = None;
    let down = |t: f64| (t - t.abs() * 1e-6 - 1e-30) as Real;
    let up = |t: f64| (t + t.abs() * 1e-6 + 1e-30) as Real;
    bvh.traverse_best_first(
        Real::INFINITY,
        |b| box_entry(b, o, d, local_radius).map_or(Real::INFINITY, down),
        |range, bound| {
            for &index in &idx[range] {
                let (t, u, distance) = approach(index);
                let better = best.is_none_or(|b| (t, index) < (b.t, b.index));
                if distance <= radius && better {
                    *bound = up(t);
                    best = Some(RayNear {
                        index,
                        t,
                        u,
                        distance,
                    });
                }
            }
            ControlFlow::Continue(())
        },
    );
    best
}

/// Calls `each(index)` for every primitive of `bvh` whose box, grown by `radius`, the ray
/// `o + t d` (t >= 0) passes through; nothing for a NaN or negative radius or a non-finite
/// ray.
pub(crate) fn near_ray_candidates(
    bvh: &raypick_bvh::Bvh,
    o: &P3<f64>,
    d: &V3<f64>,
    radius: f64,
    mut each: impl FnMut(u32),
) {
    if !valid(o, d, radius) {
        return;
    }
    let idx = bvh.prim_indices();
    bvh.traverse_where(
        |b| box_near_ray(b, o, d, radius),
        |range| {
            for &index in &idx[range] {
                each(index);
            }
            ControlFlow::Continue(())
        },
    );
}

/// Every primitive of `bvh` within `radius` of the ray, by `approach(primitive)` (its ray
/// parameter, parameter along itself and distance), sorted by ray parameter then index.
fn within_ray(
    bvh: &raypick_bvh::Bvh,
    ray: &Ray,
    radius: f64,
    approach: impl Fn(&P3<f64>, &V3<f64>, u32) -> (f64, f64, f64),
) -> Vec<RayNear> {
    let (o, d) = ray64(ray);
    let mut out = Vec::new();
    near_ray_candidates(bvh, &o, &d, radius, |index| {
        let (t, u, distance) = approach(&o, &d, index);
        if distance <= radius {
            out.push(RayNear {
                index,
                t,
                u,
                distance,
            });
        }
    });
    out.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.index.cmp(&b.index)));
    out
}

impl PointSet {
    /// Every point within `radius` of the ray (t >= 0), sorted by ray parameter then index.
    /// A NaN or negative radius or a non-finite ray finds nothing.
    #[must_use]
    pub fn within_ray(&self, ray: &Ray, radius: f64) -> Vec<RayNear> {
        within_ray(&self.bvh, ray, radius, |o, d, i| {
            let (t, dist) = closest_ray_point(o, d, &self.points[i as usize].cast());
            (t, 0.0, dist)
        })
    }

    /// The point within `radius` of the ray with the smallest ray parameter (ties to the
    /// lower index): the first of [`PointSet::within_ray`], found best-first without
    /// collecting the others.
    #[must_use]
    pub fn nearest_along_ray(&self, ray: &Ray, radius: f64) -> Option<RayNear> {
        let (o, d) = ray64(ray);
        nearest_along(&self.bvh, &o, &d, radius, radius, |i| {
            let (t, dist) = closest_ray_point(&o, &d, &self.points[i as usize].cast());
            (t, 0.0, dist)
        })
    }
}

impl SegmentSet {
    /// The segment within `radius` of the ray whose closest approach has the smallest ray
    /// parameter (ties to the lower index): the first of [`SegmentSet::within_ray`].
    #[must_use]
    pub fn nearest_along_ray(&self, ray: &Ray, radius: f64) -> Option<RayNear> {
        let (o, d) = ray64(ray);
        nearest_along(&self.bvh, &o, &d, radius, radius, |i| {
            let s = self.segments[i as usize];
            let a = self.points[s[0] as usize].cast();
            let b = self.points[s[1] as usize].cast();
            closest_ray_segment(&o, &d, &a, &b)
        })
    }

    /// Every segment passing within `radius` of the ray (t >= 0), with its closest
    /// approach, sorted by ray parameter then index.
    #[must_use]
    pub fn within_ray(&self, ray: &Ray, radius: f64) -> Vec<RayNear> {
        within_ray(&self.bvh, ray, radius, |o, d, i| {
            let s = self.segments[i as usize];
            let a = self.points[s[0] as usize].cast();
            let b = self.points[s[1] as usize].cast();
            closest_ray_segment(o, d, &a, &b)
        })
    }
}
