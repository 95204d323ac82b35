//! Nearest point on a [`Mesh`]: nearest-child-first BVH traversal with pruning and an exact
//! per-triangle kernel.

use std::ops::ControlFlow;

use raypick_primitives::{point_triangle, Point3, PointTriangleProjection, Real, Triangle};

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

/// A lower bound of the squared distance from `p` to the box `lo..hi`: computed in f32 and
/// scaled down past its rounding error (a few ulps), so that pruning never drops a box
/// holding the nearest point or a tie. NaN-free for finite input.
#[inline(always)]
fn aabb_dist2(p: &Point3<Real>, lo: &Point3<Real>, hi: &Point3<Real>) -> Real {
    let mut s = 0.0;
    for a in 0..3 {
        let d = (lo[a] - p[a]).max(p[a] - hi[a]).max(0.0);
        s += d * d;
    }
    s * (1.0 - 8.0 * Real::EPSILON)
}

impl Mesh {
    /// The closest point of the mesh to `p` within `max_distance` (inclusive), or `None`.
    ///
    /// Exactly the minimum of [`raypick_primitives::point_triangle()`] over all triangles
    /// (computed in f64, rounded to f32), found by a depth-first traversal, nearer child
    /// first, that prunes every box farther than the best point so far. Among triangles at exactly the same distance the lowest index wins.
    /// Degenerate triangles count as their edges. `None` for an empty mesh, a non-finite
    /// `p`, or a negative or NaN `max_distance`; `f32::INFINITY` means no limit. Allocates
    /// nothing.
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
        let prims = &self.prims[..];
        let mut best: Option<(PointTriangleProjection, usize)> = None;
        let mut best_prim = u32::MAX;
        // Depth first, nearer slots first, pruning every box farther than the best point:
        // cheaper than a priority queue for one query point, and allocation-free.
        self.wide.traverse_nearest_first(p, max2, |range, best2| {
            for (pos, [a, b, c]) in range.clone().zip(self.tris.leaf(range)) {
                let tri = Triangle::new(a, b, c);
                // Cheap rejection by the triangle's box (a lower bound).
                let bb = tri.aabb();
                if aabb_dist2(p, &bb.min, &bb.max) > *best2 {
                    continue;
                }
                let Some(proj) = point_triangle(p, &tri) else {
                    continue;
                };
                let d2 = proj.distance_squared;
                if d2 < *best2 || (d2 == *best2 && prims[pos] < best_prim) {
                    *best2 = d2;
                    best_prim = prims[pos];
                    best = Some((proj, pos));
                }
            }
            ControlFlow::Continue(())
        });
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
