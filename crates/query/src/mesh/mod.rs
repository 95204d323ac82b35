//! [`Mesh`]: one triangle mesh with its BVH, and its queries.
//!
//! The mesh is built with a binary SAH [`Bvh`](raypick_bvh::Bvh), collapsed to an 8-wide
//! tree ([`Bvh8`]) that serves every query (rays, nearest point, overlaps) and every refit;
//! the binary tree is dropped after the build. The collapse merges binary subtrees of up to
//! 8 triangles into one leaf ([`CollapseConfig::merge_leaves`]): fewer, fuller nodes, so
//! fewer bytes per triangle and faster closest hits on large meshes, with nearest-point
//! queries as fast. The triangles are stored in the tree's leaf order, 36 bytes each, so a
//! leaf's triangles are contiguous, and laid out in rows for the SIMD kernel (`leaf_tris`);
//! [`Mesh::prim_indices`] maps each leaf slot back to the original triangle index. Slivers
//! lying across the axes are pre-split before the build ([`BuildConfig::presplit`]): such a
//! triangle fills several leaf slots, each boxing one part of it; queries that enumerate
//! triangles report it once.
//!
//! Large meshes store the tree with compact nodes ([`NodeLayout`]): child boxes quantized to
//! 8 bits per plane, 128 bytes per node instead of 256, so fewer cache misses per ray once
//! the nodes outgrow the CPU's caches; the boxes stay conservative, so every answer is the
//! same.

mod all_hits;
mod batch;
mod error;
pub(crate) mod leaf_tris;
pub(crate) mod nearest;
mod overlap;
pub(crate) mod presplit;
pub(crate) mod ray;
mod slot_disks;
pub(crate) mod solid;
mod tree;
mod triangle_kernel;
#[cfg(target_arch = "x86_64")]
mod triangle_kernel_x86;

use raypick_bvh::wide::{Bvh8, CollapseConfig};
use raypick_bvh::BuildConfig;
use raypick_primitives::{Aabb, Point3, Real};

use leaf_tris::LeafTriangles;
use rayon::prelude::*;

pub use error::MeshError;
pub use nearest::NearestPoint;
pub use overlap::FrustumSelection;
pub(crate) use ray::{ray_extent, traversal_range};
pub use ray::{Hit, RayQuery};
pub(crate) use solid::par_map;
pub use solid::{GridConfig, MeshDistance, SignedDistance};
pub(crate) use tree::with_tree;
pub use tree::{MeshTree, NodeLayout};

/// A triangle mesh with a BVH, answering ray, nearest-point and overlap queries.
///
/// Built from vertex positions and index triples ([`Mesh::new`]); vertices can move later
/// ([`Mesh::update_positions`]) while the connectivity stays. Triangles are reported by their
/// original index (their position in the `triangles` given). Degenerate (zero-area)
/// triangles are kept: they never hit a ray, but count for nearest-point and overlap
/// queries, as the segment or point they are. An empty mesh is valid and finds nothing.
///
/// ```
/// use raypick_query::{Mesh, RayQuery};
/// use raypick_primitives::{Point3, Ray, Vector3};
///
/// // A unit square in the z = 0 plane, made of two triangles.
/// let positions = vec![
///     Point3::new(0.0, 0.0, 0.0),
///     Point3::new(1.0, 0.0, 0.0),
///     Point3::new(1.0, 1.0, 0.0),
///     Point3::new(0.0, 1.0, 0.0),
/// ];
/// let mesh = Mesh::new(positions, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
///
/// let ray = Ray::new(Point3::new(0.25, 0.75, 2.0), Vector3::new(0.0, 0.0, -1.0));
/// let hit = mesh.closest_hit(&ray, &RayQuery::default()).unwrap();
/// assert_eq!((hit.t, hit.triangle), (2.0, 1));
/// assert!(hit.front_face);
/// // Through the shared diagonal: one crossing, not two.
/// let diag = Ray::new(Point3::new(0.5, 0.5, 2.0), Vector3::new(0.0, 0.0, -1.0));
/// assert_eq!(mesh.all_hits(&diag, &RayQuery::default()).len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Mesh {
    /// The 8-wide tree every query traverses (SIMD box tests for rays), plain or compact.
    pub(crate) wide: MeshTree,
    /// Vertices of each triangle, in leaf order, with their original indices and degenerate
    /// flags.
    pub(crate) tris: LeafTriangles,
    /// Vertex indices of each triangle, in leaf order (for `update_positions`).
    pub(crate) indices: Vec<[u32; 3]>,
    pub(crate) vertex_count: usize,
    /// The number of triangles (leaf slots may be more: a pre-split triangle fills several).
    pub(crate) triangle_count: usize,
    /// A bit per leaf slot, set on every slot of a triangle that fills several (pre-split);
    /// empty when every triangle fills one. The queries that enumerate triangles report
    /// each once by it.
    pub(crate) split: Vec<u64>,
    /// A bit per leaf slot, set on every slot of a triangle but its first in leaf order;
    /// empty when every triangle fills one slot. The solid queries sum each triangle once
    /// by it.
    pub(crate) secondary: Vec<u64>,
    /// The piece of its triangle each slot of [`Mesh::split`] holds, by slot: a refit
    /// boxes that piece of the moved triangle rather than all of it.
    pub(crate) pieces: Vec<presplit::SlotPiece>,
    /// The layout asked for: under [`NodeLayout::Auto`] a compact tree turns plain at the
    /// first [`Mesh::update_positions`] (a moving mesh refits often, and the plain refit is
    /// the fast one).
    pub(crate) layout: NodeLayout,
    /// The solid queries' structure (the boundary found at the first solid query, the
    /// far-field expansions at the first winding sum), dropped when the vertices move.
    pub(crate) winding: std::sync::OnceLock<solid::WindingTree>,
    /// The tree slots' thick disks for the nearest-point search, built at the first such
    /// search and dropped when the vertices move or the tree changes layout.
    pub(crate) disks: std::sync::OnceLock<slot_disks::SlotDisks>,
    /// The tree's root box, for the ray queries' test of rays passing beside the mesh; set
    /// wherever the tree changes.
    pub(crate) reach: ray::RootReach,
}

