//! World-space queries over a scene's point and segment sets: what lies within a radius of
//! a ray, the nearest point or segment to a point, and the marquee.
//!
//! Each instance is searched in its own frame, with the radius or distance bound widened
//! by the inverse of the transform's smallest scale (a world distance is at least that
//! scale times the object-space one), and every candidate is measured again in world space
//! in f64, so non-uniform scales and mirrors give exact world answers.

use nalgebra::{Point3 as P3, Vector3 as V3};
use raypick_primitives::ray_segment::{closest_ray_point, closest_ray_segment};
use raypick_primitives::{Point3, Ray, Real};

use super::prims::{PlacedOccluder, PrimData, PrimId, PrimObject};
use super::{Scene, SceneQuery, SelectMode};
use crate::camera::{Camera, ScreenRect, Viewport};
use crate::points::ray::{near_ray_candidates, nearest_along};
use crate::points::{NearestPrim, PickKind, RayNear};

/// A point or segment near a ray, in a scene ([`Scene::prims_within_ray`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenePrimNear {
    /// The set instance.
    pub id: PrimId,
    /// Point or segment.
    pub kind: PickKind,
    /// Its index in the set, the world ray's parameter and the segment's parameter at the
    /// closest approach, and the world distance there.
    pub near: RayNear,
    /// The set's user data.
    pub user_data: u64,
}

/// The point or segment nearest a point, in a scene ([`Scene::nearest_prim`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenePrimNearest {
    /// The set instance.
    pub id: PrimId,
    /// Point or segment.
    pub kind: PickKind,
    /// Its index in the set, the segment's parameter, the nearest world point and the world
    /// distance.
    pub nearest: NearestPrim,
    /// The set's user data.
    pub user_data: u64,
}

/// The points or segments of one set instance a marquee selects ([`Scene::select_rect`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectedPrims {
    /// The set instance.
    pub id: PrimId,
    /// Point or segment.
    pub kind: PickKind,
    /// The selected indices, ascending.
    pub indices: Vec<u32>,
}

fn kind(data: &PrimData) -> PickKind {
    match data {
        PrimData::Points(_) => PickKind::Point,
        PrimData::Segments(_) => PickKind::Segment,
    }
}

/// Object-space bound for a world-space one under `o`'s transform (conservative).
fn widen(o: &PrimObject, d: f64) -> f64 {
    d / f64::from(o.transform.min_scale) * (1.0 + 1e-9)
}

impl Scene {
    /// Every point and segment, over the set instances `query`'s mask accepts, that passes
    /// within `radius` (world units) of the ray `origin + t dir`, `t >= 0` (a capsule
    /// around the ray; the query's interval, culling and filter do not apply). Distances
    /// and parameters are measured in world space, in f64. Sorted by `t`, then id, then
    /// index. A NaN or negative radius or a non-finite ray finds nothing.
    #[must_use]
    pub fn prims_within_ray(
        &self,
        ray: &Ray,
        radius: f64,
        query: &SceneQuery<'_>,
    ) -> Vec<ScenePrimNear> {
        let (o, d): (P3<f64>, V3<f64>) = (ray.origin.cast(), ray.dir.cast());
        let mut out = Vec::new();
        if radius.is_nan() || radius < 0.0 || !o.iter().chain(d.iter()).all(|c| c.is_finite()) {
            return out;
        }
        for (id, obj) in self.prim_objects(query.mask) {
            let m = &obj.transform.m64;
            // The affine map keeps `t`: the object-space ray is the world ray's image.
            let lo = obj.transform.inv64.transform_point(&o);
            let ld = obj.transform.inv64.transform_vector(&d);
            let r = widen(obj, radius);
            let mut push = |index: u32, (t, u, distance): (f64, f64, f64)| {
                if distance <= radius {
                    out.push(ScenePrimNear {
                        id,
                        kind: kind(&obj.data),
                        near: RayNear {
                            index,
                            t,
                            u,
                            distance,
                        },
                        user_data: obj.user_data,
                    });
                }
            };
            match &obj.data {
                PrimData::Points(s) => {
                    near_ray_candidates(&s.bvh, &lo, &ld, r, |i| {
                        let p = m.transform_point(&s.points[i as usize].cast());
                        let (t, dist) = closest_ray_point(&o, &d, &p);
                        push(i, (t, 0.0, dist));
                    });
                }
                PrimData::Segments(s) => {
                    near_ray_candidates(&s.bvh, &lo, &ld, r, |i| {
                        let [a, b] = s.segments[i as usize];
                        let a = m.transform_point(&s.points[a as usize].cast());
                        let b = m.transform_point(&s.points[b as usize].cast());
                        push(i, closest_ray_segment(&o, &d, &a, &b));
                    });
                }
            }
        }
        out.sort_by(|a, b| {
            a.near
                .t
                .total_cmp(&b.near.t)
                .then(a.id.cmp(&b.id))
                .then(a.near.index.cmp(&b.near.index))
        });
        out
    }

