//! Cost-optimal collapse of a binary BVH into a wide one, after Ylitie, Karras and Laine
//! 2017 ("Efficient incoherent ray traversal on GPUs through compressed wide BVHs",
//! section 4).
//!
//! A bottom-up dynamic program computes, for every binary node `n` and slot budget
//! `i in 1..=N`, the least SAH cost of representing `n`'s subtree with at most `i` child
//! slots of the wide parent:
//!
//! - one slot can be a leaf (a binary leaf, or a subtree of at most
//!   [`CollapseConfig::max_leaf`] primitives whose leaf-order positions are contiguous,
//!   which is free layout-wise), or an interior wide node whose own `N` slots are
//!   distributed over `n`'s two children;
//! - `i > 1` slots are distributed over the two children (`k` to the left, `i - k` to the
//!   right), or fewer are used.
//!
//! The tree is then emitted top-down from the recorded decisions. Time and memory are O(binary
//! node count x `N`^2) and O(binary node count x `N`); the emission recurses once per wide
//! level, which is at most the binary depth.

use super::{WideBvh, WideNode};
use crate::{Bvh, Node};
use raypick_primitives::simd::{huge_page_vec, HUGE_PAGE_MIN_BYTES};

/// How [`WideBvh::from_bvh_with`] collapses a binary tree into a wide one: the SAH costs the
/// dynamic program minimizes, and how large merged leaves may be.
///
/// The cost of a tree is the sum, over wide nodes, of `node_cost` times the node's box area,
/// plus, over leaves, `prim_cost` times the primitive count times the leaf's box area. Only
/// the ratio of the costs matters; non-finite or negative costs are replaced by the defaults.
///
/// The `compare` benchmark measures both presets (see `docs/performance.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollapseConfig {
    /// A binary subtree of at most this many primitives may become one leaf slot (binary
    /// leaves always may, whatever their size). Default 0: merge nothing, the leaves are the
    /// binary tree's (1 does the same); 8 in [`CollapseConfig::merge_leaves`].
    pub max_leaf: u32,
    /// SAH cost of visiting a wide node (testing its `N` boxes). Default 1.
    pub node_cost: f32,
    /// SAH cost of testing one primitive of a leaf. Default 0.3 (as
    /// `BuildConfig::balanced`'s intersection cost).
    pub prim_cost: f32,
}

impl CollapseConfig {
    /// The defaults listed on each field (used by [`WideBvh::from_bvh`]): the binary tree's
    /// leaves are kept; only which binary nodes become wide nodes is optimized.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            max_leaf: 0,
            node_cost: 1.0,
            prim_cost: 0.3,
        }
    }

    /// Subtrees of up to 8 primitives may merge into one leaf, and primitives are cheap
    /// (`prim_cost` 0.05, for a branch-free SIMD triangle test that stops after the edge
    /// functions on a miss): fewer, fuller nodes and the smallest trees (the values tried
    /// are in `docs/performance.md`). Leaf ranges then differ from the binary tree's, and a
    /// leaf's primitives come in leaf order, not nearest first.
    #[must_use]
    pub const fn merge_leaves() -> Self {
        Self {
            max_leaf: 8,
            node_cost: 1.0,
            prim_cost: 0.05,
        }
    }
}

impl Default for CollapseConfig {
    fn default() -> Self {
        Self::new()
    }
}

fn cost_or(c: f32, default: f32) -> f32 {
    if c.is_finite() && c >= 0.0 {
        c
    } else {
        default
    }
}

/// Decision for one (node, budget) pair: `(0, 0)` one leaf slot, `(0, 1)` one interior slot,
/// `(k, j)` `k` slots for the left child and `j` for the right.
type How = (u8, u8);
const LEAF: How = (0, 0);
const INTERIOR: How = (0, 1);

/// The dynamic program's result, per binary node.
pub(crate) struct Plan<const N: usize> {
    /// `how[n][i - 1]`: the best way to represent `n` with at most `i` slots.
    how: Vec<[How; N]>,
    /// Slots for the left child when `n` becomes a wide node (the right gets `N - split`).
    split: Vec<u8>,
    /// First leaf-order position of the subtree (meaningful where it may be a leaf).
    start: Vec<u32>,
    /// Primitives in the subtree, saturated at `u32::MAX`.
    count: Vec<u32>,
}

