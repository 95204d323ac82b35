//! A division-free test that a ray passes clear of a mesh's bounding box, run before the ray
//! is prepared for the traversal. A third to two thirds of a pick set's rays pass beside the
//! model (the background around it); each then costs a few dozen instructions instead of
//! the ray's preparation and a visit of the root node (about 360).

use raypick_primitives::{Aabb, Ray, Real};

/// The pad, relative to the coordinate scale of the box and the ray's origin: far above the
/// f32 rounding of the test (a few 2^-24) and of the triangle kernel (which may take a ray
/// passing a few roundings outside a triangle's edge), so the test is conservative.
pub(crate) const PAD: Real = 1.0 / 16384.0;

/// Direction components below 2^-30 of the largest are taken as zero: within the box, where
/// `t` is at most about twice the coordinate scale over the largest component, they move the
/// ray by less than 2^-29 of that scale, far below [`PAD`]. The components left are then 0
/// or at least 2^-60, so no product the test compares is subnormal.
pub(crate) const FLUSH: Real = 1.0 / (1u64 << 30) as Real;

/// The range of coordinate scales and largest direction components the test works in
/// (`[2^-30, 2^30]`): outside it products could overflow or lose precision, and the test
/// stands aside.
pub(crate) const LARGEST: Real = (1u64 << 30) as Real;
pub(crate) const SMALLEST: Real = 1.0 / LARGEST;

/// Four lanes: x, y, z and an unused one (0).
pub(crate) type L4 = [Real; 4];

/// The test of [`RootReach::misses`] one operation at a time (the SIMD form in
/// `triangle_kernel_x86` does the same f32 operations and gives the same answer): `o`, `d` the
/// ray, `center` and `half` the box (lane 3 zero; an infinite `half` never rejects), `ahead`
/// whether only hits at `t >= 0` count.
///
/// With `w = o - center` and the pad grown by the origin's magnitude, the ray misses when it
/// starts outside a slab and does not move towards it (only if `ahead`), or when the line
/// passes beside the box across an axis `i`: its offset `|w_j d_k - w_k d_j|` from the center
/// beyond the box's reach `h_j |d_k| + h_k |d_j|` there.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(crate) fn misses_scalar(o: L4, d: L4, center: L4, half: L4, ahead: bool) -> bool {
    // SSE's max: the second operand unless the first is greater (so also on NaN).
    let max = |a: Real, b: Real| if a > b { a } else { b };
    // Each lane's largest of the three, in the SIMD form's order.
    let max3 = |a: L4| -> [Real; 3] {
        std::array::from_fn(|i| max(max(a[i], a[(i + 1) % 3]), a[(i + 2) % 3]))
    };
    let largest = max3(d.map(Real::abs));
    let far = max3(o.map(Real::abs));
    // Lane by lane, as the SIMD form: each lane's own flush floor and pad.
    let d: [Real; 3] = std::array::from_fn(|i| {
        if d[i].abs() >= largest[i] * FLUSH {
            d[i]
        } else {
            0.0
        }
    });
    let w: [Real; 3] = std::array::from_fn(|i| o[i] - center[i]);
    let h: [Real; 3] = std::array::from_fn(|i| half[i] + far[i] * PAD);
    let mut miss = false;
    for a in 0..3 {
        let (j, k) = ((a + 1) % 3, (a + 2) % 3);
        // False for NaN.
        let ok = (largest[a] >= SMALLEST) & (largest[a] <= LARGEST) & (far[a] <= LARGEST);
        let away = ahead & (w[a].abs() > h[a]) & (w[a] * d[a] >= 0.0);
        let cross = (w[j] * d[k] - w[k] * d[j]).abs();
        let beside = cross > h[j] * d[k].abs() + h[k] * d[j].abs();
        miss |= ok & (away | beside);
    }
    miss
}

