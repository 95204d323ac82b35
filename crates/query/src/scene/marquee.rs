//! Marquee (rectangle) selection.

use std::collections::HashSet;

use parry3d::shape::SharedShape;
use rayon::prelude::*;
use raypick_primitives::{frustum_aabb, Classification, Frustum, Real};

use super::pick::frustum_to_object;
use super::{Geometry, InstanceId, Object, Scene, SceneQuery, SelectedPrims};
use crate::camera::{Camera, ScreenRect, Viewport};

/// Which objects and triangles a marquee selects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SelectMode {
    /// Only what lies entirely inside the rectangle's frustum (the usual left-to-right drag).
    #[default]
    Inside,
    /// Everything that touches the rectangle's frustum (the usual right-to-left drag).
    Intersecting,
}

/// How [`SelectOptions::visible_only`] samples visibility.
///
/// A regular grid of `nx x ny` rays from the camera through the rectangle, at the centres
/// of its cells: `nx = clamp(ceil(width), 1, max_per_axis)` and likewise `ny`, so a
/// rectangle up to `max_per_axis` pixels wide gets one ray through every pixel centre (for
/// a rectangle on pixel boundaries). Each ray's closest hit (with the options' query) marks
/// its object and triangle visible. Something smaller than the grid spacing can be missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VisibleSampling {
    /// The most rays along each axis. Default 128 (at most 16,384 rays).
    pub max_per_axis: u32,
}

impl Default for VisibleSampling {
    fn default() -> Self {
        Self { max_per_axis: 128 }
    }
}

/// Options of [`Scene::select_rect`].
#[derive(Clone, Copy, Debug)]
pub struct SelectOptions<'a> {
    /// Inside or intersecting. Default [`SelectMode::Inside`].
    pub mode: SelectMode,
    /// Also list the selected triangles of mesh instances. Default false.
    pub triangles: bool,
    /// Also select the points and segments of point and segment set instances
    /// ([`Selection::prims`]). Default true.
    pub prims: bool,
    /// Keep only what at least one sample ray reaches first. Default `None` (off).
    pub visible_only: Option<VisibleSampling>,
    /// Mask and filter of the objects considered (interval and culling apply to the
    /// visibility rays only).
    pub query: SceneQuery<'a>,
}

impl Default for SelectOptions<'_> {
    fn default() -> Self {
        Self {
            mode: SelectMode::Inside,
            triangles: false,
            prims: true,
            visible_only: None,
            query: SceneQuery::default(),
        }
    }
}

impl<'a> SelectOptions<'a> {
    /// The defaults: whole objects inside the rectangle, no triangles, points and segments,
    /// no visibility test, the default [`SceneQuery`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// These options selecting points and segments (`true`) or not.
    #[must_use]
    pub fn with_prims(self, prims: bool) -> Self {
        Self { prims, ..self }
    }

    /// These options with selection mode `mode`.
    #[must_use]
    pub fn with_mode(self, mode: SelectMode) -> Self {
        Self { mode, ..self }
    }

    /// These options listing the selected triangles of mesh instances too.
    #[must_use]
    pub fn with_triangles(self, triangles: bool) -> Self {
        Self { triangles, ..self }
    }

    /// These options keeping only what the default [`VisibleSampling`] sees.
    #[must_use]
    pub fn visible_only(self) -> Self {
        self.with_visible_sampling(VisibleSampling::default())
    }

    /// These options keeping only what the sampling `sampling` sees.
    #[must_use]
    pub fn with_visible_sampling(self, sampling: VisibleSampling) -> Self {
        Self {
            visible_only: Some(sampling),
            ..self
        }
    }

    /// These options with `query`'s mask and filter (and interval and culling for the
    /// visibility rays).
    #[must_use]
    pub fn with_query(self, query: SceneQuery<'a>) -> Self {
        Self { query, ..self }
    }
}

/// A selected object and, on request, its selected triangles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selected {
    /// The object.
    pub instance: InstanceId,
    /// The triangles (original mesh indices, ascending) that match the mode, when
    /// [`SelectOptions::triangles`] is set; empty otherwise and for shapes.
    pub triangles: Vec<u32>,
}

/// The answer of [`Scene::select_rect`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Objects that match the mode, in id order.
    pub instances: Vec<InstanceId>,
    /// With [`SelectOptions::triangles`]: every mesh instance with at least one triangle
    /// matching the mode (also those not matching as a whole), in id order.
    pub triangles: Vec<Selected>,
    /// With [`SelectOptions::prims`]: every point or segment set instance with at least one
    /// point or segment selected, in id order.
    pub prims: Vec<SelectedPrims>,
}

