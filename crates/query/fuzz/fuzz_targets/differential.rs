//! `Mesh` ray queries against a brute force over the same triangles with the scalar
//! watertight kernel (`raypick_primitives::ray_triangle`), on both node layouts and on a
//! mesh whose slivers are pre-split into several leaf slots (`BuildConfig::presplit` set
//! low, so that most inputs split some triangle):
//! - `Mesh::new` returns the error the input calls for, or a mesh;
//! - `closest_hit`: the lowest `t`, ties to the lowest triangle index, `t`, `u`, `v` bit for bit;
//! - `any_hit`: true exactly when the brute force hits;
//! - `all_hits`: the brute force's hits after the merge of one crossing per edge or vertex
//!   that `Mesh::all_hits` documents, bit for bit, in its order;
//! - `closest_hit_coherent` and `any_hit_coherent`: each ray of the input with 15 close
//!   neighbours (a packet of 16), every answer equal to the single-ray query's.
//!
//! Most vertices sit on a grid of halves and many rays aim at a vertex or an edge midpoint,
//! so that rays through shared edges and vertices (the watertight cases) are common.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use raypick_bvh::BuildConfig;
use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Real, Triangle, Vector3, WatertightRay};
use raypick_query::mesh::NodeLayout;
use raypick_query::{Hit, Mesh, MeshError, RayQuery};

const MAX_VERTICES: u8 = 48;
const MAX_TRIANGLES: u8 = 64;
const MAX_RAYS: u8 = 16;

#[path = "bytes.rs"]
mod bytes;
use bytes::Bytes;

impl Bytes<'_> {
    /// A point on the grid of halves in [-2, 2] (mostly), a few millionths off it, or any
    /// f32 triple (NaN and infinities included).
    fn point(&mut self) -> Point3<Real> {
        let mode = self.u8() % 8;
        let mut c = || match mode {
            0 => self.f32(),
            1 => f32::from(self.u8() % 9) * 0.5 - 2.0 + f32::from(self.u8() as i8) * 1e-6,
            _ => f32::from(self.u8() % 9) * 0.5 - 2.0,
        };
        Point3::new(c(), c(), c())
    }
}

/// A triangle's hit as the brute force finds it, with the kernel's exactly-zero weights.
#[derive(Clone, Copy, Debug)]
struct BruteHit {
    triangle: u32,
    t: Real,
    u: Real,
    v: Real,
    front_face: bool,
    zero: [bool; 3],
}

/// What two answers are compared on: everything bit for bit.
type Key = (u32, u32, u32, u32, bool);

fn key_of_brute(h: &BruteHit) -> Key {
    (
        h.triangle,
        h.t.to_bits(),
        h.u.to_bits(),
        h.v.to_bits(),
        h.front_face,
    )
}

fn key_of_hit(h: &Hit) -> Key {
    (
        h.triangle,
        h.t.to_bits(),
        h.u.to_bits(),
        h.v.to_bits(),
        h.front_face,
    )
}

fn p(p: &Point3<Real>) -> String {
    format!("({:?}, {:?}, {:?})", p.x, p.y, p.z)
}

struct Case {
    positions: Vec<Point3<Real>>,
    triangles: Vec<[u32; 3]>,
}

impl Case {
    fn describe(&self, ray: &Ray, q: &RayQuery) -> String {
        let positions: Vec<String> = self.positions.iter().map(p).collect();
        format!(
            "positions [{}]\ntriangles {:?}\nray origin {} dir ({:?}, {:?}, {:?})\nquery {q:?}",
            positions.join(", "),
            self.triangles,
            p(&ray.origin),
            ray.dir.x,
            ray.dir.y,
            ray.dir.z,
        )
    }

    fn corners(&self, i: usize) -> [Point3<Real>; 3] {
        self.triangles[i].map(|v| self.positions[v as usize])
    }