/// A mesh's bounding box, kept for [`RootReach::misses`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RootReach {
    center: L4,
    /// The half extents grown by [`PAD`] of the box's coordinate scale; infinite for an
    /// empty box (see `empty`), or one whose scale is outside `[2^-30, 2^30]` (the test then
    /// never rejects: the traversal decides).
    half: L4,
    /// The box itself (what [`Mesh::bounds`](crate::Mesh::bounds) returns).
    bounds: Aabb,
    /// True for an empty box (a mesh without triangles): every ray misses.
    empty: bool,
    /// The box's largest coordinate magnitude (0 for an empty box).
    scale: Real,
}

impl Default for RootReach {
    /// The reach of an empty box: it rejects every ray.
    fn default() -> Self {
        Self::new(&Aabb::EMPTY)
    }
}

impl RootReach {
    /// The reach of a tree whose root box is `b` (the union of the root node's slots).
    pub(crate) fn new(b: &Aabb) -> Self {
        let lo = [b.min.x, b.min.y, b.min.z].map(f64::from);
        let hi = [b.max.x, b.max.y, b.max.z].map(f64::from);
        let center = [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a]));
        let half = [0, 1, 2].map(|a| 0.5 * (hi[a] - lo[a]));
        let scale = (0..3)
            .map(|a| center[a].abs() + half[a])
            .fold(0.0, f64::max);
        let nonempty = (0..3).all(|a| lo[a] <= hi[a]);
        let usable = nonempty && scale >= f64::from(SMALLEST) && scale <= f64::from(LARGEST);
        let pad = scale * f64::from(PAD);
        let half = half.map(|h| {
            if usable {
                (h + pad) as Real
            } else {
                Real::INFINITY
            }
        });
        Self {
            center: [center[0] as Real, center[1] as Real, center[2] as Real, 0.0],
            half: [half[0], half[1], half[2], 0.0],
            bounds: *b,
            empty: !nonempty,
            // `|center| + half` is `max(|lo|, |hi|)` exactly (f32 values summed and halved
            // in f64), so this is the box's largest f32 coordinate magnitude.
            scale: if nonempty { scale as Real } else { 0.0 },
        }
    }

    /// The box's largest coordinate magnitude, 0 for an empty box.
    #[inline(always)]
    pub(crate) fn scale(&self) -> Real {
        self.scale
    }

    /// The box this reach was made from.
    #[inline(always)]
    pub(crate) fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// True when `ray` certainly hits nothing in the box with `t >= t_min`: the line through
    /// it passes outside the box grown by the pad, or, for `t_min >= 0`, the ray starts
    /// outside a slab of the box and runs away from it (or along it). False when in doubt: a
    /// largest direction component outside `[2^-30, 2^30]` (a zero, subnormal or infinite
    /// direction among them: the traversal rejects those) or an origin beyond 2^30. A ray
    /// with a NaN finds nothing either way. True for every ray on an empty box.
    #[inline(always)]
    pub(crate) fn misses(&self, ray: &Ray, t_min: Real) -> bool {
        if self.empty {
            return true;
        }
        let o = [ray.origin.x, ray.origin.y, ray.origin.z, 0.0];
        let d = [ray.dir.x, ray.dir.y, ray.dir.z, 0.0];
        let ahead = t_min >= 0.0;
        #[cfg(target_arch = "x86_64")]
        return crate::mesh::triangle_kernel_x86::misses_reach(o, d, self.center, self.half, ahead);
        #[cfg(not(target_arch = "x86_64"))]
        misses_scalar(o, d, self.center, self.half, ahead)
    }
}

#[cfg(test)]
mod tests {
    use super::super::closest_k;
    use super::*;
    use crate::mesh::triangle_kernel::TriangleRay;
    use crate::{Mesh, RayQuery};
    use proptest::prelude::*;
    use raypick_primitives::{Point3, Vector3};

    fn reach_of(lo: [Real; 3], hi: [Real; 3]) -> RootReach {
        RootReach::new(&Aabb::new(Point3::from(lo), Point3::from(hi)))
    }

    fn ray(o: [Real; 3], d: [Real; 3]) -> Ray {
        Ray::new(Point3::from(o), Vector3::from(d))
    }

