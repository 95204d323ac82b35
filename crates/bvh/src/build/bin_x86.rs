//! Binning of centroids on all three axes at once with SSE2 (part of every x86_64 CPU, so no
//! runtime detection): one vector computes the three bin indices of a primitive, and each
//! bin's box grows by one 4-wide min and max. It gives exactly the bins of the scalar
//! [`super::binned::bin_into_scalar`], which the tests check, lane by lane.

use std::arch::x86_64::{
    __m128, __m128i, _mm_add_ps, _mm_and_ps, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps,
    _mm_cvtsi128_si32, _mm_loadu_ps, _mm_max_ps, _mm_min_ps, _mm_mul_ps, _mm_set1_epi32,
    _mm_set1_ps, _mm_set_epi32, _mm_setzero_ps, _mm_shuffle_epi32, _mm_storeu_ps, _mm_sub_ps,
};

use super::binned::{Binning, Bins};
use super::prim::{Box3, PrimRef};
use crate::config::MAX_BINS;

#[inline]
#[target_feature(enable = "sse2")]
fn load(v: &[f32; 4]) -> __m128 {
    // SAFETY: `v` is a valid reference to four f32; the load is unaligned.
    unsafe { _mm_loadu_ps(v.as_ptr()) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn store(dst: &mut [f32; 4], v: __m128) {
    // SAFETY: `dst` is a valid, exclusive reference to four f32; the store is unaligned.
    unsafe { _mm_storeu_ps(dst.as_mut_ptr(), v) }
}

/// Bins every primitive on all three axes; the bins must be reset first.
///
/// The arithmetic is [`super::binned::bin_of`]'s, lane for lane (`max`/`min` of SSE return
/// their second operand on NaN, as its comparisons do), so partitions agree with the bins.
pub(super) fn bin_all_axes(prims: &[PrimRef], stride: usize, bn: &Binning, bins: &mut Bins) {
    // SAFETY: SSE2 is part of the x86_64 baseline, so every x86_64 CPU runs this.
    unsafe { bin_all_axes_sse2(prims, stride, bn, bins) }
}

#[target_feature(enable = "sse2")]
fn bin_all_axes_sse2(prims: &[PrimRef], stride: usize, bn: &Binning, bins: &mut Bins) {
    let k = Kernel::new(bn);
    for p in prims.iter().step_by(stride) {
        k.bin(p, &mut bins.boxes, &mut bins.counts);
    }
}

/// The per-primitive step, with its constants in registers.
struct Kernel {
    xyz_mask: __m128,
    half: __m128,
    zero: __m128,
    cmin: __m128,
    scale: __m128,
    last: __m128,
    magic: __m128,
    mantissa: __m128i,
}

impl Kernel {
    #[inline]
    #[target_feature(enable = "sse2")]
    fn new(bn: &Binning) -> Self {
        Self {
            // Lane 3 of `min` holds the primitive index's bits: zeroed before any arithmetic,
            // as a denormal operand is slow on some CPUs.
            xyz_mask: _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)),
            half: _mm_set1_ps(0.5),
            zero: _mm_setzero_ps(),
            cmin: load(&bn.cmin),
            scale: load(&bn.scale),
            last: _mm_set1_ps(bn.last as f32),
            magic: _mm_set1_ps(8_388_608.0),
            mantissa: _mm_set1_epi32(0x7f_ffff),
        }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn bin(
        &self,
        p: &PrimRef,
        boxes: &mut [[Box3; MAX_BINS]; 3],
        counts: &mut [[u32; MAX_BINS]; 3],
    ) {
        let lo = load(&p.min);
        let hi = load(&p.max);
        let c = _mm_add_ps(
            _mm_mul_ps(_mm_and_ps(lo, self.xyz_mask), self.half),
            _mm_mul_ps(hi, self.half),
        );
        let x = _mm_sub_ps(_mm_mul_ps(_mm_sub_ps(c, self.cmin), self.scale), self.half);
        let x = _mm_min_ps(_mm_max_ps(x, self.zero), self.last);
        let k = _mm_and_si128(_mm_castps_si128(_mm_add_ps(x, self.magic)), self.mantissa);
        let ks = [
            _mm_cvtsi128_si32(k),
            _mm_cvtsi128_si32(_mm_shuffle_epi32::<0x55>(k)),
            _mm_cvtsi128_si32(_mm_shuffle_epi32::<0xaa>(k)),
        ];
        for (a, &k) in ks.iter().enumerate() {
            // `k <= last < MAX_BINS` by the clamp; the mask only spares a bounds check.
            let k = k as usize & (MAX_BINS - 1);
            let b = &mut boxes[a][k];
            let (bmin, bmax) = (load(&b.min), load(&b.max));
            store(&mut b.min, _mm_min_ps(bmin, lo));
            store(&mut b.max, _mm_max_ps(bmax, hi));
            counts[a][k] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::binned::{bin_into_scalar, Binning, Bins};
    use super::super::prim::{Box3, PrimRef};
    use super::bin_all_axes;

    /// A small deterministic generator (SplitMix64), so the cases need no dependency.
    fn next(state: &mut u64) -> f32 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }

    fn prims(n: usize, scale: f32, seed: u64) -> Vec<PrimRef> {
        let mut s = seed;
        (0..n)
            .map(|i| {
                let c: [f32; 3] = std::array::from_fn(|_| (next(&mut s) - 0.5) * scale);
                let e: [f32; 3] = std::array::from_fn(|_| next(&mut s) * scale * 0.01);
                PrimRef {
                    min: [
                        c[0] - e[0],
                        c[1] - e[1],
                        c[2] - e[2],
                        f32::from_bits(i as u32),
                    ],
                    max: [c[0] + e[0], c[1] + e[1], c[2] + e[2], 0.0],
                }
            })
            .collect()
    }

    fn binning(ps: &[PrimRef], nb: usize) -> Binning {
        let mut cb = Box3::EMPTY;
        for p in ps {
            cb.grow_point(&p.centroid());
        }
        Binning {
            cmin: [cb.min[0], cb.min[1], cb.min[2], 0.0],
            scale: std::array::from_fn(|a| {
                let e = if a < 3 { cb.max[a] - cb.min[a] } else { 0.0 };
                if e > 0.0 {
                    nb as f32 / e
                } else {
                    0.0
                }
            }),
            single: None,
            last: nb - 1,
        }
    }

    #[test]
    fn sse_bins_equal_scalar_bins() {
        let mut cases = 0;
        for (n, scale, nb, stride) in [
            (1, 1.0, 4, 1),
            (17, 1.0, 4, 1),
            (1000, 1.0, 32, 1),
            (1000, 3e38, 32, 1), // extents overflow: everything in bin 0
            (5000, 1e-30, 64, 4),
            (20_000, 100.0, 32, 16),
        ] {
            let ps = prims(n, scale, n as u64);
            let bn = binning(&ps, nb);
            let (mut a, mut b) = (Bins::new(), Bins::new());
            bin_all_axes(&ps, stride, &bn, &mut a);
            bin_into_scalar(&ps, stride, &bn, &mut b);
            for axis in 0..3 {
                assert_eq!(
                    a.counts[axis][..nb],
                    b.counts[axis][..nb],
                    "n {n} axis {axis}"
                );
                let sampled: u32 = a.counts[axis][..nb].iter().sum();
                assert_eq!(sampled as usize, n.div_ceil(stride));
                for k in 0..nb {
                    let (x, y) = (&a.boxes[axis][k], &b.boxes[axis][k]);
                    assert_eq!((&x.min[..3], &x.max[..3]), (&y.min[..3], &y.max[..3]));
                }
            }
            cases += 1;
        }
        assert_eq!(cases, 6);
    }
}
