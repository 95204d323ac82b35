//! Post-build reinsertion optimizer, after Bittner, Hapala and Havran 2013 ("Fast
//! insertion-based optimization of bounding volume hierarchies") and Meister and Bittner 2018
//! ("Parallel reinsertion for bounding volume hierarchy optimization"), done sequentially.
//!
//! Each round takes the not yet moved nodes whose removal shrinks their parent's box most
//! (relative to the parent's area: ranking by absolute area picks top nodes that are
//! already well placed and gains next to nothing), removes each from the
//! tree (its sibling takes its parent's place) and reinserts it as the sibling of the node
//! where it raises the SAH cost least, found by an exact branch and bound search. The
//! original place is a candidate too, so a move never raises the cost. Rounds stop when one
//! improves the cost by less than `min_improvement`, or a round would make the tree deeper
//! than the depth limit (that round is undone).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use crate::node::half_area;
use crate::{Bvh, Node, OptimizeConfig};

/// What [`crate::BuildConfig::optimize`] (or [`Bvh::optimize`]) did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OptimizeReport {
    /// SAH cost (unit costs, see [`Bvh::sah_cost`]) before.
    pub sah_before: f64,
    /// SAH cost after.
    pub sah_after: f64,
    /// Rounds run (an undone round is not counted).
    pub rounds: usize,
    /// Nodes removed and reinserted.
    pub reinsertions: usize,
    /// Time spent.
    pub time: Duration,
}

const NONE: u32 = u32::MAX;

/// Candidates examined per reinsertion at most. The search is best-first by induced cost, so
/// the cap only cuts off unlikely far places; it bounds the optimizer's cost on deep trees.
/// (The original place may then be missed; a move is still taken only if it is found better,
/// see `reinsert`.)
const MAX_SEARCH: usize = 64;

#[derive(Clone)]
struct Work {
    bmin: Vec<[f32; 3]>,
    bmax: Vec<[f32; 3]>,
    /// Children of interior nodes; `[NONE, NONE]` for leaves.
    child: Vec<[u32; 2]>,
    parent: Vec<u32>,
    /// Primitive count of leaves, 0 for interior nodes.
    count: Vec<u32>,
    root: u32,
}

#[derive(PartialEq)]
struct Cand(f32, u32);
impl Eq for Cand {}
impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cand {
    // Min-heap on cost, ties by node index (deterministic).
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}

fn union(
    a_min: &[f32; 3],
    a_max: &[f32; 3],
    b_min: &[f32; 3],
    b_max: &[f32; 3],
) -> ([f32; 3], [f32; 3]) {
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for k in 0..3 {
        lo[k] = a_min[k].min(b_min[k]);
        hi[k] = a_max[k].max(b_max[k]);
    }
    (lo, hi)
}

impl Work {
    fn area(&self, i: u32) -> f32 {
        half_area(&self.bmin[i as usize], &self.bmax[i as usize])
    }

    /// How much the parent's box shrinks when `x` leaves it: large for nodes that sit badly.
    fn removal_gain(&self, x: u32) -> f32 {
        let ap = self.area(self.parent[x as usize]);
        (ap - self.area(self.sibling(x))) / ap.max(f32::MIN_POSITIVE)
    }

    fn sibling(&self, x: u32) -> u32 {
        let c = self.child[self.parent[x as usize] as usize];
        if c[0] == x {
            c[1]
        } else {
            c[0]
        }
    }

    fn replace_child(&mut self, p: u32, old: u32, new: u32) {
        let c = &mut self.child[p as usize];
        if c[0] == old {
            c[0] = new;
        } else {
            c[1] = new;
        }
    }

    /// Recomputes boxes from `i` up to the root.
    fn refit_up(&mut self, mut i: u32) {
        while i != NONE {
            let [a, b] = self.child[i as usize];
            let (lo, hi) = union(
                &self.bmin[a as usize],
                &self.bmax[a as usize],
                &self.bmin[b as usize],
                &self.bmax[b as usize],
            );
            self.bmin[i as usize] = lo;
            self.bmax[i as usize] = hi;
            i = self.parent[i as usize];
        }
    }

