//! Overlap queries on a [`Mesh`]: the triangles that intersect a box, a sphere or an
//! oriented box, and frustum classification for marquee selection.
//!
//! The BVH prunes with a conservative node test; every candidate triangle then gets the
//! exact test of `raypick_primitives` (separating axes for the boxes), so the answer is
//! exactly what those kernels say for every triangle.

use std::ops::ControlFlow;

use raypick_primitives::{
    aabb_sphere, frustum_aabb, frustum_triangle, obb_obb, triangle_aabb, triangle_obb,
    triangle_sphere, Aabb, Classification, Frustum, Obb, Sphere, Triangle,
};

use super::Mesh;

/// The triangles a frustum selects, by original index, each list sorted ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrustumSelection {
    /// Triangles with all three corners strictly inside the frustum: a "window" marquee
    /// selects these.
    pub inside: Vec<u32>,
    /// Triangles that straddle or touch the frustum's boundary: a "crossing" marquee selects
    /// these as well as `inside`.
    pub intersecting: Vec<u32>,
}

impl FrustumSelection {
    /// Empties both lists, keeping their memory.
    pub fn clear(&mut self) {
        self.inside.clear();
        self.intersecting.clear();
    }
}

impl Mesh {
    /// Runs `node` over the tree and `exact` over each candidate triangle, collecting the
    /// original indices of those that pass, sorted.
    fn collect_overlaps(
        &self,
        node: impl FnMut(&Aabb) -> bool,
        exact: impl FnMut(&Triangle) -> bool,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        let leaf = self.exact_into(exact, out);
        self.wide.traverse_where(node, leaf);
        out.sort_unstable();
        // A pre-split triangle fills several leaves.
        out.dedup();
    }