    /// The point or segment within `radius` of the ray with the smallest `t` (the first of
    /// [`Scene::prims_within_ray`]), found best-first in each instance without collecting
    /// the others.
    #[must_use]
    pub fn nearest_prim_along_ray(
        &self,
        ray: &Ray,
        radius: f64,
        query: &SceneQuery<'_>,
    ) -> Option<ScenePrimNear> {
        let (o, d): (P3<f64>, V3<f64>) = (ray.origin.cast(), ray.dir.cast());
        let mut best: Option<ScenePrimNear> = None;
        for (id, obj) in self.prim_objects(query.mask) {
            let m = &obj.transform.m64;
            let lo = obj.transform.inv64.transform_point(&o);
            let ld = obj.transform.inv64.transform_vector(&d);
            let r = widen(obj, radius);
            let found = match &obj.data {
                PrimData::Points(s) => nearest_along(&s.bvh, &lo, &ld, r, radius, |i| {
                    let p = m.transform_point(&s.points[i as usize].cast());
                    let (t, dist) = closest_ray_point(&o, &d, &p);
                    (t, 0.0, dist)
                }),
                PrimData::Segments(s) => nearest_along(&s.bvh, &lo, &ld, r, radius, |i| {
                    let [a, b] = s.segments[i as usize];
                    let a = m.transform_point(&s.points[a as usize].cast());
                    let b = m.transform_point(&s.points[b as usize].cast());
                    closest_ray_segment(&o, &d, &a, &b)
                }),
            };
            let Some(near) = found else { continue };
            // Instances come in id order: a tie in t keeps the earlier one.
            if best.is_none_or(|b| near.t < b.near.t) {
                best = Some(ScenePrimNear {
                    id,
                    kind: kind(&obj.data),
                    near,
                    user_data: obj.user_data,
                });
            }
        }
        best
    }

    /// The point of a point set or segment set nearest `q` (world space) within
    /// `max_distance` (infinity for no limit), over the set instances `query`'s mask
    /// accepts, measured in world space in f64. Ties go to the lower id, then the lower
    /// index. `None` for a non-finite `q`, a NaN limit or nothing within it.
    #[must_use]
    pub fn nearest_prim(
        &self,
        q: Point3<Real>,
        max_distance: f64,
        query: &SceneQuery<'_>,
    ) -> Option<ScenePrimNearest> {
        let q64: P3<f64> = q.cast();
        let mut best: Option<ScenePrimNearest> = None;
        for (id, obj) in self.prim_objects(query.mask) {
            let limit = best.map_or(max_distance, |b| b.nearest.distance);
            let m = &obj.transform.m64;
            let lq = obj.transform.inv64.transform_point(&q64);
            let k = widen(obj, 1.0);
            let found = match &obj.data {
                PrimData::Points(s) => crate::points::nearest::search(&s.bvh, &lq, limit, k, |i| {
                    let p = m.transform_point(&s.points[i as usize].cast());
                    NearestPrim {
                        index: i,
                        u: 0.0,
                        point: p,
                        distance: (p - q64).norm(),
                    }
                }),
                PrimData::Segments(s) => {
                    crate::points::nearest::search(&s.bvh, &lq, limit, k, |i| {
                        let [a, b] = s.segments[i as usize];
                        let a = m.transform_point(&s.points[a as usize].cast());
                        let b = m.transform_point(&s.points[b as usize].cast());
                        let (u, point) = crate::points::nearest::closest_on_segment(&q64, &a, &b);
                        NearestPrim {
                            index: i,
                            u,
                            point,
                            distance: (point - q64).norm(),
                        }
                    })
                }
            };
            let Some(n) = found else { continue };
            // Instances come in id order: a tie keeps the earlier one.
            if best.is_none_or(|b| n.distance < b.nearest.distance) {
                best = Some(ScenePrimNearest {
                    id,
                    kind: kind(&obj.data),
                    nearest: n,
                    user_data: obj.user_data,
                });
            }
        }
        best
    }

    /// The points and segments `rect` selects, per set instance `query`'s mask accepts, in
    /// id order (instances with nothing selected are left out): for points, those whose
    /// projection lies in the rectangle between the near and far planes; for segments, by
    /// `mode` ([`crate::points::SegmentSet::select_rect`]). With `visible`, only those the
    /// scene's surfaces (those `query` accepts) do not hide, tested per point and at 16
    /// samples along a segment.
    pub(super) fn select_prims(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        rect: &ScreenRect,
        mode: SelectMode,
        visible: bool,
        query: &SceneQuery<'_>,
    ) -> Vec<SelectedPrims> {
        let mut out = Vec::new();
        for (id, obj) in self.prim_objects(query.mask) {
            let Some(local) = Self::local_camera(camera, obj) else {
                continue;
            };
            let occluder = PlacedOccluder {
                scene: self,
                transform: &obj.transform,
                query: *query,
            };
            let occluder = visible.then_some(&occluder as &dyn crate::points::Occluder);
            let indices = match &obj.data {
                PrimData::Points(s) => s.select_rect(&local, viewport, rect, occluder),
                PrimData::Segments(s) => s.select_rect(&local, viewport, rect, mode, occluder),
            };
            if !indices.is_empty() {
                out.push(SelectedPrims {
                    id,
                    kind: kind(&obj.data),
                    indices,
                });
            }
        }
        out
    }
}
