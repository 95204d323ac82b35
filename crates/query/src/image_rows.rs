//! Whether a flat batch of rays is an image's, row after row, and how wide its rows are.
//!
//! A camera's rays handed over as a flat `(n, 6)` array (trimesh's `camera_rays`, a LiDAR's
//! scan lines, any `(H * W, 6)` reshape) lose the shape that lets a batch cast them in 4 x 4
//! tiles as packets. Their order still shows it: within a row each ray is a small, steady
//! step from the one before, and ray `W` is about one step from ray 0, the pixel below it.
//! [`row_width`] finds that `W` and checks it at rows spread over the batch, and
//! [`tile_order`] gives the order to cast such rows in, 4 x 4 tiles at a time. A wrong width
//! costs only speed: the packet queries give exactly the single-ray answers for any grouping
//! of the rays.

use raypick_primitives::{Ray, Real};

/// Fewer rays than this are never taken for an image: too few tiles to pay for the look.
pub const MIN_RAYS: usize = 256;

/// The widest row looked for (an 8K frame is 7,680 pixels wide).
pub const MAX_WIDTH: usize = 1 << 14;

/// The largest angle (radians) between neighbouring rays of a row: a 4 x 4 tile then spans
/// under 0.1, the packets' bundle angle. Random pixels of a view lie far wider apart.
const STEP_ANGLE: f64 = 0.02;

/// How much a row's step, and the step from a row to the next, may differ from the first
/// row's (a wide-angle view's steps shrink by the cosine towards its edges).
const STEP_RATIO: f64 = 4.0;

/// The rows checked, spread over the batch.
const CHECKS: usize = 32;

/// A ray as an origin and a direction, in f64 (any length, not normalized).
type Parts = ([f64; 3], [f64; 3]);

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// A ray's origin and unit direction; `None` for a non-finite or zero one.
fn unit(r: Parts) -> Option<Parts> {
    let n = norm(r.1);
    let ok = n.is_finite() && n > 0.0 && r.0.iter().all(|c| c.is_finite());
    ok.then(|| (r.0, r.1.map(|c| c / n)))
}

/// The gap between two rays in units of the first row's step: the angle between their
/// directions over the angle step, plus the distance between their origins over the origin
/// step (a pinhole camera's rays share an origin; an orthographic one's share a direction).
struct Steps {
    angle: f64,
    offset: f64,
}

impl Steps {
    fn gap(&self, a: &Parts, b: &Parts) -> f64 {
        norm(sub(a.1, b.1)) / self.angle + norm(sub(a.0, b.0)) / self.offset
    }
}

/// The row width `W` of a flat batch of `len` rays that is an image's, row after row
/// (`ray(i)` gives ray `i`'s origin and direction, of any length): `Some(W)` when ray `W`
/// is the first ray after ray 3 within 2.5 steps of ray 0 (a step: the angle and the
/// origins' distance between rays 0 and 1) and, at 32 rows spread over the batch,
/// neighbours in a row and in a column stay within 4 times that step either way, with
/// directions no more than 0.02 radians apart. `None` for batches of fewer than
/// [`MIN_RAYS`] rays or of fewer than four rows of at least four rays, rows wider than
/// [`MAX_WIDTH`], scattered rays (random pixels, random directions), identical neighbours,
/// and any ray the checks read that is non-finite or has a zero direction.
///
/// Reads at most `W + 200` rays.
///
/// ```
/// use raypick_query::image_rows::row_width;
///
/// // A 64 x 48 view from one eye, row-major.
/// let ray = |i: usize| {
///     let (x, y) = ((i % 64) as f64, (i / 64) as f64);
///     Some(([0.0, 0.0, 5.0], [(x - 32.0) * 0.01, (y - 24.0) * 0.01, -1.0]))
/// };
/// assert_eq!(row_width(64 * 48, ray), Some(64));
/// // The same rays shuffled are not an image.
/// let shuffled = |i: usize| ray((i * 1_237) % (64 * 48));
/// assert_eq!(row_width(64 * 48, shuffled), None);
/// ```
pub fn row_width(len: usize, ray: impl Fn(usize) -> Option<([f64; 3], [f64; 3])>) -> Option<usize> {
    if len < MIN_RAYS {
        return None;
    }
    let at = |i: usize| unit(ray(i)?);
    let (r0, r1) = (at(0)?, at(1)?);
    let angle = norm(sub(r1.1, r0.1));
    let offset = norm(sub(r1.0, r0.0));
    // Unit directions and finite origins: no step is NaN.
    if angle > STEP_ANGLE || (angle == 0.0 && offset == 0.0) {
        return None;
    }
    // A zero step stands for one far below any real one, so that any change along it counts.
    let scale = 1.0 + r0.0.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let steps = Steps {
        angle: if angle > 0.0 { angle } else { 1e-9 },
        offset: if offset > 0.0 { offset } else { 1e-9 * scale },
    };
    // Along the first row the gap to ray 0 grows by about one step per ray; the first ray
    // back within 2.5 steps is the pixel below it (rows up to twice as far apart as columns).
    let last = (len / 4).min(MAX_WIDTH);
    let mut width = None;
    for k in 4..=last {
        if steps.gap(&r0, &at(k)?) < 2.5 {
            width = Some(k);
            break;
        }
    }
    let width = width?;
    let rows = len / width;
    if rows < 4 {
        return None;
    }
    let within = |g: f64| (1.0 / STEP_RATIO..=STEP_RATIO).contains(&g);
    for c in 0..CHECKS {
        // Rows from the first to the last but one, each checked at its start and middle.
        let row = c * (rows - 1) / CHECKS;
        for i in [row * width, row * width + width / 2] {
            let (a, b, below) = (at(i)?, at(i + 1)?, at(i + width)?);
            if norm(sub(b.1, a.1)) > STEP_ANGLE || !within(steps.gap(&a, &b)) {
                return None;
            }
            if !within(steps.gap(&a, &below)) {
                return None;
            }
        }
    }
    Some(width)
}

