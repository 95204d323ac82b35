//! Cells where the side of a sheet is read from a table.
//!
//! On an open mesh with a short rim the winding number is `s + c`: the winding number `s`
//! of the surface the rim's edges sweep along its axis, plus the signed crossings `c` of the
//! ray from the point down that axis (see [`Rim::swept`]). Off the swept surface `s` is
//! smooth, and its gradient is the Biot-Savart field of that surface's boundary, which is
//! the rim (the strips' sides cancel, as every corner of a rim ends as many of its edges as
//! it starts, see `rim_loops`, and their far ends add nothing): at most
//! `Σ |e| / (4π dist(p, e)²)` over the rim edges `e`. `c` changes only where the point
//! crosses the mesh or the swept surface.
//!
//! A grid over the mesh's box, built once the mesh has decided enough sides (see
//! `WindingTree::note_sides`), keeps `s` at its vertices; inside a cell that the swept
//! surface does not reach, the trilinear interpolation of its corners is within
//! `(Σ h²) / 8` times a bound of `s`'s second derivatives (`2 Σ |e| / (4π dist³)`, from the
//! same field) of the exact `s`, and where no triangle comes near the cell, `c` is the same
//! at every point of it and kept. A point's side is then a lookup (or a lookup and one ray,
//! in the cells the sheet passes through) wherever `s + c` is farther from 0.5 than that
//! bound; nearer, `s` is summed at the point (within 1e-3), and cells beside the rim leave
//! the point to the sums. The table answers points near the sheet about as cheaply as those
//! far from it, which the sums do not.

use rayon::prelude::*;
use raypick_primitives::{Point3, Real, Vector3};

use super::angle::V64;
use super::rim::Rim;
use super::winding::{ray_margin, Winding, FINE_TOL};
use crate::Mesh;

/// About this many cells over the mesh's box grown by a quarter on each side.
const TARGET_CELLS: f64 = 32_768.0;

/// At most this many cells along an axis.
const MAX_DIM: usize = 256;

/// No table for a rim of more edges: each cell's bounds and each vertex's sum grow with it
/// (`terrain_1m` has 2,828 and `noisy_4m` 5,656; a sheet of a million triangles riddled with
/// holes could have 250,000, and a build of seconds).
const MAX_RIM_EDGES: usize = 1 << 14;

/// A block's bound is taken for its cells up to this; past it (near the rim, where the
/// block's reach matters) each cell's own is summed.
const BLOCK_ERR: f64 = 0.05;

/// Rim edges per bounding ball in the gradient's sum.
const CHUNK: usize = 16;

/// One cell: `err` NaN where the table does not answer.
#[derive(Clone, Copy, Debug)]
struct Cell {
    /// The most the winding number can differ from the interpolated `s` plus `count` in the
    /// cell.
    err: f32,
    /// The crossings of the ray down from any point of the cell (if `clear`).
    count: i32,
    /// No triangle within the cell's ball grown by twice the ray's margin.
    clear: bool,
}

const NO_CELL: Cell = Cell {
    err: f32::NAN,
    count: 0,
    clear: false,
};

/// A run of consecutive rim edges in a ball, for bounding their terms from afar.
struct Chunk {
    center: V64,
    radius: f64,
    length: f64,
    edges: std::ops::Range<usize>,
}

/// The table of a sheet with a short rim, in the rim's turned coordinates (see
/// [`Rim::turned`]).
#[derive(Clone, Debug)]
pub(crate) struct RimCells {
    lo: V64,
    /// Cells per unit length, per axis.
    inv: V64,
    dims: [usize; 3],
    /// `s` at the grid's vertices (`dims + 1` per axis, x fastest; NaN where the sum there
    /// is not whole).
    vertices: Vec<f64>,
    cells: Vec<Cell>,
}

