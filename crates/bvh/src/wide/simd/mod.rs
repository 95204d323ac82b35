//! The only `unsafe` code of the wide module: the x86_64 SIMD kernels (`x86`) and the
//! traversal stack that skips initialising its free slots ([`Stack`]).

mod stack;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use stack::Stack;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::*;

/// Asks the CPU to start loading `x` (every cache line of it) into the caches: traversal calls
/// it for the nodes it pushes, so their memory latency overlaps with the work on the nearest
/// child. A hint only; a no-op off x86_64.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = (x as *const T).cast::<i8>();
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: a prefetch never faults and does not change memory; the address lies
            // inside `x` anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.add(off));
            }
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
