//! `Scene` queries over instances under any transform the input makes (rotations, mirrors,
//! shears, non-uniform, tiny and huge scales, raw f32 matrices, NaN), after moves and
//! removals:
//! - nothing panics, and a bad transform is refused with an error, not stored;
//! - every scene: `any_hit` is `closest_hit.is_some()`, `all_hits` is sorted and starts at
//!   the closest hit's `t` (up to the rounding of a merged edge crossing), the batches
//!   equal the single queries, a signed distance's size is the nearest point's distance;
//! - mesh against mesh: `instances_intersect`, `intersecting_pairs` and `instance_distance`
//!   equal the brute force over every pair of placed triangles, bit for bit (the placement
//!   is theirs: `Matrix4::transform_point` of the scene's f32 matrix);
//! - scenes of tame transforms (rotations, translations, scales of 1/2 to 2, mirrors,
//!   shears of at most 1), rays from near the origin and points within 1e18: against f64
//!   brute forces over the world triangles, a ray whose nearest hit lies clearly inside a
//!   triangle is not missed and is not passed, a reported hit lies on some triangle, the nearest distance (f32 and f64 point) is the brute
//!   force's, and off the surface the closed meshes' winding number is the brute force's
//!   integer, `contains` and the signed distance's sign follow it; on open meshes, only
//!   under similarities (under other transforms the scene's is the object's winding number,
//!   as documented), within 1e-3 per instance. Rays and points within the rounding of an
//!   edge or of the surface are counted as grazing and not compared.
#![no_main]

use libfuzzer_sys::fuzz_target;
use raypick_primitives::{
    point_triangle, triangle_triangle, triangle_triangle_distance, Matrix4, Point3, Ray, Ray64,
    Real, Triangle, Vector3,
};
use raypick_query::scene::{InstanceId, MeshId};
use raypick_query::{Mesh, Scene, SceneQuery};

const MAX_INSTANCES: u8 = 4;
const MAX_QUERIES: u8 = 12;

#[path = "bytes.rs"]
mod bytes;
use bytes::Bytes;

#[path = "angle.rs"]
mod angle;
use angle::winding_term;

#[path = "cube.rs"]
mod cube;
use cube::cube_topology;

impl Bytes<'_> {
    /// A point on the grid of quarters in [-3, 3], off it by a little now and then, or
    /// (rarely) any f32 triple.
    fn point(&mut self) -> Point3<Real> {
        let mode = self.u8() % 16;
        if mode == 0 {
            return Point3::new(self.f32(), self.f32(), self.f32());
        }
        let mut c = || {
            let q = Real::from(self.u8() % 25) * 0.25 - 3.0;
            if mode < 4 {
                q + Real::from(self.u8() as i8) * 1e-3
            } else {
                q
            }
        };
        Point3::new(c(), c(), c())
    }

    /// An instance transform and whether it is tame (see the module docs), and a
    /// similarity (a rotation, translation and uniform scale, possibly mirrored).
    fn transform(&mut self) -> (Matrix4<f64>, bool, bool) {
        let (mut m, mut tame, mut similar) = (Matrix4::<f64>::identity(), true, true);
        for _ in 0..1 + self.u8() % 3 {
            let step = match self.u8() % 10 {
                0 | 1 => Matrix4::new_translation(&Vector3::new(
                    f64::from(self.half()),
                    f64::from(self.half()),
                    f64::from(self.half()),
                )),
                2 | 3 => {
                    let axis = Vector3::new(
                        f64::from(self.half()),
                        f64::from(self.half()),
                        f64::from(self.half()),
                    );
                    let angle = f64::from(self.u8()) * (std::f64::consts::TAU / 256.0);
                    match axis.try_normalize(1e-9) {
                        Some(a) => Matrix4::new_rotation(a * angle),
                        None => Matrix4::identity(),
                    }
                }
                4 => {
                    let k = [0.5, 1.0, 2.0, -1.0][usize::from(self.u8() % 4)];
                    Matrix4::new_scaling(k)
                }
                5 => {
                    similar = false;
                    let mut s = || [0.5, 1.0, 2.0, -1.0, -0.5][usize::from(self.u8() % 5)];
                    Matrix4::new_nonuniform_scaling(&Vector3::new(s(), s(), s()))
                }
                6 => {
                    similar = false;
                    let mut s = Matrix4::identity();
                    let (i, j) = (usize::from(self.u8() % 3), usize::from(self.u8() % 3));
                    if i != j {
                        s[(i, j)] = f64::from(self.u8() % 5) * 0.25;
                    }
                    s
                }
                7 => {
                    // Scales far from 1: the oracle's tolerances no longer hold.
                    tame = false;
                    let k = [1e-6, 1e-3, 1e3, 1e6, 3e30][usize::from(self.u8() % 5)];
                    let mut s = || k * [1.0, -1.0, 0.5][usize::from(self.u8() % 3)];
                    Matrix4::new_nonuniform_scaling(&Vector3::new(s(), s(), s()))
                }
                8 => {
                    // A far translation.
                    tame = false;
                    let k = [1e4, 1e7, 1e20][usize::from(self.u8() % 3)];
                    Matrix4::new_translation(&Vector3::new(k, -k, 0.5 * k))
                }
                _ => {
                    // Raw entries: singular, projective, NaN and infinite ones included.
                    tame = false;
                    let mut r = Matrix4::zeros();
                    for row in 0..4 {
                        for col in 0..4 {
                            r[(row, col)] = f64::from(self.f32());
                        }
                    }
                    if self.u8() % 2 == 0 {
                        r.set_row(3, &Matrix4::<f64>::identity().row(3));
                    }
                    r
                }
            };
            m = step * m;
        }
        (m, tame, similar)
    }
}

