//! Occupancy and signed distance sampled on a regular grid, in parallel.

use raypick_primitives::{point_triangle, Aabb, Point3, Real, Triangle};

use rayon::prelude::*;

use super::CHUNK;
use crate::Mesh;

/// A walked row's last sample: its position, signed distance and the leaf slot of its
/// nearest triangle.
type Last = (Point3<Real>, Real, usize);

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
        self.solid_tree().note_sides(self, grid.len());
        grid.map(|p| self.contains_at(p))
    }

    /// [`Mesh::signed_distance`]'s distance at every sample of `grid`, in the grid's order,
    /// in parallel (a row along x per task); NaN where it is `None` (an empty mesh, or a
    /// non-finite sample).
    ///
    /// Each row walks from sample to sample. Each nearest-point search starts bounded by the
    /// distance to the last sample's nearest triangle (at most the last distance plus the
    /// step `h`, and usually far less). On a closed surface (every edge used once in each
    /// direction) the side carries over while the last sample lies farther than `h` from
    /// the surface, since no surface point is then between the two: the winding number is
    /// only computed near the surface. The answers are exactly the single-point ones.
    #[must_use]
    pub fn signed_distance_grid(&self, grid: &GridConfig) -> Vec<Real> {
        let tree = self.solid_tree();
        let [nx, ny, _] = grid.resolution;
        if grid.is_empty() {
            return Vec::new();
        }
        let closed = tree.closed(self);
        let mut out = vec![Real::NAN; grid.len()];
        out.par_chunks_mut(nx)
            .with_min_len(CHUNK.div_ceil(nx))
            .enumerate()
            .for_each(|(row, dst)| {
                let (j, k) = (row % ny, row / ny);
                // The last sample, its signed distance and the leaf slot of its nearest
                // triangle.
                let mut last: Option<Last> = None;
                for (i, d) in dst.iter_mut().enumerate() {
                    let p = grid.point(i, j, k);
                    let s = self.signed_distance_after(p, last, closed);
                    *d = s.map_or(Real::NAN, |(s, _)| s.distance);
                    last = s.map(|(s, slot)| (p, s.distance, slot));
                }
            });
        out
    }

    /// [`Mesh::signed_distance`] of `p`, knowing the signed distance of a nearby sample,
    /// with the leaf slot of the nearest triangle.
    fn signed_distance_after(
        &self,
        p: Point3<Real>,
        last: Option<Last>,
        closed: bool,
    ) -> Option<(super::SignedDistance, usize)> {
        let Some((q, dq, slot)) = last else {
            let (near, slot) = self.nearest_point_slot(&p, Real::INFINITY)?;
            return Some((self.signed_at(p, near), slot));
        };
        // The search is bounded by the last sample's nearest triangle, whose distance from
        // `p` is at most the last distance plus the step, and is usually far less. Padded
        // past f32 rounding.
        let h = (p.coords.cast::<f64>() - q.coords.cast::<f64>()).norm();
        let [a, b, c] = self.tris.get(slot);
        let seed = point_triangle(&p, &Triangle::new(a, b, c))
            .map_or(Real::INFINITY, |t| t.distance_squared.sqrt());
        let reach = f64::from(seed).min((f64::from(dq.abs()) + h) * (1.0 + 1e-5));
        let (near, slot) = match self.nearest_point_slot(&p, (reach as Real).next_up()) {
            Some(near) => near,
            None => self.nearest_point_slot(&p, Real::INFINITY)?,
        };
        if closed && f64::from(dq.abs()) > h * (1.0 + 1e-5) {
            // No surface point between `q` and `p`: the same side, the same integer
            // winding number.
            let inside = dq < 0.0;
            let w = if inside { 1.0 } else { 0.0 };
            return Some((Self::signed(near, inside, w), slot));
        }
        Some((self.signed_at(p, near), slot))
    }

    /// [`Mesh::winding_number`] at every sample of `grid`, in the grid's order, in parallel.
    #[must_use]
    pub fn winding_number_grid(&self, grid: &GridConfig) -> Vec<Real> {
        self.solid_tree();
        grid.map(|p| self.winding_number(p))
    }
}
