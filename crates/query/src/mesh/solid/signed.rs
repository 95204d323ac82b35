//! Inside/outside and signed distance of points to a [`Mesh`].

use raypick_primitives::{Point3, Real};

use super::par_map;
use crate::{Mesh, NearestPoint};

/// The signed distance of a point to a mesh, with the nearest surface point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedDistance {
    /// The distance to the nearest surface point: negative inside (winding number >= 0.5),
    /// positive outside, exactly 0 on the surface.
    pub distance: Real,
    /// The nearest point on the surface.
    pub point: Point3<Real>,
    /// The original index of its triangle.
    pub triangle: u32,
    /// Barycentric weight of the triangle's second corner at `point`.
    pub u: Real,
    /// Barycentric weight of the third corner (the first corner's is `1 - u - v`).
    pub v: Real,
    /// The generalized winding number of the query point that decided the sign: exactly
    /// [`Mesh::winding_number`] within 1/30 of 0.5 (within 0.1 on a mesh without a short
    /// rim); up to 0.35 from 0.5 possibly from a cheaper sum, within 3e-2 of the exact one
    /// (measured worst on the test meshes: 2.1e-2; folded meshes of the fuzz target reached
    /// 4.6e-2, inside the 0.1 margin it decides by; a short rim's cheaper fraction is within
    /// 1e-2 and decides beyond 1/30); farther from 0.5 possibly from a cheaper sum still,
    /// within 0.105 (measured worst on the benchmark meshes: 9.9e-2 on a 1M-triangle
    /// terrain, 0.28 on a CAD model's slivers, inside the 0.35 margin it decides by). An
    /// exact integer off the surface of a closed mesh, as [`Mesh::winding_number`].
    pub winding_number: Real,
}

impl SignedDistance {
    /// True when `distance <= 0`: the query point is inside or on the surface (its distance
    /// rounds to 0). The same as [`Mesh::contains`].
    #[must_use]
    pub fn inside(&self) -> bool {
        self.distance <= 0.0
    }
}

impl Mesh {
    /// True when `p` is inside the mesh: its winding number ([`Mesh::winding_number`]) is at
    /// least 0.5, or `p` lies exactly on a triangle.
    ///
    /// On a closed mesh the winding number off the surface is counted exactly along one
    /// ray, so the answer is exact for every point farther than the f32 rounding of the
    /// coordinates from the surface (see [`Mesh::winding_number`]). On an open mesh the
    /// cheapest sum decides first, where it is more than 0.35 from 0.5, then a cheaper sum,
    /// where it is more than 0.1 from 0.5, and the 1e-3 one only nearer (each margin is
    /// about three times its sum's measured worst error on ordinary meshes; on the slivers
    /// of a CAD model, about its worst error); on a mesh with a short rim, a cheaper look at
    /// the rim decides in between, beyond 1/30 of 0.5 (it is within 1e-2).
    ///
    /// A sheet with a short rim (a terrain, a scan with holes), once it has decided
    /// 100,000 points' sides (a batch counts its points), builds a side table at its next
    /// call: about 32,000 cells over its box grown by a quarter, about 1 MB, some 50-110 ms
    /// on one thread for 250,000 to 1,000,000 triangles (its cells in parallel; with the
    /// nearest-point structure its distance-0 checks need). It
    /// answers most later points with a lookup and at most one ray, within a bound it
    /// states and checks against 0.5; the answers are the same as without it.
    ///
    /// Points on the surface count as inside (the solid is closed): a point whose distance
    /// to the surface ([`Mesh::nearest_point`]) rounds to 0, or whose f64 solid-angle triple
    /// product with a triangle it lies in is exactly zero, gets `true`, as its
    /// [`SignedDistance::inside`] does. Points off the surface by less than the f32
    /// rounding of the coordinates may go either way. False for an empty mesh or a
    /// non-finite `p`. On an open mesh it answers for the surface's generalized winding
    /// number (a half sphere holds the points on the inner side of its rim plane where more
    /// than half the view is of its back).
    #[must_use]
    pub fn contains(&self, p: Point3<Real>) -> bool {
        self.winding_tree().note_sides(self, 1);
        self.contains_at(p)
    }

