//! The ray sets of the benchmark workloads ([`RaySet`](crate::RaySet)): camera rays through
//! random pixels of a view that frames the mesh, random rays through its bounding box, and the
//! query points of the nearest-point benchmarks. All seeded.

use raypick_primitives::{Aabb, Point3, Ray, Vector3};

use crate::rng::SplitMix64;
use crate::workloads::{BenchRay, MeshData};

/// `n` query points for nearest-point benchmarks: uniform in the mesh's bounding box grown by
/// 10% of its extent on every side, seeded. An empty mesh gives no points.
#[must_use]
pub fn query_points(mesh: &MeshData, n: usize, seed: u64) -> Vec<Point3<f32>> {
    let b = mesh.bounds();
    if b.is_empty() {
        return Vec::new();
    }
    let (lo, hi) = (b.min - b.extents() * 0.1, b.max + b.extents() * 0.1);
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let mut c = |i: usize| rng.range_f64(f64::from(lo[i]), f64::from(hi[i])) as f32;
            Point3::new(c(0), c(1), c(2))
        })
        .collect()
}

fn centre_and_half_diagonal(bounds: &Aabb) -> (Vector3<f64>, f64) {
    if bounds.is_empty() {
        return (Vector3::zeros(), 1.0);
    }
    let c = bounds.center().coords.cast::<f64>();
    let h = bounds.half_extents().cast::<f64>().norm();
    (c, if h > 0.0 { h } else { 1.0 })
}

fn to_f32(v: Vector3<f64>) -> Vector3<f32> {
    v.cast::<f32>()
}

/// Vertical field of view of the `pick` camera, in degrees.
pub const PICK_FOV_Y_DEG: f64 = 50.0;
/// Aspect ratio (width / height) of the `pick` camera.
pub const PICK_ASPECT: f64 = 16.0 / 9.0;
/// Resolution of the `pick` camera (rays go through pixel centres).
pub const PICK_RESOLUTION: (u32, u32) = (1920, 1080);

/// Camera rays: the camera looks at the box centre from the direction (1, -1.6, 0.9) (a
/// three-quarter view from above), at the smallest distance at which every vertex projects
/// inside the frame (the mesh just fits) and the camera is outside the bounding box.
/// Directions go through the centres of random pixels and are not normalized (their forward
/// component has length 1).
pub(crate) fn pick_rays(mesh: &MeshData, bounds: &Aabb, n: usize, seed: u64) -> Vec<BenchRay> {
    let cam = PickCamera::new(mesh, bounds);
    let (w, h) = PICK_RESOLUTION;
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            let px = rng.below(u64::from(w)) as f64 + 0.5;
            let py = rng.below(u64::from(h)) as f64 + 0.5;
            cam.ray(px, py, f64::from(w), f64::from(h))
        })
        .collect()
}

/// Coherent rays: the `pick` camera's rays through the centre of every pixel of a
/// `width` x `height` frame, row by row from the top left, as a render casts them.
#[must_use]
pub fn frame_rays(mesh: &MeshData, width: u32, height: u32) -> Vec<BenchRay> {
    let cam = PickCamera::new(mesh, &mesh.bounds());
    let (w, h) = (f64::from(width), f64::from(height));
    (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| cam.ray(f64::from(x) + 0.5, f64::from(y) + 0.5, w, h))
        .collect()
}

/// The `pick` camera (see [`pick_rays`]).
struct PickCamera {
    eye: Vector3<f64>,
    forward: Vector3<f64>,
    right: Vector3<f64>,
    up: Vector3<f64>,
    tan_x: f64,
    tan_y: f64,
}

impl PickCamera {
    fn new(mesh: &MeshData, bounds: &Aabb) -> Self {
        let (centre, r) = centre_and_half_diagonal(bounds);
        let half_fov = (PICK_FOV_Y_DEG * 0.5).to_radians();
        let back: Vector3<f64> = Vector3::new(1.0, -1.6, 0.9).normalize();
        let forward = -back;
        let right = forward.cross(&Vector3::z()).normalize();
        let up = right.cross(&forward);
        let tan_y = half_fov.tan();
        let tan_x = tan_y * PICK_ASPECT;
        // Outside the box: beyond its support along `back`.
        let half = if bounds.is_empty() {
            Vector3::repeat(r)
        } else {
            bounds.half_extents().cast::<f64>()
        };
        let support = half.x * back.x.abs() + half.y * back.y.abs() + half.z * back.z.abs();
        let mut dist = support * 1.01 + 1e-6 * r;
        for t in &mesh.triangles {
            for p in t.iter().filter_map(|&i| mesh.positions.get(i as usize)) {
                let q = p.coords.cast::<f64>() - centre;
                let depth = q.dot(&back); // towards the camera
                let need = (q.dot(&right).abs() / tan_x).max(q.dot(&up).abs() / tan_y) + depth;
                if need.is_finite() {
                    dist = dist.max(need);
                }
            }
        }
        Self {
            eye: centre + back * dist,
            forward,
            right,
            up,
            tan_x,
            tan_y,
        }
    }

    /// The ray through position `(px, py)` (pixels, top left origin) of a `w` x `h` frame.
    fn ray(&self, px: f64, py: f64, w: f64, h: f64) -> BenchRay {
        let sx = (2.0 * px / w - 1.0) * self.tan_x;
        let sy = (1.0 - 2.0 * py / h) * self.tan_y;
        let dir = self.forward + self.right * sx + self.up * sy;
        BenchRay {
            ray: Ray::new(Point3::from(to_f32(self.eye)), to_f32(dir)),
            t_max: f32::INFINITY,
        }
    }
}

/// Incoherent rays: origins uniform on the sphere of radius 1.5x the half-diagonal around the
/// box centre, each aimed at a uniform random point inside the box (direction = target -
/// origin, not normalized, so a hit has `t` below about 1.7).
pub(crate) fn random_rays(bounds: &Aabb, n: usize, seed: u64) -> Vec<BenchRay> {
    let (centre, r) = centre_and_half_diagonal(bounds);
    let (lo, hi) = if bounds.is_empty() {
        (Vector3::repeat(-1.0), Vector3::repeat(1.0))
    } else {
        (
            bounds.min.coords.cast::<f64>(),
            bounds.max.coords.cast::<f64>(),
        )
    };
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|_| {
            // Uniform on the sphere: z uniform in [-1, 1], angle uniform.
            let z = rng.range_f64(-1.0, 1.0);
            let a = rng.range_f64(0.0, std::f64::consts::TAU);
            let s = (1.0 - z * z).max(0.0).sqrt();
            let origin = centre + Vector3::new(s * a.cos(), s * a.sin(), z) * (1.5 * r);
            let target = Vector3::new(
                rng.range_f64(lo.x, hi.x),
                rng.range_f64(lo.y, hi.y),
                rng.range_f64(lo.z, hi.z),
            );
            let o32 = to_f32(origin);
            BenchRay {
                ray: Ray::new(Point3::from(o32), to_f32(target) - o32),
                t_max: f32::INFINITY,
            }
        })
        .collect()
}
