//! Ray queries on a [`Mesh`]: closest hit, any hit, all hits.

use std::ops::ControlFlow;

use raypick_primitives::{Cull, Point3, Ray, Real, Unit, Vector3};

use raypick_bvh::wide::{RayTraversal, RayVisitor};

use super::leaf_tris::{Slot, GROUP};
use super::triangle_kernel::{unit_normal, LaneHits, RawHit, TriangleRay};
use super::{with_tree, Mesh};

/// The interval and face culling of a ray query.
///
/// Hits with `t_min <= t <= t_max` count (`t` in units of the ray's direction), decided on
/// the `t` a hit reports: a query bounded to exactly a hit's `t` (as `t_max`, or as both
/// bounds) finds that hit again. The default is `0..=inf` with no culling. An empty interval
/// (`t_min > t_max`) or a NaN bound finds nothing; a negative `t_min` also finds hits behind
/// the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayQuery {
    /// The smallest `t` that counts. Default 0.
    pub t_min: Real,
    /// The largest `t` that counts. Default `+inf`.
    pub t_max: Real,
    /// Which faces to ignore. Default [`Cull::None`].
    pub cull: Cull,
}

impl Default for RayQuery {
    fn default() -> Self {
        Self::new(0.0, Real::INFINITY)
    }
}

impl RayQuery {
    /// A query over `[t_min, t_max]`, no culling.
    #[must_use]
    pub const fn new(t_min: Real, t_max: Real) -> Self {
        Self {
            t_min,
            t_max,
            cull: Cull::None,
        }
    }

    /// This query with face culling `cull`.
    #[must_use]
    pub const fn with_cull(self, cull: Cull) -> Self {
        Self { cull, ..self }
    }
}

/// A ray hit on a mesh triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Ray parameter of the hit, in units of the ray's direction.
    pub t: Real,
    /// The original index of the triangle hit (its position in the `triangles` given to
    /// [`Mesh::new`]).
    pub triangle: u32,
    /// Barycentric weight of the triangle's second corner.
    pub u: Real,
    /// Barycentric weight of the third corner (the first corner's is `1 - u - v`).
    pub v: Real,
    /// The hit point on the triangle, `(1 - u - v) a + u b + v c`.
    pub point: Point3<Real>,
    /// The unit geometric normal `(b - a) x (c - a)` of the triangle, whichever side was hit.
    pub normal: Unit<Vector3<Real>>,
    /// True when the ray hit the front (counter-clockwise) face, against the normal.
    pub front_face: bool,
}

/// Lets traversal keep boxes whose entry rounds a little past the best hit, so that the hits
/// at or below the best `t` elsewhere in the tree are still seen, whatever the tree's order:
/// an equal-`t` hit on a lower-index triangle (ties), and a hit whose reported `t` rounds
/// below the best one while its box's entry does not. The relative part, with a floor of 32
/// subnormal steps, covers the rounding of `t` itself; `pad` ([`prune_pad`]) the kernel's,
/// which scales with the triangle's depths along the ray rather than with `t`.
#[inline(always)]
fn prune_bound(t: Real, pad: Real) -> Real {
    t + (t.abs() + Real::MIN_POSITIVE) * (32.0 * Real::EPSILON) + pad
}

/// [`prune_bound`]'s absolute pad for a ray from `origin` whose largest direction component
/// is `1 / inv_speed` in magnitude, on a mesh whose largest coordinate magnitude is `scale`:
/// 32 roundings of that scale plus the origin's, in units of `t`. The kernel's `t` is a
/// weighted mean of the hit triangle's corner depths, each the rounded difference of a corner
/// and the origin, so it strays from the plane's distance (where the box test enters) by a
/// few roundings of those coordinates: past a purely relative pad when the hit lies near the
/// origin (`t` small beside the coordinates). 0 where that is not finite (an invalid ray).
#[inline(always)]
fn prune_pad(scale: Real, origin: [Real; 3], inv_speed: Real) -> Real {
    let far = origin[0].abs().max(origin[1].abs()).max(origin[2].abs());
    let pad = (far + scale) * inv_speed.abs() * (32.0 * Real::EPSILON);
    if pad.is_finite() {
        pad
    } else {
        0.0
    }
}