impl<const N: usize> Plan<N> {
    pub(crate) fn with_capacity(len: usize) -> Self {
        Self {
            how: Vec::with_capacity(len),
            split: Vec::with_capacity(len),
            start: Vec::with_capacity(len),
            count: Vec::with_capacity(len),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.how.len()
    }

    /// Appends a row for a node solved later ([`Plan::set_from`]).
    pub(crate) fn push_unsolved(&mut self) {
        self.how.push([LEAF; N]);
        self.split.push(0);
        self.start.push(0);
        self.count.push(0);
    }

    fn truncate(&mut self, len: usize) {
        self.how.truncate(len);
        self.split.truncate(len);
        self.start.truncate(len);
        self.count.truncate(len);
    }

    /// Overwrites node `n`'s decisions with node `m`'s of `other`.
    pub(crate) fn set_from(&mut self, n: usize, other: &Plan<N>, m: usize) {
        self.how[n] = other.how[m];
        self.split[n] = other.split[m];
        self.start[n] = other.start[m];
        self.count[n] = other.count[m];
    }

    /// Appends the decisions of `other`'s nodes `from..`, in order.
    pub(crate) fn extend_from(&mut self, other: &Plan<N>, from: usize) {
        self.how.extend_from_slice(&other.how[from..]);
        self.split.extend_from_slice(&other.split[from..]);
        self.start.extend_from_slice(&other.start[from..]);
        self.count.extend_from_slice(&other.count[from..]);
    }
}

/// What the dynamic program weighs: the costs of a [`CollapseConfig`] (invalid ones replaced
/// by the defaults), and the scale that makes box areas relative to the root's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rules {
    node_cost: f32,
    prim_cost: f32,
    max_leaf: u64,
    scale: f64,
}

impl Rules {
    /// The rules of `config` for a tree whose root is `root`.
    pub(crate) fn new(config: &CollapseConfig, root: &Node) -> Self {
        let defaults = CollapseConfig::new();
        // Areas relative to the root's (in f64, so huge boxes do not overflow); with a flat
        // root every node weighs 1, which still counts node visits and primitive tests.
        let root_area = f64::from(root.half_area());
        Self {
            node_cost: cost_or(config.node_cost, defaults.node_cost),
            prim_cost: cost_or(config.prim_cost, defaults.prim_cost),
            max_leaf: u64::from(config.max_leaf.max(1)),
            scale: if root_area.is_finite() && root_area > 0.0 {
                1.0 / root_area
            } else {
                0.0
            },
        }
    }

    #[inline(always)]
    fn area(&self, n: &Node) -> f32 {
        if self.scale > 0.0 {
            (f64::from(n.half_area()) * self.scale) as f32
        } else {
            1.0
        }
    }
}

/// What a parent's decisions are computed from, per child: `cost[i - 1]`, the least cost of
/// the child's subtree within `i` slots; the first leaf-order position, the end and the
/// primitive count (saturated at `u32::MAX`) of the subtree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sub<const N: usize> {
    cost: [f32; N],
    start: u32,
    count: u32,
    end: u64,
}