    /// The node next to which inserting `x` raises the SAH cost least (branch and bound).
    /// `orig` is where `x` was (its old sibling): the search starts from that place's cost
    /// and only a strictly cheaper one replaces it, so a move never raises the cost even when
    /// the search is cut short.
    fn best_target(&self, x: u32, orig: u32, heap: &mut BinaryHeap<Cand>) -> u32 {
        let (xmin, xmax) = (self.bmin[x as usize], self.bmax[x as usize]);
        let ax = half_area(&xmin, &xmax);
        let grown = |i: u32| {
            let iu = i as usize;
            let (lo, hi) = union(&self.bmin[iu], &self.bmax[iu], &xmin, &xmax);
            half_area(&lo, &hi)
        };
        let mut best = orig;
        let mut best_cost = grown(orig);
        let mut a = self.parent[orig as usize];
        while a != NONE {
            best_cost += grown(a) - self.area(a);
            a = self.parent[a as usize];
        }
        heap.clear();
        heap.push(Cand(0.0, self.root));
        let mut visits = 0;
        while let Some(Cand(induced, t)) = heap.pop() {
            if induced + ax >= best_cost || visits == MAX_SEARCH {
                break;
            }
            visits += 1;
            let ti = t as usize;
            let (lo, hi) = union(&self.bmin[ti], &self.bmax[ti], &xmin, &xmax);
            let direct = half_area(&lo, &hi);
            let total = induced + direct;
            if total < best_cost {
                best_cost = total;
                best = t;
            }
            let [a, b] = self.child[ti];
            if a != NONE {
                let child_induced = total - self.area(t);
                if child_induced + ax < best_cost {
                    heap.push(Cand(child_induced, a));
                    heap.push(Cand(child_induced, b));
                }
            }
        }
        best
    }

    /// Removes `x` and reinserts it at the best place. `x` is neither the root nor a child of it.
    fn reinsert(&mut self, x: u32, heap: &mut BinaryHeap<Cand>) {
        let p = self.parent[x as usize];
        let s = self.sibling(x);
        let g = self.parent[p as usize];
        // Detach: the sibling takes the parent's place; `p` becomes free.
        self.replace_child(g, p, s);
        self.parent[s as usize] = g;
        self.refit_up(g);
        let t = self.best_target(x, s, heap);
        let tp = self.parent[t as usize];
        if tp == NONE {
            self.root = p;
        } else {
            self.replace_child(tp, t, p);
        }
        self.parent[p as usize] = tp;
        self.child[p as usize] = [t, x];
        self.parent[t as usize] = p;
        self.parent[x as usize] = p;
        self.refit_up(p);
    }

    /// The SAH cost as [`crate::Bvh::sah_cost`] computes it (every slot is a tree node).
    fn sah(&self) -> f64 {
        let root_area = self.area(self.root) as f64;
        let mut sum = 0.0;
        for i in 0..self.child.len() {
            let a = self.area(i as u32) as f64;
            let ratio = if root_area > 0.0 { a / root_area } else { 1.0 };
            sum += ratio * self.count[i].max(1) as f64;
        }
        sum
    }