impl RimCells {
    /// The table of `mesh` (open, with the rim `rim`), or `None` when the rim has more than
    /// [`MAX_RIM_EDGES`] edges or the box is degenerate. Its cells are made in parallel on
    /// rayon.
    pub(crate) fn build(mesh: &Mesh, rim: &Rim) -> Option<RimCells> {
        if rim.edges().is_empty() || rim.edges().len() > MAX_RIM_EDGES {
            return None;
        }
        let b = mesh.bounds();
        let (mut lo, mut hi) = (rim.turned(&b.min), rim.turned(&b.max));
        let widest = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
        if !(widest > 0.0 && widest.is_finite()) {
            return None;
        }
        for a in 0..3 {
            let grow = 0.25 * (hi[a] - lo[a]) + 0.01 * widest;
            lo[a] -= grow;
            hi[a] += grow;
        }
        let ext: V64 = std::array::from_fn(|a| hi[a] - lo[a]);
        let side = (ext.iter().product::<f64>() / TARGET_CELLS).cbrt();
        let dims: [usize; 3] =
            std::array::from_fn(|a| ((ext[a] / side).ceil() as usize).clamp(1, MAX_DIM));
        let size: V64 = std::array::from_fn(|a| ext[a] / dims[a] as f64);
        let chunks = balls(rim.edges(), CHUNK);
        // The rays' margin anywhere in the grid, and the f32 step of its coordinates.
        let scale = (0..3)
            .map(|a| lo[a].abs().max(hi[a].abs()))
            .chain(b.min.iter().chain(b.max.iter()).map(|x| f64::from(x.abs())))
            .fold(0.0, f64::max);
        let m = scale * 1e-5;
        let step = scale * 1e-6;
        let vdims = dims.map(|d| d + 1);
        let vertices: Vec<f64> = (0..vdims.iter().product::<usize>())
            .into_par_iter()
            .with_min_len(64)
            .map(|i| {
                let idx = unravel(i, vdims);
                let q: [Real; 3] =
                    std::array::from_fn(|a| (lo[a] + idx[a] as f64 * size[a]) as Real);
                let p = rim.unturned(q);
                match rim.swept(p, f64::from(ray_margin(&b, &p))) {
                    Some((s, true)) if s.is_finite() => s,
                    _ => f64::NAN,
                }
            })
            .collect();
        let near = near_cells(mesh, rim, lo, size, dims, m, step);
        // The derivatives' bounds per block of 2 x 2 x 2 cells (a cell whose block is near
        // the rim gets its own).
        let bdims = dims.map(|d| d.div_ceil(2));
        let block_box = |idx: [usize; 3], span: usize| {
            let l: V64 = std::array::from_fn(|a| lo[a] + (idx[a] * span) as f64 * size[a]);
            let h: V64 = std::array::from_fn(|a| {
                lo[a] + ((idx[a] * span + span).min(dims[a])) as f64 * size[a]
            });
            (l, h)
        };
        let blocks: Vec<Option<(f64, f64)>> = (0..bdims.iter().product::<usize>())
            .into_par_iter()
            .with_min_len(16)
            .map(|i| {
                let idx = unravel(i, bdims);
                let (l, h) = block_box(idx, 2);
                field(rim, &chunks, l, h, m + step)
            })
            .collect();
        let n = dims.iter().product::<usize>();
        let four_pi = 4.0 * std::f64::consts::PI;
        let cells = (0..n)
            .into_par_iter()
            .with_min_len(64)
            .map(|i| {
                let idx = unravel(i, dims);
                let corners = (0..8).map(|k| {
                    let v = [k & 1, (k >> 1) & 1, k >> 2];
                    vertices[ravel(std::array::from_fn(|a| idx[a] + v[a]), vdims)]
                });
                if corners.into_iter().any(f64::is_nan) {
                    return NO_CELL;
                }
                let (l, h) = block_box(idx, 1);
                // The interpolation's error, the corners' stated error (the weights sum to
                // 1), and the corners' and the point's f32 rounding (a few steps of the
                // largest coordinate, times the gradient's bound).
                let h2: f64 = (0..3).map(|a| (h[a] - l[a]).powi(2)).sum();
                let err_of = |(first, second): (f64, f64)| {
                    h2 / 8.0 * 2.0 * second / four_pi + FINE_TOL + step * first / four_pi
                };
                let block = idx.map(|x| x / 2);
                let mut err = blocks[ravel(block, bdims)].map_or(f64::INFINITY, err_of);
                if err.is_nan() || err > BLOCK_ERR {
                    // Near the rim the block's bound is loose: the cell's own.
                    err = field(rim, &chunks, l, h, m + step).map_or(f64::INFINITY, err_of);
                }
                // Past 0.5 the cell could decide nothing.
                if err.is_nan() || err >= 0.5 {
                    return NO_CELL;
                }
                let (mut clear, mut count) = (!near[i], 0);
                if clear {
                    // No triangle near: the ray count is the centre's everywhere in the cell
                    // (it changes only across the mesh or the swept surface).
                    let centre: [Real; 3] = std::array::from_fn(|a| (0.5 * (l[a] + h[a])) as Real);
                    let p = rim.unturned(centre);
                    match mesh
                        .crossings_clear(p, down(rim), ray_margin(&b, &p))
                        .and_then(|k| i32::try_from(k).ok())
                    {
                        Some(k) => count = k,
                        None => clear = false,
                    }
                }
                Cell {
                    err: err as f32,
                    count,
                    clear,
                }
            })
            .collect();
        Some(RimCells {
            lo,
            inv: std::array::from_fn(|a| dims[a] as f64 / ext[a]),
            dims,
            vertices,
            cells,
        })
    }

