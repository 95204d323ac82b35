//! Nearest point on a [`Mesh`]: nearest-child-first BVH traversal with pruning and an exact
//! per-triangle kernel.

use std::ops::ControlFlow;

use raypick_primitives::{point_triangle_f64, Point3, PointTriangleProjection, Real, Triangle};

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

impl Mesh {
    /// The closest point of the mesh to `p` within `max_distance` (inclusive), or `None`.
    ///
    /// Exactly the minimum of [`raypick_primitives::point_triangle()`] over all triangles
    /// (computed in f64, rounded to f32), found by a depth-first traversal, nearer child
    /// first, that prunes every slot of the tree whose box, or whose thick disk around its
    /// triangles (on tilted, nearly flat patches, where the box stands off the surface), is
    /// farther than the best point so far. The first search builds the disks (32 bytes per
    /// slot; dropped when the vertices move). Among triangles at exactly the same distance
    /// the lowest index wins. Degenerate triangles count as their edges. `None` for an empty mesh, a non-finite
    /// `p`, or a negative or NaN `max_distance`; `f32::INFINITY` means no limit. Triangles
    /// farther than about 1.8e19, whose f32 squared distance overflows, rank by their f64
    /// one, and their distance is its square root rounded to f32 (infinite only past
    /// `f32::MAX`); the search then visits every slot. Allocates nothing.
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
        self.nearest_point_slot(p, max_distance)
            .map(|(near, _)| near)
    }

    /// [`Mesh::nearest_point`] for every point, in parallel with rayon, in input order; each
    /// answer is exactly the single-point one. Large batches are searched in the points'
    /// Morton order, so that neighbouring points find the nodes they share in cache.
    #[must_use]
    pub fn nearest_points(
        &self,
        points: &[Point3<Real>],
        max_distance: Real,
    ) -> Vec<Option<NearestPoint>> {
        crate::mesh::par_map(points, true, |p| self.nearest_point(p, max_distance))
    }

    /// [`Mesh::nearest_point`] with the leaf slot of its triangle.
    pub(crate) fn nearest_point_slot(
        &self,
        p: &Point3<Real>,
        max_distance: Real,
    ) -> Option<(NearestPoint, usize)> {
        if max_distance.is_nan() || max_distance < 0.0 || !p.iter().all(|c| c.is_finite()) {
            return None;
        }
        // Squared distances in f32, as `point_triangle` reports them (distances beyond
        // ~1e19 overflow to infinity and are then not ranked).
        let max2 = max_distance * max_distance;
        let scale = self.nearest_scale(p);
        let disks = self.disks.get_or_init(|| {
            super::with_tree!(&self.wide, t => super::slot_disks::SlotDisks::build(t, &self.tris))
        });
        let q = [p.x, p.y, p.z];
        let slack = 1e-5 * scale;
        let mut best: Option<(PointTriangleProjection, usize, f64)> = None;
        let mut best_prim = u32::MAX;
        // Past about 1.8e19 the f32 squares are infinite: those triangles rank by their f64
        // squares (and the traversal, whose bound stays infinite, prunes nothing).
        let mut best_far = f64::INFINITY;
        // Depth first, nearer slots first, pruning every slot whose box or disk is farther
        // than the best point: cheaper than a priority queue for one query point, and
        // allocation-free.
        let bound = |k: usize, within: u32, d: &mut [Real; 8]| disks.raise(k, within, q, slack, d);
        self.wide
            .traverse_nearest_first_with(p, max2, bound, |range, best2| {
                // Triangles whose box is farther than the best point are rejected inside, 8 at a
                // time (a lower bound).
                self.tris
                    .for_each_near(range, p, scale, best2, |slot, [a, b, c], best2| {
                        let Some((proj, d2_64)) = point_triangle_f64(p, &Triangle::new(a, b, c))
                        else {
                            return;
                        };
                        let d2 = proj.distance_squared;
                        if d2 > *best2 {
                            return;
                        }
                        let far = if d2 == Real::INFINITY { d2_64 } else { 0.0 };
                        if far > best_far {
                            return;
                        }
                        let prim = self.tris.prim_at(slot);
                        if d2 < *best2 || far < best_far || prim < best_prim {
                            *best2 = d2;
                            best_far = far;
                            best_prim = prim;
                            best = Some((proj, slot.pos(), d2_64));
                        }
                    });
                ControlFlow::Continue(())
            });
        let (proj, pos, d2_64) = best?;
        // The f32 square root where the square is finite (as before), else from the f64 one.
        let distance = if proj.distance_squared < Real::INFINITY {
            proj.distance_squared.sqrt()
        } else {
            // `max2` overflowed too: the limit checked here.
            let d = d2_64.sqrt();
            if d > f64::from(max_distance) {
                return None;
            }
            d as Real
        };
        let near = NearestPoint {
            point: proj.point,
            triangle: best_prim,
            u: proj.u,
            v: proj.v,
            distance,
        };
        Some((near, pos))
    }

    /// The scale of [`point_triangle_lower_bounds`](raypick_primitives::point_triangle_lower_bounds)
    /// for queries from `p`: the largest coordinate magnitude of `p` and the mesh. Infinite
    /// (no rejection by the bound) past 1e15, where its f32 squares could overflow.
    pub(crate) fn nearest_scale(&self, p: &Point3<Real>) -> Real {
        let scale = coordinate_scale(&self.bounds(), p);
        if scale < 1e15 {
            scale
        } else {
            Real::INFINITY
        }
    }
}

/// The largest coordinate magnitude of box `b` and point `p`: the scale f32 rounding of
/// differences between them is relative to.
///
/// Written over a fixed array so that it compiles to a few vector instructions (the same
/// fold over chained iterators took about 270 instructions per call, and the solid queries
/// ask it two or three times per point). A NaN coordinate is skipped, as `f32::max` does.
#[inline]
pub(crate) fn coordinate_scale(b: &raypick_primitives::Aabb, p: &Point3<Real>) -> Real {
    let c = [
        b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z, p.x, p.y, p.z,
    ];
    c.iter()
        .fold(0.0, |m: Real, &c| if c.abs() > m { c.abs() } else { m })
}