/// Batches of at least this many rays are looked at for an image's rows ([`batch_width`]),
/// to be cast in tiles: smaller ones gain little, and the Python layer's tasks (1,024 rays,
/// tiled by that layer itself when they are an image's) stay below it.
const TILE_FROM_RAYS: usize = 4096;

/// [`row_width`] of `rays`: the row width when they are an image's rays row after row.
#[must_use]
pub fn ray_row_width(rays: &[Ray]) -> Option<usize> {
    let parts = |r: &Ray| {
        let v = |a: [Real; 3]| a.map(f64::from);
        (v(r.origin.into()), v(r.dir.into()))
    };
    row_width(rays.len(), |i| rays.get(i).map(parts))
}

/// The row width of a batch query's `rays` when they are an image's rows, at least
/// [`TILE_FROM_RAYS`] of them ([`ray_row_width`]): the batch queries then cast them in
/// tiles.
pub(crate) fn batch_width(rays: &[Ray]) -> Option<usize> {
    if rays.len() < TILE_FROM_RAYS {
        return None;
    }
    ray_row_width(rays)
}

/// Rows of an image per band of tiles, and rays per tile row: tiles are `TILE` x `TILE`.
pub const TILE: usize = 4;

/// The rays `0..len` of rows of `width` rays (row-major, starting on a band of [`TILE`]
/// rows) in the order to cast them as tiles, into `order` (cleared first): `order[k]` is
/// the ray cast `k`-th. The whole tiles of each band come first, [`TILE`] x [`TILE`] rays
/// each, row by row within a tile; then the rays no whole tile holds (the columns past the
/// last multiple of [`TILE`], and a last band of fewer rows), in their order. Every ray
/// appears once; a `width` of 0 leaves the rays in their order.
pub fn tile_order(len: usize, width: usize, order: &mut Vec<u32>) {
    order.clear();
    if width == 0 {
        order.extend((0..len).map(|i| i as u32));
        return;
    }
    let full_cols = width / TILE * TILE;
    let full_bands = len / (TILE * width);
    for band in 0..full_bands {
        let base = band * TILE * width;
        for col in (0..full_cols).step_by(TILE) {
            for row in 0..TILE {
                let at = base + row * width + col;
                order.extend((at..at + TILE).map(|i| i as u32));
            }
        }
    }
    for band in 0..full_bands {
        let base = band * TILE * width;
        for row in 0..TILE {
            let at = base + row * width;
            order.extend((at + full_cols..at + width).map(|i| i as u32));
        }
    }
    order.extend((full_bands * TILE * width..len).map(|i| i as u32));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rays of a `w` x `h` pinhole view, row-major, rows `dy / dx` as far apart as columns.
    fn pinhole(w: usize, dx: f64, dy: f64) -> impl Fn(usize) -> Option<Parts> {
        move |i| {
            let (x, y) = ((i % w) as f64, (i / w) as f64);
            Some((
                [1.0, -2.0, 10.0],
                [(x - w as f64 / 2.0) * dx, (y - 20.0) * dy, -1.0],
            ))
        }
    }

    #[test]
    fn finds_the_rows_of_views() {
        let mut found = 0;
        for (w, h) in [(4, 80), (16, 17), (960, 540), (1000, 7)] {
            assert_eq!(
                row_width(w * h, pinhole(w, 1e-3, 1e-3)),
                Some(w),
                "{w} x {h}"
            );
            // Rows twice or half as far apart as columns, and a partial last row.
            assert_eq!(row_width(w * h, pinhole(w, 1e-3, 1.9e-3)), Some(w));
            assert_eq!(row_width(w * h - 1, pinhole(w, 1e-3, 0.6e-3)), Some(w));
            found += 3;
        }
        // An orthographic view: one direction, origins on a grid.
        let ortho = |i: usize| {
            let (x, y) = ((i % 300) as f64, (i / 300) as f64);
            Some(([x * 0.01, y * 0.01, 0.0], [0.0, 0.0, 1.0]))
        };
        assert_eq!(row_width(300 * 200, ortho), Some(300));
        assert_eq!(found, 12);
    }

    /// Every ray once, whole tiles first and each a 4 x 4 block of the image.
    #[test]
    fn tile_order_is_a_permutation_of_whole_tiles_then_the_rest() {
        let mut order = Vec::new();
        let mut cases = 0;
        for (len, width) in [
            (0, 5),
            (7, 3),
            (16, 4),
            (40, 10),
            (53 * 37, 53),
            (1000, 0),
            (35, 9),
        ] {
            tile_order(len, width, &mut order);
            let mut seen = order.clone();
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..len as u32), "{len} {width}");
            if width >= TILE {
                let tiles = (len / (TILE * width)) * (width / TILE);
                for (t, tile) in order.chunks(TILE * TILE).take(tiles).enumerate() {
                    let (r0, c0) = (tile[0] as usize / width, tile[0] as usize % width);
                    assert_eq!((r0 % TILE, c0 % TILE), (0, 0), "tile {t}");
                    for (k, &i) in tile.iter().enumerate() {
                        let i = i as usize;
                        assert_eq!((i / width - r0, i % width - c0), (k / TILE, k % TILE));
                    }
                }
            }
            cases += 1;
        }
        assert_eq!(cases, 7);
    }

    #[test]
    fn scattered_and_degenerate_batches_are_not_images() {
        let n = 100_000;
        // Random pixels of a 960-wide view (a pick set).
        let view = pinhole(960, 1e-3, 1e-3);
        let mut s = 7u64;
        let picks: Vec<usize> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 33) as usize % (960 * 540)
            })
            .collect();
        assert_eq!(row_width(n, |i| view(picks[i])), None);
        // Too coarse a step for packets: 0.05 radians between neighbours.
        assert_eq!(row_width(n, pinhole(500, 0.05, 0.05)), None);
        // Identical rays, too few rays, too few rows, non-finite and zero directions.
        assert_eq!(row_width(n, |_| Some(([0.0; 3], [0.0, 0.0, 1.0]))), None);
        assert_eq!(row_width(MIN_RAYS - 1, pinhole(16, 1e-3, 1e-3)), None);
        assert_eq!(row_width(3 * 200, pinhole(200, 1e-3, 1e-3)), None);
        let nan = |i: usize| {
            pinhole(64, 1e-3, 1e-3)(i).map(|(o, d)| {
                if i == 64 * 20 {
                    (o, [f64::NAN; 3])
                } else {
                    (o, d)
                }
            })
        };
        assert_eq!(row_width(64 * 64, nan), None);
        assert_eq!(row_width(64 * 64, |_| Some(([0.0; 3], [0.0; 3]))), None);
        // A view for its first rows, then scattered rays.
        let mixed = |i: usize| if i < 64 * 8 { view(i) } else { view(picks[i]) };
        assert_eq!(row_width(n, mixed), None);
    }
}
