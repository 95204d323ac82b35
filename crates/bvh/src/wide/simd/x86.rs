//! The SIMD node kernels (x86_64 only): SSE for 4 slots (twice for 8), AVX2 for 8 slots.
//!
//! Each kernel performs exactly the scalar kernel's operations, lane by lane and in the same
//! order, so results are bit-identical: `max_ps(x, acc)` is `if x > acc { x } else { acc }`
//! (a NaN `x`, from a ray lying in a face plane, loses, as in the scalar code), `min_ps`
//! likewise, and `cmple` (ordered) is false on NaN.

use std::arch::x86_64::*;

use raypick_primitives::WatertightRay;

use crate::wide::traverse::{run_kernel, Kernel, Mode, RayK, RayVisitor};
use crate::wide::triangle::{BlockHits, LaneMasks};
use crate::wide::{CompactNode8, SimdPath, WideBvh, WideNode};

/// True when the CPU has AVX2 (std caches the detection).
#[inline]
pub(crate) fn avx2_available() -> bool {
    // The compact kernel's plane is one FMA; every AVX2 CPU has it, but check.
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// Four slots `off .. off + 4` of `node` with SSE (baseline on x86_64); writes their entry
/// distances to `dist[off..off + 4]` and returns their hit mask (bits 0..4).
#[target_feature(enable = "sse")]
#[inline]
fn sse_lanes<const N: usize, const PAD_NEG: bool>(
    node: &WideNode<N>,
    off: usize,
    r: &RayK,
    t_min: f32,
    t_max: f32,
    dist: &mut [f32; N],
) -> u32 {
    let b = &node.bounds;
    let mut near = _mm_set1_ps(t_min);
    let mut far = _mm_set1_ps(t_max);
    for a in 0..3 {
        let o = _mm_set1_ps(r.o[a]);
        let inv = _mm_set1_ps(r.inv[a]);
        let np = &b[r.near_row(a)][off..off + 4];
        let fp = &b[r.far_row(a)][off..off + 4];
        // SAFETY: both slices hold 4 f32s; `loadu` has no alignment requirement.
        let (np, fp) = unsafe { (_mm_loadu_ps(np.as_ptr()), _mm_loadu_ps(fp.as_ptr())) };
        let tn = _mm_mul_ps(_mm_sub_ps(np, o), inv);
        // The exit padding is folded into the inverse (see `RayK::inv_up`).
        let d = _mm_sub_ps(fp, o);
        let up = _mm_mul_ps(d, _mm_set1_ps(r.inv_up[a]));
        let tf = if PAD_NEG {
            _mm_max_ps(up, _mm_mul_ps(d, _mm_set1_ps(r.inv_down[a])))
        } else {
            up
        };
        near = _mm_max_ps(tn, near);
        far = _mm_min_ps(tf, far);
    }
    let out = &mut dist[off..off + 4];
    // SAFETY: `out` holds 4 f32s; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), near) };
    _mm_movemask_ps(_mm_cmple_ps(near, far)) as u32
}

/// Four slots `off .. off + 4` of a compact node with SSE2: each plane is dequantized as
/// the scalar `origin + q * step` (bytes widened to i32 and converted: exact; the product is
/// exact, so multiply-then-add rounds once, as the scalar code), then tested as
/// [`sse_lanes`] does.
#[target_feature(enable = "sse2")]
#[inline]
fn sse_lanes_compact<const PAD_NEG: bool>(
    node: &CompactNode8,
    off: usize,
    r: &RayK,
    t_min: f32,
    t_max: f32,
    dist: &mut [f32; 8],
) -> u32 {
    let zero = _mm_setzero_si128();
    let plane = |row: &[u8; 8], a: usize| {
        let mut bytes = [0u8; 4];
        bytes.copy_from_slice(&row[off & 4..(off & 4) + 4]);
        let v = _mm_cvtsi32_si128(i32::from_le_bytes(bytes));
        let v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(v, zero), zero);
        let q = _mm_cvtepi32_ps(v);
        _mm_add_ps(
            _mm_set1_ps(node.origin[a]),
            _mm_mul_ps(q, _mm_set1_ps(node.step[a])),
        )
    };
    let mut near = _mm_set1_ps(t_min);
    let mut far = _mm_set1_ps(t_max);
    for a in 0..3 {
        let o = _mm_set1_ps(r.o[a]);
        let inv = _mm_set1_ps(r.inv[a]);
        let np = plane(&node.q[r.near_row(a)], a);
        let fp = plane(&node.q[r.far_row(a)], a);
        let tn = _mm_mul_ps(_mm_sub_ps(np, o), inv);
        let d = _mm_sub_ps(fp, o);
        let up = _mm_mul_ps(d, _mm_set1_ps(r.inv_up[a]));
        let tf = if PAD_NEG {
            _mm_max_ps(up, _mm_mul_ps(d, _mm_set1_ps(r.inv_down[a])))
        } else {
            up
        };
        near = _mm_max_ps(tn, near);
        far = _mm_min_ps(tf, far);
    }
    let out = &mut dist[off & 4..(off & 4) + 4];
    // SAFETY: `out` holds 4 f32s; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), near) };
    _mm_movemask_ps(_mm_cmple_ps(near, far)) as u32
}

