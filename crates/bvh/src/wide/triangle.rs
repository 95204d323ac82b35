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

impl<const N: usize> BlockHits<N> {
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
                out.mask |= 1 << i;
                if h.front_face {
                    out.front |= 1 << i;
                }
                out.t[i] = h.t;
                out.u[i] = h.u;
                out.v[i] = h.v;
            }
        }
        out
    }
}
