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

/// A pending entry of a best-first traversal: `(bound, a, count)`, a leaf's range of
/// leaf-order positions `a..a + count` when `count > 0`, else the node `a`.
pub(crate) type Pending = (Real, u32, u32);

/// The best-first loop of both trees' `traverse_best_first_in`: `expand(None, ..)` seeds
/// the heap with the root's entries; then the entry with the smallest bound is popped until
/// that bound exceeds `best` (from `max_dist`, lowered by `leaf`), leaves go to `leaf` and
/// nodes to `expand(Some(node), heap, best)`, which pushes the node's children whose bound
/// is within `best`. The heap is left empty.
// `!(d <= best)`: a NaN bound ends the loop.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub(crate) fn best_first(
    heap: &mut SmallVec<[Pending; 64]>,
    max_dist: Real,
    mut expand: impl FnMut(Option<u32>, &mut SmallVec<[Pending; 64]>, Real),
    mut leaf: impl FnMut(std::ops::Range<usize>, &mut Real) -> std::ops::ControlFlow<()>,
) {
    heap.clear();
    let mut best = max_dist;
    expand(None, heap, best);
    while let Some((d, a, count)) = pop(heap) {
        if !(d <= best) {
            break;
        }
        if count > 0 {
            let s = a as usize;
            if leaf(s..s + count as usize, &mut best).is_break() {
                break;
            }
        } else {
            expand(Some(a), heap, best);
        }
    }
    heap.clear();
}
