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
    /// The third value is true when the scene's distance-0 check is known to find nothing
    /// at `p` (closed meshes counted by a ray, or open ones whose sum vouched for it).
    fn side_winding(&self, p: Point3<Real>) -> (f64, bool, bool) {
        let w = self.winding_sum(p, true);
        // Exact sums (closed meshes, shapes) are integers, always clear of 0.5.
        if w.on_surface || (w.value - 0.5).abs() > (5.0 * w.tolerance).max(0.1) {
            (w.value, w.on_surface, w.untouched)
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
            untouched: true,
        };
        if !p.iter().all(|c| c.is_finite()) {
            sum.value = f64::NAN;
            sum.off_surface = false;
            sum.untouched = false;
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
                    // The scene's distance-0 check asks the mesh itself at `q` under a
                    // similarity (`nearest_on_object`), so the mesh's word holds there;
                    // other transforms search in world space.
                    sum.untouched &=
                        w.off_surface || (w.untouched && obj.transform.uniform_scale.is_some());
                }
                Geometry::Shape(s) => {
                    sum.off_surface = false;
                    sum.untouched = false;
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
        let (w, on, untouched) = self.side_winding(p);
        // At distance 0 the point is on a surface, as for `Mesh::contains`.
        on || w >= 0.5
            || (!untouched
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

#[cfg(test)]
mod tests {
    use super::super::{Scene, SceneQuery};
    use crate::mesh::solid::probes::{probes, soup};
    use nalgebra::{Matrix4, UnitQuaternion, Vector3};
    use rand::SeedableRng;

    /// When the scene's side decision vouches for a point, its distance-0 check finds
    /// nothing: soups under the identity, a similarity (the mesh's own word is taken) and a
    /// non-uniform scale (it is not), with each soup's probes placed in the world.
    #[test]
    fn vouched_points_are_at_no_world_distance_0() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x05ce_7e57);
        let poses = [
            Matrix4::identity(),
            Matrix4::new_translation(&Vector3::new(3.0, -1.0, 0.5))
                * UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1).to_homogeneous()
                * Matrix4::new_scaling(2.5),
            Matrix4::new_translation(&Vector3::new(-3.0, 0.0, 0.0))
                * Matrix4::new_nonuniform_scaling(&Vector3::new(1.5, 0.7, 1.0)),
        ];
        let (mut vouched, mut touching) = (0usize, 0usize);
        for pose in &poses {
            let mesh = soup(200, 1.0, 0.0, &mut rng);
            let points: Vec<_> = probes(&mesh, &mut rng)
                .iter()
                .map(|p| pose.transform_point(p))
                .collect();
            let mut scene = Scene::new();
            let id = scene.add_mesh(mesh);
            scene.add_instance(id, pose).expect("invertible pose");
            for p in points {
                let (w, on, untouched) = scene.side_winding(p);
                let at_zero = scene
                    .nearest_point(&p, 0.0, &SceneQuery::default())
                    .is_some();
                assert!(!(untouched && at_zero), "{p:?} vouched for, at distance 0");
                assert_eq!(scene.contains(p), on || w >= 0.5 || at_zero, "{p:?}");
                vouched += usize::from(untouched);
                touching += usize::from(at_zero);
            }
        }
        assert!(vouched > 3_000 && touching > 500, "{vouched} {touching}");
    }
}
