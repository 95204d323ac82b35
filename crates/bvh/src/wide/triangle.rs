//! Several triangles against one ray at once: the watertight test of
//! [`WatertightRay::intersect`] (Woop, Benthin and Wald 2013) on `N` triangles stored as
//! structures of arrays, with SIMD on x86_64.
//!
//! The SIMD kernels do the scalar test's f32 operations in the same order, so every decision
//! and every `t`, `u`, `v` is bit-identical to [`WatertightRay::intersect`]. A lane with an
//! edge function that rounds to exactly zero (the ray passes through an edge or a vertex)
//! goes through the scalar test, which redoes the edge functions in f64.

use raypick_primitives::{Cull, Point3, RayTriangleHit, Real, Triangle, WatertightRay};

use super::SimdPath;

/// Up to `N` triangles in SoA layout for [`TriangleBlock::intersect`]. Use the aliases
/// [`TriangleBlock4`] and [`TriangleBlock8`].
///
/// Degenerate (zero-area) triangles are flagged when the block is made, and never hit, as in
/// [`WatertightRay::intersect`]. Unused lanes never hit.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleBlock<const N: usize> {
    /// `v[corner][axis][lane]`.
    pub(crate) v: [[[f32; N]; 3]; 3],
    /// Lanes that may hit: used and not degenerate.
    pub(crate) live: u32,
    len: u32,
}

/// A block of 4 triangles (SSE on x86_64).
pub type TriangleBlock4 = TriangleBlock<4>;
/// A block of 8 triangles (AVX2 when available, else SSE twice).
pub type TriangleBlock8 = TriangleBlock<8>;

/// The answers of [`TriangleBlock::intersect`] for every lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockHits<const N: usize> {
    /// Bit `i` set when lane `i` is hit within `[t_min, t_max]`.
    pub mask: u32,
    /// Bit `i` set when lane `i`'s hit is on the front (counter-clockwise) face.
    pub front: u32,
    /// Hit distances (meaningful where `mask` is set).
    pub t: [Real; N],
    /// Barycentric weight of corner `b` (meaningful where `mask` is set).
    pub u: [Real; N],
    /// Barycentric weight of corner `c` (meaningful where `mask` is set).
    pub v: [Real; N],
}

impl<const N: usize> Default for BlockHits<N> {
    /// No lane hit.
    fn default() -> Self {
        Self {
            mask: 0,
            front: 0,
            t: [0.0; N],
            u: [0.0; N],
            v: [0.0; N],
        }
    }
}

impl<const N: usize> BlockHits<N> {
    /// Records `h` as lane `i`'s hit (the scalar test's answer for that lane).
    fn set_hit(&mut self, i: usize, h: &RayTriangleHit) {
        self.mask |= 1 << i;
        if h.front_face {
            self.front |= 1 << i;
        }
        self.t[i] = h.t;
        self.u[i] = h.u;
        self.v[i] = h.v;
    }

    /// Lane `i`'s hit, or `None` (also for `i >= N`).
    #[must_use]
    pub fn hit(&self, i: usize) -> Option<RayTriangleHit> {
        (i < N && self.mask & (1 << i) != 0).then(|| RayTriangleHit {
            t: self.t[i],
            u: self.u[i],
            v: self.v[i],
            front_face: self.front & (1 << i) != 0,
        })
    }

    /// The nearest hit: `(lane, hit)` with the smallest `t`, the lowest lane on ties; `None`
    /// when no lane is hit.
    #[must_use]
    pub fn closest(&self) -> Option<(usize, RayTriangleHit)> {
        let mut best: Option<usize> = None;
        let mut bits = self.mask;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if best.is_none_or(|b| self.t[i] < self.t[b]) {
                best = Some(i);
            }
        }
        best.and_then(|i| self.hit(i).map(|h| (i, h)))
    }
}

