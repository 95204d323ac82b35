//! The lowest floor of the SIMD code, shared by the bvh and query crates: which code path
//! runs ([`SimdPath`], decided once per process, and [`CpuPath`], the proof that a SIMD path
//! is available), the lane operations of x86_64 (`lanes_x86`), and memory hints
//! ([`prefetch`], [`prefetch_line`], [`huge_page_vec`]).
//!
//! Every path gives bit-identical answers; they differ only in speed. The scalar path is the
//! reference the tests check the others against. It is forced by the `scalar` cargo feature
//! or by the environment variable `RAYPICK_SIMD=scalar`.

use std::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "x86_64")]
pub mod lanes_x86;

/// The code path of the SIMD kernels (node tests, triangle tests).
///
/// Every path gives bit-identical results; they differ only in speed. `Sse`, `Avx2` and
/// `Avx512` exist only on x86_64 (SSE is part of its baseline, the others are detected at
/// run time); on other targets only `Scalar` is available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdPath {
    /// Plain Rust, one lane at a time; the reference.
    Scalar,
    /// 4 lanes per instruction with SSE (two steps for 8 lanes).
    Sse,
    /// 8 lanes per instruction with AVX2 and FMA.
    Avx2,
    /// The AVX2 kernels compiled with AVX-512 (F, VL, BW, DQ) enabled: the same 8 lanes, but
    /// 32 vector registers (the ray's constants stay in registers through the traversal
    /// loop) and mask-register compares. Measured 2-6% faster closest hits than `Avx2`.
    Avx512,
}

static BEST: AtomicU8 = AtomicU8::new(u8::MAX);

impl SimdPath {
    /// All paths, slowest first.
    pub const ALL: [SimdPath; 4] = [
        SimdPath::Scalar,
        SimdPath::Sse,
        SimdPath::Avx2,
        SimdPath::Avx512,
    ];

