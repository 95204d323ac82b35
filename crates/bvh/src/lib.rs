//! raypick-bvh: a bounding volume hierarchy over axis-aligned boxes.
//!
//! The builder sees only boxes, one per primitive (triangles, instances, shapes), and builds
//! a binary tree of 32-byte [`Node`]s with the binned SAH (Wald 2007), in parallel above a
//! size threshold, with presets in [`BuildConfig`]. The tree can be refit, validated and
//! traversed by ray, box, node predicate or best-first order; traversal calls back with ranges of leaf-order positions (see [`Bvh::prim_indices`]).
//!
//! ```
//! use std::ops::ControlFlow;
//! use raypick_bvh::{BuildConfig, Bvh};
//! use raypick_primitives::{Aabb, Point3};
//!
//! let boxes: Vec<Aabb> = (0..100)
//!     .map(|i| {
//!         let p = Point3::new(i as f32, (i % 7) as f32, 0.0);
//!         Aabb::new(p, p + nalgebra::Vector3::new(0.5, 0.5, 0.5))
//!     })
//!     .collect();
//! let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
//! let stats = bvh.validate(&boxes).unwrap();
//! assert_eq!(stats.prim_count, 100);
//!
//! // Every primitive whose box overlaps the query box:
//! let query = Aabb::new(Point3::new(10.0, 0.0, 0.0), Point3::new(12.0, 10.0, 1.0));
//! let mut found = Vec::new();
//! bvh.traverse_aabb(&query, |range| {
//!     for pos in range {
//!         let prim = bvh.prim_indices()[pos] as usize;
//!         if boxes[prim].min.x <= query.max.x && query.min.x <= boxes[prim].max.x {
//!             found.push(prim);
//!         }
//!     }
//!     ControlFlow::Continue(())
//! });
//! found.sort();
//! assert_eq!(found, vec![10, 11, 12]);
//! ```

mod build;
mod config;
mod error;
mod heap;
mod node;
mod optimize;
mod ray;
mod refit;
mod traverse;
mod validate;
pub mod wide;

use std::time::{Duration, Instant};

use raypick_primitives::Aabb;

pub use build::morton::morton_order;
pub use config::{BuildConfig, BuildStrategy, OptimizeConfig, MAX_BINS, MAX_DEPTH};
pub use error::{BuildError, ValidationError};
pub use node::Node;
pub use optimize::OptimizeReport;
pub use ray::BoxRay;
pub use traverse::BestFirstScratch;
pub use validate::BvhStats;

/// A bounding volume hierarchy over boxes: a flat array of [`Node`]s (root first, siblings
/// side by side, children after parents) and the primitive indices in leaf order.
///
/// Invariants (checked by [`Bvh::validate`], kept by every operation): each node box
/// contains its children's or its primitives' boxes; each primitive appears in exactly one
/// leaf; the depth is at most [`MAX_DEPTH`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Bvh {
    nodes: Vec<Node>,
    prim_indices: Vec<u32>,
    depth: usize,
}

/// Optional hooks for [`Bvh::build_with`].
#[derive(Clone, Copy, Default)]
pub struct BuildObserver<'a> {
    /// Called with the fraction of primitives placed in leaves (0 to 1), about every 1%,
    /// possibly from several threads, and with 1.0 when the build is done.
    pub progress: Option<&'a (dyn Fn(f32) + Sync)>,
}