/// The SSE kernel.
#[derive(Clone, Copy, Debug)]
struct Sse;

impl Kernel<8, CompactNode8> for Sse {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &CompactNode8,
        r: &RayK,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        let mut dist = [0.0; 8];
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let lo = unsafe { sse_lanes_compact::<PAD_NEG>(node, 0, r, t_min, t_max, &mut dist) };
        // SAFETY: as above.
        let hi = unsafe { sse_lanes_compact::<PAD_NEG>(node, 4, r, t_min, t_max, &mut dist) };
        ((lo | (hi << 4)) & node.used, dist)
    }
}

impl Kernel<4> for Sse {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &WideNode<4>,
        r: &RayK,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 4]) {
        let mut dist = [0.0; 4];
        // SAFETY: SSE is part of the x86_64 baseline.
        let m = unsafe { sse_lanes::<4, PAD_NEG>(node, 0, r, t_min, t_max, &mut dist) };
        (m, dist)
    }
}

impl Kernel<8> for Sse {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &WideNode<8>,
        r: &RayK,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        let mut dist = [0.0; 8];
        // SAFETY: SSE is part of the x86_64 baseline.
        let lo = unsafe { sse_lanes::<8, PAD_NEG>(node, 0, r, t_min, t_max, &mut dist) };
        // SAFETY: as above.
        let hi = unsafe { sse_lanes::<8, PAD_NEG>(node, 4, r, t_min, t_max, &mut dist) };
        (lo | (hi << 4), dist)
    }
}

/// Eight slots with AVX (256-bit float ops).
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_test8<const PAD_NEG: bool>(
    node: &WideNode<8>,
    r: &RayK,
    t_min: f32,
    t_max: f32,
) -> (u32, [f32; 8]) {
    let b = &node.bounds;
    let mut near = _mm256_set1_ps(t_min);
    let mut far = _mm256_set1_ps(t_max);
    for a in 0..3 {
        let o = _mm256_set1_ps(r.o[a]);
        let inv = _mm256_set1_ps(r.inv[a]);
        let np: &[f32; 8] = &b[r.near_row(a)];
        let fp: &[f32; 8] = &b[r.far_row(a)];
        // SAFETY: both rows hold 8 f32s; `loadu` has no alignment requirement.
        let (np, fp) = unsafe { (_mm256_loadu_ps(np.as_ptr()), _mm256_loadu_ps(fp.as_ptr())) };
        let tn = _mm256_mul_ps(_mm256_sub_ps(np, o), inv);
        // The exit padding is folded into the inverse (see `RayK::inv_up`).
        let d = _mm256_sub_ps(fp, o);
        let up = _mm256_mul_ps(d, _mm256_set1_ps(r.inv_up[a]));
        let tf = if PAD_NEG {
            _mm256_max_ps(up, _mm256_mul_ps(d, _mm256_set1_ps(r.inv_down[a])))
        } else {
            up
        };
        near = _mm256_max_ps(tn, near);
        far = _mm256_min_ps(tf, far);
    }
    let mut dist = [0.0f32; 8];
    // SAFETY: `dist` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dist.as_mut_ptr(), near) };
    let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
    (m, dist)
}