impl<const N: usize> TriangleBlock<N> {
    /// Packs up to `N` triangles `[a, b, c]` (lane `i` is `tris[i]`); `None` when `tris` has
    /// more than `N`. Any coordinates are accepted: NaN or degenerate triangles never hit.
    #[must_use]
    pub fn new(tris: &[[Point3<Real>; 3]]) -> Option<Self> {
        const { assert!(N == 4 || N == 8) };
        if tris.len() > N {
            return None;
        }
        let mut v = [[[f32::NAN; N]; 3]; 3];
        let mut live = 0u32;
        for (i, t) in tris.iter().enumerate() {
            for (c, p) in t.iter().enumerate() {
                for a in 0..3 {
                    v[c][a][i] = p[a];
                }
            }
            if !Triangle::new(t[0], t[1], t[2]).is_degenerate() {
                live |= 1 << i;
            }
        }
        Some(Self {
            v,
            live,
            len: tris.len() as u32,
        })
    }

    /// Number of triangles in the block.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True for a block without triangles.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Lane `i`'s corners, or `None` for `i >= len()`.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[Point3<Real>; 3]> {
        (i < self.len()).then(|| {
            let p = |c: usize| Point3::new(self.v[c][0][i], self.v[c][1][i], self.v[c][2][i]);
            [p(0), p(1), p(2)]
        })
    }

    /// Tests every lane with the fastest [`SimdPath`]; lane `i`'s answer is exactly
    /// `ray.intersect(a_i, b_i, c_i, t_min, t_max, cull)`.
    #[must_use]
    #[inline]
    pub fn intersect(
        &self,
        ray: &WatertightRay,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> BlockHits<N> {
        self.intersect_with(SimdPath::best(), ray, t_min, t_max, cull)
    }

    /// [`TriangleBlock::intersect`] on a chosen path (`Scalar` calls
    /// [`WatertightRay::intersect`] per lane; a path this CPU lacks runs the scalar one).
    #[must_use]
    pub fn intersect_with(
        &self,
        path: SimdPath,
        ray: &WatertightRay,
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> BlockHits<N> {
        let mut out = BlockHits {
            mask: 0,
            front: 0,
            t: [0.0; N],
            u: [0.0; N],
            v: [0.0; N],
        };
        if !ray.valid || self.live == 0 {
            return out;
        }
        // Lanes the scalar test must decide: all, or those with a zero edge function.
        #[cfg(target_arch = "x86_64")]
        let scalar = if path != SimdPath::Scalar && path.is_available() {
            let zero = super::simd::triangles(path, &self.v, ray, t_min, t_max, &mut out);
            out.mask &= self.live & !zero;
            match cull {
                Cull::None => {}
                Cull::Back => out.mask &= out.front,
                Cull::Front => out.mask &= !out.front,
            }
            out.front &= out.mask;
            self.live & zero
        } else {
            self.live
        };
        #[cfg(not(target_arch = "x86_64"))]
        let scalar = {
            let _ = path;
            self.live
        };
        let mut scalar = scalar;
        while scalar != 0 {
            let i = scalar.trailing_zeros() as usize;
            scalar &= scalar - 1;
            let p = |c: usize| Point3::new(self.v[c][0][i], self.v[c][1][i], self.v[c][2][i]);
            if let Some(h) = ray.intersect(&p(0), &p(1), &p(2), t_min, t_max, cull) {
                out.set_hit(i, &h);
            }
        }
        out
    }
}

/// The lanes of one [`TrianglesRay::test`]: bit `i` is `tris[i]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneMasks {
    /// Lanes hit within `[t_min, t_max]` and not culled; their `t`, `u`, `v` are in the
    /// output [`BlockHits`].
    pub hit: u32,
    /// The hit lanes on the front (counter-clockwise) face.
    pub front: u32,
    /// Lanes the caller must decide with the scalar test ([`WatertightRay::intersect`]):
    /// those with an edge function that rounds to exactly zero (the ray passes through an
    /// edge or a vertex, which the scalar test redoes in f64), and every lane on the
    /// `Scalar` path.
    pub undecided: u32,
}

