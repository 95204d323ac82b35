//! Distance and intersection between two triangles, in f64.
//!
//! Two triangles are at distance 0 when an edge of one pierces the other; otherwise their
//! closest points are a corner of one and its closest point on the other, or the closest
//! points of two edges (Ericson, Real-Time Collision Detection, 5.1.9). Coplanar overlaps
//! reach 0 through those features too (crossing edges, or a corner inside the other).

use crate::point_triangle::closest_f64;
use crate::vec64::{cross, dot, sub, P64};
use crate::{Point3, Real, Triangle};

/// The closest points of two triangles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleTriangleDistance {
    /// The point of the first triangle nearest the second.
    pub point_a: Point3<Real>,
    /// The point of the second triangle nearest the first.
    pub point_b: Point3<Real>,
    /// Their distance, computed in f64 and rounded once; 0 when the triangles touch.
    pub distance: Real,
}

fn lerp(a: P64, b: P64, t: f64) -> P64 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn dist2(a: P64, b: P64) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

/// The point where segment `pq` crosses triangle `abc` strictly through its plane (the
/// endpoints on opposite sides) inside the closed triangle, if it does.
fn segment_pierces(p: P64, q: P64, [a, b, c]: [P64; 3]) -> Option<P64> {
    let n = cross(sub(b, a), sub(c, a));
    let (dp, dq) = (dot(sub(p, a), n), dot(sub(q, a), n));
    if !((dp > 0.0 && dq < 0.0) || (dp < 0.0 && dq > 0.0)) {
        return None;
    }
    let x = lerp(p, q, dp / (dp - dq));
    let s0 = dot(cross(sub(b, a), sub(x, a)), n);
    let s1 = dot(cross(sub(c, b), sub(x, b)), n);
    let s2 = dot(cross(sub(a, c), sub(x, c)), n);
    (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0).then_some(x)
}

/// Closest points of segments `p1 q1` and `p2 q2` (Ericson 5.1.9), zero-length segments
/// included.
fn segment_segment(p1: P64, q1: P64, p2: P64, q2: P64) -> (P64, P64) {
    let (d1, d2, r) = (sub(q1, p1), sub(q2, p2), sub(p1, p2));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let (s, t);
    if a <= 0.0 && e <= 0.0 {
        return (p1, p2);
    }
    if a <= 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = dot(d1, r);
        if e <= 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (lerp(p1, q1, s), lerp(p2, q2, t))
}

fn p64(p: &Point3<Real>) -> P64 {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}

fn point(p: P64) -> Point3<Real> {
    Point3::new(p[0] as Real, p[1] as Real, p[2] as Real)
}

/// The closest points of triangles `a` and `b` and their distance, in f64 (rounded once).
///
/// Degenerate triangles work (as the segments or points they are). Touching or
/// intersecting triangles give distance 0 with both points at one common point. The
/// distance is never below the gap between the triangles' boxes (where the corners'
/// magnitudes differ by many orders, rounding could otherwise put it there; the points are
/// then the features' closest points as computed). `None` when a corner is NaN or infinite.
///
/// ```
/// use raypick_primitives::{triangle_triangle_distance, Point3, Triangle};
/// let a = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(1.0, 0.0, 0.0),
///     Point3::new(0.0, 1.0, 0.0),
/// );
/// let b = Triangle::new(
///     Point3::new(0.0, 0.0, 2.0),
///     Point3::new(1.0, 0.0, 2.0),
///     Point3::new(0.0, 1.0, 3.0),
/// );
/// let d = triangle_triangle_distance(&a, &b).unwrap();
/// assert_eq!(d.distance, 2.0);
/// ```
#[must_use]
pub fn triangle_triangle_distance(a: &Triangle, b: &Triangle) -> Option<TriangleTriangleDistance> {
    let (ta, tb) = (corners(a), corners(b));
    let (d2, pa, pb) = closest(ta, tb)?;
    // Where the corners' magnitudes differ by many orders (a triangle 1e30 across beside one
    // of size 1), the plane and edge tests round by more than the distance: the box gap is
    // a bound they cannot then undercut.
    let d2 = d2.max(box_gap2(&ta, &tb));
    Some(TriangleTriangleDistance {
        point_a: point(pa),
        point_b: point(pb),
        distance: d2.sqrt() as Real,
    })
}

