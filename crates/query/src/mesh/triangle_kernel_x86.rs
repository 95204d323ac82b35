//! The SIMD form of the triangle kernel (x86_64): the watertight test (Woop, Benthin and
//! Wald 2013) on up to 8 triangles stored as rows (see `leaf_tris`), one 8-lane AVX2 pass or
//! one or two 4-lane SSE passes, written once over the lane operations of
//! `raypick_primitives::simd::lanes_x86`.
//!
//! It does the scalar test's f32 operations in the same order, so every decision and every
//! `t`, `u`, `v` is bit-identical to `WatertightRay::intersect`; a lane with an edge function
//! that rounds to exactly zero is left undecided for the scalar kernel (f64 edge functions).
//! `triangle_kernel`'s tests check it against the scalar kernel on every path.

use raypick_primitives::simd::lanes_x86::{v4, v8};
use raypick_primitives::simd::CpuPath;
use raypick_primitives::WatertightRay;

use super::triangle_kernel::{LaneHits, LaneMasks};

/// The watertight test's lanes: what the kernel core returns.
struct Lanes<V> {
    /// Lanes hit within the interval (before culling), edge functions all nonzero.
    ok: u32,
    /// Lanes whose determinant is positive (front face).
    front: u32,
    /// Lanes with an edge function exactly zero: the scalar test must decide them.
    zero: u32,
    t: V,
    u: V,
    v: V,
}

/// The watertight triangle kernel on `W` lanes, with the scalar test's f32 operations in the
/// scalar order. `c[corner]` holds the corner minus the ray origin on the permuted axes
/// `(kx, ky, kz)`, as in `WatertightRay::intersect`. `None` when no lane of `used` can hit
/// or is undecided (the caller then has nothing to store or test).
macro_rules! tri_core {
    ($name:ident, $m:ident, $feat:literal) => {
        #[target_feature(enable = $feat)]
        #[inline]
        fn $name(
            c: [[$m::V; 3]; 3],
            r: &WatertightRay,
            t_min: f32,
            t_max: f32,
            used: u32,
        ) -> Option<Lanes<$m::V>> {
            use $m::*;
            let [sx, sy, sz] = r.shear;
            let (sx, sy, sz) = (splat(sx), splat(sy), splat(sz));
            let [a_, b_, c_] = c;
            let ax = sub(a_[0], mul(sx, a_[2]));
            let ay = sub(a_[1], mul(sy, a_[2]));
            let bx = sub(b_[0], mul(sx, b_[2]));
            let by = sub(b_[1], mul(sy, b_[2]));
            let cx = sub(c_[0], mul(sx, c_[2]));
            let cy = sub(c_[1], mul(sy, c_[2]));
            let u = sub(mul(cx, by), mul(cy, bx));
            let vv = sub(mul(ax, cy), mul(ay, cx));
            let w = sub(mul(bx, ay), mul(by, ax));
            let zero = splat(0.0);
            let zero_lanes = bits(or(or(eq(u, zero), eq(vv, zero)), eq(w, zero)));
            let neg = or(or(lt(u, zero), lt(vv, zero)), lt(w, zero));
            let pos = or(or(gt(u, zero), gt(vv, zero)), gt(w, zero));
            let mixed = and(neg, pos);
            // No used lane inside all three edges, none on an edge: nothing more to compute
            // (a hit needs all edge functions of one sign). Most leaf tests end here.
            if (!bits(mixed) | zero_lanes) & used & ((1 << W) - 1) == 0 {
                return None;
            }
            let det = add(add(u, vv), w);
            let front = gt(det, zero);
            let az = mul(sz, a_[2]);
            let bz = mul(sz, b_[2]);
            let cz = mul(sz, c_[2]);
            let ts = add(add(mul(u, az), mul(vv, bz)), mul(w, cz));
            let inv = div(splat(1.0), det);
            let t = mul(ts, inv);
            // As the scalar kernel: within the interval, and finite (an overflow is no hit).
            let finite = and(lt(t, splat(f32::INFINITY)), gt(t, splat(f32::NEG_INFINITY)));
            let in_range = and(and(ge(t, splat(t_min)), le(t, splat(t_max))), finite);
            let ok = andnot(mixed, andnot(eq(det, zero), in_range));
            Some(Lanes {
                ok: bits(ok),
                front: bits(front),
                zero: zero_lanes,
                t,
                u: mul(vv, inv),
                v: mul(w, inv),
            })
        }
    };
}