/// Eight slots of a compact node with AVX2 and FMA: each plane is dequantized in one FMA,
/// `origin + q * step` rounded once (the product is exact, so this is the scalar
/// multiply-then-add bit for bit), then tested as [`avx2_test8`] does.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn avx2_test8_compact<const PAD_NEG: bool>(
    node: &CompactNode8,
    r: &RayK,
    t_min: f32,
    t_max: f32,
) -> (u32, [f32; 8]) {
    let plane = |row: &[u8; 8], a: usize| {
        let q = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_set1_epi64x(i64::from_le_bytes(
            *row,
        ))));
        _mm256_fmadd_ps(
            q,
            _mm256_set1_ps(node.step[a]),
            _mm256_set1_ps(node.origin[a]),
        )
    };
    let mut near = _mm256_set1_ps(t_min);
    let mut far = _mm256_set1_ps(t_max);
    for a in 0..3 {
        let o = _mm256_set1_ps(r.o[a]);
        let inv = _mm256_set1_ps(r.inv[a]);
        let np = plane(&node.q[r.near_row(a)], a);
        let fp = plane(&node.q[r.far_row(a)], a);
        let tn = _mm256_mul_ps(_mm256_sub_ps(np, o), inv);
        let d = _mm256_sub_ps(fp, o);
        let up = _mm256_mul_ps(d, _mm256_set1_ps(r.inv_up[a]));
        let tf = if PAD_NEG {
            _mm256_max_ps(up, _mm256_mul_ps(d, _mm256_set1_ps(r.inv_down[a])))
        } else {
            up
        };
        near = _mm256_max_ps(tn, near);
        far = _mm256_min_ps(tf, far);
    }
    let mut dist = [0.0f32; 8];
    // SAFETY: `dist` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dist.as_mut_ptr(), near) };
    let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
    (m & node.used, dist)
}

/// [`Kernel::ranks`] for 8 slots with AVX2, every slot at once: for each slot `j` in turn,
/// the slots `i` it counts against (`dist[j] > dist[i]`, or equal with `j < i`) add one. The
/// slots not in `mask` get a NaN distance first, which no comparison counts: 8 steps of 5
/// instructions, no branch.
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_ranks(dist: &[f32; 8], mask: u32) -> [u32; 8] {
    // SAFETY: `dist` holds 8 f32s; `loadu` has no alignment requirement.
    let d = unsafe { _mm256_loadu_ps(dist.as_ptr()) };
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let entered = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(mask as i32), bit), bit);
    let d = _mm256_blendv_ps(_mm256_set1_ps(f32::NAN), d, _mm256_castsi256_ps(entered));
    let mut dm = [0.0f32; 8];
    // SAFETY: `dm` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dm.as_mut_ptr(), d) };
    let mut acc = _mm256_setzero_si256();
    for (j, &dj) in dm.iter().enumerate() {
        let dj = _mm256_set1_ps(dj);
        let farther = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(dj, d));
        let tie = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_EQ_OQ>(dj, d));
        let before = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(j as i32));
        let counted = _mm256_or_si256(farther, _mm256_and_si256(tie, before));
        // `counted` lanes are -1: subtracting adds one.
        acc = _mm256_sub_epi32(acc, counted);
    }
    let mut out = [0u32; 8];
    // SAFETY: `out` holds 8 u32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), acc) };
    out
}

/// The AVX2 kernel. A value exists only inside [`run8_avx2`] and [`run8c_avx2`], which run
/// only after AVX2 and FMA were detected.
#[derive(Clone, Copy, Debug)]
struct Avx2(());

