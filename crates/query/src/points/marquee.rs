//! Marquee (rectangle) selection of points and segments.

use std::ops::ControlFlow;

use raypick_bvh::Bvh;
use raypick_primitives::{frustum_aabb, Classification, Frustum, Point3, Real};

use super::pick::{occluded_at, Occluder};
use super::{PointSet, SegmentSet};
use crate::camera::{Camera, ScreenRect, Viewport};
use crate::scene::SelectMode;

/// Samples along the visible part of a segment tested for occlusion by
/// [`SegmentSet::select_rect`] with an occluder.
const SEGMENT_SAMPLES: usize = 16;

/// The primitives (by index, ascending) whose box the frustum behind `rect` may touch and
/// that `keep(frustum, i)` keeps; empty for an invalid rectangle or viewport.
fn select(
    bvh: &Bvh,
    camera: &Camera,
    viewport: &Viewport,
    rect: &ScreenRect,
    mut keep: impl FnMut(&Frustum, u32) -> bool,
) -> Vec<u32> {
    let Some(frustum) = camera.rect_frustum(rect, viewport) else {
        return Vec::new();
    };
    let idx = bvh.prim_indices();
    let mut out = Vec::new();
    bvh.traverse_where(
        |b| frustum_aabb(&frustum, b) != Classification::Outside,
        |range| {
            out.extend(idx[range].iter().copied().filter(|&i| keep(&frustum, i)));
            ControlFlow::Continue(())
        },
    );
    out.sort_unstable();
    out
}

impl PointSet {
    /// The points (by index, ascending) whose projection lies in `rect` (window pixels)
    /// between the near and far planes; with an `occluder`, only those it does not hide
    /// (a point counts as hidden when a surface lies in front of it on the ray through its
    /// pixel). Empty for an invalid rectangle or viewport.
    #[must_use]
    pub fn select_rect(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        rect: &ScreenRect,
        occluder: Option<&dyn Occluder>,
    ) -> Vec<u32> {
        select(&self.bvh, camera, viewport, rect, |frustum, i| {
            let p = self.points[i as usize];
            let hidden = || occluder.is_some_and(|o| occluded_at(camera, viewport, o, &p.cast()));
            frustum.contains_point(&p) && !hidden()
        })
    }
}

/// The parameter interval `[u0, u1]` of the segment `a`-`b` inside the frustum (clipped
/// against each plane), or `None` when no part of it is inside.
fn clip(frustum: &Frustum, a: &Point3<Real>, b: &Point3<Real>) -> Option<(Real, Real)> {
    let (mut u0, mut u1) = (0.0 as Real, 1.0 as Real);
    for plane in frustum.planes() {
        let (da, db) = (plane.signed_distance(a), plane.signed_distance(b));
        if da.is_nan() || db.is_nan() {
            return None;
        }
        match (da > 0.0, db > 0.0) {
            (true, true) => return None,
            (false, false) => {}
            (true, false) => u0 = u0.max(da / (da - db)),
            (false, true) => u1 = u1.min(da / (da - db)),
        }
        if u0 > u1 {
            return None;
        }
    }
    Some((u0, u1))
}

impl SegmentSet {
    /// The segments (by index, ascending) that `rect` selects: with
    /// [`SelectMode::Inside`] those whose two ends project into it (so the whole segment
    /// does: the frustum is convex), with [`SelectMode::Intersecting`] those with any part
    /// inside. With an `occluder`, only those with a visible part: one of 16 samples along
    /// the part inside the rectangle that no surface hides. Empty for an invalid rectangle
    /// or viewport.
    #[must_use]
    pub fn select_rect(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        rect: &ScreenRect,
        mode: SelectMode,
        occluder: Option<&dyn Occluder>,
    ) -> Vec<u32> {
        select(&self.bvh, camera, viewport, rect, |frustum, i| {
            let s = self.segments[i as usize];
            let (a, b) = (self.points[s[0] as usize], self.points[s[1] as usize]);
            let part = match mode {
                SelectMode::Inside => {
                    (frustum.contains_point(&a) && frustum.contains_point(&b)).then_some((0.0, 1.0))
                }
                SelectMode::Intersecting => clip(frustum, &a, &b),
            };
            let Some((u0, u1)) = part else {
                return false;
            };
            occluder.is_none_or(|o| {
                (0..SEGMENT_SAMPLES).any(|k| {
                    let u = u0 + (u1 - u0) * (k as Real + 0.5) / SEGMENT_SAMPLES as Real;
                    let p = a + (b - a) * u;
                    !occluded_at(camera, viewport, o, &p.cast())
                })
            })
        })
    }
}