tri_core!(core_sse, v4, "sse");
tri_core!(core_avx2, v8, "avx2");

/// The watertight kernel on lanes `off .. off + W` of a group of `n` triangles stored as 9
/// rows of `n` floats (row `3 * corner + axis`): writes lanes `off .. off + W`
/// of `t`, `u`, `v` and returns the lanes' masks (unshifted; lanes past `n` cleared). Lanes
/// past `n` read the next row (or what follows the group) and are discarded.
macro_rules! rows_kernel {
    ($name:ident, $core:ident, $m:ident, $feat:literal) => {
        /// # Safety
        /// `rows .. rows + 8 * n + 8` must be readable f32s, `off + W <= 8`.
        #[target_feature(enable = $feat)]
        #[inline]
        unsafe fn $name(
            rows: *const f32,
            n: usize,
            off: usize,
            r: &WatertightRay,
            t_min: f32,
            t_max: f32,
            out: &mut LaneHits,
        ) -> LaneMasks {
            use $m::*;
            // SAFETY: row `i <= 8` reads floats `i * n + off .. i * n + off + W`, inside
            // `8 * n + 8` (the caller's contract).
            let row = |i: usize| unsafe { load_at(rows.add(i * n + off)) };
            // The permutation is read at run time: one kernel for all rays. Against one
            // kernel per permutation: 2-4% more instructions per closest hit, but no per-ray
            // dispatch to mispredict and a sixth of the code; 2-14% faster on random rays,
            // within noise on picks (paired timed runs).
            let [kx, ky, kz] = r.k;
            let ko = r.permuted_origin();
            let o = [splat(ko[0]), splat(ko[1]), splat(ko[2])];
            let corner = |c: usize| -> [V; 3] {
                [
                    sub(row(3 * c + kx), o[0]),
                    sub(row(3 * c + ky), o[1]),
                    sub(row(3 * c + kz), o[2]),
                ]
            };
            let used = ((1u32 << n) - 1) >> off;
            let Some(l) = $core([corner(0), corner(1), corner(2)], r, t_min, t_max, used) else {
                return LaneMasks::default();
            };
            store(&mut out.t[off..], l.t);
            store(&mut out.u[off..], l.u);
            store(&mut out.v[off..], l.v);
            LaneMasks {
                hit: l.ok & used,
                front: l.front & used,
                undecided: l.zero & used,
            }
        }
    };
}

rows_kernel!(rows4_sse, core_sse, v4, "sse");
rows_kernel!(rows8_avx2, core_avx2, v8, "avx2");

/// Runs the kernel on a group of `n` (`1..=8`) triangles stored as rows (see
/// `rows_kernel`): 4 lanes for up to 4, 8 (AVX2) or 4 twice (SSE) above. Reads
/// `rows[.. 8 * n + 8]`; a shorter slice panics.
#[inline(always)]
pub(super) fn run_rows(
    path: CpuPath,
    rows: &[f32],
    n: usize,
    r: &WatertightRay,
    t_min: f32,
    t_max: f32,
    out: &mut LaneHits,
) -> LaneMasks {
    assert!((1..=8).contains(&n) && rows.len() >= 8 * n + 8);
    let p = rows.as_ptr();
    // SAFETY: a `CpuPath` proves its target feature (see `CpuPath::new`); `rows` holds
    // `8 * n + 8` floats (asserted) and each kernel's lanes end at 8.
    unsafe {
        match (path.avx2(), n > 4) {
            (true, _) => rows8_avx2(p, n, 0, r, t_min, t_max, out),
            (false, false) => rows4_sse(p, n, 0, r, t_min, t_max, out),
            (false, true) => {
                let lo = rows4_sse(p, n, 0, r, t_min, t_max, out);
                let hi = rows4_sse(p, n, 4, r, t_min, t_max, out);
                LaneMasks {
                    hit: lo.hit | hi.hit << 4,
                    front: lo.front | hi.front << 4,
                    undecided: lo.undecided | hi.undecided << 4,
                }
            }
        }
    }
}

