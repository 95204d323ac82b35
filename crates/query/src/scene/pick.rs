//! Mouse picking with CAD-style vertex and edge snapping.

use std::ops::ControlFlow;

use nalgebra::{Point3 as P3, Vector3 as V3};
use raypick_primitives::{frustum_aabb, Aabb, Frustum, Plane, Point3, Ray, Real, Triangle, Unit};

use super::prims::ScenePrimPick;
use super::{Geometry, InstanceId, MeshId, Object, Scene, SceneHit, SceneQuery};
use crate::camera::{Camera, ScreenRect, Viewport};
use crate::points::PickConfig;

/// Options of [`Scene::pick`].
///
/// Defaults: the default [`SceneQuery`] (every layer, no filter, no culling, `t` from the
/// near plane on), no snapping, snapping only to features visible from the camera, points
/// and segments picked within 5 pixels unless hidden.
#[derive(Clone, Copy, Debug, Default)]
pub struct PickOptions<'a> {
    /// Interval (along the camera ray, whose `t` is the world distance from the near plane),
    /// culling, mask and filter.
    pub query: SceneQuery<'a>,
    /// Snap radius in screen pixels; `None` (the default) turns snapping off.
    pub snap_radius: Option<Real>,
    /// When true, snap also to vertices and edges hidden behind other surfaces. Default
    /// false: a snap candidate must be visible, checked with an occlusion ray from the
    /// camera to just before it.
    pub snap_occluded: bool,
    /// How point and segment sets ([`Scene::add_point_set`], [`Scene::add_segment_set`]) are
    /// picked ([`Pick::prim`]): the tolerance in pixels (default 5; 0 turns it off) and
    /// x-ray (default false: a point or segment hidden by a surface is passed over).
    pub prims: PickConfig,
}

impl<'a> PickOptions<'a> {
    /// The defaults: no snapping, the default [`SceneQuery`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// These options with snapping to vertices and edges within `radius_px` screen pixels
    /// (a radius that is not positive and finite turns snapping off).
    ///
    /// ```
    /// use raypick_query::scene::PickOptions;
    ///
    /// let snapping = PickOptions::new().with_snap_radius(8.0);
    /// assert_eq!(snapping.snap_radius, Some(8.0));
    /// ```
    #[must_use]
    pub fn with_snap_radius(self, radius_px: Real) -> Self {
        Self {
            snap_radius: Some(radius_px),
            ..self
        }
    }

    /// These options with `query`'s interval, culling, mask and filter.
    #[must_use]
    pub fn with_query(self, query: SceneQuery<'a>) -> Self {
        Self { query, ..self }
    }

    /// These options with hidden features allowed as snap targets.
    #[must_use]
    pub fn with_snap_occluded(self, snap_occluded: bool) -> Self {
        Self {
            snap_occluded,
            ..self
        }
    }
}

/// Why [`Scene::pick`] could not look: the input, not the scene (a pick that finds nothing
/// is `Ok(None)`).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PickError {
    /// The viewport's size is not positive and finite, or its corner is not finite.
    #[error("invalid viewport (its size must be positive and finite)")]
    InvalidViewport,
    /// The cursor position is not finite or lies outside the viewport.
    #[error("cursor ({x}, {y}) is outside the viewport")]
    CursorOutside {
        /// The cursor's x, in window pixels.
        x: Real,
        /// The cursor's y, in window pixels.
        y: Real,
    },
    /// The camera cannot make a ray through the cursor (a degenerate projection).
    #[error("the camera cannot make a ray through ({x}, {y})")]
    NoRay {
        /// The cursor's x, in window pixels.
        x: Real,
        /// The cursor's y, in window pixels.
        y: Real,
    },
}

/// A mesh vertex chosen by snapping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapVertex {
    /// The instance it belongs to.
    pub instance: InstanceId,
    /// The instanced mesh.
    pub mesh: MeshId,
    /// The vertex index in the mesh.
    pub vertex: u32,
    /// The vertex in world space.
    pub point: Point3<Real>,
    /// Its distance from the cursor on screen, in pixels.
    pub distance_px: Real,
}

