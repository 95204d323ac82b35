//! The signed number of surface crossings along a ray: the exact winding number of a closed
//! mesh at the ray's origin.
//!
//! Every triangle the watertight kernel reports counts +1 when the ray leaves through it (a
//! back-face hit) and -1 when it enters (a front-face hit). A ray through an edge or a vertex
//! makes the kernel report every triangle around it; those are decided by simulation of
//! simplicity instead: the ray is moved by `(ε, ε²)` in the kernel's sheared plane, with `ε`
//! infinitely small, and a triangle counts when the moved ray passes strictly inside it.
//! The decision for an edge depends only on the edge's two sheared corners, which both
//! triangles on it see bit for bit the same: where the surface passes through the edge
//! exactly one of the two counts, and at a silhouette both or neither (a front and a back
//! face, which cancel). The count is that of a generic ray, and on a closed surface it is
//! the winding number of the origin whatever the ray meets exactly.

use std::ops::ControlFlow;

use raypick_primitives::{Cull, Point3, Ray, Real, Vector3};
use smallvec::SmallVec;

use super::{run_leaves, LeafSink};
use crate::mesh::leaf_tris::Slot;
use crate::mesh::triangle_kernel::{RawHit, TriangleRay};
use crate::mesh::Mesh;

/// The count so far.
struct Crossings<'a> {
    k: &'a TriangleRay,
    count: i64,
    /// Hits nearer the origin than this (either side) put the count in doubt.
    doubt_within: Real,
    /// A hit was that near: the count stopped.
    doubt: bool,
    /// The pre-split triangles met so far (each is met once per slot the ray reaches).
    seen: SmallVec<[u32; 16]>,
}

impl LeafSink for Crossings<'_> {
    #[inline(always)]
    fn bound(&self) -> Real {
        Real::INFINITY
    }

    /// Degenerate triangles count like the others: their sheared corners close the sheared
    /// surface with their neighbours' (a zero-area triangle can shear to a sliver).
    #[inline(always)]
    fn hit(&mut self, mesh: &Mesh, slot: Slot, h: RawHit) -> ControlFlow<()> {
        if h.t < self.doubt_within {
            self.doubt = true;
            return ControlFlow::Break(());
        }
        if mesh.is_split(slot.pos()) {
            let t = mesh.tris.prim_at(slot);
            if self.seen.contains(&t) {
                return ControlFlow::Continue(());
            }
            self.seen.push(t);
        }
        if h.zero != 0 && !perturbed_inside(self.k, &mesh.tris.at(slot)) {
            return ControlFlow::Continue(());
        }
        self.count += if h.front_face { -1 } else { 1 };
        ControlFlow::Continue(())
    }
}

impl Mesh {
    /// The signed number of crossings of the ray from `origin` along `dir` (`t >= 0`): +1 for
    /// each back face hit, -1 for each front face hit, edges and vertices decided as the
    /// module describes. On a closed mesh this is the winding number of `origin`, provided
    /// `origin` is off the surface by more than the kernel's rounding of `t` (callers check).
    /// `None` for a ray the kernel rejects (a zero or non-finite direction or origin).
    pub(crate) fn crossings(&self, origin: Point3<Real>, dir: Vector3<Real>) -> Option<i64> {
        // With no margin nothing is in doubt: the kernel reports no `t` below 0.
        self.crossings_clear(origin, dir, 0.0)
    }

    /// [`Mesh::crossings`] that checks `origin`'s distance along the ray itself: `None` also
    /// when the ray meets a triangle within `margin` of `origin` on either side (`t` in
    /// `(-margin, margin)`, where the sign of the kernel's `t` may be wrong), so that no
    /// nearest-point search is needed first. A triangle near `origin` that the ray's line
    /// misses does not change the count. `dir` must be a unit vector for `margin` to be a
    /// distance.
    pub(crate) fn crossings_clear(
        &self,
        origin: Point3<Real>,
        dir: Vector3<Real>,
        margin: Real,
    ) -> Option<i64> {
        let k = TriangleRay::new(&Ray::new(origin, dir));
        if !k.valid() || !origin.iter().all(|c| c.is_finite()) || margin.is_nan() || margin < 0.0 {
            return None;
        }
        let sink = Crossings {
            k: &k,
            count: 0,
            doubt_within: margin,
            doubt: false,
            seen: SmallVec::new(),
        };
        let range = k.traversal_range(self, -margin, Real::INFINITY);
        let sink = run_leaves(self, &k, -margin, Cull::None, range, false, sink);
        (!sink.doubt).then_some(sink.count)
    }
}

/// The sign of the edge function of the moved origin for the edge `a -> b` (positive: the
/// origin lies to its left), given that the unmoved one is exactly zero. 0 only for an edge
/// of zero sheared length.
fn perturbed_sign(a: [Real; 2], b: [Real; 2]) -> i8 {
    // cross(b - a, x - a) at x = (ε, ε²) is cross(a, b) - ε (b.y - a.y) + ε² (b.x - a.x).
    if b[1] != a[1] {
        if b[1] < a[1] {
            1
        } else {
            -1
        }
    } else if b[0] != a[0] {
        if b[0] > a[0] {
            1
        } else {
            -1
        }
    } else {
        0
    }
}

/// The sign of `cross(a, b)`, exact: the f32 products are exact in f64, and a difference of
/// two exact values rounds to zero only when they are equal.
fn cross_sign(a: [Real; 2], b: [Real; 2]) -> i8 {
    let c = f64::from(a[0]) * f64::from(b[1]) - f64::from(a[1]) * f64::from(b[0]);
    if c > 0.0 {
        1
    } else if c < 0.0 {
        -1
    } else {
        0
    }
}

/// True when the ray of `k`, moved by `(ε, ε²)` in its sheared plane, passes strictly inside
/// `tri`: each edge function of the moved origin, taken from the unmoved one where that is
/// not zero, has the same sign.
fn perturbed_inside(k: &TriangleRay, tri: &[Point3<Real>; 3]) -> bool {
    let s = tri.map(|p| k.shear_xy(&p));
    let mut signs = [0i8; 3];
    for (i, sign) in signs.iter_mut().enumerate() {
        let (a, b) = (s[i], s[(i + 1) % 3]);
        *sign = match cross_sign(a, b) {
            0 => perturbed_sign(a, b),
            c => c,
        };
    }
    signs[0] != 0 && signs[0] == signs[1] && signs[1] == signs[2]
}