    /// The leaf callback that pushes the original index of each triangle passing `exact`.
    fn exact_into<'a>(
        &'a self,
        mut exact: impl FnMut(&Triangle) -> bool + 'a,
        out: &'a mut Vec<u32>,
    ) -> impl FnMut(std::ops::Range<usize>) -> ControlFlow<()> + 'a {
        move |range| {
            for slot in self.tris.leaf_slots(range) {
                let [a, b, c] = self.tris.at(slot);
                if exact(&Triangle::new(a, b, c)) {
                    out.push(self.tris.prim_at(slot));
                }
            }
            ControlFlow::Continue(())
        }
    }

    /// The original indices (sorted) of the triangles that share a point with `aabb`
    /// (closed: touching counts), by the exact separating-axis test
    /// [`raypick_primitives::triangle_aabb()`]. An empty or NaN box selects nothing.
    /// Degenerate triangles count as the segment or point they are.
    ///
    /// ```
    /// use raypick_query::Mesh;
    /// use raypick_primitives::{Aabb, Point3};
    ///
    /// let mesh = Mesh::new(
    ///     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(4.0, 0.0, 0.0), Point3::new(0.0, 4.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// // Inside the triangle's bounding box but beyond its hypotenuse: no overlap.
    /// let corner = Aabb::new(Point3::new(3.0, 3.0, -1.0), Point3::new(4.0, 4.0, 1.0));
    /// assert!(mesh.overlap_aabb(&corner).is_empty());
    /// let touching = Aabb::new(Point3::new(2.0, 2.0, -1.0), Point3::new(4.0, 4.0, 1.0));
    /// assert_eq!(mesh.overlap_aabb(&touching), vec![0]);
    /// ```
    #[must_use]
    pub fn overlap_aabb(&self, aabb: &Aabb) -> Vec<u32> {
        let mut out = Vec::new();
        self.overlap_aabb_into(aabb, &mut out);
        out
    }

    /// [`Mesh::overlap_aabb`] into `out` (cleared first), reusing its memory.
    pub fn overlap_aabb_into(&self, aabb: &Aabb, out: &mut Vec<u32>) {
        out.clear();
        if aabb.is_empty() {
            return;
        }
        let q = *aabb;
        let leaf = self.exact_into(|t| triangle_aabb(t, &q), out);
        self.wide.traverse_aabb(&q, leaf);
        out.sort_unstable();
        // A pre-split triangle fills several leaves.
        out.dedup();
    }

    /// The original indices (sorted) of the triangles within `sphere.radius` of its centre
    /// (touching counts), by [`raypick_primitives::triangle_sphere()`]. A negative or NaN
    /// radius selects nothing.
    #[must_use]
    pub fn overlap_sphere(&self, sphere: &Sphere) -> Vec<u32> {
        let mut out = Vec::new();
        self.overlap_sphere_into(sphere, &mut out);
        out
    }

    /// [`Mesh::overlap_sphere`] into `out` (cleared first), reusing its memory.
    pub fn overlap_sphere_into(&self, sphere: &Sphere, out: &mut Vec<u32>) {
        out.clear();
        if sphere.is_empty() {
            return;
        }
        self.collect_overlaps(
            |n| aabb_sphere(n, sphere),
            |t| triangle_sphere(t, sphere),
            out,
        );
    }

    /// The original indices (sorted) of the triangles that share a point with the oriented
    /// box (touching counts), by the exact separating-axis test
    /// [`raypick_primitives::triangle_obb()`]. A box with a negative half-extent or a NaN
    /// selects nothing.
    #[must_use]
    pub fn overlap_obb(&self, obb: &Obb) -> Vec<u32> {
        let mut out = Vec::new();
        self.overlap_obb_into(obb, &mut out);
        out
    }

    /// [`Mesh::overlap_obb`] into `out` (cleared first), reusing its memory.
    pub fn overlap_obb_into(&self, obb: &Obb, out: &mut Vec<u32>) {
        out.clear();
        let bound = obb.aabb();
        self.collect_overlaps(
            |n| {
                // The cheap box test first; the 15-axis test only for boxes it keeps.
                n.min.x <= bound.max.x
                    && bound.min.x <= n.max.x
                    && n.min.y <= bound.max.y
                    && bound.min.y <= n.max.y
                    && n.min.z <= bound.max.z
                    && bound.min.z <= n.max.z
                    && obb_obb(&Obb::from_aabb(n), obb)
            },
            |t| triangle_obb(t, obb),
            out,
        );
    }

    /// Classifies every triangle against `frustum` with
    /// [`raypick_primitives::frustum_triangle()`]: the building block of marquee (rectangle)
    /// selection, with a frustum from the camera and the screen rectangle. Triangles outside
    /// are left out; both lists are sorted.
    ///
    /// ```
    /// use nalgebra::Matrix4;
    /// use raypick_query::Mesh;
    /// use raypick_primitives::{DepthRange, Frustum, Point3};
    ///
    /// // The identity view-projection's frustum is the cube [-1, 1]^3.
    /// let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne);
    /// let tri = |x: f32| [Point3::new(x, 0.0, 0.0), Point3::new(x + 0.5, 0.0, 0.0), Point3::new(x, 0.5, 0.0)];
    /// let positions: Vec<_> = [-0.25, 0.75, 3.0].into_iter().flat_map(tri).collect();
    /// let mesh = Mesh::new(positions, vec![[0, 1, 2], [3, 4, 5], [6, 7, 8]]).unwrap();
    /// let sel = mesh.classify_frustum(&f);
    /// assert_eq!(sel.inside, vec![0]);
    /// assert_eq!(sel.intersecting, vec![1]); // crosses x = 1; triangle 2 is outside
    /// ```
    #[must_use]
    pub fn classify_frustum(&self, frustum: &Frustum) -> FrustumSelection {
        let mut out = FrustumSelection::default();
        self.classify_frustum_into(frustum, &mut out);
        out
    }

    /// [`Mesh::classify_frustum`] into `out` (cleared first), reusing its memory.
    pub fn classify_frustum_into(&self, frustum: &Frustum, out: &mut FrustumSelection) {
        out.clear();
        self.wide.traverse_where(
            |n| frustum_aabb(frustum, n) != Classification::Outside,
            |range| {
                for slot in self.tris.leaf_slots(range) {
                    let [a, b, c] = self.tris.at(slot);
                    match frustum_triangle(frustum, &Triangle::new(a, b, c)) {
                        Classification::Inside => out.inside.push(self.tris.prim_at(slot)),
                        Classification::Intersecting => {
                            out.intersecting.push(self.tris.prim_at(slot));
                        }
                        Classification::Outside => {}
                    }
                }
                ControlFlow::Continue(())
            },
        );
        out.inside.sort_unstable();
        out.intersecting.sort_unstable();
        // A pre-split triangle fills several leaves (and gets the same answer in each).
        out.inside.dedup();
        out.intersecting.dedup();
    }
}
