//! The only `unsafe` code of the wide module: the x86_64 SIMD kernels (`x86`) and the
//! traversal stack that skips initialising its free slots ([`Stack`]).

mod stack;
#[cfg(target_arch = "x86_64")]
mod x86;

pub(crate) use stack::Stack;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::*;
