//! Solid queries over a [`Scene`]: winding number, inside/outside and signed distance,
//! summed over every instance under its transform.

use crate::mesh::solid::signed::signed_by_side;
use crate::mesh::solid::{side_margin, FirstPass, Winding, FINE_TOL};
use raypick_primitives::{Point3, Real};

use super::query::HitGeometry;
use super::transform::InstanceTransform;
use super::{Geometry, InstanceId, Scene, SceneQuery};

/// A world query point: f32, or f64 for scenes far from the origin (taken to each
/// instance's frame in f64 and rounded to f32 only there).
#[derive(Clone, Copy, Debug)]
pub(super) enum At {
    F32(Point3<Real>),
    F64(nalgebra::Point3<f64>),
}

impl At {
    fn is_finite(&self) -> bool {
        match self {
            At::F32(p) => p.iter().all(|c| c.is_finite()),
            At::F64(p) => p.iter().all(|c| c.is_finite()),
        }
    }

    #[inline]
    fn to_object(self, t: &InstanceTransform) -> Point3<Real> {
        match self {
            At::F32(p) => t.point_to_object(&p),
            At::F64(p) => t.point64_to_object(&p),
        }
    }
}

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
        self.winding(At::F32(p)).0 as Real
    }

    /// The winding number of `p` and whether `p` lies exactly on a mesh triangle (in its
    /// object space).
    pub(super) fn winding(&self, p: At) -> (f64, bool) {
        let (w, _) = self.winding_sum(p, false, None);
        (w.value, w.on_surface)
    }

    /// The winding number of `p` for deciding its side, and whether `p` lies exactly on a
    /// mesh triangle: each mesh's side winding (see [`crate::Mesh::contains`]: exact on
    /// closed meshes, possibly a coarser sum on open ones), kept when no term is a coarse
    /// sum (the full sum would compute every term again, to the same value), or when the
    /// total is as far from 0.5, relative to the sum of the stated errors, as a mesh's own
    /// coarse decisions ask ([`side_margin`]); else [`Scene::winding`]'s.
    ///
    /// The third value is true when the scene's distance-0 check is known to find nothing
    /// at `p` (closed meshes counted by a ray, or open ones whose sum vouched for it); it is
    /// only looked for when `near`, a lower bound of `p`'s world distance to every surface,
    /// is not given (a mesh given its distance needs no search for it).
    pub(super) fn side_winding(&self, p: At, near: Option<Real>) -> (f64, bool, bool) {
        let (w, coarse) = self.winding_sum(p, true, near);
        let margin = side_margin(w.tolerance);
        if w.on_surface || !coarse || (w.value - 0.5).abs() > margin {
            (w.value, w.on_surface, w.untouched)
        } else {
            let (sum, on) = self.winding(p);
            (sum, on, false)
        }
    }

    /// How many instances hold an open mesh, counted up to 2.
    fn open_mesh_instances(&self) -> usize {
        self.instances()
            .filter(|id| {
                self.slot_object(id.index())
                    .is_some_and(|obj| match &obj.geometry {
                        Geometry::Mesh { mesh, .. } => !mesh.winding_tree().closed(mesh),
                        Geometry::Shape(_) => false,
                    })
            })
            .take(2)
            .count()
    }

    /// The sum over every object of its winding number at `p` (the meshes' side windings
    /// with `side`), with the summed tolerances (`off_surface` is not kept for a sum:
    /// `untouched` says what the scene needs). The flag is true when some mesh's term is a
    /// coarse sum (a side decision's first pass). `near` (side decisions only) bounds `p`'s
    /// world distance to every surface from below: a mesh under a similarity is given it in
    /// its own units.
    fn winding_sum(&self, p: At, side: bool, near: Option<Real>) -> (Winding, bool) {
        let mut sum = Winding {
            value: 0.0,
            on_surface: false,
            tolerance: 0.0,
            off_surface: false,
            untouched: true,
        };
        if !p.is_finite() {
            sum.value = f64::NAN;
            sum.untouched = false;
            return (sum, false);
        }
        let mut coarse = false;
        // A mesh keeps its first pass's value only 0.35 from 0.5, the margin of that pass's
        // stated error: two such terms would need 0.7 (summed errors), which few points
        // clear, and would then be summed again in full.
        let first = if side && self.open_mesh_instances() > 1 {
            FirstPass::Never
        } else {
            FirstPass::UnlessSheet
        };
        for id in self.instances() {
            let Some(obj) = self.slot_object(id.index()) else {
                continue;
            };
            let q = p.to_object(&obj.transform);
            match &obj.geometry {
                Geometry::Mesh { mesh, .. } => {
                    let w = if side {
                        // Under a similarity of scale `s`, object distances are world ones
                        // over `s` (shrunk by far more than the scale's stated 1e-6).
                        let d = near
                            .zip(obj.transform.uniform_scale)
                            .map(|(d, s)| d / s * (1.0 - 1e-4));
                        mesh.winding_side_with(q, d, first)
                    } else {
                        mesh.winding(q)
                    };
                    coarse |= w.tolerance > FINE_TOL;
                    sum.value += w.value;
                    sum.on_surface |= w.on_surface;
                    sum.tolerance += w.tolerance;
                    // The scene's distance-0 check asks the mesh itself at `q` under a
                    // similarity (`nearest_on_object`), so the mesh's word holds there;
                    // other transforms search in world space.
                    sum.untouched &=
                        w.off_surface || (w.untouched && obj.transform.uniform_scale.is_some());
                }
                Geometry::Shape(s) => {
                    sum.untouched = false;
                    if s.contains_local_point(&q) {
                        sum.value += 1.0;
                    }
                }
            }
        }
        (sum, coarse)
    }

    /// True when world point `p` is inside the scene's solid: its winding number
    /// ([`Scene::winding_number`]) is at least 0.5, or `p` lies exactly on a mesh triangle
    /// or at world distance 0 from a surface (surfaces count as inside, as for
    /// [`crate::Mesh::contains`]). False for an empty scene
    /// or a non-finite `p`. Each open mesh may first decide with a coarser sum, as
    /// [`crate::Mesh::contains`] does, when the total is far from 0.5.
    #[must_use]
    pub fn contains(&self, p: Point3<Real>) -> bool {
        let (w, on, untouched) = self.side_winding(At::F32(p), None);
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
        let (w, on, _) = self.side_winding(At::F32(p), Some(near.distance));
        Some(SceneSignedDistance {
            distance: signed_by_side(near.distance, on || w >= 0.5),
            point: near.point,
            instance: near.instance,
            geometry: near.geometry,
            winding_number: w as Real,
        })
    }

    /// True when some object is a mesh that is not closed (its solid queries sum winding
    /// numbers rather than count one ray). Builds every mesh's solid structures on the way
    /// (`Mesh::solid_tree`), as the batches that ask it are about to go parallel.
    pub(super) fn any_open_mesh(&self) -> bool {
        let mut open = false;
        for id in self.instances() {
            if let Some(Geometry::Mesh { mesh, .. }) =
                self.slot_object(id.index()).map(|obj| &obj.geometry)
            {
                open |= !mesh.solid_tree().closed(mesh);
            }
        }
        open
    }

    /// [`Scene::winding_number`] for every point, in parallel; each answer is exactly the
    /// single-point one.
    #[must_use]
    pub fn winding_numbers(&self, points: &[Point3<Real>]) -> Vec<Real> {
        crate::mesh::par_map(points, self.any_open_mesh(), |p| self.winding_number(*p))
    }

    /// [`Scene::contains`] for every point, in parallel.
    #[must_use]
    pub fn contains_points(&self, points: &[Point3<Real>]) -> Vec<bool> {
        crate::mesh::par_map(points, self.any_open_mesh(), |p| self.contains(*p))
    }

    /// [`Scene::signed_distance`] for every point, in parallel.
    #[must_use]
    pub fn signed_distances(&self, points: &[Point3<Real>]) -> Vec<Option<SceneSignedDistance>> {
        self.any_open_mesh();
        crate::mesh::par_map(points, true, |p| self.signed_distance(*p))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Scene, SceneQuery};
    use super::At;
    use crate::mesh::solid::probes::{octahedron, probes, sheet, soup};
    use nalgebra::{Matrix4, UnitQuaternion, Vector3};
    use rand::{Rng, SeedableRng};

    /// The poses the tests place a mesh under: the identity, a similarity (a rotation, a
    /// scale of 2.5 and a translation) and a non-uniform scale.
    fn poses() -> [Matrix4<f32>; 3] {
        [
            Matrix4::identity(),
            Matrix4::new_translation(&Vector3::new(3.0, -1.0, 0.5))
                * UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1).to_homogeneous()
                * Matrix4::new_scaling(2.5),
            Matrix4::new_translation(&Vector3::new(-3.0, 0.0, 0.0))
                * Matrix4::new_nonuniform_scaling(&Vector3::new(1.5, 0.7, 1.0)),
        ]
    }

    /// A scene holding `mesh` once under `pose`, and the mesh's probes placed in the world.
    fn placed(
        mesh: crate::Mesh,
        pose: &Matrix4<f32>,
        rng: &mut rand_pcg::Pcg64,
    ) -> (Scene, Vec<nalgebra::Point3<f32>>) {
        let points = probes(&mesh, rng)
            .iter()
            .map(|p| pose.transform_point(p))
            .collect();
        let mut scene = Scene::new();
        let id = scene.add_mesh(mesh);
        scene.add_instance(id, pose).expect("invertible pose");
        (scene, points)
    }

    /// When the scene's side decision vouches for a point, its distance-0 check finds
    /// nothing: soups under the identity, a similarity (the mesh's own word is taken) and a
    /// non-uniform scale (it is not), with each soup's probes placed in the world.
    #[test]
    fn vouched_points_are_at_no_world_distance_0() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x05ce_7e57);
        let (mut vouched, mut touching) = (0usize, 0usize);
        for pose in &poses() {
            let mesh = soup(200, 1.0, 0.0, &mut rng);
            let (scene, points) = placed(mesh, pose, &mut rng);
            for p in points {
                let (w, on, untouched) = scene.side_winding(At::F32(p), None);
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

    /// A side decision whose terms are all fine sums (or exact) is what the full winding
    /// number computes again, so the scene keeps it: the values and on-surface flags are
    /// equal. Sheets and soups, one or two instances, points on, beside and under them.
    #[test]
    fn side_sums_without_coarse_terms_equal_the_full_sum() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x51de_5a3e);
        let (mut fine, mut coarse, mut near_half) = (0usize, 0usize, 0usize);
        for two in [false, true] {
            for sheet_mesh in [true, false] {
                let mesh = if sheet_mesh {
                    sheet(24)
                } else {
                    soup(150, 1.0, 0.0, &mut rng)
                };
                let mut points = probes(&mesh, &mut rng);
                // Under the sheet, at heights where the winding number is near 0.5.
                for k in 0..600 {
                    let (x, y) = (rng.gen_range(0.0..1.0), rng.gen_range(0.0..1.0));
                    points.push(nalgebra::Point3::new(x, y, -1e-3 * (1 + k % 50) as f32));
                }
                let mut scene = Scene::new();
                let id = scene.add_mesh(mesh);
                scene
                    .add_instance(id, &Matrix4::identity())
                    .expect("identity");
                if two {
                    let pose = Matrix4::new_translation(&Vector3::new(0.3, 0.2, -0.4))
                        * Matrix4::new_nonuniform_scaling(&Vector3::new(1.2, 0.8, 1.0));
                    scene.add_instance(id, &pose).expect("invertible pose");
                }
                for p in points {
                    let (side, has_coarse) = scene.winding_sum(At::F32(p), true, None);
                    if has_coarse {
                        coarse += 1;
                        continue;
                    }
                    let (full, on) = scene.winding(At::F32(p));
                    assert_eq!(side.value.to_bits(), full.to_bits(), "{p:?}");
                    assert_eq!(side.on_surface, on, "{p:?}");
                    fine += 1;
                    near_half += usize::from((full - 0.5).abs() < 0.1);
                }
            }
        }
        assert!(
            fine > 2_000 && coarse > 2_000 && near_half > 500,
            "{fine} {coarse} {near_half}"
        );
    }

    /// The side decision given the world distance (as `Scene::signed_distance` gives it)
    /// decides as the one that searches for it: closed and open meshes under the identity, a
    /// similarity and a non-uniform scale, at points on, a few f32 steps beside and off
    /// their triangles.
    #[test]
    fn side_decisions_given_the_distance_decide_alike() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0xd157_a9ce);
        let (mut checked, mut inside) = (0usize, 0usize);
        for pose in &poses() {
            for kind in 0..3 {
                let mesh = match kind {
                    0 => octahedron(nalgebra::Point3::origin(), 1.0),
                    1 => sheet(12),
                    _ => soup(100, 1.0, 0.0, &mut rng),
                };
                let (scene, points) = placed(mesh, pose, &mut rng);
                for p in points {
                    let near = scene
                        .nearest_point(&p, f32::INFINITY, &SceneQuery::default())
                        .expect("a mesh")
                        .distance;
                    let (wg, og, _) = scene.side_winding(At::F32(p), Some(near));
                    let (ws, os, _) = scene.side_winding(At::F32(p), None);
                    assert_eq!(og, os, "{p:?} on the surface");
                    assert_eq!(og || wg >= 0.5, os || ws >= 0.5, "{p:?}: {wg} {ws}");
                    checked += 1;
                    inside += usize::from(og || wg >= 0.5);
                }
            }
        }
        assert!(checked > 5_000 && inside > 500, "{checked} {inside}");
    }
}