/// A ray prepared once for many [`TrianglesRay::test_rows`] calls on groups of triangles
/// stored as rows, as a mesh stores them in leaf order (or [`TrianglesRay::test`] on
/// triangles `[a, b, c]`): the SIMD path for the CPU is checked here, not per call.
#[derive(Clone, Copy, Debug)]
pub struct TrianglesRay {
    ray: WatertightRay,
    path: SimdPath,
    /// The SIMD kernels' path; `None` on the scalar path and for an invalid ray.
    #[cfg(target_arch = "x86_64")]
    cpu: Option<super::simd::CpuPath>,
    /// The box-test constants, for [`WideBvh::traverse_prepared`](super::WideBvh).
    pub(crate) boxes: super::traverse::RayK,
}

impl TrianglesRay {
    /// `ray` on `path` (a path this CPU lacks, or `Scalar`, leaves every lane undecided).
    #[must_use]
    #[inline]
    pub fn new(path: SimdPath, ray: &WatertightRay) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let cpu = super::simd::CpuPath::new(path);
            Self::with_cpu(
                ray,
                cpu,
                if cpu.is_some() {
                    path
                } else {
                    SimdPath::Scalar
                },
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = path;
            Self {
                ray: *ray,
                path: SimdPath::Scalar,
                boxes: super::traverse::RayK::from_parts(ray.origin, ray.dir()),
            }
        }
    }

    /// [`TrianglesRay::new`] on [`SimdPath::best`], whose answer is known to be available:
    /// the CPU is not asked again (a mesh query prepares one per ray).
    #[must_use]
    #[inline]
    pub fn best(ray: &WatertightRay) -> Self {
        let path = SimdPath::best();
        #[cfg(target_arch = "x86_64")]
        return Self::with_cpu(ray, super::simd::CpuPath::of_best(path), path);
        #[cfg(not(target_arch = "x86_64"))]
        Self::new(path, ray)
    }

    /// `ray` on `path`, which `cpu` proves (`None` with `Scalar`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn with_cpu(ray: &WatertightRay, cpu: Option<super::simd::CpuPath>, path: SimdPath) -> Self {
        Self {
            ray: *ray,
            path,
            cpu: cpu.filter(|_| ray.valid),
            boxes: super::traverse::RayK::from_parts(ray.origin, ray.dir()),
        }
    }

    /// The path the tests run on: the one asked for, or `Scalar` when this CPU lacks it.
    #[must_use]
    pub fn path(&self) -> SimdPath {
        self.path
    }

    /// The ray.
    #[must_use]
    #[inline]
    pub fn ray(&self) -> &WatertightRay {
        &self.ray
    }

    /// The SIMD kernels' proof of their target feature: `None` on the scalar path and for an
    /// invalid ray.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn cpu(&self) -> Option<super::simd::CpuPath> {
        self.cpu
    }

    /// Tests `tris[..8]` (lane `i` is `tris[i]`; the rest is ignored): copies them into rows
    /// and runs [`TrianglesRay::test_rows`]. Writes the `t`, `u` and `v` of the hit
    /// lanes to `out` (its masks are left alone) and returns the lanes' masks.
    ///
    /// A hit lane's answer is bit for bit `ray.intersect(a_i, b_i, c_i, t_min, t_max,
    /// cull)`, with one exception: a degenerate (zero-area) triangle is not detected (that
    /// takes an f64 cross product per triangle), and may be reported hit. Callers filter
    /// those with a flag computed once ([`Triangle::is_degenerate`]). An invalid ray or an
    /// empty slice hits nothing and leaves nothing undecided.
    #[inline]
    pub fn test(
        &self,
        tris: &[[Point3<Real>; 3]],
        t_min: Real,
        t_max: Real,
        cull: Cull,
        out: &mut BlockHits<8>,
    ) -> LaneMasks {
        let tris = &tris[..tris.len().min(8)];
        let n = tris.len();
        // Copied into rows (as a mesh stores them) for the one kernel: 72 floats, and 8 more
        // that the lanes past `n` read.
        let mut rows = [0.0; 9 * 8 + 8];
        for (j, t) in tris.iter().enumerate() {
            for (c, p) in t.iter().enumerate() {
                for a in 0..3 {
                    rows[(3 * c + a) * n + j] = p[a];
                }
            }
        }
        self.test_rows(&rows, n, t_min, t_max, cull, out)
    }
}

