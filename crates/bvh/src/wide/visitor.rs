//! What a ray traversal calls and how it runs: the leaf visitor ([`RayVisitor`], with the
//! closure adapter [`LeafFn`]) and the traversal options ([`RayTraversal`]: nearest first or
//! slot order, on which SIMD path).

use std::ops::{ControlFlow, Range};

#[cfg(target_arch = "x86_64")]
use raypick_primitives::simd::CpuPath;
use raypick_primitives::simd::SimdPath;
use raypick_primitives::Real;

/// What a ray traversal ([`WideBvh::traverse_ray_visit`](super::WideBvh::traverse_ray_visit)) calls: `leaf` for each leaf it
/// visits, and `upcoming` for each leaf it pushes for a later visit.
///
/// A type implementing it, with `#[inline(always)]` methods, is compiled into the traversal
/// loop itself (one function per visitor type and code path), where a closure passed to
/// [`WideBvh::traverse_ray`](super::WideBvh::traverse_ray) may stay a call per leaf.
pub trait RayVisitor {
    /// Visits the leaf of leaf-order positions `range`. May lower `*t_max` (the closest hit
    /// so far: pending children entered beyond it are skipped); returns
    /// [`ControlFlow::Break`] to stop the traversal at once.
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()>;

    /// The leaf `range` was pushed for a later visit (which it may still skip if `t_max`
    /// drops): a hint to start loading its primitives (see [`prefetch`](raypick_primitives::simd::prefetch)).
    /// Does nothing by default.
    #[inline(always)]
    fn upcoming(&mut self, range: Range<usize>) {
        let _ = range;
    }

    /// The traversal tests the child boxes of node `node` (an index into
    /// [`WideBvh::nodes`](super::WideBvh::nodes)): a hook for tools that count the work of a traversal (the CLI's
    /// heatmap). Does nothing by default, which costs nothing.
    #[inline(always)]
    fn node(&mut self, node: usize) {
        let _ = node;
    }

    /// Where the primitives of the leaf `range` start in memory, for the traversal to start
    /// loading their first 5 cache lines (320 bytes) when it pushes the leaf, as it does for
    /// nodes. Any address is harmless (nothing is read through it). `None` (nothing to
    /// load) by default.
    ///
    /// It is asked for every pushed child, so that the traversal can pick between a node's
    /// address and a leaf's without a branch: a pushed node comes as an empty range
    /// (`child..child`), and the answer is then ignored. Keep it cheap and free of side
    /// effects.
    #[inline(always)]
    fn leaf_data(&self, range: Range<usize>) -> Option<*const u8> {
        let _ = range;
        None
    }
}

impl<V: RayVisitor + ?Sized> RayVisitor for &mut V {
    #[inline(always)]
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        (**self).leaf(range, t_max)
    }

    #[inline(always)]
    fn upcoming(&mut self, range: Range<usize>) {
        (**self).upcoming(range);
    }

    #[inline(always)]
    fn node(&mut self, node: usize) {
        (**self).node(node);
    }

    #[inline(always)]
    fn leaf_data(&self, range: Range<usize>) -> Option<*const u8> {
        (**self).leaf_data(range)
    }
}

/// A [`RayVisitor`] from a closure `leaf(range, &mut t_max)` (see [`RayVisitor::leaf`]),
/// for [`WideBvh::traverse_ray_visit`](super::WideBvh::traverse_ray_visit) when a closure is enough.
#[derive(Clone, Copy, Debug)]
pub struct LeafFn<F>(pub F);

impl<F> RayVisitor for LeafFn<F>
where
    F: FnMut(Range<usize>, &mut Real) -> ControlFlow<()>,
{
    #[inline(always)]
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        (self.0)(range, t_max)
    }
}

/// How [`WideBvh::traverse_ray_visit`](super::WideBvh::traverse_ray_visit) runs: the code path of the node tests and the order
/// of a node's entered children. The default is [`RayTraversal::nearest_first`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayTraversal {
    /// The SIMD path, proven available; `None` runs the scalar loop.
    #[cfg(target_arch = "x86_64")]
    cpu: Option<CpuPath>,
    pub(super) ordered: bool,
}

impl RayTraversal {
    /// Nearest child first, on the fastest path ([`SimdPath::best`]): for closest-hit
    /// queries.
    #[must_use]
    #[inline(always)]
    pub fn nearest_first() -> Self {
        Self {
            #[cfg(target_arch = "x86_64")]
            cpu: CpuPath::best(),
            ordered: true,
        }
    }

    /// Children in slot order, which saves sorting them, on the fastest path: for any-hit
    /// (occlusion) queries, which stop at the first hit found. The same leaves are visited
    /// as nearest first when nothing lowers `t_max` or breaks.
    #[must_use]
    #[inline(always)]
    pub fn unordered() -> Self {
        Self {
            ordered: false,
            ..Self::nearest_first()
        }
    }

    /// This traversal on `path`; a path this CPU lacks runs the scalar one. Every path
    /// visits the same leaves in the same order with the same `t_max` values.
    #[must_use]
    pub fn on(self, path: SimdPath) -> Self {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = path;
        Self {
            #[cfg(target_arch = "x86_64")]
            cpu: CpuPath::new(path),
            ..self
        }
    }

    /// A traversal on the path `cpu` proves (`None`: scalar), nearest first or in slot
    /// order, for a caller that holds a [`CpuPath`] already: nothing is detected or looked
    /// up again.
    #[cfg(target_arch = "x86_64")]
    #[must_use]
    #[inline(always)]
    pub fn on_cpu(cpu: Option<CpuPath>, ordered: bool) -> Self {
        Self { cpu, ordered }
    }

    /// The path the node tests run on.
    #[must_use]
    pub fn path(&self) -> SimdPath {
        #[cfg(target_arch = "x86_64")]
        return self.cpu.map_or(SimdPath::Scalar, CpuPath::path);
        #[cfg(not(target_arch = "x86_64"))]
        SimdPath::Scalar
    }

    /// The SIMD path as its proof (`None`: scalar).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn cpu(&self) -> Option<CpuPath> {
        self.cpu
    }

    /// True for nearest-first order.
    #[must_use]
    pub fn is_ordered(&self) -> bool {
        self.ordered
    }
}

impl Default for RayTraversal {
    fn default() -> Self {
        Self::nearest_first()
    }
}