/// [`raypick_primitives::point_triangle_lower_bounds`] on 8 lanes, in one AVX2 pass where
/// `cpu` has it. Bit-identical on every path: the same f32 operations, without FMA
/// (`triangle_kernel`'s tests compare them).
#[inline(always)]
pub(super) fn lower_bounds8(
    cpu: Option<CpuPath>,
    p: [f32; 3],
    rows: &[[f32; 8]; 9],
    scale: f32,
) -> [f32; 8] {
    #[target_feature(enable = "avx2")]
    fn avx2(p: [f32; 3], rows: &[[f32; 8]; 9], scale: f32) -> [f32; 8] {
        raypick_primitives::point_triangle_lower_bounds(p, rows, scale)
    }
    match cpu {
        // SAFETY: a `CpuPath` with `avx2()` is only made when the CPU has AVX2.
        Some(c) if c.avx2() => unsafe { avx2(p, rows, scale) },
        _ => raypick_primitives::point_triangle_lower_bounds(p, rows, scale),
    }
}

/// [`solid_angles8`](crate::mesh::solid::solid_angles8) in one AVX2 pass where `cpu` has it
/// (the same f32 operations, without FMA; `sqrt` and division are correctly rounded on
/// every path).
#[inline(always)]
pub(crate) fn solid_angles8(
    cpu: Option<CpuPath>,
    q: [f32; 3],
    rows: &[[f32; 8]; 9],
) -> ([f32; 8], u32) {
    #[target_feature(enable = "avx2")]
    fn avx2(q: [f32; 3], rows: &[[f32; 8]; 9]) -> ([f32; 8], u32) {
        crate::mesh::solid::solid_angles8(q, rows)
    }
    match cpu {
        // SAFETY: a `CpuPath` with `avx2()` is only made when the CPU has AVX2.
        Some(c) if c.avx2() => unsafe { avx2(q, rows) },
        _ => crate::mesh::solid::solid_angles8(q, rows),
    }
}

/// [`held`](crate::mesh::solid::held) on 8 lanes, in one AVX2 pass where `cpu` has it (the
/// same comparisons, so the same mask).
#[inline(always)]
pub(crate) fn held8(cpu: Option<CpuPath>, rows: &[[f32; 8]; 9], p: [f32; 3], margin: f32) -> u32 {
    #[target_feature(enable = "avx2")]
    fn avx2(rows: &[[f32; 8]; 9], p: [f32; 3], margin: f32) -> u32 {
        use v8::{add, and, andnot, bits, ge, gt, le, load, lt, or, splat, sub, V};
        // `if c { a } else { b }` lane by lane.
        let pick = |c: V, a: V, b: V| or(and(c, a), andnot(c, b));
        let m = splat(margin);
        let mut inside = 0xff;
        for a in 0..3 {
            let (x, y, z) = (load(&rows[a]), load(&rows[3 + a]), load(&rows[6 + a]));
            let lo = pick(lt(x, y), x, y);
            let lo = pick(lt(lo, z), lo, z);
            let hi = pick(gt(x, y), x, y);
            let hi = pick(gt(hi, z), hi, z);
            let pa = splat(p[a]);
            inside &= bits(and(ge(pa, sub(lo, m)), le(pa, add(hi, m))));
        }
        inside
    }
    match cpu {
        // SAFETY: a `CpuPath` with `avx2()` is only made when the CPU has AVX2.
        Some(c) if c.avx2() => unsafe { avx2(rows, p, margin) },
        _ => crate::mesh::solid::held(rows, p, margin),
    }
}

/// [`ExpansionLanes::eval_far`](crate::mesh::solid::ExpansionLanes::eval_far) in one AVX2
/// pass where `cpu` has it (the same f32 operations, without FMA).
#[inline(always)]
pub(crate) fn eval_far8(
    cpu: Option<CpuPath>,
    lanes: &crate::mesh::solid::ExpansionLanes,
    q: [f32; 3],
    ratio2: f32,
) -> (u32, f32) {
    #[target_feature(enable = "avx2")]
    fn avx2(lanes: &crate::mesh::solid::ExpansionLanes, q: [f32; 3], ratio2: f32) -> (u32, f32) {
        lanes.eval_far(q, ratio2)
    }
    match cpu {
        // SAFETY: a `CpuPath` with `avx2()` is only made when the CPU has AVX2.
        Some(c) if c.avx2() => unsafe { avx2(lanes, q, ratio2) },
        _ => lanes.eval_far(q, ratio2),
    }
}