impl Kernel<8> for Avx2 {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &WideNode<8>,
        r: &RayK,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_test8::<PAD_NEG>(node, r, t_min, t_max) }
    }

    #[inline(always)]
    fn ranks(self, dist: &[f32; 8], mask: u32) -> [u32; 8] {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_ranks(dist, mask) }
    }
}

impl Kernel<8, CompactNode8> for Avx2 {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &CompactNode8,
        r: &RayK,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 and FMA (see the type's doc).
        unsafe { avx2_test8_compact::<PAD_NEG>(node, r, t_min, t_max) }
    }

    #[inline(always)]
    fn ranks(self, dist: &[f32; 8], mask: u32) -> [u32; 8] {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_ranks(dist, mask) }
    }
}

/// The traversal loop on the SSE kernel for `$n`-wide trees, kept out of line so that the
/// dispatch in `run4` and `run8` inlines into the caller without the loop's large frame.
macro_rules! run_sse {
    ($name:ident, $n:literal, $layout:ty) => {
        #[inline(never)]
        fn $name<F>(nodes: &[$layout], r: &RayK, t_min: f32, t_max: f32, mode: Mode, leaf: &mut F)
        where
            F: RayVisitor,
        {
            run_kernel!($n, Sse, nodes, r, t_min, t_max, mode, leaf)
        }
    };
}

run_sse!(run4_sse, 4, WideNode<4>);
run_sse!(run8_sse, 8, WideNode<8>);
run_sse!(run8c_sse, 8, CompactNode8);

/// Traverses a 4-wide tree with SSE when `simd` proves a SIMD path (for `Avx2` too). Returns
/// false, having done nothing, for `None` (the scalar path, or an unavailable `Avx2`): the
/// caller then runs the scalar loop.
#[inline(always)]
pub(crate) fn run4<F>(
    simd: Option<CpuPath>,
    bvh: &WideBvh<4>,
    r: &RayK,
    t_min: f32,
    t_max: f32,
    mode: Mode,
    leaf: &mut F,
) -> bool
where
    F: RayVisitor,
{
    if simd.is_none() {
        return false;
    }
    run4_sse(&bvh.nodes, r, t_min, t_max, mode, leaf);
    true
}

/// An 8-wide traversal entry for one node layout: `$avx2`, the loop compiled with
/// `$feat` enabled so the kernel inlines into it, and `$name`, which runs it or the SSE loop
/// `$sse` as `simd` proves, and returns false, having done nothing, for `None` (see
/// [`run4`]).
macro_rules! run8_entry {
    ($name:ident, $avx2:ident, $sse:ident, $layout:ty, $feat:literal, $what:literal) => {
        #[doc = concat!("The traversal loop over ", $what, " compiled with `", $feat, "` enabled.")]
        #[target_feature(enable = $feat)]
        fn $avx2<F>(nodes: &[$layout], r: &RayK, t_min: f32, t_max: f32, mode: Mode, leaf: &mut F)
        where
            F: RayVisitor,
        {
            run_kernel!(8, Avx2(()), nodes, r, t_min, t_max, mode, leaf)
        }

        #[doc = concat!("Traverses an 8-wide tree of ", $what, " with AVX2 or SSE as `simd` proves.")]
        #[inline(always)]
        pub(crate) fn $name<F>(
            simd: Option<CpuPath>,
            bvh: &WideBvh<8, $layout>,
            r: &RayK,
            t_min: f32,
            t_max: f32,
            mode: Mode,
            leaf: &mut F,
        ) -> bool
        where
            F: RayVisitor,
        {
            match simd {
                // SAFETY: a `CpuPath` with `avx2` set is made only when the CPU has AVX2 and
                // FMA (`avx2_available`), which covers `$feat`.
                Some(CpuPath { avx2: true }) => unsafe {
                    $avx2(&bvh.nodes, r, t_min, t_max, mode, leaf);
                },
                Some(CpuPath { avx2: false }) => $sse(&bvh.nodes, r, t_min, t_max, mode, leaf),
                None => return false,
            }
            true
        }
    };
}

