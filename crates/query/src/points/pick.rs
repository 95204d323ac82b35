//! Mouse picking of points and segments with a tolerance in pixels.
//!
//! The rule: among the points (or segments) whose projection lies within `radius_px` of the
//! cursor and which are not behind the near plane, the one nearest the camera (smallest
//! view-space depth) wins, unless a triangle of the occluder lies in front of it on the
//! ray through its projected position (then the next nearest candidate is tried). With
//! [`PickConfig::xray`] occlusion is ignored. So a point or line within tolerance and not
//! occluded wins over the surface behind it, as in CAD tools.
//!
//! Nodes of the BVH are pruned by the screen rectangle of their projected corners (boxes
//! reaching behind the camera plane are kept); the exact test is in screen space, in f64.

use std::ops::ControlFlow;

use nalgebra::{Point3 as P3, Vector4};
use raypick_bvh::Bvh;
use raypick_primitives::{Aabb, Point3, Ray, Real};

use super::{PointSet, SegmentSet};
use crate::camera::{Camera, Viewport};
use crate::mesh::{Mesh, RayQuery};
use crate::scene::{Scene, SceneQuery};

/// Options of a pixel-tolerance pick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PickConfig {
    /// Tolerance in window pixels (default 5). Negative or NaN picks nothing.
    pub radius_px: f64,
    /// Ignore occlusion by the occluder (x-ray selection; default false).
    pub xray: bool,
}

impl Default for PickConfig {
    fn default() -> Self {
        Self {
            radius_px: 5.0,
            xray: false,
        }
    }
}

impl PickConfig {
    /// X-ray selection with the given tolerance.
    #[must_use]
    pub fn xray(radius_px: f64) -> Self {
        Self {
            radius_px,
            xray: true,
        }
    }
}

/// Which kind of object a pick hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickKind {
    /// A point of a point set.
    Point,
    /// A segment of a segment set.
    Segment,
}

/// A picked point or segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrimPick {
    /// Point or segment.
    pub kind: PickKind,
    /// Index of the point or segment, in the order given.
    pub index: u32,
    /// Parameter along the segment (0 at its first end, 1 at its second); 0 for points.
    pub u: f64,
    /// The world point picked.
    pub point: P3<f64>,
    /// Distance in pixels between the cursor and the projection of `point`.
    pub pixel_distance: f64,
    /// View-space depth of `point` (distance in front of the camera plane).
    pub depth: f64,
}

/// The camera, cursor and tolerance of one pick, in f64.
pub(crate) struct Frame<'a> {
    camera: &'a Camera,
    viewport: &'a Viewport,
    cx: f64,
    cy: f64,
    r: f64,
    near: f64,
    depth_row: Vector4<f64>,
    /// Clip-space half-spaces `plane · (p, 1) >= 0` that hold every candidate: the four
    /// sides of the tolerance square around the cursor (padded by 1e-3 px, far beyond
    /// rounding) and the near plane. A point in front of the camera projects inside the
    /// square exactly when it is inside the four sides, so a box outside one holds nothing.
    planes: [Vector4<f64>; 5],
}

impl<'a> Frame<'a> {
    pub(crate) fn new(
        camera: &'a Camera,
        viewport: &'a Viewport,
        cx: f64,
        cy: f64,
        r: f64,
    ) -> Option<Self> {
        if !(cx.is_finite() && cy.is_finite() && r >= 0.0 && r.is_finite()) {
            return None;
        }
        let depth_row = -camera.view_matrix().row(2).transpose();
        let (o, _) = camera.ray_from_pixel_f64(cx, cy, viewport)?;
        let near = depth_row.dot(&o.to_homogeneous());
        let pad = r * (1.0 + 1e-6) + 1e-3;
        let y_down = camera.convention().y_down;
        let (ax, ay) = viewport.window_to_ndc(cx - pad, cy - pad, y_down);
        let (bx, by) = viewport.window_to_ndc(cx + pad, cy + pad, y_down);
        let vp = camera.view_projection();
        let (row_x, row_y, row_w) = (
            vp.row(0).transpose(),
            vp.row(1).transpose(),
            vp.row(3).transpose(),
        );
        let planes = [
            row_x - row_w * ax.min(bx),
            row_w * ax.max(bx) - row_x,
            row_y - row_w * ay.min(by),
            row_w * ay.max(by) - row_y,
            depth_row - Vector4::new(0.0, 0.0, 0.0, near),
        ];
        Some(Self {
            camera,
            viewport,
            cx,
            cy,
            r,
            near,
            depth_row,
            planes,
        })
    }