impl Scene {
    /// Selects by a screen rectangle: the objects (and on request the triangles) entirely
    /// inside, or touching, the frustum behind `rect` (see [`Camera::rect_frustum`]).
    ///
    /// - A mesh instance is inside when it has triangles and every one is inside; it
    ///   intersects when some triangle does. Triangles are classified by
    ///   [`crate::Mesh::classify_frustum`] (exact `frustum_triangle` tests) against the frustum
    ///   taken to the instance's object space (planes through the inverse transpose).
    /// - A convex shape is tested exactly through its support function for "inside"; a
    ///   non-convex shape is inside when its world box is. A shape intersects when its world
    ///   box does and, with a finite far plane, parry confirms the overlap with the frustum
    ///   as a convex polyhedron.
    /// - With [`SelectOptions::visible_only`], only objects and triangles that some sample
    ///   ray reaches first are kept (see [`VisibleSampling`]).
    /// - With [`SelectOptions::prims`], the points whose projection lies in the rectangle
    ///   (between the near and far planes) and the segments inside or crossing it, by mode,
    ///   are listed per set instance (the mask applies, the filter does not). With
    ///   `visible_only` they are tested one by one: a point is kept when no surface lies in
    ///   front of it on the ray through its pixel, a segment when one of 16 samples along
    ///   its part inside the rectangle is.
    ///
    /// An invalid rectangle or viewport selects nothing.
    #[must_use]
    pub fn select_rect(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        rect: &ScreenRect,
        options: &SelectOptions<'_>,
    ) -> Selection {
        let mut out = Selection::default();
        let Some(frustum) = camera.rect_frustum(rect, viewport) else {
            return out;
        };
        if options.prims {
            out.prims = self.select_prims(
                camera,
                viewport,
                rect,
                options.mode,
                options.visible_only.is_some(),
                &options.query,
            );
        }
        let mut found: Vec<(InstanceId, bool, Vec<u32>)> = Vec::new();
        self.visit_frustum_meshes(&frustum, &options.query, |slot, obj| {
            let id = self.id_of(slot);
            let (whole, tris) = match &obj.geometry {
                Geometry::Mesh { .. } => classify_mesh(obj, &frustum, options),
                Geometry::Shape(s) => (
                    classify_shape(s, obj, &frustum, camera, viewport, rect, options.mode),
                    Vec::new(),
                ),
            };
            if whole || !tris.is_empty() {
                found.push((id, whole, tris));
            }
        });
        found.sort_by_key(|f| f.0);
        if let Some(sampling) = options.visible_only {
            let seen = self.sample_visible(camera, viewport, rect, sampling, &options.query);
            for (id, whole, tris) in &mut found {
                *whole &= seen.contains(&(*id, None));
                tris.retain(|t| seen.contains(&(*id, Some(*t))));
            }
        }
        for (id, whole, mut tris) in found {
            if whole {
                out.instances.push(id);
            }
            if options.triangles && !tris.is_empty() {
                tris.sort_unstable();
                out.triangles.push(Selected {
                    instance: id,
                    triangles: tris,
                });
            }
        }
        out
    }

    /// Objects (`None`) and triangles (`Some`) that some sample ray reaches first.
    fn sample_visible(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        rect: &ScreenRect,
        sampling: VisibleSampling,
        query: &SceneQuery<'_>,
    ) -> HashSet<(InstanceId, Option<u32>)> {
        let max = sampling.max_per_axis.max(1);
        let count = |len: Real| ((len.ceil() as u32).clamp(1, max)) as usize;
        let w = rect.max[0] - rect.min[0];
        let h = rect.max[1] - rect.min[1];
        let (nx, ny) = (count(w), count(h));
        (0..nx * ny)
            .into_par_iter()
            .with_min_len(64)
            .filter_map(|k| {
                let (i, j) = (k % nx, k / nx);
                let x = rect.min[0] + w * ((i as Real + 0.5) / nx as Real);
                let y = rect.min[1] + h * ((j as Real + 0.5) / ny as Real);
                let ray = camera.ray_from_pixel(x, y, viewport)?;
                self.closest_hit(&ray, query)
            })
            .map(|hit| (hit.instance, hit.triangle()))
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|(id, t)| [(id, None), (id, t)])
            .collect()
    }
}

