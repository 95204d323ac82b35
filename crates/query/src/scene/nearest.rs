//! Nearest surface point over a [`Scene`], in world-space distance.
//!
//! An instance whose transform is a similarity (rotation, mirror, uniform scale `s`) keeps
//! nearest points: the object-space nearest point is the world nearest point and distances
//! scale by `s`, so the mesh's own best-first query answers it with the bound divided by `s`.
//! Under a non-uniform scale that is false (the object-space nearest point is not the world
//! one), so such instances run a best-first traversal of the mesh's BVH with world-space
//! bounds instead: each node's box goes to world space (the box of the transformed box,
//! which contains every transformed triangle, so its distance is a true lower bound) and
//! each leaf's triangles are transformed and measured exactly in world space, from the
//! vertex data the scene keeps per mesh. Both paths are exact up to f32 rounding; the proof
//! tests compare them with a brute force over every world triangle.

use std::ops::ControlFlow;

use parry3d::shape::FeatureId;
use raypick_primitives::{point_triangle, Aabb, Point3, Real, Triangle};

use super::query::HitGeometry;
use super::{shape, Geometry, InstanceId, MeshSource, Object, Scene, SceneError, SceneQuery};
use crate::Mesh;

/// The nearest surface point of a scene to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneNearest {
    /// The object it lies on.
    pub instance: InstanceId,
    /// The mesh triangle (with barycentrics) or shape.
    pub geometry: HitGeometry,
    /// The world point.
    pub point: Point3<Real>,
    /// The world distance from the query point.
    pub distance: Real,
    /// The object's user data.
    pub user_data: u64,
}

/// Distance from `p` to the box (0 inside), rounded down a little so that it stays a lower
/// bound through the f32 roundings.
pub(super) fn box_distance(p: &Point3<Real>, b: &Aabb) -> Real {
    box_distance64(&p.cast(), b)
}

/// The f64 distance from `p` to an f32 box (0 inside), rounded down a little so that it
/// stays a lower bound through the roundings. In f64 so that boxes farther than about
/// 1.8e19, whose f32 squared distance would overflow, still rank by their distance.
pub(super) fn box_distance64(p: &nalgebra::Point3<f64>, b: &Aabb) -> Real {
    if b.is_empty() {
        return Real::INFINITY;
    }
    let exact = weighted_gap2([p.x, p.y, p.z], b, [1.0; 3]).sqrt();
    let d = (exact * (1.0 - 1e-6)) as Real;
    // Rounded to f32 downwards.
    if f64::from(d) > exact {
        d.next_down()
    } else {
        d
    }
}

/// The squared gaps from `p` to the box `b` along each axis (0 inside its slab), in f64,
/// weighted by `w` and summed.
fn weighted_gap2(p: [f64; 3], b: &Aabb, w: [f64; 3]) -> f64 {
    (0..3)
        .map(|a| {
            let (lo, hi) = (f64::from(b.min[a]), f64::from(b.max[a]));
            let gap = (lo - p[a]).max(p[a] - hi).max(0.0);
            w[a] * gap * gap
        })
        .sum()
}

pub(super) fn distance64(a: &Point3<Real>, b: &Point3<Real>) -> f64 {
    (a.cast::<f64>() - b.cast::<f64>()).norm()
}

pub(super) struct Best {
    pub(super) found: Option<SceneNearest>,
    /// The found point in f64 world coordinates (the f64 queries' answer).
    pub(super) point64: nalgebra::Point3<f64>,
    pub(super) distance: f64,
}

impl Best {
    pub(super) fn new(max_distance: f64) -> Self {
        Self {
            found: None,
            point64: nalgebra::Point3::origin(),
            distance: max_distance,
        }
    }

    pub(super) fn offer(&mut self, cand: SceneNearest, d: f64, point64: nalgebra::Point3<f64>) {
        let better = d < self.distance
            || (d == self.distance
                && self.found.as_ref().is_none_or(|b| {
                    (cand.instance, cand.triangle_index()) < (b.instance, b.triangle_index())
                }));
        if better {
            self.distance = d;
            self.point64 = point64;
            self.found = Some(cand);
        }
    }
    pub(super) fn bound(&self) -> Real {
        // Rounded up so that equal candidates elsewhere are still visited.
        (self.distance * (1.0 + 1e-6)) as Real
    }
}