/// A triangle's corners in f64 (exactly).
fn corners(t: &Triangle) -> [P64; 3] {
    t.vertices().map(|p| p64(&p))
}

/// The squared gap between the boxes of `ta` and `tb` (0 where they overlap or touch): no
/// point of one triangle is nearer the other. Exact up to one rounding of each difference and
/// of the sum.
fn box_gap2(ta: &[P64; 3], tb: &[P64; 3]) -> f64 {
    let mut g2 = 0.0;
    for k in 0..3 {
        let lo = |t: &[P64; 3]| t[0][k].min(t[1][k]).min(t[2][k]);
        let hi = |t: &[P64; 3]| t[0][k].max(t[1][k]).max(t[2][k]);
        let gap = (lo(ta) - hi(tb)).max(lo(tb) - hi(ta)).max(0.0);
        g2 += gap * gap;
    }
    g2
}

/// The squared distance of triangles `ta` and `tb` and their closest points, in f64.
fn closest(ta: [P64; 3], tb: [P64; 3]) -> Option<(f64, P64, P64)> {
    if !ta.iter().chain(&tb).flatten().all(|c| c.is_finite()) {
        return None;
    }
    for k in 0..3 {
        if let Some(x) = segment_pierces(ta[k], ta[(k + 1) % 3], tb) {
            return Some((0.0, x, x));
        }
        if let Some(x) = segment_pierces(tb[k], tb[(k + 1) % 3], ta) {
            return Some((0.0, x, x));
        }
    }
    let mut best = (f64::INFINITY, ta[0], tb[0]);
    let mut consider = |pa: P64, pb: P64| {
        let d = dist2(pa, pb);
        if d < best.0 {
            best = (d, pa, pb);
        }
    };
    for k in 0..3 {
        let (q, _, _) = closest_f64(ta[k], tb[0], tb[1], tb[2]);
        consider(ta[k], q);
        let (q, _, _) = closest_f64(tb[k], ta[0], ta[1], ta[2]);
        consider(q, tb[k]);
    }
    for i in 0..3 {
        for j in 0..3 {
            let (pa, pb) = segment_segment(ta[i], ta[(i + 1) % 3], tb[j], tb[(j + 1) % 3]);
            consider(pa, pb);
        }
    }
    Some(best)
}

/// True when triangles `a` and `b` share a point (closed triangles, touching counts):
/// [`triangle_triangle_distance`] is 0 in f64, before rounding. False when a corner is NaN
/// or infinite.
///
/// ```
/// use raypick_primitives::{triangle_triangle, Point3, Triangle};
/// let a = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(2.0, 0.0, 0.0),
///     Point3::new(0.0, 2.0, 0.0),
/// );
/// // Pierces a's interior.
/// let b = Triangle::new(
///     Point3::new(0.5, 0.5, -1.0),
///     Point3::new(0.5, 0.5, 1.0),
///     Point3::new(0.6, 0.5, 1.0),
/// );
/// assert!(triangle_triangle(&a, &b));
/// ```
#[must_use]
pub fn triangle_triangle(a: &Triangle, b: &Triangle) -> bool {
    let (ta, tb) = (corners(a), corners(b));
    // Disjoint boxes first: exact, cheap, and right where the plane tests below round by
    // more than the gap (corners of very different magnitudes).
    if box_gap2(&ta, &tb) > 0.0 || separated(&ta, &tb) || separated(&tb, &ta) {
        return false;
    }
    closest(ta, tb).is_some_and(|(d2, _, _)| d2 == 0.0)
}