/// Solves binary node `n` of `bn` into row `n` of `cost`, `end` and `plan`, its children's
/// rows (the same indices, into the same arrays) solved before. The columns are read and
/// written in place: the loops over the budgets then unroll.
#[inline(always)]
fn solve<const N: usize>(
    rules: &Rules,
    bn: &[Node],
    n: usize,
    cost: &mut [[f32; N]],
    end: &mut [u64],
    plan: &mut Plan<N>,
) {
    let node = &bn[n];
    let a = rules.area(node);
    let Some(l) = node.first_child() else {
        // A binary leaf: one leaf slot, whatever the budget.
        plan.start[n] = node.index;
        plan.count[n] = node.count;
        end[n] = u64::from(node.index) + u64::from(node.count);
        cost[n] = [a * node.count as f32 * rules.prim_cost; N];
        plan.how[n] = [LEAF; N];
        return;
    };
    let r = l + 1;
    let s = plan.start[l].min(plan.start[r]);
    let e = end[l].max(end[r]);
    let cnt = u64::from(plan.count[l]) + u64::from(plan.count[r]);
    plan.start[n] = s;
    end[n] = e;
    plan.count[n] = u32::try_from(cnt).unwrap_or(u32::MAX);
    // Disjoint leaves: `cnt` positions within `s..e` are all of them when the sizes match.
    let leafable = cnt <= rules.max_leaf && e - u64::from(s) == cnt;

    // dist[i - 1]: the best split of exactly up to `i` slots over the two children.
    let mut dist = [f32::INFINITY; N];
    let mut dist_k = [1u8; N];
    for i in 2..=N {
        let mut best = cost[l][0] + cost[r][i - 2];
        let mut best_k = 1;
        for k in 2..i {
            let c = cost[l][k - 1] + cost[r][i - k - 1];
            if c < best {
                best = c;
                best_k = k;
            }
        }
        dist[i - 1] = best;
        dist_k[i - 1] = best_k as u8;
    }
    plan.split[n] = dist_k[N - 1];
    let interior = a * rules.node_cost + dist[N - 1];
    let leaf = a * cnt as f32 * rules.prim_cost;
    let (c1, h1) = if leafable && leaf <= interior {
        (leaf, LEAF)
    } else {
        (interior, INTERIOR)
    };
    let (c, h) = (&mut cost[n], &mut plan.how[n]);
    c[0] = c1;
    h[0] = h1;
    for i in 2..=N {
        // On a tie, use more slots: fuller, shallower nodes.
        if dist[i - 1] <= c[i - 2] {
            c[i - 1] = dist[i - 1];
            h[i - 1] = (dist_k[i - 1], (i - dist_k[i - 1] as usize) as u8);
        } else {
            c[i - 1] = c[i - 2];
            h[i - 1] = h[i - 2];
        }
    }
}

/// Solves the nodes `bn` (children after their parents, child indices into `bn`) bottom-up:
/// their decisions, and what the root's parent needs.
pub(crate) fn plan_nodes<const N: usize>(bn: &[Node], rules: &Rules) -> (Plan<N>, Sub<N>) {
    let len = bn.len();
    // Zeroed columns: allocated zeroed, each row written once when it is solved.
    let mut cost = vec![[0.0f32; N]; len];
    let mut end = vec![0u64; len];
    let mut plan = Plan::<N> {
        how: vec![[LEAF; N]; len],
        split: vec![0; len],
        start: vec![0; len],
        count: vec![0; len],
    };
    // Children come after their parents, so a reverse pass sees them first.
    for n in (0..len).rev() {
        solve(rules, bn, n, &mut cost, &mut end, &mut plan);
    }
    let root = Sub {
        cost: cost[0],
        start: plan.start[0],
        count: plan.count[0],
        end: end[0],
    };
    (plan, root)
}

/// Solves `node`, an interior node whose children solved to `l` and `r`: its decisions (the
/// one row of the plan returned), and what its parent needs.
pub(crate) fn plan_parent<const N: usize>(
    rules: &Rules,
    node: &Node,
    l: &Sub<N>,
    r: &Sub<N>,
) -> (Plan<N>, Sub<N>) {
    // The node and its children as a three-node tree, the children's rows filled in.
    let bn = [
        Node {
            index: 1,
            count: 0,
            ..*node
        },
        *node,
        *node,
    ];
    let mut cost = [[0.0f32; N], l.cost, r.cost];
    let mut end = [0, l.end, r.end];
    let mut plan = Plan::<N> {
        how: vec![[LEAF; N]; 3],
        split: vec![0; 3],
        start: vec![0, l.start, r.start],
        count: vec![0, l.count, r.count],
    };
    solve(rules, &bn, 0, &mut cost, &mut end, &mut plan);
    let sub = Sub {
        cost: cost[0],
        start: plan.start[0],
        count: plan.count[0],
        end: end[0],
    };
    plan.truncate(1);
    (plan, sub)
}

