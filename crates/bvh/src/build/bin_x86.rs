//! The builder's SSE2 kernels (SSE2 is part of every x86_64 CPU, so no runtime detection).
//! - Binning of centroids on all three axes at once: one vector computes the three bin
//!   indices of a primitive, and each bin's box grows by one 4-wide min and max. It gives
//!   exactly the bins of the scalar [`super::binned::bin_into_scalar`], which the tests
//!   check, lane by lane.
//! - The partition of a split: a primitive's centroid in one vector, both boxes of its side
//!   grown by 4-wide min and max. It gives exactly the order and boxes of the scalar
//!   [`super::binned::partition_below_scalar`] (tested).

use std::arch::x86_64::{
    __m128, __m128i, _mm_add_ps, _mm_and_ps, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps,
    _mm_cmplt_ps, _mm_cvtsi128_si32, _mm_loadu_ps, _mm_max_ps, _mm_min_ps, _mm_movemask_ps,
    _mm_mul_ps, _mm_set1_epi32, _mm_set1_ps, _mm_set_epi32, _mm_setzero_ps, _mm_shuffle_epi32,
    _mm_storeu_ps, _mm_sub_ps,
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

/// Partitions `prims` in place: those whose centroid coordinate on axis `A` is below `t` go
/// first (Hoare's scheme, from both ends). Returns their count and each side's exact box
/// and centroid box (lane 3 junk, as everywhere in the builder).
pub(super) fn partition_below<const A: usize>(
    prims: &mut [PrimRef],
    t: f32,
) -> (usize, (Box3, Box3), (Box3, Box3)) {
    // SAFETY: SSE2 is part of the x86_64 baseline, so every x86_64 CPU runs this.
    unsafe { partition_below_sse2::<A>(prims, t) }
}

/// One side's two boxes as vectors.
#[derive(Clone, Copy)]
struct Side {
    min: __m128,
    max: __m128,
    cmin: __m128,
    cmax: __m128,
}

impl Side {
    #[inline]
    #[target_feature(enable = "sse2")]
    fn empty() -> Self {
        let (inf, ninf) = (_mm_set1_ps(f32::INFINITY), _mm_set1_ps(f32::NEG_INFINITY));
        Side {
            min: inf,
            max: ninf,
            cmin: inf,
            cmax: ninf,
        }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn grow(&mut self, p: &Loaded) {
        self.min = _mm_min_ps(self.min, p.lo);
        self.max = _mm_max_ps(self.max, p.hi);
        self.cmin = _mm_min_ps(self.cmin, p.c);
        self.cmax = _mm_max_ps(self.cmax, p.c);
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn boxes(&self) -> (Box3, Box3) {
        let (mut b, mut c) = (Box3::EMPTY, Box3::EMPTY);
        store(&mut b.min, self.min);
        store(&mut b.max, self.max);
        store(&mut c.min, self.cmin);
        store(&mut c.max, self.cmax);
        (b, c)
    }
}

/// A primitive's corners and centroid in vectors, and whether it goes left.
struct Loaded {
    lo: __m128,
    hi: __m128,
    c: __m128,
    left: bool,
}

#[target_feature(enable = "sse2")]
fn partition_below_sse2<const A: usize>(
    prims: &mut [PrimRef],
    t: f32,
) -> (usize, (Box3, Box3), (Box3, Box3)) {
    let xyz_mask = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    let half = _mm_set1_ps(0.5);
    let tv = _mm_set1_ps(t);
    // The centroid as `PrimRef::centroid` computes it (lane 3 is 0: `max`'s lane 3 is 0).
    let load_prim = |p: &PrimRef| {
        let (lo, hi) = (load(&p.min), load(&p.max));
        let c = _mm_add_ps(
            _mm_mul_ps(_mm_and_ps(lo, xyz_mask), half),
            _mm_mul_ps(hi, half),
        );
        let left = _mm_movemask_ps(_mm_cmplt_ps(c, tv)) & (1 << A) != 0;
        Loaded { lo, hi, c, left }
    };
    let (mut left, mut right) = (Side::empty(), Side::empty());
    let mut i = 0usize;
    let mut j = prims.len();
    loop {
        let mut a = None;
        while i < j {
            let p = load_prim(&prims[i]);
            if !p.left {
                a = Some(p);
                break;
            }
            left.grow(&p);
            i += 1;
        }
        let mut b = None;
        while i < j {
            let p = load_prim(&prims[j - 1]);
            if p.left {
                b = Some(p);
                break;
            }
            right.grow(&p);
            j -= 1;
        }
        // Both found: `prims[i]` goes right and `prims[j - 1]` left, so `i < j - 1`.
        let (Some(a), Some(b)) = (a, b) else { break };
        prims.swap(i, j - 1);
        left.grow(&b);
        right.grow(&a);
        i += 1;
        j -= 1;
    }
    (i, left.boxes(), right.boxes())
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
    use super::super::binned::{
        bin_into_scalar, bin_of, partition_below_scalar, split_threshold, Binning, Bins,
    };
    use super::super::prim::{Box3, PrimRef};
    use super::{bin_all_axes, partition_below};

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

    /// The threshold of every split of every axis is exactly where the bins change, for the
    /// primitives' centroids and for the floats next to it.
    #[test]
    fn split_thresholds_are_the_bin_boundaries() {
        let mut checked = 0;
        for (n, scale, nb) in [
            (50, 1.0, 4),
            (1000, 1.0, 32),
            (1000, 3e38, 32), // extents overflow: everything in bin 0
            (1000, 1e-30, 64),
            (2000, 1e6, 13),
        ] {
            let ps = prims(n, scale, 7 + n as u64);
            let bn = binning(&ps, nb);
            for axis in 0..3 {
                let bin = |c: f32| bin_of(c, bn.cmin[axis], bn.scale[axis], bn.last as f32);
                for split in 1..nb {
                    let t = split_threshold(&bn, axis, split);
                    if t.is_finite() {
                        assert!(bin(t) >= split && bin(t.next_down()) < split, "{n} {axis}");
                    }
                    for p in &ps {
                        let c = p.centroid()[axis];
                        assert_eq!(c < t, bin(c) < split, "{n} {axis} {split} {c}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000);
    }

    /// The SSE2 partition moves the primitives as the scalar one does and grows the same
    /// boxes, on every axis, with splits at every bin and at the ends.
    #[test]
    fn sse_partition_equals_scalar_partition() {
        for (n, scale) in [(0, 1.0), (1, 1.0), (2, 1.0), (37, 1.0), (3000, 1e4)] {
            let ps = prims(n, scale, 11 + n as u64);
            let bn = binning(&ps, 16);
            for axis in 0..3 {
                for split in 0..=16 {
                    // Every primitive right, every bin boundary, every primitive left.
                    let t = match split {
                        0 => f32::NEG_INFINITY,
                        16 => f32::INFINITY,
                        s => split_threshold(&bn, axis, s),
                    };
                    let (mut a, mut b) = (ps.clone(), ps.clone());
                    let x = match axis {
                        0 => (
                            partition_below::<0>(&mut a, t),
                            partition_below_scalar::<0>(&mut b, t),
                        ),
                        1 => (
                            partition_below::<1>(&mut a, t),
                            partition_below_scalar::<1>(&mut b, t),
                        ),
                        _ => (
                            partition_below::<2>(&mut a, t),
                            partition_below_scalar::<2>(&mut b, t),
                        ),
                    };
                    let ((mid, l, r), (mid_s, l_s, r_s)) = x;
                    assert_eq!(mid, mid_s);
                    let idx = |v: &[PrimRef]| v.iter().map(PrimRef::idx).collect::<Vec<_>>();
                    assert_eq!(idx(&a), idx(&b), "n {n} axis {axis} split {split}");
                    assert_eq!(mid, ps.iter().filter(|p| p.centroid()[axis] < t).count());
                    assert!(a[..mid].iter().all(|p| p.centroid()[axis] < t));
                    for (x, y) in [(l.0, l_s.0), (l.1, l_s.1), (r.0, r_s.0), (r.1, r_s.1)] {
                        assert_eq!((&x.min[..3], &x.max[..3]), (&y.min[..3], &y.max[..3]));
                    }
                    let mut exact = Box3::EMPTY;
                    for p in &a[..mid] {
                        exact.grow(&p.min, &p.max);
                    }
                    assert_eq!(
                        (&l.0.min[..3], &l.0.max[..3]),
                        (&exact.min[..3], &exact.max[..3])
                    );
                }
            }
        }
    }
}