    /// [`Mesh::contains`], not counted towards the side table (batches count theirs).
    pub(super) fn contains_at(&self, p: Point3<Real>) -> bool {
        let w = self.winding_side(p, None);
        // An outside answer not known to be clear of the surface is checked against it: at
        // distance 0 the point is on it (a query bounded by 0 visits only the boxes that
        // hold `p`).
        w.on_surface || w.value >= 0.5 || (!w.untouched && self.nearest_point(&p, 0.0).is_some())
    }

    /// The signed distance of `p` to the surface: the exact distance to the nearest point
    /// ([`Mesh::nearest_point`]), negative when [`Mesh::contains`] is true, 0 on the
    /// surface. `None` only for an empty mesh or a non-finite `p`.
    ///
    /// ```
    /// use raypick_query::Mesh;
    /// use raypick_primitives::Point3;
    ///
    /// let mesh = Mesh::new(
    ///     vec![
    ///         Point3::new(0.0, 0.0, 0.0),
    ///         Point3::new(1.0, 0.0, 0.0),
    ///         Point3::new(0.0, 1.0, 0.0),
    ///         Point3::new(0.0, 0.0, 1.0),
    ///     ],
    ///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    /// )
    /// .unwrap();
    /// let inside = mesh.signed_distance(Point3::new(0.1, 0.2, 0.2)).unwrap();
    /// assert_eq!(inside.distance, -0.1);
    /// assert_eq!(inside.point, Point3::new(0.0, 0.2, 0.2));
    /// let outside = mesh.signed_distance(Point3::new(-2.0, 0.5, 0.25)).unwrap();
    /// assert_eq!(outside.distance, 2.0);
    /// assert!(outside.winding_number.abs() < 1e-5);
    /// ```
    #[must_use]
    pub fn signed_distance(&self, p: Point3<Real>) -> Option<SignedDistance> {
        let near = self.nearest_point(&p, Real::INFINITY)?;
        Some(self.signed_at(p, near))
    }

    /// The signed distance of `p` from its nearest point, the side from its winding number
    /// ([`Mesh::winding_side`]).
    pub(super) fn signed_at(&self, p: Point3<Real>, near: NearestPoint) -> SignedDistance {
        let w = self.winding_side(p, Some(near.distance));
        Self::signed(near, w.on_surface || w.value >= 0.5, w.value)
    }

    /// The signed distance from the nearest point and the side.
    pub(super) fn signed(near: NearestPoint, inside: bool, winding: f64) -> SignedDistance {
        SignedDistance {
            distance: signed_by_side(near.distance, inside),
            point: near.point,
            triangle: near.triangle,
            u: near.u,
            v: near.v,
            winding_number: winding as Real,
        }
    }

    /// [`Mesh::contains`] for every point, in parallel with rayon; each answer is exactly
    /// the single-point one.
    #[must_use]
    pub fn contains_points(&self, points: &[Point3<Real>]) -> Vec<bool> {
        let tree = self.solid_tree();
        tree.note_sides(self, points.len());
        par_map(points, !tree.closed(self), |p| self.contains_at(*p))
    }

    /// [`Mesh::signed_distance`] for every point, in parallel with rayon; each answer is
    /// exactly the single-point one.
    #[must_use]
    pub fn signed_distances(&self, points: &[Point3<Real>]) -> Vec<Option<SignedDistance>> {
        self.solid_tree();
        par_map(points, true, |p| self.signed_distance(*p))
    }
}

/// The distance negated inside: the sign convention of every signed distance (0 on the
/// surface, whatever the side).
pub(crate) fn signed_by_side<T>(distance: T, inside: bool) -> T
where
    T: Copy + Default + PartialEq + std::ops::Neg<Output = T>,
{
    if distance == T::default() {
        T::default()
    } else if inside {
        -distance
    } else {
        distance
    }
}