    #[test]
    fn hand_computed_rays() {
        let r = reach_of([0.0; 3], [1.0; 3]);
        // Through the box, and from inside it.
        assert!(!r.misses(&ray([-1.0, 0.5, 0.5], [1.0, 0.0, 0.0]), 0.0));
        assert!(!r.misses(&ray([0.5; 3], [0.0, 0.0, -3.0]), 0.0));
        // Away from it: only a miss when hits behind the origin do not count.
        assert!(r.misses(&ray([-1.0, 0.5, 0.5], [-1.0, 0.0, 0.0]), 0.0));
        assert!(!r.misses(&ray([-1.0, 0.5, 0.5], [-1.0, 0.0, 0.0]), -5.0));
        // Along a face, outside the slab: a miss; in the face's plane: not.
        assert!(r.misses(&ray([-1.0, 1.5, 0.5], [1.0, 0.0, 0.0]), 0.0));
        assert!(!r.misses(&ray([-1.0, 1.0, 0.5], [1.0, 0.0, 0.0]), 0.0));
        // Its line passes beside the box (x = y = 2 at z = 0.5), whatever the interval.
        assert!(r.misses(&ray([2.0, 2.0, -1.0], [0.0, 0.0, 1.0]), -1.0));
        assert!(r.misses(&ray([3.0, 0.0, 0.5], [-1.0, 1.0, 0.0]), -1.0));
        // Past a corner by 0.01 (the diagonal x + y = 2.01): a miss; by 0 (through the
        // corner (1, 1)): not.
        assert!(r.misses(&ray([2.01, 0.0, 0.5], [-1.0, 1.0, 0.0]), 0.0));
        assert!(!r.misses(&ray([2.0, 0.0, 0.5], [-1.0, 1.0, 0.0]), 0.0));
        // Rays it stands aside for.
        for d in [[0.0; 3], [1e-35, 0.0, 0.0], [1e35, 0.0, 0.0]] {
            assert!(!r.misses(&ray([5.0, 5.0, 5.0], d), 0.0), "{d:?}");
        }
        assert!(!r.misses(&ray([1e31, 0.5, 0.5], [0.0, 0.0, 1.0]), 0.0));
        // An empty box rejects every ray, even those the test stands aside for; a huge box
        // none.
        let empty = RootReach::new(&Aabb::EMPTY);
        for d in [[1.0, 0.0, 0.0], [0.0; 3], [Real::NAN, 1.0, 0.0]] {
            assert!(empty.misses(&ray([5.0; 3], d), 0.0), "{d:?}");
            assert!(empty.misses(&ray([5.0; 3], d), -1.0), "{d:?}");
        }
        let huge = reach_of([0.0; 3], [1e31; 3]);
        assert!(!huge.misses(&ray([-1.0; 3], [-1.0, 0.0, 0.0]), 0.0));
    }

    /// Lanes with a mix of ordinary, tiny, huge and special values.
    fn lane() -> impl Strategy<Value = Real> {
        prop_oneof![
            4 => -10.0f32..10.0,
            1 => prop::sample::select(vec![0.0, -0.0, 1e-30, -1e-38, 1e-41, 3e9, -2e30, Real::INFINITY, Real::NAN]),
            1 => any::<Real>(),
        ]
    }

    fn l4() -> impl Strategy<Value = L4> {
        [lane(), lane(), lane()].prop_map(|[x, y, z]| [x, y, z, 0.0])
    }