    pub(crate) fn depth(&self, p: &P3<f64>) -> f64 {
        self.depth_row.dot(&p.to_homogeneous())
    }

    /// A lower bound of the depth of anything within tolerance in the box, or `None` when
    /// the box cannot hold anything within tolerance: it lies wholly outside one of the
    /// planes of [`Frame::planes`] (conservative).
    fn box_bound(&self, b: &Aabb) -> Option<f64> {
        let lo = [f64::from(b.min.x), f64::from(b.min.y), f64::from(b.min.z)];
        let hi = [f64::from(b.max.x), f64::from(b.max.y), f64::from(b.max.z)];
        for p in &self.planes {
            // The box corner farthest along the plane's normal.
            let mut s = p.w;
            for k in 0..3 {
                s += (p[k] * lo[k]).max(p[k] * hi[k]);
            }
            if s < 0.0 {
                return None;
            }
        }
        let r = &self.depth_row;
        let mut d = r.w;
        for k in 0..3 {
            d += (r[k] * lo[k]).min(r[k] * hi[k]);
        }
        Some(d.max(self.near))
    }

    /// Best-first over the tree by depth bound: the nearest candidate that is not
    /// occluded (unless x-ray), ties broken by pixel distance then index.
    fn search<C>(
        &self,
        bvh: &Bvh,
        config: &PickConfig,
        occluder: Option<&dyn Occluder>,
        candidate: C,
    ) -> Option<PrimPick>
    where
        C: Fn(u32) -> Option<PrimPick>,
    {
        let occluder = occluder.filter(|_| !config.xray);
        let idx = bvh.prim_indices();
        let mut best: Option<PrimPick> = None;
        // f32 bounds rounded outwards so that pruning stays conservative.
        let down = |d: f64| (d - d.abs() * 1e-6 - 1e-6) as Real;
        let up = |d: f64| (d + d.abs() * 1e-6 + 1e-6) as Real;
        bvh.traverse_best_first(
            Real::INFINITY,
            |b| self.box_bound(b).map_or(Real::INFINITY, down),
            |range, bound| {
                for pos in range {
                    let Some(c) = candidate(idx[pos]) else {
                        continue;
                    };
                    let better = best.as_ref().is_none_or(|b| {
                        (c.depth, c.pixel_distance, c.index) < (b.depth, b.pixel_distance, b.index)
                    });
                    if better && !occluder.is_some_and(|m| self.occluded(m, &c)) {
                        *bound = up(c.depth);
                        best = Some(c);
                    }
                }
                ControlFlow::Continue(())
            },
        );
        best
    }

    /// The point's pick candidate, if within tolerance and not behind the near plane.
    pub(crate) fn point_candidate(&self, index: u32, p: &P3<f64>) -> Option<PrimPick> {
        let depth = self.depth(p);
        if depth.is_nan() || depth < self.near {
            return None;
        }
        let (x, y, _) = self.camera.project_f64(p, self.viewport)?;
        let d = (x - self.cx).hypot(y - self.cy);
        (d <= self.r).then_some(PrimPick {
            kind: PickKind::Point,
            index,
            u: 0.0,
            point: *p,
            pixel_distance: d,
            depth,
        })
    }

    /// The segment's pick candidate: the part in front of the near plane is projected, the
    /// point of it nearest the cursor in pixels is taken (the nearer end when the segment
    /// is seen end-on), and accepted if within tolerance.
    pub(crate) fn segment_candidate(
        &self,
        index: u32,
        a: &P3<f64>,
        b: &P3<f64>,
    ) -> Option<PrimPick> {
        let (da, db) = (self.depth(a), self.depth(b));
        let (mut u0, mut u1) = (0.0, 1.0);
        if da < self.near && db < self.near {
            return None;
        }
        if da < self.near {
            u0 = (self.near - da) / (db - da);
        } else if db < self.near {
            u1 = (self.near - da) / (db - da);
        }
        let at = |u: f64| a + (b - a) * u;
        let (pa, pb) = (at(u0), at(u1));
        let vp = self.camera.view_projection();
        let (wa, wb) = ((vp * pa.to_homogeneous()).w, (vp * pb.to_homogeneous()).w);
        let sa = self.camera.project_f64(&pa, self.viewport)?;
        let sb = self.camera.project_f64(&pb, self.viewport)?;
        let (ex, ey) = (sb.0 - sa.0, sb.1 - sa.1);
        let len2 = ex * ex + ey * ey;
        let s = if len2 <= 1e-18 {
            if self.depth(&pa) <= self.depth(&pb) {
                0.0
            } else {
                1.0
            }
        } else {
            (((self.cx - sa.0) * ex + (self.cy - sa.1) * ey) / len2).clamp(0.0, 1.0)
        };
        // Perspective-correct: 1/w and u/w are linear in screen space.
        let k = if s <= 0.0 {
            0.0
        } else if s >= 1.0 {
            1.0
        } else {
            (s / wb) / ((1.0 - s) / wa + s / wb)
        };
        let u = u0 + (u1 - u0) * k;
        let point = at(u);
        let (px, py) = (sa.0 + ex * s, sa.1 + ey * s);
        let d = (px - self.cx).hypot(py - self.cy);
        (d <= self.r).then_some(PrimPick {
            kind: PickKind::Segment,
            index,
            u,
            point,
            pixel_distance: d,
            depth: self.depth(&point),
        })
    }

