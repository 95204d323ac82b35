//! Large coordinates: the nearest point and the solid queries of an f64 world point.
//!
//! As for the f64 rays (`large.rs`), the point goes into each instance's frame in f64 and
//! is rounded to f32 only there, so the answers do not depend on how far the scene is from
//! the origin. Distances to the f32 top-level boxes are measured in f64. An instance whose
//! transform is not a similarity is searched in a world frame moved to the query point,
//! where its transformed triangles keep the precision of the object's own data.

use nalgebra::Point3;
use parry3d::shape::FeatureId;
use raypick_primitives::Real;

use super::nearest::{box_distance64, nearest_general, Best};
use super::query::HitGeometry;
use super::solid::At;
use super::{shape, Geometry, InstanceId, Object, Scene, SceneNearest, SceneQuery};
use crate::mesh::solid::signed::signed_by_side;

/// A [`SceneNearest`] of an f64 world point, with the nearest point and distance in f64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneNearest64 {
    /// The answer as the f32 API reports it (instance, triangle, barycentrics, user data);
    /// its `point` and `distance` are the f64 ones rounded.
    pub nearest: SceneNearest,
    /// The nearest world point, placed by the f64 transform.
    pub point: Point3<f64>,
    /// The world distance from the query point.
    pub distance: f64,
}

/// A [`super::SceneSignedDistance`] of an f64 world point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSignedDistance64 {
    /// The world distance to the nearest surface point: negative inside
    /// ([`Scene::contains_f64`]), positive outside, exactly 0 on a surface.
    pub distance: f64,
    /// The nearest world point.
    pub point: Point3<f64>,
    /// The object it lies on.
    pub instance: InstanceId,
    /// The mesh triangle (with barycentrics) or shape.
    pub geometry: HitGeometry,
    /// The scene's winding number at the query point that decided the side (see
    /// [`super::SceneSignedDistance::winding_number`]).
    pub winding_number: Real,
}

/// True when `p` is finite and within the f32 range, the scene's world boxes being f32.
fn usable(p: &Point3<f64>) -> bool {
    p.iter().all(|c| c.abs() < f64::from(Real::MAX))
}

impl Scene {
    /// [`Scene::nearest_point`] for an f64 world point: exact for scenes far from the
    /// origin (placed with [`Scene::add_instance_f64`]).
    ///
    /// The point goes into each instance's frame through the f64 inverse and is rounded to
    /// f32 there; under a transform that is not a similarity the search runs in a world
    /// frame moved to `p`. The nearest point and distance are f64; ties resolve as in
    /// [`Scene::nearest_point`]. A non-finite `p` (or one beyond the f32 range), or a
    /// negative or NaN `max_distance`, finds nothing.
    ///
    /// ```
    /// use raypick_query::{scene::RecentredMesh, Scene, SceneQuery};
    /// use nalgebra::{Matrix4, Point3};
    /// // A triangle in UTM-like coordinates (metres), where f32 steps are half a metre.
    /// let (e, n) = (5.0e6, 4.0e6);
    /// let tri = [Point3::new(e, n, 0.0), Point3::new(e + 1.0, n, 0.0), Point3::new(e, n + 1.0, 0.0)];
    /// let rec = RecentredMesh::new(&tri, vec![[0, 1, 2]]).unwrap();
    /// let mut scene = Scene::new();
    /// let mesh = scene.add_mesh(rec.mesh.clone());
    /// scene.add_instance_f64(mesh, &rec.placement(&Matrix4::identity())).unwrap();
    /// scene.update();
    /// let p = Point3::new(e + 0.25, n + 0.25, 2.0);
    /// let near = scene.nearest_point_f64(&p, f64::INFINITY, &SceneQuery::default()).unwrap();
    /// assert!((near.point - Point3::new(e + 0.25, n + 0.25, 0.0)).norm() < 1e-6);
    /// assert!((near.distance - 2.0).abs() < 1e-6);
    /// ```
    #[must_use]
    pub fn nearest_point_f64(
        &self,
        p: &Point3<f64>,
        max_distance: f64,
        query: &SceneQuery<'_>,
    ) -> Option<SceneNearest64> {
        if !(max_distance >= 0.0) || !usable(p) {
            return None;
        }
        let best = self.search_nearest(
            max_distance,
            query,
            |b| box_distance64(p, b),
            |id, obj, best| self.nearest_on_object64(id, obj, p, best),
        );
        best.found.map(|nearest| SceneNearest64 {
            nearest,
            point: best.point64,
            distance: best.distance,
        })
    }

