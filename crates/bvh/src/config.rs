//! Build configuration and presets.

/// The largest tree depth (root = depth 1) any [`crate::Bvh`] may have.
///
/// Traversal uses a fixed stack of this many entries, so no query allocates. Builds clamp
/// [`BuildConfig::max_depth`] to it, loading rejects deeper trees, and the optimizer never
/// makes a tree deeper than it.
pub const MAX_DEPTH: usize = 64;

/// The largest bin count [`BuildConfig::bins`] may take; larger values are clamped.
pub const MAX_BINS: usize = 64;

/// How a build chooses its splits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildStrategy {
    /// Binned surface area heuristic (Wald 2007), on the settings of [`BuildConfig`]: the
    /// trees rays traverse fastest. The default.
    #[default]
    BinnedSah,
    /// Morton order (a linear BVH): box centres sorted along a Z-order curve, each node split
    /// at the highest bit where its codes differ. No cost is evaluated (`bins`, `all_axes`,
    /// `sampled_binning` and the costs are ignored; leaves hold up to `max_leaf_size`), so it
    /// builds several times faster; its spatial-median splits suit point clouds and
    /// proximity queries (nearest point, picking with a tolerance) more than rays through
    /// triangles. It runs on the calling thread but for the code computation.
    Morton,
}

/// How to build a [`crate::Bvh`]. Use a preset ([`BuildConfig::fast`],
/// [`BuildConfig::balanced`] (the default), [`BuildConfig::high_quality`],
/// [`BuildConfig::morton`]) and adjust fields.
///
/// Out-of-range values are clamped, never rejected: `bins` to `2..=64`, `min_leaf_size` to at
/// least 1, `max_leaf_size` to at least `min_leaf_size`, `max_depth` to `1..=64`. Non-finite or
/// negative costs are replaced by 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildConfig {
    /// Number of centroid bins per axis for the binned SAH (Wald 2007); nodes of fewer than
    /// four times as many primitives use one bin per four. More bins find slightly better
    /// splits and cost build time. Default 32 (16 in [`BuildConfig::fast`], 64 in
    /// [`BuildConfig::high_quality`]).
    pub bins: usize,
    /// Bin along all three axes (`true`) or only along the axis where the centroids spread
    /// most (`false`, as the `bvh` crate and parry do). One axis costs less binning but
    /// picks poor splits where long thin triangles make the widest centroid axis the wrong
    /// one (CAD tessellations, noisy heightfields: SAH cost up to 1.9x higher). Default
    /// `true`; `false` in [`BuildConfig::fast`].
    pub all_axes: bool,
    /// Let nodes of 4,096 primitives or more choose their split from a fixed-stride sample of
    /// 1,024 to 2,048 of them (`true`), or bin every primitive (`false`). Sampling cuts the
    /// binning work of the top levels several times over for trees of nearly the same SAH
    /// cost; children's boxes stay exact. Default `true`; `false` in
    /// [`BuildConfig::high_quality`].
    pub sampled_binning: bool,
    /// SAH cost of visiting an interior node (a box pair test), relative to
    /// `intersection_cost`. Default 1.
    pub traversal_cost: f32,
    /// SAH cost of testing one primitive. Default 0.3 (1 in [`BuildConfig::fast`]): raypick's
    /// 8-wide ray traversal makes a node visit dearer than a triangle test, and the larger
    /// leaves this gives cut memory and cache misses (measured: +10% to +58% closest-hit
    /// throughput on the 1M-triangle workloads, 30-50% fewer bytes per triangle).
    pub intersection_cost: f32,
    /// Nodes with at most this many primitives always become leaves. Default 4, as in
    /// [`BuildConfig::fast`] (1 in [`BuildConfig::high_quality`]): the collapse to an 8-wide
    /// tree merges such small subtrees into one leaf anyway, so splitting them costs build
    /// time for nothing.
    pub min_leaf_size: usize,
    /// Nodes with more primitives than this are always split (unless `max_depth` forbids it);
    /// smaller ones become leaves when the SAH says a leaf is cheaper. Default 4 (8 in
    /// [`BuildConfig::fast`]).
    pub max_leaf_size: usize,
    /// Maximum depth (root = 1). Near it, the builder switches to median splits so that the
    /// depth is never exceeded; at the last level nodes become leaves whatever their size.
    /// Default 64 (also the hard cap, [`MAX_DEPTH`]).
    pub max_depth: usize,
    /// Subtrees with at least this many primitives are built as parallel rayon tasks (with
    /// parallel binning). The tree does not depend on it or on the thread count except through
    /// node order; `usize::MAX` builds on the calling thread only. Default 4096.
    pub parallel_threshold: usize,
    /// Post-build reinsertion optimizer (Bittner et al. 2013); `None` skips it.
    /// Default `None`; `Some` in [`BuildConfig::high_quality`].
    pub optimize: Option<OptimizeConfig>,
    /// How splits are chosen. Default [`BuildStrategy::BinnedSah`];
    /// [`BuildStrategy::Morton`] in [`BuildConfig::morton`].
    pub strategy: BuildStrategy,
    /// Pre-splitting, for front ends that build over triangles (the builder itself sees only
    /// boxes and ignores it): a triangle whose box is far larger than the triangle (a long
    /// sliver across the axes, as in CAD fans) is given one more box per `presplit` times
    /// the mean box of the mesh that its box's excess area holds, up to 64 boxes, each
    /// around the part of the triangle in one cell of a power-of-two grid. The tree then
    /// places the parts apart, and fewer rays enter a box that the triangle barely fills.
    /// Smaller values split more. Default 16 (measured on a CAD tessellation: +15-21%
    /// closest-hit throughput for 3% more leaf slots; smooth meshes get no split);
    /// 0 (no splitting) in [`BuildConfig::fast`] and [`BuildConfig::morton`]. Negative or
    /// NaN values are taken as 0.
    pub presplit: f32,
}