/// A mesh edge chosen by snapping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnapEdge {
    /// The instance it belongs to.
    pub instance: InstanceId,
    /// The instanced mesh.
    pub mesh: MeshId,
    /// The edge's two vertex indices in the mesh (the smaller first).
    pub vertices: [u32; 2],
    /// The point of the edge nearest the cursor on screen, in world space.
    pub point: Point3<Real>,
    /// Its distance from the cursor on screen, in pixels.
    pub distance_px: Real,
}

/// The answer of [`Scene::pick`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// The camera ray through the cursor.
    pub ray: Ray,
    /// The closest hit under the cursor, if any.
    pub hit: Option<SceneHit>,
    /// The nearest snap vertex within the radius, if snapping is on and one is found.
    pub vertex: Option<SnapVertex>,
    /// The nearest snap edge within the radius, if snapping is on and one is found.
    pub edge: Option<SnapEdge>,
    /// The point or segment within [`PickOptions::prims`]' tolerance that no surface hides,
    /// nearest the camera, if any. It wins over `hit`, the surface behind it (the rule CAD
    /// users expect): a point or line within tolerance and not occluded is what the cursor
    /// picks.
    pub prim: Option<ScenePrimPick>,
}

/// A snap candidate: (screen distance^2, NDC depth, instance, mesh, vertex or edge, world
/// point).
type Candidate<K> = (f64, f64, InstanceId, MeshId, K, Point3<Real>);

/// A world plane in object space: `n . (L x + T) = d` gives `(L^T n) . x = d - n . T`.
pub(crate) fn frustum_to_object(f: &Frustum, obj: &Object, margin: Real) -> Frustum {
    let t = &obj.transform;
    let planes = f.planes().map(|p| {
        let n = p.normal.into_inner();
        let no = t.linear.transpose() * n;
        let len = no.norm();
        let off = p.offset - n.dot(&t.translation);
        if len > 0.0 && len.is_finite() {
            Plane::new(Unit::new_unchecked(no / len), off / len + margin)
        } else {
            // Cannot happen for an invertible map; stay conservative (everything inside).
            Plane::new(p.normal, Real::INFINITY)
        }
    });
    Frustum::from_planes(planes)
}

/// A triangle's object-space corners taken to world space.
pub(crate) fn world_triangle(obj: &Object, tri: &[Point3<Real>; 3]) -> Triangle {
    let [a, b, c] = tri.map(|v| obj.transform.point_to_world(&v));
    Triangle::new(a, b, c)
}

/// A margin for object-space culling: a little more than the rounding of the plane transform.
pub(crate) fn cull_margin(obj: &Object) -> Real {
    let b = obj.world_box;
    let size = (b.max - b.min).norm();
    let scale = b.max.coords.abs().max().max(b.min.coords.abs().max());
    let s = (size + scale) / obj.transform.min_scale.max(Real::MIN_POSITIVE);
    if s.is_finite() {
        s * 1e-5
    } else {
        0.0
    }
}

impl Scene {
    /// Calls `f(slot, object, object-space frustum)` for each mesh instance that passes
    /// `query` and whose world box may meet `frustum`.
    pub(crate) fn visit_frustum_meshes<F>(
        &self,
        frustum: &Frustum,
        query: &SceneQuery<'_>,
        mut f: F,
    ) where
        F: FnMut(u32, &Object),
    {
        let mut visit = |slot: u32| {
            let id = self.id_of(slot);
            if let Some(obj) = self.slot_object(slot) {
                if query.accepts(id, obj) && frustum_aabb(frustum, &obj.world_box).may_intersect() {
                    f(slot, obj);
                }
            }
        };
        if let Some(bvh) = self.fresh_top() {
            let leaf = self.top_leaf();
            bvh.traverse_where(
                |b| frustum_aabb(frustum, b).may_intersect(),
                |range| {
                    for pos in range {
                        visit(leaf[pos]);
                    }
                    ControlFlow::Continue(())
                },
            );
        }
        self.for_each_extra_slot(|slot| {
            visit(slot);
            ControlFlow::Continue(())
        });
    }