impl std::fmt::Debug for BuildObserver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildObserver")
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What a build did and how long each phase took, from [`Bvh::build_with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildReport {
    /// Number of primitives.
    pub prim_count: usize,
    /// Checking the input boxes.
    pub check_time: Duration,
    /// The build proper: binned SAH (including the flattening of parallel parts) or Morton.
    pub build_time: Duration,
    /// The optimizer's report, when it ran.
    pub optimize: Option<OptimizeReport>,
    /// SAH cost after the binned build.
    pub sah_after_build: f64,
    /// SAH cost at the end (equal to `sah_after_build` without optimizer).
    pub sah_final: f64,
}

impl Bvh {
    /// Builds a tree over `boxes` (one per primitive, indexed by primitive index).
    ///
    /// 0 boxes give an empty, valid tree; 1 box a single leaf. Coincident, flat and point
    /// boxes are fine (coincident centroids are split by count). Rejects, naming the first bad
    /// index: a NaN coordinate ([`BuildError::NanBox`]), an infinite one
    /// ([`BuildError::InfiniteBox`]), `min > max` ([`BuildError::InvertedBox`], including
    /// `Aabb::EMPTY`), and more than `u32::MAX - 1` boxes. Uses rayon above
    /// `config.parallel_threshold` primitives; the result is the same whatever the thread
    /// count.
    pub fn build(boxes: &[Aabb], config: &BuildConfig) -> Result<Bvh, BuildError> {
        Self::build_reporting(boxes, config, &BuildObserver::default(), false, None)
            .map(|(b, _, _)| b)
    }

    /// [`Bvh::build`] with a progress callback, returning a [`BuildReport`] too. Each build
    /// runs in a debug-level `tracing` span `bvh_build` carrying the primitive count and, once
    /// done, the phase timings (`check_ms`, `build_ms`, `optimize_ms`), node count, depth and
    /// SAH cost, which a debug event `bvh built` repeats.
    pub fn build_with(
        boxes: &[Aabb],
        config: &BuildConfig,
        observer: &BuildObserver<'_>,
    ) -> Result<(Bvh, BuildReport), BuildError> {
        Self::build_reporting(boxes, config, observer, true, None).map(|(b, r, _)| (b, r))
    }

    /// [`Bvh::build`] with the 8-wide collapse's plan under `collapse` made as the tree is
    /// built, where the tree it plans is the one returned (not after the optimizer, nor for
    /// the Morton builder): `None` then, and for an empty tree.
    pub(crate) fn build_planned(
        boxes: &[Aabb],
        config: &BuildConfig,
        collapse: &wide::CollapseConfig,
    ) -> Result<(Bvh, Option<wide::collapse::Plan<{ build::PLAN_WIDTH }>>), BuildError> {
        Self::build_reporting(
            boxes,
            config,
            &BuildObserver::default(),
            false,
            Some(collapse),
        )
        .map(|(b, _, p)| (b, p))
    }

    /// [`Bvh::build_with`]; the SAH cost (a pass over the nodes) is computed only when the
    /// report is returned (`report_wanted`) or traced; the plan as [`Bvh::build_planned`].
    fn build_reporting(
        boxes: &[Aabb],
        config: &BuildConfig,
        observer: &BuildObserver<'_>,
        report_wanted: bool,
        collapse: Option<&wide::CollapseConfig>,
    ) -> Result<
        (
            Bvh,
            BuildReport,
            Option<wide::collapse::Plan<{ build::PLAN_WIDTH }>>,
        ),
        BuildError,
    > {
        let n = boxes.len();
        let span = tracing::debug_span!(
            "bvh_build",
            prims = n,
            check_ms = tracing::field::Empty,
            build_ms = tracing::field::Empty,
            optimize_ms = tracing::field::Empty,
            nodes = tracing::field::Empty,
            depth = tracing::field::Empty,
            sah = tracing::field::Empty,
        );
        let _enter = span.enter();
        let max = u32::MAX as usize - 1;
        if n > max {
            return Err(BuildError::TooManyPrimitives { count: n, max });
        }
        let t0 = Instant::now();
        build::check_boxes(boxes)?;
        let check_time = t0.elapsed();
        let mut report = BuildReport {
            prim_count: n,
            check_time,
            ..BuildReport::default()
        };
        if n == 0 {
            if let Some(cb) = observer.progress {
                cb(1.0);
            }
            return Ok((Bvh::default(), report, None));
        }
        let cfg = config::Resolved::new(config);
        let t1 = Instant::now();
        let progress = build::Progress {
            callback: observer.progress,
            done: Default::default(),
            total: n,
            step: (n / 100).max(1),
        };
        // The optimizer rewrites the tree the plan would be made for.
        let collapse = collapse.filter(|_| config.optimize.is_none());
        let (nodes, prim_indices, depth, plan) = match cfg.strategy {
            BuildStrategy::BinnedSah => build::build_nodes(boxes, cfg, &progress, collapse),
            BuildStrategy::Morton => {
                let (nodes, indices, depth) = build::morton::build_nodes(boxes, cfg, &progress);
                (nodes, indices, depth, None)
            }
        };
        let mut bvh = Bvh {
            nodes,
            prim_indices,
            depth,
        };
        report.build_time = t1.elapsed();
        if report_wanted || tracing::enabled!(tracing::Level::DEBUG) {
            report.sah_after_build = bvh.sah_cost();
            report.sah_final = report.sah_after_build;
        }
        if let Some(opt) = &config.optimize {
            let r = optimize::optimize(&mut bvh, opt, cfg.max_depth);
            report.sah_final = r.sah_after;
            report.optimize = Some(r);
        }
        if let Some(cb) = observer.progress {
            cb(1.0);
        }
        let optimize_ms = report
            .optimize
            .as_ref()
            .map_or(0.0, |r| r.time.as_secs_f64() * 1e3);
        span.record("check_ms", check_time.as_secs_f64() * 1e3);
        span.record("build_ms", report.build_time.as_secs_f64() * 1e3);
        span.record("optimize_ms", optimize_ms);
        span.record("nodes", bvh.nodes.len());
        span.record("depth", bvh.depth);
        span.record("sah", report.sah_final);
        tracing::debug!(
            prims = n,
            nodes = bvh.nodes.len(),
            depth = bvh.depth,
            check_ms = check_time.as_secs_f64() * 1e3,
            build_ms = report.build_time.as_secs_f64() * 1e3,
            optimize_ms,
            sah = report.sah_final,
            "bvh built"
        );
        Ok((bvh, report, plan))
    }

    /// Number of primitives.
    #[must_use]
    pub fn len(&self) -> usize {
        self.prim_indices.len()
    }

    /// True when the tree holds no primitive (and no node).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.prim_indices.is_empty()
    }

    /// The nodes; `nodes()[0]` is the root when the tree is not empty. See [`Node`].
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Leaf order: `prim_indices()[pos]` is the original index of the primitive at leaf-order
    /// position `pos`. Leaves refer to ranges of positions, so callers can store their
    /// primitive data permuted into this order and index it by a leaf range directly.
    #[must_use]
    pub fn prim_indices(&self) -> &[u32] {
        &self.prim_indices
    }

    /// The root's box; `Aabb::EMPTY` for an empty tree.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.nodes.first().map_or(Aabb::EMPTY, Node::aabb)
    }

    /// Number of levels (root = 1, 0 for an empty tree), at most [`MAX_DEPTH`].
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }
}