/// A live instance as the oracles see it.
struct Placed {
    id: InstanceId,
    mesh: usize,
    m64: Matrix4<f64>,
    tame: bool,
    similar: bool,
}

/// A test mesh: positions, triangles, and whether it is closed.
type Source = (Vec<Point3<Real>>, Vec<[u32; 3]>, bool);

fn source(bytes: &mut Bytes<'_>) -> Source {
    match bytes.u8() % 3 {
        0 | 1 => {
            let (lattice, mut tris) = cube_topology();
            let positions = lattice
                .iter()
                .map(|l| {
                    let p = Point3::new(l[0] as Real, l[1] as Real, l[2] as Real);
                    if bytes.u8() % 4 == 0 {
                        Point3::new(bytes.half(), bytes.half(), bytes.half())
                    } else {
                        p
                    }
                })
                .collect();
            let closed = bytes.u8() % 2 == 0;
            if !closed {
                for _ in 0..1 + bytes.u8() % 3 {
                    let k = usize::from(bytes.u8()) % tris.len();
                    tris.remove(k);
                }
            }
            (positions, tris, closed)
        }
        _ => {
            let n = 3 + bytes.u8() % 20;
            let positions: Vec<Point3<Real>> = (0..n)
                .map(|_| Point3::new(bytes.half(), bytes.half(), bytes.half()))
                .collect();
            let tris = (0..1 + bytes.u8() % 16)
                .map(|_| [(); 3].map(|_| u32::from(bytes.u8() % n)))
                .collect();
            (positions, tris, false)
        }
    }
}

/// The f64 world triangles of an instance.
fn world(src: &Source, m: &Matrix4<f64>) -> Vec<[Point3<f64>; 3]> {
    src.1
        .iter()
        .map(|t| t.map(|i| m.transform_point(&src.0[i as usize].cast::<f64>())))
        .collect()
}

/// The largest world coordinate magnitude of instance `id`'s vertices (0 if not live).
fn world_extent(live: &[Placed], sources: &[Source], id: InstanceId) -> f64 {
    live.iter()
        .filter(|p| p.id == id)
        .flat_map(|p| world(&sources[p.mesh], &p.m64))
        .flat_map(|t| t.into_iter().map(|v| v.coords.amax()))
        .fold(0.0, f64::max)
}

/// The triangles of an instance placed as the pair queries place them.
fn placed_f32(src: &Source, m: &Matrix4<Real>) -> Vec<Triangle> {
    src.1
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.transform_point(&src.0[i as usize]));
            Triangle::new(a, b, c)
        })
        .collect()
}