/// Collapses `bvh` with `config` (see the module docs); a `bvh` of one leaf gives a root with
/// one leaf slot, an empty one an empty tree.
pub(super) fn collapse<const N: usize>(bvh: &Bvh, config: &CollapseConfig) -> WideBvh<N> {
    let bn = bvh.nodes();
    if bn.is_empty() {
        return WideBvh::default();
    }
    let (plan, _) = plan_nodes::<N>(bn, &Rules::new(config, &bn[0]));
    collapse_planned(bvh, &plan)
}

/// Emits the wide tree `plan` chose for `bvh` (a plan of `bvh`'s nodes, not empty).
pub(crate) fn collapse_planned<const N: usize>(bvh: &Bvh, plan: &Plan<N>) -> WideBvh<N> {
    let bn = bvh.nodes();
    debug_assert_eq!(plan.len(), bn.len());
    // Each wide node but the root stands for a distinct interior binary node, of which a
    // binary tree has (len - 1) / 2; about (leaves - 1) / (N - 1) are used, fewer with merged
    // leaves. Rays read the nodes at random, so large trees go to huge pages: reserved at
    // the bound, filled in place and shrunk (pages never touched cost nothing).
    let bound = (bn.len() - 1) / 2 + 1;
    let mut nodes = if bound * std::mem::size_of::<WideNode<N>>() >= 2 * HUGE_PAGE_MIN_BYTES {
        huge_page_vec(bound)
    } else {
        Vec::with_capacity(bn.len() / (2 * (N - 1)) + 1)
    };
    nodes.push(WideNode::EMPTY);
    let mut depth = 0;
    emit(bn, plan, 0, 0, &mut nodes, 1, &mut depth);
    nodes.shrink_to_fit();
    WideBvh {
        nodes,
        prim_count: bvh.len(),
        depth,
    }
}

/// Fills the reserved node `out[idx]` from binary node `b` and the plan, then its
/// descendants. The interior children of a node are stored side by side (one block, appended
/// when the node is filled), so a node's children share cache lines and pages.
fn emit<const N: usize>(
    bn: &[Node],
    plan: &Plan<N>,
    b: usize,
    idx: usize,
    out: &mut Vec<WideNode<N>>,
    level: usize,
    depth: &mut usize,
) {
    *depth = (*depth).max(level);
    // (binary node, is a leaf slot), left to right.
    let mut slots = [(0usize, false); N];
    let mut len = 0;
    if bn[b].is_leaf() {
        slots[0] = (b, true);
        len = 1;
    } else {
        // Pending (node, budget) pairs; budgets are at least 1 and sum to at most N.
        let mut stack = [(0usize, 0usize); N];
        let l = bn[b].index as usize;
        let k = plan.split[b] as usize;
        stack[0] = (l + 1, N - k);
        stack[1] = (l, k);
        let mut top = 2;
        while top > 0 {
            top -= 1;
            let (m, i) = stack[top];
            match plan.how[m][i - 1] {
                LEAF => {
                    slots[len] = (m, true);
                    len += 1;
                }
                INTERIOR => {
                    slots[len] = (m, false);
                    len += 1;
                }
                (kl, kr) => {
                    let c = bn[m].index as usize;
                    stack[top] = (c + 1, kr as usize);
                    stack[top + 1] = (c, kl as usize);
                    top += 2;
                }
            }
        }
    }
    let slots = &slots[..len];
    let first = out.len();
    let mut node = WideNode::<N>::EMPTY;
    let mut next = first;
    for (i, &(s, leaf)) in slots.iter().enumerate() {
        if leaf {
            node.set(i, &bn[s], plan.start[s], plan.count[s]);
        } else {
            node.set(i, &bn[s], next as u32, 0);
            next += 1;
        }
    }
    out[idx] = node;
    out.resize(next, WideNode::EMPTY);
    let interior = slots.iter().filter(|&&(_, leaf)| !leaf);
    for (k, &(s, _)) in interior.enumerate() {
        emit(bn, plan, s, first + k, out, level + 1, depth);
    }
}