    /// Every triangle through the scalar kernel, in index order.
    fn brute(&self, ray: &Ray, q: &RayQuery) -> Vec<BruteHit> {
        let w = WatertightRay::new(ray);
        let mut hits = Vec::new();
        for i in 0..self.triangles.len() {
            let [a, b, c] = self.corners(i);
            let Some(h) = ray_triangle(ray, &Triangle::new(a, b, c), q.t_min, q.t_max, q.cull)
            else {
                continue;
            };
            let raw = w.intersect_raw(&a, &b, &c, q.t_min, q.t_max, q.cull);
            let Some((r, zero)) = raw.filter(|(r, _)| {
                (r.t.to_bits(), r.u.to_bits(), r.v.to_bits(), r.front_face)
                    == (h.t.to_bits(), h.u.to_bits(), h.v.to_bits(), h.front_face)
            }) else {
                panic!(
                    "intersect_raw {raw:?} differs from ray_triangle {h:?} on triangle {i}\n{}",
                    self.describe(ray, q)
                );
            };
            hits.push(BruteHit {
                triangle: i as u32,
                t: r.t,
                u: r.u,
                v: r.v,
                front_face: r.front_face,
                zero,
            });
        }
        hits
    }
}

/// A position's bits, -0 and +0 alike: the identity of a vertex for the merge.
fn bits(p: &Point3<Real>) -> [u32; 3] {
    [p.x, p.y, p.z].map(|c| (c + 0.0).to_bits())
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Feature {
    Vertex([u32; 3]),
    Edge([u32; 3], [u32; 3]),
}

/// A boundary hit's place in its group.
struct Member {
    hit: usize,
    /// Edge: the triangle's winding runs from the lower end (by bits) to the higher.
    forward: bool,
    /// Vertex: the triangle's two other corners, in winding order.
    wedge: [Point3<Real>; 2],
}

fn cross(a: [Real; 2], b: [Real; 2]) -> f64 {
    f64::from(a[0]) * f64::from(b[1]) - f64::from(a[1]) * f64::from(b[0])
}

/// The brute force's hits merged as `Mesh::all_hits` documents: hits exactly on one edge or
/// one vertex form a group, which keeps as many hits as its largest signed coverage (the
/// lowest indices of the facing reaching it), or one front and one back hit when the
/// coverage cancels. Sorted by `t`, then index.
fn merged(case: &Case, w: &WatertightRay, hits: &[BruteHit]) -> Vec<BruteHit> {
    let mut out = Vec::new();
    let mut groups: BTreeMap<Feature, Vec<Member>> = BTreeMap::new();
    for (j, h) in hits.iter().enumerate() {
        let c = case.corners(h.triangle as usize);
        let zeros: Vec<usize> = (0..3).filter(|&i| h.zero[i]).collect();
        let (feature, forward, wedge) = match zeros[..] {
            [i] => {
                // Weight of corner i zero: the edge between the other two.
                let (a, b) = (bits(&c[(i + 1) % 3]), bits(&c[(i + 2) % 3]));
                (Feature::Edge(a.min(b), a.max(b)), a < b, [c[0], c[0]])
            }
            [i, j] => {
                let v = 3 - i - j;
                let wedge = [c[(v + 1) % 3], c[(v + 2) % 3]];
                (Feature::Vertex(bits(&c[v])), true, wedge)
            }
            _ => {
                out.push(*h);
                continue;
            }
        };
        groups.entry(feature).or_default().push(Member {
            hit: j,
            forward,
            wedge,
        });
    }
    let sign = |m: &Member| if hits[m.hit].front_face { 1i64 } else { -1 };
    let shear = |p: &Point3<Real>| {
        let ([kx, ky, kz], o, s) = (w.k, w.origin, w.shear);
        let d = [p.x - o[0], p.y - o[1], p.z - o[2]];
        [d[kx] - s[0] * d[kz], d[ky] - s[1] * d[kz]]
    };
    for (feature, members) in groups {
        if members.len() == 1 {
            out.push(hits[members[0].hit]);
            continue;
        }
        // Every signed coverage of the feature seen along the ray.
        let coverages: Vec<i64> = match feature {
            Feature::Edge(..) => {
                let (mut left, mut right) = (0, 0);
                for m in &members {
                    // The third corner lies left of the lower-to-higher edge exactly when the
                    // winding runs along it on a front face, or against it on a back face.
                    if m.forward == (sign(m) > 0) {
                        left += sign(m);
                    } else {
                        right += sign(m);
                    }
                }
                vec![left, right]
            }
            Feature::Vertex(_) => {
                // Each triangle covers the wedge from one other corner to the next (counter-
                // clockwise, start included) around the vertex, which shears to the origin.
                let wedges: Vec<([Real; 2], [Real; 2], i64)> = members
                    .iter()
                    .map(|m| {
                        let (s, e) = (shear(&m.wedge[0]), shear(&m.wedge[1]));
                        let (s, e) = if cross(s, e) > 0.0 { (s, e) } else { (e, s) };
                        (s, e, sign(m))
                    })
                    .collect();
                wedges
                    .iter()
                    .flat_map(|&(s, e, _)| [s, e])
                    .map(|probe| {
                        wedges
                            .iter()
                            .filter(|(s, e, _)| cross(*s, probe) >= 0.0 && cross(probe, *e) > 0.0)
                            .map(|w| w.2)
                            .sum()
                    })
                    .collect()
            }
        };
        let count = coverages.iter().map(|c| c.abs()).max().unwrap_or(0);
        let pos = coverages.contains(&count);
        let neg = coverages.contains(&-count);
        // Members are in index order: the first of a facing is its lowest index.
        let lowest = |front: bool| members.iter().find(|m| hits[m.hit].front_face == front);
        if count == 0 {
            out.extend(
                [true, false]
                    .into_iter()
                    .filter_map(lowest)
                    .map(|m| hits[m.hit]),
            );
            continue;
        }
        let facing = if pos != neg {
            pos
        } else {
            hits[members[0].hit].front_face
        };
        out.extend(
            members
                .iter()
                .filter(|m| hits[m.hit].front_face == facing)
                .take(count as usize)
                .map(|m| hits[m.hit]),
        );
    }
    out.sort_by(|a, b| {
        a.t.partial_cmp(&b.t)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.triangle.cmp(&b.triangle))
    });
    out
}