/// Settings of the reinsertion optimizer (after Bittner et al. 2013 and Meister and
/// Bittner 2018): each round removes the not yet moved nodes whose removal shrinks their
/// parent's box most (relatively) and reinserts each where it raises the SAH cost least
/// (found by branch and bound).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OptimizeConfig {
    /// At most this many rounds. Default 5.
    pub max_rounds: usize,
    /// Fraction of the nodes reinserted per round (the most promising first), in `(0, 1]`;
    /// clamped. Default 0.04: the defaults try the most promising 20% of the nodes, which gets
    /// about half of what a full pass (`0.1` x 10 rounds, several times slower) gets.
    pub batch_fraction: f32,
    /// Stop when a round lowers the SAH cost by less than this fraction. Default 0.
    pub min_improvement: f32,
}

impl OptimizeConfig {
    /// The defaults listed on each field.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            max_rounds: 5,
            batch_fraction: 0.04,
            min_improvement: 0.0,
        }
    }
}

impl Default for OptimizeConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl BuildConfig {
    /// The fastest build: 16 bins along the widest centroid axis, nodes of up to 4 primitives
    /// always leaves (about 20% less work than `balanced` for about 6% higher SAH cost), leaves up
    /// to 8, no optimizer, no pre-splitting.
    #[must_use]
    pub const fn fast() -> Self {
        Self {
            bins: 16,
            all_axes: false,
            sampled_binning: true,
            traversal_cost: 1.0,
            intersection_cost: 1.0,
            min_leaf_size: 4,
            max_leaf_size: 8,
            max_depth: MAX_DEPTH,
            parallel_threshold: 4096,
            optimize: None,
            strategy: BuildStrategy::BinnedSah,
            presplit: 0.0,
        }
    }

    /// The default: 32 bins along all three axes, intersection cost 0.3, nodes of up to 4
    /// primitives leaves, no optimizer, slivers pre-split (`presplit` 16).
    #[must_use]
    pub const fn balanced() -> Self {
        Self {
            bins: 32,
            all_axes: true,
            sampled_binning: true,
            traversal_cost: 1.0,
            intersection_cost: 0.3,
            min_leaf_size: 4,
            max_leaf_size: 4,
            max_depth: MAX_DEPTH,
            parallel_threshold: 4096,
            optimize: None,
            strategy: BuildStrategy::BinnedSah,
            presplit: PRESPLIT,
        }
    }

    /// The best trees: 64 bins along all three axes for every primitive (no sampling), nodes
    /// split down to single primitives where the SAH says so, leaves up to 4, then the
    /// reinsertion optimizer ([`OptimizeConfig::new`]). Several times slower to build than
    /// `balanced`.
    #[must_use]
    pub const fn high_quality() -> Self {
        Self {
            bins: 64,
            sampled_binning: false,
            min_leaf_size: 1,
            optimize: Some(OptimizeConfig::new()),
            ..Self::balanced()
        }
    }

    /// The quickest build: [`BuildStrategy::Morton`], leaves of up to 4. For point clouds
    /// and segment sets, where it builds 1M primitives in well under the binned SAH's time
    /// and picks as fast; rays through triangles run faster on [`BuildConfig::balanced`].
    #[must_use]
    pub const fn morton() -> Self {
        Self {
            strategy: BuildStrategy::Morton,
            presplit: 0.0,
            ..Self::balanced()
        }
    }
}

/// [`BuildConfig::presplit`] of `balanced` and `high_quality`.
const PRESPLIT: f32 = 16.0;

impl Default for BuildConfig {
    fn default() -> Self {
        Self::balanced()
    }
}

/// A config with every field brought into range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved {
    pub bins: usize,
    pub all_axes: bool,
    pub sampled_binning: bool,
    pub traversal_cost: f32,
    pub intersection_cost: f32,
    pub min_leaf: usize,
    pub max_leaf: usize,
    pub max_depth: usize,
    pub parallel_threshold: usize,
    pub strategy: BuildStrategy,
}

fn cost(c: f32) -> f32 {
    if c.is_finite() && c >= 0.0 {
        c
    } else {
        1.0
    }
}

impl Resolved {
    pub fn new(c: &BuildConfig) -> Self {
        let min_leaf = c.min_leaf_size.max(1);
        Self {
            bins: c.bins.clamp(2, MAX_BINS),
            all_axes: c.all_axes,
            sampled_binning: c.sampled_binning,
            traversal_cost: cost(c.traversal_cost),
            intersection_cost: cost(c.intersection_cost),
            min_leaf,
            max_leaf: c.max_leaf_size.max(min_leaf),
            max_depth: c.max_depth.clamp(1, MAX_DEPTH),
            // Below 2 * max_leaf a parallel task is never worth it.
            parallel_threshold: c.parallel_threshold.max(64),
            strategy: c.strategy,
        }
    }
}
