//! Solid queries over a [`Scene`]: winding number, inside/outside and signed distance,
//! summed over every instance under its transform.

use crate::mesh::solid::signed::signed_by_side;
use crate::mesh::solid::Winding;
use raypick_primitives::{Point3, Real};

use super::query::HitGeometry;
use super::{Geometry, InstanceId, Scene, SceneQuery};

/// The signed distance of a point to a scene's surfaces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSignedDistance {
    /// The world distance to the nearest surface point: negative inside
    /// ([`Scene::contains`]), positive outside, exactly 0 on a surface.
    pub distance: Real,
    /// The nearest world point.
    pub point: Point3<Real>,
    /// The object it lies on.
    pub instance: InstanceId,
    /// The mesh triangle (with barycentrics) or shape.
    pub geometry: HitGeometry,
    /// The scene's winding number at the query point that decided the side: that of
    /// [`Scene::winding_number`], or, where the side is clear, the sum of its meshes'
    /// side decisions (see [`crate::SignedDistance::winding_number`]).
    pub winding_number: Real,
}

impl Scene {
    /// The generalized winding number of world point `p`: the sum over every mesh instance
    /// of [`crate::Mesh::winding_number`] at `p` taken to object space, plus 1 for each
    /// shape that contains `p` (parry's solid point query). Every object counts, whatever
    /// its mask: the solid is the whole scene. An instance places its mesh's solid, so a
    /// closed mesh gives 1 inside and 0 outside under any invertible transform, mirrors
    /// included (a mirror reverses the triangles' winding in world space, and the solid
    /// with it). The accuracy is the mesh's (1e-3 per instance). 0 for an empty scene, NaN
    /// for a non-finite `p`.
    #[must_use]
    pub fn winding_number(&self, p: Point3<Real>) -> Real {
        self.winding(p).0 as Real
    }

    /// The winding number of `p` and whether `p` lies exactly on a mesh triangle (in its
    /// object space).
    fn winding(&self, p: Point3<Real>) -> (f64, bool) {
        let w = self.winding_sum(p, false);
        (w.value, w.on_surface)
    }

    /// The winding number of `p` for deciding its side, and whether `p` lies exactly on a
    /// mesh triangle: each mesh's side winding (see [`crate::Mesh::contains`]: exact on
    /// closed meshes, possibly a coarser sum on open ones), kept when the sum is farther
    /// from 0.5 than five times the sum of their stated errors (and than 0.1), else
    /// [`Scene::winding`]'s.
    ///
    /// The third value is true when every object is known to be off the surface at `p`
    /// (closed meshes counted by a ray).
    fn side_winding(&self, p: Point3<Real>) -> (f64, bool, bool) {
        let w = self.winding_sum(p, true);
        // Exact sums (closed meshes, shapes) are integers, always clear of 0.5.
        if w.on_surface || (w.value - 0.5).abs() > (5.0 * w.tolerance).max(0.1) {
            (w.value, w.on_surface, w.off_surface)
        } else {
            let (sum, on) = self.winding(p);
            (sum, on, false)
        }
    }

    /// The sum over every object of its winding number at `p` (the meshes' side windings
    /// with `side`), with the summed tolerances; off the surface when every mesh is known
    /// to be.
    fn winding_sum(&self, p: Point3<Real>, side: bool) -> Winding {
        let mut sum = Winding {
            value: 0.0,
            on_surface: false,
            tolerance: 0.0,
            off_surface: true,
        };
        if !p.iter().all(|c| c.is_finite()) {
            sum.value = f64::NAN;
            sum.off_surface = false;
            return sum;
        }
        for id in self.instances() {
            let Some(obj) = self.slot_object(id.index()) else {
                continue;
            };
            let q = obj.transform.point_to_object(&p);
            match &obj.geometry {
                Geometry::Mesh { mesh, .. } => {
                    let w = if side {
                        mesh.winding_side(q, None)
                    } else {
                        mesh.winding(q)
                    };
                    sum.value += w.value;
                    sum.on_surface |= w.on_surface;
                    sum.tolerance += w.tolerance;
                    sum.off_surface &= w.off_surface;
                }
                Geometry::Shape(s) => {
                    sum.off_surface = false;
                    if s.contains_local_point(&q) {
                        sum.value += 1.0;
                    }
                }
            }
        }
        sum
    }

    /// True when world point `p` is inside the scene's solid: its winding number
    /// ([`Scene::winding_number`]) is at least 0.5, or `p` lies exactly on a mesh triangle
    /// or at world distance 0 from a surface (surfaces count as inside, as for
    /// [`crate::Mesh::contains`]). False for an empty scene
    /// or a non-finite `p`. Each open mesh may first decide with a coarser sum, as
    /// [`crate::Mesh::contains`] does, when the total is far from 0.5.
    #[must_use]
    pub fn contains(&self, p: Point3<Real>) -> bool {
        let (w, on, off) = self.side_winding(p);
        // At distance 0 the point is on a surface, as for `Mesh::contains`.
        on || w >= 0.5
            || (!off
                && self
                    .nearest_point(&p, 0.0, &SceneQuery::default())
                    .is_some())
    }

    /// The signed world distance of `p` to the scene's surfaces: [`Scene::nearest_point`]
    /// over every object (no mask or filter), negative when [`Scene::contains`] is true, 0
    /// on a surface. `None` for an empty scene or a non-finite `p`.
    #[must_use]
    pub fn signed_distance(&self, p: Point3<Real>) -> Option<SceneSignedDistance> {
        let near = self.nearest_point(&p, Real::INFINITY, &SceneQuery::default())?;
        let (w, on, _) = self.side_winding(p);
        Some(SceneSignedDistance {
            distance: signed_by_side(near.distance, on || w >= 0.5),
            point: near.point,
            instance: near.instance,
            geometry: near.geometry,
            winding_number: w as Real,
        })
    }

    /// [`Scene::winding_number`] for every point, in parallel; each answer is exactly the
    /// single-point one.
    #[must_use]
    pub fn winding_numbers(&self, points: &[Point3<Real>]) -> Vec<Real> {
        crate::mesh::par_map(points, |p| self.winding_number(*p))
    }

    /// [`Scene::contains`] for every point, in parallel.
    #[must_use]
    pub fn contains_points(&self, points: &[Point3<Real>]) -> Vec<bool> {
        crate::mesh::par_map(points, |p| self.contains(*p))
    }

    /// [`Scene::signed_distance`] for every point, in parallel.
    #[must_use]
    pub fn signed_distances(&self, points: &[Point3<Real>]) -> Vec<Option<SceneSignedDistance>> {
        crate::mesh::par_map(points, |p| self.signed_distance(*p))
    }
}