impl Mesh {
    /// Builds a mesh over `positions` and index triples `triangles` with the default
    /// [`BuildConfig`] (balanced).
    ///
    /// Errors: an index out of range ([`MeshError::IndexOutOfRange`], naming the triangle and
    /// corner) or a NaN or infinite vertex ([`MeshError::NonFiniteVertex`], naming the vertex;
    /// every vertex is checked, used or not). No triangles (or no vertices and no triangles)
    /// gives an empty mesh that never hits.
    pub fn new(positions: Vec<Point3<Real>>, triangles: Vec<[u32; 3]>) -> Result<Mesh, MeshError> {
        Self::with_config(positions, triangles, &BuildConfig::default())
    }

    /// [`Mesh::new`] with a BVH build configuration (see [`BuildConfig::fast`],
    /// [`BuildConfig::balanced`], [`BuildConfig::high_quality`]).
    pub fn with_config(
        positions: Vec<Point3<Real>>,
        triangles: Vec<[u32; 3]>,
        config: &BuildConfig,
    ) -> Result<Mesh, MeshError> {
        check_positions(&positions)?;
        if triangles.len() > MAX_TRIANGLES {
            return Err(MeshError::TooManyTriangles {
                count: triangles.len(),
            });
        }
        check_indices(&triangles, positions.len())?;
        let to_box = |tri: &[u32; 3]| triangle_box(&positions, tri);
        let parallel = triangles.len() >= PARALLEL_BUILD;
        let boxes: Vec<Aabb> = map_all(&triangles, parallel, to_box);
        // Slivers get several boxes, one per part (`presplit`); a triangle may then fill
        // several leaf slots.
        let (boxes, refs) = presplit::presplit(&positions, &triangles, boxes, config.presplit);
        let (bvh, wide) = Bvh8::build(&boxes, config, &CollapseConfig::merge_leaves())?;
        drop(boxes);
        // The original index of each slot, in leaf order (kept in the leaf rows).
        let prims: Vec<u32> = match &refs {
            Some(r) => bvh
                .prim_indices()
                .iter()
                .map(|&i| r.triangle[i as usize])
                .collect(),
            None => bvh.prim_indices().to_vec(),
        };
        let (split, secondary) = presplit::split_slots(&prims, triangles.len());
        let pieces = match &refs {
            Some(r) => presplit::slot_pieces(&split, bvh.prim_indices(), r),
            None => Vec::new(),
        };
        drop(bvh);
        let reindex = |&p: &u32| triangles[p as usize];
        let indices: Vec<[u32; 3]> = map_all(&prims, parallel, reindex);
        // Any-hit traversals take a node's slots in order: the densest first.
        let mut wide = wide;
        // The areas in leaf order first, in parallel (the pass over nodes is serial), each
        // leaf's sum then taken in the same order as from the triangles.
        let area = |t: &[u32; 3]| triangle_area(&positions, t);
        let areas: Vec<f64> = map_all(&indices, parallel, area);
        wide.order_slots_by_density(|range| areas[range].iter().sum());
        drop(areas);
        let leaves = wide.leaf_ranges();
        // The leaf rows are filled beside the node quantization.
        let (tris, wide) = rayon::join(
            || LeafTriangles::from_indices(&indices, &prims, &positions, &leaves),
            || MeshTree::new(wide, NodeLayout::Auto),
        );
        let wide = wide?;
        let n = positions.len();
        Ok(Mesh {
            reach: ray::RootReach::new(&wide.bounds()),
            wide,
            tris,
            indices,
            vertex_count: n,
            triangle_count: triangles.len(),
            split,
            secondary,
            pieces,
            layout: NodeLayout::Auto,
            winding: std::sync::OnceLock::new(),
            disks: std::sync::OnceLock::new(),
        })
    }

