//! Mesh against mesh, each under its own affine transform: do they touch, which triangle
//! pairs intersect, and how close they come. A traversal of both trees at once (descending
//! the larger box of each pair), exact f64 triangle-triangle tests at the leaves, and
//! pruning by the best distance so far.

use std::ops::Range;

use nalgebra::Matrix4;
use raypick_bvh::wide::{WideChild, WideLayout};
use raypick_primitives::{
    triangle_triangle, triangle_triangle_distance, Aabb, Point3, Real, Triangle,
};

use smallvec::SmallVec;

use crate::mesh::{with_tree, Mesh};

/// The closest points of two meshes (world space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshDistance {
    /// Their distance; 0 when they touch.
    pub distance: Real,
    /// The point of the first mesh nearest the second.
    pub point_a: Point3<Real>,
    /// The point of the second mesh nearest the first.
    pub point_b: Point3<Real>,
    /// The original index of the first mesh's triangle holding `point_a`.
    pub triangle_a: u32,
    /// The original index of the second mesh's triangle holding `point_b`.
    pub triangle_b: u32,
}

/// A subtree of a mesh's tree: the whole tree, a node or a leaf range.
#[derive(Clone, Debug)]
enum Part {
    Node(usize),
    Leaf(Range<usize>),
}

/// A mesh placed in the world.
struct Placed<'a, L> {
    mesh: &'a Mesh,
    nodes: &'a [L],
    m: &'a Matrix4<Real>,
}

/// `b` under the affine `m`: the box of its transformed corners, grown by a few ulps of its
/// magnitude so that it holds every vertex transformed in f32 (rounding may put a
/// transformed vertex a hair outside the box of transformed corners).
fn world_box(m: &Matrix4<Real>, b: &Aabb) -> Aabb {
    let mut out = Aabb::EMPTY;
    for i in 0..8 {
        let c = Point3::new(
            if i & 1 == 0 { b.min.x } else { b.max.x },
            if i & 2 == 0 { b.min.y } else { b.max.y },
            if i & 4 == 0 { b.min.z } else { b.max.z },
        );
        out = out.grow(&m.transform_point(&c));
    }
    let mag = out.min.coords.abs().max() + out.max.coords.abs().max();
    let pad = nalgebra::Vector3::repeat(mag * 8.0 * Real::EPSILON);
    Aabb::new(out.min - pad, out.max + pad)
}

/// The distance between two boxes (0 when they overlap or touch), in f64: in f32 the squared
/// gaps of boxes 2e19 apart overflow, and an infinite distance would prune every pair.
fn box_distance(a: &Aabb, b: &Aabb) -> f64 {
    let mut d2 = 0.0;
    for k in 0..3 {
        let (lo_a, hi_a) = (f64::from(a.min[k]), f64::from(a.max[k]));
        let (lo_b, hi_b) = (f64::from(b.min[k]), f64::from(b.max[k]));
        let gap = (lo_a - hi_b).max(lo_b - hi_a).max(0.0);
        d2 += gap * gap;
    }
    d2.sqrt()
}

/// The squared diagonal of a box, in f64 (as [`box_distance`]).
fn diag(b: &Aabb) -> f64 {
    (0..3)
        .map(|k| (f64::from(b.max[k]) - f64::from(b.min[k])).powi(2))
        .sum()
}

impl<L: WideLayout<8>> Placed<'_, L> {
    /// The parts below `part`, with their world boxes.
    fn children(&self, part: &Part, out: &mut Vec<(Part, Aabb)>) {
        out.clear();
        let Part::Node(n) = part else { return };
        let node = &self.nodes[*n];
        for s in 0..8 {
            let p = match node.child(s) {
                WideChild::Empty => break,
                WideChild::Node(c) => Part::Node(c),
                WideChild::Leaf(r) => Part::Leaf(r),
            };
            out.push((p, world_box(self.m, &node.child_aabb(s))));
        }
    }

    /// The world triangles of a leaf, with their original indices.
    fn triangles(&self, r: Range<usize>, out: &mut Vec<(u32, Triangle)>) {
        out.clear();
        let tris = &self.mesh.tris;
        for (prim, [a, b, c]) in tris.leaf_prims(r.clone()).zip(tris.leaf(r)) {
            let t = [a, b, c].map(|p| self.m.transform_point(&p));
            out.push((prim, Triangle::new(t[0], t[1], t[2])));
        }
    }
}

/// What the traversal looks for.
trait PairVisitor {
    /// The largest box distance still worth descending into (0: overlapping boxes only).
    fn reach(&self) -> Real;
    /// Tests two leaves' world triangles; `true` stops the traversal.
    fn leaves(&mut self, a: &[(u32, Triangle)], b: &[(u32, Triangle)]) -> bool;
}

