//! Nearest point on a [`Mesh`]: best-first BVH traversal with an exact per-triangle kernel.

use std::ops::ControlFlow;

use raypick_primitives::{Aabb, Point3, Real};

use super::Mesh;

/// The closest point of a mesh to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearestPoint {
    /// The closest point on the surface.
    pub point: Point3<Real>,
    /// The original index of its triangle.
    pub triangle: u32,
    /// Barycentric weight of the triangle's second corner.
    pub u: Real,
    /// Barycentric weight of the third corner (the first corner's is `1 - u - v`).
    pub v: Real,
    /// The distance from the query point to `point`.
    pub distance: Real,
}

type P64 = [f64; 3];

fn p64(p: &Point3<Real>) -> P64 {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}
fn sub(a: P64, b: P64) -> P64 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: P64, b: P64) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn lerp3(a: P64, b: P64, c: P64, u: f64, v: f64) -> P64 {
    let w = 1.0 - u - v;
    [
        w * a[0] + u * b[0] + v * c[0],
        w * a[1] + u * b[1] + v * c[1],
        w * a[2] + u * b[2] + v * c[2],
    ]
}

/// Closest point on segment `a b` to `p` as the weight of `b` (0 for a zero-length segment).
fn segment_param(p: P64, a: P64, b: P64) -> f64 {
    let ab = sub(b, a);
    let len2 = dot(ab, ab);
    if len2 > 0.0 {
        (dot(sub(p, a), ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The closest point of triangle `tri` to `p`, in f64 (Ericson, Real-Time Collision
/// Detection 5.1.5), as barycentrics `(u, v)` (weights of the second and third corner) and
/// the squared distance. A degenerate triangle is treated as its three edges.
pub(crate) fn closest_on_triangle(
    p: &Point3<Real>,
    tri: &[Point3<Real>; 3],
    degenerate: bool,
) -> (f64, f64, f64) {
    let (p, a, b, c) = (p64(p), p64(&tri[0]), p64(&tri[1]), p64(&tri[2]));
    let (u, v) = if degenerate {
        let cands = [
            (segment_param(p, a, b), 0.0),
            (0.0, segment_param(p, a, c)),
            {
                let s = segment_param(p, b, c);
                (1.0 - s, s)
            },
        ];
        let d = |(u, v): (f64, f64)| {
            let q = sub(lerp3(a, b, c, u, v), p);
            dot(q, q)
        };
        let mut best = cands[0];
        for cand in &cands[1..] {
            if d(*cand) < d(best) {
                best = *cand;
            }
        }
        best
    } else {
        let ab = sub(b, a);
        let ac = sub(c, a);
        let ap = sub(p, a);
        let d1 = dot(ab, ap);
        let d2 = dot(ac, ap);
        let bp = sub(p, b);
        let d3 = dot(ab, bp);
        let d4 = dot(ac, bp);
        let cp = sub(p, c);
        let d5 = dot(ab, cp);
        let d6 = dot(ac, cp);
        let vc = d1 * d4 - d3 * d2;
        let vb = d5 * d2 - d1 * d6;
        let va = d3 * d6 - d5 * d4;
        if d1 <= 0.0 && d2 <= 0.0 {
            (0.0, 0.0)
        } else if d3 >= 0.0 && d4 <= d3 {
            (1.0, 0.0)
        } else if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            (d1 / (d1 - d3), 0.0)
        } else if d6 >= 0.0 && d5 <= d6 {
            (0.0, 1.0)
        } else if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            (0.0, d2 / (d2 - d6))
        } else if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            (1.0 - w, w)
        } else {
            let denom = va + vb + vc;
            (vb / denom, vc / denom)
        }
    };
    let q = sub(lerp3(a, b, c, u, v), p);
    (u, v, dot(q, q))
}

/// A lower bound of the squared distance from `p` to `b`, rounded down to f32.
fn box_dist2(p: &P64, b: &Aabb) -> Real {
    let lo = p64(&b.min);
    let hi = p64(&b.max);
    let mut s = 0.0;
    for a in 0..3 {
        let d = (lo[a] - p[a]).max(p[a] - hi[a]).max(0.0);
        s += d * d;
    }
    round_down(s)
}

fn round_down(x: f64) -> Real {
    (x as Real) * (1.0 - 2.0 * Real::EPSILON)
}
fn round_up(x: f64) -> Real {
    (x as Real) * (1.0 + 2.0 * Real::EPSILON)
}

impl Mesh {
    /// The closest point of the mesh to `p` within `max_distance` (inclusive), or `None`.
    ///
    /// Exact to f64 rounding of the per-triangle kernel (computed in f64, then rounded to
    /// f32), found by best-first traversal that prunes every box farther than the best
    /// point so far. Among triangles at exactly the same distance the lowest index wins.
    /// Degenerate triangles count as their edges. `None` for an empty mesh, a non-finite
    /// `p`, or a negative or NaN `max_distance`; `f32::INFINITY` means no limit. Allocates
    /// only when the traversal frontier exceeds 64 nodes.
    ///
    /// ```
    /// use raypick_query::Mesh;
    /// use raypick_primitives::Point3;
    ///
    /// let mesh = Mesh::new(
    ///     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// let near = mesh.nearest_point(&Point3::new(0.25, 0.25, 3.0), f32::INFINITY).unwrap();
    /// assert_eq!(near.point, Point3::new(0.25, 0.25, 0.0));
    /// assert_eq!(near.distance, 3.0);
    /// assert!(mesh.nearest_point(&Point3::new(0.25, 0.25, 3.0), 2.0).is_none());
    /// ```
    #[must_use]
    pub fn nearest_point(&self, p: &Point3<Real>, max_distance: Real) -> Option<NearestPoint> {
        if max_distance.is_nan() || max_distance < 0.0 || !p.iter().all(|c| c.is_finite()) {
            return None;
        }
        let max2 = f64::from(max_distance) * f64::from(max_distance);
        let q = p64(p);
        let prims = self.bvh.prim_indices();
        let mut best: Option<(f64, f64, f64, usize)> = None;
        let mut best2 = max2;
        let mut best_prim = u32::MAX;
        self.bvh.traverse_best_first(
            round_up(max2),
            |b| box_dist2(&q, b),
            |range, bound| {
                for pos in range {
                    let (u, v, d2) =
                        closest_on_triangle(p, &self.tris[pos], self.is_degenerate_at(pos));
                    if d2 < best2 || (d2 == best2 && prims[pos] < best_prim) {
                        best2 = d2;
                        best_prim = prims[pos];
                        best = Some((u, v, d2, pos));
                        *bound = round_up(best2);
                    }
                }
                ControlFlow::Continue(())
            },
        );
        let (u, v, d2, pos) = best?;
        let [a, b, c] = self.tris[pos].map(|x| p64(&x));
        let x = lerp3(a, b, c, u, v);
        Some(NearestPoint {
            point: Point3::new(x[0] as Real, x[1] as Real, x[2] as Real),
            triangle: prims[pos],
            u: u as Real,
            v: v as Real,
            distance: d2.sqrt() as Real,
        })
    }
}