    /// Moves the vertices to `positions` (same count as at construction, same connectivity)
    /// and refits the tree, keeping its shape.
    ///
    /// Queries afterwards see the new positions exactly. Errors, leaving the mesh unchanged:
    /// [`MeshError::VertexCountMismatch`], [`MeshError::NonFiniteVertex`]. Two passes, both
    /// in place and allocation-free, in parallel with rayon from 32,768 triangles: the
    /// leaf-order vertices (and degenerate flags) are rewritten from `positions`, then every
    /// leaf box of the 8-wide tree is recomputed from its triangles and the interior boxes
    /// bottom-up. O(triangles + nodes). Tree quality degrades when vertices move far;
    /// rebuild the mesh then. A pre-split triangle ([`BuildConfig::presplit`]) keeps its
    /// slots, each boxing its piece of the moved triangle, cut again on the grid over the
    /// moved mesh (on a mesh with such triangles, that cut runs per slot and allocates
    /// nothing).
    ///
    /// A tree [`NodeLayout::Auto`] made compact turns plain at the first update (its nodes
    /// are allocated once, then refit in place): a moving mesh wants the fast refit. A tree
    /// set compact explicitly is re-quantized bottom-up (in parallel for the nodes of leaves
    /// only), which costs more than the plain refit.
    pub fn update_positions(&mut self, positions: &[Point3<Real>]) -> Result<(), MeshError> {
        if positions.len() != self.vertex_count {
            return Err(MeshError::VertexCountMismatch {
                expected: self.vertex_count,
                found: positions.len(),
            });
        }
        check_positions(positions)?;
        self.winding = std::sync::OnceLock::new();
        self.disks = std::sync::OnceLock::new();
        self.tris.fill(&self.indices, positions);
        let boxes = presplit::SlotBoxes::new(&self.tris, &self.split, &self.pieces);
        if let (NodeLayout::Auto, MeshTree::Compact(c)) = (self.layout, &self.wide) {
            // A moving mesh: plain nodes, whose update is faster than re-quantizing
            // (measured 20-24 against 27-31 ms on 1M triangles, one thread).
            let mut plain = Bvh8::from_compact(c);
            plain.refit_by_leaf(|r| boxes.leaf(r))?;
            self.wide = MeshTree::Plain(plain);
            self.reach = ray::RootReach::new(&self.wide.bounds());
            return Ok(());
        }
        // Finite vertices give finite, ordered leaf boxes, so this cannot fail; were it to,
        // the error is reported rather than a panic.
        self.wide.refit_by_leaf(|r| boxes.leaf(r))?;
        self.reach = ray::RootReach::new(&self.wide.bounds());
        Ok(())
    }