    fn depth(&self) -> usize {
        let mut max = 0;
        let mut stack = vec![(self.root, 1usize)];
        while let Some((i, d)) = stack.pop() {
            max = max.max(d);
            let [a, b] = self.child[i as usize];
            if a != NONE {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
        }
        max
    }
}

/// Reinsertion optimization of `bvh` (already valid); keeps leaves as they are.
pub(crate) fn optimize(bvh: &mut Bvh, cfg: &OptimizeConfig, max_depth: usize) -> OptimizeReport {
    let t0 = Instant::now();
    let before = bvh.sah_cost();
    let mut report = OptimizeReport {
        sah_before: before,
        sah_after: before,
        ..OptimizeReport::default()
    };
    let len = bvh.nodes.len();
    if len < 7 {
        report.time = t0.elapsed();
        return report;
    }
    let mut w = Work {
        bmin: bvh.nodes.iter().map(|n| n.min).collect(),
        bmax: bvh.nodes.iter().map(|n| n.max).collect(),
        child: vec![[NONE, NONE]; len],
        parent: vec![NONE; len],
        count: bvh.nodes.iter().map(|n| n.count).collect(),
        root: 0,
    };
    for (i, n) in bvh.nodes.iter().enumerate() {
        if n.count == 0 {
            let c = n.index;
            w.child[i] = [c, c + 1];
            w.parent[c as usize] = i as u32;
            w.parent[c as usize + 1] = i as u32;
        }
    }
    let batch = ((len as f64 * cfg.batch_fraction.clamp(1e-4, 1.0) as f64).ceil() as usize).max(1);
    let mut moved = vec![false; len];
    let mut heap = BinaryHeap::new();
    let mut cost = before;
    for _ in 0..cfg.max_rounds {
        let mut cands: Vec<(f32, u32)> = (0..len as u32)
            .filter(|&i| !moved[i as usize])
            .filter(|&i| i != w.root && w.parent[i as usize] != w.root)
            .map(|i| (w.removal_gain(i), i))
            .collect();
        if cands.is_empty() {
            break;
        }
        let take = batch.min(cands.len());
        if take < cands.len() {
            cands.select_nth_unstable_by(take, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            cands.truncate(take);
        }
        cands.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let snapshot = w.clone();
        let mut count = 0;
        for &(_, x) in &cands {
            moved[x as usize] = true;
            let p = w.parent[x as usize];
            if x == w.root || p == w.root {
                continue;
            }
            w.reinsert(x, &mut heap);
            count += 1;
        }
        if w.depth() > max_depth {
            w = snapshot;
            break;
        }
        report.rounds += 1;
        report.reinsertions += count;
        let new_cost = w.sah();
        let gain = (cost - new_cost) / cost.max(f64::MIN_POSITIVE);
        cost = new_cost;
        if gain < cfg.min_improvement as f64 {
            break;
        }
    }
    let (nodes, indices, depth) = flatten(&w, bvh);
    bvh.nodes = nodes;
    bvh.prim_indices = indices;
    bvh.depth = depth;
    report.sah_after = bvh.sah_cost();
    report.time = t0.elapsed();
    report
}

/// Lays the working tree out depth first with siblings side by side, and re-permutes the
/// primitive indices so leaves are in the same order as in the node array.
fn flatten(w: &Work, old: &Bvh) -> (Vec<Node>, Vec<u32>, usize) {
    let len = w.child.len();
    let mut nodes = Vec::with_capacity(len);
    let mut indices = Vec::with_capacity(old.prim_indices.len());
    let mut depth = 0;
    nodes.push(old.nodes[0]);
    let mut stack = vec![(w.root, 0usize, 1usize)];
    while let Some((i, slot, d)) = stack.pop() {
        depth = depth.max(d);
        let iu = i as usize;
        let [a, b] = w.child[iu];
        if a == NONE {
            let src = &old.nodes[iu];
            let s = src.index as usize;
            let start = indices.len() as u32;
            indices.extend_from_slice(&old.prim_indices[s..s + src.count as usize]);
            nodes[slot] = Node {
                min: w.bmin[iu],
                index: start,
                max: w.bmax[iu],
                count: src.count,
            };
        } else {
            let c = nodes.len();
            nodes[slot] = Node {
                min: w.bmin[iu],
                index: c as u32,
                max: w.bmax[iu],
                count: 0,
            };
            nodes.push(nodes[slot]);
            nodes.push(nodes[slot]);
            stack.push((b, c + 1, d + 1));
            stack.push((a, c, d + 1));
        }
    }
    (nodes, indices, depth)
}

impl Bvh {
    /// Runs the reinsertion optimizer on this tree (what [`crate::BuildConfig::high_quality`]
    /// does after building), keeping its leaves, and reports the SAH cost before and after.
    /// The cost never rises; the tree stays valid and within [`crate::MAX_DEPTH`]. Node order
    /// and leaf order ([`Bvh::prim_indices`]) change.
    pub fn optimize(&mut self, config: &OptimizeConfig) -> OptimizeReport {
        optimize(self, config, crate::MAX_DEPTH)
    }
}