/// True when the hit's `t` lies where the ray the kernel follows (its direction with
/// vanishing components taken as zero, `WatertightRay::dir`), evaluated exactly in f64, is
/// inside the triangle's bounding box, within `[t_min, t_max]`. Otherwise the kernel found
/// it only through its f32 rounding (the origin subtracted before the shear, coordinates far
/// apart in magnitude): a graze within rounding, which the traversal's box test, following
/// the exact ray, may prune. Such rays are counted apart and not compared (see
/// crates/query/tests/mesh_fuzz_regressions.rs for the two cases found).
fn inside_exact_box(corners: &[Point3<Real>; 3], ray: &Ray, q: &RayQuery, t: Real) -> bool {
    let dir = WatertightRay::new(ray).dir();
    let (mut lo, mut hi) = (f64::from(q.t_min), f64::from(q.t_max));
    for axis in 0..3 {
        let (o, d) = (f64::from(ray.origin[axis]), f64::from(dir[axis]));
        let c = corners.map(|p| f64::from(p[axis]));
        let (min, max) = (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]));
        if d == 0.0 {
            if o < min || o > max {
                return false;
            }
        } else {
            let (a, b) = ((min - o) / d, (max - o) / d);
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
    }
    // f64 division rounds a little: no verdict hangs on that.
    let t = f64::from(t);
    lo - lo.abs() * 1e-9 <= t && t <= hi + hi.abs() * 1e-9
}

