//! Occupancy and signed distance sampled on a regular grid, in parallel.

use raypick_primitives::{Aabb, Point3, Real};

use rayon::prelude::*;

use super::CHUNK;
use crate::Mesh;

/// A regular grid of sample points: `resolution[a]` points along axis `a`, from
/// `bounds.min` to `bounds.max` inclusive (a resolution of 1 samples `bounds.min` on that
/// axis).
///
/// Samples are ordered x fastest, then y, then z: sample `(i, j, k)` is at index
/// `i + resolution[0] * (j + resolution[1] * k)` (what numpy calls a `[z][y][x]` array in C
/// order). The default is the unit cube at 32³.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridConfig {
    /// The box whose corners are the first and last samples.
    pub bounds: Aabb,
    /// Samples per axis (x, y, z); 0 on any axis means no samples.
    pub resolution: [usize; 3],
}

impl Default for GridConfig {
    fn default() -> Self {
        Self::new(
            Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0)),
            [32; 3],
        )
    }
}

impl GridConfig {
    /// A grid over `bounds` with `resolution` samples per axis.
    #[must_use]
    pub fn new(bounds: Aabb, resolution: [usize; 3]) -> Self {
        Self { bounds, resolution }
    }

    /// A cubic grid of `n` samples per axis over `mesh`'s bounding box grown by `margin`
    /// times its diagonal on every side (for training samples, 0.1 is usual).
    #[must_use]
    pub fn around(mesh: &Mesh, n: usize, margin: Real) -> Self {
        let b = mesh.bounds();
        if b.min.x > b.max.x {
            return Self::new(Aabb::new(Point3::origin(), Point3::origin()), [n; 3]);
        }
        let grow = (b.max - b.min).norm() * margin;
        let d = nalgebra::Vector3::repeat(grow);
        Self::new(Aabb::new(b.min - d, b.max + d), [n; 3])
    }

    /// The number of samples (the product of the resolutions; saturating).
    #[must_use]
    pub fn len(&self) -> usize {
        self.resolution
            .iter()
            .fold(1usize, |n, &r| n.saturating_mul(r))
    }

    /// True when the grid has no sample.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The position of sample `(i, j, k)`.
    #[must_use]
    pub fn point(&self, i: usize, j: usize, k: usize) -> Point3<Real> {
        let at = |a: usize, idx: usize| -> Real {
            let (lo, hi) = (self.bounds.min[a], self.bounds.max[a]);
            let n = self.resolution[a];
            if n <= 1 {
                lo
            } else if idx + 1 == n {
                hi
            } else {
                lo + (hi - lo) * (idx as Real / (n - 1) as Real)
            }
        };
        Point3::new(at(0, i), at(1, j), at(2, k))
    }

    /// Every sample position, in the grid's order (x fastest).
    #[must_use]
    pub fn points(&self) -> Vec<Point3<Real>> {
        let [nx, ny, nz] = self.resolution;
        let mut out = Vec::with_capacity(self.len());
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    out.push(self.point(i, j, k));
                }
            }
        }
        out
    }

    /// `answer(sample)` for every sample in the grid's order, in parallel.
    fn map<T: Send>(&self, answer: impl Fn(Point3<Real>) -> T + Sync) -> Vec<T> {
        let [nx, ny, _] = self.resolution;
        if self.is_empty() {
            return Vec::new();
        }
        (0..self.len())
            .into_par_iter()
            .with_min_len(CHUNK)
            .map(|n| answer(self.point(n % nx, (n / nx) % ny, n / (nx * ny))))
            .collect()
    }
}

impl Mesh {
    /// [`Mesh::contains`] at every sample of `grid`, in the grid's order, in parallel.
    #[must_use]
    pub fn occupancy_grid(&self, grid: &GridConfig) -> Vec<bool> {
        self.winding_tree();
        grid.map(|p| self.contains(p))
    }

    /// [`Mesh::signed_distance`]'s distance at every sample of `grid`, in the grid's order,
    /// in parallel; NaN where it is `None` (an empty mesh, or a non-finite sample).
    #[must_use]
    pub fn signed_distance_grid(&self, grid: &GridConfig) -> Vec<Real> {
        self.winding_tree();
        grid.map(|p| self.signed_distance(p).map_or(Real::NAN, |s| s.distance))
    }

    /// [`Mesh::winding_number`] at every sample of `grid`, in the grid's order, in parallel.
    #[must_use]
    pub fn winding_number_grid(&self, grid: &GridConfig) -> Vec<Real> {
        self.winding_tree();
        grid.map(|p| self.winding_number(p))
    }
}