/// (whole instance matches, matching triangles) for a mesh instance: the mesh's own frustum
/// classification against the frustum taken to object space.
fn classify_mesh(obj: &Object, frustum: &Frustum, options: &SelectOptions<'_>) -> (bool, Vec<u32>) {
    let Geometry::Mesh { mesh, .. } = &obj.geometry else {
        return (false, Vec::new());
    };
    if mesh.is_empty() {
        return (false, Vec::new());
    }
    let local = frustum_to_object(frustum, obj, 0.0);
    let sel = mesh.classify_frustum(&local);
    match options.mode {
        SelectMode::Inside => (sel.inside.len() == mesh.len(), sel.inside),
        SelectMode::Intersecting => {
            let mut all = sel.inside;
            all.extend_from_slice(&sel.intersecting);
            all.sort_unstable();
            (!all.is_empty(), all)
        }
    }
}

fn classify_shape(
    shape: &SharedShape,
    obj: &Object,
    frustum: &Frustum,
    camera: &Camera,
    viewport: &Viewport,
    rect: &ScreenRect,
    mode: SelectMode,
) -> bool {
    let by_box = frustum_aabb(frustum, &obj.world_box);
    match mode {
        SelectMode::Inside => {
            if by_box == Classification::Inside {
                return true;
            }
            let Some(support) = shape.as_support_map() else {
                return false;
            };
            // Inside every plane: the support point along each outward normal is inside.
            frustum.planes().iter().all(|p| {
                if p.offset == Real::INFINITY {
                    return true;
                }
                let n = p.normal.into_inner();
                let dir_o = obj.transform.linear.transpose() * n;
                let s = support.local_support_point(&dir_o);
                let w = obj.transform.point_to_world(&s);
                n.dot(&w.coords) <= p.offset
            })
        }
        SelectMode::Intersecting => {
            if by_box.is_outside() {
                return false;
            }
            if by_box == Classification::Inside {
                return true;
            }
            // The frustum as a convex polyhedron in the shape's object space; far plane
            // clipped just past the shape when it is at infinity.
            let Some(corners) = rect_corners(camera, viewport, rect, obj) else {
                return true;
            };
            let local: Vec<_> = corners
                .iter()
                .map(|c| obj.transform.point_to_object(c))
                .collect();
            let Some(poly) = parry3d::shape::ConvexPolyhedron::from_convex_hull(&local) else {
                return true;
            };
            let id = nalgebra::Isometry3::identity();
            match parry3d::query::intersection_test(&id, &poly, &id, shape.as_ref()) {
                Ok(b) => b,
                // Unsupported pair: fall back to a point test plus the box answer.
                Err(_) => {
                    local.iter().any(|p| shape.contains_local_point(p)) || by_box.may_intersect()
                }
            }
        }
    }
}

/// The eight world corners of the rectangle's frustum, the far ones clipped just beyond the
/// object's box when the far plane is at infinity.
fn rect_corners(
    camera: &Camera,
    viewport: &Viewport,
    rect: &ScreenRect,
    obj: &Object,
) -> Option<Vec<raypick_primitives::Point3<Real>>> {
    let b = &obj.world_box;
    let center = b.center().cast::<f64>();
    let diag = f64::from((b.max - b.min).norm());
    let conv = camera.convention();
    let far_ndc = conv.far_ndc();
    let m = camera.view_projection().try_inverse()?;
    let mut out = Vec::with_capacity(8);
    for (x, y) in [
        (rect.min[0], rect.min[1]),
        (rect.max[0], rect.min[1]),
        (rect.min[0], rect.max[1]),
        (rect.max[0], rect.max[1]),
    ] {
        let (o, d) = camera.ray_from_pixel_f64(f64::from(x), f64::from(y), viewport)?;
        out.push(o.cast());
        // Unproject the far corner; at infinity (w ~ 0) clip past the box instead.
        let (nx, ny) = {
            let w = f64::from(viewport.width);
            let h = f64::from(viewport.height);
            let nx = 2.0 * (f64::from(x) - f64::from(viewport.x)) / w - 1.0;
            let ny = 1.0 - 2.0 * (f64::from(y) - f64::from(viewport.y)) / h;
            (nx, if conv.y_down { -ny } else { ny })
        };
        let hf = m * nalgebra::Vector4::new(nx, ny, far_ndc, 1.0);
        let reach = (center - o).norm() + diag;
        let far = if hf.w.abs() > 1e-12 {
            let p = nalgebra::Point3::new(hf.x / hf.w, hf.y / hf.w, hf.z / hf.w);
            let t = (p - o).dot(&d);
            if t.is_finite() && t > 0.0 && t < reach {
                p
            } else {
                o + d * reach
            }
        } else {
            o + d * reach
        };
        out.push(far.cast());
    }
    out.iter()
        .all(|p: &raypick_primitives::Point3<Real>| p.iter().all(|c| c.is_finite()))
        .then_some(out)
}
