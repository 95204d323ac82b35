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

    /// Empties the stack (nothing is written).
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
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
        // SAFETY: slot `len` (the old `len - 1`) was written by `push` or a `Placer` (whose
        // `finish` only counts places written).
        Some(unsafe { self.buf[self.len].assume_init() })
    }

    /// Starts pushing a group of values at given places above the current top (see
    /// [`Placer`]).
    #[inline(always)]
    pub(crate) fn place_ranked(&mut self) -> Placer<'_, T, CAP> {
        Placer {
            base: self.len,
            written: 0,
            next: 0,
            stack: self,
        }
    }
}

/// Pushes a group of at most 32 values, each at a chosen place above the old top: `put(r, x)`
/// writes `x` at place `r` (0 is just above the old top). `finish` makes the group the new
/// top: the places written must be `0..n` (the ranks of a sort); the length grows by the
/// number of places written from 0 without a gap, so a slot is never exposed unwritten.
pub(crate) struct Placer<'a, T: Copy, const CAP: usize> {
    stack: &'a mut Stack<T, CAP>,
    base: usize,
    /// Bit `r` set once place `r` is written.
    written: u32,
    /// The next place for `push`.
    next: usize,
}

impl<T: Copy, const CAP: usize> Placer<'_, T, CAP> {
    /// Writes `x` at place `r` (`r < 32`; indexing panics beyond `CAP`).
    #[inline(always)]
    pub(crate) fn put(&mut self, r: usize, x: T) {
        self.stack.buf[self.base + r].write(x);
        self.written |= 1 << (r & 31);
    }

    /// Writes `x` at the next place in order.
    #[inline(always)]
    pub(crate) fn push(&mut self, x: T) {
        self.put(self.next, x);
        self.next += 1;
    }

    /// Ends the group: the places `0..n` written without a gap join the stack.
    #[inline(always)]
    pub(crate) fn finish(self) {
        let n = self.written.trailing_ones() as usize;
        debug_assert_eq!(self.written >> n, 0, "places written with a gap");
        self.stack.len = self.base + n;
    }
}
