//! Random scenes and a float64 brute-force oracle over every world triangle.
#![allow(dead_code)]

use nalgebra::{Isometry3, Matrix4, Point3 as P3, Translation3, UnitQuaternion, Vector3 as V3};
use parry3d::query::Ray as PRay;
#[allow(unused_imports)]
use parry3d::shape::Shape;
use parry3d::shape::SharedShape;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::{Point3, Ray, Real, Vector3};
use raypick_query::scene::{InstanceId, Scene};
use raypick_query::Mesh;

pub type P = P3<f64>;
pub type V = V3<f64>;

/// How many random cases to run: small by default, more with RAYPICK_LONG=1.
pub fn scale(default: usize) -> usize {
    if let Some(n) = std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return n;
    }
    if std::env::var("RAYPICK_LONG").is_ok() {
        default * 50
    } else {
        default
    }
}

pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// The source data of a mesh, kept for the oracle.
#[derive(Clone)]
pub struct MeshData {
    pub positions: Vec<Point3<Real>>,
    pub triangles: Vec<[u32; 3]>,
}

impl MeshData {
    pub fn build(&self) -> Mesh {
        Mesh::new(self.positions.clone(), self.triangles.clone()).unwrap()
    }
}

/// A random triangle soup in the unit cube.
pub fn soup(r: &mut Pcg64, n: usize) -> MeshData {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..n {
        let c = V3::new(
            r.gen_range(-1.0..1.0),
            r.gen_range(-1.0..1.0),
            r.gen_range(-1.0..1.0),
        );
        for _ in 0..3 {
            let d = V3::new(
                r.gen_range(-0.4..0.4),
                r.gen_range(-0.4..0.4),
                r.gen_range(-0.4..0.4),
            );
            positions.push(Point3::from(c + d));
        }
        let b = 3 * i as u32;
        triangles.push([b, b + 1, b + 2]);
    }
    MeshData {
        positions,
        triangles,
    }
}

