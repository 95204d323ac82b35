//! Ray against triangle: the watertight test of Woop, Benthin and Wald (JCGT 2013).
//!
//! The ray is turned into a shear that maps its direction onto +z; the triangle's corners are
//! sheared the same way and the three 2D edge functions decide the hit. Because a shared edge
//! produces bit-identical edge functions (with opposite signs) in its two triangles, a ray
//! through the edge hits at least one of them; an edge function that rounds to exactly zero is
//! recomputed in f64 so that the sign test is exact.

use crate::{Point3, Ray, Real, Triangle};

/// Which faces a ray test ignores. The front face is the counter-clockwise one
/// (see [`Triangle`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Cull {
    /// Hit both faces.
    #[default]
    None,
    /// Ignore hits on back faces.
    Back,
    /// Ignore hits on front faces.
    Front,
}

/// A ray hit on a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayTriangleHit {
    /// Ray parameter of the hit, in units of the ray direction.
    pub t: Real,
    /// Barycentric weight of corner `b`.
    pub u: Real,
    /// Barycentric weight of corner `c` (the weight of `a` is `1 - u - v`).
    pub v: Real,
    /// True when the ray hit the front (counter-clockwise) face.
    pub front_face: bool,
}

/// A ray prepared for the watertight triangle test (permutation and shear).
///
/// `valid` is false when the ray has a NaN, an infinite component or a zero direction (or a
/// subnormal one: every component below `f32::MIN_POSITIVE` in magnitude); such a ray hits
/// nothing. A direction component that is subnormal, or smaller than the dominant one by a
/// factor beyond f32's normal range (about 2^-126), is taken as zero, by the triangle test
/// and by the box tests of a mesh's traversal alike.
#[derive(Clone, Copy, Debug)]
pub struct WatertightRay {
    /// Ray origin.
    pub origin: [Real; 3],
    /// Axis permutation: `k[2]` is the dominant direction axis.
    pub k: [usize; 3],
    /// Shear constants `(Sx, Sy, Sz)`.
    pub shear: [Real; 3],
    /// False for rays that can hit nothing.
    pub valid: bool,
    dir: [Real; 3],
    /// `k`'s index in [`WatertightRay::PERMUTATIONS`].
    perm: u8,
    /// The origin on the permuted axes: `[origin[kx], origin[ky], origin[kz]]`.
    korigin: [Real; 3],
}

impl WatertightRay {
    /// The six axis permutations `k` that [`WatertightRay::new`] makes, at index `2 * kz + s`:
    /// `kx, ky` follow the dominant axis `kz` cyclically (`s = 0`), or swapped (`s = 1`) for
    /// a negative direction along `kz`, which keeps the winding of the sheared triangle the
    /// same as the original's.
    pub const PERMUTATIONS: [[usize; 3]; 6] = [
        [1, 2, 0],
        [2, 1, 0],
        [2, 0, 1],
        [0, 2, 1],
        [0, 1, 2],
        [1, 0, 2],
    ];

    /// The index of `k` in [`WatertightRay::PERMUTATIONS`], or 6 when `k` is none of them
    /// (a `const fn`, usable in constants).
    #[must_use]
    pub const fn index_of_permutation(k: [usize; 3]) -> usize {
        let mut i = 0;
        while i < 6 {
            let p = Self::PERMUTATIONS[i];
            if p[0] == k[0] && p[1] == k[1] && p[2] == k[2] {
                return i;
            }
            i += 1;
        }
        6
    }

    /// The index of this ray's `k` in [`WatertightRay::PERMUTATIONS`] (below 6).
    #[must_use]
    #[inline]
    pub fn permutation_index(&self) -> usize {
        usize::from(self.perm)
    }

    /// Prepares `ray` for [`WatertightRay::intersect`].
    #[inline(always)]
    #[must_use]
    pub fn new(ray: &Ray) -> Self {
        Self::with_reciprocals(ray).0
    }