fn check_ray(case: &Case, meshes: &[(&str, &Mesh)], ray: &Ray, q: &RayQuery) {
    let hits = case.brute(ray, q);
    let graze = hits
        .iter()
        .any(|h| !inside_exact_box(&case.corners(h.triangle as usize), ray, q, h.t));
    if graze {
        for &(_, mesh) in meshes {
            let _ = (
                mesh.closest_hit(ray, q),
                mesh.any_hit(ray, q),
                mesh.all_hits(ray, q),
            );
        }
        return;
    }
    // Strictly lower t wins; the first of equal t (the lowest index) stays (hit t is never NaN).
    let closest = hits.iter().fold(None::<&BruteHit>, |best, h| match best {
        Some(b) if h.t >= b.t => Some(b),
        _ => Some(h),
    });
    let all: Vec<Key> = merged(case, &WatertightRay::new(ray), &hits)
        .iter()
        .map(key_of_brute)
        .collect();
    for &(layout, mesh) in meshes {
        let got = mesh.closest_hit(ray, q);
        assert_eq!(
            got.as_ref().map(key_of_hit),
            closest.map(key_of_brute),
            "closest_hit ({layout}) against the brute force (triangle, t, u, v bits, front)\n\
             {}\nbrute hits {hits:?}",
            case.describe(ray, q)
        );
        assert_eq!(
            mesh.any_hit(ray, q),
            !hits.is_empty(),
            "any_hit ({layout}) against the brute force\n{}\nbrute hits {hits:?}",
            case.describe(ray, q)
        );
        let got: Vec<Key> = mesh.all_hits(ray, q).iter().map(key_of_hit).collect();
        assert_eq!(
            got,
            all,
            "all_hits ({layout}) against the merged brute force (triangle, t, u, v bits, \
             front)\n{}\nbrute hits {hits:?}",
            case.describe(ray, q)
        );
    }
}

fn ray(bytes: &mut Bytes, case: &Case) -> Ray {
    let origin = bytes.point();
    let mode = bytes.u8() % 8;
    let n = case.positions.len();
    let dir = match mode {
        0 => Vector3::new(bytes.f32(), bytes.f32(), bytes.f32()),
        // At a vertex: it lies at t = 1 (up to rounding).
        1 if n > 0 => case.positions[usize::from(bytes.u8()) % n] - origin,
        // At the midpoint of two vertices (on the grid: an edge's midpoint, exactly).
        2 if n > 0 => {
            let a = case.positions[usize::from(bytes.u8()) % n];
            let b = case.positions[usize::from(bytes.u8()) % n];
            Point3::from((a.coords + b.coords) * 0.5) - origin
        }
        3 => {
            let odd = [
                Real::NAN,
                Real::INFINITY,
                Real::NEG_INFINITY,
                0.0,
                -0.0,
                1.0,
            ];
            let mut c = || odd[usize::from(bytes.u8()) % odd.len()];
            Vector3::new(c(), c(), c())
        }
        _ => {
            let mut c = || f32::from(bytes.u8() % 5) - 2.0;
            Vector3::new(c(), c(), c())
        }
    };
    Ray::new(origin, dir)
}

