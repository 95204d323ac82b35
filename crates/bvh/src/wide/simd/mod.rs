//! The only `unsafe` code of the wide module: the x86_64 SIMD kernels (`x86`), the
//! traversal stack that skips initialising its free slots ([`Stack`]), and the memory hints
//! ([`prefetch`], [`huge_page_vec`]).

mod stack;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use stack::Stack;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::*;

/// Asks the CPU to start loading `x` (every cache line of it) into the caches, so that a
/// later read does not wait on memory. Ray traversal calls it for the nodes it pushes on its
/// stack; callers can use it for the primitives of the leaves announced by
/// `WideBvh::traverse_ray_by`. A hint only: it never faults, changes nothing observable,
/// and is a no-op off x86_64. It may also load up to 4 lines after a short `x`.
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
/// use raypick_bvh::wide::prefetch_line;
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

/// Asks the CPU to start loading the 5 cache lines from `p` (a node, or a leaf of up to 8
/// triangles): [`prefetch`]'s first loop, from an address. A hint only: any address will do,
/// nothing is read, and it is a no-op off x86_64.
#[inline(always)]
pub(crate) fn prefetch_lines(p: *const u8) {
    // `wrapping_add` computes the addresses without undefined behaviour.
    for k in 0..5 {
        prefetch_line(p.wrapping_add(64 * k));
    }
}

/// Arrays from this size on are worth backing with huge pages.
pub(crate) const HUGE_PAGE_MIN_BYTES: usize = 2 << 20;

/// An empty vector with room for `capacity` elements. When that is 2 MiB or more, the kernel
/// is asked (Linux, `madvise(MADV_HUGEPAGE)`) to back the untouched allocation with
/// transparent huge pages as it is filled: rays read large node and triangle arrays at
/// random, and 2 MiB pages save most of their TLB misses (measured on the 1M-triangle
/// meshes: up to +9% closest-hit throughput). A hint only: nothing observable changes, and
/// it is a plain `Vec::with_capacity` elsewhere, for small arrays, or when the system
/// disables huge pages. Fill it with `extend` or `push` up to `capacity` (growing past it
/// moves the data to memory without the hint).
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
