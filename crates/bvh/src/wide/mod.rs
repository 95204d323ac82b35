//! Wide BVHs: the types. `N` children per node (8 for ray traversal), collapsed from the
//! binary SAH tree, with the children of a node tested against a ray together (SIMD on
//! x86_64, a scalar path everywhere).
//!
//! Where things are: `collapse` (binary to wide), `layout` (the node layouts behind one
//! trait), `compact` and `quantize` (the quantized layout), `refit`, `validate`,
//! `traverse` (the ray traversal and its visitor; `traverse_x86` its SIMD entry points,
//! `slab_x86` the SIMD node tests), `stream` (interleaved rays), `packet` (bundles of
//! coherent rays down the tree together, [`WideBvh::traverse_packet`]), `query` (box, predicate
//! and best-first queries), `persist` (nodes to bytes and back, validated).
//!
//! A [`WideBvh`] is built from a finished [`Bvh`] by collapsing: a dynamic program (after
//! Ylitie, Karras and Laine 2017) chooses which binary nodes become wide nodes and which binary
//! subtrees become leaf slots, minimizing the SAH cost of a [`CollapseConfig`]. A leaf is a
//! binary subtree, so its primitives are one range of leaf-order positions indexing the same
//! `prim_indices()`-ordered primitive data as the binary tree's do. [`WideBvh::from_bvh`]
//! keeps the binary tree's leaves unchanged; [`CollapseConfig::merge_leaves`] may merge small
//! subtrees into one leaf.
//!
//! Nodes are stored as structures of arrays (`min_x[N]`, ..., `max_z[N]`, child, count),
//! cache-line aligned: [`Bvh8`] nodes are 256 bytes. A
//! [`CompactBvh8`] ([`CompactBvh8::from_wide`]) stores the same tree with each child box
//! quantized to 8 bits per plane, conservatively: 128-byte nodes, for trees larger than the
//! CPU's caches. The node layout is the tree's second type parameter ([`WideLayout`]).
//!
//! [`WideBvh::traverse_ray`] has the contract of [`Bvh::traverse_ray`]: same robust box test,
//! nearest child first, pruning by the callback-lowered `t_max`, early exit, no allocation.
//! The SIMD code path is chosen once per process
//! ([`SimdPath::best`](raypick_primitives::simd::SimdPath::best)); every path gives the same
//! answers, bit for bit (the scalar one is the reference the tests check against).
//!
//! ```
//! use std::ops::ControlFlow;
//! use raypick_bvh::wide::Bvh8;
//! use raypick_bvh::{BuildConfig, Bvh};
//! use raypick_primitives::{Aabb, Point3, Ray, Vector3};
//!
//! let boxes: Vec<Aabb> = (0..100)
//!     .map(|i| {
//!         let x = i as f32 * 2.0;
//!         Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0))
//!     })
//!     .collect();
//! let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
//! let wide = Bvh8::from_bvh(&bvh);
//! wide.validate().unwrap();
//!
//! // Closest box entry along +x, exactly as with the binary tree.
//! let ray = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
//! let mut first = None;
//! wide.traverse_ray(&ray, 0.0, f32::INFINITY, |range, t_max| {
//!     for pos in range {
//!         let prim = bvh.prim_indices()[pos] as usize;
//!         let t = boxes[prim].min.x - ray.origin.x;
//!         if t < *t_max {
//!             *t_max = t;
//!             first = Some(prim);
//!         }
//!     }
//!     ControlFlow::Continue(())
//! });
//! assert_eq!(first, Some(0));
//! ```

use std::ops::Range;

use raypick_primitives::{Aabb, Point3};

use crate::{BuildConfig, BuildError, Bvh, Node};

pub(crate) mod collapse;
mod compact;
mod layout;
mod order;
mod packet;
mod persist;
mod quantize;
mod query;
mod refit;
#[cfg(target_arch = "x86_64")]
mod slab_x86;
pub(crate) mod stack;
mod stream;
mod traverse;
#[cfg(target_arch = "x86_64")]
mod traverse_x86;
mod validate;
mod visitor;

pub use collapse::CollapseConfig;
pub use compact::{CompactBvh8, CompactError, CompactNode8};
pub use layout::WideLayout;
pub use packet::{BoxPacket, PacketVisitor, PACKET_RAYS};
pub use persist::WideLoadError;
pub use refit::WideRefitError;
pub use stream::StreamRay;
pub use traverse::{LeafFn, RayLayout8, RayTraversal, RayVisitor};
pub use validate::{WideStats, WideValidationError};