fn query(bytes: &mut Bytes) -> RayQuery {
    match bytes.u8() % 8 {
        4 => RayQuery::new(-4.0, Real::INFINITY),
        5 => RayQuery::new(0.0, f32::from(bytes.u8() % 9) * 0.5 - 1.0),
        6 => RayQuery::default().with_cull(Cull::Back),
        7 => RayQuery::default().with_cull(Cull::Front),
        _ => RayQuery::default(),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let n = bytes.u8() % (MAX_VERTICES + 1);
    let positions: Vec<Point3<Real>> = (0..n).map(|_| bytes.point()).collect();
    let triangle_count = bytes.u8() % (MAX_TRIANGLES + 1);
    let triangles: Vec<[u32; 3]> = (0..triangle_count)
        .map(|_| {
            [(); 3].map(|_| match bytes.u8() {
                // Now and then an index out of range.
                255 => u32::from(n) + u32::from(bytes.u8()),
                b if n > 0 => u32::from(b % n),
                b => u32::from(b),
            })
        })
        .collect();
    let case = Case {
        positions,
        triangles,
    };
    let non_finite = case
        .positions
        .iter()
        .position(|p| !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()));
    let out_of_range = case.triangles.iter().enumerate().find_map(|(t, tri)| {
        let corner = tri.iter().position(|&i| i >= u32::from(n))?;
        Some((t, corner))
    });
    let mesh = match Mesh::new(case.positions.clone(), case.triangles.clone()) {
        Ok(mesh) => {
            assert!(
                non_finite.is_none() && out_of_range.is_none(),
                "Mesh::new accepted a bad input"
            );
            mesh
        }
        Err(MeshError::NonFiniteVertex { vertex, .. }) => {
            assert_eq!(
                Some(vertex),
                non_finite,
                "NonFiniteVertex names the first one"
            );
            return;
        }
        Err(MeshError::IndexOutOfRange {
            triangle, corner, ..
        }) => {
            assert!(non_finite.is_none(), "vertices are checked first");
            assert_eq!(
                Some((triangle, corner)),
                out_of_range,
                "the first bad index"
            );
            return;
        }
        Err(e) => panic!(
            "Mesh::new: {e}\npositions {:?}\ntriangles {:?}",
            case.positions.iter().map(p).collect::<Vec<_>>(),
            case.triangles
        ),
    };
    let mut compact = mesh.clone();
    let mut meshes = vec![("default layout", &mesh)];
    // Coordinates near f32::MAX cannot be quantized: then the default layout only.
    if compact.set_node_layout(NodeLayout::Compact).is_ok() {
        meshes.push(("compact layout", &compact));
    }
    let config = BuildConfig {
        presplit: 0.25,
        ..BuildConfig::default()
    };
    let split = Mesh::with_config(case.positions.clone(), case.triangles.clone(), &config)
        .expect("the input Mesh::new took");
    meshes.push(("pre-split", &split));
    let rays = bytes.u8() % (MAX_RAYS + 1);
    let mut seeds = Vec::new();
    for _ in 0..rays {
        let r = ray(&mut bytes, &case);
        let q = query(&mut bytes);
        check_ray(&case, &meshes, &r, &q);
        seeds.push((r, q));
    }
    if let Some(&(_, q)) = seeds.first() {
        let spread = [0.0, 1e-6, 1e-3, 0.1][usize::from(bytes.u8() % 4)];
        check_packets(&case, &meshes, &packets(&seeds, spread), &q);
    }
});

/// Each seed ray and 15 neighbours, a 4 x 4 grid of origins and directions `spread` apart
/// (relative to the origin's and the direction's size): one packet per seed.
fn packets(seeds: &[(Ray, RayQuery)], spread: Real) -> Vec<Ray> {
    let mut out = Vec::with_capacity(16 * seeds.len());
    for (r, _) in seeds {
        let so = spread * (1.0 + r.origin.coords.amax());
        let sd = spread * r.dir.amax();
        for k in 0..16 {
            let (u, v) = ((k % 4) as Real - 1.5, (k / 4) as Real - 1.5);
            out.push(Ray::new(
                r.origin + Vector3::new(u, v, 0.5 * u) * so,
                r.dir + Vector3::new(v, 0.5 * v, u) * sd,
            ));
        }
    }
    out
}

/// The coherent queries of `rays` under `q` against the single-ray ones, ray for ray.
fn check_packets(case: &Case, meshes: &[(&str, &Mesh)], rays: &[Ray], q: &RayQuery) {
    for &(layout, mesh) in meshes {
        let mut closest = vec![None; rays.len()];
        mesh.closest_hit_coherent(rays, q, &mut closest)
            .expect("lengths agree");
        let mut any = vec![false; rays.len()];
        mesh.any_hit_coherent(rays, q, &mut any)
            .expect("lengths agree");
        for (i, ray) in rays.iter().enumerate() {
            assert_eq!(
                closest[i],
                mesh.closest_hit(ray, q),
                "closest_hit_coherent ({layout}) against closest_hit: ray {i}\n{}",
                case.describe(ray, q)
            );
            assert_eq!(
                any[i],
                mesh.any_hit(ray, q),
                "any_hit_coherent ({layout}) against any_hit: ray {i}\n{}",
                case.describe(ray, q)
            );
        }
    }
}