run8_entry!(
    run8,
    run8_avx2,
    run8_sse,
    WideNode<8>,
    "avx2",
    "plain nodes"
);
run8_entry!(
    run8c,
    run8c_avx2,
    run8c_sse,
    CompactNode8,
    "avx2,fma",
    "compact nodes"
);

/// Rays in flight in an interleaved traversal.
const STREAM: usize = 8;

/// The interleaved traversal (`wide::stream`) over one node layout, compiled with AVX2, and
/// its dispatch: false when `simd` is not AVX2 (the caller then runs the rays one by one).
macro_rules! stream8_entry {
    ($name:ident, $avx2:ident, $layout:ty, $feat:literal) => {
        #[target_feature(enable = $feat)]
        fn $avx2<V, S, D>(
            nodes: &[$layout],
            t_min: f32,
            t_max: f32,
            mode: Mode,
            next: &mut S,
            done: &mut D,
        ) where
            V: crate::wide::StreamRay,
            S: FnMut() -> Option<V>,
            D: FnMut(V),
        {
            use crate::wide::stream::stream_with_kernel;
            use crate::wide::traverse::stack_cap;
            const CAP: usize = stack_cap(8, crate::MAX_DEPTH);
            let k = Avx2(());
            match (mode.pad_neg, mode.ordered) {
                (true, true) => stream_with_kernel::<8, CAP, true, true, STREAM, _, _, _, _, _>(
                    k, nodes, t_min, t_max, next, done,
                ),
                (false, true) => stream_with_kernel::<8, CAP, false, true, STREAM, _, _, _, _, _>(
                    k, nodes, t_min, t_max, next, done,
                ),
                (true, false) => stream_with_kernel::<8, CAP, true, false, STREAM, _, _, _, _, _>(
                    k, nodes, t_min, t_max, next, done,
                ),
                (false, false) => {
                    stream_with_kernel::<8, CAP, false, false, STREAM, _, _, _, _, _>(
                        k, nodes, t_min, t_max, next, done,
                    )
                }
            }
        }

        #[inline(always)]
        pub(crate) fn $name<V, S, D>(
            simd: Option<CpuPath>,
            nodes: &[$layout],
            t_min: f32,
            t_max: f32,
            mode: Mode,
            next: &mut S,
            done: &mut D,
        ) -> bool
        where
            V: crate::wide::StreamRay,
            S: FnMut() -> Option<V>,
            D: FnMut(V),
        {
            match simd {
                // SAFETY: a `CpuPath` with `avx2` set is made only when the CPU has AVX2 and
                // FMA (`avx2_available`), which covers `$feat`.
                Some(CpuPath { avx2: true }) => unsafe {
                    $avx2(nodes, t_min, t_max, mode, next, done);
                    true
                },
                _ => false,
            }
        }
    };
}

stream8_entry!(stream8, stream8_avx2, WideNode<8>, "avx2");
stream8_entry!(stream8c, stream8c_avx2, CompactNode8, "avx2,fma");