/// A closed box of `2 * 6 * k * k` triangles, counter-clockwise seen from outside.
pub fn closed_box(k: usize) -> MeshData {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    // Each face: origin, two in-face axes (u x v points outward).
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([-1.0, -1.0, 1.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
        ([1.0, -1.0, -1.0], [-2.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
        ([1.0, -1.0, 1.0], [0.0, 0.0, -2.0], [0.0, 2.0, 0.0]),
        ([-1.0, -1.0, -1.0], [0.0, 0.0, 2.0], [0.0, 2.0, 0.0]),
        ([-1.0, 1.0, 1.0], [2.0, 0.0, 0.0], [0.0, 0.0, -2.0]),
        ([-1.0, -1.0, -1.0], [2.0, 0.0, 0.0], [0.0, 0.0, 2.0]),
    ];
    for (o, u, v) in faces {
        let base = positions.len() as u32;
        for j in 0..=k {
            for i in 0..=k {
                let (a, b) = (i as f32 / k as f32, j as f32 / k as f32);
                positions.push(Point3::new(
                    o[0] + a * u[0] + b * v[0],
                    o[1] + a * u[1] + b * v[1],
                    o[2] + a * u[2] + b * v[2],
                ));
            }
        }
        let w = (k + 1) as u32;
        for j in 0..k as u32 {
            for i in 0..k as u32 {
                let p = base + j * w + i;
                triangles.push([p, p + 1, p + w + 1]);
                triangles.push([p, p + w + 1, p + w]);
            }
        }
    }
    MeshData {
        positions,
        triangles,
    }
}

/// A bumpy open grid in the xy plane.
pub fn grid(r: &mut Pcg64, k: usize) -> MeshData {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for j in 0..=k {
        for i in 0..=k {
            positions.push(Point3::new(
                i as f32 / k as f32 * 2.0 - 1.0,
                j as f32 / k as f32 * 2.0 - 1.0,
                r.gen_range(-0.2..0.2),
            ));
        }
    }
    let w = (k + 1) as u32;
    for j in 0..k as u32 {
        for i in 0..k as u32 {
            let p = j * w + i;
            triangles.push([p, p + 1, p + w + 1]);
            triangles.push([p, p + w + 1, p + w]);
        }
    }
    MeshData {
        positions,
        triangles,
    }
}

/// A random affine transform: rotation, non-uniform scale (maybe mirrored), translation.
pub fn random_affine(r: &mut Pcg64, mirror_p: f64, spread: f32) -> Matrix4<Real> {
    let rot = UnitQuaternion::from_euler_angles(
        r.gen_range(-3.1..3.1),
        r.gen_range(-1.5..1.5),
        r.gen_range(-3.1..3.1),
    );
    let mut s = V3::new(
        r.gen_range(0.3..3.0),
        r.gen_range(0.3..3.0),
        r.gen_range(0.3..3.0),
    );
    if r.gen_bool(mirror_p) {
        let axis = r.gen_range(0..3);
        s[axis] = -s[axis];
    }
    let t = V3::new(
        r.gen_range(-spread..spread),
        r.gen_range(-spread..spread),
        r.gen_range(-spread..spread),
    );
    Matrix4::new_translation(&t) * rot.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s)
}

pub fn random_iso(r: &mut Pcg64, spread: f32) -> Isometry3<Real> {
    let rot = UnitQuaternion::from_euler_angles(
        r.gen_range(-3.1..3.1),
        r.gen_range(-1.5..1.5),
        r.gen_range(-3.1..3.1),
    );
    let t = Translation3::new(
        r.gen_range(-spread..spread),
        r.gen_range(-spread..spread),
        r.gen_range(-spread..spread),
    );
    Isometry3::from_parts(t, rot)
}

pub fn random_shape(r: &mut Pcg64) -> SharedShape {
    match r.gen_range(0..6) {
        0 => SharedShape::ball(r.gen_range(0.3..1.5)),
        1 => SharedShape::cuboid(
            r.gen_range(0.2..1.2),
            r.gen_range(0.2..1.2),
            r.gen_range(0.2..1.2),
        ),
        2 => SharedShape::capsule_y(r.gen_range(0.2..1.0), r.gen_range(0.2..0.8)),
        3 => SharedShape::cylinder(r.gen_range(0.2..1.0), r.gen_range(0.2..0.8)),
        4 => SharedShape::cone(r.gen_range(0.2..1.0), r.gen_range(0.2..0.8)),
        _ => {
            let pts: Vec<_> = (0..12)
                .map(|_| {
                    Point3::new(
                        r.gen_range(-1.0..1.0),
                        r.gen_range(-1.0..1.0),
                        r.gen_range(-1.0..1.0),
                    )
                })
                .collect();
            SharedShape::convex_hull(&pts).unwrap()
        }
    }
}

/// One object as the oracle sees it.
pub enum OracleGeom {
    /// World triangles in f64 (corners transformed in f64), with the mesh's vertex indices.
    Mesh {
        tris: Vec<[P; 3]>,
        indices: Vec<[u32; 3]>,
        mirrored: bool,
    },
    Shape {
        shape: SharedShape,
        pose: Isometry3<Real>,
    },
}

pub struct OracleObject {
    pub id: InstanceId,
    pub mask: u32,
    pub user: u64,
    pub geom: OracleGeom,
}

/// A scene and its oracle twin.
pub struct World {
    pub scene: Scene,
    pub objects: Vec<OracleObject>,
    pub meshes: Vec<MeshData>,
}

pub fn world_tris(data: &MeshData, m: &Matrix4<Real>) -> Vec<[P; 3]> {
    let m = m.cast::<f64>();
    data.triangles
        .iter()
        .map(|t| t.map(|i| m.transform_point(&data.positions[i as usize].cast::<f64>())))
        .collect()
}

/// A random scene: shared meshes, instances with non-uniform scales and mirrors, shapes.
pub fn random_world(seed: u64, instances: usize, shapes: usize) -> World {
    let mut r = rng(seed);
    let meshes = vec![soup(&mut r, 30), closed_box(3), grid(&mut r, 6)];
    let mut scene = Scene::new();
    // Both ways of adding a mesh: vertex data given, or recovered from the built mesh.
    let ids: Vec<_> = meshes
        .iter()
        .enumerate()
        .map(|(k, m)| {
            if k % 2 == 0 {
                scene
                    .add_mesh_with_source(m.positions.clone(), m.triangles.clone())
                    .unwrap()
            } else {
                scene.add_mesh(Mesh::new(m.positions.clone(), m.triangles.clone()).unwrap())
            }
        })
        .collect();
    let mut objects = Vec::new();
    for i in 0..instances {
        let k = r.gen_range(0..meshes.len());
        let m = random_affine(&mut r, 0.3, 8.0);
        let id = scene.add_instance(ids[k], &m).unwrap();
        let mask = 1u32 << r.gen_range(0..4);
        scene.set_mask(id, mask).unwrap();
        scene.set_user_data(id, i as u64).unwrap();
        objects.push(OracleObject {
            id,
            mask,
            user: i as u64,
            geom: OracleGeom::Mesh {
                tris: world_tris(&meshes[k], &m),
                indices: meshes[k].triangles.clone(),
                mirrored: m.fixed_view::<3, 3>(0, 0).determinant() < 0.0,
            },
        });
    }
    for i in 0..shapes {
        let shape = random_shape(&mut r);
        let pose = random_iso(&mut r, 8.0);
        let id = scene.add_shape(shape.clone(), &pose).unwrap();
        let mask = 1u32 << r.gen_range(0..4);
        scene.set_mask(id, mask).unwrap();
        scene.set_user_data(id, (instances + i) as u64).unwrap();
        objects.push(OracleObject {
            id,
            mask,
            user: (instances + i) as u64,
            geom: OracleGeom::Shape { shape, pose },
        });
    }
    World {
        scene,
        objects,
        meshes,
    }
}

/// A random ray aimed into the scene, with a non-unit direction.
pub fn random_ray(r: &mut Pcg64) -> Ray {
    let o = Point3::new(
        r.gen_range(-15.0..15.0),
        r.gen_range(-15.0..15.0),
        r.gen_range(-15.0..15.0),
    );
    let target = Point3::new(
        r.gen_range(-8.0..8.0),
        r.gen_range(-8.0..8.0),
        r.gen_range(-8.0..8.0),
    );
    let len = r.gen_range(0.2..5.0);
    Ray::new(o, (target - o).normalize() * len)
}

/// One oracle crossing.
#[derive(Clone, Copy, Debug)]
pub struct OHit {
    pub id: InstanceId,
    pub triangle: Option<u32>,
    pub t: f64,
    /// Distance (in barycentric units) of the hit from the triangle's boundary, times the
    /// |cosine| of the incidence; for shapes the |cosine| (0 for rim grazes).
    pub edge: f64,
    /// Unit normal as the scene reports it (outward for shapes, object winding for meshes).
    pub normal: V,
    pub front: bool,
}

/// Möller-Trumbore in f64: (t, u, v).
pub fn ray_tri64(o: &P, d: &V, tri: &[P; 3]) -> Option<(f64, f64, f64)> {
    let e1 = tri[1] - tri[0];
    let e2 = tri[2] - tri[0];
    let p = d.cross(&e2);
    let det = e1.dot(&p);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - tri[0];
    let u = s.dot(&p) * inv;
    let q = s.cross(&e1);
    let v = d.dot(&q) * inv;
    if u < 0.0 || v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some((e2.dot(&q) * inv, u, v))
}

impl World {
    /// Every crossing in [t_min, t_max] of the objects with `mask`, f64, unsorted.
    pub fn oracle_hits(&self, ray: &Ray, t_min: f64, t_max: f64, mask: u32) -> Vec<OHit> {
        let o = ray.origin.cast::<f64>();
        let d = ray.dir.cast::<f64>();
        let mut out = Vec::new();
        for obj in &self.objects {
            if obj.mask & mask == 0 {
                continue;
            }
            match &obj.geom {
                OracleGeom::Mesh { tris, mirrored, .. } => {
                    for (i, tri) in tris.iter().enumerate() {
                        if let Some((t, u, v)) = ray_tri64(&o, &d, tri) {
                            if t >= t_min && t <= t_max {
                                let mut n = (tri[1] - tri[0]).cross(&(tri[2] - tri[0])).normalize();
                                if *mirrored {
                                    n = -n;
                                }
                                out.push(OHit {
                                    id: obj.id,
                                    triangle: Some(i as u32),
                                    t,
                                    // Grazing rays move the crossing by 1 / |cos|: the
                                    // band scales with it.
                                    edge: u.min(v).min(1.0 - u - v) * n.dot(&d.normalize()).abs(),
                                    normal: n,
                                    front: d.dot(&n) < 0.0,
                                });
                            }
                        }
                    }
                }
                OracleGeom::Shape { shape, pose } => {
                    // parry in world space (with a unit direction, as parry is usually
                    // driven): entry from outside, exit via the reversed ray.
                    let len = ray.dir.norm();
                    let unit = ray.dir / len;
                    let pray = PRay::new(ray.origin, unit);
                    // Start the reversed ray just beyond the shape's bounding sphere.
                    let bs = shape.compute_local_bounding_sphere();
                    let c = pose * bs.center;
                    let tc = (c - ray.origin).dot(&unit);
                    let far = tc + 2.0 * (bs.radius + 1.0);
                    if far <= 0.0 {
                        continue;
                    }
                    let before = out.len();
                    let cos =
                        |n: &nalgebra::Vector3<Real>| f64::from(n.normalize().dot(&unit).abs());
                    // parry's GJK occasionally misses a ray from far away; retry from just
                    // outside the bounding sphere (as the scene does).
                    let start = (tc - bs.radius * 1.01).max(0.0);
                    let entry = shape
                        .cast_ray_and_get_normal(pose, &pray, Real::MAX, true)
                        .or_else(|| {
                            let p2 = PRay::new(ray.origin + unit * start, unit);
                            shape
                                .cast_ray_and_get_normal(pose, &p2, Real::MAX, true)
                                .map(|mut h| {
                                    h.time_of_impact += start;
                                    h
                                })
                        });
                    if let Some(h) = entry {
                        if h.time_of_impact > 0.0 {
                            let t = f64::from(h.time_of_impact) / f64::from(len);
                            if t >= t_min && t <= t_max {
                                out.push(OHit {
                                    id: obj.id,
                                    triangle: None,
                                    t,
                                    edge: cos(&h.normal),
                                    normal: h.normal.cast::<f64>().normalize(),
                                    front: true,
                                });
                            }
                        }
                    }
                    let back = PRay::new(ray.origin + unit * far, -unit);
                    let exit = shape
                        .cast_ray_and_get_normal(pose, &back, Real::MAX, true)
                        .or_else(|| {
                            let near = (far - 2.0 * bs.radius * 1.01 - 2.0).max(0.0);
                            let b2 = PRay::new(ray.origin + unit * (far - near), -unit);
                            shape
                                .cast_ray_and_get_normal(pose, &b2, Real::MAX, true)
                                .map(|mut h| {
                                    h.time_of_impact += near;
                                    h
                                })
                        });
                    if let Some(h) = exit {
                        if h.time_of_impact > 0.0 {
                            let t = (f64::from(far) - f64::from(h.time_of_impact)) / f64::from(len);
                            if t >= t_min && t <= t_max {
                                out.push(OHit {
                                    id: obj.id,
                                    triangle: None,
                                    t,
                                    edge: cos(&h.normal),
                                    normal: h.normal.cast::<f64>().normalize(),
                                    front: false,
                                });
                            }
                        }
                    }
                    // Entry without exit or the reverse (outside the shape): a grazing ray
                    // that parry decides differently from either side.
                    if out.len() - before == 1 && !shape.contains_point(pose, &ray.origin) {
                        out[before].edge = 0.0;
                    }
                }
            }
        }
        out
    }

    /// The f64 nearest surface distance over the objects with `mask`.
    pub fn oracle_nearest(&self, p: &Point3<Real>, mask: u32) -> Option<(InstanceId, f64)> {
        let q = p.cast::<f64>();
        let mut best: Option<(InstanceId, f64)> = None;
        for obj in &self.objects {
            if obj.mask & mask == 0 {
                continue;
            }
            let d = match &obj.geom {
                OracleGeom::Mesh { tris, .. } => tris
                    .iter()
                    .map(|t| closest_on_tri64(&q, t).1)
                    .fold(f64::INFINITY, f64::min),
                OracleGeom::Shape { shape, pose } => {
                    let pr = shape.project_point(pose, p, false);
                    (pr.point.cast::<f64>() - q).norm()
                }
            };
            if best.is_none_or(|b| d < b.1) {
                best = Some((obj.id, d));
            }
        }
        best
    }
}

/// Closest point on a triangle in f64 (Ericson 5.1.5): (point, distance).
pub fn closest_on_tri64(p: &P, t: &[P; 3]) -> (P, f64) {
    let (a, b, c) = (t[0], t[1], t[2]);
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    let done = |x: P| (x, (x - p).norm());
    if d1 <= 0.0 && d2 <= 0.0 {
        return done(a);
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return done(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return done(a + ab * v);
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return done(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return done(a + ac * w);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return done(b + (c - b) * w);
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    if !(v.is_finite() && w.is_finite()) {
        // Degenerate: the nearest of the three edges.
        let seg = |x: P, y: P| {
            let e = y - x;
            let l = e.dot(&e);
            let s = if l > 0.0 {
                ((p - x).dot(&e) / l).clamp(0.0, 1.0)
            } else {
                0.0
            };
            x + e * s
        };
        let cands = [seg(a, b), seg(b, c), seg(c, a)];
        let best = cands
            .iter()
            .min_by(|x, y| (*x - p).norm().total_cmp(&(*y - p).norm()))
            .copied()
            .unwrap_or(a);
        return done(best);
    }
    done(a + ab * v + ac * w)
}

pub fn v32(v: &V) -> Vector3<Real> {
    v.cast()
}