    /// The closest hit under the cursor at window position `(x, y)` (pixels, origin top left,
    /// y down), and with [`PickOptions::snap_radius`] the nearest mesh vertex and edge on
    /// screen.
    ///
    /// Snapping considers the triangles of the mesh instances (not shapes) that pass the
    /// options' mask and filter and meet the frustum of the square of half-size `radius`
    /// around the cursor (this includes the hit triangle); of those, the vertices and edges
    /// whose projection lies within `radius` pixels of the cursor are candidates, and the
    /// nearest on screen wins (ties: nearer the camera, then lower ids). Edge distance is
    /// measured to the projected segment (the part in front of the near plane). Unless
    /// [`PickOptions::snap_occluded`] is set, a candidate hidden behind another surface is
    /// skipped. Snapping works without a hit (the cursor beside a silhouette).
    ///
    /// Returns `Ok(None)` when there is neither a hit nor a snap, and an error for input
    /// that cannot be picked at all: an invalid viewport, a cursor that is not finite or
    /// lies outside the viewport (edges included), or a camera that cannot make the ray
    /// ([`PickError`]).
    ///
    /// # Errors
    /// [`PickError`], naming the bad input.
    pub fn pick(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: Real,
        y: Real,
        options: &PickOptions<'_>,
    ) -> Result<Option<Pick>, PickError> {
        if !viewport.is_valid() {
            return Err(PickError::InvalidViewport);
        }
        let inside = x >= viewport.x
            && x <= viewport.x + viewport.width
            && y >= viewport.y
            && y <= viewport.y + viewport.height;
        if !inside {
            return Err(PickError::CursorOutside { x, y });
        }
        let ray = camera
            .ray_from_pixel(x, y, viewport)
            .ok_or(PickError::NoRay { x, y })?;
        let hit = self.closest_hit(&ray, &options.query);
        let mut pick = Pick {
            ray,
            hit,
            vertex: None,
            edge: None,
            prim: None,
        };
        if let Some(r) = options.snap_radius.filter(|r| *r > 0.0 && r.is_finite()) {
            self.snap(camera, viewport, x, y, r, options, &mut pick);
        }
        if self.has_prims() && options.prims.radius_px > 0.0 {
            let (cx, cy) = (f64::from(x), f64::from(y));
            pick.prim = self.pick_prims(camera, viewport, cx, cy, &options.prims, &options.query);
        }
        let any = pick.hit.is_some() || pick.vertex.is_some() || pick.edge.is_some();
        Ok((any || pick.prim.is_some()).then_some(pick))
    }