/// What an f64 ray meets: the least `t` of a hit clearly inside a triangle (barycentrics and
/// the determinant clear of 0 by `eps`), and the least `t` of any hit counting the band of
/// `eps` around every edge (`inf` for none).
fn ray_oracle(tris: &[[Point3<f64>; 3]], o: &Point3<f64>, d: &Vector3<f64>) -> (f64, f64) {
    let eps = 1e-4;
    let (mut clear, mut any) = (f64::INFINITY, f64::INFINITY);
    for [a, b, c] in tris {
        let (e1, e2) = (b - a, c - a);
        let pv = d.cross(&e2);
        let det = e1.dot(&pv);
        let scale = e1.norm() * e2.norm() * d.norm();
        if !(scale > 0.0) {
            continue;
        }
        if det.abs() <= 1e-9 * scale {
            // In the triangle's plane (or degenerate): graze it anywhere along the ray.
            any = any.min(0.0);
            continue;
        }
        let s = o - a;
        let u = s.dot(&pv) / det;
        let q = s.cross(&e1);
        let v = d.dot(&q) / det;
        let t = e2.dot(&q) / det;
        let inside = |m: f64| u >= m && v >= m && u + v <= 1.0 - m;
        if inside(-eps) && t >= -eps * (1.0 + t.abs()) {
            any = any.min(t.max(0.0));
            if inside(eps) && det.abs() > 1e-3 * scale && t > eps {
                clear = clear.min(t);
            }
        }
    }
    (clear, any)
}

