//! parry3d shapes in the scene: boxes, ray casts and point projection in object space.

use parry3d::query::Ray as PRay;
use parry3d::shape::{FeatureId, SharedShape};
use raypick_primitives::{Aabb, Point3, Ray, Real, Vector3};

use super::transform::{is_finite_box, InstanceTransform};

/// The world box of a shape under `t`; `(-inf, +inf)` on every axis for unbounded shapes
/// (half-spaces), which the scene then tests on every query.
pub(crate) fn shape_world_box(shape: &SharedShape, t: &InstanceTransform) -> Aabb {
    let local = shape.compute_local_aabb();
    let b = Aabb::new(local.mins, local.maxs);
    if is_finite_box(&b) {
        t.box_to_world(&b)
    } else {
        Aabb::new(
            Point3::new(Real::NEG_INFINITY, Real::NEG_INFINITY, Real::NEG_INFINITY),
            Point3::new(Real::INFINITY, Real::INFINITY, Real::INFINITY),
        )
    }
}

/// A ray hit on a shape, in object space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShapeHit {
    pub t: Real,
    /// Outward normal (not necessarily unit).
    pub normal: Vector3<Real>,
    /// True when the ray enters the shape here.
    pub front_face: bool,
    pub feature: FeatureId,
}

/// The first surface crossing of `ray` (object space) with `t_min <= t <= t_max`.
///
/// From outside, parry's cast gives the entry. From inside a bounded convex shape, the exit
/// is parry's hit of the reversed ray started beyond the bounding sphere (parry's own
/// non-solid cast from inside is only accurate to about 1e-3); other shapes use parry's
/// non-solid cast. parry has no `t_min`: the origin moves to `ray.at(t_min)` first when
/// `t_min != 0`. parry gets a unit direction (its inside case mixes unit and non-unit
/// lengths) and `t` is scaled back into units of `ray.dir`.
pub(crate) fn cast(shape: &SharedShape, ray: &Ray, t_min: Real, t_max: Real) -> Option<ShapeHit> {
    if !ray.is_valid() || !(t_min <= t_max) {
        return None;
    }
    let origin = if t_min != 0.0 {
        ray.at(t_min)
    } else {
        ray.origin
    };
    if !origin.iter().all(|c| c.is_finite()) {
        return None;
    }
    let len = ray.dir.norm();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let unit = ray.dir / len;
    let inside = shape.contains_local_point(&origin);
    if inside && is_bounded_convex(shape) {
        let (t_local, normal, feature) = exit_of_convex(shape, &origin, &unit)?;
        let t = t_min + t_local / len;
        return (t >= t_min && t <= t_max).then_some(ShapeHit {
            t,
            normal,
            front_face: false,
            feature,
        });
    }
    let pray = PRay::new(origin, unit);
    let max_s = (t_max - t_min) * len;
    let (start, hit) = match shape.cast_local_ray_and_get_normal(&pray, max_s, false) {
        Some(h) => (0.0, h),
        None => retry_from_sphere(shape, &origin, &unit, max_s)?,
    };
    let t = t_min + (start + hit.time_of_impact) / len;
    if !(t >= t_min && t <= t_max) {
        return None;
    }
    // parry's normal faces the ray for hits from inside; orient it outward ourselves.
    let front_face = !inside;
    let mut normal = hit.normal;
    let along = normal.dot(&ray.dir);
    if (front_face && along > 0.0) || (!front_face && along < 0.0) {
        normal = -normal;
    }
    Some(ShapeHit {
        t,
        normal,
        front_face,
        feature: hit.feature,
    })
}

/// parry 0.25's GJK ray cast misses about 7 in 100,000 rays aimed through a capsule's core
/// (measured); a second cast, started on the bounding sphere instead of far away, catches
/// them. Only bounded convex shapes whose bounding sphere the line crosses are retried.
fn retry_from_sphere(
    shape: &SharedShape,
    origin: &Point3<Real>,
    unit: &Vector3<Real>,
    max_s: Real,
) -> Option<(Real, parry3d::query::RayIntersection)> {
    if !is_bounded_convex(shape) {
        return None;
    }
    let bs = shape.compute_local_bounding_sphere();
    let tc = (bs.center - origin).dot(unit);
    let off2 = (bs.center - (origin + unit * tc)).norm_squared();
    if off2 > bs.radius * bs.radius {
        return None;
    }
    let start = (tc - bs.radius * 1.01).max(0.0);
    if start == 0.0 {
        return None;
    }
    let pray = PRay::new(origin + unit * start, *unit);
    let hit = shape.cast_local_ray_and_get_normal(&pray, max_s - start, false)?;
    Some((start, hit))
}

