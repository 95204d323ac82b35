//! Closest point on a triangle to a point: Ericson's Voronoi-region method
//! (Real-Time Collision Detection, 5.1.5).

use crate::vec64::{dot, sub, P64};
use crate::{Point3, Real, Triangle};

/// The closest point of a triangle to a query point, with its barycentric coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointTriangleProjection {
    /// The closest point on the (closed) triangle.
    pub point: Point3<Real>,
    /// Barycentric weight of corner `b` (as in [`crate::RayTriangleHit`]).
    pub u: Real,
    /// Barycentric weight of corner `c`; the weight of `a` is `1 - u - v`.
    pub v: Real,
    /// The squared distance from the query point to `point`.
    pub distance_squared: Real,
}

/// The point of `tri` closest to `p`, with barycentrics (Ericson's region method).
///
/// Computed in f64 and rounded once. Degenerate triangles work: a zero-area triangle is
/// treated as the segment or point it collapses to (the barycentrics then name one valid
/// combination). Returns `None` when `p` or a corner is NaN or infinite.
///
/// ```
/// use raypick_primitives::{point_triangle, Point3, Triangle};
/// let tri = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(2.0, 0.0, 0.0),
///     Point3::new(0.0, 2.0, 0.0),
/// );
/// let q = point_triangle(&Point3::new(0.5, 0.5, 3.0), &tri).unwrap();
/// assert_eq!(q.point, Point3::new(0.5, 0.5, 0.0));
/// assert_eq!((q.u, q.v, q.distance_squared), (0.25, 0.25, 9.0));
/// ```
#[must_use]
#[inline]
pub fn point_triangle(p: &Point3<Real>, tri: &Triangle) -> Option<PointTriangleProjection> {
    point_triangle_f64(p, tri).map(|(proj, _)| proj)
}

/// [`point_triangle()`] with the squared distance also in f64, before its rounding to f32:
/// finite for every finite `p` and `tri` (up to about 1.4e78), where the f32 square
/// overflows to infinity once the distance passes about 1.8e19.
///
/// ```
/// use raypick_primitives::{point_triangle_f64, Point3, Triangle};
/// let tri = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(1.0, 0.0, 0.0),
///     Point3::new(0.0, 1.0, 0.0),
/// );
/// let (q, d2) = point_triangle_f64(&Point3::new(0.0, 0.0, 1e20), &tri).unwrap();
/// assert_eq!(q.distance_squared, f32::INFINITY);
/// assert_eq!(d2, f64::from(1e20f32).powi(2)); // the f32 coordinate, squared exactly
/// ```
#[must_use]
#[inline]
pub fn point_triangle_f64(
    p: &Point3<Real>,
    tri: &Triangle,
) -> Option<(PointTriangleProjection, f64)> {
    let w = |q: &Point3<Real>| [q.x as f64, q.y as f64, q.z as f64];
    let all = [w(p), w(&tri.a), w(&tri.b), w(&tri.c)];
    if !all.iter().flatten().all(|c| c.is_finite()) {
        return None;
    }
    let (q, u, v) = closest_f64(all[0], all[1], all[2], all[3]);
    let d = sub(all[0], q);
    let d2 = dot(d, d);
    let proj = PointTriangleProjection {
        point: Point3::new(q[0] as Real, q[1] as Real, q[2] as Real),
        u: u as Real,
        v: v as Real,
        distance_squared: d2 as Real,
    };
    Some((proj, d2))
}

fn lerp(a: P64, b: P64, t: f64) -> P64 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// `n / d`, or 0 when `d` is not positive (a zero-length edge).
fn ratio(n: f64, d: f64) -> f64 {
    if d > 0.0 {
        (n / d).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Closest point of triangle `abc` to `p` in f64, and its barycentrics `(u, v)` of `b`, `c`.
pub(crate) fn closest_f64(p: P64, a: P64, b: P64, c: P64) -> (P64, f64, f64) {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let ap = sub(p, a);
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, 0.0, 0.0);
    }
    // Each edge region also needs its edge to have length (d1 - d3 = |ab|^2 and so on): a
    // zero-length edge of a degenerate triangle must not capture the query.
    let bp = sub(p, b);
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, 1.0, 0.0);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0 {
        let t = ratio(d1, d1 - d3);
        return (lerp(a, b, t), t, 0.0);
    }
    let cp = sub(p, c);
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, 0.0, 1.0);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0 {
        let t = ratio(d2, d2 - d6);
        return (lerp(a, c, t), 0.0, t);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0 {
        let t = ratio(d4 - d3, (d4 - d3) + (d5 - d6));
        return (lerp(b, c, t), 1.0 - t, t);
    }
    let sum = va + vb + vc;
    if !(sum > 0.0) || !sum.is_finite() {
        return closest_on_edges(p, a, b, c);
    }
    let v = vb / sum;
    let w = vc / sum;
    let q = [
        a[0] + ab[0] * v + ac[0] * w,
        a[1] + ab[1] * v + ac[1] * w,
        a[2] + ab[2] * v + ac[2] * w,
    ];
    (q, v, w)
}

