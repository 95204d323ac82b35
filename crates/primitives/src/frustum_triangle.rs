//! Frustum against triangle classification.

use crate::{Classification, Frustum, Triangle};

/// Classifies `tri` against `frustum`.
///
/// [`Classification::Inside`] when all three corners are strictly inside all six planes
/// (touching is `Intersecting`, as for the other kernels);
/// `Outside` only when the triangle is truly separated from the frustum: strictly outside
/// one frustum plane, or separated along the triangle's normal or along a cross product of a
/// frustum edge and a triangle edge (the full separating-axis set). Otherwise
/// `Intersecting`.
///
/// Conservativeness: plane distances are evaluated in f64 against the planes as stored and
/// are exact for practical purposes. The other axes project the frustum's corners (computed
/// in f64 from the f32 planes), so there a separation must exceed a few f32 ulps of the
/// coordinates to count; a triangle closer than that is `Intersecting`. A frustum with its
/// far plane at infinity is handled exactly too (its side edges are unbounded). Only when the
/// corners cannot be computed (a degenerate frustum) are the six planes tried alone. Degenerate triangles are tested as the segment or point they are.
/// A NaN or infinite corner gives `Intersecting`.
///
/// ```
/// use raypick_primitives::{frustum_triangle, Classification, DepthRange, Frustum, Point3,
///     Triangle};
/// use nalgebra::Matrix4;
/// let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne);
/// // Beyond the corner (1, 1, 1): no single plane has all three corners outside, the
/// // triangle's own normal separates it.
/// let tilted = Triangle::new(
///     Point3::new(3.5, 0.0, 0.0),
///     Point3::new(0.0, 3.5, 0.0),
///     Point3::new(0.0, 0.0, 3.5),
/// );
/// assert_eq!(frustum_triangle(&f, &tilted), Classification::Outside);
/// ```
#[must_use]
pub fn frustum_triangle(frustum: &Frustum, tri: &Triangle) -> Classification {
    let w =
        |p: &crate::Point3<crate::Real>| nalgebra::Vector3::new(p.x as f64, p.y as f64, p.z as f64);
    let v = [w(&tri.a), w(&tri.b), w(&tri.c)];
    if !v.iter().flat_map(|p| p.iter()).all(|x| x.is_finite()) {
        return Classification::Intersecting;
    }
    let mut all_inside = true;
    for pl in frustum.planes() {
        let n = pl.normal.into_inner().cast::<f64>();
        let o = pl.offset as f64;
        let d = v.map(|p| n.dot(&p) - o);
        if d.iter().all(|x| *x > 0.0) {
            return Classification::Outside;
        }
        if !d.iter().all(|x| *x < 0.0) {
            all_inside = false;
        }
    }
    if all_inside {
        return Classification::Inside;
    }
    let Some(hull) = frustum.hull() else {
        return Classification::Intersecting;
    };
    let tri_scale = v
        .iter()
        .flat_map(|p| p.iter())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let separated = |axis: nalgebra::Vector3<f64>| {
        let len = axis.norm();
        if !(len > 0.0) {
            return false;
        }
        let (flo, fhi) = hull.project(&axis);
        let (mut tlo, mut thi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in &v {
            let d = axis.dot(p);
            tlo = tlo.min(d);
            thi = thi.max(d);
        }
        let tol = hull.tolerance(tri_scale, len);
        tlo > fhi + tol || thi < flo - tol
    };
    if separated(e[0].cross(&e[1])) {
        return Classification::Outside;
    }
    for fe in &hull.edges[..hull.n_edges] {
        for te in &e {
            if separated(fe.cross(te)) {
                return Classification::Outside;
            }
        }
    }
    Classification::Intersecting
}