/// Marks an unused child slot (its box is empty, so no ray enters it).
const EMPTY_SLOT: u32 = u32::MAX;

/// One wide node: the boxes of up to `N` children as structures of arrays, and per child
/// either a node index or a leaf range. Aligned to a 64-byte cache line.
///
/// A child slot `i` is
/// - a leaf when `count[i] > 0`: leaf-order positions `child[i] .. child[i] + count[i]`;
/// - an interior child when `count[i] == 0`: the node at `child[i]` (always after this one);
/// - unused when `child[i] == u32::MAX` and `count[i] == 0`; its box is `+inf .. -inf`, which
///   no ray enters. Used slots come first.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WideNode<const N: usize> {
    /// `[min_x, min_y, min_z, max_x, max_y, max_z]`, each one value per child slot.
    bounds: [[f32; N]; 6],
    child: [u32; N],
    count: [u32; N],
}

const _: () = assert!(std::mem::size_of::<WideNode<4>>() == 128);
const _: () = assert!(std::mem::size_of::<WideNode<8>>() == 256);
const _: () = assert!(std::mem::align_of::<WideNode<8>>() == 64);

/// What a child slot of a [`WideNode`] holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WideChild {
    /// An interior node, by index into [`WideBvh::nodes`].
    Node(usize),
    /// A leaf: a range of leaf-order positions (see [`Bvh::prim_indices`]).
    Leaf(Range<usize>),
    /// An unused slot.
    Empty,
}

impl<const N: usize> WideNode<N> {
    const EMPTY: Self = Self {
        bounds: [
            [f32::INFINITY; N],
            [f32::INFINITY; N],
            [f32::INFINITY; N],
            [f32::NEG_INFINITY; N],
            [f32::NEG_INFINITY; N],
            [f32::NEG_INFINITY; N],
        ],
        child: [EMPTY_SLOT; N],
        count: [0; N],
    };

    /// What slot `i` holds; [`WideChild::Empty`] for an unused slot or `i >= N`.
    #[must_use]
    pub fn child(&self, i: usize) -> WideChild {
        if i >= N {
            return WideChild::Empty;
        }
        layout::child_of(self.child[i], self.count[i])
    }

    /// The box of slot `i`; `Aabb::EMPTY`-like (`+inf .. -inf`) for an unused slot or
    /// `i >= N`.
    #[must_use]
    pub fn child_aabb(&self, i: usize) -> Aabb {
        if i >= N {
            return Aabb::EMPTY;
        }
        let b = &self.bounds;
        Aabb::new(
            Point3::new(b[0][i], b[1][i], b[2][i]),
            Point3::new(b[3][i], b[4][i], b[5][i]),
        )
    }

    /// Number of used slots (1 to `N` in a non-empty tree).
    #[must_use]
    pub fn child_count(&self) -> usize {
        (0..N)
            .take_while(|&i| !(self.child[i] == EMPTY_SLOT && self.count[i] == 0))
            .count()
    }

    fn set(&mut self, i: usize, n: &Node, child: u32, count: u32) {
        for a in 0..3 {
            self.bounds[a][i] = n.min[a];
            self.bounds[3 + a][i] = n.max[a];
        }
        self.child[i] = child;
        self.count[i] = count;
    }
}

/// A wide BVH with `N` children per node, stored in node layout `L`; use the aliases
/// [`Bvh8`] (plain f32 boxes) and [`CompactBvh8`] (quantized boxes). Other widths `N`
/// collapse, validate, refit and answer box and best-first queries; ray traversal is for
/// 8-wide trees.
///
/// It holds only nodes: primitives are referred to by leaf-order positions of the binary
/// [`Bvh`] it was collapsed from, whose [`Bvh::prim_indices`] stay the map to original
/// indices. `nodes()[0]` is the root when the tree is not empty.
#[derive(Clone, Debug, PartialEq)]
pub struct WideBvh<const N: usize, L = WideNode<N>> {
    nodes: Vec<L>,
    prim_count: usize,
    depth: usize,
}

impl<const N: usize, L> Default for WideBvh<N, L> {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            prim_count: 0,
            depth: 0,
        }
    }
}

