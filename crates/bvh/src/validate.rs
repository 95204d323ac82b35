//! Invariant checks and tree statistics.

use std::fmt;

use raypick_primitives::Aabb;

use crate::{Bvh, Node, ValidationError, MAX_DEPTH};

/// Statistics of a valid tree, from [`Bvh::validate`]. `Display` prints a short summary.
#[derive(Clone, Debug, PartialEq)]
pub struct BvhStats {
    /// Number of primitives.
    pub prim_count: usize,
    /// Number of nodes (interior and leaves).
    pub node_count: usize,
    /// Number of leaves.
    pub leaf_count: usize,
    /// Depth (root = 1; 0 for an empty tree).
    pub depth: usize,
    /// Smallest leaf size (0 for an empty tree).
    pub min_leaf_size: usize,
    /// Largest leaf size.
    pub max_leaf_size: usize,
    /// `(leaf size, number of leaves of that size)`, by increasing size.
    pub leaf_size_histogram: Vec<(usize, usize)>,
    /// SAH cost with unit traversal and intersection costs (see [`Bvh::sah_cost`]).
    pub sah_cost: f64,
    /// Bytes of nodes plus primitive indices, per primitive.
    pub bytes_per_prim: f64,
}

impl fmt::Display for BvhStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} prims, {} nodes, {} leaves, depth {}, leaf size {}..={} (mean {:.2}), SAH {:.2}, {:.1} B/prim; leaf sizes:",
            self.prim_count,
            self.node_count,
            self.leaf_count,
            self.depth,
            self.min_leaf_size,
            self.max_leaf_size,
            self.prim_count as f64 / self.leaf_count.max(1) as f64,
            self.sah_cost,
            self.bytes_per_prim,
        )?;
        for (size, count) in &self.leaf_size_histogram {
            write!(f, " {size}:{count}")?;
        }
        Ok(())
    }
}

fn box_ok(n: &Node) -> bool {
    (0..3).all(|a| n.min[a].is_finite() && n.max[a].is_finite() && n.min[a] <= n.max[a])
}

fn contains(outer: &Node, min: &[f32; 3], max: &[f32; 3]) -> bool {
    (0..3).all(|a| outer.min[a] <= min[a] && max[a] <= outer.max[a])
}

/// Checks everything that does not need the primitive boxes: shape, reachability, leaf
/// ranges, the index permutation, node boxes and their nesting, and depth. Returns the
/// depth. Used by `validate` and by loading.
pub(crate) fn check_structure(
    nodes: &[Node],
    indices: &[u32],
    stored_depth: usize,
) -> Result<usize, ValidationError> {
    let n = indices.len();
    if nodes.is_empty() != (n == 0) {
        return Err(ValidationError::NodeCount {
            nodes: nodes.len(),
            prims: n,
        });
    }
    if nodes.is_empty() {
        if stored_depth != 0 {
            return Err(ValidationError::DepthMismatch {
                stored: stored_depth,
                actual: 0,
            });
        }
        return Ok(0);
    }
    let len = nodes.len();
    // level[i] = depth of node i (root = 1); 0 = not reached yet.
    let mut level = vec![0u8; len];
    level[0] = 1;
    let mut covered = vec![false; n];
    let mut depth = 1usize;
    for (i, node) in nodes.iter().enumerate() {
        let li = level[i];
        if li == 0 {
            return Err(ValidationError::UnreachableNode { node: i });
        }
        depth = depth.max(li as usize);
        if depth > MAX_DEPTH {
            return Err(ValidationError::TooDeep {
                depth,
                max: MAX_DEPTH,
            });
        }
        if !box_ok(node) {
            return Err(ValidationError::BadNodeBox { node: i });
        }
        if node.count == 0 {
            let c = node.index as usize;
            if c <= i || c >= len - 1 {
                return Err(ValidationError::BadChild {
                    node: i,
                    child: c,
                    len,
                });
            }
            for child in [c, c + 1] {
                if level[child] != 0 {
                    return Err(ValidationError::SharedNode { node: child });
                }
                level[child] = li + 1;
                let cn = &nodes[child];
                if !contains(node, &cn.min, &cn.max) {
                    return Err(ValidationError::ChildNotContained { node: i, child });
                }
            }
        } else {
            let start = node.index as usize;
            let count = node.count as usize;
            if start >= n || count > n - start {
                return Err(ValidationError::LeafOutOfRange {
                    node: i,
                    start,
                    count,
                    prims: n,
                });
            }
            for (position, c) in covered[start..start + count].iter_mut().enumerate() {
                if *c {
                    return Err(ValidationError::PositionCoveredTwice {
                        node: i,
                        position: start + position,
                    });
                }
                *c = true;
            }
        }
    }
    if let Some(position) = covered.iter().position(|c| !c) {
        return Err(ValidationError::PositionNotCovered { position });
    }
    let mut seen = vec![false; n];
    for (position, &index) in indices.iter().enumerate() {
        let index = index as usize;
        if index >= n {
            return Err(ValidationError::IndexOutOfRange {
                position,
                index,
                prims: n,
            });
        }
        if seen[index] {
            return Err(ValidationError::DuplicateIndex { position, index });
        }
        seen[index] = true;
    }
    if depth != stored_depth {
        return Err(ValidationError::DepthMismatch {
            stored: stored_depth,
            actual: depth,
        });
    }
    Ok(depth)
}

