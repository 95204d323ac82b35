//! Triangle against axis-aligned box overlap: the separating-axis test of Akenine-Möller
//! ("Fast 3D Triangle-Box Overlap Testing", 2001).

use crate::{Aabb, Real, Triangle};

/// True when the (closed) triangle and the (closed) box share a point.
///
/// Tests the 13 candidate separating axes: the three box normals, the triangle normal, and
/// the nine cross products of box and triangle edge directions. Evaluated in f64 relative to
/// the box centre, so the answer is exact up to f64 rounding of f32 input; touching counts
/// as overlap. Degenerate triangles are tested as the segment or point they are (the cross
/// product axes cover that case). An empty box gives `false`. A box with infinite bounds
/// overlaps a triangle with a corner inside it; otherwise any NaN or infinity gives
/// `false`.
///
/// ```
/// use raypick_primitives::{triangle_aabb, Aabb, Point3, Triangle};
/// let unit = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// // A big triangle slicing through the box with no corner inside it.
/// let slice = Triangle::new(
///     Point3::new(-5.0, -5.0, 0.5),
///     Point3::new(10.0, -5.0, 0.5),
///     Point3::new(-5.0, 10.0, 0.5),
/// );
/// assert!(triangle_aabb(&slice, &unit));
/// // The same triangle above the box.
/// let above = Triangle::new(
///     Point3::new(-5.0, -5.0, 1.5),
///     Point3::new(10.0, -5.0, 1.5),
///     Point3::new(-5.0, 10.0, 1.5),
/// );
/// assert!(!triangle_aabb(&above, &unit));
/// ```
#[must_use]
pub fn triangle_aabb(tri: &Triangle, aabb: &Aabb) -> bool {
    if aabb.is_empty() {
        return false;
    }
    if tri.vertices().iter().any(|v| aabb.contains_point(v)) {
        return true;
    }
    let w = |p: &crate::Point3<Real>| [p.x as f64, p.y as f64, p.z as f64];
    let (lo, hi) = (w(&aabb.min), w(&aabb.max));
    let c = [
        0.5 * (lo[0] + hi[0]),
        0.5 * (lo[1] + hi[1]),
        0.5 * (lo[2] + hi[2]),
    ];
    let h = [
        0.5 * (hi[0] - lo[0]),
        0.5 * (hi[1] - lo[1]),
        0.5 * (hi[2] - lo[2]),
    ];
    let v = [w(&tri.a), w(&tri.b), w(&tri.c)].map(|p| [p[0] - c[0], p[1] - c[1], p[2] - c[2]]);
    triangle_box_f64(&v, &h)
}

/// SAT core: triangle `v` (relative to the box centre) against the box `[-h, h]`.
/// Any non-finite value gives `false`.
pub(crate) fn triangle_box_f64(v: &[[f64; 3]; 3], h: &[f64; 3]) -> bool {
    if !v.iter().flatten().chain(h.iter()).all(|x| x.is_finite()) || h.iter().any(|x| *x < 0.0) {
        return false;
    }
    // Box normals: the triangle's own bounding box against the box.
    for j in 0..3 {
        let mn = v[0][j].min(v[1][j]).min(v[2][j]);
        let mx = v[0][j].max(v[1][j]).max(v[2][j]);
        if mn > h[j] || mx < -h[j] {
            return false;
        }
    }
    let e = [sub(v[1], v[0]), sub(v[2], v[1]), sub(v[0], v[2])];
    // Edge cross products: axis = unit_j x e_i.
    for ei in &e {
        for j in 0..3 {
            let mut axis = [0.0; 3];
            let (k1, k2) = ((j + 1) % 3, (j + 2) % 3);
            axis[k1] = -ei[k2];
            axis[k2] = ei[k1];
            if separated(v, h, axis) {
                return false;
            }
        }
    }
    // Triangle normal.
    let n = cross(e[0], e[1]);
    !separated(v, h, n)
}

fn separated(v: &[[f64; 3]; 3], h: &[f64; 3], a: [f64; 3]) -> bool {
    let p = [dot(v[0], a), dot(v[1], a), dot(v[2], a)];
    let r = h[0] * a[0].abs() + h[1] * a[1].abs() + h[2] * a[2].abs();
    let mn = p[0].min(p[1]).min(p[2]);
    let mx = p[0].max(p[1]).max(p[2]);
    mn > r || mx < -r
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