/// The vector operations the triangle kernel needs, once per width, each compiled with its
/// width's target feature. Comparisons are ordered: false when either side is NaN.
macro_rules! vec_ops {
    ($m:ident, $feat:literal, $v:ty, $w:literal, $set1:ident, $loadu:ident, $storeu:ident,
     $add:ident, $sub:ident, $mul:ident, $div:ident, $and:ident, $or:ident, $andnot:ident,
     $movemask:ident, $lt:expr, $gt:expr, $le:expr, $ge:expr, $eq:expr) => {
        // A full set per width, whichever kernels use it.
        #[allow(dead_code)]
        mod $m {
            #[allow(clippy::wildcard_imports)]
            use std::arch::x86_64::*;
            pub(super) type V = $v;
            pub(super) const W: usize = $w;
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn splat(x: f32) -> V {
                $set1(x)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn load(s: &[f32]) -> V {
                let s = &s[..W];
                // SAFETY: `s` holds W f32s (checked by the slice); no alignment needed.
                unsafe { $loadu(s.as_ptr()) }
            }
            /// # Safety
            /// `p .. p + W` must be readable f32s.
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) unsafe fn load_at(p: *const f32) -> V {
                // SAFETY: the caller's contract; no alignment needed.
                unsafe { $loadu(p) }
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn store(s: &mut [f32], x: V) {
                let s = &mut s[..W];
                // SAFETY: `s` holds W f32s (checked by the slice); no alignment needed.
                unsafe { $storeu(s.as_mut_ptr(), x) }
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn add(a: V, b: V) -> V {
                $add(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn sub(a: V, b: V) -> V {
                $sub(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn mul(a: V, b: V) -> V {
                $mul(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn div(a: V, b: V) -> V {
                $div(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn and(a: V, b: V) -> V {
                $and(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn or(a: V, b: V) -> V {
                $or(a, b)
            }
            /// `!a & b`.
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn andnot(a: V, b: V) -> V {
                $andnot(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn bits(a: V) -> u32 {
                $movemask(a) as u32
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn lt(a: V, b: V) -> V {
                $lt(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn gt(a: V, b: V) -> V {
                $gt(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn le(a: V, b: V) -> V {
                $le(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn ge(a: V, b: V) -> V {
                $ge(a, b)
            }
            #[target_feature(enable = $feat)]
            #[inline]
            pub(super) fn eq(a: V, b: V) -> V {
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
/// `(kx, ky, kz)`, as in [`WatertightRay::intersect`]. `None` when no lane of `used` can hit
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
            let (tmin, tmax) = (splat(t_min), splat(t_max));
            let (lo, hi) = (mul(tmin, det), mul(tmax, det));
            let in_pos = and(front, and(ge(ts, lo), le(ts, hi)));
            let in_neg = and(lt(det, zero), and(le(ts, lo), ge(ts, hi)));
            let inv = div(splat(1.0), det);
            let t = mul(ts, inv);
            let recheck = and(ge(t, tmin), le(t, tmax));
            let ok = andnot(mixed, and(or(in_pos, in_neg), recheck));
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

/// The watertight triangle kernel on `W` SoA lanes from `off`. Writes the lanes' candidate
/// mask, front mask, `t`, `u`, `v` into `out` and returns the mask of lanes with an edge
/// function exactly zero (which the caller must decide with the scalar test).
macro_rules! tri_kernel {
    ($name:ident, $core:ident, $m:ident, $feat:literal) => {
        #[target_feature(enable = $feat)]
        #[inline]
        fn $name<const N: usize>(
            v: &[[[f32; N]; 3]; 3],
            off: usize,
            r: &WatertightRay,
            t_min: f32,
            t_max: f32,
            out: &mut BlockHits<N>,
        ) -> u32 {
            use $m::*;
            let [kx, ky, kz] = r.k;
            let o = r.origin;
            // Corner `c` minus the origin, on axis `a`.
            let rel = [splat(o[0]), splat(o[1]), splat(o[2])];
            let corner = |c: usize| -> [V; 3] {
                [
                    sub(load(&v[c][kx][off..]), rel[kx]),
                    sub(load(&v[c][ky][off..]), rel[ky]),
                    sub(load(&v[c][kz][off..]), rel[kz]),
                ]
            };
            let Some(l) = $core([corner(0), corner(1), corner(2)], r, t_min, t_max, u32::MAX)
            else {
                return 0;
            };
            store(&mut out.t[off..], l.t);
            store(&mut out.u[off..], l.u);
            store(&mut out.v[off..], l.v);
            out.mask |= l.ok << off;
            out.front |= l.front << off;
            l.zero << off
        }
    };
}

tri_kernel!(tri_sse, core_sse, v4, "sse");
tri_kernel!(tri_avx2, core_avx2, v8, "avx2");

/// Runs the triangle kernel over all `N` lanes of a block (`N` a multiple of 4) on `path`;
/// returns the lanes the scalar test must decide (see `tri_kernel`).
pub(crate) fn triangles<const N: usize>(
    path: SimdPath,
    v: &[[[f32; N]; 3]; 3],
    r: &WatertightRay,
    t_min: f32,
    t_max: f32,
    out: &mut BlockHits<N>,
) -> u32 {
    if N == 8 && path == SimdPath::Avx2 && avx2_available() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { tri_avx2(v, 0, r, t_min, t_max, out) };
    }
    let mut zero = 0;
    for off in (0..N).step_by(4) {
        // SAFETY: SSE is part of the x86_64 baseline.
        zero |= unsafe { tri_sse(v, off, r, t_min, t_max, out) };
    }
    zero
}

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
            out: &mut BlockHits<8>,
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
pub(crate) fn run_rows(
    path: CpuPath,
    rows: &[f32],
    n: usize,
    r: &WatertightRay,
    t_min: f32,
    t_max: f32,
    out: &mut BlockHits<8>,
) -> LaneMasks {
    assert!((1..=8).contains(&n) && rows.len() >= 8 * n + 8);
    let p = rows.as_ptr();
    // SAFETY: an `CpuPath` proves its target feature (see `CpuPath::new`); `rows` holds
    // `8 * n + 8` floats (asserted) and each kernel's lanes end at 8.
    unsafe {
        match (path.avx2, n > 4) {
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

/// `compact::quantize_row` on SSE2 (baseline on x86_64), four lanes at a time with the
/// same f32 operations in the same order, so the bytes are the scalar ones: the estimate
/// `trunc(clamp((v - origin) * inv, 0, 255))` (rounded up for a max row), two corrections
/// against the dequantized plane `origin + q * step`, then the final check. `None` when that
/// check still finds a lane off (the scalar loop then walks it; it never happens in
/// practice). Measured: about 1/20 of the scalar row's instructions, which the compiler
/// does not vectorize.
#[inline]
pub(crate) fn quantize_row_sse2<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> Option<[u8; 8]> {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { quantize_row_sse2_in::<DOWN>(origin, step, inv, v) }
}

#[target_feature(enable = "sse2")]
#[inline]
fn quantize_row_sse2_in<const DOWN: bool>(
    origin: f32,
    step: f32,
    inv: f32,
    v: &[f32; 8],
) -> Option<[u8; 8]> {
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

/// A SIMD path that this CPU has: holding one proves the target feature, so [`run_rows`] (the
/// triangle kernel) is safe to call, and [`run4`] / [`run8`] run its traversal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CpuPath {
    avx2: bool,
}

impl CpuPath {
    /// `Sse`, or `Avx2` when the CPU has it; `None` for `Scalar` and an unavailable `Avx2`.
    #[inline]
    pub(crate) fn new(path: SimdPath) -> Option<Self> {
        match path {
            SimdPath::Scalar => None,
            SimdPath::Sse => Some(Self { avx2: false }),
            SimdPath::Avx2 => avx2_available().then_some(Self { avx2: true }),
        }
    }

    /// [`CpuPath::new`] for a path that [`SimdPath::best`] returned, without detecting again:
    /// `best` only ever returns an available path (`decide_best` keeps those only).
    #[inline]
    pub(crate) fn of_best(best: SimdPath) -> Option<Self> {
        match best {
            SimdPath::Scalar => None,
            SimdPath::Sse => Some(Self { avx2: false }),
            SimdPath::Avx2 => Some(Self { avx2: true }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{avx2_available, avx2_ranks};
    use crate::wide::traverse::scalar_ranks;
    use crate::wide::traverse::tests::rank_cases;

    #[test]
    fn avx2_ranks_match_the_scalar_ranks() {
        if !avx2_available() {
            return;
        }
        for (dist, mask) in rank_cases(0x2545_f491_4f6c_dd1d, 20_000) {
            // SAFETY: AVX2 was detected above.
            let got = unsafe { avx2_ranks(&dist, mask) };
            let want = scalar_ranks(&dist, mask);
            for i in (0..8).filter(|i| mask >> i & 1 != 0) {
                assert_eq!(got[i], want[i], "slot {i}: {dist:?} {mask:#b}");
            }
        }
    }
}