    /// True when the occluder has a triangle in front of `p` on the ray through its pixel.
    pub(crate) fn occluded(&self, occluder: &dyn Occluder, hit: &PrimPick) -> bool {
        occluded_at(self.camera, self.viewport, occluder, &hit.point)
    }
}

/// True when `occluder` has something in front of `p` on the camera ray through `p`'s pixel.
pub(crate) fn occluded_at(
    camera: &Camera,
    viewport: &Viewport,
    occluder: &dyn Occluder,
    p: &P3<f64>,
) -> bool {
    let Some((sx, sy, _)) = camera.project_f64(p, viewport) else {
        return false;
    };
    let Some((o, _)) = camera.ray_from_pixel_f64(sx, sy, viewport) else {
        return false;
    };
    let d = p - o;
    let len = d.norm();
    if len.is_nan() || len <= 0.0 {
        return false;
    }
    let ray = Ray::new(o.cast::<Real>(), (d / len).cast::<Real>());
    let t_max = (len * (1.0 - 1e-5) - 1e-6) as Real;
    t_max > 0.0 && occluder.blocks(&ray, t_max)
}

/// What can hide a point or segment from the camera: a [`Mesh`] or a [`Scene`] (every
/// layer).
pub trait Occluder: Sync {
    /// True when something lies on `ray` with `0 <= t <= t_max`.
    fn blocks(&self, ray: &Ray, t_max: Real) -> bool;
}

impl Occluder for Mesh {
    fn blocks(&self, ray: &Ray, t_max: Real) -> bool {
        self.any_hit(ray, &RayQuery::new(0.0, t_max))
    }
}

impl Occluder for Scene {
    fn blocks(&self, ray: &Ray, t_max: Real) -> bool {
        self.any_hit(ray, &SceneQuery::new(0.0, t_max))
    }
}

fn p64(p: &Point3<Real>) -> P3<f64> {
    p.cast::<f64>()
}

impl PointSet {
    /// The point whose projection lies within `config.radius_px` of the cursor `(x, y)`
    /// (window pixels), nearest the camera and not occluded by `occluder` (see the module
    /// docs for the rule). `None` when nothing is within tolerance, for a non-finite cursor
    /// or tolerance, or an invalid viewport.
    #[must_use]
    pub fn pick(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: f64,
        y: f64,
        config: &PickConfig,
        occluder: Option<&dyn Occluder>,
    ) -> Option<PrimPick> {
        let frame = Frame::new(camera, viewport, x, y, config.radius_px)?;
        frame.search(&self.bvh, config, occluder, |i| {
            frame.point_candidate(i, &p64(&self.points[i as usize]))
        })
    }
}

impl SegmentSet {
    /// The segment whose projection passes within `config.radius_px` of the cursor, nearest
    /// the camera at its point nearest the cursor and not occluded (see the module docs).
    /// The part of a segment behind the near plane is cut off; a segment seen end-on is
    /// taken at its nearer end. `None` as for [`PointSet::pick`].
    #[must_use]
    pub fn pick(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: f64,
        y: f64,
        config: &PickConfig,
        occluder: Option<&dyn Occluder>,
    ) -> Option<PrimPick> {
        let frame = Frame::new(camera, viewport, x, y, config.radius_px)?;
        frame.search(&self.bvh, config, occluder, |i| {
            let s = self.segments[i as usize];
            let a = p64(&self.points[s[0] as usize]);
            let b = p64(&self.points[s[1] as usize]);
            frame.segment_candidate(i, &a, &b)
        })
    }
}