/// The interval for the traversal's box tests on a query over `[t_min, t_max]`, for a ray
/// whose [`ray_extent`] over the tree's root box `extent()` gives (asked only when the
/// interval is not the default).
///
/// The kernel's `t` rounds differently from a box's entry, by more where a triangle reaches
/// far along the ray from the hit (the cancellation in its barycentric sum), so that a box
/// entered exactly at a hit's `t` can test a little past it. The interval is widened by
/// 2^-12 of its bounds' magnitudes and of `extent`; the kernel and the sinks then decide on
/// each hit's reported `t`, so a hit at exactly `t_min` or `t_max` counts. The default
/// `[0, inf]` stays as it is: the box tests' padded exits already keep a hit at `t = 0`.
#[inline(always)]
pub(crate) fn traversal_range(
    t_min: Real,
    t_max: Real,
    extent: impl FnOnce() -> Real,
) -> (Real, Real) {
    if t_min == 0.0 && t_max == Real::INFINITY {
        return (t_min, t_max);
    }
    let extent = extent();
    let pad = |t: Real| (t.abs() + extent) * (1.0 / 4096.0);
    (t_min - pad(t_min), t_max + pad(t_max))
}

/// How far, in `t`, `bounds` reaches from `origin` along `dir`'s largest component: the
/// box's largest offset from the origin over that component. 0 for an empty box or an
/// invalid ray (nothing to widen then).
#[inline]
pub(crate) fn ray_extent(
    bounds: &raypick_primitives::Aabb,
    origin: [Real; 3],
    dir: [Real; 3],
) -> Real {
    let mut reach: Real = 0.0;
    let mut speed: Real = 0.0;
    for a in 0..3 {
        let far = (bounds.min[a] - origin[a])
            .abs()
            .max((bounds.max[a] - origin[a]).abs());
        reach = reach.max(far);
        speed = speed.max(dir[a].abs());
    }
    let extent = reach / speed;
    if extent.is_finite() {
        extent
    } else {
        0.0
    }
}

impl Mesh {
    /// The nearest hit with `query.t_min <= t <= query.t_max`, or `None`.
    ///
    /// Watertight: a ray through an edge or vertex shared by several triangles hits one of
    /// them. Among hits at exactly the same `t` (coplanar or duplicated triangles) the lowest
    /// triangle index wins, whatever the tree; hits a rounding apart are told apart by the
    /// `t` the triangle test reports, also whatever the tree (its boxes are searched a few
    /// roundings of the coordinates past the best hit). Degenerate triangles, an empty mesh,
    /// a ray with a NaN, an infinity or a zero (or subnormal) direction, and an empty or NaN
    /// interval find nothing. A direction component below the largest by more than f32's normal range
    /// (about 2^-126) counts as zero, in the triangle and the box tests alike (see
    /// [`WatertightRay`](raypick_primitives::WatertightRay)).
    /// Allocates nothing.
    ///
    /// ```
    /// use raypick_query::{Mesh, RayQuery};
    /// use raypick_primitives::{Cull, Point3, Ray, Vector3};
    ///
    /// let mesh = Mesh::new(
    ///     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// let down = Ray::new(Point3::new(0.2, 0.2, 1.0), Vector3::new(0.0, 0.0, -2.0));
    /// let hit = mesh.closest_hit(&down, &RayQuery::default()).unwrap();
    /// assert_eq!(hit.t, 0.5); // in units of the direction, which is 2 long
    /// assert_eq!(hit.normal.z, 1.0);
    /// // Too short, or culled:
    /// assert!(mesh.closest_hit(&down, &RayQuery::new(0.0, 0.4)).is_none());
    /// assert!(mesh.closest_hit(&down, &RayQuery::default().with_cull(Cull::Front)).is_none());
    /// ```
    #[must_use]
    pub fn closest_hit(&self, ray: &Ray, query: &RayQuery) -> Option<Hit> {
        if self.reach.misses(ray, query.t_min) {
            return None;
        }
        let k = TriangleRay::new(ray);
        if !k.valid() {
            return None;
        }
        closest_k(self, &k, query).map(|(h, slot)| self.make_hit(slot, &h))
    }

    /// True when some triangle is hit with `query.t_min <= t <= query.t_max`: occlusion and
    /// shadow tests. Stops at the first hit found (which is not necessarily the nearest).
    /// The same edge cases as [`Mesh::closest_hit`]; allocates nothing.
    #[must_use]
    pub fn any_hit(&self, ray: &Ray, query: &RayQuery) -> bool {
        if self.reach.misses(ray, query.t_min) {
            return false;
        }
        let k = TriangleRay::new(ray);
        if !k.valid() {
            return false;
        }
        any_k(self, &k, query)
    }