    /// True when this CPU can run the path.
    #[must_use]
    #[inline]
    pub fn is_available(self) -> bool {
        match self {
            SimdPath::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SimdPath::Sse => true,
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx2 => avx2_available(),
            #[cfg(target_arch = "x86_64")]
            SimdPath::Avx512 => avx512_available(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The paths this CPU can run, slowest first (always starts with `Scalar`).
    pub fn available() -> impl Iterator<Item = SimdPath> {
        Self::ALL.into_iter().filter(|p| p.is_available())
    }

    /// The fastest available path, decided once per process and cached. The `scalar` cargo
    /// feature forces `Scalar`; the environment variable `RAYPICK_SIMD` set to `scalar`,
    /// `sse` or `avx2` caps the path (for testing and comparison); other values are ignored.
    #[must_use]
    #[inline]
    pub fn best() -> SimdPath {
        let cached = BEST.load(Ordering::Relaxed);
        if let Some(&p) = Self::ALL.get(cached as usize) {
            return p;
        }
        Self::decide_best()
    }

    /// The cap that the `scalar` feature or `RAYPICK_SIMD` puts on [`SimdPath::best`], if
    /// any: tests that run every path themselves use it to refuse a pinned environment
    /// rather than silently test less.
    #[must_use]
    pub fn pinned() -> Option<SimdPath> {
        if cfg!(feature = "scalar") {
            return Some(SimdPath::Scalar);
        }
        match std::env::var("RAYPICK_SIMD").as_deref() {
            Ok("scalar") => Some(SimdPath::Scalar),
            Ok("sse") => Some(SimdPath::Sse),
            Ok("avx2") => Some(SimdPath::Avx2),
            _ => None,
        }
    }

    /// The first call of [`SimdPath::best`]: detects, applies the cap, caches.
    #[cold]
    #[inline(never)]
    fn decide_best() -> SimdPath {
        let cap = Self::pinned().unwrap_or(SimdPath::Avx512);
        let best = Self::available()
            .filter(|&p| p as u8 <= cap as u8)
            .last()
            .unwrap_or(SimdPath::Scalar);
        BEST.store(best as u8, Ordering::Relaxed);
        best
    }
}

/// True when the CPU has AVX2 and FMA (std caches the detection).
#[cfg(target_arch = "x86_64")]
#[must_use]
#[inline]
pub fn avx2_available() -> bool {
    // The compact node kernel's plane is one FMA; every AVX2 CPU has it, but check.
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// True when the CPU has AVX2 and FMA and the AVX-512 subsets the `Avx512` path compiles
/// for: F, VL (the 256-bit forms), BW and DQ.
#[cfg(target_arch = "x86_64")]
#[must_use]
#[inline]
pub fn avx512_available() -> bool {
    avx2_available()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512dq")
}

/// A SIMD path this CPU has (x86_64): holding one proves the target features of its kernels,
/// so code that holds one may call them. `None` stands for the scalar path.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuPath {
    /// `Sse`, `Avx2` or `Avx512`, available on this CPU.
    path: SimdPath,
}

#[cfg(target_arch = "x86_64")]
impl CpuPath {
    /// `Sse`, or `Avx2` or `Avx512` when the CPU has it; `None` for `Scalar` and an
    /// unavailable path.
    #[must_use]
    #[inline]
    pub fn new(path: SimdPath) -> Option<Self> {
        if path.is_available() {
            Self::of(path)
        } else {
            None
        }
    }

    /// The proof for `path`, which the caller has checked is available.
    #[inline(always)]
    fn of(path: SimdPath) -> Option<Self> {
        (path != SimdPath::Scalar).then_some(Self { path })
    }

    /// [`CpuPath::new`] on [`SimdPath::best`], without detecting again: `best` only ever
    /// returns an available path.
    #[must_use]
    #[inline]
    pub fn best() -> Option<Self> {
        Self::of(SimdPath::best())
    }

    /// True when AVX2 and FMA are available (else SSE only); also true on the `Avx512` path,
    /// whose kernels are the AVX2 ones.
    #[must_use]
    #[inline(always)]
    pub fn avx2(self) -> bool {
        self.path as u8 >= SimdPath::Avx2 as u8
    }

    /// True on the `Avx512` path: the CPU has AVX2, FMA and AVX-512 F, VL, BW and DQ.
    #[must_use]
    #[inline(always)]
    pub fn avx512(self) -> bool {
        self.path == SimdPath::Avx512
    }

    /// The path this proves.
    #[must_use]
    #[inline]
    pub fn path(self) -> SimdPath {
        self.path
    }
}

/// Asks the CPU to start loading `x` (every cache line of it) into the caches, so that a
/// later read does not wait on memory. A hint only: it never faults, changes nothing
/// observable, and is a no-op off x86_64. It may also load up to 4 lines after a short `x`.
#[inline(always)]
pub fn prefetch<T>(x: &[T]) {
    let p = x.as_ptr().cast::<u8>();
    let bytes = std::mem::size_of_val(x);
    if bytes == 0 {
        return;
    }
    // The first 5 lines (a leaf of up to 8 triangles) without a loop: the line count of a
    // leaf varies at random, and a loop exit per leaf mispredicts (measured: about one in
    // five leaves). Lines past the end are fetched too (the next leaf's, in leaf order)
    // rather than clamping each address: 20 fewer instructions per leaf, and no loss
    // measured on the 1M-triangle meshes.
    prefetch_lines(p);
    let mut off = 5 * 64;
    while off < bytes {
        prefetch_line(p.wrapping_add(off));
        off += 64;
    }
}

/// Asks the CPU to start loading the one cache line holding `p` (for example the entry of
/// an index array a leaf visit is about to read). A hint only: any address will do (it may
/// be dangling or out of bounds), nothing is read, and it is a no-op off x86_64.
///
/// ```
/// use raypick_primitives::simd::prefetch_line;
///
/// let order = vec![3u32, 1, 2];
/// prefetch_line(order.as_ptr().wrapping_add(2));
/// // Harmless anywhere, even where nothing could be read:
/// prefetch_line(std::ptr::null::<u32>());
/// prefetch_line(usize::MAX as *const u8);
/// assert_eq!(order[2], 2);
/// ```
#[inline(always)]
pub fn prefetch_line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and does not change memory, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks the CPU to start loading the 5 cache lines from `p` (a wide node, or the start of a
/// leaf: its first 8 triangles when they start on a line): [`prefetch`]'s first loop, from
/// an address. A hint only: any address will do, nothing is read, and it is a no-op off
/// x86_64.
#[inline(always)]
pub fn prefetch_lines(p: *const u8) {
    // `wrapping_add` computes the addresses without undefined behaviour.
    for k in 0..5 {
        prefetch_line(p.wrapping_add(64 * k));
    }
}

/// Arrays from this size on are worth backing with huge pages.
pub const HUGE_PAGE_MIN_BYTES: usize = 2 << 20;

/// An empty vector with room for `capacity` elements. When that is [`HUGE_PAGE_MIN_BYTES`]
/// or more, the kernel is asked (Linux, `madvise(MADV_HUGEPAGE)`) to back the untouched
/// allocation with transparent huge pages as it is filled: rays read large node and
/// triangle arrays at random, and 2 MiB pages save most of their TLB misses. A hint only:
/// nothing observable changes, and it is a plain `Vec::with_capacity` elsewhere, for small
/// arrays, or when the system disables huge pages. Fill it with `extend` or `push` up to
/// `capacity` (growing past it moves the data to memory without the hint).
#[must_use]
pub fn huge_page_vec<T>(capacity: usize) -> Vec<T> {
    let v = Vec::with_capacity(capacity);
    #[cfg(target_os = "linux")]
    {
        let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
        if bytes >= HUGE_PAGE_MIN_BYTES {
            const PAGE: usize = 4096;
            let p = v.as_ptr() as usize;
            let start = p.next_multiple_of(PAGE);
            let end = (p + bytes) & !(PAGE - 1);
            if end > start {
                // SAFETY: madvise only changes how the kernel backs the pages of
                // `[start, end)`, page-aligned and inside `v`'s allocation; contents and
                // validity of every mapping stay as they are. A failure is harmless.
                unsafe {
                    libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
                }
            }
        }
    }
    v
}