/// [`StripLanes::factors`](crate::mesh::solid::strips::StripLanes::factors) in one AVX2
/// pass where `cpu` has it (the same f64 operations, without FMA).
#[inline(always)]
pub(crate) fn strip_factors8(
    cpu: Option<CpuPath>,
    lanes: &crate::mesh::solid::strips::StripLanes,
    q: [f64; 3],
) -> ([f64; 8], [f64; 8], u32) {
    #[target_feature(enable = "avx2")]
    fn avx2(
        lanes: &crate::mesh::solid::strips::StripLanes,
        q: [f64; 3],
    ) -> ([f64; 8], [f64; 8], u32) {
        lanes.factors(q)
    }
    match cpu {
        // SAFETY: a `CpuPath` with `avx2()` is only made when the CPU has AVX2.
        Some(c) if c.avx2() => unsafe { avx2(lanes, q) },
        _ => lanes.factors(q),
    }
}

/// [`misses_scalar`](crate::mesh::ray::reach::misses_scalar) on SSE lanes (x, y, z and a zero
/// lane): the same f32 operations, so the same answer (`reach`'s tests compare them).
#[inline(always)]
pub(crate) fn misses_reach(
    o: [f32; 4],
    d: [f32; 4],
    center: [f32; 4],
    half: [f32; 4],
    ahead: bool,
) -> bool {
    use super::ray::reach::{FLUSH, LARGEST, PAD, SMALLEST};
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline, and no intrinsic here touches memory.
    unsafe {
        let v = |a: [f32; 4]| _mm_set_ps(a[3], a[2], a[1], a[0]);
        // Lanes (y, z, x, -) and (z, x, y, -): each axis's next and previous one.
        let next = |a: __m128| _mm_shuffle_ps::<0b11_00_10_01>(a, a);
        let prev = |a: __m128| _mm_shuffle_ps::<0b11_01_00_10>(a, a);
        // The largest of lanes 0-2, in each of them.
        let max3 = |a: __m128| _mm_max_ps(_mm_max_ps(a, next(a)), prev(a));
        let sign = _mm_set1_ps(-0.0);
        let abs = |a: __m128| _mm_andnot_ps(sign, a);
        let (o, d) = (v(o), v(d));
        let largest = max3(abs(d));
        let far = max3(abs(o));
        let ok = _mm_and_ps(
            _mm_and_ps(
                _mm_cmpge_ps(largest, _mm_set1_ps(SMALLEST)),
                _mm_cmple_ps(largest, _mm_set1_ps(LARGEST)),
            ),
            _mm_cmple_ps(far, _mm_set1_ps(LARGEST)),
        );
        let floor = _mm_mul_ps(largest, _mm_set1_ps(FLUSH));
        let d = _mm_and_ps(d, _mm_cmpge_ps(abs(d), floor));
        let ad = abs(d);
        let w = _mm_sub_ps(o, v(center));
        let h = _mm_add_ps(v(half), _mm_mul_ps(far, _mm_set1_ps(PAD)));
        let away = _mm_and_ps(
            _mm_cmpgt_ps(abs(w), h),
            _mm_cmpge_ps(_mm_mul_ps(w, d), _mm_setzero_ps()),
        );
        let away = _mm_and_ps(away, _mm_castsi128_ps(_mm_set1_epi32(-i32::from(ahead))));
        let cross = abs(_mm_sub_ps(
            _mm_mul_ps(next(w), prev(d)),
            _mm_mul_ps(prev(w), next(d)),
        ));
        let reach = _mm_add_ps(_mm_mul_ps(next(h), prev(ad)), _mm_mul_ps(prev(h), next(ad)));
        let miss = _mm_and_ps(ok, _mm_or_ps(away, _mm_cmpgt_ps(cross, reach)));
        _mm_movemask_ps(miss) & 7 != 0
    }
}