    /// Every surface crossing with `query.t_min <= t <= query.t_max`, sorted by `t` (then by
    /// triangle index).
    ///
    /// Exactly one hit per crossing: when the ray passes exactly through an edge or a vertex,
    /// the triangles around it that all report a hit are merged into one crossing, the hit
    /// of the lowest triangle index. The rule, decided exactly from the watertight test's
    /// zero edge functions and the vertex positions (not from a `t` tolerance):
    /// - hits lying exactly on the same edge, or on the same vertex, form a group (two
    ///   surfaces that only meet the ray at the same `t` elsewhere never do);
    /// - the group's crossing count is the largest signed coverage (+1 front, -1 back) of
    ///   the triangles around the feature, seen along the ray: 1 for an ordinary surface,
    ///   2 for two sheets meeting there (duplicated triangles, a bow-tie vertex);
    /// - a group whose coverage cancels (the ray grazes a silhouette edge or vertex and
    ///   touches the surface without crossing it) reports two hits, one front and one back,
    ///   so that closed meshes always give an even count.
    ///
    /// Allocates the returned vector; see [`Mesh::all_hits_into`] to reuse one.
    #[must_use]
    pub fn all_hits(&self, ray: &Ray, query: &RayQuery) -> Vec<Hit> {
        let mut out = Vec::new();
        self.all_hits_into(ray, query, &mut out);
        out
    }

    /// [`Mesh::all_hits`] into `out` (cleared first), so a reused vector makes the query
    /// allocation-free once it has grown to the largest hit count.
    pub fn all_hits_into(&self, ray: &Ray, query: &RayQuery, out: &mut Vec<Hit>) {
        out.clear();
        if self.reach.misses(ray, query.t_min) {
            return;
        }
        let k = TriangleRay::new(ray);
        if !k.valid() {
            return;
        }
        all_k(self, &k, query, out);
        if self.has_split_triangles() {
            // A pre-split triangle is hit once per slot the ray reaches, each time with the
            // same kernel result: keep one before merging crossings.
            let prim = |h: &Hit| self.tris.prim(h.triangle as usize);
            out.sort_unstable_by_key(prim);
            out.dedup_by_key(|h| prim(h));
        }
        super::all_hits::merge_crossings(self, &k, out);
        for h in out.iter_mut() {
            let pos = h.triangle as usize;
            let tri = self.tris.get(pos);
            h.triangle = self.tris.prim(pos);
            h.point = point_at(&tri, h.u, h.v);
            h.normal = unit_normal(&tri).unwrap_or(Vector3::z_axis());
        }
        // partial_cmp: t is never NaN here, and -0 must tie with +0.
        out.sort_unstable_by(|a, b| {
            a.t.partial_cmp(&b.t)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.triangle.cmp(&b.triangle))
        });
    }

    #[inline(always)]
    pub(crate) fn make_hit(&self, slot: Slot, h: &RawHit) -> Hit {
        let tri = self.tris.at(slot);
        Hit {
            t: h.t,
            triangle: self.tris.prim_at(slot),
            u: h.u,
            v: h.v,
            point: point_at(&tri, h.u, h.v),
            // Hits come from non-degenerate triangles only, which always have a normal.
            normal: unit_normal(&tri).unwrap_or(Vector3::z_axis()),
            front_face: h.front_face,
        }
    }
}

/// What a ray query does with the kernel's hits in a leaf.
trait LeafSink {
    /// The kernel's current upper bound on `t`.
    fn bound(&self) -> Real;
    /// Takes the kernel's hit `h` on `slot` (degenerate triangles not yet filtered out);
    /// `Break` ends the traversal.
    fn hit(&mut self, mesh: &Mesh, slot: Slot, h: RawHit) -> ControlFlow<()>;
}