impl TrianglesRay {
    /// [`TrianglesRay::test`] on a group of `n` triangles (`1..=8`) stored as 9
    /// rows of `n` floats: row `3 * corner + axis` holds that coordinate of the `n`
    /// triangles, lane `i` being triangle `i`. `rows` must hold at least `8 * n + 8` floats
    /// (the kernel reads 8 lanes of each row; lanes past `n` are discarded). A shorter
    /// `rows`, `n` outside `1..=8`, an invalid ray or the scalar path leave every lane
    /// undecided (an invalid ray: none).
    #[inline(always)]
    pub fn test_rows(
        &self,
        rows: &[f32],
        n: usize,
        t_min: Real,
        t_max: Real,
        cull: Cull,
        out: &mut BlockHits<8>,
    ) -> LaneMasks {
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = self.cpu {
            if (1..=8).contains(&n) && rows.len() >= 8 * n + 8 {
                let m = super::simd::run_rows(cpu, rows, n, &self.ray, t_min, t_max, out);
                let keep = match cull {
                    Cull::None => !0,
                    Cull::Back => m.front,
                    Cull::Front => !m.front,
                };
                let hit = m.hit & !m.undecided & keep;
                return LaneMasks {
                    hit,
                    front: m.front & hit,
                    undecided: m.undecided,
                };
            }
        }
        if !self.ray.valid || n == 0 {
            return LaneMasks::default();
        }
        let _ = (rows, t_min, t_max, cull, out);
        LaneMasks {
            undecided: (1u32 << n.min(8)) - 1,
            ..LaneMasks::default()
        }
    }
}

/// Tests up to 8 triangles `[a, b, c]` against one ray, with SIMD on x86_64 (one 8-lane
/// AVX2 pass, or one or two 4-lane SSE passes: see [`TrianglesRay::test_rows`]).
///
/// Lane `i` is `tris[i]`; triangles past the 8th are ignored, and an empty slice hits
/// nothing. Each lane's answer is bit for bit `ray.intersect(a_i, b_i, c_i, t_min, t_max,
/// cull)` with one exception: a degenerate (zero-area) triangle is not detected (that takes
/// an f64 cross product per triangle), and may report a hit. Callers filter those with a
/// flag computed once ([`Triangle::is_degenerate`]). `Scalar` (or a path this CPU lacks)
/// calls [`WatertightRay::intersect`] per lane.
///
/// ```
/// use raypick_bvh::wide::{intersect_triangles, SimdPath};
/// use raypick_primitives::{Cull, Point3, Ray, Vector3, WatertightRay};
///
/// let tri = |z: f32| [Point3::new(0.0, 0.0, z), Point3::new(1.0, 0.0, z), Point3::new(0.0, 1.0, z)];
/// let tris = [tri(3.0), tri(1.0), tri(2.0)];
/// let ray = WatertightRay::new(&Ray::new(Point3::new(0.25, 0.25, 0.0), Vector3::z()));
/// let hits = intersect_triangles(SimdPath::best(), &tris, &ray, 0.0, f32::INFINITY, Cull::None);
/// assert_eq!(hits.mask, 0b111);
/// assert_eq!(hits.closest().unwrap().0, 1); // the triangle at z = 1
/// ```
#[must_use]
#[inline]
pub fn intersect_triangles(
    path: SimdPath,
    tris: &[[Point3<Real>; 3]],
    ray: &WatertightRay,
    t_min: Real,
    t_max: Real,
    cull: Cull,
) -> BlockHits<8> {
    let tris = &tris[..tris.len().min(8)];
    let mut out = BlockHits::default();
    let m = TrianglesRay::new(path, ray).test(tris, t_min, t_max, cull, &mut out);
    out.mask = m.hit;
    out.front = m.front;
    let mut undecided = m.undecided;
    while undecided != 0 {
        let i = undecided.trailing_zeros() as usize;
        undecided &= undecided - 1;
        let [a, b, c] = &tris[i];
        if let Some(h) = ray.intersect(a, b, c, t_min, t_max, cull) {
            out.set_hit(i, &h);
        }
    }
    out
}