    fn nearest_on_object64(&self, id: InstanceId, obj: &Object, p: &Point3<f64>, best: &mut Best) {
        let t = &obj.transform;
        if box_distance64(p, &obj.world_box) > best.bound() {
            return;
        }
        let offer = |geometry: HitGeometry, w: Point3<f64>, best: &mut Best| {
            let d = (w - p).norm();
            let cand = SceneNearest {
                instance: id,
                geometry,
                point: w.cast(),
                distance: d as Real,
                user_data: obj.user_data,
            };
            best.offer(cand, d, w);
        };
        match &obj.geometry {
            Geometry::Shape(s) => {
                let (q, _) = shape::project(s, &t.point64_to_object(p));
                let feature = FeatureId::Unknown;
                offer(HitGeometry::Shape { feature }, t.point_to_world64(&q), best);
            }
            Geometry::Mesh {
                id: mid,
                mesh,
                source,
            } => {
                if let Some(s) = t.uniform_scale {
                    // A similarity keeps nearest points: the mesh's own query is exact.
                    let po = t.point64_to_object(p);
                    let bound = best.bound() / s * (1.0 + 1e-5);
                    let Some(r) = mesh.nearest_point(&po, bound) else {
                        return;
                    };
                    let geometry = HitGeometry::Triangle {
                        mesh: *mid,
                        triangle: r.triangle,
                        u: r.u,
                        v: r.v,
                    };
                    offer(geometry, t.point_to_world64(&r.point), best);
                } else if let Some(moved) = t.shifted(p) {
                    let origin = raypick_primitives::Point3::origin();
                    let user_data = obj.user_data;
                    nearest_general(id, &moved, user_data, *mid, mesh, source, &origin, p, best);
                }
            }
        }
    }

    /// [`Scene::winding_number`] of an f64 world point, taken to each instance's frame in
    /// f64 (see [`Scene::nearest_point_f64`]). NaN for a non-finite `p`.
    #[must_use]
    pub fn winding_number_f64(&self, p: Point3<f64>) -> Real {
        self.winding(At::F64(p)).0 as Real
    }

    /// [`Scene::contains`] of an f64 world point, taken to each instance's frame in f64
    /// (see [`Scene::nearest_point_f64`]): on a closed mesh placed a million units from the
    /// origin, exact to the mesh's own f32 data. False for a non-finite `p`.
    #[must_use]
    pub fn contains_f64(&self, p: Point3<f64>) -> bool {
        let (w, on, untouched) = self.side_winding(At::F64(p), None);
        on || w >= 0.5
            || (!untouched
                && self
                    .nearest_point_f64(&p, 0.0, &SceneQuery::default())
                    .is_some())
    }

    /// [`Scene::signed_distance`] of an f64 world point: [`Scene::nearest_point_f64`] over
    /// every object, negative when [`Scene::contains_f64`] is true, 0 on a surface. `None`
    /// for an empty scene or a non-finite `p`.
    #[must_use]
    pub fn signed_distance_f64(&self, p: Point3<f64>) -> Option<SceneSignedDistance64> {
        let near = self.nearest_point_f64(&p, f64::INFINITY, &SceneQuery::default())?;
        let (w, on, _) = self.side_winding(At::F64(p), Some(near.distance as Real));
        Some(SceneSignedDistance64 {
            distance: signed_by_side(near.distance, on || w >= 0.5),
            point: near.point,
            instance: near.nearest.instance,
            geometry: near.nearest.geometry,
            winding_number: w as Real,
        })
    }

    /// [`Scene::winding_number_f64`] for every point, in parallel; each answer is exactly
    /// the single-point one.
    #[must_use]
    pub fn winding_numbers_f64(&self, points: &[Point3<f64>]) -> Vec<Real> {
        crate::mesh::par_map(points, self.any_open_mesh(), |p| {
            self.winding_number_f64(*p)
        })
    }

    /// [`Scene::contains_f64`] for every point, in parallel.
    #[must_use]
    pub fn contains_points_f64(&self, points: &[Point3<f64>]) -> Vec<bool> {
        crate::mesh::par_map(points, self.any_open_mesh(), |p| self.contains_f64(*p))
    }

    /// [`Scene::signed_distance_f64`] for every point, in parallel.
    #[must_use]
    pub fn signed_distances_f64(
        &self,
        points: &[Point3<f64>],
    ) -> Vec<Option<SceneSignedDistance64>> {
        self.any_open_mesh();
        crate::mesh::par_map(points, true, |p| self.signed_distance_f64(*p))
    }
}
