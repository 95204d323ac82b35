//! The quantizer of the compact node layout (`compact`): each child box plane stored as a
//! byte on a per-node power-of-two grid, rounded outwards so the stored box contains the
//! exact one. The SSE2 row (x86_64) and the scalar row give the same bytes.

/// The plane `origin + q * step`, as every kernel computes it (the product is exact).
#[inline(always)]
pub(super) fn dequantize(origin: f32, q: u8, step: f32) -> f32 {
    origin + f32::from(q) * step
}

/// `2^e` for `-126 <= e <= 127`.
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The smallest power-of-two step (a normal f32) with `origin + 255 * step >= hi` as
/// dequantized, and its inverse (exact); `None` when no finite one exists.
#[inline]
pub(super) fn step_for(origin: f32, hi: f32) -> Option<(f32, f32)> {
    // The exponent of (hi - origin) / 255, from its bits: a step a little too small is
    // corrected by the loop, which then runs once or twice.
    let x = (hi - origin) * (1.0 / 255.0);
    let mut e = if x.is_finite() && x > 0.0 {
        let bits = x.to_bits();
        // Rounded up to a power of two: one more when x is not one already.
        ((bits >> 23) as i32 - 127 + i32::from(bits & 0x7f_ffff != 0)).max(-126)
    } else if x.is_finite() {
        -126
    } else {
        // The extent overflows f32: start from the largest steps.
        120
    };
    loop {
        let step = pow2(e);
        let top = dequantize(origin, 255, step);
        if top >= hi && top.is_finite() {
            // 1 / 2^e is 2^-e, exact (a subnormal at worst for e = 127).
            return Some((step, 1.0 / step));
        }
        if e >= 127 || !top.is_finite() {
            return None;
        }
        e += 1;
    }
}

/// The bytes of one row of planes `v` (all 8 lanes): a `q` whose plane is at most `v`
/// (`DOWN`, a min row), or at least `v` (a max row), the nearest such one unless rounding
/// far from the origin makes neighbouring planes equal; `v` must lie within
/// `origin ..= origin + 255 * step` as dequantized. The estimate from `(v - origin) / step`
/// is off by at most one from rounding, and so is the dequantized plane; two branch-free
/// corrections per lane fix both, and a final check (which finds nothing in practice) makes
/// it certain. SSE2 on x86_64, the same operations lane by lane.
#[inline(always)]
pub(super) fn quantize_row<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> [u8; 8] {
    #[cfg(target_arch = "x86_64")]
    if let Some(q) = quantize_row_sse2::<DOWN>(origin, step, inv, v) {
        return q;
    }
    quantize_row_scalar::<DOWN>(origin, step, inv, v)
}

/// [`quantize_row`] without SIMD: the reference the SSE2 row is tested against, and its
/// fallback.
#[inline]
fn quantize_row_scalar<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> [u8; 8] {
    let mut q = [0i32; 8];
    for (q, &x) in q.iter_mut().zip(v) {
        let t = ((x - origin) * inv).clamp(0.0, 255.0);
        // Truncation is floor here (t >= 0); rounded up for a max plane.
        let f = t as i32;
        *q = if DOWN {
            f
        } else {
            f + i32::from((f as f32) < t)
        };
    }
    for _ in 0..2 {
        for (q, &x) in q.iter_mut().zip(v) {
            let p = origin + *q as f32 * step;
            *q = if DOWN {
                (*q - i32::from(p > x)).max(0)
            } else {
                (*q + i32::from(p < x)).min(255)
            };
        }
    }
    let mut out = [0u8; 8];
    for ((o, &q), &x) in out.iter_mut().zip(&q).zip(v) {
        let mut q = q.clamp(0, 255) as u8;
        if DOWN {
            while q > 0 && dequantize(origin, q, step) > x {
                q -= 1;
            }
        } else {
            while q < 255 && dequantize(origin, q, step) < x {
                q += 1;
            }
        }
        *o = q;
    }
    out
}

