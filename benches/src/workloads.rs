//! The benchmark workloads: nine meshes and two ray sets per mesh, all generated
//! deterministically from fixed seeds. The first four are smooth meshes (and a soup); the
//! other five ([`crate::hard`]) have the long thin triangles of CAD and scans.

use std::fmt;
use std::path::{Path, PathBuf};

use raypick_primitives::{Aabb, Point3, Ray};

use crate::noise::fbm3;
use crate::rays::{pick_rays, random_rays};
pub use crate::rays::{query_points, PICK_ASPECT, PICK_FOV_Y_DEG, PICK_RESOLUTION};
use crate::rng::SplitMix64;

/// A triangle mesh as the benchmarks hand it to every engine: positions and index triples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertex positions.
    pub positions: Vec<Point3<f32>>,
    /// Counter-clockwise index triples into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

impl MeshData {
    /// The bounding box of the referenced vertices; an empty box for a mesh without triangles.
    ///
    /// Indices out of range are skipped (the generators never make them; the exchange reader
    /// rejects them).
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        let mut b = Aabb::EMPTY;
        for t in &self.triangles {
            for &i in t {
                if let Some(p) = self.positions.get(i as usize) {
                    b = b.grow(p);
                }
            }
        }
        b
    }

    /// The corners of triangle `i`, or `None` when `i` or one of its indices is out of range.
    #[must_use]
    pub fn triangle(&self, i: usize) -> Option<[Point3<f32>; 3]> {
        let [a, b, c] = *self.triangles.get(i)?;
        Some([
            *self.positions.get(a as usize)?,
            *self.positions.get(b as usize)?,
            *self.positions.get(c as usize)?,
        ])
    }
}

/// One benchmark ray: a [`Ray`] (direction not normalized) and its `t_max` (may be `+inf`).
/// `t_min` is always 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchRay {
    /// The ray; `t` is in units of its direction.
    pub ray: Ray,
    /// Upper end of the hit interval.
    pub t_max: f32,
}

/// The four meshes of `workloads.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// `assets/bunny.obj`, 3,674 triangles.
    Bunny,
    /// A UV sphere (512 rings x 1000 segments, 1,022,000 triangles) radially displaced by
    /// value noise.
    Sphere1m,
    /// A 708 x 708 heightfield over `[-1, 1]^2` (999,698 triangles) with fractal noise heights.
    Terrain1m,
    /// 100,000 independent small random triangles in the unit cube.
    Soup100k,
    /// A CAD-like engine part ([`crate::cad_part`]), 117,984 mostly sliver triangles.
    Cad,
    /// An architectural model ([`crate::architecture`]): long walls and many small fixtures.
    Arch,
    /// A 355 x 355 heightfield with 4 cells of white noise ([`crate::noisy_terrain`]),
    /// 250,632 triangles.
    Noisy250k,
    /// The same at 708 x 708 vertices, 999,698 triangles.
    Noisy1m,
    /// The same at 1415 x 1415 vertices, 3,998,792 triangles.
    Noisy4m,
}

/// The two ray sets of `workloads.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RaySet {
    /// Primary rays of a perspective camera framing the mesh, through random pixels.
    Pick,
    /// Rays from a sphere around the mesh towards random points inside its bounding box.
    Random,
}

/// The number of rays per ray set in `workloads.md`.
pub const RAYS_PER_SET: usize = 100_000;

/// Failure to produce a workload (only the bunny can fail: it is read from disk).
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// The OBJ file could not be read or parsed.
    #[error("cannot load {path}: {message}")]
    Obj {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// An OBJ index does not fit in u32 or points past the vertex list.
    #[error("{path}: triangle {triangle} has index {index} but there are {nverts} vertices")]
    BadIndex {
        /// The file.
        path: PathBuf,
        /// Which triangle (in file order, after triangulation).
        triangle: usize,
        /// The bad index.
        index: usize,
        /// How many vertices there are.
        nverts: usize,
    },
}

impl Workload {
    /// Every workload, in table order.
    pub const ALL: [Workload; 9] = [
        Workload::Bunny,
        Workload::Sphere1m,
        Workload::Terrain1m,
        Workload::Soup100k,
        Workload::Cad,
        Workload::Arch,
        Workload::Noisy250k,
        Workload::Noisy1m,
        Workload::Noisy4m,
    ];

