//! Building a [`WindingTree`](super::WindingTree)'s expansion lanes: each slot's far-field
//! expansion, from its leaf's triangles or its child node's slots, subtree by subtree.

use std::ops::Range;

use rayon::prelude::*;

use raypick_bvh::wide::{WideChild, WideLayout};
use raypick_primitives::Aabb;

use super::angle::{dot, sub, v64, V64};
use super::expansion::{centroid, Expansion};
use super::lanes::{ExpansionLanes, Frame};
use super::tree::W;
use crate::mesh::Mesh;

/// Corners of `b` in f64.
fn corners(b: &Aabb) -> [V64; 8] {
    let (lo, hi) = (v64(&b.min), v64(&b.max));
    std::array::from_fn(|i| {
        [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]
    })
}

/// The largest distance from `c` to a point of `b`.
fn radius(c: V64, b: &Aabb) -> f64 {
    corners(b)
        .iter()
        .map(|k| {
            let d = sub(*k, c);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0, f64::max)
}

fn norm(v: V64) -> f64 {
    dot(v, v).sqrt()
}

pub(super) fn box_center(b: &Aabb) -> V64 {
    let (lo, hi) = (v64(&b.min), v64(&b.max));
    [0, 1, 2].map(|i| 0.5 * (lo[i] + hi[i]))
}

/// The expansions of a tree's slots, built subtree by subtree: a node's slots from its
/// leaves' triangles and its children's slots, so that only a path's slots are held at once
/// (all of them held took 100 MB on a 1M-triangle mesh), the top subtrees on rayon.
struct Build<'a, L> {
    mesh: &'a Mesh,
    nodes: &'a [L],
    frame: Frame,
    split: bool,
}

/// Subtrees this shallow are built as parallel tasks.
const PARALLEL_DEPTH: usize = 3;

impl<L: WideLayout<W> + Sync> Build<'_, L> {
    /// Node `n`'s slots (at `depth`), finished, with the lanes of its subtree's nodes pushed
    /// to `placed` by node index.
    fn node(
        &self,
        n: usize,
        depth: usize,
        placed: &mut Vec<(usize, Box<ExpansionLanes>)>,
    ) -> [Expansion; W] {
        let node = &self.nodes[n];
        // The slots holding a child node, with it.
        let inner: Vec<(usize, usize)> = (0..W)
            .filter_map(|s| match node.child(s) {
                WideChild::Node(c) => Some((s, c)),
                _ => None,
            })
            .collect();
        let kids: Vec<(usize, [Expansion; W])> = if depth < PARALLEL_DEPTH {
            let built: Vec<_> = inner
                .par_iter()
                .map(|&(s, c)| {
                    let mut sub = Vec::new();
                    let e = self.node(c, depth + 1, &mut sub);
                    (s, e, sub)
                })
                .collect();
            built
                .into_iter()
                .map(|(s, e, mut sub)| {
                    placed.append(&mut sub);
                    (s, e)
                })
                .collect()
        } else {
            inner
                .iter()
                .map(|&(s, c)| (s, self.node(c, depth + 1, placed)))
                .collect()
        };
        let mut slots = [Expansion::default(); W];
        for (s, slot) in slots.iter_mut().enumerate().take(node.child_count()) {
            let b = node.child_aabb(s);
            *slot = match node.child(s) {
                WideChild::Empty => Expansion::default(),
                WideChild::Leaf(r) => self.leaf(r, &b),
                // Every child node is built above.
                WideChild::Node(c) => kids
                    .iter()
                    .find(|k| k.0 == s)
                    .map_or_else(Expansion::default, |k| {
                        self.merged(&k.1[..self.nodes[c].child_count()], &b)
                    }),
            };
            slot.finish();
        }
        placed.push((
            n,
            Box::new(ExpansionLanes::new(
                &slots[..node.child_count()],
                &self.frame,
            )),
        ));
        slots
    }

    /// Each triangle of leaf `r` counted once: a pre-split triangle's other slots are
    /// skipped, and as its parts' boxes do not hold it whole, only the corners bound a
    /// cluster.
    fn tris(&self, r: Range<usize>) -> impl Iterator<Item = [V64; 3]> + '_ {
        r.clone()
            .zip(self.mesh.tris.leaf(r))
            .filter(|(pos, _)| !self.mesh.is_secondary(*pos))
            .map(|(_, t)| [v64(&t[0]), v64(&t[1]), v64(&t[2])])
    }

    /// The radius bound: the farthest corner or child ball, or the box's where it is
    /// tighter (not for pre-split triangles, which their parts' boxes do not hold).
    fn bound(&self, far: f64, c: V64, b: &Aabb) -> f64 {
        if self.split {
            far
        } else {
            far.min(radius(c, b))
        }
    }

    fn leaf(&self, r: Range<usize>, b: &Aabb) -> Expansion {
        let c = centroid(self.tris(r.clone()), box_center(b));
        // The farthest corner bounds the cluster more tightly than the box.
        let far = self
            .tris(r.clone())
            .flatten()
            .map(|v| norm(sub(v, c)))
            .fold(0.0, f64::max);
        Expansion::of_triangles(self.tris(r), c, self.bound(far, c, b))
    }

    /// The expansion of a child node from its slots `kids`, about the area-weighted center
    /// of their centers (their area centroids), or the box center for a cluster without
    /// area.
    fn merged(&self, kids: &[Expansion], b: &Aabb) -> Expansion {
        let area: f64 = kids.iter().map(|k| k.area).sum();
        let c = if area > 0.0 && area.is_finite() {
            let mut c = [0.0; 3];
            for k in kids {
                for (ci, ki) in c.iter_mut().zip(k.center) {
                    *ci += k.area * ki / area;
                }
            }
            c
        } else {
            box_center(b)
        };
        let far = kids
            .iter()
            .map(|k| norm(sub(k.center, c)) + k.radius)
            .fold(0.0, f64::max);
        let mut e = Expansion::empty(c, self.bound(far, c, b));
        for k in kids {
            e.add_shifted(k);
        }
        e
    }
}

/// The expansion lanes of every node of `nodes`, the tree of `mesh`, in node order.
pub(super) fn build_lanes<L: WideLayout<W> + Sync>(
    mesh: &Mesh,
    nodes: &[L],
    frame: Frame,
) -> Vec<ExpansionLanes> {
    if nodes.is_empty() {
        return Vec::new();
    }
    let build = Build {
        mesh,
        nodes,
        frame,
        split: mesh.has_split_triangles(),
    };
    let mut placed = Vec::with_capacity(nodes.len());
    build.node(0, 0, &mut placed);
    placed.sort_unstable_by_key(|(n, _)| *n);
    placed.into_iter().map(|(_, l)| *l).collect()
}