/// Fallback for (numerically) degenerate triangles: the best of the three edges.
fn closest_on_edges(p: P64, a: P64, b: P64, c: P64) -> (P64, f64, f64) {
    let seg = |s: P64, e: P64| {
        let d = sub(e, s);
        let t = ratio(dot(sub(p, s), d), dot(d, d));
        let q = lerp(s, e, t);
        let r = sub(p, q);
        (q, t, dot(r, r))
    };
    let (q0, t0, d0) = seg(a, b);
    let (q1, t1, d1) = seg(b, c);
    let (q2, t2, d2) = seg(c, a);
    if d0 <= d1 && d0 <= d2 {
        (q0, t0, 0.0)
    } else if d1 <= d2 {
        (q1, 1.0 - t1, t1)
    } else {
        (q2, 0.0, 1.0 - t2)
    }
}

/// A lower bound on the squared distance from `p` to each of `N` triangles (the lanes), in
/// f32, for rejecting triangles before the exact [`point_triangle()`].
///
/// `rows[3 * corner + axis][lane]` holds that coordinate of lane `lane`'s triangle. `scale`
/// must be at least the largest coordinate magnitude of `p` and of every corner. Then, for
/// finite inputs, the square root of each result is at most the exact distance plus
/// `1e-5 * scale` (about 80 f32 steps at that magnitude; the property tests hold it on
/// slivers, far points and large offsets): a triangle with
/// `sqrt(bound) > sqrt(best) + 1e-5 * scale` is not nearer than `best`.
///
/// Branch-free per lane, so that it compiles to SIMD: the distance to each edge segment,
/// and the distance to the triangle's plane wherever the projection of `p` may fall inside
/// the triangle (a lower bound there, so doubtful sides take it). Degenerate triangles get
/// their edges' distance. Non-finite inputs give unspecified values.
#[must_use]
#[inline(always)]
pub fn point_triangle_lower_bounds<const N: usize>(
    p: [Real; 3],
    rows: &[[Real; N]; 9],
    scale: Real,
) -> [Real; N] {
    // Each side test `n . (e x x)` is off by rounding of order eps |n| |e| |x|, and |x| is at
    // most 6 scale (L1): within 7e-6 scale |n|_1 |e|_1 (some 60 eps in L1 norms, which
    // exceed the Euclidean ones), the projection counts as inside.
    let tol = 1e-6 * 7.0 * scale;
    let mut out = [0.0; N];
    for (l, out) in out.iter_mut().enumerate() {
        let v = |c: usize| [rows[3 * c][l], rows[3 * c + 1][l], rows[3 * c + 2][l]];
        *out = lower_bound_lane(p, v(0), v(1), v(2), tol);
    }
    out
}

type V32 = [Real; 3];

#[inline(always)]
fn sub32(a: V32, b: V32) -> V32 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
fn dot32(a: V32, b: V32) -> Real {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
fn cross32(a: V32, b: V32) -> V32 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
fn l1(a: V32) -> Real {
    a[0].abs() + a[1].abs() + a[2].abs()
}

#[inline(always)]
fn min32(a: Real, b: Real) -> Real {
    if a < b {
        a
    } else {
        b
    }
}

/// Squared distance from `x` (relative to the segment's start) to the segment along `e`.
#[inline(always)]
fn segment_d2(x: V32, e: V32) -> Real {
    let ee = dot32(e, e);
    let t = dot32(x, e) / ee;
    // A zero-length edge gives NaN here: the comparisons send it to 0 (its start).
    let t = if t > 0.0 { t } else { 0.0 };
    let t = if t < 1.0 { t } else { 1.0 };
    let d = [x[0] - t * e[0], x[1] - t * e[1], x[2] - t * e[2]];
    dot32(d, d)
}

#[inline(always)]
fn lower_bound_lane(p: V32, a: V32, b: V32, c: V32, tol: Real) -> Real {
    let (ab, bc, ca) = (sub32(b, a), sub32(c, b), sub32(a, c));
    let (ap, bp, cp) = (sub32(p, a), sub32(p, b), sub32(p, c));
    let edges = min32(
        min32(segment_d2(ap, ab), segment_d2(bp, bc)),
        segment_d2(cp, ca),
    );
    let n = cross32(ab, sub32(c, a));
    let nn = dot32(n, n);
    // `p` projects inside when it lies on the inner side of the three edges.
    let nl = l1(n) * tol;
    let side = |e: V32, x: V32| dot32(n, cross32(e, x)) >= -nl * l1(e);
    let inside = side(ab, ap) && side(bc, bp) && side(ca, cp);
    let h = dot32(n, ap);
    let plane = h * h / nn;
    if inside && nn > 0.0 && plane < edges {
        plane
    } else {
        edges
    }
}
