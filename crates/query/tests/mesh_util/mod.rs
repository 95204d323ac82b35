//! Shared test support for the mesh tests: deterministic meshes and rays, a float64
//! brute-force oracle, and the run-size knobs.
#![allow(dead_code, unused_imports)]

use std::collections::HashMap;

use raypick_primitives::{Aabb, Point3, Ray, Vector3};

pub use raypick_test_support::{long, scale, Rng};

/// The build preset the tests' meshes use: `RAYPICK_TEST_PRESET` (`fast`, `balanced`,
/// `high_quality` or `morton`; default `balanced`), set by [`rerun_on_every_preset`].
pub fn preset() -> raypick_bvh::BuildConfig {
    match std::env::var("RAYPICK_TEST_PRESET").as_deref() {
        Ok("fast") => raypick_bvh::BuildConfig::fast(),
        Ok("high_quality") => raypick_bvh::BuildConfig::high_quality(),
        Ok("morton") => raypick_bvh::BuildConfig::morton(),
        Ok("balanced") | Err(_) => raypick_bvh::BuildConfig::balanced(),
        Ok(other) => panic!("RAYPICK_TEST_PRESET={other}: not a preset"),
    }
}

/// An indexed triangle mesh as plain arrays.
#[derive(Clone, Debug)]
pub struct TestMesh {
    pub name: String,
    pub positions: Vec<Point3<f32>>,
    pub triangles: Vec<[u32; 3]>,
}

impl TestMesh {
    pub fn tri(&self, i: usize) -> [Point3<f32>; 3] {
        self.triangles[i].map(|k| self.positions[k as usize])
    }
    pub fn bounds(&self) -> Aabb {
        self.positions.iter().fold(Aabb::EMPTY, |b, p| b.grow(p))
    }
    /// The mesh, built with the preset that [`preset`] names.
    pub fn mesh(&self) -> raypick_query::Mesh {
        let (positions, triangles) = (self.positions.clone(), self.triangles.clone());
        raypick_query::Mesh::with_config(positions, triangles, &preset()).unwrap()
    }
}

/// Random independent small triangles in the unit cube.
pub fn soup(n: usize, size: f32, seed: u64) -> TestMesh {
    let mut rng = Rng::new(seed);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..n {
        let c = Point3::new(rng.f32(), rng.f32(), rng.f32());
        for _ in 0..3 {
            positions.push(c + rng.unit() * size * rng.f32());
        }
        let k = 3 * i as u32;
        triangles.push([k, k + 1, k + 2]);
    }
    TestMesh {
        name: format!("soup_{n}"),
        positions,
        triangles,
    }
}