    /// [`WatertightRay::new`] and the reciprocals of its direction, `1 / dir()` per axis, as
    /// a ray-box test needs them. The shear's `1 / dir[kz]` is one of them: a query that
    /// prepares both divides once per axis, all three at once, rather than twice in a row.
    #[inline(always)]
    #[must_use]
    pub fn with_reciprocals(ray: &Ray) -> (Self, [Real; 3]) {
        let d = [ray.dir.x, ray.dir.y, ray.dir.z];
        let ad = [d[0].abs(), d[1].abs(), d[2].abs()];
        let kz = if ad[0] >= ad[1] && ad[0] >= ad[2] {
            0
        } else if ad[1] >= ad[2] {
            1
        } else {
            2
        };
        let perm = 2 * kz + usize::from(d[kz] < 0.0);
        let [kx, ky, kz] = Self::PERMUTATIONS[perm];
        let recip = d.map(|c| 1.0 / c);
        let sz = recip[kz];
        let o = [ray.origin.x, ray.origin.y, ray.origin.z];
        // A cross component below the dominant one by more than f32's normal range shears to
        // zero or a subnormal, and a subnormal one has a reciprocal that may overflow in the
        // box test: either is taken as exactly zero, here and in `dir` (which the box test
        // reads), so that the triangle test and the box test follow the same ray. The
        // dominant component (its shear is 1) is never touched on a valid ray.
        let zeroed = d.map(|c| (c * sz).abs() < Real::MIN_POSITIVE || c.abs() < Real::MIN_POSITIVE);
        let dir = [0, 1, 2].map(|i| if zeroed[i] { 0.0 } else { d[i] });
        // `1 / +0.0` where zeroed: exactly `1 / dir[i]` on every axis.
        let inv = [0, 1, 2].map(|i| if zeroed[i] { Real::INFINITY } else { recip[i] });
        // `Ray::is_valid`, with the zero-direction test on the dominant axis already found:
        // with every component finite, `d` is zero iff `|d[kz]|` is; a subnormal dominant
        // component counts as zero too (it is zeroed in `dir` above, so the box test would
        // follow no ray, while its reciprocal, finite from 2.9e-39 up, would shear one).
        let w = Self {
            origin: o,
            k: [kx, ky, kz],
            shear: [dir[kx] * sz, dir[ky] * sz, sz],
            valid: crate::ray::all_finite(o, d) & (ad[kz] >= Real::MIN_POSITIVE) & sz.is_finite(),
            dir,
            perm: perm as u8,
            korigin: [o[kx], o[ky], o[kz]],
        };
        (w, inv)
    }

    /// The origin on the permuted axes `k`: `[origin[k[0]], origin[k[1]], origin[k[2]]]`
    /// (for kernels that read the permutation at run time).
    #[must_use]
    #[inline(always)]
    pub fn permuted_origin(&self) -> [Real; 3] {
        self.korigin
    }

