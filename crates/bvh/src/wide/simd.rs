//! The SIMD node kernels (x86_64 only): SSE for 4 slots (twice for 8), AVX2 for 8 slots.
//! The only `unsafe` of the wide module lives here.
//!
//! Each kernel performs exactly the scalar kernel's operations, lane by lane and in the same
//! order, so results are bit-identical: `max_ps(x, acc)` is `if x > acc { x } else { acc }`
//! (a NaN `x`, from a ray lying in a face plane, loses, as in the scalar code), `min_ps`
//! likewise, and `cmple` (ordered) is false on NaN.

use std::arch::x86_64::*;
use std::ops::{ControlFlow, Range};

use raypick_primitives::ray_aabb::ROBUST_EXIT_SCALE;
use raypick_primitives::Real;

use super::traverse::{run_kernel, Kernel, RayK, INV_EXIT_SCALE};
use super::{SimdPath, WideBvh, WideNode};

/// True when the CPU has AVX2 (std caches the detection).
pub(crate) fn avx2_available() -> bool {
    is_x86_feature_detected!("avx2")
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
    let scale = _mm_set1_ps(ROBUST_EXIT_SCALE);
    for a in 0..3 {
        let o = _mm_set1_ps(r.o[a]);
        let inv = _mm_set1_ps(r.inv[a]);
        let np = &b[r.near[a]][off..off + 4];
        let fp = &b[r.far[a]][off..off + 4];
        // SAFETY: both slices hold 4 f32s; `loadu` has no alignment requirement.
        let (np, fp) = unsafe { (_mm_loadu_ps(np.as_ptr()), _mm_loadu_ps(fp.as_ptr())) };
        let tn = _mm_mul_ps(_mm_sub_ps(np, o), inv);
        let tf = _mm_mul_ps(_mm_sub_ps(fp, o), inv);
        let up = _mm_mul_ps(tf, scale);
        let tf = if PAD_NEG {
            _mm_max_ps(up, _mm_mul_ps(tf, _mm_set1_ps(INV_EXIT_SCALE)))
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

/// The SSE kernel.
#[derive(Clone, Copy, Debug)]
struct Sse;

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
    let scale = _mm256_set1_ps(ROBUST_EXIT_SCALE);
    for a in 0..3 {
        let o = _mm256_set1_ps(r.o[a]);
        let inv = _mm256_set1_ps(r.inv[a]);
        let np: &[f32; 8] = &b[r.near[a]];
        let fp: &[f32; 8] = &b[r.far[a]];
        // SAFETY: both rows hold 8 f32s; `loadu` has no alignment requirement.
        let (np, fp) = unsafe { (_mm256_loadu_ps(np.as_ptr()), _mm256_loadu_ps(fp.as_ptr())) };
        let tn = _mm256_mul_ps(_mm256_sub_ps(np, o), inv);
        let tf = _mm256_mul_ps(_mm256_sub_ps(fp, o), inv);
        let up = _mm256_mul_ps(tf, scale);
        let tf = if PAD_NEG {
            _mm256_max_ps(up, _mm256_mul_ps(tf, _mm256_set1_ps(INV_EXIT_SCALE)))
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

/// The AVX2 kernel. A value exists only inside [`run8_avx2`], which runs only after AVX2
/// was detected.
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
}

/// The traversal loop compiled with AVX2 enabled, so the kernel inlines into it.
#[target_feature(enable = "avx2")]
fn run8_avx2<F>(
    depth: usize,
    nodes: &[WideNode<8>],
    r: &RayK,
    t_min: f32,
    t_max: f32,
    pad_neg: bool,
    leaf: &mut F,
) where
    F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
{
    run_kernel!(8, Avx2(()), depth, nodes, r, t_min, t_max, pad_neg, leaf)
}

/// Traverses a 4-wide tree with SSE (also for `SimdPath::Avx2`).
pub(crate) fn run4<F>(
    _path: SimdPath,
    bvh: &WideBvh<4>,
    r: &RayK,
    t_min: f32,
    t_max: f32,
    pad_neg: bool,
    leaf: &mut F,
) where
    F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
{
    run_kernel!(
        4,
        Sse,
        bvh.depth,
        &bvh.nodes[..],
        r,
        t_min,
        t_max,
        pad_neg,
        leaf
    )
}

/// Traverses an 8-wide tree with AVX2 when asked for and available, else SSE.
pub(crate) fn run8<F>(
    path: SimdPath,
    bvh: &WideBvh<8>,
    r: &RayK,
    t_min: f32,
    t_max: f32,
    pad_neg: bool,
    leaf: &mut F,
) where
    F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
{
    if path == SimdPath::Avx2 && avx2_available() {
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { run8_avx2(bvh.depth, &bvh.nodes, r, t_min, t_max, pad_neg, leaf) }
    } else {
        run_kernel!(
            8,
            Sse,
            bvh.depth,
            &bvh.nodes[..],
            r,
            t_min,
            t_max,
            pad_neg,
            leaf
        )
    }
}