    /// A ray to a point of triangle `tri` at barycentrics (u, v), from `o`; `edge` moves
    /// the target onto an edge or a corner, where rounding matters most.
    fn aimed(o: Point3<Real>, tri: &[Point3<Real>; 3], u: Real, v: Real, edge: u8) -> Ray {
        let (u, v) = match edge % 4 {
            0 => (u, v * (1.0 - u)),
            1 => (u, 0.0),
            2 => (u, 1.0 - u),
            _ => (0.0, 0.0),
        };
        let p = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
        Ray::new(o, p - o)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if std::env::var_os("RAYPICK_LONG").is_some() { 200_000 } else { 4_000 }))]

        /// The SIMD form answers as the scalar one, on any input.
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn simd_matches_scalar(o in l4(), d in l4(), c in l4(), h in l4(), ahead in any::<bool>()) {
            prop_assert_eq!(
                crate::mesh::triangle_kernel_x86::misses_reach(o, d, c, h, ahead),
                misses_scalar(o, d, c, h, ahead)
            );
        }

        /// Never rejects a ray the traversal finds a hit for: rays aimed at points of the
        /// triangles (inside, on edges and corners) from near and far, at flat boxes and
        /// boxes far from the origin, with and without hits behind the origin.
        #[test]
        fn never_rejects_a_hit(
            corners in prop::collection::vec([-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0], 3..12),
            flat in 0u8..4, shift in prop::sample::select(vec![0.0f32, 1.0, -300.0, 1e5]),
            from in [-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0], far in prop::sample::select(vec![0.5f32, 3.0, 1e3, 1e6]),
            u in 0.0f32..1.0, v in 0.0f32..1.0, edge in any::<u8>(), behind in any::<bool>(),
        ) {
            // `flat` < 3 puts every corner in the plane of axis `flat`: a box of no thickness,
            // with rays along its plane.
            let pts: Vec<Point3<Real>> = corners
                .iter()
                .map(|c| {
                    let mut c = *c;
                    if (flat as usize) < 3 {
                        c[flat as usize] = 0.25;
                    }
                    Point3::new(c[0] + shift, c[1] + shift, c[2] - shift)
                })
                .collect();
            let tris: Vec<[u32; 3]> = (0..pts.len() as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
            let mesh = Mesh::new(pts.clone(), tris.clone()).unwrap();
            let mut o = Point3::new(from[0] * far + shift, from[1] * far + shift, from[2] * far - shift);
            if (flat as usize) < 3 && edge % 2 == 0 {
                o[flat as usize] = 0.25;
            }
            let t = tris[edge as usize % tris.len()];
            let tri = t.map(|i| pts[i as usize]);
            let r = aimed(o, &tri, u, v, edge / 4);
            let query = RayQuery::new(if behind { -10.0 } else { 0.0 }, Real::INFINITY);
            let k = TriangleRay::new(&r);
            let hit = k.valid() && closest_k(&mesh, &k, &query).is_some();
            prop_assert!(!(hit && mesh.reach.misses(&r, query.t_min)), "{r:?}");
            // The same ray backwards: behind its origin.
            let back = Ray::new(r.origin, -r.dir);
            let k = TriangleRay::new(&back);
            let hit = k.valid() && closest_k(&mesh, &k, &query).is_some();
            prop_assert!(!(hit && mesh.reach.misses(&back, query.t_min)), "{back:?}");
        }
    }

    /// The reach follows the tree: after the vertices move, and after the layout changes.
    #[test]
    fn follows_the_moved_mesh() {
        let pts = vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        ];
        let mut mesh = Mesh::new(pts.clone(), vec![[0, 1, 2]]).unwrap();
        let moved: Vec<Point3<Real>> = pts
            .iter()
            .map(|p| p + Vector3::new(10.0, 0.0, 0.0))
            .collect();
        let down = ray([10.2, 0.2, 1.0], [0.0, 0.0, -1.0]);
        assert!(mesh.closest_hit(&down, &RayQuery::default()).is_none());
        mesh.update_positions(&moved).unwrap();
        assert_eq!(mesh.reach, RootReach::new(&mesh.bounds()));
        assert!(mesh.closest_hit(&down, &RayQuery::default()).is_some());
        assert!(mesh.any_hit(&down, &RayQuery::default()));
        assert_eq!(mesh.all_hits(&down, &RayQuery::default()).len(), 1);
        mesh.set_node_layout(crate::mesh::NodeLayout::Compact)
            .unwrap();
        assert_eq!(mesh.reach, RootReach::new(&mesh.bounds()));
        assert!(mesh.closest_hit(&down, &RayQuery::default()).is_some());
        let saved = Mesh::from_bytes(&mesh.to_bytes()).unwrap();
        assert_eq!(saved.reach, mesh.reach);
    }
}
