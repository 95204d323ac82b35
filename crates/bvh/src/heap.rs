//! The binary min-heap behind the best-first traversals of [`Bvh`](crate::Bvh) and
//! [`WideBvh`](crate::wide::WideBvh), keyed by the entry's first field (a distance bound),
//! kept in a `SmallVec` so scratch storage is reusable and small frontiers stay inline.

use raypick_primitives::Real;
use smallvec::SmallVec;

/// A heap entry: its bound comes first.
pub(crate) trait Keyed: Copy {
    fn key(&self) -> Real;
}

impl Keyed for (Real, u32, u32) {
    #[inline(always)]
    fn key(&self) -> Real {
        self.0
    }
}

/// Pushes `item`, sifting it up to its place.
pub(crate) fn push<T: Keyed>(h: &mut SmallVec<[T; 64]>, item: T) {
    h.push(item);
    let mut i = h.len() - 1;
    while i > 0 {
        let p = (i - 1) / 2;
        if h[i].key() < h[p].key() {
            h.swap(i, p);
            i = p;
        } else {
            break;
        }
    }
}

/// Removes and returns the entry with the smallest bound.
pub(crate) fn pop<T: Keyed>(h: &mut SmallVec<[T; 64]>) -> Option<T> {
    let len = h.len();
    if len == 0 {
        return None;
    }
    h.swap(0, len - 1);
    let top = h.pop();
    let len = h.len();
    let mut i = 0;
    loop {
        let l = 2 * i + 1;
        let r = l + 1;
        let mut m = i;
        if l < len && h[l].key() < h[m].key() {
            m = l;
        }
        if r < len && h[r].key() < h[m].key() {
            m = r;
        }
        if m == i {
            break;
        }
        h.swap(i, m);
        i = m;
    }
    top
}