/// Runs the watertight kernel on the triangles of leaf slots `range` and hands every hit to
/// `sink`: one triangle at a time on the scalar path, else one SIMD pass per group of up to
/// 8 (see `leaf_tris`), all against the bound at the pass's start (a hit the scalar loop
/// would have cut with a bound lowered within the pass lies beyond the best `t` and is not
/// better, so the outcome is the same). Lanes on an edge or a vertex take the scalar kernel
/// (f64 edge functions).
#[inline(always)]
fn leaf_hits<S: LeafSink>(
    mesh: &Mesh,
    k: &TriangleRay,
    range: std::ops::Range<usize>,
    t_min: Real,
    cull: Cull,
    lanes: &mut LaneHits,
    sink: &mut S,
) -> ControlFlow<()> {
    if k.is_scalar() {
        return scalar_leaf_hits(mesh, k, range, t_min, cull, sink);
    }
    // Groups of up to 8 from the leaf's start, as `leaf_tris::groups` cuts them; written out
    // because the `step_by` iterator costs 7-67 more instructions per closest hit (measured).
    let mut start = range.start;
    while start < range.end {
        let n = (range.end - start).min(GROUP);
        let m = k.test_rows(
            mesh.tris.group_rows(start),
            n,
            t_min,
            sink.bound(),
            cull,
            lanes,
        );
        let mut hit = m.hit;
        while hit != 0 {
            let i = hit.trailing_zeros() as usize;
            hit &= hit - 1;
            let slot = Slot::new(start, n, i);
            sink.hit(mesh, slot, lane_hit(lanes, m.front, i))?;
        }
        if m.undecided != 0 {
            undecided_hits(mesh, k, start, n, m.undecided, t_min, cull, sink)?;
        }
        start += n;
    }
    ControlFlow::Continue(())
}

/// [`leaf_hits`] on the scalar path. Out of line, as the SIMD traversals never take it: their
/// loops stay smaller (instruction cache).
#[cold]
#[inline(never)]
fn scalar_leaf_hits<S: LeafSink>(
    mesh: &Mesh,
    k: &TriangleRay,
    range: std::ops::Range<usize>,
    t_min: Real,
    cull: Cull,
    sink: &mut S,
) -> ControlFlow<()> {
    for slot in mesh.tris.leaf_slots(range) {
        scalar_hit(mesh, k, slot, t_min, cull, sink)?;
    }
    ControlFlow::Continue(())
}

/// The lanes `undecided` of the group of `n` from slot `start`, through the scalar kernel
/// (an edge function rounded to zero: the ray meets an edge or a vertex). Out of line: rare
/// (exact zeros), and the scalar kernel with its f64 fallback is large.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn undecided_hits<S: LeafSink>(
    mesh: &Mesh,
    k: &TriangleRay,
    start: usize,
    n: usize,
    mut undecided: u32,
    t_min: Real,
    cull: Cull,
    sink: &mut S,
) -> ControlFlow<()> {
    while undecided != 0 {
        let i = undecided.trailing_zeros() as usize;
        undecided &= undecided - 1;
        scalar_hit(mesh, k, Slot::new(start, n, i), t_min, cull, sink)?;
    }
    ControlFlow::Continue(())
}

/// The scalar kernel on the triangle at `slot`, its hit handed to `sink`.
#[inline(always)]
fn scalar_hit<S: LeafSink>(
    mesh: &Mesh,
    k: &TriangleRay,
    slot: Slot,
    t_min: Real,
    cull: Cull,
    sink: &mut S,
) -> ControlFlow<()> {
    match k.intersect(&mesh.tris.at(slot), t_min, sink.bound(), cull) {
        Some(h) => sink.hit(mesh, slot, h),
        None => ControlFlow::Continue(()),
    }
}

/// The traversal of a query with `k`: nearest child first (closest hit) or in slot order
/// (any hit), on `k`'s SIMD path, which is not detected again.
#[inline(always)]
fn traversal(k: &TriangleRay, ordered: bool) -> RayTraversal {
    #[cfg(target_arch = "x86_64")]
    return RayTraversal::on_cpu(k.cpu(), ordered);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = k;
        if ordered {
            RayTraversal::nearest_first()
        } else {
            RayTraversal::unordered()
        }
    }
}

/// The closest hit as (kernel hit, its slot); ties at equal `t` go to the lowest original
/// index.
#[inline(always)]
fn closest_k(mesh: &Mesh, k: &TriangleRay, query: &RayQuery) -> Option<(RawHit, Slot)> {
    let (t_min, cull) = (query.t_min, query.cull);
    let (lo, hi) = k.traversal_range(mesh, t_min, query.t_max);
    let sink = Closest::new(query.t_max, hi, k.prune_pad(mesh));
    run_leaves(mesh, k, t_min, cull, (lo, hi), true, sink).best
}