    /// The name used in tables, file names and command lines (`bunny`, `sphere_1m`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Workload::Bunny => "bunny",
            Workload::Sphere1m => "sphere_1m",
            Workload::Terrain1m => "terrain_1m",
            Workload::Soup100k => "soup_100k",
            Workload::Cad => "cad",
            Workload::Arch => "arch",
            Workload::Noisy250k => "noisy_250k",
            Workload::Noisy1m => "noisy_1m",
            Workload::Noisy4m => "noisy_4m",
        }
    }

    /// The workload called `name`, or `None` for an unknown name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    /// Generates (or, for the bunny, loads) the mesh. Deterministic.
    ///
    /// # Errors
    /// Only [`Workload::Bunny`] can fail, when `assets/bunny.obj` is missing or malformed.
    pub fn mesh(self) -> Result<MeshData, WorkloadError> {
        match self {
            Workload::Bunny => load_obj(&bunny_path()),
            Workload::Sphere1m => Ok(displaced_sphere(512, 1000, 0x5EED_0001)),
            Workload::Terrain1m => Ok(terrain(708, 0x5EED_0002)),
            Workload::Soup100k => Ok(soup(100_000, 0x5EED_0003)),
            Workload::Cad => Ok(crate::cad_part(0x5EED_0004)),
            Workload::Arch => Ok(crate::architecture(0x5EED_0005)),
            Workload::Noisy250k => Ok(crate::noisy_terrain(355, 4.0, 0x5EED_0006)),
            Workload::Noisy1m => Ok(crate::noisy_terrain(708, 4.0, 0x5EED_0006)),
            Workload::Noisy4m => Ok(crate::noisy_terrain(1415, 4.0, 0x5EED_0006)),
        }
    }

    fn seed(self) -> u64 {
        match self {
            Workload::Bunny => 11,
            Workload::Sphere1m => 12,
            Workload::Terrain1m => 13,
            Workload::Soup100k => 14,
            Workload::Cad => 15,
            Workload::Arch => 16,
            Workload::Noisy250k => 17,
            Workload::Noisy1m => 18,
            Workload::Noisy4m => 19,
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl RaySet {
    /// Both ray sets, in table order.
    pub const ALL: [RaySet; 2] = [RaySet::Pick, RaySet::Random];

    /// `pick` or `random`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RaySet::Pick => "pick",
            RaySet::Random => "random",
        }
    }

    /// The ray set called `name`, or `None`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }

    /// `n` rays of this set for `mesh`, seeded by the workload so that the same
    /// (workload, set, n) always gives the same rays. A prefix of a longer set equals the
    /// shorter set. An empty mesh gets rays around the origin.
    #[must_use]
    pub fn rays(self, workload: Workload, mesh: &MeshData, n: usize) -> Vec<BenchRay> {
        let seed = workload.seed() * 2 + u64::from(self == RaySet::Random);
        let bounds = mesh.bounds();
        match self {
            RaySet::Pick => pick_rays(mesh, &bounds, n, seed),
            RaySet::Random => random_rays(&bounds, n, seed),
        }
    }
}

impl fmt::Display for RaySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Path of the bunny asset in this repository.
#[must_use]
pub fn bunny_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/bunny.obj")
}