    /// The winding number of `p` (finite) for a side decision, if its cell answers and the
    /// value is farther from 0.5 than its stated error (the [`Winding::tolerance`]): the
    /// interpolated one, or nearer 0.5 the swept surface's sum at `p` (within
    /// [`FINE_TOL`]).
    pub(crate) fn side(&self, mesh: &Mesh, rim: &Rim, p: Point3<Real>) -> Option<Winding> {
        let q = rim.turned(&p);
        let mut idx = [0usize; 3];
        let mut t = [0.0f64; 3];
        for a in 0..3 {
            let f = (q[a] - self.lo[a]) * self.inv[a];
            if !(f >= 0.0 && f < self.dims[a] as f64) {
                return None;
            }
            idx[a] = (f as usize).min(self.dims[a] - 1);
            t[a] = (f - idx[a] as f64).clamp(0.0, 1.0);
        }
        let cell = self.cells[ravel(idx, self.dims)];
        if cell.err.is_nan() {
            return None;
        }
        let margin = || ray_margin(&mesh.bounds(), &p);
        let count = if cell.clear {
            cell.count
        } else {
            i32::try_from(mesh.crossings_clear(p, down(rim), margin())?).ok()?
        };
        // Trilinear: along x, then y, then z.
        let vdims = self.dims.map(|d| d + 1);
        let v = |i: usize, j: usize, k: usize| {
            self.vertices[ravel([idx[0] + i, idx[1] + j, idx[2] + k], vdims)]
        };
        let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
        let x = |j, k| lerp(v(0, j, k), v(1, j, k), t[0]);
        let y = |k| lerp(x(0, k), x(1, k), t[1]);
        let s = lerp(y(0), y(1), t[2]);
        let mut value = s + f64::from(count);
        let mut err = f64::from(cell.err);
        if (value - 0.5).abs() <= err {
            // Near 0.5: the swept surface's own sum at `p` (within its stated error), with
            // the count already known, rather than the coarse sums, which would not decide.
            let (s, whole) = rim.swept(p, f64::from(margin()))?;
            (value, err) = (s + f64::from(count), FINE_TOL);
            if !whole || (value - 0.5).abs() <= err {
                return None;
            }
        }
        Some(Winding {
            value,
            on_surface: false,
            tolerance: err,
            off_surface: cell.clear,
            untouched: cell.clear,
        })
    }
}

/// The grid index `[i, j, k]` of entry `n` of a grid of `dims`, x fastest.
fn unravel(n: usize, dims: [usize; 3]) -> [usize; 3] {
    [
        n % dims[0],
        (n / dims[0]) % dims[1],
        n / (dims[0] * dims[1]),
    ]
}

/// The entry of grid index `idx` in a grid of `dims`, x fastest ([`unravel`]'s inverse).
fn ravel(idx: [usize; 3], dims: [usize; 3]) -> usize {
    idx[0] + dims[0] * (idx[1] + dims[1] * idx[2])
}

/// The unit direction down the rim's axis, which the swept surface never meets.
fn down(rim: &Rim) -> Vector3<Real> {
    let mut dir = Vector3::zeros();
    dir[rim.axis()] = -1.0;
    dir
}

/// The rim's edges in runs of `size`, each in a ball.
fn balls(edges: &[[V64; 2]], size: usize) -> Vec<Chunk> {
    (0..edges.len())
        .step_by(size)
        .map(|start| {
            let range = start..(start + size).min(edges.len());
            let run = &edges[range.clone()];
            let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
            for p in run.iter().flatten() {
                for a in 0..3 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            }
            let center: V64 = std::array::from_fn(|a| 0.5 * (lo[a] + hi[a]));
            // Slightly grown: the ball must hold every edge whatever the roundings.
            let radius = run
                .iter()
                .flatten()
                .map(|p| dist(p, &center, 3))
                .fold(0.0, f64::max)
                * (1.0 + 1e-9);
            let length = run.iter().map(|[u, v]| dist(u, v, 3)).sum();
            Chunk {
                center,
                radius,
                length,
                edges: range,
            }
        })
        .collect()
}

