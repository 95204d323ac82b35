//! Lane vector operations on x86_64: `v4` (SSE, 4 f32 lanes) and `v8` (AVX2, 8 lanes), one
//! thin function per intrinsic, each compiled with its width's target feature, so that the
//! kernels above them (the triangle test in the query crate) are written once per width
//! from the same names.
//!
//! Calling a `v8` function needs AVX2 (a [`CpuPath`](super::CpuPath) with `avx2()` proves
//! it); `v4` needs only SSE, part of the x86_64 baseline.

// One contract for every function, in the module doc above: the width's target feature must be
// available to call it (`load_at` adds its own, documented).
#![allow(missing_docs, clippy::missing_safety_doc)]

/// The lane operations, once per width, each compiled with its width's target feature.
/// Comparisons are ordered: false when either side is NaN.
macro_rules! vec_ops {
    ($m:ident, $feat:literal, $v:ty, $w:literal, $set1:ident, $loadu:ident, $storeu:ident,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $and:ident, $or:ident, $andnot:ident,
     $movemask:ident, $lt:expr, $gt:expr, $le:expr, $ge:expr, $eq:expr) => {
        #[doc = concat!("Lane operations on ", stringify!($w), " f32 lanes (`", $feat, "`).")]
        pub mod $m {
            #[allow(clippy::wildcard_imports)]
            use std::arch::x86_64::*;
            pub type V = $v;
            pub const W: usize = $w;
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn splat(x: f32) -> V {
                $set1(x)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn load(s: &[f32]) -> V {
                let s = &s[..W];
                // SAFETY: `s` holds W f32s (checked by the slice); no alignment needed.
                unsafe { $loadu(s.as_ptr()) }
            }
            /// # Safety
            /// `p .. p + W` must be readable f32s.
            #[target_feature(enable = $feat)]
            #[inline]
            pub unsafe fn load_at(p: *const f32) -> V {
                // SAFETY: the caller's contract; no alignment needed.
                unsafe { $loadu(p) }
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn store(s: &mut [f32], x: V) {
                let s = &mut s[..W];
                // SAFETY: `s` holds W f32s (checked by the slice); no alignment needed.
                unsafe { $storeu(s.as_mut_ptr(), x) }
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn add(a: V, b: V) -> V {
                $add(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn sub(a: V, b: V) -> V {
                $sub(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn mul(a: V, b: V) -> V {
                $mul(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn div(a: V, b: V) -> V {
                $div(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn and(a: V, b: V) -> V {
                $and(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn or(a: V, b: V) -> V {
                $or(a, b)
            }
            /// `!a & b`.
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn andnot(a: V, b: V) -> V {
                $andnot(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn bits(a: V) -> u32 {
                $movemask(a) as u32
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn lt(a: V, b: V) -> V {
                $lt(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn gt(a: V, b: V) -> V {
                $gt(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn le(a: V, b: V) -> V {
                $le(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn ge(a: V, b: V) -> V {
                $ge(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub fn eq(a: V, b: V) -> V {
                $eq(a, b)
            }
        }
    };
}

vec_ops!(
    v4,
    "sse",
    __m128,
    4,
    _mm_set1_ps,
    _mm_loadu_ps,
    _mm_storeu_ps,
    _mm_add_ps,
    _mm_sub_ps,
    _mm_mul_ps,
    _mm_div_ps,
    _mm_and_ps,
    _mm_or_ps,
    _mm_andnot_ps,
    _mm_movemask_ps,
    _mm_cmplt_ps,
    _mm_cmpgt_ps,
    _mm_cmple_ps,
    _mm_cmpge_ps,
    _mm_cmpeq_ps
);
vec_ops!(
    v8,
    "avx2",
    __m256,
    8,
    _mm256_set1_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_mul_ps,
    _mm256_div_ps,
    _mm256_and_ps,
    _mm256_or_ps,
    _mm256_andnot_ps,
    _mm256_movemask_ps,
    _mm256_cmp_ps::<_CMP_LT_OQ>,
    _mm256_cmp_ps::<_CMP_GT_OQ>,
    _mm256_cmp_ps::<_CMP_LE_OQ>,
    _mm256_cmp_ps::<_CMP_GE_OQ>,
    _mm256_cmp_ps::<_CMP_EQ_OQ>
);