fn is_bounded_convex(shape: &SharedShape) -> bool {
    let b = shape.compute_local_aabb();
    shape.is_convex() && b.mins.iter().chain(b.maxs.iter()).all(|c| c.is_finite())
}

/// Where the line `origin + s * unit` leaves a bounded convex shape, as `(s, outward
/// normal, feature)`: parry's first hit of the reversed ray started beyond the bounding
/// sphere. `s` may be negative (the shape lies behind the origin).
fn exit_of_convex(
    shape: &SharedShape,
    origin: &Point3<Real>,
    unit: &Vector3<Real>,
) -> Option<(Real, Vector3<Real>, FeatureId)> {
    let bs = shape.compute_local_bounding_sphere();
    let tc = (bs.center - origin).dot(unit);
    let beyond =
        tc + 2.0 * bs.radius + 1e-3 * (1.0 + bs.center.coords.norm() + origin.coords.norm());
    let back = PRay::new(origin + unit * beyond, -unit);
    let hit = shape.cast_local_ray_and_get_normal(&back, Real::MAX, true)?;
    let mut normal = hit.normal;
    if normal.dot(unit) < 0.0 {
        normal = -normal;
    }
    Some((beyond - hit.time_of_impact, normal, hit.feature))
}

/// Every surface crossing in `[t_min, t_max]`, in increasing `t`.
///
/// A bounded convex shape is crossed at most twice: the entry is parry's first hit from the
/// origin, the exit parry's first hit of the reversed ray started beyond the shape's
/// bounding sphere. Other shapes use repeated non-solid casts,
/// each starting just past the previous crossing. The step past a crossing is 1e-4 of the
/// shape's local box diagonal, or 1e-5 of the coordinates' magnitude when that is larger (so
/// that f32 rounding of the new origin cannot land it back outside); at most 64 crossings
/// are reported. Crossings closer together than that step are reported once.
pub(crate) fn cast_all(
    shape: &SharedShape,
    ray: &Ray,
    t_min: Real,
    t_max: Real,
    mut out: impl FnMut(ShapeHit),
) {
    let local = shape.compute_local_aabb();
    let diag = (local.maxs - local.mins).norm();
    let dir_len = ray.dir.norm();
    if !(dir_len > 0.0 && dir_len.is_finite()) {
        return;
    }
    let diag = if diag.is_finite() { diag } else { 1.0 };
    if is_bounded_convex(shape) {
        convex_crossings(shape, ray, t_min, t_max, &mut out);
        return;
    }
    let mut t0 = t_min;
    for _ in 0..64 {
        let Some(h) = cast(shape, ray, t0, t_max) else {
            return;
        };
        out(h);
        let magnitude = ray.origin.coords.norm() + (h.t * dir_len).abs();
        let step = (1e-4 * diag).max(1e-5 * magnitude) / dir_len;
        let next = h.t + step;
        if !(next > t0) {
            return;
        }
        t0 = next;
    }
}

/// Entry and exit of a bounded convex shape (see [`cast_all`]).
fn convex_crossings(
    shape: &SharedShape,
    ray: &Ray,
    t_min: Real,
    t_max: Real,
    out: &mut impl FnMut(ShapeHit),
) {
    let len = ray.dir.norm();
    let unit = ray.dir / len;
    // Entry: only when the ray starts outside (otherwise the first hit is the exit).
    let first = cast(shape, ray, t_min, t_max);
    if let Some(h) = first.filter(|h| h.front_face) {
        out(h);
    }
    let Some((s, normal, feature)) = exit_of_convex(shape, &ray.origin, &unit) else {
        return;
    };
    let t = s / len;
    if !(t >= t_min && t <= t_max) || first.is_some_and(|f| f.front_face && t <= f.t) {
        return;
    }
    if first.is_none() && !shape.contains_local_point(&ray.at(t_min)) {
        // The line crosses the shape only before t_min (or grazes it): no exit in range.
        return;
    }
    out(ShapeHit {
        t,
        normal,
        front_face: false,
        feature,
    });
}

/// The closest surface point of a shape to `p` (object space, non-solid: a point inside
/// projects onto the boundary) and the squared object-space distance.
pub(crate) fn project(shape: &SharedShape, p: &Point3<Real>) -> (Point3<Real>, Real) {
    let q = shape.project_local_point(p, false).point;
    (q, (q - p).norm_squared())
}