/// The f64 brute force at a point: the winding number over the world triangles of each
/// instance (solid angles, Van Oosterom and Strackee), times the sign of its transform's
/// determinant (a mirror places its mesh's solid, as `Scene::winding_number` documents),
/// and the distance to the nearest (f32 `point_triangle` of the rounded world triangles,
/// well within the tolerances).
fn point_oracle(worlds: &[(Vec<[Point3<f64>; 3]>, f64)], p: &Point3<Real>) -> (f64, f64) {
    let q = p.cast::<f64>();
    let (mut w, mut d2) = (0.0, f64::INFINITY);
    for (t, sign) in worlds
        .iter()
        .flat_map(|(w, s)| w.iter().map(move |t| (t, *s)))
    {
        let [a, b, c] = t.map(|x| x - q);
        w += sign * winding_term(a, b, c);
        let [fa, fb, fc] = t.map(|x| x.cast::<Real>());
        if let Some(pt) = point_triangle(p, &Triangle::new(fa, fb, fc)) {
            d2 = d2.min(f64::from(pt.distance_squared));
        }
    }
    (w, d2.sqrt())
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let mut scene = Scene::new();
    let sources: Vec<Source> = (0..1 + bytes.u8() % 2)
        .map(|_| source(&mut bytes))
        .collect();
    let ids: Vec<MeshId> = sources
        .iter()
        .map(|s| {
            let mesh = Mesh::new(s.0.clone(), s.1.clone()).expect("finite, in range");
            scene.add_mesh(mesh)
        })
        .collect();
    let mut live: Vec<Placed> = Vec::new();
    for _ in 0..1 + bytes.u8() % MAX_INSTANCES {
        let mesh = usize::from(bytes.u8()) % sources.len();
        let (m64, tame, similar) = bytes.transform();
        let f64_entry = bytes.u8() % 2 == 0;
        let before = scene.len();
        let added = if f64_entry {
            scene.add_instance_f64(ids[mesh], &m64)
        } else {
            scene.add_instance(ids[mesh], &m64.cast::<Real>())
        };
        match added {
            Ok(id) => {
                let m64 = if f64_entry {
                    m64
                } else {
                    m64.cast::<Real>().cast::<f64>()
                };
                live.push(Placed {
                    id,
                    mesh,
                    m64,
                    tame,
                    similar,
                })
            }
            Err(_) => assert_eq!(scene.len(), before, "a refused transform is not stored"),
        }
    }
    // Edits: an instance moved, or removed.
    match bytes.u8() % 4 {
        0 if !live.is_empty() => {
            let k = usize::from(bytes.u8()) % live.len();
            let (m64, tame, similar) = bytes.transform();
            if scene.set_transform(live[k].id, &m64.cast::<Real>()).is_ok() {
                live[k].m64 = m64.cast::<Real>().cast::<f64>();
                live[k].tame = tame;
                live[k].similar = similar;
            }
        }
        1 if !live.is_empty() => {
            let k = usize::from(bytes.u8()) % live.len();
            scene.remove(live[k].id).expect("a live instance");
            live.remove(k);
        }
        _ => {}
    }
    // Every placed triangle finite in f64 (a huge scale can overflow f32 only).
    let worlds: Vec<(Vec<[Point3<f64>; 3]>, f64)> = live
        .iter()
        .map(|p| {
            let det = p.m64.fixed_view::<3, 3>(0, 0).determinant();
            (world(&sources[p.mesh], &p.m64), det.signum())
        })
        .collect();
    let tame = live.iter().all(|p| p.tame)
        && worlds
            .iter()
            .flat_map(|(w, _)| w)
            .all(|t| t.iter().all(|v| v.iter().all(|c| c.abs() < 1e3)));
    let all_world: Vec<[Point3<f64>; 3]> = worlds.iter().flat_map(|(w, _)| w).copied().collect();
    let q = SceneQuery::default();

    // Rays.
    let n = bytes.u8() % (MAX_QUERIES + 1);
    let mut rays = Vec::new();
    for _ in 0..n {
        let o = bytes.point();
        let target = bytes.point();
        let mut d = target - o;
        if bytes.u8() % 8 == 0 {
            d = Vector3::new(bytes.f32(), bytes.f32(), bytes.f32());
        }
        rays.push(Ray::new(o, d));
    }
    let mut batch = vec![None; rays.len()];
    scene
        .closest_hit_batch(&rays, &q, &mut batch)
        .expect("same lengths");
    let mut any_batch = vec![false; rays.len()];
    scene
        .any_hit_batch(&rays, &q, &mut any_batch)
        .expect("same lengths");
    for (k, ray) in rays.iter().enumerate() {
        let hit = scene.closest_hit(ray, &q);
        assert_eq!(scene.any_hit(ray, &q), hit.is_some(), "any hit of {ray:?}");
        assert_eq!(any_batch[k], hit.is_some(), "any-hit batch of {ray:?}");
        assert_eq!(
            batch[k].as_ref().map(|h| (h.instance, h.t.to_bits())),
            hit.as_ref().map(|h| (h.instance, h.t.to_bits())),
            "closest-hit batch of {ray:?}"
        );
        let all = scene.all_hits(ray, &q);
        assert!(all.windows(2).all(|w| w[0].t <= w[1].t), "all hits sorted");
        // The first crossing is the closest hit, up to the rounding by which the merged
        // triangles of an edge or vertex crossing (reported by the lowest index) differ:
        // a few f32 steps of the coordinates along the ray, the instance's coordinates
        // included (under a scale of 1e35, an object-space step is 1e28 world units).
        assert_eq!(
            all.is_empty(),
            hit.is_none(),
            "all hits and closest of {ray:?}"
        );
        if let (Some(first), Some(h)) = (all.first(), &hit) {
            let len = ray.dir.amax();
            let reach = 1.0
                + ray.origin.coords.amax()
                + h.t.abs() * len
                + world_extent(&live, &sources, h.instance)
                    .max(world_extent(&live, &sources, first.instance)) as Real;
            assert!(
                first.t >= h.t && (first.t - h.t) * len <= 1e-5 * reach,
                "all hits start at {} against the closest {} of {ray:?}",
                first.t,
                h.t
            );
        }
        let r64 = Ray64::new(ray.origin.cast::<f64>(), ray.dir.cast::<f64>());
        let hit64 = scene.closest_hit_f64(&r64, &q);
        let _ = scene.all_hits_f64(&r64, &q);
        // Rays from far away, or with huge or tiny directions, place their points no better
        // than the rounding of those magnitudes: no claim (they still run above).
        let ray_tame =
            ray.origin.coords.amax() < 100.0 && ray.dir.amax() < 100.0 && ray.dir.amax() > 1e-3;
        if !tame || !ray.is_valid() || !ray_tame {
            continue;
        }
        let (clear, any) = ray_oracle(&all_world, &r64.origin, &r64.dir);
        for (name, t) in [
            ("f32", hit.as_ref().map(|h| f64::from(h.t))),
            ("f64", hit64.as_ref().map(|h| h.t)),
        ] {
            let tol = |t: f64| 1e-3 * (1.0 + t.abs());
            match t {
                None => assert!(
                    clear.is_infinite(),
                    "{name} {ray:?} slipped past t = {clear}"
                ),
                Some(t) => {
                    assert!(
                        t <= clear + tol(clear),
                        "{name} {ray:?}: t {t}, clear hit at {clear}"
                    );
                    assert!(
                        t >= any - tol(any),
                        "{name} {ray:?}: t {t} before any surface ({any})"
                    );
                }
            }
        }
    }

    // Points.
    let n = bytes.u8() % (MAX_QUERIES + 1);
    let points: Vec<Point3<Real>> = (0..n).map(|_| bytes.point()).collect();
    let inside = scene.contains_points(&points);
    let signed = scene.signed_distances(&points);
    for (k, p) in points.iter().enumerate() {
        let near = scene.nearest_point(p, Real::INFINITY, &q);
        let c = scene.contains(*p);
        let s = scene.signed_distance(*p);
        let w = f64::from(scene.winding_number(*p));
        assert_eq!(inside[k], c, "contains batch at {p:?}");
        assert_eq!(
            signed[k].as_ref().map(|s| s.distance.to_bits()),
            s.as_ref().map(|s| s.distance.to_bits()),
            "signed-distance batch at {p:?}"
        );
        assert_eq!(near.is_some(), s.is_some(), "nearest and signed at {p:?}");
        if let (Some(n), Some(s)) = (&near, &s) {
            assert_eq!(
                n.distance,
                s.distance.abs(),
                "signed distance's size at {p:?}"
            );
        }
        let p64 = p.cast::<f64>();
        let near64 = scene.nearest_point_f64(&p64, f64::INFINITY, &q);
        let c64 = scene.contains_f64(p64);
        let _ = scene.signed_distance_f64(p64);
        let _ = scene.winding_number_f64(p64);
        if !tame || !p.iter().all(|c| c.is_finite()) || all_world.is_empty() {
            continue;
        }
        let (ow, od) = point_oracle(&worlds, p);
        if !(od < 1e18) {
            // Squared f32 distances overflow: documented as no nearest point.
            continue;
        }
        let tol = 1e-4 * (1.0 + od);
        let d = f64::from(near.as_ref().expect("triangles").distance);
        assert!((d - od).abs() <= tol, "distance {d} against {od} at {p:?}");
        let d64 = near64.as_ref().expect("triangles").distance;
        assert!(
            (d64 - od).abs() <= tol,
            "f64 distance {d64} against {od} at {p:?}"
        );
        if od < 1e-3 {
            // Grazing: within the rounding of the surface, no side claimed.
            continue;
        }
        let closed = live.iter().all(|pl| sources[pl.mesh].2);
        let similar = live.iter().all(|pl| pl.similar);
        let claim = if closed {
            let k = ow.round();
            assert!((ow - k).abs() < 1e-6, "oracle {ow} not an integer at {p:?}");
            assert_eq!(w, k, "winding number at {p:?}");
            true
        } else if similar {
            let stated = 1e-3 * live.len() as f64;
            assert!(
                (w - ow).abs() <= stated,
                "winding {w} against {ow} at {p:?}"
            );
            // The side decisions' sums are coarser: their margins from 0.5 (0.35, 0.1)
            // cover that, summed over the instances.
            (ow - 0.5).abs() > 0.11 * live.len() as f64
        } else {
            false
        };
        if claim {
            assert_eq!(c, ow >= 0.5, "contains at {p:?}: winding {ow}");
            assert_eq!(c64, ow >= 0.5, "f64 contains at {p:?}: winding {ow}");
            let s = s.expect("triangles");
            assert_eq!(s.distance < 0.0, c, "signed distance's sign at {p:?}");
        }
    }

    // Mesh against mesh, every pair of live instances (each with itself too).
    for (i, a) in live.iter().enumerate() {
        for b in &live[i..] {
            let (ma, mb) = (
                scene.transform(a.id).expect("live"),
                scene.transform(b.id).expect("live"),
            );
            let (ta, tb) = (
                placed_f32(&sources[a.mesh], &ma),
                placed_f32(&sources[b.mesh], &mb),
            );
            let finite = |m: &Matrix4<Real>| m.iter().all(|x| x.is_finite());
            let mut pairs = Vec::new();
            let mut best: Option<Real> = None;
            if finite(&ma) && finite(&mb) {
                for (x, t) in ta.iter().enumerate() {
                    for (y, u) in tb.iter().enumerate() {
                        if triangle_triangle(t, u) {
                            pairs.push((x as u32, y as u32));
                        }
                        if let Some(d) = triangle_triangle_distance(t, u) {
                            best = Some(best.map_or(d.distance, |b: Real| b.min(d.distance)));
                        }
                    }
                }
            }
            let touching = scene
                .instances_intersect(a.id, b.id)
                .expect("mesh instances");
            assert_eq!(
                touching,
                !pairs.is_empty(),
                "intersects {a:?} {b:?}",
                a = a.id,
                b = b.id
            );
            let listed = scene
                .intersecting_pairs(a.id, b.id)
                .expect("mesh instances");
            assert_eq!(listed, pairs, "intersecting pairs");
            let d = scene.instance_distance(a.id, b.id, Real::INFINITY);
            assert_eq!(
                d.map(|d| d.distance),
                if touching { Some(0.0) } else { best },
                "instance distance"
            );
        }
    }
});
