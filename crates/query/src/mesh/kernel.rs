//! The scalar per-triangle kernel: the watertight test of `raypick_primitives`
//! ([`WatertightRay::intersect_raw`]) on leaf-order vertex data, which also reports which
//! edge functions are exactly zero (the hit lies on an edge or a vertex). `all_hits` needs
//! that to merge the hits of one crossing; the zero test is exact because a zero edge
//! function is recomputed in f64.

use raypick_bvh::wide::TrianglesRay;
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

/// A ray prepared once for many triangle tests (permutation and shear), with its SIMD path
/// checked once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayKernel {
    pub tr: TrianglesRay,
}

impl RayKernel {
    #[inline(always)]
    pub fn new(ray: &Ray) -> Self {
        Self {
            tr: TrianglesRay::best(&WatertightRay::new(ray)),
        }
    }

    /// The ray as the watertight test prepares it.
    #[inline(always)]
    pub fn w(&self) -> &WatertightRay {
        self.tr.ray()
    }

    /// False for rays that can hit nothing (NaN, infinite or zero direction).
    #[inline(always)]
    pub fn valid(&self) -> bool {
        self.w().valid
    }

    /// The sheared 2D position of `p` (the ray runs along the origin of this plane), in the
    /// same f32 arithmetic as [`RayKernel::intersect`].
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