/// Runs the traversal of `k` over `[lo, hi]` (nearest child first when `ordered`, else in
/// slot order), every leaf's kernel hits handed to `sink`, which it returns.
#[inline(always)]
fn run_leaves<S: LeafSink>(
    mesh: &Mesh,
    k: &TriangleRay,
    t_min: Real,
    cull: Cull,
    (lo, hi): (Real, Real),
    ordered: bool,
    sink: S,
) -> S {
    let mut v = Leaves {
        mesh,
        k,
        t_min,
        cull,
        lanes: LaneHits::default(),
        sink,
    };
    let how = traversal(k, ordered);
    with_tree!(&mesh.wide, t => t.traverse_ray_visit(how, &k.boxes, lo, hi, &mut v));
    v.sink
}

/// The traversal's leaf visitor for a closest- or any-hit query: runs [`leaf_hits`] into
/// `sink`, and starts loading the triangles of leaves pushed for later while the nearer ones
/// are tested. Its methods are compiled into the traversal loop.
struct Leaves<'a, S, KR = &'a TriangleRay> {
    mesh: &'a Mesh,
    k: KR,
    t_min: Real,
    cull: Cull,
    lanes: LaneHits,
    sink: S,
}

impl<S: LeafSink, KR: std::borrow::Borrow<TriangleRay>> RayVisitor for Leaves<'_, S, KR> {
    #[inline(always)]
    fn leaf(&mut self, range: std::ops::Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        let flow = leaf_hits(
            self.mesh,
            self.k.borrow(),
            range,
            self.t_min,
            self.cull,
            &mut self.lanes,
            &mut self.sink,
        );
        *t_max = self.sink.bound();
        flow
    }

    #[inline(always)]
    fn leaf_data(&self, range: std::ops::Range<usize>) -> Option<*const u8> {
        Some(self.mesh.tris.rows_ptr(range.start))
    }
}

impl TriangleRay {
    /// [`traversal_range`] for this ray on `mesh`.
    #[inline(always)]
    pub(crate) fn traversal_range(&self, mesh: &Mesh, t_min: Real, t_max: Real) -> (Real, Real) {
        let w = self.w();
        traversal_range(t_min, t_max, || {
            ray_extent(&mesh.bounds(), w.origin, w.dir())
        })
    }

    /// [`prune_pad`] for this ray (its shear's `1 / dir[kz]` is the inverse speed).
    #[inline(always)]
    pub(crate) fn prune_pad(&self, mesh: &Mesh) -> Real {
        let w = self.w();
        prune_pad(mesh.reach.scale(), w.origin, w.shear[2])
    }
}

#[inline(always)]
fn any_k(mesh: &Mesh, k: &TriangleRay, query: &RayQuery) -> bool {
    let (t_min, cull) = (query.t_min, query.cull);
    let (lo, hi) = k.traversal_range(mesh, t_min, query.t_max);
    let sink = AnyHit::new(query.t_max, hi);
    run_leaves(mesh, k, t_min, cull, (lo, hi), false, sink).found
}

/// Every hit, in no particular order (the caller merges and sorts): children in slot order,
/// since nothing lowers the bound.
#[inline(always)]
fn all_k(mesh: &Mesh, k: &TriangleRay, query: &RayQuery, out: &mut Vec<Hit>) {
    let (t_min, cull) = (query.t_min, query.cull);
    // The box test follows the kernel's ray (`k.boxes`), not `ray`: they differ where the
    // kernel takes a vanishing direction component as zero.
    let (lo, hi) = k.traversal_range(mesh, t_min, query.t_max);
    let sink = Every {
        t_max: query.t_max,
        bound: hi,
        out,
    };
    run_leaves(mesh, k, t_min, cull, (lo, hi), false, sink);
}

/// Lane `i` of a SIMD pass as a kernel hit. The zero-weight mask is not needed (closest and
/// any hit never merge crossings) and is left empty.
#[inline(always)]
fn lane_hit(lanes: &LaneHits, front: u32, i: usize) -> RawHit {
    RawHit {
        t: lanes.t[i],
        u: lanes.u[i],
        v: lanes.v[i],
        front_face: front & (1 << i) != 0,
        zero: 0,
    }
}

#[inline]
fn point_at(tri: &[Point3<Real>; 3], u: Real, v: Real) -> Point3<Real> {
    Point3::from(tri[0].coords * (1.0 - u - v) + tri[1].coords * u + tri[2].coords * v)
}

mod crossings;
mod sinks;
use sinks::{AnyHit, Closest, Every};
pub(crate) mod reach;
pub(crate) use reach::RootReach;
mod packet;
mod stream;