/// Runs `v` over the pairs of parts of `a` and `b` whose world boxes are within
/// `v.reach()`, nearer pairs first.
fn traverse<LA: WideLayout<8>, LB: WideLayout<8>>(
    a: &Placed<'_, LA>,
    b: &Placed<'_, LB>,
    v: &mut impl PairVisitor,
) {
    if a.nodes.is_empty() || b.nodes.is_empty() {
        return;
    }
    let root_a = world_box(a.m, &a.mesh.bounds());
    let root_b = world_box(b.m, &b.mesh.bounds());
    let mut stack = vec![(
        box_distance(&root_a, &root_b),
        Part::Node(0),
        root_a,
        Part::Node(0),
        root_b,
    )];
    let (mut kids, mut ta, mut tb) = (Vec::new(), Vec::new(), Vec::new());
    while let Some((d, pa, ba, pb, bb)) = stack.pop() {
        if d > f64::from(v.reach()) {
            continue;
        }
        // Descend the node with the larger box (a leaf cannot be descended).
        let split_a = match (&pa, &pb) {
            (Part::Leaf(ra), Part::Leaf(rb)) => {
                a.triangles(ra.clone(), &mut ta);
                b.triangles(rb.clone(), &mut tb);
                if v.leaves(&ta, &tb) {
                    return;
                }
                continue;
            }
            (Part::Node(_), Part::Leaf(_)) => true,
            (Part::Leaf(_), Part::Node(_)) => false,
            _ => diag(&ba) >= diag(&bb),
        };
        let first = stack.len();
        if split_a {
            a.children(&pa, &mut kids);
            for (p, bx) in kids.drain(..) {
                let d = box_distance(&bx, &bb);
                if d <= f64::from(v.reach()) {
                    stack.push((d, p, bx, pb.clone(), bb));
                }
            }
        } else {
            b.children(&pb, &mut kids);
            for (p, bx) in kids.drain(..) {
                let d = box_distance(&ba, &bx);
                if d <= f64::from(v.reach()) {
                    stack.push((d, pa.clone(), ba, p, bx));
                }
            }
        }
        // Nearest pair on top.
        stack[first..].sort_by(|x, y| y.0.total_cmp(&x.0));
    }
}

struct Any(bool);

impl PairVisitor for Any {
    fn reach(&self) -> Real {
        0.0
    }
    fn leaves(&mut self, a: &[(u32, Triangle)], b: &[(u32, Triangle)]) -> bool {
        self.0 = touching(a, b, |_, _| true);
        self.0
    }
}

struct Pairs(Vec<(u32, u32)>);

impl PairVisitor for Pairs {
    fn reach(&self) -> Real {
        0.0
    }
    fn leaves(&mut self, a: &[(u32, Triangle)], b: &[(u32, Triangle)]) -> bool {
        touching(a, b, |ia, ib| {
            self.0.push((ia, ib));
            false
        })
    }
}

struct Closest {
    best: Option<MeshDistance>,
    limit: Real,
}

