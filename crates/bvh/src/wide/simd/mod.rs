//! The only `unsafe` code of the wide module: the x86_64 SIMD kernels (`x86`) and the
//! traversal stack that skips initialising its free slots ([`Stack`]).

mod stack;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use stack::Stack;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::*;

/// Asks the CPU to start loading `x` (every cache line of it) into the caches, so that a
/// later read does not wait on memory. Ray traversal calls it for the nodes it pushes on its
/// stack; callers can use it for the primitives of the leaves announced by
/// `WideBvh::traverse_ray_by`. A hint only: it never faults, changes nothing observable, and is a no-op off x86_64.
#[inline(always)]
pub fn prefetch<T>(x: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = x.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(x);
        let mut off = 0;
        while off < bytes {
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