    /// Tests the triangle `(a, b, c)`; returns a hit with `t_min <= t <= t_max` and a finite
    /// `t`, or `None`.
    ///
    /// Zero-area triangles never hit. A NaN in the triangle or the bounds never hits.
    #[inline]
    #[must_use]
    pub fn intersect(
        &self,
        a: &Point3<Real>,
        b: &Point3<Real>,
        c: &Point3<Real>,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<RayTriangleHit> {
        let (hit, _) = self.intersect_raw(a, b, c, t_min, t_max, cull)?;
        // Checked on hits only: an f64 cross product.
        if Triangle::new(*a, *b, *c).is_degenerate() {
            return None;
        }
        Some(hit)
    }

    /// [`WatertightRay::intersect`] without the zero-area check, also reporting which
    /// barycentric weights are exactly zero: `zero[i]` is true when the hit lies exactly on
    /// the edge opposite corner `i` (two set: on a vertex). The zero tests are exact (an edge
    /// function that rounds to zero is recomputed in f64). For callers that keep a
    /// precomputed degenerate flag per triangle and merge the hits of one crossing at a
    /// shared edge or vertex.
    ///
    /// A zero-area triangle may be reported hit. Otherwise the same answers as `intersect`,
    /// bit for bit.
    ///
    /// ```
    /// use raypick_primitives::{Cull, Point3, Ray, Vector3, WatertightRay};
    ///
    /// let (a, b, c) = (Point3::new(0.0, 0.0, 1.0), Point3::new(1.0, 0.0, 1.0), Point3::new(0.0, 1.0, 1.0));
    /// // Aimed exactly at the edge a -> b (opposite corner c).
    /// let ray = WatertightRay::new(&Ray::new(Point3::new(0.5, 0.0, 0.0), Vector3::z()));
    /// let (hit, zero) = ray.intersect_raw(&a, &b, &c, 0.0, f32::INFINITY, Cull::None).unwrap();
    /// assert_eq!(hit.t, 1.0);
    /// assert_eq!(zero, [false, false, true]);
    /// ```
    #[inline]
    #[must_use]
    pub fn intersect_raw(
        &self,
        a: &Point3<Real>,
        b: &Point3<Real>,
        c: &Point3<Real>,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<(RayTriangleHit, [bool; 3])> {
        let [kx, ky, kz] = self.k;
        let [sx, sy, sz] = self.shear;
        let o = self.origin;
        let (a_, b_, c_) = (
            [a.x - o[0], a.y - o[1], a.z - o[2]],
            [b.x - o[0], b.y - o[1], b.z - o[2]],
            [c.x - o[0], c.y - o[1], c.z - o[2]],
        );
        let ax = a_[kx] - sx * a_[kz];
        let ay = a_[ky] - sy * a_[kz];
        let bx = b_[kx] - sx * b_[kz];
        let by = b_[ky] - sy * b_[kz];
        let cx = c_[kx] - sx * c_[kz];
        let cy = c_[ky] - sy * c_[kz];

        let mut u = cx * by - cy * bx;
        let mut v = ax * cy - ay * cx;
        let mut w = bx * ay - by * ax;
        // `|` and `&` rather than `||` and `&&` here and below: the same decisions without
        // data-dependent branches, which random rays mispredict (measured: +20-50% throughput).
        if (u == 0.0) | (v == 0.0) | (w == 0.0) {
            (u, v, w) = edge_functions_f64(ax, ay, bx, by, cx, cy);
        }
        // Mixed signs: outside. Written so that NaN edge values fall through to `det` below.
        if ((u < 0.0) | (v < 0.0) | (w < 0.0)) & ((u > 0.0) | (v > 0.0) | (w > 0.0)) {
            return None;
        }
        let det = u + v + w;
        // det > 0: the corners appear counter-clockwise from the origin, the front face.
        let front_face = det > 0.0;
        match cull {
            Cull::Back if !front_face => return None,
            Cull::Front if front_face => return None,
            _ => {}
        }
        let az = sz * a_[kz];
        let bz = sz * b_[kz];
        let cz = sz * c_[kz];
        let t_scaled = u * az + v * bz + w * cz;
        if det == 0.0 || !self.valid {
            return None;
        }
        let inv = 1.0 / det;
        let t = t_scaled * inv;
        // The reported `t` decides (a scaled test without the division rounds differently,
        // and dropped hits at exactly `t_max`); NaN fails, and so does an infinite `t` (an
        // overflow: a ray with huge coordinates in the plane of a sliver, whose `u` and `v`
        // are then NaN or infinite too, is no hit).
        if !(t >= t_min && t <= t_max && t.is_finite()) {
            return None;
        }
        let hit = RayTriangleHit {
            t,
            u: v * inv,
            v: w * inv,
            front_face,
        };
        Some((hit, [u == 0.0, v == 0.0, w == 0.0]))
    }

    /// The ray direction, as given (not normalized).
    #[must_use]
    #[inline]
    pub fn dir(&self) -> [Real; 3] {
        self.dir
    }

    /// The ray direction, widened to f64 (for callers that refine a hit).
    #[must_use]
    pub fn dir_f64(&self) -> [f64; 3] {
        self.dir.map(f64::from)
    }
}

/// The three edge functions in f64, where f32 products are exact: the exact sign of an edge
/// function that rounded to zero (the ray meets an edge or a vertex). Out of line: rare.
#[cold]
#[inline(never)]
fn edge_functions_f64(
    ax: Real,
    ay: Real,
    bx: Real,
    by: Real,
    cx: Real,
    cy: Real,
) -> (Real, Real, Real) {
    let [ax, ay, bx, by, cx, cy] = [ax, ay, bx, by, cx, cy].map(f64::from);
    (
        (cx * by - cy * bx) as Real,
        (ax * cy - ay * cx) as Real,
        (bx * ay - by * ax) as Real,
    )
}

/// Ray against triangle (watertight). Returns the hit with `t_min <= t <= t_max` (a finite `t`)
/// or `None`.
///
/// A ray through an edge or vertex shared by several triangles hits at least one of them.
/// Zero-area triangles, zero or non-finite directions and NaN anywhere never hit. `cull`
/// drops back-face or front-face hits.
///
/// ```
/// use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Triangle, Vector3};
/// let tri = Triangle::new(
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(1.0, 0.0, 0.0),
///     Point3::new(0.0, 1.0, 0.0),
/// );
/// let ray = Ray::new(Point3::new(0.25, 0.25, 1.0), Vector3::new(0.0, 0.0, -2.0));
/// let hit = ray_triangle(&ray, &tri, 0.0, f32::INFINITY, Cull::None).unwrap();
/// assert_eq!(hit.t, 0.5);
/// assert!(hit.front_face);
/// assert_eq!((hit.u, hit.v), (0.25, 0.25));
/// ```
#[must_use]
pub fn ray_triangle(
    ray: &Ray,
    tri: &Triangle,
    t_min: Real,
    t_max: Real,
    cull: Cull,
) -> Option<RayTriangleHit> {
    WatertightRay::new(ray).intersect(&tri.a, &tri.b, &tri.c, t_min, t_max, cull)
}
