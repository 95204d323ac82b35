//! A fixed-capacity stack for traversal. An array stack would be zeroed on every ray (a
//! memset of up to 5 KB, about 5% of a short query's instructions); this one writes a slot
//! only when it pushes there and reads only slots below its length.

use std::mem::MaybeUninit;

/// Up to `CAP` values of `T`; pushing beyond `CAP` panics (traversal sizes `CAP` from the tree
/// depth bound, so it never does).
pub(crate) struct Stack<T: Copy, const CAP: usize> {
    buf: [MaybeUninit<T>; CAP],
    /// Slots `0..len` are initialised.
    len: usize,
}

impl<T: Copy, const CAP: usize> Stack<T, CAP> {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            buf: [const { MaybeUninit::uninit() }; CAP],
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) {
        self.buf[self.len].write(x);
        self.len += 1;
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: slot `len` (the old `len - 1`) was written by `push` or `set`.
        Some(unsafe { self.buf[self.len].assume_init() })
    }

    /// The value in slot `i < len`.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> T {
        let live = &self.buf[..self.len];
        // SAFETY: `live` holds the initialised slots only, and indexing checks `i`.
        unsafe { live[i].assume_init() }
    }

    /// Overwrites slot `i < len`.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, x: T) {
        self.buf[..self.len][i].write(x);
    }
}