/// Loads an OBJ file with tobj (triangulated, single index), all models concatenated.
///
/// # Errors
/// When the file cannot be read or parsed, or an index is out of range.
pub fn load_obj(path: &Path) -> Result<MeshData, WorkloadError> {
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ..Default::default()
    };
    let (models, _) = tobj::load_obj(path, &opts).map_err(|e| WorkloadError::Obj {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let mut mesh = MeshData::default();
    for m in models {
        let base = mesh.positions.len();
        mesh.positions.extend(
            m.mesh
                .positions
                .chunks_exact(3)
                // tobj reads f64 (the workspace enables `use_f64`); the workloads are f32.
                .map(|p| Point3::new(p[0] as f32, p[1] as f32, p[2] as f32)),
        );
        let nverts = mesh.positions.len();
        for tri in m.mesh.indices.chunks_exact(3) {
            let triangle = mesh.triangles.len();
            let mut out = [0u32; 3];
            for (o, &i) in out.iter_mut().zip(tri) {
                let index = base + i as usize;
                *o = u32::try_from(index)
                    .ok()
                    .filter(|&g| (g as usize) < nverts)
                    .ok_or_else(|| WorkloadError::BadIndex {
                        path: path.to_owned(),
                        triangle,
                        index,
                        nverts,
                    })?;
            }
            mesh.triangles.push(out);
        }
    }
    Ok(mesh)
}

/// A UV sphere of radius 1 with `rings` latitude bands and `segments` longitude segments,
/// pole fans included (`2 * segments * (rings - 1)` triangles), each vertex moved radially by
/// `0.15 * fbm` (4 octaves of value noise, base frequency 2), so that triangle sizes and
/// orientations vary. Fewer than 2 rings or 3 segments give an empty mesh.
#[must_use]
pub fn displaced_sphere(rings: u32, segments: u32, seed: u64) -> MeshData {
    if rings < 2 || segments < 3 {
        return MeshData::default();
    }
    let radius = |d: [f64; 3]| 1.0 + 0.15 * fbm3(seed, [d[0] * 2.0, d[1] * 2.0, d[2] * 2.0], 4);
    let vertex = |d: [f64; 3]| {
        let r = radius(d);
        Point3::new((d[0] * r) as f32, (d[1] * r) as f32, (d[2] * r) as f32)
    };
    let mut positions = Vec::with_capacity(((rings - 1) * segments + 2) as usize);
    positions.push(vertex([0.0, 0.0, 1.0]));
    for i in 1..rings {
        let theta = std::f64::consts::PI * f64::from(i) / f64::from(rings);
        for j in 0..segments {
            let phi = std::f64::consts::TAU * f64::from(j) / f64::from(segments);
            positions.push(vertex([
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            ]));
        }
    }
    let south = positions.len() as u32;
    positions.push(vertex([0.0, 0.0, -1.0]));

    let ring = |i: u32, j: u32| 1 + (i - 1) * segments + (j % segments);
    let mut triangles = Vec::with_capacity((2 * segments * (rings - 1)) as usize);
    for j in 0..segments {
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
    }
    for i in 1..rings - 1 {
        for j in 0..segments {
            let (a, b, c, d) = (
                ring(i, j),
                ring(i + 1, j),
                ring(i + 1, j + 1),
                ring(i, j + 1),
            );
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    for j in 0..segments {
        triangles.push([south, ring(rings - 1, j + 1), ring(rings - 1, j)]);
    }
    MeshData {
        positions,
        triangles,
    }
}

/// An `n x n` vertex grid over `[-1, 1]^2` (z up) with heights `0.25 * fbm` (6 octaves, base
/// frequency 2): `2 (n-1)^2` triangles. `n < 2` gives an empty mesh.
#[must_use]
pub fn terrain(n: u32, seed: u64) -> MeshData {
    if n < 2 {
        return MeshData::default();
    }
    let step = 2.0 / f64::from(n - 1);
    let mut positions = Vec::with_capacity((n * n) as usize);
    for iy in 0..n {
        let y = -1.0 + step * f64::from(iy);
        for ix in 0..n {
            let x = -1.0 + step * f64::from(ix);
            let h = 0.25 * fbm3(seed, [x * 2.0, y * 2.0, 0.5], 6);
            positions.push(Point3::new(x as f32, y as f32, h as f32));
        }
    }
    let mut triangles = Vec::with_capacity((2 * (n - 1) * (n - 1)) as usize);
    for iy in 0..n - 1 {
        for ix in 0..n - 1 {
            let a = iy * n + ix;
            let (b, c, d) = (a + 1, a + n + 1, a + n);
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    MeshData {
        positions,
        triangles,
    }
}

/// `count` independent triangles: each has a centre uniform in the unit cube and corners
/// uniform within +-0.01 of it on every axis.
#[must_use]
pub fn soup(count: u32, seed: u64) -> MeshData {
    let mut rng = SplitMix64::new(seed);
    let mut positions = Vec::with_capacity(count as usize * 3);
    let mut triangles = Vec::with_capacity(count as usize);
    for t in 0..count {
        let c = [rng.next_f64(), rng.next_f64(), rng.next_f64()];
        for _ in 0..3 {
            positions.push(Point3::new(
                (c[0] + rng.range_f64(-0.01, 0.01)) as f32,
                (c[1] + rng.range_f64(-0.01, 0.01)) as f32,
                (c[2] + rng.range_f64(-0.01, 0.01)) as f32,
            ));
        }
        triangles.push([3 * t, 3 * t + 1, 3 * t + 2]);
    }
    MeshData {
        positions,
        triangles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn sphere_is_closed_and_displaced_within_bounds() {
        let m = displaced_sphere(8, 12, 5);
        assert_eq!(m.triangles.len(), 2 * 12 * 7);
        assert_eq!(m.positions.len(), 7 * 12 + 2);
        let mut edges: HashMap<(u32, u32), i32> = HashMap::new();
        for &[a, b, c] in &m.triangles {
            for (u, v) in [(a, b), (b, c), (c, a)] {
                // Directed edge +1, its reverse -1: a closed, consistently wound mesh sums to 0.
                *edges.entry((u.min(v), u.max(v))).or_default() += if u < v { 1 } else { -1 };
            }
        }
        assert!(edges.values().all(|&s| s == 0));
        let radii: Vec<f32> = m.positions.iter().map(|p| p.coords.norm()).collect();
        assert!(radii.iter().all(|&r| (0.85..=1.15).contains(&r)));
        let spread = radii.iter().cloned().fold(0.0f32, f32::max)
            - radii.iter().cloned().fold(2.0f32, f32::min);
        assert!(spread > 0.02, "noise should displace the sphere: {spread}");
    }

    #[test]
    fn terrain_and_soup_shapes() {
        let t = terrain(5, 1);
        assert_eq!((t.positions.len(), t.triangles.len()), (25, 32));
        assert!(t
            .positions
            .iter()
            .all(|p| p.x.abs() <= 1.0 && p.y.abs() <= 1.0 && p.z.abs() <= 0.25));
        assert_eq!(t.positions[4].x, 1.0);
        let s = soup(500, 9);
        assert_eq!(s.triangles.len(), 500);
        for i in 0..500 {
            let [a, b, c] = s.triangle(i).unwrap();
            for (p, q) in [(a, b), (b, c), (a, c)] {
                assert!((p - q).amax() <= 0.02 + 1e-6);
            }
            assert!(a.iter().all(|&x| (-0.01..=1.01).contains(&x)));
        }
        assert_eq!(soup(500, 9), s);
        assert_ne!(soup(500, 10), s);
    }

    #[test]
    fn bunny_loads() {
        let m = Workload::Bunny.mesh().unwrap();
        assert_eq!(m.triangles.len(), 3674);
        assert!(m
            .triangles
            .iter()
            .flatten()
            .all(|&i| (i as usize) < m.positions.len()));
    }

    #[test]
    fn ray_sets_follow_the_spec() {
        let m = terrain(20, 4);
        let b = m.bounds();
        let c = b.center();
        let hd = b.half_extents().norm();
        let random = RaySet::Random.rays(Workload::Terrain1m, &m, 300);
        for r in &random {
            let d = (r.ray.origin - c).norm();
            assert!((d - 1.5 * hd).abs() < 1e-4 * hd, "{d} vs {}", 1.5 * hd);
            let target = r.ray.at(1.0);
            assert!(
                b.grow(&target) == b || (target - c).amax() <= hd * 1e-4 + b.half_extents().amax()
            );
            assert!(r.t_max.is_infinite());
        }
        let pick = RaySet::Pick.rays(Workload::Terrain1m, &m, 300);
        let eye = pick[0].ray.origin;
        assert!(!b.contains_point(&eye));
        assert!(pick.iter().all(|r| r.ray.origin == eye));
        // The centre ray is (close to) the look-at direction; the fov bounds the others.
        let fwd = (c - eye).normalize();
        let max_angle = pick
            .iter()
            .map(|r| r.ray.dir.normalize().dot(&fwd).acos().to_degrees())
            .fold(0.0f32, f32::max);
        // Half the diagonal field of view of a 50 degree, 16:9 camera: atan(0.951) = 43.6 deg.
        assert!(max_angle > 38.0 && max_angle < 43.6, "{max_angle}");
        // Prefix property and determinism.
        assert_eq!(RaySet::Pick.rays(Workload::Terrain1m, &m, 10), pick[..10]);
        assert_ne!(RaySet::Pick.rays(Workload::Bunny, &m, 10), pick[..10]);
    }
}
