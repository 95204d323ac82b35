//! One ray per pixel, in parallel: shaded by normal, or coloured by traversal cost.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use raypick_primitives::{Point3, Real};
use raypick_query::camera::Camera;
use raypick_query::scene::PrimData;
use raypick_query::RayQuery;

use crate::progress::Progress;
use crate::view::Size;
use crate::world::World;

pub const BACKGROUND: [u8; 3] = [28, 30, 36];
const HIGHLIGHT: [u8; 3] = [255, 235, 0];

pub struct Rendered {
    pub image: image::RgbImage,
    /// Time spent casting rays (not encoding).
    pub elapsed: Duration,
    pub rays: u64,
    /// For heatmaps: (min, mean, max) nodes visited per pixel.
    pub cost: Option<(u32, f64, u32)>,
    /// Shaded renders: each pixel's closest-hit `t` along its ray (infinite on a miss), for
    /// [`overlay`] to hide points and lines behind surfaces.
    pub depth: Vec<f32>,
}

impl Rendered {
    pub fn rays_per_second(&self) -> f64 {
        self.rays as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Pixels per side of the square tiles a render casts together (see
/// [`World::closest_hit_coherent`]): 4 x 4, one packet of rays.
const TILE: usize = 4;

/// A band of `TILE` rows of a render: its rays in tile order (4 x 4 pixel tiles, left to
/// right), each ray's pixel within the band, and their hits. Reused from band to band.
#[derive(Default)]
struct Band {
    rows: Vec<Vec<Option<raypick_primitives::Ray>>>,
    rays: Vec<raypick_primitives::Ray>,
    pixel: Vec<usize>,
    scratch: Vec<Option<raypick_query::scene::SceneHit>>,
    hits: Vec<Option<crate::world::WorldHit>>,
}

impl Band {
    /// Casts the `rows` rows from `y0` of a `w`-pixel-wide image: the rows' rays are made
    /// first (independent of each other, their divisions and square roots overlap), then
    /// cast in tile order.
    #[allow(clippy::too_many_arguments)]
    fn cast(
        &mut self,
        world: &World,
        camera: &Camera,
        viewport: &raypick_query::camera::Viewport,
        y0: u32,
        rows: usize,
        w: usize,
        query: &RayQuery,
    ) {
        self.rows.resize_with(rows, Vec::new);
        for (dy, row) in self.rows.iter_mut().enumerate() {
            camera.row_rays(y0 + dy as u32, 0..w as u32, viewport, row);
        }
        self.rays.clear();
        self.pixel.clear();
        for x0 in (0..w).step_by(TILE) {
            for (dy, row) in self.rows.iter().enumerate() {
                for (x, ray) in row.iter().enumerate().take((x0 + TILE).min(w)).skip(x0) {
                    if let Some(ray) = ray {
                        self.rays.push(*ray);
                        self.pixel.push(dy * w + x);
                    }
                }
            }
        }
        world.closest_hit_coherent(&self.rays, query, &mut self.scratch, &mut self.hits);
    }
}

/// Shaded by the world normal (`rgb = (n + 1) / 2`, dimmed where the surface turns away
/// from the eye); pixels on `highlight` (object, triangle) in yellow.
pub fn render_shaded(
    world: &World,
    camera: &Camera,
    size: Size,
    highlight: Option<(usize, u32)>,
) -> Rendered {
    let viewport = size.viewport();
    let progress = Progress::new("rendering", Some(u64::from(size.height)));
    let query = RayQuery::default();
    let start = Instant::now();
    let w = size.width as usize;
    let mut buf = vec![0u8; w * size.height as usize * 3];
    let mut depth = vec![f32::INFINITY; w * size.height as usize];
    buf.par_chunks_mut(w * 3 * TILE)
        .zip(depth.par_chunks_mut(w * TILE))
        .enumerate()
        .for_each_init(Band::default, |band, (b, (pixels, depth))| {
            let rows = depth.len() / w.max(1);
            band.cast(world, camera, &viewport, (b * TILE) as u32, rows, w, &query);
            pixels
                .chunks_exact_mut(3)
                .for_each(|px| px.copy_from_slice(&BACKGROUND));
            for ((&at, ray), hit) in band.pixel.iter().zip(&band.rays).zip(&band.hits) {
                if let Some(h) = hit {
                    depth[at] = h.t;
                    let color = if highlight == Some((h.object, h.triangle)) {
                        HIGHLIGHT
                    } else {
                        let n = h.normal.into_inner();
                        let facing = n.dot(&ray.dir).abs() / ray.dir.norm().max(f32::MIN_POSITIVE);
                        let light = 0.35 + 0.65 * facing;
                        [n.x, n.y, n.z]
                            .map(|c| ((c * 0.5 + 0.5) * light * 255.0).clamp(0.0, 255.0) as u8)
                    };
                    pixels[3 * at..3 * at + 3].copy_from_slice(&color);
                }
            }
            progress.inc(rows as u64);
        });
    let elapsed = start.elapsed();
    Rendered {
        image: image::RgbImage::from_raw(size.width, size.height, buf).unwrap_or_default(),
        elapsed,
        rays: u64::from(size.width) * u64::from(size.height),
        cost: None,
        depth,
    }
}

const POINT_COLOR: [u8; 3] = [255, 120, 40];
const LINE_COLOR: [u8; 3] = [90, 230, 255];

/// Draws the world's points (discs of radius 2 pixels) and lines (one pixel wide) over a
/// shaded render, each sample hidden where the render's surface lies in front of it.
pub fn overlay(world: &World, camera: &Camera, size: Size, r: &mut Rendered) {
    let viewport = size.viewport();
    let (w, h) = (size.width as i64, size.height as i64);
    // The world point's t along its pixel's ray, against that pixel's surface.
    let mut plot = |p: &nalgebra::Point3<f64>, radius: i64, color: [u8; 3]| {
        let Some((sx, sy, _)) = camera.project_f64(p, &viewport) else {
            return;
        };
        let (cx, cy) = (sx.floor() as i64, sy.floor() as i64);
        for y in cy - radius..=cy + radius {
            for x in cx - radius..=cx + radius {
                if x < 0
                    || y < 0
                    || x >= w
                    || y >= h
                    || (x - cx).pow(2) + (y - cy).pow(2) > radius * radius
                {
                    continue;
                }
                let i = (y * w + x) as usize;
                let visible = camera
                    .ray_from_pixel_f64(x as f64 + 0.5, y as f64 + 0.5, &viewport)
                    .is_some_and(|(o, d)| {
                        let t = (p - o).dot(&d) / d.norm_squared();
                        t <= f64::from(r.depth[i]) * (1.0 + 1e-4)
                    });
                if visible {
                    r.image.put_pixel(x as u32, y as u32, image::Rgb(color));
                }
            }
        }
    };
    for (_, data, m) in world.prim_sets() {
        let m = m.cast::<f64>();
        let at = |p: &Point3<Real>| m.transform_point(&p.cast::<f64>());
        match data {
            PrimData::Segments(set) => {
                for s in set.segments() {
                    let (a, b) = (
                        at(&set.points()[s[0] as usize]),
                        at(&set.points()[s[1] as usize]),
                    );
                    // Samples about a pixel apart on screen (ends behind the camera: a coarse
                    // walk).
                    let span = match (
                        camera.project_f64(&a, &viewport),
                        camera.project_f64(&b, &viewport),
                    ) {
                        (Some(pa), Some(pb)) => ((pa.0 - pb.0).hypot(pa.1 - pb.1)).min(4096.0),
                        _ => 256.0,
                    };
                    let steps = span.ceil().max(1.0) as usize;
                    for k in 0..=steps {
                        let f = k as f64 / steps as f64;
                        plot(&(a + (b - a) * f), 0, LINE_COLOR);
                    }
                }
            }
            PrimData::Points(set) => {
                for p in set.points() {
                    plot(&at(p), 2, POINT_COLOR);
                }
            }
        }
    }
}

/// Coloured by the number of BVH nodes each pixel's closest-hit traversal visits, from dark
/// blue (fewest in the image) through green and yellow to red (most).
pub fn render_heatmap(world: &World, camera: &Camera, size: Size) -> Rendered {
    let viewport = size.viewport();
    let progress = Progress::new("rendering heatmap", Some(u64::from(size.height)));
    let start = Instant::now();
    let w = size.width as usize;
    let mut costs = vec![0u32; w * size.height as usize];
    costs
        .par_chunks_mut(w)
        .enumerate()
        .for_each_init(Vec::new, |rays, (y, row)| {
            camera.row_rays(y as u32, 0..w as u32, &viewport, rays);
            for (c, ray) in row.iter_mut().zip(&*rays) {
                *c = ray.map_or(0, |ray| world.traversal_cost(&ray).0);
            }
            progress.inc(1);
        });
    let elapsed = start.elapsed();
    let min = costs.iter().copied().min().unwrap_or(0);
    let max = costs.iter().copied().max().unwrap_or(0);
    let mean = costs.iter().map(|&c| f64::from(c)).sum::<f64>() / costs.len().max(1) as f64;
    let span = (max - min).max(1) as f32;
    let buf: Vec<u8> = costs
        .iter()
        .flat_map(|&c| ramp((c - min) as f32 / span))
        .collect();
    Rendered {
        image: image::RgbImage::from_raw(size.width, size.height, buf).unwrap_or_default(),
        elapsed,
        rays: costs.len() as u64,
        cost: Some((min, mean, max)),
        depth: Vec::new(),
    }
}

/// A blue, cyan, green, yellow, red ramp over `0..=1`.
fn ramp(t: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [20.0, 20.0, 90.0],
        [0.0, 150.0, 220.0],
        [40.0, 200.0, 60.0],
        [250.0, 220.0, 30.0],
        [230.0, 30.0, 20.0],
    ];
    let t = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f32;
    let i = (t as usize).min(STOPS.len() - 2);
    let f = t - i as f32;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [0, 1, 2].map(|k| (a[k] + (b[k] - a[k]) * f) as u8)
}
