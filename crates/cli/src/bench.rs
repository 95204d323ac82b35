//! `raypick bench`: build time and rays per second, one thread and all threads, for camera
//! rays and incoherent rays.

use std::time::{Duration, Instant};

use rayon::prelude::*;
use raypick_primitives::{Point3, Ray, Real, Vector3};
use raypick_query::camera::Camera;
use raypick_query::RayQuery;

use crate::view::Size;
use crate::world::World;

/// Camera rays through every pixel centre of `size`.
pub fn camera_rays(camera: &Camera, size: Size) -> Vec<Ray> {
    let vp = size.viewport();
    (0..size.height)
        .flat_map(|y| (0..size.width).map(move |x| (x, y)))
        .filter_map(|(x, y)| camera.ray_from_pixel(x as Real + 0.5, y as Real + 0.5, &vp))
        .collect()
}

/// Rays from random points on a sphere around the scene towards random points inside its
/// box: no two neighbours share a path (seeded, so runs compare).
pub fn incoherent_rays(world: &World, count: usize) -> Vec<Ray> {
    let b = world.bounds();
    let (center, radius) = if b.is_empty() {
        (Point3::origin(), 1.0)
    } else {
        (b.center(), (0.5 * b.extents().norm()).max(1e-3))
    };
    let ext = if b.is_empty() {
        Vector3::new(1.0, 1.0, 1.0)
    } else {
        b.extents()
    };
    let mut s: u64 = 0x2545_F491_4F6C_DD1D;
    let mut unit = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as Real / (1u64 << 24) as Real
    };
    (0..count)
        .map(|_| {
            let dir = loop {
                let v = Vector3::new(unit() * 2.0 - 1.0, unit() * 2.0 - 1.0, unit() * 2.0 - 1.0);
                let n = v.norm();
                if n > 1e-3 && n <= 1.0 {
                    break v / n;
                }
            };
            let origin = center + dir * (radius * 1.5);
            let target = if b.is_empty() {
                center
            } else {
                b.min + Vector3::new(unit() * ext.x, unit() * ext.y, unit() * ext.z)
            };
            Ray::new(origin, target - origin)
        })
        .collect()
}

/// Rays per second of `f` over `rays`, repeated until at least `min_time` has passed.
fn measure<F>(rays: &[Ray], threads: Threads, min_time: Duration, f: F) -> f64
where
    F: Fn(&Ray) -> bool + Sync,
{
    let start = Instant::now();
    let mut done = 0u64;
    let mut sink = 0usize;
    while start.elapsed() < min_time || done == 0 {
        sink += match threads {
            Threads::One => rays.iter().filter(|r| f(r)).count(),
            Threads::All => rays.par_iter().filter(|r| f(r)).count(),
        };
        done += rays.len() as u64;
    }
    std::hint::black_box(sink);
    done as f64 / start.elapsed().as_secs_f64()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Threads {
    One,
    All,
}

pub struct Row {
    pub rays: &'static str,
    pub query: &'static str,
    pub one_thread: f64,
    pub all_threads: f64,
}

pub fn run(world: &World, camera: &Camera, quick: bool) -> Vec<Row> {
    let (size, min_time) = if quick {
        (
            Size {
                width: 64,
                height: 64,
            },
            Duration::from_millis(20),
        )
    } else {
        (
            Size {
                width: 512,
                height: 512,
            },
            Duration::from_millis(1000),
        )
    };
    let sets = [
        ("camera", camera_rays(camera, size)),
        (
            "incoherent",
            incoherent_rays(world, (size.width * size.height) as usize),
        ),
    ];
    let q = RayQuery::default();
    let mut rows = Vec::new();
    for (name, rays) in &sets {
        let closest = |r: &Ray| world.closest_hit(r, &q).is_some();
        let any = |r: &Ray| world.any_hit(r, &q);
        rows.push(Row {
            rays: name,
            query: "closest_hit",
            one_thread: measure(rays, Threads::One, min_time, closest),
            all_threads: measure(rays, Threads::All, min_time, closest),
        });
        rows.push(Row {
            rays: name,
            query: "any_hit",
            one_thread: measure(rays, Threads::One, min_time, any),
            all_threads: measure(rays, Threads::All, min_time, any),
        });
    }
    rows
}