impl Scene {
    /// The nearest surface point within world distance `max_distance` of `p`, over the
    /// objects that pass `query`'s mask and filter (its interval and culling are ignored),
    /// or `None`.
    ///
    /// Distances are world distances, also under non-uniform scale: a similarity transform
    /// keeps nearest points, so the mesh's own query answers in object space; otherwise a
    /// best-first search over the mesh's BVH with world-space node boxes measures the
    /// transformed triangles in world space. Shapes
    /// project with parry's non-solid point query (a point inside
    /// a shape projects onto its boundary). Among equally near objects the lowest id wins.
    /// A non-finite `p` or a negative or NaN `max_distance` finds nothing. Objects farther
    /// than about 1.8e19 (where f32 squared distances overflow) rank by their f64 distances,
    /// as in [`crate::Mesh::nearest_point`].
    #[must_use]
    pub fn nearest_point(
        &self,
        p: &Point3<Real>,
        max_distance: Real,
        query: &SceneQuery<'_>,
    ) -> Option<SceneNearest> {
        if !(max_distance >= 0.0) || !p.iter().all(|c| c.is_finite()) {
            return None;
        }
        let best = self.search_nearest(
            f64::from(max_distance),
            query,
            |b| box_distance(p, b),
            |id, obj, best| self.nearest_on_object(id, obj, p, best),
        );
        best.found
    }

    /// The best-first search of both precisions: the objects `query` accepts, in order of
    /// `box_distance` (a lower bound of the distance to a world box) up to `max_distance`,
    /// then the unbounded and stale ones, each measured by `measure`.
    pub(super) fn search_nearest(
        &self,
        max_distance: f64,
        query: &SceneQuery<'_>,
        box_distance: impl Fn(&Aabb) -> Real,
        measure: impl Fn(InstanceId, &Object, &mut Best),
    ) -> Best {
        let mut best = Best::new(max_distance);
        let visit = |slot: u32, best: &mut Best| {
            let id = self.id_of(slot);
            if let Some(obj) = self.slot_object(slot) {
                if query.accepts(id, obj) {
                    measure(id, obj, best);
                }
            }
        };
        if let Some(bvh) = self.fresh_top() {
            let leaf = self.top_leaf();
            bvh.traverse_best_first(max_distance as Real, box_distance, |range, bound| {
                for pos in range {
                    visit(leaf[pos], &mut best);
                }
                *bound = best.bound();
                ControlFlow::Continue(())
            });
        }
        self.for_each_extra_slot(|slot| {
            visit(slot, &mut best);
            ControlFlow::Continue(())
        });
        best
    }

    fn nearest_on_object(&self, id: InstanceId, obj: &Object, p: &Point3<Real>, best: &mut Best) {
        let t = &obj.transform;
        if box_distance(p, &obj.world_box) > best.bound() {
            return;
        }
        match &obj.geometry {
            Geometry::Shape(s) => {
                let (q, _) = shape::project(s, &t.point_to_object(p));
                let w = t.point_to_world(&q);
                let d = distance64(&w, p);
                let cand = SceneNearest {
                    instance: id,
                    geometry: HitGeometry::Shape {
                        feature: FeatureId::Unknown,
                    },
                    point: w,
                    distance: d as Real,
                    user_data: obj.user_data,
                };
                best.offer(cand, d, w.cast());
            }
            Geometry::Mesh {
                id: mid,
                mesh,
                source,
            } => {
                if let Some(s) = t.uniform_scale {
                    // A similarity keeps nearest points: the mesh's own query is exact.
                    let po = t.point_to_object(p);
                    let Some(r) = mesh.nearest_point(&po, best.bound() / s * (1.0 + 1e-5)) else {
                        return;
                    };
                    let w = t.point_to_world(&r.point);
                    let d = distance64(&w, p);
                    best.offer(
                        SceneNearest {
                            instance: id,
                            geometry: HitGeometry::Triangle {
                                mesh: *mid,
                                triangle: r.triangle,
                                u: r.u,
                                v: r.v,
                            },
                            point: w,
                            distance: d as Real,
                            user_data: obj.user_data,
                        },
                        d,
                        w.cast(),
                    );
                } else {
                    let at = nalgebra::Point3::origin();
                    nearest_general(id, t, obj.user_data, *mid, mesh, source, p, &at, best);
                }
            }
        }
    }

