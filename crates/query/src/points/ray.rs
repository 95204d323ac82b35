//! World-space queries around a ray: the points and segments within a radius of it (a
//! capsule around the ray from its origin), with the closest approach.

use std::ops::ControlFlow;

use nalgebra::{Point3 as P3, Vector3 as V3};
use raypick_primitives::{Aabb, Ray};

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

/// Closest approach between the ray `o + t d` (t >= 0) and the point `p`: `(t, distance)`.
/// A zero direction gives `t = 0`.
#[must_use]
pub fn closest_ray_point(o: &P3<f64>, d: &V3<f64>, p: &P3<f64>) -> (f64, f64) {
    let dd = d.norm_squared();
    let t = if dd > 0.0 {
        ((p - o).dot(d) / dd).max(0.0)
    } else {
        0.0
    };
    (t, (o + d * t - p).norm())
}

/// Closest approach between the ray `o + t d` (t >= 0) and the segment `a..b`:
/// `(t, u, distance)`. Degenerate segments and zero directions are handled (the segment
/// is then a point, the ray a point).
#[must_use]
pub fn closest_ray_segment(o: &P3<f64>, d: &V3<f64>, a: &P3<f64>, b: &P3<f64>) -> (f64, f64, f64) {
    let e = b - a;
    let (dd, ee) = (d.norm_squared(), e.norm_squared());
    let eval = |t: f64, u: f64| (t, u, (o + d * t - (a + e * u)).norm());
    let best = |c: (f64, f64, f64), acc: &mut (f64, f64, f64)| {
        if c.2 < acc.2 {
            *acc = c;
        }
    };
    // Candidates: the interior stationary point, and each boundary (u = 0, u = 1, t = 0).
    let mut acc = (0.0, 0.0, f64::INFINITY);
    let u_of_t = |t: f64| {
        if ee > 0.0 {
            ((o + d * t - a).dot(&e) / ee).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let t_of_u = |u: f64| {
        if dd > 0.0 {
            ((a + e * u - o).dot(d) / dd).max(0.0)
        } else {
            0.0
        }
    };
    let w = o - a;
    let (de, dw, ew) = (d.dot(&e), d.dot(&w), e.dot(&w));
    let den = dd * ee - de * de;
    if den > 1e-12 * dd * ee {
        let t = ((de * ew - ee * dw) / den).max(0.0);
        let u = ((dd * ew - de * dw) / den).clamp(0.0, 1.0);
        best(eval(t, u), &mut acc);
    }
    for u in [0.0, 1.0] {
        let t = t_of_u(u);
        best(eval(t, u), &mut acc);
    }
    best(eval(0.0, u_of_t(0.0)), &mut acc);
    let t = t_of_u(acc.1);
    best(eval(t, u_of_t(t)), &mut acc);
    acc
}

fn ray64(ray: &Ray) -> (P3<f64>, V3<f64>) {
    (ray.origin.cast::<f64>(), ray.dir.cast::<f64>())
}

/// Lower bound of the distance between the ray and the box, good enough to prune: the
/// box grown by `radius` is tested against the ray with a slab test.
fn box_near_ray(b: &Aabb, o: &P3<f64>, d: &V3<f64>, radius: f64) -> bool {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for k in 0..3 {
        let lo = f64::from(b.min[k]) - radius;
        let hi = f64::from(b.max[k]) + radius;
        if d[k] == 0.0 {
            if o[k] < lo || o[k] > hi {
                return false;
            }
        } else {
            let (a, c) = ((lo - o[k]) / d[k], (hi - o[k]) / d[k]);
            t0 = t0.max(a.min(c));
            t1 = t1.min(a.max(c));
        }
    }
    t0 <= t1 * (1.0 + 1e-9) + 1e-9
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
    if radius.is_nan() || radius < 0.0 || !o.iter().chain(d.iter()).all(|c| c.is_finite()) {
        return out;
    }
    let idx = bvh.prim_indices();
    bvh.traverse_where(
        |b| box_near_ray(b, &o, &d, radius),
        |range| {
            for &index in &idx[range] {
                let (t, u, distance) = approach(&o, &d, index);
                if distance <= radius {
                    out.push(RayNear {
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

    /// The point within `radius` of the ray with the smallest ray parameter.
    #[must_use]
    pub fn nearest_along_ray(&self, ray: &Ray, radius: f64) -> Option<RayNear> {
        self.within_ray(ray, radius).into_iter().next()
    }
}

impl SegmentSet {
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
