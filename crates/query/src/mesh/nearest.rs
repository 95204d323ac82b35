//! Nearest point on a [`Mesh`]: best-first BVH traversal with an exact per-triangle kernel.

use std::ops::ControlFlow;

use raypick_primitives::{point_triangle, Aabb, Point3, PointTriangleProjection, Real, Triangle};

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

/// A lower bound of the squared distance from `p` to `b`: computed in f64, rounded to f32
/// and nudged down so that rounding never prunes a box holding the nearest point.
fn box_dist2(p: &[f64; 3], b: &Aabb) -> Real {
    let lo = [f64::from(b.min.x), f64::from(b.min.y), f64::from(b.min.z)];
    let hi = [f64::from(b.max.x), f64::from(b.max.y), f64::from(b.max.z)];
    let mut s = 0.0;
    for a in 0..3 {
        let d = (lo[a] - p[a]).max(p[a] - hi[a]).max(0.0);
        s += d * d;
    }
    (s as Real) * (1.0 - 2.0 * Real::EPSILON)
}

impl Mesh {
    /// The closest point of the mesh to `p` within `max_distance` (inclusive), or `None`.
    ///
    /// Exactly the minimum of [`raypick_primitives::point_triangle()`] over all triangles
    /// (computed in f64, rounded to f32), found by best-first traversal that prunes every box farther than the best
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
        // Squared distances in f32, as `point_triangle` reports them (distances beyond
        // ~1e19 overflow to infinity and are then not ranked).
        let max2 = max_distance * max_distance;
        let q = [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
        let prims = self.bvh.prim_indices();
        let mut best: Option<(PointTriangleProjection, usize)> = None;
        let mut best2 = max2;
        let mut best_prim = u32::MAX;
        self.bvh.traverse_best_first(
            max2,
            |b| box_dist2(&q, b),
            |range, bound| {
                for pos in range {
                    let [a, b, c] = self.tris[pos];
                    let Some(proj) = point_triangle(p, &Triangle::new(a, b, c)) else {
                        continue;
                    };
                    let d2 = proj.distance_squared;
                    if d2 < best2 || (d2 == best2 && prims[pos] < best_prim) {
                        best2 = d2;
                        best_prim = prims[pos];
                        best = Some((proj, pos));
                        *bound = best2;
                    }
                }
                ControlFlow::Continue(())
            },
        );
        let (proj, pos) = best?;
        Some(NearestPoint {
            point: proj.point,
            triangle: prims[pos],
            u: proj.u,
            v: proj.v,
            distance: proj.distance_squared.sqrt(),
        })
    }
}