    /// [`Scene::nearest_point`] for every point, in parallel: `out[i]` gets point `i`'s
    /// answer.
    ///
    /// # Errors
    /// [`SceneError::BatchLengthMismatch`] when the lengths differ.
    pub fn nearest_point_batch(
        &self,
        points: &[Point3<Real>],
        max_distance: Real,
        query: &SceneQuery<'_>,
        out: &mut [Option<SceneNearest>],
    ) -> Result<(), SceneError> {
        use rayon::prelude::*;
        super::query::check_batch(points.len(), out.len())?;
        points
            .par_iter()
            .zip(out.par_iter_mut())
            .with_min_len(64)
            .for_each(|(p, slot)| *slot = self.nearest_point(p, max_distance, query));
        Ok(())
    }
}

/// The nearest point of a non-uniformly scaled instance, placed by `t` in a world frame
/// whose origin is the f64 world point `at` (the origin for the f32 queries; the query point
/// for the f64 ones, `t` then shifted by it): the mesh's own nearest-first search from the
/// object point of `p`, its boxes and triangles pruned in object space by the world bound
/// over the transform's least stretch (a world distance is at least `min_scale` times the
/// object one), each candidate measured exactly in world space.
#[allow(clippy::too_many_arguments)]
pub(super) fn nearest_general(
    id: InstanceId,
    t: &super::transform::InstanceTransform,
    user_data: u64,
    mid: super::MeshId,
    mesh: &Mesh,
    source: &MeshSource,
    p: &Point3<Real>,
    at: &nalgebra::Point3<f64>,
    best: &mut Best,
) {
    let po = t.point_to_object(p);
    if !po.iter().all(|c| c.is_finite()) {
        return;
    }
    // The object point's own rounding, in object units.
    let slack = 1e-5 * crate::mesh::nearest::coordinate_scale(&mesh.bounds(), &po);
    let stretch = t.min_scale;
    let object_bound = |world: Real| {
        let r = world / stretch + slack;
        r * r
    };
    let scale = mesh.nearest_scale(&po);
    let offer = |tri: u32, best: &mut Best| {
        let [a, b, c] = source.corners(tri).map(|v| t.point_to_world(&v));
        let Some(q) = point_triangle(p, &Triangle::new(a, b, c)) else {
            return;
        };
        let d = distance64(&q.point, p);
        if d <= best.distance {
            let point64 = at + q.point.coords.cast::<f64>();
            best.offer(
                SceneNearest {
                    instance: id,
                    geometry: HitGeometry::Triangle {
                        mesh: mid,
                        triangle: tri,
                        u: q.u,
                        v: q.v,
                    },
                    point: point64.cast(),
                    distance: d as Real,
                    user_data,
                },
                d,
                point64,
            );
        }
    };
    // A slot's bound raised by its box's distance in the world metric along the object
    // axes (`axis_weights`), less the object point's rounding stretched by `max_scale`.
    let shift = f64::from(t.max_scale) * f64::from(slack);
    let po64 = [po.x, po.y, po.z].map(f64::from);
    let raise = |b: &Aabb, d: &mut Real| {
        let w2 = weighted_gap2(po64, b, t.axis_weights);
        let r = (w2.sqrt() * (1.0 - 1e-6) - shift) / f64::from(stretch);
        if r > 0.0 {
            let r2 = (r * r * (1.0 - 1e-6)) as Real;
            if r2 > *d {
                *d = r2;
            }
        }
    };
    crate::mesh::with_tree!(mesh.tree(), tree => tree.traverse_nearest_first_with(
        &po,
        object_bound(best.bound()),
        |k, mut within, d| {
            let node = &tree.nodes()[k];
            while within != 0 {
                let i = within.trailing_zeros() as usize;
                within &= within - 1;
                raise(&node.child_aabb(i), &mut d[i]);
            }
        },
        |range, bound2| {
            mesh.tris
                .for_each_near(range, &po, scale, bound2, |slot, _, bound2| {
                    offer(mesh.tris.prim_at(slot), best);
                    *bound2 = object_bound(best.bound());
                });
            ControlFlow::Continue(())
        },
    ));
}

impl SceneNearest {
    /// The triangle's original index for a mesh point, `None` for a shape.
    #[must_use]
    pub fn triangle_index(&self) -> Option<u32> {
        match self.geometry {
            HitGeometry::Triangle { triangle, .. } => Some(triangle),
            HitGeometry::Shape { .. } => None,
        }
    }
}
