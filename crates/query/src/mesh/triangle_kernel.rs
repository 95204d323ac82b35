//! The triangle kernel of mesh queries: a ray prepared once ([`TriangleRay`]) for the
//! watertight test (Woop, Benthin and Wald 2013) on leaf-order triangles, in two forms
//! checked against each other:
//! - the scalar test of `raypick_primitives` ([`WatertightRay::intersect_raw`]) on one
//!   triangle, which also reports which edge functions are exactly zero (the hit lies on an
//!   edge or a vertex; `all_hits` needs that to merge the hits of one crossing, and the zero
//!   test is exact because a zero edge function is recomputed in f64);
//! - the SIMD form ([`TriangleRay::test_rows`], `triangle_kernel_x86`) on a group of up to 8
//!   triangles stored as rows (`leaf_tris`), bit for bit the scalar answers, leaving the
//!   lanes on an edge or a vertex to the scalar test.

use raypick_bvh::BoxRay;
#[cfg(target_arch = "x86_64")]
use raypick_primitives::simd::CpuPath;
use raypick_primitives::{Cull, Point3, Ray, Real, WatertightRay};

/// Bit set in [`RawHit::zero`] when the weight of corner `a` is exactly 0 (edge `b -> c`).
pub(crate) const ZERO_A: u8 = 1;
/// The weight of corner `b` is exactly 0 (edge `c -> a`).
pub(crate) const ZERO_B: u8 = 2;
/// The weight of corner `c` is exactly 0 (edge `a -> b`).
pub(crate) const ZERO_C: u8 = 4;

/// A hit as the kernel finds it: the fields of `RayTriangleHit` plus the zero-weight mask.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawHit {
    pub t: Real,
    pub u: Real,
    pub v: Real,
    pub front_face: bool,
    pub zero: u8,
}

/// The `t`, `u` and `v` of each lane of a [`TriangleRay::test_rows`] pass (meaningful for
/// the hit lanes only).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LaneHits {
    pub t: [Real; 8],
    pub u: [Real; 8],
    pub v: [Real; 8],
}

/// The lanes of one [`TriangleRay::test_rows`] pass: bit `i` is the group's triangle `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LaneMasks {
    /// Lanes hit within `[t_min, t_max]` and not culled; their `t`, `u`, `v` are in the
    /// output [`LaneHits`].
    pub hit: u32,
    /// The hit lanes on the front (counter-clockwise) face.
    pub front: u32,
    /// Lanes the caller must decide with the scalar test ([`TriangleRay::intersect`]):
    /// those with an edge function that rounds to exactly zero (the ray passes through an
    /// edge or a vertex, which the scalar test redoes in f64), and every lane on the
    /// scalar path.
    pub undecided: u32,
}

/// A ray prepared once for many triangle tests (permutation and shear) and for the box
/// tests of the traversal ([`BoxRay`]), with its SIMD path checked once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriangleRay {
    w: WatertightRay,
    /// The SIMD kernels' path; `None` on the scalar path and for an invalid ray.
    #[cfg(target_arch = "x86_64")]
    cpu: Option<CpuPath>,
    /// The box-test constants, for the traversal.
    pub boxes: BoxRay,
}