/// An 8-wide BVH (256-byte nodes; AVX2 when the CPU has it, else SSE twice).
pub type Bvh8 = WideBvh<8>;

impl<const N: usize> WideBvh<N> {
    /// Collapses the binary tree `bvh` into a wide one with [`CollapseConfig::new`]: the
    /// leaves are exactly `bvh`'s leaves, with the same position ranges, and the dynamic
    /// program picks the binary nodes that become wide nodes (as full as the SAH cost
    /// allows). See [`WideBvh::from_bvh_with`].
    #[must_use]
    pub fn from_bvh(bvh: &Bvh) -> Self {
        Self::from_bvh_with(bvh, &CollapseConfig::new())
    }

    /// Collapses `bvh` into the wide tree of least SAH cost under `config` (see
    /// [`CollapseConfig`]): each leaf is a binary leaf or, when `config.max_leaf` allows, a
    /// binary subtree of at most `max_leaf` primitives with contiguous positions. The wide
    /// depth is at most the binary depth.
    ///
    /// An empty `bvh` gives an empty tree; a single-leaf `bvh` a root with one leaf slot.
    /// O(binary node count x `N`^2) time, O(binary node count x `N`) temporary memory.
    #[must_use]
    pub fn from_bvh_with(bvh: &Bvh, config: &CollapseConfig) -> Self {
        const { assert!(N >= 2 && N <= 32) };
        collapse::collapse(bvh, config)
    }
}

impl WideBvh<8> {
    /// Builds the binary tree over `boxes` with `config` and collapses it with `collapse`:
    /// exactly [`Bvh::build`] then [`WideBvh::from_bvh_with`], the two trees returned, but
    /// faster where the collapse's dynamic program can run inside the build (the binned
    /// builder without the optimizer): each part of the tree a build task makes is solved
    /// by that task, while its nodes are in cache, on its thread.
    ///
    /// Errors and edge cases are [`Bvh::build`]'s; no boxes give two empty trees.
    ///
    /// ```
    /// use raypick_bvh::wide::{Bvh8, CollapseConfig};
    /// use raypick_bvh::{BuildConfig, Bvh};
    /// use raypick_primitives::{Aabb, Point3};
    ///
    /// let boxes: Vec<Aabb> = (0..100)
    ///     .map(|i| {
    ///         let p = Point3::new(i as f32, 0.0, 0.0);
    ///         Aabb::new(p, p + nalgebra::Vector3::new(0.5, 0.5, 0.5))
    ///     })
    ///     .collect();
    /// let config = BuildConfig::balanced();
    /// let (bvh, wide) = Bvh8::build(&boxes, &config, &CollapseConfig::merge_leaves())?;
    /// let two_steps = Bvh8::from_bvh_with(&bvh, &CollapseConfig::merge_leaves());
    /// assert_eq!(wide, two_steps);
    /// # Ok::<(), raypick_bvh::BuildError>(())
    /// ```
    pub fn build(
        boxes: &[Aabb],
        config: &BuildConfig,
        collapse: &CollapseConfig,
    ) -> Result<(Bvh, Self), BuildError> {
        let (bvh, plan) = Bvh::build_planned(boxes, config, collapse)?;
        let wide = match plan {
            Some(plan) => collapse::collapse_planned(&bvh, &plan),
            None => Self::from_bvh_with(&bvh, collapse),
        };
        Ok((bvh, wide))
    }
}

impl<const N: usize, L: WideLayout<N>> WideBvh<N, L> {
    /// The nodes, root first; children come after their parents, and the interior children
    /// of a node are stored side by side.
    #[must_use]
    pub fn nodes(&self) -> &[L] {
        &self.nodes
    }

    /// Number of primitives (leaf-order positions `0..len()`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.prim_count
    }

    /// True when the tree holds no primitive (and no node).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of levels of wide nodes (0 for an empty tree); at most the binary depth.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Bytes taken by the nodes (the tree's heap memory, excluding spare capacity).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.nodes.as_slice())
    }

    /// The leaf ranges in depth-first order (for tests and tools; allocates).
    #[must_use]
    pub fn leaf_ranges(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        for n in &self.nodes {
            for i in 0..N {
                if let WideChild::Leaf(r) = n.child(i) {
                    out.push(r);
                }
            }
        }
        out
    }
}