    #[allow(clippy::too_many_arguments)]
    fn snap(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: Real,
        y: Real,
        radius: Real,
        options: &PickOptions<'_>,
        pick: &mut Pick,
    ) {
        let Some(frustum) = camera.rect_frustum(&ScreenRect::around(x, y, radius), viewport) else {
            return;
        };
        let cursor = [f64::from(x), f64::from(y)];
        let r2 = f64::from(radius) * f64::from(radius);
        let project = |p: &Point3<Real>| camera.project_f64(&p.cast::<f64>(), viewport);
        let mut vertices: Vec<Candidate<u32>> = Vec::new();
        let mut edges: Vec<Candidate<[u32; 2]>> = Vec::new();
        self.visit_frustum_meshes(&frustum, &options.query, |slot, obj| {
            let Geometry::Mesh {
                id: mid,
                mesh,
                source: src,
            } = &obj.geometry
            else {
                return;
            };
            let id = self.id_of(slot);
            let local = frustum_to_object(&frustum, obj, cull_margin(obj));
            // Planes first, then the screen box of the node's projected corners: a thin
            // snap frustum passes the plane tests for many boxes beside it.
            let near_cursor = |b: &Aabb| {
                frustum_aabb(&local, b).may_intersect()
                    && screen_box_near(camera, viewport, obj, b, cursor, f64::from(radius))
            };
            mesh.tree().traverse_where(near_cursor, |range| {
                for tri in mesh.tris.leaf_prims(range) {
                    let idx = src.triangles[tri as usize];
                    let w = world_triangle(obj, &src.corners(tri));
                    let corners = w.vertices();
                    let proj = corners.map(|c| project(&c));
                    // All corners in front and their screen box clear of the cursor's
                    // square: nothing of this triangle is within the radius.
                    if let [Some(a), Some(b), Some(c)] = proj {
                        let r = f64::from(radius);
                        let (lx, hx) = (a.0.min(b.0).min(c.0), a.0.max(b.0).max(c.0));
                        let (ly, hy) = (a.1.min(b.1).min(c.1), a.1.max(b.1).max(c.1));
                        if hx < cursor[0] - r
                            || lx > cursor[0] + r
                            || hy < cursor[1] - r
                            || ly > cursor[1] + r
                        {
                            continue;
                        }
                    }
                    for k in 0..3 {
                        if let Some((sx, sy, depth)) = proj[k] {
                            let d2 = (sx - cursor[0]).powi(2) + (sy - cursor[1]).powi(2);
                            if d2 <= r2 {
                                vertices.push((d2, depth, id, *mid, idx[k], corners[k]));
                            }
                        }
                        let (a, b) = (k, (k + 1) % 3);
                        if let (Some(pa), Some(pb)) = (proj[a], proj[b]) {
                            // Cheap 2D reject before the exact edge computation.
                            if segment_distance2(cursor, [pa.0, pa.1], [pb.0, pb.1]) > r2 {
                                continue;
                            }
                        }
                        if let Some((d2, depth, p)) = edge_screen_distance(
                            camera,
                            viewport,
                            cursor,
                            r2,
                            &corners[a],
                            &corners[b],
                        ) {
                            let (va, vb) = (idx[a], idx[b]);
                            edges.push((d2, depth, id, *mid, [va.min(vb), va.max(vb)], p));
                        }
                    }
                }
                ControlFlow::Continue(())
            });
        });
        let order = |a: &Candidate<u32>, b: &Candidate<u32>| {
            a.0.total_cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.4.cmp(&b.4))
        };
        vertices.sort_unstable_by(order);
        vertices.dedup_by(|a, b| a.2 == b.2 && a.4 == b.4);
        edges.sort_unstable_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then(a.4.cmp(&b.4))
        });
        let visible =
            |p: &Point3<Real>| options.snap_occluded || self.sees(camera, viewport, p, options);
        pick.vertex = vertices.iter().find(|v| visible(&v.5)).map(|v| SnapVertex {
            instance: v.2,
            mesh: v.3,
            vertex: v.4,
            point: v.5,
            distance_px: v.0.sqrt() as Real,
        });
        pick.edge = edges.iter().find(|e| visible(&e.5)).map(|e| SnapEdge {
            instance: e.2,
            mesh: e.3,
            vertices: e.4,
            point: e.5,
            distance_px: e.0.sqrt() as Real,
        });
    }

    /// True when nothing that passes the options' filters lies between the camera and `p`
    /// (up to a relative 1e-4 before it, so that `p`'s own surface does not hide it).
    fn sees(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        p: &Point3<Real>,
        options: &PickOptions<'_>,
    ) -> bool {
        let Some((sx, sy, _)) = camera.project_f64(&p.cast::<f64>(), viewport) else {
            return false;
        };
        let Some((o, d)) = camera.ray_from_pixel_f64(sx, sy, viewport) else {
            return false;
        };
        let t = (p.cast::<f64>() - o).dot(&d);
        if !(t > 0.0) {
            // Before the near plane: not visible.
            return false;
        }
        let ray = Ray::new(o.cast(), d.cast());
        let t_max = (t * (1.0 - 1e-4)) as Real;
        let q = SceneQuery {
            t_min: 0.0,
            t_max,
            ..options.query
        };
        !self.any_hit(&ray, &q)
    }
}

