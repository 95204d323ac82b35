//! Validation of wide trees: [`WideBvh::validate`] checks every invariant and returns
//! statistics ([`WideStats`]) or the first broken invariant ([`WideValidationError`]).

use super::{WideBvh, WideChild, WideLayout};

/// Statistics from [`WideBvh::validate`].
#[derive(Clone, Debug, PartialEq)]
pub struct WideStats {
    /// Number of wide nodes.
    pub node_count: usize,
    /// Number of leaves (the binary tree's leaf count when its leaves were kept, fewer when
    /// [`CollapseConfig::max_leaf`](super::CollapseConfig::max_leaf) merged some).
    pub leaf_count: usize,
    /// Number of primitives covered by the leaves.
    pub prim_count: usize,
    /// Number of levels of wide nodes.
    pub depth: usize,
    /// Mean number of used child slots per node (at most `N`).
    pub mean_children: f64,
    /// Bytes used by the nodes.
    pub memory_bytes: usize,
}

/// The first broken invariant found by [`WideBvh::validate`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WideValidationError {
    /// A node has no used slot, or a used slot after an unused one.
    #[error(
        "wide node {node}: slot {slot} is misplaced (used slots must come first, at least one)"
    )]
    BadSlots {
        /// The node.
        node: usize,
        /// The slot.
        slot: usize,
    },
    /// A slot's box is NaN, infinite or inverted.
    #[error("wide node {node}, slot {slot}: bad box")]
    BadBox {
        /// The node.
        node: usize,
        /// The slot.
        slot: usize,
    },
    /// A child index is out of range, not after its parent, or referenced twice.
    #[error("wide node {node}, slot {slot}: bad child index {child}")]
    BadChild {
        /// The node.
        node: usize,
        /// The slot.
        slot: usize,
        /// The child index it holds.
        child: usize,
    },
    /// A node is referenced by no slot.
    #[error("wide node {node} is unreachable")]
    Unreachable {
        /// The node.
        node: usize,
    },
    /// A slot's box does not contain a box of its child node.
    #[error("wide node {node}, slot {slot}: box does not contain child slot {child_slot}")]
    NotContained {
        /// The node.
        node: usize,
        /// The slot.
        slot: usize,
        /// The slot of the child node that sticks out.
        child_slot: usize,
    },
    /// A leaf range reaches past the primitive count or overlaps another leaf.
    #[error(
        "wide node {node}, slot {slot}: leaf range {start}..{end} overlaps or is out of range"
    )]
    BadLeaf {
        /// The node.
        node: usize,
        /// The slot.
        slot: usize,
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
    },
    /// Leaves do not cover every position.
    #[error("leaf-order position {pos} is in no leaf")]
    Uncovered {
        /// The first uncovered position.
        pos: usize,
    },
    /// The stored depth is wrong.
    #[error("stored depth {stored} differs from the actual depth {actual}")]
    Depth {
        /// Stored.
        stored: usize,
        /// Actual.
        actual: usize,
    },
}

impl<const N: usize, L: WideLayout<N>> WideBvh<N, L> {
    /// Checks the invariants: used slots first and at least one per node; finite boxes with
    /// `min <= max`; each node but the root referenced once, by an earlier node; each slot box
    /// containing its child node's boxes; leaves covering positions `0..len()` exactly once
    /// (a leaf is any range of positions: one binary leaf, or several merged by
    /// [`CollapseConfig::max_leaf`](super::CollapseConfig::max_leaf)); the stored depth. Returns statistics, or the first broken
    /// invariant. It does not check leaf boxes against primitives (it has none).
    pub fn validate(&self) -> Result<WideStats, WideValidationError> {
        let mut referenced = vec![false; self.nodes.len()];
        let mut level = vec![0usize; self.nodes.len()];
        let mut covered = vec![false; self.prim_count];
        let mut leaves = 0;
        let mut used = 0usize;
        let mut depth = 0;
        if let Some(l) = level.first_mut() {
            *l = 1;
        }
        for (ni, n) in self.nodes.iter().enumerate() {
            if ni > 0 && !referenced[ni] {
                return Err(WideValidationError::Unreachable { node: ni });
            }
            depth = depth.max(level[ni]);
            let k = n.child_count();
            if k == 0 {
                return Err(WideValidationError::BadSlots { node: ni, slot: 0 });
            }
            if let Some(slot) = (k..N).find(|&i| n.child(i) != WideChild::Empty) {
                return Err(WideValidationError::BadSlots { node: ni, slot });
            }
            used += k;
            for slot in 0..k {
                let b = n.child_aabb(slot);
                let finite = (0..3).all(|a| b.min[a].is_finite() && b.max[a].is_finite());
                if !finite || (0..3).any(|a| b.min[a] > b.max[a]) {
                    return Err(WideValidationError::BadBox { node: ni, slot });
                }
                match n.child(slot) {
                    WideChild::Node(c) => {
                        if c <= ni || c >= self.nodes.len() || referenced[c] {
                            return Err(WideValidationError::BadChild {
                                node: ni,
                                slot,
                                child: c,
                            });
                        }
                        referenced[c] = true;
                        level[c] = level[ni] + 1;
                        let cn = &self.nodes[c];
                        for cs in 0..cn.child_count() {
                            if !b.contains_aabb(&cn.child_aabb(cs)) {
                                return Err(WideValidationError::NotContained {
                                    node: ni,
                                    slot,
                                    child_slot: cs,
                                });
                            }
                        }
                    }
                    WideChild::Leaf(r) => {
                        leaves += 1;
                        let bad = WideValidationError::BadLeaf {
                            node: ni,
                            slot,
                            start: r.start,
                            end: r.end,
                        };
                        let Some(cells) = covered.get_mut(r.clone()) else {
                            return Err(bad);
                        };
                        if cells.iter().any(|&c| c) {
                            return Err(bad);
                        }
                        cells.fill(true);
                    }
                    WideChild::Empty => unreachable!("slots below child_count are used"),
                }
            }
        }
        if let Some(pos) = covered.iter().position(|&c| !c) {
            return Err(WideValidationError::Uncovered { pos });
        }
        if depth != self.depth {
            return Err(WideValidationError::Depth {
                stored: self.depth,
                actual: depth,
            });
        }
        Ok(WideStats {
            node_count: self.nodes.len(),
            leaf_count: leaves,
            prim_count: self.prim_count,
            depth,
            mean_children: if self.nodes.is_empty() {
                0.0
            } else {
                used as f64 / self.nodes.len() as f64
            },
            memory_bytes: self.memory_bytes(),
        })
    }
}