    /// The number of triangles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.triangle_count
    }

    /// True when the mesh has no triangles.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.triangle_count == 0
    }

    /// True when some triangle fills more than one leaf slot (it was pre-split, see
    /// [`BuildConfig::presplit`]): the leaf slots are then more than the triangles.
    #[must_use]
    pub fn has_split_triangles(&self) -> bool {
        !self.secondary.is_empty()
    }

    /// True when leaf slot `pos` repeats a triangle that an earlier slot holds.
    #[inline]
    pub(crate) fn is_secondary(&self, pos: usize) -> bool {
        presplit::bit(&self.secondary, pos)
    }

    /// True when leaf slot `pos` holds a triangle that fills several slots.
    #[inline]
    pub(crate) fn is_split(&self, pos: usize) -> bool {
        presplit::bit(&self.split, pos)
    }

    /// The number of vertices (what [`Mesh::update_positions`] expects).
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The bounding box of all triangles; [`Aabb::EMPTY`] for an empty mesh.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.reach.bounds()
    }

    /// Leaf order: item `i` is the original index of the triangle in leaf slot `i` (the
    /// leaf-order position the tree's leaf ranges refer to). Every triangle is in one slot,
    /// or in several when it was pre-split ([`Mesh::has_split_triangles`]). Empty for an
    /// empty mesh. The indices are stored beside each slot's corners, so this walks them;
    /// [`Mesh::prim_index`] reads one.
    pub fn prim_indices(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.tris.prims()
    }

    /// The original index of the triangle in leaf slot `slot`; `None` past the last slot.
    #[must_use]
    pub fn prim_index(&self, slot: usize) -> Option<u32> {
        (slot < self.tris.len()).then(|| self.tris.prim(slot))
    }

    /// The corners of each triangle in BVH leaf order: item `i` is slot `i`, which holds
    /// original triangle `self.prim_index(i)`. Empty for an empty mesh.
    pub fn leaf_triangles(&self) -> impl ExactSizeIterator<Item = [Point3<Real>; 3]> + '_ {
        self.tris.iter()
    }

    /// The vertex indices (three per triangle) of each triangle in leaf order (the slots of
    /// [`Mesh::leaf_triangles`]); [`Mesh::prim_indices`] gives the triangle ids of the same
    /// slots.
    #[must_use]
    pub fn leaf_vertex_indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// The vertices and triangles the mesh was built from, recovered from its leaf-order
    /// data: `triangles[t]` is triangle `t`'s vertex indices, as given; `positions` has
    /// [`Mesh::vertex_count`] vertices, those no triangle uses at the origin (the mesh keeps
    /// only the vertices its triangles use). Allocates both.
    #[must_use]
    pub fn vertices_and_triangles(&self) -> (Vec<Point3<Real>>, Vec<[u32; 3]>) {
        let mut positions = vec![Point3::origin(); self.vertex_count];
        let mut triangles = vec![[0u32; 3]; self.len()];
        let slots = self.tris.prims().zip(&self.indices).zip(self.tris.iter());
        for ((orig, tri), corners) in slots {
            triangles[orig as usize] = *tri;
            for (&v, p) in tri.iter().zip(corners) {
                positions[v as usize] = p;
            }
        }
        (positions, triangles)
    }

    /// The 8-wide tree every query traverses (the mesh's only tree), in its node layout
    /// ([`MeshTree`], see [`Mesh::node_layout`]): its leaf ranges are
    /// leaf-order positions, mapped to triangles by [`Mesh::prim_indices`] and
    /// [`Mesh::leaf_triangles`].
    #[must_use]
    pub fn tree(&self) -> &MeshTree {
        &self.wide
    }

    /// The node layout of the mesh's tree: [`NodeLayout::Plain`] or [`NodeLayout::Compact`]
    /// ([`NodeLayout::Auto`] decides at construction, by size).
    #[must_use]
    pub fn node_layout(&self) -> NodeLayout {
        self.wide.layout()
    }

    /// Stores the tree in `layout` (for [`NodeLayout::Auto`], the one construction would
    /// pick). Queries give the same answers in either; only speed and memory differ. Going
    /// plain refits the boxes exactly from the triangles; going compact quantizes them.
    ///
    /// Errors, leaving the mesh unchanged: [`MeshError::Compact`] when the tree cannot be
    /// stored compact (a leaf of more than 65,535 triangles, or coordinates near `f32::MAX`);
    /// `Auto` then stays plain instead.
    pub fn set_node_layout(&mut self, layout: NodeLayout) -> Result<(), MeshError> {
        self.set_layout_with(layout, NodeLayout::COMPACT_FROM_BYTES)
    }

    /// [`Mesh::set_node_layout`] with `Auto` going compact from `compact_from` bytes.
    fn set_layout_with(
        &mut self,
        layout: NodeLayout,
        compact_from: usize,
    ) -> Result<(), MeshError> {
        let plain = match &self.wide {
            MeshTree::Plain(t) => t.clone(),
            MeshTree::Compact(t) => {
                let mut plain = Bvh8::from_compact(t);
                let boxes = presplit::SlotBoxes::new(&self.tris, &self.split, &self.pieces);
                plain.refit_by_leaf(|r| boxes.leaf(r))?;
                plain
            }
        };
        self.wide = MeshTree::with_threshold(plain, layout, compact_from)?;
        self.reach = ray::RootReach::new(&self.wide.bounds());
        self.layout = layout;
        self.winding = std::sync::OnceLock::new();
        self.disks = std::sync::OnceLock::new();
        Ok(())
    }

    /// Bytes held by the mesh: its leaf-order vertices and original indices (40 bytes per
    /// triangle, the degenerate flags included), vertex indices (12), group starts (1 bit each), 32 bytes
    /// of padding, the 8-wide tree (256 bytes per node, 128 when compact), and the struct
    /// itself. [`Mesh::update_positions`] adds nothing. Not counted: what the solid and
    /// distance queries build at their first use (the winding-number expansions, and a
    /// 32-byte disk per slot of the tree for the nearest-point search).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        size_of::<Self>()
            + self.tris.heap_bytes()
            + self.indices.capacity() * size_of::<[u32; 3]>()
            + (self.split.capacity() + self.secondary.capacity()) * size_of::<u64>()
            + self.pieces.capacity() * size_of::<presplit::SlotPiece>()
            + self.wide.memory_bytes()
    }

    /// [`Mesh::memory_bytes`] divided by the triangle count; 0 for an empty mesh.
    #[must_use]
    pub fn bytes_per_triangle(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.memory_bytes() as f64 / self.len() as f64
        }
    }
}