#[cfg(target_arch = "x86_64")]
/// [`quantize_row`] on SSE2 (baseline on x86_64), four lanes at a time with the
/// same f32 operations in the same order, so the bytes are the scalar ones: the estimate
/// `trunc(clamp((v - origin) * inv, 0, 255))` (rounded up for a max row), two corrections
/// against the dequantized plane `origin + q * step`, then the final check. `None` when that
/// check still finds a lane off (the scalar loop then walks it; it never happens in
/// practice). Measured: about 1/20 of the scalar row's instructions, which the compiler
/// does not vectorize.
#[inline]
fn quantize_row_sse2<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> Option<[u8; 8]> {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { quantize_row_sse2_in::<DOWN>(origin, step, inv, v) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn quantize_row_sse2_in<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> Option<[u8; 8]> {
    use std::arch::x86_64::*;
    let (o, s, iv) = (_mm_set1_ps(origin), _mm_set1_ps(step), _mm_set1_ps(inv));
    let (zero, top) = (_mm_setzero_ps(), _mm_set1_ps(255.0));
    let (zero_i, top_i) = (_mm_setzero_si128(), _mm_set1_epi32(255));
    let half = |off: usize| -> Option<__m128i> {
        // SAFETY: `off + 4 <= 8` floats of `v`; `loadu` has no alignment requirement.
        let x = unsafe { _mm_loadu_ps(v.as_ptr().add(off)) };
        // `clamp` as the scalar code: max then min (a NaN, which finite boxes never give,
        // becomes 0 in both).
        let t = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_sub_ps(x, o), iv), zero), top);
        let mut q = _mm_cvttps_epi32(t);
        if !DOWN {
            // +1 where the truncation dropped a fraction (the mask is -1).
            q = _mm_sub_epi32(q, _mm_castps_si128(_mm_cmplt_ps(_mm_cvtepi32_ps(q), t)));
        }
        let plane = |q: __m128i| _mm_add_ps(o, _mm_mul_ps(_mm_cvtepi32_ps(q), s));
        for _ in 0..2 {
            let p = plane(q);
            if DOWN {
                q = _mm_add_epi32(q, _mm_castps_si128(_mm_cmpgt_ps(p, x)));
                // max(q, 0): clear the lanes that went negative.
                q = _mm_andnot_si128(_mm_srai_epi32::<31>(q), q);
            } else {
                q = _mm_sub_epi32(q, _mm_castps_si128(_mm_cmplt_ps(p, x)));
                // min(q, 255): the lanes above 255 are 256, one too many.
                q = _mm_add_epi32(q, _mm_cmpgt_epi32(q, top_i));
            }
        }
        let p = plane(q);
        let off_lanes = if DOWN {
            _mm_and_ps(
                _mm_cmpgt_ps(p, x),
                _mm_castsi128_ps(_mm_cmpgt_epi32(q, zero_i)),
            )
        } else {
            _mm_and_ps(
                _mm_cmplt_ps(p, x),
                _mm_castsi128_ps(_mm_cmplt_epi32(q, top_i)),
            )
        };
        (_mm_movemask_ps(off_lanes) == 0).then_some(q)
    };
    let (lo, hi) = (half(0)?, half(4)?);
    // 0..=255 in every lane: the saturating packs keep the values.
    let bytes = _mm_packus_epi16(_mm_packs_epi32(lo, hi), zero_i);
    Some((_mm_cvtsi128_si64(bytes) as u64).to_le_bytes())
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "x86_64")]
    use super::quantize_row_sse2;
    use super::{dequantize, quantize_row, quantize_row_scalar, step_for};
    use proptest::prelude::*;

    /// A row of 8 planes inside `lo ..= hi`, from 8 fractions, with `lo` and `hi` among
    /// them (as `set_boxes` gives: the row's extremes set the range).
    fn row(lo: f32, hi: f32, f: [f32; 8]) -> [f32; 8] {
        let mut v = f.map(|f| lo + (hi - lo) * f);
        v[0] = lo;
        v[7] = hi;
        v.map(|x| x.clamp(lo, hi))
    }

    /// Checks the bytes of one row against the contract: the plane of a min byte is at most
    /// `v`, a max byte's at least `v` (the stored box contains the exact one), and no more
    /// than two steps away.
    fn check<const DOWN: bool>(origin: f32, step: f32, v: &[f32; 8], q: &[u8; 8]) {
        for (&x, &q) in v.iter().zip(q) {
            let p = dequantize(origin, q, step);
            if DOWN {
                assert!(p <= x, "min plane {p} above {x}");
            } else {
                assert!(p >= x, "max plane {p} below {x}");
            }
            let gap = (f64::from(p) - f64::from(x)).abs();
            assert!(gap <= 2.0 * f64::from(step), "{p} far from {x}");
        }
    }

    /// The SIMD and scalar rows of `lo ..= hi` agree and meet the contract; with `simd`, the
    /// SIMD row must also have decided alone (no scalar fallback), so that the comparison
    /// is not the scalar code against itself.
    fn both(lo: f32, hi: f32, f: [f32; 8], simd: bool) {
        let v = row(lo, hi, f);
        let Some((step, inv)) = step_for(lo, hi) else {
            return;
        };
        #[cfg(target_arch = "x86_64")]
        if simd {
            let sse = quantize_row_sse2::<true>(lo, step, inv, &v);
            assert!(sse.is_some(), "{v:?}");
            let sse = quantize_row_sse2::<false>(lo, step, inv, &v);
            assert!(sse.is_some(), "{v:?}");
        }
        let _ = simd;
        let down = quantize_row::<true>(lo, step, inv, &v);
        let up = quantize_row::<false>(lo, step, inv, &v);
        assert_eq!(
            down,
            quantize_row_scalar::<true>(lo, step, inv, &v),
            "{v:?}"
        );
        assert_eq!(up, quantize_row_scalar::<false>(lo, step, inv, &v), "{v:?}");
        check::<true>(lo, step, &v, &down);
        check::<false>(lo, step, &v, &up);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The SIMD rows give the scalar bytes, which meet the contract, on ordinary ranges.
        #[test]
        fn simd_rows_equal_the_scalar_rows(
            lo in -1.0e3f32..1.0e3,
            span in 0.0f32..10.0,
            f in proptest::array::uniform8(0.0f32..=1.0),
        ) {
            both(lo, lo + span, f, true);
        }

        /// ... far from the origin, tiny, and across the range of f32 magnitudes.
        #[test]
        fn simd_rows_equal_the_scalar_rows_on_hard_ranges(
            mag in -30i32..30,
            off in -1.0f32..1.0,
            span_mag in -40i32..10,
            f in proptest::array::uniform8(0.0f32..=1.0),
        ) {
            let lo = off * 10f32.powi(mag);
            both(lo, lo + 10f32.powi(span_mag) * lo.abs().max(1e-30), f, false);
        }
    }

    #[test]
    fn simd_rows_on_exact_and_extreme_values() {
        for (lo, hi) in [
            (0.0, 0.0),
            (0.0, 255.0),
            (-1.0, 1.0),
            (1.0e30, 1.0e30 * 1.5),
            (-3.0e38, 3.0e38),
            (f32::MIN_POSITIVE, f32::MIN_POSITIVE * 3.0),
            (1.0e-40, 2.0e-40),
        ] {
            for k in 0..=8 {
                let mut f = [0.0f32; 8];
                for (i, f) in f.iter_mut().enumerate() {
                    *f = ((i * 37 + k * 11) % 9) as f32 / 8.0;
                }
                both(lo, hi, f, false);
            }
        }
    }
}
