//! Refitting node boxes after the primitive boxes moved.

use raypick_primitives::Aabb;

use crate::build::check_boxes;
use crate::{BuildError, Bvh};

impl Bvh {
    /// Recomputes every node's box from `boxes` (indexed by original primitive index, the
    /// same length as at build), keeping the tree's shape. O(n), allocates nothing.
    ///
    /// The boxes are checked first, with the same rules as [`Bvh::build`] (NaN, infinite or
    /// inverted boxes are rejected with their index); on error the tree is unchanged.
    /// A refit tree stays valid but its quality degrades as primitives move far; rebuild then.
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), BuildError> {
        if boxes.len() != self.prim_indices.len() {
            return Err(BuildError::LengthMismatch {
                expected: self.prim_indices.len(),
                found: boxes.len(),
            });
        }
        check_boxes(boxes)?;
        // Children always come after their parent, so a reverse pass sees children first.
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            if n.count > 0 {
                let s = n.index as usize;
                for &p in &self.prim_indices[s..s + n.count as usize] {
                    let b = &boxes[p as usize];
                    grow(
                        &mut lo,
                        &mut hi,
                        &[b.min.x, b.min.y, b.min.z],
                        &[b.max.x, b.max.y, b.max.z],
                    );
                }
            } else {
                let c = n.index as usize;
                for child in &self.nodes[c..c + 2] {
                    grow(&mut lo, &mut hi, &child.min, &child.max);
                }
            }
            self.nodes[i].min = lo;
            self.nodes[i].max = hi;
        }
        Ok(())
    }
}

#[inline(always)]
fn grow(lo: &mut [f32; 3], hi: &mut [f32; 3], min: &[f32; 3], max: &[f32; 3]) {
    for a in 0..3 {
        lo[a] = lo[a].min(min[a]);
        hi[a] = hi[a].max(max[a]);
    }
}
