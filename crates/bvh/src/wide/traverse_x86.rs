//! The x86_64 entry points of the ray traversals: the single-ray loop and the interleaved
//! stream, generic over the node layout ([`SimdNode`]), compiled with the SIMD node tests of
//! `slab_x86` inlined, and the dispatch on the [`CpuPath`] a caller holds.

use raypick_primitives::simd::CpuPath;

use super::slab_x86::{Avx2, Sse};
use super::stream::stream_with_kernel;
use super::traverse::{run8_loop, stack_cap, Mode, RayVisitor};
use super::StreamRay;
use crate::BoxRay;

pub use super::slab_x86::SimdNode;

/// The traversal loop on the SSE kernel, kept out of line so that the dispatch in [`run8`]
/// inlines into the caller without the loop's large frame.
#[inline(never)]
fn run8_sse<L: SimdNode, F: RayVisitor>(
    nodes: &[L],
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
    mode: Mode,
    leaf: &mut F,
) {
    run8_loop(Sse, nodes, r, t_min, t_max, mode, leaf);
}

/// The single-ray and stream entry points on the AVX2 kernels, compiled with the target
/// features `$feat` so that the kernels inline into them.
macro_rules! entry_points {
    ($run:ident, $stream:ident, $feat:literal, $what:literal) => {
        #[doc = concat!("The traversal loop compiled with ", $what, ".")]
        #[target_feature(enable = $feat)]
        fn $run<L: SimdNode, F: RayVisitor>(
            nodes: &[L],
            r: &BoxRay,
            t_min: f32,
            t_max: f32,
            mode: Mode,
            leaf: &mut F,
        ) {
            run8_loop(Avx2(()), nodes, r, t_min, t_max, mode, leaf);
        }

        #[doc = concat!("[`stream8_loop`] compiled with ", $what, ".")]
        #[target_feature(enable = $feat)]
        fn $stream<L, V, S, D>(
            nodes: &[L],
            t_min: f32,
            t_max: f32,
            mode: Mode,
            next: &mut S,
            done: &mut D,
        ) where
            L: SimdNode,
            V: StreamRay,
            S: FnMut() -> Option<V>,
            D: FnMut(V),
        {
            stream8_loop(nodes, t_min, t_max, mode, next, done);
        }
    };
}

entry_points!(run8_avx2, stream8_avx2, "avx2,fma", "AVX2 and FMA enabled");
entry_points!(
    run8_avx512,
    stream8_avx512,
    "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq",
    "AVX-512 F, VL, BW and DQ enabled (`SimdPath::Avx512`: the same operations, with 32 \
     vector registers and mask compares)"
);

/// Traverses an 8-wide tree with AVX-512, AVX2 or SSE as `simd` proves; returns false,
/// having done nothing, for `None` (the caller then runs the scalar loop).
#[inline(always)]
pub(crate) fn run8<L: SimdNode, F: RayVisitor>(
    simd: Option<CpuPath>,
    nodes: &[L],
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
    mode: Mode,
    leaf: &mut F,
) -> bool {
    match simd {
        // SAFETY: a `CpuPath` with `avx512` set is made only when the CPU has AVX2, FMA and
        // the four AVX-512 subsets (`avx512_available`).
        Some(cpu) if cpu.avx512() => unsafe { run8_avx512(nodes, r, t_min, t_max, mode, leaf) },
        // SAFETY: a `CpuPath` with `avx2` set is made only when the CPU has AVX2 and FMA
        // (`avx2_available`).
        Some(cpu) if cpu.avx2() => unsafe { run8_avx2(nodes, r, t_min, t_max, mode, leaf) },
        Some(_) => run8_sse(nodes, r, t_min, t_max, mode, leaf),
        None => return false,
    }
    true
}

/// Rays in flight in an interleaved traversal.
const STREAM: usize = 8;

/// The interleaved traversal (`wide::stream`) on the AVX2 kernel in the [`Mode`] the query
/// needs; `#[inline(always)]` so that it compiles inside each entry point below with that
/// entry point's target features.
#[inline(always)]
fn stream8_loop<L, V, S, D>(
    nodes: &[L],
    t_min: f32,
    t_max: f32,
    mode: Mode,
    next: &mut S,
    done: &mut D,
) where
    L: SimdNode,
    V: StreamRay,
    S: FnMut() -> Option<V>,
    D: FnMut(V),
{
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
        (false, false) => stream_with_kernel::<8, CAP, false, false, STREAM, _, _, _, _, _>(
            k, nodes, t_min, t_max, next, done,
        ),
    }
}

/// Runs the interleaved traversal when `simd` is AVX2 or AVX-512; false, having done
/// nothing, otherwise (the caller then runs the rays one by one).
#[inline(always)]
pub(crate) fn stream8<L, V, S, D>(
    simd: Option<CpuPath>,
    nodes: &[L],
    t_min: f32,
    t_max: f32,
    mode: Mode,
    next: &mut S,
    done: &mut D,
) -> bool
where
    L: SimdNode,
    V: StreamRay,
    S: FnMut() -> Option<V>,
    D: FnMut(V),
{
    match simd {
        // A `CpuPath` with `avx512` set is made only when the CPU has AVX2, FMA and the four
        // AVX-512 subsets (`avx512_available`).
        Some(cpu) if cpu.avx512() => {
            // SAFETY: as above.
            unsafe { stream8_avx512(nodes, t_min, t_max, mode, next, done) };
            true
        }
        // A `CpuPath` with `avx2` set is made only when the CPU has AVX2 and FMA
        // (`avx2_available`).
        Some(cpu) if cpu.avx2() => {
            // SAFETY: as above.
            unsafe { stream8_avx2(nodes, t_min, t_max, mode, next, done) };
            true
        }
        _ => false,
    }
}
