//! The x86_64 entry points of the ray traversals: the single-ray loop and the interleaved
//! stream compiled once per node layout with the SIMD node tests of `slab_x86` inlined, and
//! the dispatch on the [`CpuPath`] a caller holds.

use raypick_primitives::simd::CpuPath;

use super::slab_x86::{Avx2, Sse};
use super::traverse::{run_kernel, Mode, RayVisitor};
use super::{CompactNode8, WideBvh, WideNode};
use crate::BoxRay;

/// The traversal loop on the SSE kernel for `$n`-wide trees, kept out of line so that the
/// dispatch in `run8` and `run8c` inlines into the caller without the loop's large frame.
macro_rules! run_sse {
    ($name:ident, $n:literal, $layout:ty) => {
        #[inline(never)]
        fn $name<F>(nodes: &[$layout], r: &BoxRay, t_min: f32, t_max: f32, mode: Mode, leaf: &mut F)
        where
            F: RayVisitor,
        {
            run_kernel!($n, Sse, nodes, r, t_min, t_max, mode, leaf)
        }
    };
}

run_sse!(run8_sse, 8, WideNode<8>);
run_sse!(run8c_sse, 8, CompactNode8);

/// An 8-wide traversal entry for one node layout: `$avx2`, the loop compiled with
/// `$feat` enabled so the kernel inlines into it, and `$name`, which runs it or the SSE loop
/// `$sse` as `simd` proves, and returns false, having done nothing, for `None` (the caller then runs
/// the scalar loop).
macro_rules! run8_entry {
    ($name:ident, $avx2:ident, $sse:ident, $layout:ty, $feat:literal, $what:literal) => {
        #[doc = concat!("The traversal loop over ", $what, " compiled with `", $feat, "` enabled.")]
        #[target_feature(enable = $feat)]
        fn $avx2<F>(nodes: &[$layout], r: &BoxRay, t_min: f32, t_max: f32, mode: Mode, leaf: &mut F)
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
            r: &BoxRay,
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
                Some(cpu) if cpu.avx2() => unsafe {
                    $avx2(&bvh.nodes, r, t_min, t_max, mode, leaf);
                },
                Some(_) => $sse(&bvh.nodes, r, t_min, t_max, mode, leaf),
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
                Some(cpu) if cpu.avx2() => unsafe {
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