/// A heightfield grid of `n x n` quads over [-1, 1]^2.
pub fn grid(n: usize, amplitude: f32) -> TestMesh {
    let mut positions = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let x = -1.0 + 2.0 * i as f32 / n as f32;
            let y = -1.0 + 2.0 * j as f32 / n as f32;
            let z =
                amplitude * ((3.0 * x).sin() * (2.0 * y).cos() + 0.3 * (7.0 * x + 5.0 * y).sin());
            positions.push(Point3::new(x, y, z));
        }
    }
    let mut triangles = Vec::new();
    let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    for j in 0..n {
        for i in 0..n {
            triangles.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            triangles.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    TestMesh {
        name: format!("grid_{n}"),
        positions,
        triangles,
    }
}

/// A heightfield like [`grid`] plus white noise of `cells` grid cells on every height: most
/// triangles become tall slivers, as in raw scans.
pub fn noisy_grid(n: usize, cells: f32, seed: u64) -> TestMesh {
    let mut m = grid(n, 0.2);
    let mut rng = Rng::new(seed);
    let amp = cells * 2.0 / n as f32;
    for p in &mut m.positions {
        p.z += rng.range(-amp, amp);
    }
    m.name = format!("noisy_grid_{n}");
    m
}

/// A closed cylinder along x tessellated as CAD exporters do: one quad per segment along the
/// whole length and fan caps, so every triangle is a long sliver. Convex.
pub fn cad_cylinder(segments: usize, radius: f32, length: f32) -> TestMesh {
    let mut positions = Vec::new();
    for end in [0.0, length] {
        for j in 0..segments {
            let a = std::f32::consts::TAU * j as f32 / segments as f32;
            positions.push(Point3::new(end, radius * a.cos(), radius * a.sin()));
        }
    }
    let (c0, c1) = (positions.len() as u32, positions.len() as u32 + 1);
    positions.push(Point3::new(0.0, 0.0, 0.0));
    positions.push(Point3::new(length, 0.0, 0.0));
    let s = segments as u32;
    let mut triangles = Vec::new();
    for j in 0..s {
        let k = (j + 1) % s;
        triangles.push([j, k, s + k]);
        triangles.push([j, s + k, s + j]);
        triangles.push([c0, k, j]);
        triangles.push([c1, s + j, s + k]);
    }
    TestMesh {
        name: format!("cad_cylinder_{segments}"),
        positions,
        triangles,
    }
}

/// Long thin boxes of very different sizes, as walls, beams and fixtures in an architectural
/// model: `n` disjoint closed cuboids on a lattice, each long along one axis.
pub fn walls(n: usize, seed: u64) -> TestMesh {
    let mut rng = Rng::new(seed);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..n {
        let centre = [(i % 4) as f32, ((i / 4) % 4) as f32, (i / 16) as f32];
        let long = rng.below(3);
        let size: [f32; 3] = std::array::from_fn(|a| {
            if a == long {
                rng.range(0.5, 0.95)
            } else {
                rng.range(0.02, 0.3)
            }
        });
        let base = positions.len() as u32;
        for k in 0..8 {
            positions.push(Point3::new(
                centre[0] + if k & 1 == 0 { -size[0] } else { size[0] } / 2.0,
                centre[1] + if k & 2 == 0 { -size[1] } else { size[1] } / 2.0,
                centre[2] + if k & 4 == 0 { -size[2] } else { size[2] } / 2.0,
            ));
        }
        for [a, b, c, d] in [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ] {
            triangles.push([base + a, base + b, base + c]);
            triangles.push([base + a, base + c, base + d]);
        }
    }
    TestMesh {
        name: format!("walls_{n}"),
        positions,
        triangles,
    }
}

/// A UV sphere (closed, poles shared) with radial displacement `amp`.
pub fn uv_sphere(rings: usize, segments: usize, amp: f32) -> TestMesh {
    let disp = |th: f32, ph: f32| {
        1.0 + amp * ((3.0 * th).sin() * (5.0 * ph).cos() + 0.4 * (11.0 * th + 7.0 * ph).sin())
    };
    let mut positions = vec![Point3::new(0.0, 0.0, disp(0.0, 0.0))];
    for r in 1..rings {
        let th = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let ph = 2.0 * std::f32::consts::PI * s as f32 / segments as f32;
            let d = disp(th, ph);
            positions.push(Point3::new(
                d * th.sin() * ph.cos(),
                d * th.sin() * ph.sin(),
                d * th.cos(),
            ));
        }
    }
    let south = positions.len() as u32;
    positions.push(Point3::new(0.0, 0.0, -disp(std::f32::consts::PI, 0.0)));
    let ring = |r: usize, s: usize| (1 + (r - 1) * segments + s % segments) as u32;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, ring(1, s), ring(1, s + 1)]);
        triangles.push([south, ring(rings - 1, s + 1), ring(rings - 1, s)]);
    }
    for r in 1..rings - 1 {
        for s in 0..segments {
            triangles.push([ring(r, s), ring(r + 1, s), ring(r + 1, s + 1)]);
            triangles.push([ring(r, s), ring(r + 1, s + 1), ring(r, s + 1)]);
        }
    }
    TestMesh {
        name: format!("uv_sphere_{rings}x{segments}"),
        positions,
        triangles,
    }
}