impl PairVisitor for Closest {
    fn reach(&self) -> Real {
        self.best.map_or(self.limit, |b| b.distance)
    }
    fn leaves(&mut self, a: &[(u32, Triangle)], b: &[(u32, Triangle)]) -> bool {
        let boxes_b: SmallVec<[Aabb; 16]> = b.iter().map(|(_, t)| t.aabb()).collect();
        for (ia, ta) in a {
            let box_a = ta.aabb();
            for ((ib, tb), box_b) in b.iter().zip(&boxes_b) {
                // The distance between the two triangles' boxes bounds theirs from below: a
                // pair whose boxes lie farther apart than the best distance so far, by more
                // than the f32 rounding of both (a few parts in 10^7), can neither beat it
                // nor tie with it, and skips the exact test (most of the work).
                if box_distance(&box_a, box_b) > f64::from(self.reach()) * (1.0 + 1e-6) {
                    continue;
                }
                let Some(d) = triangle_triangle_distance(ta, tb) else {
                    continue;
                };
                let better = match &self.best {
                    None => d.distance <= self.limit,
                    Some(best) => {
                        d.distance < best.distance
                            || (d.distance == best.distance
                                && (*ia, *ib) < (best.triangle_a, best.triangle_b))
                    }
                };
                if better {
                    self.best = Some(MeshDistance {
                        distance: d.distance,
                        point_a: d.point_a,
                        point_b: d.point_b,
                        triangle_a: *ia,
                        triangle_b: *ib,
                    });
                    if d.distance == 0.0 {
                        // Touching: nothing is nearer, and the lowest of possibly very many
                        // touching pairs is not sought (see `Mesh::min_distance`).
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Calls `f` on the touching pairs of `a` and `b` (original indices), in order, until it
/// returns true (then true). The exact test runs only where the triangles' boxes overlap:
/// touching triangles have overlapping boxes, whose computed distance is 0 (a difference of
/// floats has the sign of the exact one).
fn touching(
    a: &[(u32, Triangle)],
    b: &[(u32, Triangle)],
    mut f: impl FnMut(u32, u32) -> bool,
) -> bool {
    let boxes_b: SmallVec<[Aabb; 16]> = b.iter().map(|(_, t)| t.aabb()).collect();
    for (ia, ta) in a {
        let box_a = ta.aabb();
        for ((ib, tb), box_b) in b.iter().zip(&boxes_b) {
            if box_distance(&box_a, box_b) == 0.0 && triangle_triangle(ta, tb) && f(*ia, *ib) {
                return true;
            }
        }
    }
    false
}

fn finite(m: &Matrix4<Real>) -> bool {
    m.iter().all(|v| v.is_finite())
}

/// Runs `v` over `a` placed by `ma` and `b` placed by `mb`.
fn run(a: &Mesh, ma: &Matrix4<Real>, b: &Mesh, mb: &Matrix4<Real>, v: &mut impl PairVisitor) {
    with_tree!(&a.wide, ta => with_tree!(&b.wide, tb => traverse(
        &Placed { mesh: a, nodes: ta.nodes(), m: ma },
        &Placed { mesh: b, nodes: tb.nodes(), m: mb },
        v,
    )));
}

impl Mesh {
    /// True when this mesh, placed in the world by the affine `pose`, touches `other`
    /// placed by `other_pose` (a triangle of each sharing a point; one mesh wholly inside
    /// the other without touching is not an intersection: see [`Mesh::contains`]).
    ///
    /// Vertices are placed with `Matrix4::transform_point` in f32, and triangle pairs
    /// tested exactly in f64 ([`raypick_primitives::triangle_triangle()`]). False when a mesh
    /// is empty or a pose has a non-finite entry.
    ///
    /// ```
    /// use nalgebra::{Matrix4, Vector3};
    /// use raypick_query::Mesh;
    /// use raypick_primitives::Point3;
    ///
    /// let tri = Mesh::new(
    ///     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// let id = Matrix4::identity();
    /// let up = Matrix4::new_translation(&Vector3::new(0.0, 0.0, 2.0));
    /// assert!(tri.intersects(&id, &tri, &id));
    /// assert!(!tri.intersects(&id, &tri, &up));
    /// let d = tri.min_distance(&id, &tri, &up, f32::INFINITY).unwrap();
    /// assert_eq!(d.distance, 2.0);
    /// ```
    #[must_use]
    pub fn intersects(
        &self,
        pose: &Matrix4<Real>,
        other: &Mesh,
        other_pose: &Matrix4<Real>,
    ) -> bool {
        if !finite(pose) || !finite(other_pose) {
            return false;
        }
        let mut v = Any(false);
        run(self, pose, other, other_pose, &mut v);
        v.0
    }

    /// Every pair `(triangle of self, triangle of other)` that touches, placed as in
    /// [`Mesh::intersects`], sorted. Empty when a mesh is empty or a pose is not finite.
    #[must_use]
    pub fn intersecting_pairs(
        &self,
        pose: &Matrix4<Real>,
        other: &Mesh,
        other_pose: &Matrix4<Real>,
    ) -> Vec<(u32, u32)> {
        if !finite(pose) || !finite(other_pose) {
            return Vec::new();
        }
        let mut v = Pairs(Vec::new());
        run(self, pose, other, other_pose, &mut v);
        v.0.sort_unstable();
        // A pre-split triangle fills several leaves: its pairs are found once per slot.
        v.0.dedup();
        v.0
    }

    /// The closest points of this mesh and `other`, placed as in [`Mesh::intersects`], when
    /// they come within `max_distance` (inclusive; `f32::INFINITY` for no limit).
    ///
    /// Exactly the minimum of [`raypick_primitives::triangle_triangle_distance`] over all
    /// pairs of world triangles; among pairs at the same positive distance the lowest
    /// `(triangle_a, triangle_b)` wins. Distance 0 when they touch, with the first touching
    /// pair the traversal meets (the same pair for the same meshes and poses): the search
    /// stops there, as [`Mesh::intersects`] does, rather than go through every touching pair
    /// ([`Mesh::intersecting_pairs`] lists them). `None` when a mesh is empty, a pose is not
    /// finite, `max_distance` is negative or NaN, or nothing is within it.
    #[must_use]
    pub fn min_distance(
        &self,
        pose: &Matrix4<Real>,
        other: &Mesh,
        other_pose: &Matrix4<Real>,
        max_distance: Real,
    ) -> Option<MeshDistance> {
        if !finite(pose) || !finite(other_pose) || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        let mut v = Closest {
            best: None,
            limit: max_distance,
        };
        run(self, pose, other, other_pose, &mut v);
        v.best
    }
}
