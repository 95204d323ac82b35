//! The per-leaf ray/triangle kernel: the watertight test of `raypick_primitives`
//! ([`WatertightRay::intersect`]) with the same arithmetic, on leaf-order vertex data, also
//! reporting which edge functions are exactly zero (the hit lies on an edge or a vertex).
//! `all_hits` needs that to merge the hits of one crossing; the zero test is exact because
//! the kernel recomputes a zero edge function in f64.

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
    /// zero edge functions. The degenerate-triangle check is left to the caller (the mesh
    /// keeps a precomputed flag).
    #[inline(always)]
    pub fn intersect(
        &self,
        tri: &[Point3<Real>; 3],
        t_min: Real,
        t_max: Real,
        cull: Cull,
    ) -> Option<RawHit> {
        let [sx, sy, sz] = self.w().shear;
        let o = self.w().origin;
        let [a, b, c] = tri;
        let [kx, ky, kz] = self.w().k;
        let a_ = [a.x - o[0], a.y - o[1], a.z - o[2]];
        let b_ = [b.x - o[0], b.y - o[1], b.z - o[2]];
        let c_ = [c.x - o[0], c.y - o[1], c.z - o[2]];
        let ax = a_[kx] - sx * a_[kz];
        let ay = a_[ky] - sy * a_[kz];
        let bx = b_[kx] - sx * b_[kz];
        let by = b_[ky] - sy * b_[kz];
        let cx = c_[kx] - sx * c_[kz];
        let cy = c_[ky] - sy * c_[kz];

        let mut u = cx * by - cy * bx;
        let mut v = ax * cy - ay * cx;
        let mut w = bx * ay - by * ax;
        // `|` and `&` rather than `||` and `&&` (as in the primitives' test): no
        // data-dependent branches for random rays to mispredict.
        if (u == 0.0) | (v == 0.0) | (w == 0.0) {
            // Exact sign on the edge: f32 products are exact in f64.
            (u, v, w) = edge_functions_f64(ax, ay, bx, by, cx, cy);
        }
        if ((u < 0.0) | (v < 0.0) | (w < 0.0)) & ((u > 0.0) | (v > 0.0) | (w > 0.0)) {
            return None;
        }
        let det = u + v + w;
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
        let (lo, hi) = (t_min * det, t_max * det);
        let in_range = ((det > 0.0) & (t_scaled >= lo) & (t_scaled <= hi))
            | ((det < 0.0) & (t_scaled <= lo) & (t_scaled >= hi));
        if !in_range {
            return None;
        }
        let inv = 1.0 / det;
        let t = t_scaled * inv;
        if !(t >= t_min && t <= t_max) {
            return None;
        }
        let zero = (u8::from(u == 0.0) * ZERO_A)
            | (u8::from(v == 0.0) * ZERO_B)
            | (u8::from(w == 0.0) * ZERO_C);
        Some(RawHit {
            t,
            u: v * inv,
            v: w * inv,
            front_face,
            zero,
        })
    }
}

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
    let (ax, ay, bx, by, cx, cy) = (
        f64::from(ax),
        f64::from(ay),
        f64::from(bx),
        f64::from(by),
        f64::from(cx),
        f64::from(cy),
    );
    (
        (cx * by - cy * bx) as Real,
        (ax * cy - ay * cx) as Real,
        (bx * ay - by * ax) as Real,
    )
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