/// True when `u` lies strictly on one side of the plane of `t` with a margin of 2^-24 of
/// the pair's largest coordinate: no computation of [`closest`] (whose roundings are about
/// 2^-50 of it) can then find a common point, so the answer is the same, without the
/// distance computation (most of the cost where many nearby pairs are tested). False for a
/// degenerate `t` or non-finite corners (NaN fails every comparison).
fn separated(t: &[P64; 3], u: &[P64; 3]) -> bool {
    let n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    let scale = t
        .iter()
        .chain(u)
        .flatten()
        .fold(0.0f64, |m, c| m.max(c.abs()));
    let margin = scale * dot(n, n).sqrt() * f64::from(f32::EPSILON) * 0.5;
    let h = u.map(|p| dot(sub(p, t[0]), n));
    h.iter().all(|&x| x > margin) || h.iter().all(|&x| x < -margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tri(p: [[f32; 3]; 3]) -> Triangle {
        let [a, b, c] = p.map(|v| Point3::new(v[0], v[1], v[2]));
        Triangle::new(a, b, c)
    }

    /// A triangle 1e30 across beside one of size 1, 0.5 apart (their boxes too): the plane
    /// and edge tests round by far more than that, and said they touch; the box gap does
    /// not. (The distance itself is only as accurate as the largest coordinate allows.)
    #[test]
    fn magnitudes_far_apart() {
        let small = tri([[0.0, -1.5, 0.0], [-2.0, -0.5, -1.0], [0.0, -0.5, 1.0]]);
        let huge = tri([
            [1.5e30, 0.0, -7.5e29],
            [-1.5e30, 1.5e30, 7.5e29],
            [-1.5e30, 0.0, 7.5e29],
        ]);
        for (a, b) in [(&small, &huge), (&huge, &small)] {
            assert!(!triangle_triangle(a, b));
            assert!(triangle_triangle_distance(a, b).unwrap().distance >= 0.5);
        }
    }

    #[test]
    fn hand_cases() {
        let a = tri([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
        // Parallel, above: distance 1 from a corner of b to a's interior.
        let b = tri([[0.5, 0.5, 1.0], [3.0, 0.5, 1.0], [0.5, 3.0, 1.0]]);
        let d = triangle_triangle_distance(&a, &b).unwrap();
        assert_eq!(d.distance, 1.0);
        assert!(!triangle_triangle(&a, &b));
        // Edge against edge, skew: (x, 0, 0)-ish edges 3 apart.
        let c = tri([[1.0, -1.0, 3.0], [1.0, 1.0, 3.0], [1.0, 0.0, 5.0]]);
        let d = triangle_triangle_distance(&a, &c).unwrap();
        assert_eq!(d.distance, 3.0);
        assert_eq!(d.point_a.z, 0.0);
        // Touching at a corner, sharing an edge, coplanar overlap, crossing.
        let touch = tri([[2.0, 0.0, 0.0], [3.0, 0.0, 0.0], [3.0, 1.0, 1.0]]);
        assert!(triangle_triangle(&a, &touch));
        let shared = tri([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [2.0, 2.0, 0.0]]);
        assert!(triangle_triangle(&a, &shared));
        let coplanar = tri([[0.2, 0.2, 0.0], [0.5, 0.2, 0.0], [0.2, 0.5, 0.0]]);
        assert!(triangle_triangle(&a, &coplanar));
        let cross = tri([[0.5, -1.0, -1.0], [0.5, 1.0, 1.0], [0.5, -1.0, 1.0]]);
        assert!(triangle_triangle(&a, &cross));
        assert_eq!(
            triangle_triangle_distance(&a, &cross).unwrap().distance,
            0.0
        );
        let nan = tri([[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        assert!(triangle_triangle_distance(&a, &nan).is_none());
        assert!(!triangle_triangle(&a, &nan));
    }

    /// The distance over a dense barycentric sampling of both triangles, in f64: an upper
    /// bound, and within the sampling step of the true distance.
    fn sampled(a: &Triangle, b: &Triangle, n: usize) -> f64 {
        let pts = |t: &Triangle| {
            let [p, q, r] = t.vertices().map(|v| p64(&v));
            let mut out = Vec::new();
            for i in 0..=n {
                for j in 0..=n - i {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    out.push([0, 1, 2].map(|k| p[k] + (q[k] - p[k]) * u + (r[k] - p[k]) * v));
                }
            }
            out
        };
        let (pa, pb) = (pts(a), pts(b));
        let mut best = f64::INFINITY;
        for x in &pa {
            for y in &pb {
                best = best.min(dist2(*x, *y));
            }
        }
        best.sqrt()
    }

    fn coord() -> impl Strategy<Value = f32> {
        -2.0f32..2.0
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn against_sampling(v in proptest::array::uniform9(coord()), w in proptest::array::uniform9(coord())) {
            let a = tri([[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]]);
            let b = tri([[w[0], w[1], w[2]], [w[3], w[4], w[5]], [w[6], w[7], w[8]]]);
            let d = triangle_triangle_distance(&a, &b).unwrap();
            let s = sampled(&a, &b, 24);
            // Sampling only over-estimates, by at most the sampling step of both triangles.
            let step = |t: &Triangle| {
                let [p, q, r] = t.vertices();
                ((q - p).norm() + (r - p).norm()) as f64 / 24.0
            };
            prop_assert!(f64::from(d.distance) <= s + 1e-5, "{} > {}", d.distance, s);
            prop_assert!(f64::from(d.distance) >= s - step(&a) - step(&b) - 1e-5);
            // The points are on their triangles and as far apart as reported.
            prop_assert!(((d.point_a - d.point_b).norm() - d.distance).abs() <= 1e-5);
            let on = |p: &Point3<Real>, t: &Triangle| {
                crate::point_triangle(p, t).unwrap().distance_squared <= 1e-9
            };
            prop_assert!(on(&d.point_a, &a) && on(&d.point_b, &b));
            prop_assert!(!triangle_triangle(&a, &b) || d.distance == 0.0);
        }

        /// The plane test that lets `triangle_triangle` skip the distance computation gives
        /// the answer of the distance computation, on triangles lifted off another's plane by
        /// heights around the test's margin (2^-24 of the largest coordinate), touching it,
        /// or straddling it.
        #[test]
        fn plane_test_agrees_with_the_distance(
            v in proptest::array::uniform9(coord()),
            w in proptest::array::uniform6(0.0f32..1.0),
            h in proptest::array::uniform3(-4.0f32..4.0),
            exp in -30i32..-18,
            sign in prop::sample::select(vec![-1.0f32, 1.0, 0.0]),
        ) {
            let a = tri([[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]]);
            let [p, q, r] = a.vertices();
            let Some(n) = (q - p).cross(&(r - p)).try_normalize(0.0) else {
                return Ok(());
            };
            let scale = 2.0f32.powi(exp);
            // Corners of `b` on `a`'s plane (inside or around `a`), then lifted.
            let corner = |k: usize| {
                let on = p + (q - p) * (2.0 * w[2 * k] - 0.5) + (r - p) * (2.0 * w[2 * k + 1] - 0.5);
                let lift = if sign == 0.0 { h[k] } else { sign * h[k].abs() };
                on + n * (lift * scale)
            };
            let b = tri([0, 1, 2].map(|k| {
                let c = corner(k);
                [c.x, c.y, c.z]
            }));
            let touch = |x: &Triangle, y: &Triangle| {
                closest(corners(x), corners(y)).is_some_and(|(d2, _, _)| d2 == 0.0)
            };
            let slow = touch(&a, &b);
            prop_assert_eq!(triangle_triangle(&a, &b), slow);
            prop_assert_eq!(triangle_triangle(&b, &a), touch(&b, &a));
        }
    }
}