impl TriangleRay {
    /// `ray` on the fastest path ([`SimdPath::best`](raypick_primitives::simd::SimdPath::best)).
    #[inline(always)]
    pub fn new(ray: &Ray) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Self::with_cpu(ray, CpuPath::best());
        #[cfg(not(target_arch = "x86_64"))]
        {
            let (w, inv) = WatertightRay::with_reciprocals(ray);
            Self {
                w,
                boxes: BoxRay::from_watertight_reciprocals(&w, inv),
            }
        }
    }

    /// `ray` on `path`; a path this CPU lacks, or `Scalar`, leaves every lane undecided.
    #[cfg(test)]
    pub fn on(path: raypick_primitives::simd::SimdPath, ray: &Ray) -> Self {
        #[cfg(target_arch = "x86_64")]
        return Self::with_cpu(ray, CpuPath::new(path));
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = path;
            Self::new(ray)
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn with_cpu(ray: &Ray, cpu: Option<CpuPath>) -> Self {
        let (w, inv) = WatertightRay::with_reciprocals(ray);
        Self {
            w,
            cpu: cpu.filter(|_| w.valid),
            boxes: BoxRay::from_watertight_reciprocals(&w, inv),
        }
    }

    /// The SIMD kernels' proof of their target feature: `None` on the scalar path and for an
    /// invalid ray.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn cpu(&self) -> Option<CpuPath> {
        self.cpu
    }

    /// True when the triangle tests run one at a time ([`TriangleRay::test_rows`] leaves
    /// every lane undecided), and for an invalid ray.
    #[inline(always)]
    pub fn is_scalar(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.cpu.is_none();
        #[cfg(not(target_arch = "x86_64"))]
        true
    }

    /// The ray as the watertight test prepares it.
    #[inline(always)]
    pub fn w(&self) -> &WatertightRay {
        &self.w
    }

    /// False for rays that can hit nothing (NaN, infinite or zero direction).
    #[inline(always)]
    pub fn valid(&self) -> bool {
        self.w.valid
    }

    /// The sheared 2D position of `p` (the ray runs along the origin of this plane), in the
    /// same f32 arithmetic as [`TriangleRay::intersect`].
    #[inline(always)]
    pub fn shear_xy(&self, p: &Point3<Real>) -> [Real; 2] {
        let w = self.w();
        let [kx, ky, kz] = w.k;
        let (o, s) = (w.origin, w.shear);
        let d = [p.x - o[0], p.y - o[1], p.z - o[2]];
        [d[kx] - s[0] * d[kz], d[ky] - s[1] * d[kz]]
    }

    /// The watertight test of [`WatertightRay::intersect`], bit for bit, also reporting the
    /// zero edge functions ([`WatertightRay::intersect_raw`]). The degenerate-triangle check
    /// is left to the caller (the mesh keeps a precomputed flag).
    #[inline(always)]
    pub fn intersect(
        &self,
        tri: &[Point3<Real>; 3],
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<RawHit> {
        let [a, b, c] = tri;
        let (h, [za, zb, zc]) = self.w().intersect_raw(a, b, c, t_min, t_max, cull)?;
        Some(RawHit {
            t: h.t,
            u: h.u,
            v: h.v,
            front_face: h.front_face,
            zero: (u8::from(za) * ZERO_A) | (u8::from(zb) * ZERO_B) | (u8::from(zc) * ZERO_C),
        })
    }

    /// The watertight test on a group of `n` triangles (`1..=8`) stored as 9 rows of `n`
    /// floats: row `3 * corner + axis` holds that coordinate of the `n` triangles, lane `i`
    /// being triangle `i`. Writes the `t`, `u` and `v` of the hit lanes to `out` and returns
    /// the lanes' masks. A hit lane's answer is bit for bit [`TriangleRay::intersect`]'s,
    /// except that a degenerate (zero-area) triangle is not detected (callers filter those
    /// with a flag computed once).
    ///
    /// `rows` must hold at least `8 * n + 8` floats (the kernel reads 8 lanes of each row;
    /// lanes past `n` are discarded). A shorter `rows`, `n` outside `1..=8` or the scalar
    /// path leave every lane undecided; an invalid ray leaves none.
    #[inline(always)]
    pub fn test_rows(
        &self,
        rows: &[f32],
        n: usize,
        t_min: Real,
        t_max: Real,
        cull: Cull,
        out: &mut LaneHits,
    ) -> LaneMasks {
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = self.cpu {
            if (1..=8).contains(&n) && rows.len() >= 8 * n + 8 {
                let m =
                    super::triangle_kernel_x86::run_rows(cpu, rows, n, &self.w, t_min, t_max, out);
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
        if !self.w.valid || n == 0 {
            return LaneMasks::default();
        }
        let _ = (rows, t_min, t_max, cull, out);
        LaneMasks {
            undecided: (1u32 << n.min(8)) - 1,
            ..LaneMasks::default()
        }
    }
}

/// True when the triangle has exactly zero area, decided in f64 (the rule of
/// `Triangle::is_degenerate`, which the primitives' kernel applies per hit).
pub(crate) fn is_degenerate(tri: &[Point3<Real>; 3]) -> bool {
    raypick_primitives::Triangle::new(tri[0], tri[1], tri[2]).is_degenerate()
}

/// The unit geometric normal `(b - a) x (c - a)`, computed in f64 so that tiny non-degenerate
/// triangles still get one. `None` only for degenerate triangles.
pub(crate) fn unit_normal(
    tri: &[Point3<Real>; 3],
) -> Option<nalgebra::Unit<nalgebra::Vector3<Real>>> {
    let n = raypick_primitives::Triangle::new(tri[0], tri[1], tri[2]).scaled_normal_f64();
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let v = nalgebra::Vector3::new(
        (n[0] / len) as Real,
        (n[1] / len) as Real,
        (n[2] / len) as Real,
    );
    // Normalized in f64 already: unit to f32 rounding, no second normalization needed.
    Some(nalgebra::Unit::new_unchecked(v))
}

#[cfg(test)]
mod tests;