/// SAH cost of a node array (see [`Bvh::sah_cost_weighted`]).
pub(crate) fn sah_cost(nodes: &[Node], traversal_cost: f64, intersection_cost: f64) -> f64 {
    let Some(root) = nodes.first() else {
        return 0.0;
    };
    let root_area = root.half_area() as f64;
    let mut sum = 0.0f64;
    for n in nodes {
        let ratio = if root_area > 0.0 {
            n.half_area() as f64 / root_area
        } else {
            1.0
        };
        sum += ratio
            * if n.count > 0 {
                intersection_cost * n.count as f64
            } else {
                traversal_cost
            };
    }
    sum
}

impl Bvh {
    /// Checks every invariant against the primitive boxes `boxes` (indexed by original
    /// index): every node box is finite and contains its children's boxes (or, for a leaf,
    /// its primitives' boxes); children come after their parent and every node is reached
    /// exactly once; every primitive index appears exactly once; leaf ranges cover every
    /// leaf-order position exactly once; the depth is at most [`MAX_DEPTH`].
    ///
    /// Returns statistics on success, or the first broken invariant. Allocates O(n) scratch.
    pub fn validate(&self, boxes: &[Aabb]) -> Result<BvhStats, ValidationError> {
        if boxes.len() != self.prim_indices.len() {
            return Err(ValidationError::BoxCount {
                expected: self.prim_indices.len(),
                found: boxes.len(),
            });
        }
        check_structure(&self.nodes, &self.prim_indices, self.depth)?;
        for (i, node) in self.nodes.iter().enumerate() {
            if let Some(range) = node.leaf_range() {
                for &p in &self.prim_indices[range] {
                    let b = &boxes[p as usize];
                    if !contains(
                        node,
                        &[b.min.x, b.min.y, b.min.z],
                        &[b.max.x, b.max.y, b.max.z],
                    ) {
                        return Err(ValidationError::PrimNotContained {
                            node: i,
                            prim: p as usize,
                        });
                    }
                }
            }
        }
        Ok(self.stats())
    }

    /// Checks every invariant that does not need the primitive boxes (all of
    /// [`Bvh::validate`] except leaf boxes containing their primitives' boxes): what loading
    /// guarantees. Returns statistics on success.
    pub fn validate_structure(&self) -> Result<BvhStats, ValidationError> {
        check_structure(&self.nodes, &self.prim_indices, self.depth)?;
        Ok(self.stats())
    }

    /// Statistics of the tree, without checking it (see [`Bvh::validate`]).
    #[must_use]
    pub fn stats(&self) -> BvhStats {
        let mut sizes = std::collections::BTreeMap::new();
        for n in self.nodes.iter().filter(|n| n.count > 0) {
            *sizes.entry(n.count as usize).or_insert(0usize) += 1;
        }
        let leaf_count = sizes.values().sum();
        BvhStats {
            prim_count: self.prim_indices.len(),
            node_count: self.nodes.len(),
            leaf_count,
            depth: self.depth,
            min_leaf_size: sizes.keys().next().copied().unwrap_or(0),
            max_leaf_size: sizes.keys().next_back().copied().unwrap_or(0),
            leaf_size_histogram: sizes.into_iter().collect(),
            sah_cost: self.sah_cost(),
            bytes_per_prim: (self.nodes.len() * std::mem::size_of::<Node>()
                + self.prim_indices.len() * 4) as f64
                / self.prim_indices.len().max(1) as f64,
        }
    }

    /// The SAH cost with unit traversal and intersection costs:
    /// `sum over interior nodes of A(node) / A(root) + sum over leaves of
    /// A(leaf) / A(root) * count`, A the surface area. Comparable between trees over the same
    /// boxes; lower is better. 0 for an empty tree; when the root's area is 0 (all boxes are
    /// one point or segment) every ratio counts as 1.
    #[must_use]
    pub fn sah_cost(&self) -> f64 {
        sah_cost(&self.nodes, 1.0, 1.0)
    }

    /// [`Bvh::sah_cost`] with the given traversal and intersection costs.
    #[must_use]
    pub fn sah_cost_weighted(&self, traversal_cost: f64, intersection_cost: f64) -> f64 {
        sah_cost(&self.nodes, traversal_cost, intersection_cost)
    }
}
