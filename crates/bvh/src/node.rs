//! The 32-byte node layout.

use raypick_primitives::{Aabb, Point3};

/// One BVH node: a box plus a packed child-or-first index and a primitive count (32 bytes).
///
/// - `count == 0`: an interior node; its two children are `nodes[index]` and
///   `nodes[index + 1]` (siblings are stored side by side, and always after their parent).
/// - `count > 0`: a leaf holding the leaf-order positions `index .. index + count`
///   (see [`crate::Bvh::prim_indices`]).
///
/// The box is closed (`min` to `max` inclusive) and, in a valid tree, finite with
/// `min <= max` on every axis.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    /// The smallest corner of the node's box.
    pub min: [f32; 3],
    /// First child (interior) or first leaf-order position (leaf).
    pub index: u32,
    /// The largest corner of the node's box.
    pub max: [f32; 3],
    /// Number of primitives in a leaf; 0 for an interior node.
    pub count: u32,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    /// The node's box.
    #[inline]
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::new(
            Point3::new(self.min[0], self.min[1], self.min[2]),
            Point3::new(self.max[0], self.max[1], self.max[2]),
        )
    }

    /// True for a leaf (`count > 0`).
    #[inline]
    #[must_use]
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }

    /// For a leaf, its range of leaf-order positions; `None` for an interior node.
    #[inline]
    #[must_use]
    pub fn leaf_range(&self) -> Option<std::ops::Range<usize>> {
        if self.count > 0 {
            let start = self.index as usize;
            Some(start..start + self.count as usize)
        } else {
            None
        }
    }

    /// For an interior node, the index of its first child (the second is the next one);
    /// `None` for a leaf.
    #[inline]
    #[must_use]
    pub fn first_child(&self) -> Option<usize> {
        if self.count == 0 {
            Some(self.index as usize)
        } else {
            None
        }
    }

    /// Half the surface area (`xy + yz + zx`) of the node's box; 0 when inverted or NaN.
    #[inline]
    pub(crate) fn half_area(&self) -> f32 {
        half_area(&self.min, &self.max)
    }
}

/// Half the surface area of a box given by its corners; 0 when inverted or NaN.
#[inline]
pub(crate) fn half_area(min: &[f32; 3], max: &[f32; 3]) -> f32 {
    let ex = max[0] - min[0];
    let ey = max[1] - min[1];
    let ez = max[2] - min[2];
    if ex >= 0.0 && ey >= 0.0 && ez >= 0.0 {
        ex * ey + ey * ez + ez * ex
    } else {
        0.0
    }
}
