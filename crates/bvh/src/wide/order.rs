//! The order of a node's slots, which the traversals in slot order (any hit) follow: in
//! nodes whose children differ widely in how full their boxes are, the fullest last, which
//! the unordered traversal visits first.

use std::ops::Range;

use super::{WideBvh, WideNode};

/// A node's slots are reordered only when its densest child is at least this many times as
/// dense as its sparsest: below, the order the build left (children in split order, which
/// keeps a traversal's successive visits near each other) is kept. Measured on one thread,
/// any hits: 4 keeps the gain on the architectural model (walls and slabs before the
/// furniture: 1.4x) and the bunny's speed, which every node reordered cost (0.95x).
const CONTRAST: f64 = 4.0;

impl WideBvh<8, WideNode<8>> {
    /// Sorts the used slots of a node by density, the weight of what a slot holds over its
    /// box's half surface area, densest last, where the densities differ by at least a
    /// factor of 4: the traversal in slot order
    /// ([`RayTraversal::unordered`](super::RayTraversal::unordered), any hit) visits the last
    /// entered slot first, so it first tries the child whose box, once a ray enters it, is
    /// the likeliest to hold a hit (a wall filling its box before the room's furniture).
    /// `leaf_weight(range)` weighs the leaf of leaf-order positions `range` (a mesh gives
    /// its triangles' area); an interior slot weighs the sum of its leaves.
    ///
    /// Only the order of slots within nodes changes: the same boxes, leaves and nodes, so
    /// every query answers the same (the nearest-first traversals sort the entered slots by
    /// distance whatever their order). Ties keep their order; a slot whose box has no area
    /// counts as densest. O(nodes) beside the leaf weights; allocates one weight per node.
    pub fn order_slots_by_density(&mut self, leaf_weight: impl Fn(Range<usize>) -> f64) {
        let mut weight = vec![0.0f64; self.nodes.len()];
        // An interior child always comes after its parent: from the last node back, every
        // child's weight is known before its parent's.
        for k in (0..self.nodes.len()).rev() {
            let node = &mut self.nodes[k];
            let used = node.child_count();
            let mut keys = [(0.0f64, 0usize); 8];
            let mut total = 0.0;
            for (i, key) in keys.iter_mut().enumerate().take(used) {
                let (child, count) = (node.child[i] as usize, node.count[i] as usize);
                let w = if count > 0 {
                    leaf_weight(child..child + count)
                } else {
                    weight.get(child).copied().unwrap_or(0.0)
                };
                total += w;
                let e = [0, 1, 2].map(|a| f64::from(node.bounds[a + 3][i] - node.bounds[a][i]));
                let area = e[0] * e[1] + e[1] * e[2] + e[2] * e[0];
                *key = (if area > 0.0 { w / area } else { f64::INFINITY }, i);
            }
            weight[k] = total;
            let keys = &mut keys[..used];
            let (lo, hi) = keys
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(lo, hi), &(d, _)| {
                    (lo.min(d), hi.max(d))
                });
            // NaN weights leave the node as it is.
            let contrasted = hi >= CONTRAST * lo;
            if !contrasted {
                continue;
            }
            keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let old = *node;
            for (j, &(_, i)) in keys.iter().enumerate() {
                for r in 0..6 {
                    node.bounds[r][j] = old.bounds[r][i];
                }
                node.child[j] = old.child[i];
                node.count[j] = old.count[i];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use raypick_primitives::{Aabb, Point3};

    use crate::wide::{Bvh8, CollapseConfig, WideChild};
    use crate::BuildConfig;

    /// Boxes of a floor: a row of thin slabs (dense: a triangle fills each) and a field of
    /// cubes (sparse: a small triangle in each).
    fn boxes() -> Vec<Aabb> {
        let mut out = Vec::new();
        for i in 0..64 {
            let x = i as f32;
            out.push(Aabb::new(
                Point3::new(x, 0.0, 0.0),
                Point3::new(x + 1.0, 1e-3, 8.0),
            ));
            for j in 0..8 {
                let (y, z) = (2.0 + j as f32, (j % 4) as f32 * 2.0);
                out.push(Aabb::new(
                    Point3::new(x, y, z),
                    Point3::new(x + 0.9, y + 0.9, z + 0.9),
                ));
            }
        }
        out
    }

    /// Each leaf slot's set of prims and box, per node: what a reorder must keep.
    fn slots(t: &Bvh8, prims: &[u32]) -> Vec<Vec<(Vec<u32>, [f32; 6])>> {
        t.nodes()
            .iter()
            .map(|n| {
                let mut s: Vec<(Vec<u32>, [f32; 6])> = (0..n.child_count())
                    .map(|i| {
                        let b = n.child_aabb(i);
                        let prims = match n.child(i) {
                            WideChild::Leaf(r) => prims[r].to_vec(),
                            WideChild::Node(c) => vec![u32::MAX - c as u32],
                            WideChild::Empty => Vec::new(),
                        };
                        (
                            prims,
                            [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z],
                        )
                    })
                    .collect();
                s.sort_by(|a, b| a.0.cmp(&b.0));
                s
            })
            .collect()
    }

    #[test]
    fn reorders_slots_within_nodes_densest_last() {
        let boxes = boxes();
        let (bvh, mut t) = Bvh8::build(
            &boxes,
            &BuildConfig::default(),
            &CollapseConfig::merge_leaves(),
        )
        .unwrap();
        let prims: Vec<u32> = bvh.prim_indices().to_vec();
        let before = slots(&t, &prims);
        // A prim's weight: a slab's triangle fills its 1 x 8 face, a cube's is small.
        let w = |p: u32| if p.is_multiple_of(9) { 16.0 } else { 0.01 };
        let weight = |r: Range<usize>| prims[r].iter().map(|&p| w(p)).sum::<f64>();
        t.order_slots_by_density(weight);
        t.validate().unwrap();
        assert_eq!(slots(&t, &prims), before, "the same slots in every node");
        // Every node whose children differ enough has its densest child last.
        let mut reordered = 0;
        let mut sub = vec![0.0f64; t.nodes().len()];
        for k in (0..t.nodes().len()).rev() {
            let n = &t.nodes()[k];
            let d: Vec<f64> = (0..n.child_count())
                .map(|i| {
                    let wt = match n.child(i) {
                        WideChild::Leaf(r) => weight(r),
                        WideChild::Node(c) => sub[c],
                        WideChild::Empty => 0.0,
                    };
                    let e = n.child_aabb(i).extents();
                    let area = f64::from(e.x * e.y + e.y * e.z + e.z * e.x);
                    sub[k] += wt;
                    wt / area
                })
                .collect();
            let (lo, hi) = d
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
            if hi >= super::CONTRAST * lo {
                assert!(d.windows(2).all(|p| p[0] <= p[1]), "node {k}: {d:?}");
                reordered += 1;
            }
        }
        assert!(reordered > 0, "no node reordered");
    }

    #[test]
    fn empty_and_single_leaf_trees() {
        for n in [0usize, 1, 3] {
            let boxes: Vec<Aabb> = (0..n)
                .map(|i| {
                    Aabb::new(
                        Point3::new(i as f32, 0.0, 0.0),
                        Point3::new(i as f32 + 1.0, 1.0, 1.0),
                    )
                })
                .collect();
            let (_, mut t) = Bvh8::build(
                &boxes,
                &BuildConfig::default(),
                &CollapseConfig::merge_leaves(),
            )
            .unwrap();
            let before = t.clone();
            t.order_slots_by_density(|r| r.len() as f64);
            t.validate().unwrap();
            assert_eq!(t.leaf_ranges().len(), before.leaf_ranges().len());
        }
    }
}