/// Screen distance^2 from `cursor` to the projection of segment `a b` (clipped to the part in
/// front of the camera plane), with the depth and the world point of the nearest point;
/// `None` when farther than `sqrt(r2)` pixels.
fn edge_screen_distance(
    camera: &Camera,
    viewport: &Viewport,
    cursor: [f64; 2],
    r2: f64,
    a: &Point3<Real>,
    b: &Point3<Real>,
) -> Option<(f64, f64, Point3<Real>)> {
    let m = camera.view_projection();
    let (a, b) = (a.cast::<f64>(), b.cast::<f64>());
    let ca = m * a.to_homogeneous();
    let cb = m * b.to_homogeneous();
    // Clip against w > eps (in front of the camera plane); keep the segment parameters.
    let eps = 1e-9 * (ca.w.abs() + cb.w.abs()).max(1e-30);
    let (mut s0, mut s1) = (0.0f64, 1.0f64);
    if ca.w <= eps && cb.w <= eps {
        return None;
    }
    if ca.w <= eps {
        s0 = (eps - ca.w) / (cb.w - ca.w);
    } else if cb.w <= eps {
        s1 = (eps - ca.w) / (cb.w - ca.w);
    }
    let at = |s: f64| a + (b - a) * s;
    let pa = camera.project_f64(&at(s0), viewport)?;
    let pb = camera.project_f64(&at(s1), viewport)?;
    let (ax, ay, bx, by) = (pa.0, pa.1, pb.0, pb.1);
    let (ex, ey) = (bx - ax, by - ay);
    let len2 = ex * ex + ey * ey;
    let k = if len2 > 0.0 {
        (((cursor[0] - ax) * ex + (cursor[1] - ay) * ey) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (qx, qy) = (ax + k * ex, ay + k * ey);
    let d2 = (qx - cursor[0]).powi(2) + (qy - cursor[1]).powi(2);
    if d2 > r2 {
        return None;
    }
    // The world point behind screen point (qx, qy): where the camera ray through it comes
    // closest to the segment's line (exact for perspective, as the projection is a line).
    let (o, d) = camera.ray_from_pixel_f64(qx, qy, viewport)?;
    let (p0, p1) = (at(s0), at(s1));
    let u = p1 - p0;
    let s = closest_param(&o, &d, &p0, &u).clamp(0.0, 1.0);
    let world = p0 + u * s;
    let depth = pa.2 + (pb.2 - pa.2) * k;
    Some((d2, depth, world.cast::<Real>()))
}

/// False when the object-space box `b` of `obj` certainly projects farther than `radius`
/// pixels (on either axis) from `cursor`: all eight corners are in front of the camera and
/// the bounding rectangle of their projections misses the cursor's square. True otherwise.
fn screen_box_near(
    camera: &Camera,
    viewport: &Viewport,
    obj: &Object,
    b: &Aabb,
    cursor: [f64; 2],
    radius: f64,
) -> bool {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for i in 0..8 {
        let c = Point3::new(
            if i & 1 == 0 { b.min.x } else { b.max.x },
            if i & 2 == 0 { b.min.y } else { b.max.y },
            if i & 4 == 0 { b.min.z } else { b.max.z },
        );
        let w = obj.transform.point_to_world(&c);
        let Some((x, y, _)) = camera.project_f64(&w.cast::<f64>(), viewport) else {
            return true;
        };
        lo = [lo[0].min(x), lo[1].min(y)];
        hi = [hi[0].max(x), hi[1].max(y)];
    }
    // A small pad covers the f32 rounding of the corners.
    let r = radius + 1e-3 * (1.0 + radius);
    !(hi[0] < cursor[0] - r
        || lo[0] > cursor[0] + r
        || hi[1] < cursor[1] - r
        || lo[1] > cursor[1] + r)
}

/// Squared distance from `c` to the segment `a b` in the plane.
fn segment_distance2(c: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
    let len2 = ex * ex + ey * ey;
    let k = if len2 > 0.0 {
        (((c[0] - a[0]) * ex + (c[1] - a[1]) * ey) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a[0] + k * ex - c[0]).powi(2) + (a[1] + k * ey - c[1]).powi(2)
}

/// Parameter `s` of the point `p0 + s u` closest to the line `o + t d`.
fn closest_param(o: &P3<f64>, d: &V3<f64>, p0: &P3<f64>, u: &V3<f64>) -> f64 {
    let w = p0 - o;
    let (a, b, c) = (d.dot(d), d.dot(u), u.dot(u));
    let (dd, e) = (d.dot(&w), u.dot(&w));
    let den = a * c - b * b;
    if den.abs() <= 1e-300 {
        0.0
    } else {
        (b * dd - a * e) / den
    }
}