/// `f` of every item, in order: on rayon when `parallel`.
fn map_all<T: Sync, U: Send>(
    items: &[T],
    parallel: bool,
    f: impl Fn(&T) -> U + Sync + Send,
) -> Vec<U> {
    if parallel {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}

/// Triangle counts (or vertex counts) from which construction runs its passes on rayon.
const PARALLEL_BUILD: usize = 1 << 15;

/// The most triangles a mesh holds: original indices are 31 bits in the leaf rows.
pub(crate) const MAX_TRIANGLES: usize = (1 << 31) - 1;

/// No item of `items` is `bad`: a branch-free scan, in parallel chunks when large (the caller
/// looks for the first bad item only on failure).
fn all_good<T: Sync>(items: &[T], bad: impl Fn(&T) -> bool + Sync) -> bool {
    let clean = |c: &[T]| !c.iter().fold(false, |any, x| any | bad(x));
    if items.len() >= PARALLEL_BUILD {
        items.par_chunks(PARALLEL_BUILD).all(clean)
    } else {
        clean(items)
    }
}

/// Every index of `triangles` below `vertex_count`; the error names the first bad triangle
/// and corner.
/// The box of the triangle `tri` (indices checked) of finite `positions`: plain comparisons,
/// without the NaN handling of `f32::min` (`Triangle::aabb` costs about five times as much).
#[inline(always)]
/// Twice the area of triangle `tri` in f64 (its edge cross product's length): the weight
/// of the any-hit slot order ([`WideBvh::order_slots_by_density`]).
///
/// [`WideBvh::order_slots_by_density`]: raypick_bvh::wide::WideBvh::order_slots_by_density
fn triangle_area(positions: &[Point3<Real>], tri: &[u32; 3]) -> f64 {
    let [a, b, c] = tri.map(|i| positions[i as usize].coords.cast::<f64>());
    (b - a).cross(&(c - a)).norm()
}

fn triangle_box(positions: &[Point3<Real>], tri: &[u32; 3]) -> Aabb {
    let [a, b, c] = tri.map(|i| positions[i as usize]);
    let min = |x: Real, y: Real| if x < y { x } else { y };
    let max = |x: Real, y: Real| if x > y { x } else { y };
    Aabb::new(
        Point3::new(
            min(min(a.x, b.x), c.x),
            min(min(a.y, b.y), c.y),
            min(min(a.z, b.z), c.z),
        ),
        Point3::new(
            max(max(a.x, b.x), c.x),
            max(max(a.y, b.y), c.y),
            max(max(a.z, b.z), c.z),
        ),
    )
}

fn check_indices(triangles: &[[u32; 3]], vertex_count: usize) -> Result<(), MeshError> {
    let bad = |tri: &[u32; 3]| tri.iter().any(|&i| i as usize >= vertex_count);
    if all_good(triangles, bad) {
        return Ok(());
    }
    let Some(triangle) = triangles.iter().position(bad) else {
        return Ok(());
    };
    let tri = triangles[triangle];
    let corner = (0..3)
        .find(|&c| tri[c] as usize >= vertex_count)
        .unwrap_or(0);
    Err(MeshError::IndexOutOfRange {
        triangle,
        corner,
        index: tri[corner],
        vertex_count,
    })
}

pub(crate) fn check_positions(positions: &[Point3<Real>]) -> Result<(), MeshError> {
    let bad = |p: &Point3<Real>| !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite());
    if all_good(positions, bad) {
        return Ok(());
    }
    match positions.iter().position(bad) {
        Some(vertex) => {
            let p = positions[vertex];
            Err(MeshError::NonFiniteVertex {
                vertex,
                x: p.x,
                y: p.y,
                z: p.z,
            })
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use raypick_bvh::wide::{CompactBvh8, WideChild};
    use raypick_primitives::Triangle;

    /// After `update_positions` the in-place wide refit keeps the tree's shape, without
    /// reallocating, and every slot box is exactly the union of what lies below it.
    #[test]
    fn wide_refit_matches_collapse() {
        let n = 12u32;
        let grid = |lift: f32| -> Vec<Point3<Real>> {
            (0..n * n)
                .map(|i| {
                    let (x, y) = ((i % n) as f32, (i / n) as f32);
                    Point3::new(x, y, lift * (x * 0.7 + y * 1.3).sin())
                })
                .collect()
        };
        let mut tris = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                tris.push([i, i + 1, i + n + 1]);
                tris.push([i, i + n + 1, i + n]);
            }
        }
        let mut mesh = Mesh::new(grid(0.0), tris).unwrap();
        assert_eq!(
            mesh.node_layout(),
            NodeLayout::Plain,
            "a small mesh stays plain"
        );
        let mut compact = mesh.clone();
        compact.set_node_layout(NodeLayout::Compact).unwrap();
        let leaves = mesh.wide.leaf_ranges();
        for lift in [1.0, -3.0, 0.25] {
            let before = mesh.wide.as_plain().unwrap().nodes().as_ptr();
            let before_c = compact.wide.as_compact().unwrap().nodes().as_ptr();
            mesh.update_positions(&grid(lift)).unwrap();
            compact.update_positions(&grid(lift)).unwrap();
            let plain = mesh.wide.as_plain().unwrap();
            assert_eq!(plain.nodes().as_ptr(), before, "no reallocation");
            let c = compact.wide.as_compact().unwrap();
            assert_eq!(c.nodes().as_ptr(), before_c, "no reallocation");
            assert_eq!(mesh.wide.leaf_ranges(), leaves, "same shape");
            assert_eq!(compact.wide.leaf_ranges(), leaves, "same shape");
            mesh.wide.validate().unwrap();
            compact.wide.validate().unwrap();
            for node in plain.nodes() {
                for slot in 0..8 {
                    let tight = match node.child(slot) {
                        WideChild::Empty => continue,
                        WideChild::Leaf(r) => mesh.tris.leaf(r).fold(Aabb::EMPTY, |b, t| {
                            b.union(&Triangle::new(t[0], t[1], t[2]).aabb())
                        }),
                        WideChild::Node(c) => (0..8)
                            .map(|i| plain.nodes()[c].child_aabb(i))
                            .fold(Aabb::EMPTY, |b, c| b.union(&c)),
                    };
                    assert_eq!(node.child_aabb(slot), tight, "lift {lift}");
                }
            }
            // The compact refit is the compact form of the exact plain refit.
            assert_eq!(*c, CompactBvh8::from_wide(plain).unwrap(), "lift {lift}");
        }
        // And back: plain again, exactly the plain mesh's tree.
        compact.set_node_layout(NodeLayout::Plain).unwrap();
        assert_eq!(compact.wide, mesh.wide);
        compact.set_node_layout(NodeLayout::Auto).unwrap();
        assert_eq!(compact.node_layout(), NodeLayout::Plain);
        // Auto with a threshold this mesh passes: compact until the first update, then plain
        // (and exactly the plain mesh's tree).
        compact.set_layout_with(NodeLayout::Auto, 0).unwrap();
        assert_eq!(compact.node_layout(), NodeLayout::Compact);
        compact.update_positions(&grid(2.0)).unwrap();
        mesh.update_positions(&grid(2.0)).unwrap();
        assert_eq!(compact.node_layout(), NodeLayout::Plain);
        assert_eq!(compact.wide, mesh.wide);
    }
}