/// The distance between `a` and `b` over their first `n` coordinates.
fn dist(a: &V64, b: &V64, n: usize) -> f64 {
    (0..n).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// The distance from `p` to the segment `e` over the first `n` coordinates.
fn seg_dist(p: &V64, e: &[V64; 2], n: usize) -> f64 {
    let d: V64 = std::array::from_fn(|k| if k < n { e[1][k] - e[0][k] } else { 0.0 });
    let w: V64 = std::array::from_fn(|k| if k < n { p[k] - e[0][k] } else { 0.0 });
    let dd: f64 = d.iter().map(|x| x * x).sum();
    let t = if dd > 0.0 {
        (w.iter().zip(&d).map(|(a, b)| a * b).sum::<f64>() / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (0..n)
        .map(|k| (w[k] - t * d[k]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The bounds of the swept surface's derivatives over the box `lo..hi` (turned): the sums
/// over the rim edges of `|e| / d²` (the gradient's bound, times 4π) and `|e| / d³` (the
/// second derivatives', times 2π: the Jacobian of `r / |r|³` has norm `2 / |r|³`), `d` the
/// least distance from the box; `None` where the swept surface comes within reach (the
/// box's footprint across the rim's axis within `m` of a rim edge's) or the rim within the
/// box's ball.
fn field(rim: &Rim, chunks: &[Chunk], lo: V64, hi: V64, m: f64) -> Option<(f64, f64)> {
    let c: V64 = std::array::from_fn(|a| 0.5 * (lo[a] + hi[a]));
    // From the centre to the farthest corner, in 3 and in 2 dimensions.
    let reach = |n: usize| {
        (0..n)
            .map(|a| (c[a] - lo[a]).abs().max((hi[a] - c[a]).abs()).powi(2))
            .sum::<f64>()
            .sqrt()
            * (1.0 + 1e-9)
    };
    let (r3, r2) = (reach(3), reach(2));
    let edges = rim.edges();
    let (mut first, mut second) = (0.0, 0.0);
    // A chunk's edges all count as at its least distance where it is far enough for that
    // to be nearly so (the bound holds wherever that distance exceeds the box's reach).
    let far = |b: &Chunk, first: &mut f64, second: &mut f64| {
        let d3 = dist(&c, &b.center, 3) - b.radius;
        let d2 = dist(&c, &b.center, 2) - b.radius;
        let far = d2 > r2 + m && d3 > 2.0 * r3.max(b.radius);
        if far {
            let d = d3 - r3;
            *first += b.length / (d * d);
            *second += b.length / (d * d * d);
        }
        far
    };
    for chunk in chunks {
        if far(chunk, &mut first, &mut second) {
            continue;
        }
        for e in &edges[chunk.edges.clone()] {
            let d3 = seg_dist(&c, e, 3);
            if seg_dist(&c, e, 2) <= r2 + m || d3 <= r3 {
                return None;
            }
            let (len, d) = (dist(&e[0], &e[1], 3), d3 - r3);
            first += len / (d * d);
            second += len / (d * d * d);
        }
    }
    Some((first, second))
}

/// The cells some triangle comes near: within the cell's reach (its centre to a corner)
/// plus twice the rays' margin `m` and the coordinates' rounding `step` of its centre (each
/// leaf's box against the cube around the centre, so a cell may be called near for
/// nothing, never the reverse). Outside them every point is off the surface by more than
/// `m`.
fn near_cells(
    mesh: &Mesh,
    rim: &Rim,
    lo: V64,
    size: V64,
    dims: [usize; 3],
    m: f64,
    step: f64,
) -> Vec<bool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let reach =
        0.5 * size.iter().map(|s| s * s).sum::<f64>().sqrt() * (1.0 + 1e-6) + 2.0 * m + 4.0 * step;
    let near: Vec<AtomicBool> = (0..dims.iter().product::<usize>())
        .map(|_| AtomicBool::new(false))
        .collect();
    mesh.wide
        .leaf_ranges()
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|leaf| {
            let b = mesh.tris.leaf_box(leaf);
            let (bl, bh) = (rim.turned(&b.min), rim.turned(&b.max));
            let mut range = [(0usize, 0usize); 3];
            for a in 0..3 {
                // Cells whose centre `lo + (i + 0.5) size` lies within `reach` of the box.
                let first = ((bl[a] - reach - lo[a]) / size[a] - 0.5).ceil().max(0.0);
                let last = ((bh[a] + reach - lo[a]) / size[a] - 0.5).floor();
                let some = last >= first; // false for NaN too
                if !some || first >= dims[a] as f64 {
                    return;
                }
                range[a] = (first as usize, (last as usize).min(dims[a] - 1));
            }
            for k in range[2].0..=range[2].1 {
                for j in range[1].0..=range[1].1 {
                    for i in range[0].0..=range[0].1 {
                        near[i + dims[0] * (j + dims[1] * k)].store(true, Ordering::Relaxed);
                    }
                }
            }
        });
    near.into_iter().map(AtomicBool::into_inner).collect()
}

#[cfg(test)]
mod tests;