/// An icosphere of radius 1 subdivided `level` times (closed, outward-facing).
pub fn icosphere(level: usize) -> TestMesh {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut pos: Vec<[f64; 3]> = vec![
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let norm = |p: [f64; 3]| {
        let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        [p[0] / l, p[1] / l, p[2] / l]
    };
    for p in pos.iter_mut() {
        *p = norm(*p);
    }
    let mut tris: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..level {
        let mut mid: HashMap<(u32, u32), u32> = HashMap::new();
        let mut next = Vec::new();
        for &[a, b, c] in &tris {
            let mut m = |i: u32, j: u32| {
                *mid.entry((i.min(j), i.max(j))).or_insert_with(|| {
                    let (p, q) = (pos[i as usize], pos[j as usize]);
                    pos.push(norm([p[0] + q[0], p[1] + q[1], p[2] + q[2]]));
                    (pos.len() - 1) as u32
                })
            };
            let (ab, bc, ca) = (m(a, b), m(b, c), m(c, a));
            next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tris = next;
    }
    TestMesh {
        name: format!("icosphere_{level}"),
        positions: pos
            .iter()
            .map(|p| Point3::new(p[0] as f32, p[1] as f32, p[2] as f32))
            .collect(),
        triangles: tris,
    }
}

/// The closed cube [-1, 1]^3, each face a grid of `n x n` quads (vertices shared along the
/// cube's edges), outward-facing. Coordinates are dyadic when `n` is a power of two.
pub fn subdivided_box(n: usize) -> TestMesh {
    let mut index: HashMap<[i64; 3], u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    let n = n as i64;
    let coord = |i: i64| -1.0 + 2.0 * i as f32 / n as f32;
    for axis in 0..3 {
        for side in [0, n] {
            let (ua, va) = ((axis + 1) % 3, (axis + 2) % 3);
            let mut vid = |i: i64, j: i64| {
                let mut g = [0i64; 3];
                g[axis] = side;
                g[ua] = i;
                g[va] = j;
                *index.entry(g).or_insert_with(|| {
                    positions.push(Point3::new(coord(g[0]), coord(g[1]), coord(g[2])));
                    (positions.len() - 1) as u32
                })
            };
            for j in 0..n {
                for i in 0..n {
                    let (a, b, c, d) = (vid(i, j), vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1));
                    // (ua x va) = +axis: counter-clockwise seen from +axis.
                    if side == n {
                        triangles.push([a, b, c]);
                        triangles.push([a, c, d]);
                    } else {
                        triangles.push([a, c, b]);
                        triangles.push([a, d, c]);
                    }
                }
            }
        }
    }
    TestMesh {
        name: format!("box_{n}"),
        positions,
        triangles,
    }
}

/// A bipyramid over a regular `n`-gon: two apex vertices of valence `n`. Closed, convex.
pub fn bipyramid(n: usize) -> TestMesh {
    let mut positions: Vec<Point3<f32>> = (0..n)
        .map(|i| {
            let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            Point3::new(a.cos() as f32, a.sin() as f32, 0.0)
        })
        .collect();
    positions.push(Point3::new(0.0, 0.0, 1.0));
    positions.push(Point3::new(0.0, 0.0, -1.0));
    let (top, bottom) = (n as u32, n as u32 + 1);
    let mut triangles = Vec::new();
    for i in 0..n as u32 {
        let j = (i + 1) % n as u32;
        triangles.push([i, j, top]);
        triangles.push([j, i, bottom]);
    }
    TestMesh {
        name: format!("bipyramid_{n}"),
        positions,
        triangles,
    }
}

/// A torus (closed, not convex: saddle vertices on the inner side).
pub fn torus(rings: usize, segments: usize, big: f32, small: f32) -> TestMesh {
    let mut positions = Vec::new();
    for i in 0..rings {
        let a = 2.0 * std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..segments {
            let b = 2.0 * std::f32::consts::PI * j as f32 / segments as f32;
            let r = big + small * b.cos();
            positions.push(Point3::new(r * a.cos(), r * a.sin(), small * b.sin()));
        }
    }
    let v = |i: usize, j: usize| ((i % rings) * segments + j % segments) as u32;
    let mut triangles = Vec::new();
    for i in 0..rings {
        for j in 0..segments {
            triangles.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            triangles.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    TestMesh {
        name: format!("torus_{rings}x{segments}"),
        positions,
        triangles,
    }
}

/// `assets/bunny.obj`, read with a minimal `v` / `f` parser (faces fanned into triangles).
pub fn bunny() -> TestMesh {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bunny.obj");
    let text = std::fs::read_to_string(path).expect("assets/bunny.obj");
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let c: Vec<f32> = it.take(3).map(|s| s.parse().unwrap()).collect();
                positions.push(Point3::new(c[0], c[1], c[2]));
            }
            Some("f") => {
                let idx: Vec<u32> = it
                    .map(|s| s.split('/').next().unwrap().parse::<u32>().unwrap() - 1)
                    .collect();
                for k in 1..idx.len() - 1 {
                    triangles.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    TestMesh {
        name: "bunny".into(),
        positions,
        triangles,
    }
}

/// Face normals (float64), and the faces around each vertex and each edge, of a closed
/// mesh (every edge shared by exactly two faces, or [`Topology::new`] panics).
pub struct Topology {
    pub normals: Vec<Vector3<f64>>,
    pub vertex_faces: Vec<Vec<usize>>,
    pub edge_faces: HashMap<(u32, u32), Vec<usize>>,
}

impl Topology {
    pub fn new(m: &TestMesh) -> Self {
        let v3 = |p: Point3<f32>| Vector3::new(f64::from(p.x), f64::from(p.y), f64::from(p.z));
        let mut vertex_faces = vec![Vec::new(); m.positions.len()];
        let mut edge_faces: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
        let mut normals = Vec::new();
        for (f, t) in m.triangles.iter().enumerate() {
            let [a, b, c] = m.tri(f).map(v3);
            normals.push((b - a).cross(&(c - a)).normalize());
            for k in 0..3 {
                vertex_faces[t[k] as usize].push(f);
                let (i, j) = (t[k], t[(k + 1) % 3]);
                edge_faces.entry((i.min(j), i.max(j))).or_default().push(f);
            }
        }
        for (e, f) in &edge_faces {
            assert_eq!(f.len(), 2, "{}: edge {e:?} not manifold", m.name);
        }
        Self {
            normals,
            vertex_faces,
            edge_faces,
        }
    }

    /// True when direction `d` strictly enters every face of `faces`.
    pub fn enters(&self, d: Vector3<f32>, faces: &[usize]) -> bool {
        let d = Vector3::new(f64::from(d.x), f64::from(d.y), f64::from(d.z)).normalize();
        faces.iter().all(|&f| self.normals[f].dot(&d) < -0.02)
    }
}

/// Replaces every `step`-th ray of `rays` by one that can hit nothing, in turn: a zero
/// direction from `o`, a NaN origin, an infinite direction component.
pub fn spoil_rays(rays: &mut [Ray], step: usize, o: Point3<f32>) {
    for i in (0..rays.len()).step_by(step) {
        rays[i] = match i % 3 {
            0 => Ray::new(o, Vector3::zeros()),
            1 => Ray::new(Point3::new(f32::NAN, 0.0, 0.0), -Vector3::z()),
            _ => Ray::new(o, Vector3::new(0.0, f32::INFINITY, -1.0)),
        };
    }
}

/// Incoherent rays: origins on a sphere of 1.5x the box's half-diagonal, aimed at uniform
/// points inside the box.
pub fn random_rays(b: &Aabb, n: usize, seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    let c = b.center();
    let r = b.half_extents().norm() * 1.5;
    (0..n)
        .map(|_| {
            let o = c + rng.unit() * r;
            let target = rng.point_in(b);
            Ray::new(o, target - o)
        })
        .collect()
}

/// Primary rays of a perspective camera (50 degrees vertical, 16:9) looking at the box's
/// centre from outside its bounding sphere, at random pixels; unit directions.
pub fn camera_rays(b: &Aabb, n: usize, seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    let c = b.center();
    let radius = b.half_extents().norm();
    let fov = 50f32.to_radians();
    // Closer than the bounding sphere's fit, so that most pixels see the mesh.
    let dist = 0.8 * radius / (fov / 2.0).tan();
    let view = Vector3::new(0.3, -0.5, 0.8).normalize();
    let eye = c - view * dist;
    let right = view.cross(&Vector3::z()).normalize();
    let up = right.cross(&view);
    let h = (fov / 2.0).tan();
    let w = h * 16.0 / 9.0;
    (0..n)
        .map(|_| {
            let (sx, sy) = (rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
            Ray::new(eye, (view + right * (sx * w) + up * (sy * h)).normalize())
        })
        .collect()
}

/// Rays starting inside the box in random directions (origin may be inside a closed mesh).
pub fn inner_rays(b: &Aabb, n: usize, seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| Ray::new(rng.point_in(b), rng.unit() * rng.range(0.1, 3.0)))
        .collect()
}

pub use raypick_test_support::{
    add, cross, d64, dot, norm, ray_tri_f64, scale3, sub, v64, OracleHit, V64,
};

/// Relative size of the "tiny band" around edges within which oracle and mesh may disagree.
pub const BAND: f64 = 1e-4;

/// The oracle's view of one ray: the closest strict-inside hit, and whether any triangle
/// makes the answer ambiguous (a hit or near-hit within the band of an edge, or grazing).
#[derive(Clone, Copy, Debug, Default)]
pub struct OracleClosest {
    pub hit: Option<(f64, usize)>,
    pub ambiguous_before: f64,
}

/// Brute force over all triangles in f64: the closest hit with t in [t_min, t_max] (ties:
/// lowest index), and the smallest t of any ambiguous (near-edge or grazing) triangle.
pub fn oracle_closest(m: &TestMesh, ray: &Ray, t_min: f32, t_max: f32) -> OracleClosest {
    let mut best: Option<(f64, usize)> = None;
    let mut amb = f64::INFINITY;
    for i in 0..m.triangles.len() {
        let Some(h) = ray_tri_f64(ray, &m.tri(i)) else {
            continue;
        };
        let in_t = h.t >= f64::from(t_min) && h.t <= f64::from(t_max);
        let near_t = h.t >= f64::from(t_min) * (1.0 + 1e-5) - 1e-6
            && h.t <= f64::from(t_max) * (1.0 + 1e-5) + 1e-6;
        if near_t && (h.margin.abs() < BAND || h.cos < 1e-4) && h.margin > -BAND {
            amb = amb.min(h.t);
        }
        if in_t && h.margin >= 0.0 && best.is_none_or(|(bt, _)| h.t < bt) {
            best = Some((h.t, i));
        }
    }
    OracleClosest {
        hit: best,
        ambiguous_before: amb,
    }
}

/// Brute force in f64: every strict-inside hit in [t_min, t_max], sorted, and whether any
/// hit lies in the ambiguous band.
pub fn oracle_all(m: &TestMesh, ray: &Ray, t_min: f32, t_max: f32) -> (Vec<(f64, usize)>, bool) {
    let mut hits = Vec::new();
    let mut ambiguous = false;
    for i in 0..m.triangles.len() {
        let Some(h) = ray_tri_f64(ray, &m.tri(i)) else {
            continue;
        };
        if h.t >= f64::from(t_min) * (1.0 + 1e-5) - 1e-6
            && h.t <= f64::from(t_max) * (1.0 + 1e-5) + 1e-6
            && h.margin > -BAND
            && (h.margin.abs() < BAND || h.cos < 1e-4)
        {
            ambiguous = true;
        }
        if h.t >= f64::from(t_min) && h.t <= f64::from(t_max) && h.margin >= 0.0 {
            hits.push((h.t, i));
        }
    }
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    (hits, ambiguous)
}

pub use raypick_test_support::{
    point_tri_dist2_64, point_tri_dist2_f64, rel, rerun_on_every_preset, rerun_on_every_simd_path,
    winding_term_64,
};

/// The mesh in both node layouts (built with the preset `RAYPICK_TEST_PRESET` names); the
/// compact one is forced, as test meshes are below the size that picks it.
pub fn layouts(tm: &TestMesh) -> [raypick_query::Mesh; 2] {
    use raypick_query::mesh::NodeLayout;
    let mut plain = tm.mesh();
    plain.set_node_layout(NodeLayout::Plain).unwrap();
    let mut compact = plain.clone();
    compact.set_node_layout(NodeLayout::Compact).unwrap();
    assert_eq!(plain.node_layout(), NodeLayout::Plain);
    assert_eq!(compact.node_layout(), NodeLayout::Compact);
    [plain, compact]
}
