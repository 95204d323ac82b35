//! A depth image from a camera, as a depth sensor or a renderer makes one: the rays of each
//! pixel row made at once (`Camera::row_rays`, exactly the rays of `Camera::ray_from_pixel`),
//! put in 4 x 4 pixel tiles and cast as a coherent batch (`Scene::closest_hit_coherent`: each
//! tile goes down the BVH as one packet, in parallel; exactly the single-ray answers), the
//! distances kept per pixel. Then shadows: from each pixel's surface point towards a point
//! light, in the same tile order, one coherent occlusion batch (`Scene::any_hit_coherent`:
//! each ray leaves its packet at its first hit). Prints the image's statistics and a small
//! character picture of it, shadowed pixels in capitals.
//!
//! ```text
//! cargo run --release --example depth_image [FILE]
//! ```

use raypick::prelude::*;

fn main() -> Result<(), Error> {
    run(std::env::args().nth(1).as_deref())
}

/// Runs the example on `file`, the bundled bunny by default (`tests/examples.rs` runs it).
pub fn run(file: Option<&str>) -> Result<(), Error> {
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let loaded = load_scene(file.unwrap_or(bunny))?;
    let scene = &loaded.scene;

    // A 320x240 view of the scene's box from the front.
    let (width, height) = (320u32, 240u32);
    let b = scene.bounds();
    let eye = b.center() + Vector3::new(0.0, 0.0, 1.3 * b.extents().norm());
    let camera = Camera::look_at(
        eye,
        b.center(),
        Vector3::y(),
        Projection::Perspective {
            fov_y: 40f32.to_radians(),
            aspect: width as Real / height as Real,
            near: 0.01,
            far: Real::INFINITY,
        },
        ClipConvention::OPENGL,
    )?;
    let viewport = Viewport::new(width as Real, height as Real);

    // Four rows at a time: their rays, put in 4 x 4 tiles (16 neighbouring pixels, one
    // packet), then one coherent batch for them. Directions have unit length, so `t` is the
    // distance from the near plane; a miss is infinitely far.
    let mut depth = vec![Real::INFINITY; (width * height) as usize];
    // Each pixel's surface point, in the order the tiles cast them, for the shadow rays.
    let mut surface: Vec<(usize, Point3<Real>)> = Vec::new();
    let mut rows: Vec<Vec<Option<Ray>>> = vec![Vec::new(); 4];
    let (mut rays, mut pixels, mut hits) = (Vec::new(), Vec::new(), Vec::new());
    let query = SceneQuery::default();
    for y0 in (0..height).step_by(4) {
        let band = (height - y0).min(4);
        for (dy, row) in rows.iter_mut().enumerate().take(band as usize) {
            camera.row_rays(y0 + dy as u32, 0..width, &viewport, row);
        }
        rays.clear();
        pixels.clear();
        for x0 in (0..width).step_by(4) {
            for (dy, row) in rows.iter().enumerate().take(band as usize) {
                for x in x0..(x0 + 4).min(width) {
                    // A pixel without a ray (none in a valid viewport) keeps its depth.
                    if let Some(ray) = row[x as usize] {
                        rays.push(ray);
                        pixels.push(((y0 + dy as u32) * width + x) as usize);
                    }
                }
            }
        }
        hits.resize(rays.len(), None);
        scene.closest_hit_coherent(&rays, &query, &mut hits)?;
        for (&at, h) in pixels.iter().zip(&hits) {
            if let Some(h) = h {
                depth[at] = h.t;
                surface.push((at, h.point));
            }
        }
    }

    // Shadow rays from the surface points to a light above and to the left of the camera,
    // which lies at t = 1 of each: a point is in shadow when something lies between (the
    // interval starts just off the surface, so that the point's own triangle does not
    // count).
    let light = b.center() + Vector3::new(-0.6, 1.0, 0.8) * b.extents().norm();
    let shadow_rays: Vec<Ray> = surface
        .iter()
        .map(|&(_, p)| Ray::new(p, light - p))
        .collect();
    let lit = SceneQuery {
        t_min: 1e-4,
        t_max: 1.0,
        ..SceneQuery::default()
    };
    let mut blocked = vec![false; shadow_rays.len()];
    scene.any_hit_coherent(&shadow_rays, &lit, &mut blocked)?;
    let mut shadowed = vec![false; depth.len()];
    for (&(at, _), &b) in surface.iter().zip(&blocked) {
        shadowed[at] = b;
    }
    // The same answers as one shadow ray at a time.
    for (ray, &b) in shadow_rays.iter().zip(&blocked).step_by(97) {
        assert_eq!(scene.any_hit(ray, &lit), b);
    }

    let seen: Vec<Real> = depth.iter().copied().filter(|d| d.is_finite()).collect();
    let near = seen.iter().copied().fold(Real::INFINITY, Real::min);
    let far = seen.iter().copied().fold(0.0, Real::max);
    println!(
        "{width}x{height} depth image: {} of {} pixels on the surface, depth {near:.4} to {far:.4}",
        seen.len(),
        depth.len()
    );

    // The same answer as a pick at a pixel's centre.
    let (px, py) = (width / 2, height / 2);
    let pick = scene.pick(
        &camera,
        &viewport,
        px as Real + 0.5,
        py as Real + 0.5,
        &PickOptions::new(),
    )?;
    let picked = pick.and_then(|p| p.hit).map(|h| h.t);
    let here = depth[(py * width + px) as usize];
    assert_eq!(picked.unwrap_or(Real::INFINITY), here);
    println!("pixel ({px}, {py}): depth {here:.4}, the pick's t there");
    println!(
        "shadows: {} of {} surface pixels hidden from the light",
        blocked.iter().filter(|&&b| b).count(),
        blocked.len()
    );

    // A 64x24 picture (its blank top and bottom rows left out): nearer is darker, misses
    // are blank, shadowed pixels are letters.
    let shades: Vec<char> = "@%#*+=-:.".chars().collect();
    let dark: Vec<char> = "MWXHOAVUY".chars().collect();
    let picture: Vec<String> = (0..24)
        .map(|cy| {
            (0..64)
                .map(|cx| {
                    let (x, y) = (cx * width / 64, cy * height / 24);
                    let d = depth[(y * width + x) as usize];
                    if !d.is_finite() {
                        return ' ';
                    }
                    let f = ((d - near) / (far - near).max(Real::MIN_POSITIVE)).clamp(0.0, 1.0);
                    let k = (f * (shades.len() - 1) as Real).round() as usize;
                    if shadowed[(y * width + x) as usize] {
                        dark[k]
                    } else {
                        shades[k]
                    }
                })
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect();
    let first = picture.iter().position(|l| !l.is_empty()).unwrap_or(0);
    let last = picture.iter().rposition(|l| !l.is_empty()).unwrap_or(0);
    for line in picture.get(first..=last).unwrap_or_default() {
        println!("{line}");
    }
    Ok(())
}
