//! `Mesh::closest_hit_coherent` (groups of 16 consecutive rays traversed as one packet, with
//! a fallback to one ray at a time) against `Mesh::closest_hit`, ray for ray, compared with
//! `==`: 4 x 4 tiles of camera rays from outside, inside and along the coordinate axes
//! (tiles straddling a coordinate plane, exact zero direction components), of orthographic
//! and thin-lens cameras (spread origins), on meshes near and far from the origin, large and
//! tiny, scattered rays,
//! bounded, negative, empty, NaN and culled queries, invalid rays inside tiles, rays through
//! the shared vertices and edges of closed meshes, exact ties, both node layouts, and batches
//! long enough to run in parallel chunks and to switch between packets and single rays.
//!
//! A mismatch reports the ray, both answers, and the smallest set of rays from its tile that
//! still disagrees when run on its own. `RAYPICK_LONG=1` renders larger frames.

mod mesh_util;

use std::collections::HashMap;

use mesh_util::*;
use raypick_primitives::{Aabb, Cull, Point3, Ray, Vector3};
use raypick_query::mesh::NodeLayout;
use raypick_query::{Hit, Mesh, MeshError, RayQuery};

/// Rays per packet (`raypick_bvh::wide::PACKET_RAYS`).
const TILE: usize = 16;
/// Rays per parallel chunk of a batch (`par::CHUNK`).
const CHUNK: usize = 256;

// ---- answers and their comparison ----

/// A value no query returns: a slot the call leaves unwritten fails the comparison.
fn sentinel() -> Option<Hit> {
    Some(Hit {
        t: -12345.0,
        triangle: u32::MAX - 7,
        u: 0.25,
        v: 0.5,
        point: Point3::new(1.0, 2.0, 3.0),
        normal: Vector3::x_axis(),
        front_face: true,
    })
}

/// The coherent answers of `rays`, into slots that held [`sentinel`].
fn coherent(mesh: &Mesh, rays: &[Ray], q: &RayQuery) -> Vec<Option<Hit>> {
    let mut out = vec![sentinel(); rays.len()];
    mesh.closest_hit_coherent(rays, q, &mut out).unwrap();
    out
}

/// True when some coherent answer of `rays` differs from the single-ray one.
fn differs(mesh: &Mesh, rays: &[Ray], q: &RayQuery) -> bool {
    let out = coherent(mesh, rays, q);
    rays.iter()
        .zip(&out)
        .any(|(r, got)| *got != mesh.closest_hit(r, q))
}

/// The smallest subset of `rays` (greedily, one ray removed at a time, order kept) whose
/// coherent answers still differ from the single-ray ones.
fn shrink(mesh: &Mesh, mut rays: Vec<Ray>, q: &RayQuery) -> Vec<Ray> {
    let mut i = 0;
    while i < rays.len() {
        let mut fewer = rays.clone();
        fewer.remove(i);
        if !fewer.is_empty() && differs(mesh, &fewer, q) {
            rays = fewer;
        } else {
            i += 1;
        }
    }
    rays
}

/// The failure message for ray `i`: the ray, both answers, and the smallest failing case.
fn report(
    mesh: &Mesh,
    what: &str,
    rays: &[Ray],
    q: &RayQuery,
    i: usize,
    got: &Option<Hit>,
    want: &Option<Hit>,
) -> String {
    let start = i / TILE * TILE;
    let tile = &rays[start..(start + TILE).min(rays.len())];
    let alone = if differs(mesh, tile, q) {
        format!(
            "its tile alone disagrees; smallest failing subset: {:?}",
            shrink(mesh, tile.to_vec(), q)
        )
    } else {
        let chunk = i / CHUNK * CHUNK;
        let chunk = &rays[chunk..(chunk + CHUNK).min(rays.len())];
        format!(
            "its tile alone agrees (the packets before it matter); its chunk of 256 alone {}",
            if differs(mesh, chunk, q) {
                "disagrees"
            } else {
                "agrees"
            }
        )
    };
    format!(
        "{what} ({:?} layout, {} triangles) {q:?}: ray {i} of {} (packet {}, lane {}) {:?}\n  \
         coherent {got:?}\n  single   {want:?}\n  tile {tile:?}\n  {alone}",
        mesh.node_layout(),
        mesh.len(),
        rays.len(),
        i / TILE,
        i % TILE,
        rays[i],
    )
}

/// Checks that every coherent answer equals the single-ray one; returns them and the number
/// of hits.
fn check(mesh: &Mesh, what: &str, rays: &[Ray], q: &RayQuery) -> (Vec<Option<Hit>>, usize) {
    let out = coherent(mesh, rays, q);
    let mut hits = 0;
    for (i, (ray, got)) in rays.iter().zip(&out).enumerate() {
        let want = mesh.closest_hit(ray, q);
        assert!(
            *got == want,
            "{}",
            report(mesh, what, rays, q, i, got, &want)
        );
        hits += usize::from(want.is_some());
    }
    (out, hits)
}

/// The mesh in both node layouts (built with the preset `RAYPICK_TEST_PRESET` names); the
/// compact one is forced, as these meshes are below the size that picks it.
fn layouts(tm: &TestMesh) -> [Mesh; 2] {
    let mut plain = tm.mesh();
    plain.set_node_layout(NodeLayout::Plain).unwrap();
    let mut compact = plain.clone();
    compact.set_node_layout(NodeLayout::Compact).unwrap();
    assert_eq!(plain.node_layout(), NodeLayout::Plain);
    assert_eq!(compact.node_layout(), NodeLayout::Compact);
    [plain, compact]
}

// ---- cameras ----

/// A pinhole camera: pixel `(sx, sy)` of the image plane at distance 1 looks along
/// `view + right * sx + up * sy` (not normalized, as a renderer would leave it).
#[derive(Clone, Copy, Debug)]
struct Camera {
    eye: Point3<f32>,
    view: Vector3<f32>,
    right: Vector3<f32>,
    up: Vector3<f32>,
}

impl Camera {
    fn look_at(eye: Point3<f32>, target: Point3<f32>) -> Self {
        let view = (target - eye).normalize();
        let helper = if view.z.abs() < 0.9 {
            Vector3::z()
        } else {
            Vector3::x()
        };
        let right = view.cross(&helper).normalize();
        let up = right.cross(&view);
        Self {
            eye,
            view,
            right,
            up,
        }
    }

    /// Looking along `sign` times axis `axis`, the image axes exactly the other two unit
    /// axes: the pixels of the centre column and row have an exact zero direction component.
    fn along_axis(eye: Point3<f32>, axis: usize, sign: f32) -> Self {
        let e = |a: usize| {
            let mut v = Vector3::zeros();
            v[a % 3] = 1.0;
            v
        };
        Self {
            eye,
            view: e(axis) * sign,
            right: e(axis + 1),
            up: e(axis + 2),
        }
    }

    fn ray(&self, sx: f32, sy: f32) -> Ray {
        Ray::new(self.eye, self.view + self.right * sx + self.up * sy)
    }

    /// A `w x h` frame in 4 x 4 tiles (16 consecutive rays per tile, as a renderer hands
    /// them over), pixel `(px, py)` at `((px - centre.0) * pitch, (py - centre.1) * pitch)`.
    fn tiles(&self, w: usize, h: usize, centre: (f32, f32), pitch: f32) -> Vec<Ray> {
        assert!(w.is_multiple_of(4) && h.is_multiple_of(4));
        let mut rays = Vec::with_capacity(w * h);
        for ty in (0..h).step_by(4) {
            for tx in (0..w).step_by(4) {
                for j in 0..4 {
                    for i in 0..4 {
                        let sx = ((tx + i) as f32 - centre.0) * pitch;
                        let sy = ((ty + j) as f32 - centre.1) * pitch;
                        rays.push(self.ray(sx, sy));
                    }
                }
            }
        }
        rays
    }

    /// [`Camera::tiles`] of an orthographic camera: parallel rays along `view` whose
    /// origins spread over the image plane through the eye, `pitch` apart.
    fn orthographic_tiles(&self, w: usize, h: usize, centre: (f32, f32), pitch: f32) -> Vec<Ray> {
        self.tiles(w, h, centre, pitch)
            .into_iter()
            .map(|r| {
                let off = r.dir - self.view;
                Ray::new(self.eye + off, self.view)
            })
            .collect()
    }

    /// [`Camera::tiles`] of a thin lens: each ray starts at a random point of the aperture
    /// (a square of half-side `aperture` around the eye, in the image plane) and passes
    /// through its pixel's point at distance `focus`, as depth of field makes them.
    fn lens_tiles(
        &self,
        (w, h): (usize, usize),
        centre: (f32, f32),
        pitch: f32,
        (aperture, focus): (f32, f32),
        rng: &mut Rng,
    ) -> Vec<Ray> {
        self.tiles(w, h, centre, pitch)
            .into_iter()
            .map(|r| {
                let target = self.eye + r.dir * focus;
                let o = self.eye
                    + self.right * rng.range(-aperture, aperture)
                    + self.up * rng.range(-aperture, aperture);
                Ray::new(o, target - o)
            })
            .collect()
    }

    /// `n` rays through random pixels of the frame `tiles(w, h, centre, pitch)` covers.
    fn random_pixels(
        &self,
        n: usize,
        (w, h): (usize, usize),
        centre: (f32, f32),
        pitch: f32,
        rng: &mut Rng,
    ) -> Vec<Ray> {
        (0..n)
            .map(|_| {
                let sx = (rng.range(0.0, w as f32) - centre.0) * pitch;
                let sy = (rng.range(0.0, h as f32) - centre.1) * pitch;
                self.ray(sx, sy)
            })
            .collect()
    }
}

/// The frame side of the camera tests: 64 pixels (256 with `RAYPICK_LONG=1`).
fn side() -> usize {
    scale(64, 256)
}

/// A named frame of tiles.
struct View {
    name: String,
    rays: Vec<Ray>,
    /// True when the frame is aimed at the mesh from outside its box: it must see some of it.
    sees_mesh: bool,
}

/// Frames around the box `b`: oblique and diagonal views (the diagonal ones have every
/// direction in one octant, so every tile runs as a packet), the six axis-aligned views
/// (tiles straddling the coordinate planes, a column and a row of exact zero components,
/// or straddling without zeros), orthographic views and thin-lens views (origins spread
/// over the packet), the oblique view with very short and very long directions, a
/// close-up, a view from inside, a grazing view and one looking away from the mesh.
fn views(b: &Aabb) -> Vec<View> {
    let n = side();
    let c = b.center();
    let r = b.half_extents().norm();
    let mid = n as f32 / 2.0;
    // The frame spans 1.2 r at the mesh's centre from `dist`.
    let pitch = |dist: f32| 2.4 * r / dist / n as f32;
    let mut out = Vec::new();
    let mut add = |name: String, rays: Vec<Ray>, sees_mesh: bool| {
        out.push(View {
            name,
            rays,
            sees_mesh,
        })
    };
    for (name, dir, dist) in [
        ("oblique", Vector3::new(0.3, -0.5, 0.8), 3.0),
        ("diagonal", Vector3::new(1.0, 1.0, 1.0), 2.5),
        ("diagonal below", Vector3::new(-0.6, 0.7, -1.0), 2.5),
    ] {
        let eye = c + dir.normalize() * (dist * r);
        let cam = Camera::look_at(eye, c);
        add(
            name.into(),
            cam.tiles(n, n, (mid, mid), pitch(dist * r)),
            true,
        );
    }
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let mut view = Vector3::zeros();
            view[axis] = sign;
            let eye = c - view * (3.0 * r);
            let cam = Camera::along_axis(eye, axis, sign);
            // Positive: the tiles of pixels 28..31 hold the zero column (pixel 30) and
            // straddle it; negative: tiles straddle the planes without exact zeros.
            let centre = if sign > 0.0 {
                (mid - 2.0, mid - 2.0)
            } else {
                (mid - 1.5, mid - 0.5)
            };
            add(
                format!("axis {axis} sign {sign}"),
                cam.tiles(n, n, centre, pitch(3.0 * r)),
                true,
            );
        }
    }
    // Parallel rays from spread origins (the packets' origin intervals).
    for (name, dir) in [
        ("orthographic", Vector3::new(0.4, 0.3, 0.85)),
        ("orthographic diagonal", Vector3::new(-1.0, 1.0, 1.0)),
    ] {
        let cam = Camera::look_at(c + dir.normalize() * (3.0 * r), c);
        add(
            name.into(),
            cam.orthographic_tiles(n, n, (mid, mid), 2.4 * r / n as f32),
            true,
        );
    }
    // Depth of field: origins over an aperture, small and large.
    let mut rng = Rng::new(4321);
    for aperture in [0.05, 0.5] {
        let cam = Camera::look_at(c + Vector3::new(0.3, -0.5, 0.8).normalize() * (3.0 * r), c);
        add(
            format!("lens {aperture}"),
            cam.lens_tiles(
                (n, n),
                (mid, mid),
                pitch(3.0 * r),
                (aperture * r, 3.0 * r),
                &mut rng,
            ),
            true,
        );
    }
    // The oblique frame with directions of other lengths (the same rays, t scaled).
    let cam = Camera::look_at(c + Vector3::new(0.3, -0.5, 0.8).normalize() * (3.0 * r), c);
    for len in [1e-4f32, 3e4] {
        let rays = cam.tiles(n, n, (mid, mid), pitch(3.0 * r));
        add(
            format!("directions x{len}"),
            rays.iter()
                .map(|ray| Ray::new(ray.origin, ray.dir * len))
                .collect(),
            true,
        );
    }
    // Close to the surface, pixels 1e-4 apart: neighbouring rays hit the same triangles.
    let eye = c + Vector3::new(0.2, 0.9, 0.4).normalize() * (1.3 * r);
    add(
        "close-up".into(),
        Camera::look_at(eye, c).tiles(n, n, (mid, mid), 1e-4),
        false,
    );
    // From inside the box, a wide view (about 110 degrees).
    let eye = c + Vector3::new(0.05, -0.03, 0.02) * r;
    let target = c + Vector3::new(1.0, 0.2, -0.3) * r;
    add(
        "inside".into(),
        Camera::look_at(eye, target).tiles(n, n, (mid, mid), 2.8 / n as f32),
        false,
    );
    // Grazing: from the side, at the height of the centre, over the mesh's horizon.
    let eye = c + Vector3::new(-1.5 * r, -0.2 * r, 0.0);
    let target = c + Vector3::new(r, 0.1 * r, -0.05 * r);
    add(
        "grazing".into(),
        Camera::look_at(eye, target).tiles(n, n, (mid, mid), 0.3 / n as f32),
        false,
    );
    // Looking away: the mesh is behind every ray.
    let eye = c + Vector3::new(0.4, 0.5, -0.7).normalize() * (2.0 * r);
    let away = eye + (eye - c);
    add(
        "away".into(),
        Camera::look_at(eye, away).tiles(n, n, (mid, mid), pitch(2.0 * r)),
        false,
    );
    out
}

/// `tm` scaled by `s` about 0, then moved by `offset`.
fn moved(tm: TestMesh, s: f32, offset: Vector3<f32>) -> TestMesh {
    TestMesh {
        name: format!("{} x{s} at {offset:?}", tm.name),
        positions: tm.positions.iter().map(|p| p * s + offset).collect(),
        triangles: tm.triangles,
    }
}

/// The meshes of the camera tests: closed (icosphere, torus, subdivided box, CAD cylinder),
/// open (heightfield), a triangle soup, architectural walls and the bunny; a sphere far from
/// the origin (coordinates of 10^4) and a tiny torus (10^-3).
fn meshes() -> Vec<TestMesh> {
    vec![
        moved(icosphere(3), 40.0, Vector3::new(2.0e4, -1.0e4, 5.0e3)),
        moved(
            torus(32, 24, 1.0, 0.4),
            1e-3,
            Vector3::new(0.0, 2e-3, -1e-3),
        ),
        icosphere(3),
        torus(48, 32, 1.0, 0.4),
        subdivided_box(16),
        cad_cylinder(96, 0.3, 2.0),
        grid(64, 0.2),
        soup(3000, 0.08, 5),
        walls(48, 9),
        bunny(),
    ]
}

// ---- the tests ----

/// Tiles of camera rays over every mesh, from every view, in both layouts.
#[test]
fn coherent_camera_tiles() {
    let q = RayQuery::default();
    for tm in meshes() {
        let views = views(&tm.bounds());
        let mut total = 0;
        let mut hits = 0;
        for mesh in layouts(&tm) {
            for v in &views {
                let what = format!("{} {}", tm.name, v.name);
                let (_, h) = check(&mesh, &what, &v.rays, &q);
                assert!(!v.sees_mesh || h > 0, "{what}: no hit");
                total += v.rays.len();
                hits += h;
            }
        }
        assert!(
            hits > total / 20,
            "{}: {hits} hits of {total} rays",
            tm.name
        );
    }
}

/// Scattered rays (random origins and directions, random pixels, rays from inside), in
/// batches of every length around the packet and chunk sizes.
#[test]
fn coherent_scattered_rays() {
    let mut rng = Rng::new(2024);
    for tm in [torus(40, 24, 1.0, 0.35), soup(2000, 0.06, 11), bunny()] {
        let b = tm.bounds();
        let n = scale(16 * 100 + 7, 16 * 4000 + 7);
        let mut rays = random_rays(&b, n, 1);
        rays.extend(camera_rays(&b, n / 2, 2));
        rays.extend(inner_rays(&b, n / 2, 3));
        let r = b.half_extents().norm();
        // Random origins and directions, each group of 16 in one octant: they run as
        // packets, spread wide (which then waste their work: the next groups run one ray
        // at a time).
        for _ in 0..n / TILE {
            let s = Vector3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
            .map(f32::signum);
            let spread = rng.range(0.01, 2.0) * r;
            let o = b.center() + rng.unit() * (2.0 * r * rng.f32());
            for _ in 0..TILE {
                let d = rng.unit().abs().component_mul(&s) + s * 0.05;
                rays.push(Ray::new(o + rng.unit() * spread, d * rng.range(0.5, 2.0)));
            }
        }
        rays.extend((0..n / 2 + 3).map(|_| {
            let o = b.center() + rng.unit() * (2.0 * r * rng.f32());
            Ray::new(o, rng.unit() * rng.range(0.01, 10.0))
        }));
        assert!(!rays.len().is_multiple_of(TILE));
        for mesh in layouts(&tm) {
            for q in [
                RayQuery::default(),
                RayQuery::new(0.1, 1.5 * r).with_cull(Cull::Back),
            ] {
                let (_, hits) = check(&mesh, &tm.name, &rays, &q);
                assert!(
                    hits > rays.len() / 20 && hits < rays.len(),
                    "{} {q:?}: {hits} hits of {}",
                    tm.name,
                    rays.len()
                );
            }
            for len in [0, 1, 2, 3, 15, 16, 17, 31, 33, 255, 256, 257, 300, 513] {
                let start = rng.below(rays.len() - len);
                check(
                    &mesh,
                    &format!("{} length {len}", tm.name),
                    &rays[start..start + len],
                    &RayQuery::default(),
                );
            }
        }
    }
}

/// Bounded, negative, empty, NaN and culled queries on tiles from outside, from inside and
/// looking away from the mesh.
#[test]
fn coherent_query_variants() {
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    for tm in [
        torus(48, 32, 1.0, 0.4),
        grid(48, 0.2),
        soup(2000, 0.06, 3),
        subdivided_box(8),
    ] {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        let n = side();
        let mid = n as f32 / 2.0;
        let d = 3.0 * r;
        let outside = Camera::look_at(c + Vector3::new(0.5, -0.4, 0.75).normalize() * d, c);
        let inside = Camera::look_at(c + Vector3::new(0.1, 0.05, -0.02), c + Vector3::x());
        let away_eye = c + Vector3::new(-0.3, 0.8, 0.4).normalize() * d;
        let away = Camera::look_at(away_eye, away_eye + (away_eye - c));
        let cams = [
            (
                "outside",
                outside.tiles(n, n, (mid, mid), 2.4 * r / d / n as f32),
            ),
            (
                "inside",
                inside.tiles(n, n, (mid - 1.0, mid), 2.5 / n as f32),
            ),
            ("away", away.tiles(n, n, (mid, mid), 2.4 * r / d / n as f32)),
        ];
        // (query, true when it must find nothing)
        let queries = [
            (RayQuery::default(), false),
            (RayQuery::new(0.0, d), false),
            (RayQuery::new(0.0, 0.5 * d), false),
            (RayQuery::new(d, inf), false),
            (RayQuery::new(0.9 * d, 1.1 * d), false),
            (RayQuery::new(0.3, 0.3), false),
            (RayQuery::new(-inf, inf), false),
            (RayQuery::new(-2.0 * d, 0.0), false),
            (RayQuery::new(-d, 0.25), false),
            (RayQuery::new(-0.5 * d, -0.1), false),
            (RayQuery::new(f32::MIN, f32::MAX), false),
            (RayQuery::new(inf, inf), false),
            (RayQuery::new(-inf, -inf), false),
            (RayQuery::new(2.0, 1.0), true),
            (RayQuery::new(d, d * (1.0 - 1e-3)), true),
            (RayQuery::new(0.0, -0.0), false),
            (RayQuery::new(nan, inf), true),
            (RayQuery::new(0.0, nan), true),
            (RayQuery::new(nan, nan), true),
            (RayQuery::new(-inf, nan), true),
            (RayQuery::new(nan, -1.0), true),
            (RayQuery::default().with_cull(Cull::Front), false),
            (RayQuery::default().with_cull(Cull::Back), false),
            (RayQuery::new(0.0, d).with_cull(Cull::Back), false),
            (RayQuery::new(d, inf).with_cull(Cull::Front), false),
            (RayQuery::new(-inf, inf).with_cull(Cull::Front), false),
            (RayQuery::new(-inf, inf).with_cull(Cull::Back), false),
            (RayQuery::new(-d, 0.0).with_cull(Cull::Back), false),
        ];
        for mesh in layouts(&tm) {
            for (cam, rays) in &cams {
                let mut found = 0;
                for (q, nothing) in &queries {
                    let what = format!("{} {cam}", tm.name);
                    let (out, hits) = check(&mesh, &what, rays, q);
                    if *nothing {
                        assert!(out.iter().all(Option::is_none), "{what} {q:?}: a hit");
                    }
                    found += hits;
                }
                assert!(found > 0, "{} {cam}: no hit with any query", tm.name);
            }
            // Hits behind the origin only: the view away finds nothing ahead, the whole
            // mesh behind.
            let (_, ahead) = check(&mesh, "away", &cams[2].1, &RayQuery::default());
            let (_, behind) = check(&mesh, "away", &cams[2].1, &RayQuery::new(-inf, 0.0));
            assert_eq!(ahead, 0, "{}: hits ahead of a view away", tm.name);
            assert!(behind > 0, "{}: no hit behind a view away", tm.name);
        }
    }
}

/// Rays that can hit nothing: NaN or infinite parts, zero directions.
fn invalid_rays(o: Point3<f32>) -> Vec<Ray> {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let d = Vector3::new(-0.3, -0.2, -1.0);
    vec![
        Ray::new(Point3::new(nan, o.y, o.z), d),
        Ray::new(o, Vector3::new(0.1, nan, -1.0)),
        Ray::new(o, Vector3::new(0.0, inf, -1.0)),
        Ray::new(o, Vector3::new(-inf, -0.2, -1.0)),
        Ray::new(Point3::new(o.x, -inf, o.z), d),
        Ray::new(o, Vector3::zeros()),
        Ray::new(o, Vector3::new(-0.0, -0.0, -0.0)),
        Ray::new(Point3::new(nan, nan, nan), Vector3::new(nan, nan, nan)),
        Ray::new(Point3::new(inf, inf, inf), Vector3::new(inf, inf, inf)),
    ]
}

/// Valid rays at the edge of what the packets take: a component that is exactly zero or
/// negative zero, subnormal, or so far below the largest that it counts as zero.
fn edge_rays(o: Point3<f32>) -> Vec<Ray> {
    vec![
        Ray::new(o, Vector3::new(-0.0, -0.2, -1.0)),
        Ray::new(o, Vector3::new(0.0, -0.2, -1.0)),
        Ray::new(o, Vector3::new(-1e-40, -0.2, -1.0)),
        Ray::new(o, Vector3::new(-0.3, -1e-39, -1.0)),
        Ray::new(o, Vector3::new(-1e-30, -1e-31, -1e30)),
        Ray::new(o, Vector3::new(-0.3, -0.2, -f32::MIN_POSITIVE)),
    ]
}

/// Invalid rays inside tiles answer `None`, and the other rays of their tiles answer as
/// they would without them.
#[test]
fn coherent_invalid_rays_in_tiles() {
    for tm in [bunny(), torus(48, 32, 1.0, 0.4), grid(48, 0.2)] {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        let n = side().max(48);
        let mid = n as f32 / 2.0;
        // Every direction in one octant: every clean tile runs as a packet.
        let eye = c + Vector3::new(0.6, 0.5, 1.0).normalize() * (2.5 * r);
        let pitch = 1.6 * r / (2.5 * r) / n as f32;
        let clean = Camera::look_at(eye, c).tiles(n, n, (mid, mid), pitch);
        let bad = invalid_rays(eye);
        let edge = edge_rays(eye);
        let tiles = clean.len() / TILE;
        // The tiles whose every ray hits the mesh (default query): the invalid rays go there.
        let probe = tm.mesh();
        let full: Vec<usize> = (0..tiles)
            .filter(|&t| {
                clean[t * TILE..(t + 1) * TILE]
                    .iter()
                    .all(|ray| probe.closest_hit(ray, &RayQuery::default()).is_some())
            })
            .collect();
        assert!(full.len() >= 22, "{}: {} full tiles", tm.name, full.len());
        let mut rays = clean.clone();
        let mut spoiled = vec![false; rays.len()];
        // One invalid ray per tile, in every lane in turn.
        for (lane, &t) in full[..16].iter().enumerate() {
            rays[t * TILE + lane] = bad[lane % bad.len()];
            spoiled[t * TILE + lane] = true;
        }
        // Half a tile invalid, a whole tile, all but one ray (which then runs on its own),
        // all but two, all but three.
        let keeps: [&[usize]; 6] = [
            &[8, 9, 10, 11, 12, 13, 14, 15],
            &[],
            &[5],
            &[3, 12],
            &[0, 15],
            &[1, 6, 11],
        ];
        for (k, keep) in keeps.iter().enumerate() {
            let t = full[16 + k];
            for lane in (0..TILE).filter(|l| !keep.contains(l)) {
                rays[t * TILE + lane] = bad[(k + lane) % bad.len()];
                spoiled[t * TILE + lane] = true;
            }
        }
        let lone = full[18] * TILE + 5;
        // Edge rays (valid) in some lanes of other tiles.
        for (k, &e) in edge.iter().enumerate() {
            rays[(tiles - 1 - k) * TILE + 5 * k % TILE] = e;
        }
        for mesh in layouts(&tm) {
            for q in [
                RayQuery::default(),
                RayQuery::new(-1.0, 3.0 * r).with_cull(Cull::Back),
            ] {
                let (out, _) = check(&mesh, &tm.name, &rays, &q);
                let (want, hits) = check(&mesh, &tm.name, &clean, &q);
                assert!(hits > clean.len() / 8, "{} {q:?}: {hits} hits", tm.name);
                for (i, ray) in rays.iter().enumerate() {
                    if spoiled[i] {
                        assert_eq!(out[i], None, "{}: invalid ray {i} {ray:?}", tm.name);
                    } else if *ray == clean[i] {
                        assert_eq!(out[i], want[i], "{}: ray {i} beside invalid ones", tm.name);
                    }
                }
                if q == RayQuery::default() {
                    // The rays beside the invalid ones hit, the lone one included.
                    for &t in &full[..22] {
                        for i in t * TILE..(t + 1) * TILE {
                            assert!(spoiled[i] || out[i].is_some(), "{}: ray {i}", tm.name);
                        }
                    }
                    assert!(out[lone].is_some(), "{}: the lone valid ray", tm.name);
                }
                // The helpers' own spoiled rays, every 7th.
                let mut spoilt = clean.clone();
                spoil_rays(&mut spoilt, 7, eye);
                let (out, _) = check(&mesh, &tm.name, &spoilt, &q);
                for (i, ray) in spoilt.iter().enumerate() {
                    let expect = if i % 7 == 0 { None } else { want[i] };
                    assert_eq!(out[i], expect, "{}: ray {i} {ray:?}", tm.name);
                }
            }
        }
        // Tiles made of invalid and edge rays only.
        let odd: Vec<Ray> = (0..4 * TILE)
            .map(|k| {
                if k % 3 == 0 {
                    edge[k % edge.len()]
                } else {
                    bad[k % bad.len()]
                }
            })
            .collect();
        for mesh in layouts(&tm) {
            check(&mesh, &tm.name, &odd, &RayQuery::default());
        }
    }
}

/// Face normals, and the faces around each vertex and each edge, of a closed mesh.
struct Topology {
    normals: Vec<Vector3<f64>>,
    vertex_faces: Vec<Vec<usize>>,
    edge_faces: HashMap<(u32, u32), Vec<usize>>,
}

impl Topology {
    fn new(m: &TestMesh) -> Self {
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
    fn enters(&self, d: Vector3<f32>, faces: &[usize]) -> bool {
        let d = Vector3::new(f64::from(d.x), f64::from(d.y), f64::from(d.z)).normalize();
        faces.iter().all(|&f| self.normals[f].dot(&d) < -0.02)
    }
}

/// The Morton code of `(u, v)` in `[-1, 1]^2`, 10 bits each: neighbours in order.
fn morton(u: f32, v: f32) -> u32 {
    let q = |x: f32| ((x.clamp(-1.0, 1.0) + 1.0) * 511.5) as u32;
    let (a, b) = (q(u), q(v));
    (0..10).fold(0, |m, i| {
        m | (((a >> i) & 1) << (2 * i)) | (((b >> i) & 1) << (2 * i + 1))
    })
}

/// Rays from `eye` through every vertex and edge midpoint of `m` they strictly enter there,
/// in screen-space Morton order (so that a tile holds neighbouring targets), each with
/// `dir = target - eye` (exact on a dyadic mesh seen from a dyadic eye: the ray passes
/// exactly through its target at `t = 1`).
fn feature_rays(m: &TestMesh, topo: &Topology, eye: Point3<f32>) -> Vec<Ray> {
    let mut targets: Vec<(Point3<f32>, Vec<usize>)> = (0..m.positions.len())
        .map(|v| (m.positions[v], topo.vertex_faces[v].clone()))
        .collect();
    let mut edges: Vec<_> = topo.edge_faces.iter().collect();
    edges.sort_by_key(|(e, _)| **e);
    for (&(i, j), faces) in edges {
        let (p, q) = (m.positions[i as usize], m.positions[j as usize]);
        targets.push((Point3::from((p.coords + q.coords) * 0.5), faces.clone()));
    }
    let cam = Camera::look_at(eye, m.bounds().center());
    let mut keyed: Vec<(u32, Ray)> = targets
        .into_iter()
        .filter(|(x, faces)| topo.enters(x - eye, faces))
        .map(|(x, _)| {
            let d = x - eye;
            let z = d.dot(&cam.view);
            let key = morton(d.dot(&cam.right) / z, d.dot(&cam.up) / z);
            (key, Ray::new(eye, d))
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, r)| r).collect()
}

/// Tiles of rays aimed exactly at the shared vertices and edge midpoints of closed meshes:
/// the coherent answers are the single-ray ones, and every ray hits (at its target on a
/// convex mesh, at or before it on the torus).
#[test]
fn coherent_watertight_tiles() {
    let mut exact = 0;
    for (tm, convex) in [
        (subdivided_box(16), true),
        (icosphere(3), true),
        (bipyramid(64), true),
        (uv_sphere(24, 48, 0.0), true),
        (torus(48, 32, 1.0, 0.4), false),
    ] {
        let topo = Topology::new(&tm);
        // Dyadic eyes, off-axis (one octant, packets) and on an axis or a plane (tiles
        // straddling it, rays in it).
        let eyes = [
            Point3::new(3.0, 2.5, 4.0),
            Point3::new(-4.0, 1.5, 2.25),
            Point3::new(0.5, -3.0, -2.5),
            Point3::new(0.0, 0.0, 5.0),
            Point3::new(4.5, 0.0, 0.0),
            Point3::new(0.0, -3.5, 1.75),
        ];
        for mesh in layouts(&tm) {
            for &eye in &eyes {
                let rays = feature_rays(&tm, &topo, eye);
                assert!(rays.len() > 2 * TILE, "{}: {} rays", tm.name, rays.len());
                let what = format!("{} features from {eye:?}", tm.name);
                let (out, hits) = check(&mesh, &what, &rays, &RayQuery::default());
                assert_eq!(hits, rays.len(), "{what}: a ray leaked");
                for (ray, h) in rays.iter().zip(&out) {
                    let h = h.unwrap();
                    if convex {
                        assert!((h.t - 1.0).abs() <= 1e-4, "{what}: {ray:?} hit at {}", h.t);
                    } else {
                        assert!(h.t <= 1.0 + 1e-4, "{what}: {ray:?} hit past at {}", h.t);
                    }
                    exact += usize::from(h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0);
                }
                // Culled from behind: the same rays find the far side (or nothing).
                let back = RayQuery::default().with_cull(Cull::Front);
                check(&mesh, &what, &rays, &back);
            }
        }
    }
    assert!(
        exact > 0,
        "no ray passed exactly through an edge or a vertex"
    );
}

/// The two node layouts: each answers the single-ray answers, and they answer alike.
#[test]
fn coherent_layouts_agree() {
    for tm in [bunny(), noisy_grid(64, 4.0, 7), walls(64, 3), icosphere(4)] {
        let [plain, compact] = layouts(&tm);
        for v in views(&tm.bounds()) {
            for q in [
                RayQuery::default(),
                RayQuery::new(-0.5, 2.0).with_cull(Cull::Back),
            ] {
                let what = format!("{} {}", tm.name, v.name);
                let (p, _) = check(&plain, &what, &v.rays, &q);
                let (c, _) = check(&compact, &what, &v.rays, &q);
                for (i, (a, b)) in p.iter().zip(&c).enumerate() {
                    assert_eq!(
                        a, b,
                        "{what} {q:?}: ray {i} {:?}: plain vs compact",
                        v.rays[i]
                    );
                }
            }
        }
    }
}

/// A batch of thousands of rays, run in parallel chunks of 256, where groups of scattered
/// rays (random pixels of the same view: one octant, so they run as packets that waste
/// their work) interrupt the tiles at various places of a chunk: the packets after a
/// wasteful one run one ray at a time for a while, then as packets again.
#[test]
fn coherent_large_batch_switches_modes() {
    let mut rng = Rng::new(77);
    for tm in [grid(scale(160, 512), 0.3), bunny()] {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        // From above and aside, directions in one octant; the frame covers the mesh.
        let eye = c + Vector3::new(-1.7, -1.4, 1.5).normalize() * (2.5 * r);
        let cam = Camera::look_at(eye, c);
        let n = scale(64, 256);
        let mid = n as f32 / 2.0;
        let pitch = 1.6 * r / (2.5 * r) / n as f32;
        let frame = cam.tiles(n, n, (mid, mid), pitch);
        let mut tiles = frame.chunks(TILE).cycle();
        let mut scattered = |k: usize| -> Vec<Ray> {
            if k % 5 == 4 {
                // Directions of every sign: these run one ray at a time.
                random_rays(&b, TILE, rng.next_u64())
            } else {
                cam.random_pixels(TILE, (n, n), (mid, mid), pitch, &mut rng)
            }
        };
        let mut rays: Vec<Ray> = Vec::new();
        let chunks = scale(20, 200);
        let mut k = 0;
        for chunk in 0..chunks {
            // Which packets of the chunk are scattered.
            let pattern: &[usize] = match chunk % 5 {
                0 => &[],
                1 => &[2, 3],
                2 => &[15],
                3 => &[0, 9],
                _ => &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            };
            for p in 0..CHUNK / TILE {
                if pattern.contains(&p) {
                    rays.extend(scattered(k));
                    k += 1;
                } else {
                    rays.extend_from_slice(tiles.next().unwrap());
                }
            }
        }
        // A last chunk whose length is not a multiple of 16, scattered then coherent.
        rays.extend(scattered(k));
        rays.extend(tiles.next().unwrap());
        rays.extend(&frame[..9]);
        assert!(
            rays.len() > 4000 && rays.len() % TILE == 9,
            "{}",
            rays.len()
        );
        for mesh in layouts(&tm) {
            for q in [
                RayQuery::default(),
                RayQuery::new(0.5, 3.0 * r).with_cull(Cull::Back),
            ] {
                let (whole, hits) = check(&mesh, &tm.name, &rays, &q);
                assert!(
                    hits > rays.len() / 10,
                    "{} {q:?}: {hits} hits of {}",
                    tm.name,
                    rays.len()
                );
                // The batch's answers do not depend on how it is cut into calls.
                let mut cut = vec![sentinel(); rays.len()];
                let at = 3 * CHUNK + 7;
                mesh.closest_hit_coherent(&rays[..at], &q, &mut cut[..at])
                    .unwrap();
                mesh.closest_hit_coherent(&rays[at..], &q, &mut cut[at..])
                    .unwrap();
                assert!(whole == cut, "{} {q:?}: cut batch", tm.name);
            }
        }
    }
}

/// Exact ties (the lowest triangle index wins), degenerate triangles, and meshes of no,
/// one and two triangles.
#[test]
fn coherent_ties_and_tiny_meshes() {
    let n = side();
    let mid = n as f32 / 2.0;
    let shoot = |tm: &TestMesh, what: &str| -> Vec<(Mesh, Vec<Option<Hit>>, Vec<Ray>)> {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm().max(0.5);
        let mut results = Vec::new();
        for mesh in layouts(tm) {
            let mut rays = Vec::new();
            for eye in [
                c + Vector3::new(0.25, 0.5, 2.0) * r,
                c + Vector3::new(-0.5, 0.25, 1.5) * r,
                c + Vector3::new(0.0, 0.0, 2.0) * r,
                c + Vector3::new(0.5, -0.75, -1.5) * r,
            ] {
                let cam = Camera::look_at(eye, c);
                rays.extend(cam.tiles(n, n, (mid, mid), 2.0 * r / (eye - c).norm() / n as f32));
            }
            for q in [
                RayQuery::default(),
                RayQuery::default().with_cull(Cull::Back),
            ] {
                let (out, _) = check(&mesh, what, &rays, &q);
                if q.cull == Cull::None {
                    results.push((mesh.clone(), out, rays.clone()));
                }
            }
        }
        results
    };

    // No triangles: every ray misses.
    let empty = TestMesh {
        name: "empty".into(),
        positions: vec![Point3::origin()],
        triangles: Vec::new(),
    };
    for (_, out, _) in shoot(&empty, "empty") {
        assert!(out.iter().all(Option::is_none));
    }

    // One and two triangles (a root with one or two leaves).
    let one = TestMesh {
        name: "one".into(),
        positions: vec![
            Point3::new(-1.0, -1.0, 0.0),
            Point3::new(1.0, -1.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        ],
        triangles: vec![[0, 1, 2]],
    };
    let mut two = one.clone();
    two.name = "two".into();
    two.positions.push(Point3::new(0.0, 1.0, 1.0));
    two.triangles.push([1, 3, 2]);
    for tm in [&one, &two] {
        for (_, out, _) in shoot(tm, &tm.name) {
            assert!(out.iter().any(Option::is_some), "{}: no hit", tm.name);
        }
    }

    // Three copies of the same surface (the second with its corners in another order) and
    // a coplanar plate triangulated another way: ties at equal t everywhere. The third copy,
    // the first's exact duplicate, never wins (the first has the same t, a lower index).
    let base = grid(12, 0.0);
    let k = base.triangles.len() as u32;
    let mut stack = base.clone();
    stack.name = "ties".into();
    stack
        .triangles
        .extend(base.triangles.iter().map(|t| [t[0], t[2], t[1]]));
    stack.triangles.extend(base.triangles.iter().copied());
    let plate = stack.positions.len() as u32;
    stack.positions.extend([
        Point3::new(-1.0, -1.0, 0.0),
        Point3::new(1.0, -1.0, 0.0),
        Point3::new(1.0, 1.0, 0.0),
        Point3::new(-1.0, 1.0, 0.0),
    ]);
    stack.triangles.extend([
        [plate, plate + 1, plate + 3],
        [plate + 1, plate + 2, plate + 3],
    ]);
    for (_, out, _) in shoot(&stack, "ties") {
        let hits: Vec<&Hit> = out.iter().flatten().collect();
        assert!(!hits.is_empty(), "ties: no hit");
        for h in hits {
            assert!(!(2 * k..3 * k).contains(&h.triangle), "ties: {h:?}");
        }
    }

    // Degenerate triangles (repeated corners, collinear corners) among good ones.
    let mut degenerate = grid(16, 0.2);
    degenerate.name = "degenerate".into();
    let extra = degenerate.positions.len() as u32;
    degenerate.positions.extend([
        Point3::new(-0.5, -0.5, 0.1),
        Point3::new(0.0, 0.0, 0.1),
        Point3::new(0.5, 0.5, 0.1),
    ]);
    for i in (0..degenerate.triangles.len()).step_by(5) {
        let t = degenerate.triangles[i];
        degenerate.triangles[i] = [t[0], t[0], t[1]];
    }
    let collinear = degenerate.triangles.len() as u32;
    degenerate.triangles.push([extra, extra + 1, extra + 2]);
    degenerate.triangles.push([extra + 2, extra, extra + 1]);
    for (mesh, out, rays) in shoot(&degenerate, "degenerate") {
        assert!(out.iter().any(Option::is_some), "degenerate: no hit");
        // No hit on a degenerate triangle.
        for (h, r) in out.iter().zip(&rays) {
            let Some(h) = h else { continue };
            let t = degenerate.triangles[h.triangle as usize];
            assert!(
                t[0] != t[1] && t[1] != t[2] && t[0] != t[2] && h.triangle < collinear,
                "degenerate: {r:?} {h:?} ({:?})",
                mesh.node_layout()
            );
        }
    }
}

/// `out` of another length than `rays`: an error, and `out` untouched.
#[test]
fn coherent_length_mismatch() {
    let tm = icosphere(2);
    let b = tm.bounds();
    let rays = camera_rays(&b, 100, 5);
    for mesh in layouts(&tm) {
        for (inputs, outputs) in [(100, 99), (100, 101), (100, 0), (0, 3), (17, 16), (16, 17)] {
            let mut out: Vec<Option<Hit>> = (0..outputs)
                .map(|i| if i % 2 == 0 { sentinel() } else { None })
                .collect();
            let before = out.clone();
            assert_eq!(
                mesh.closest_hit_coherent(&rays[..inputs], &RayQuery::default(), &mut out),
                Err(MeshError::BatchLengthMismatch { inputs, outputs })
            );
            assert!(
                out == before,
                "{inputs} rays, {outputs} slots: out was written"
            );
        }
        // Equal lengths, empty included, succeed.
        assert_eq!(
            mesh.closest_hit_coherent(&[], &RayQuery::default(), &mut []),
            Ok(())
        );
        let mut out = vec![sentinel(); 100];
        assert_eq!(
            mesh.closest_hit_coherent(&rays, &RayQuery::default(), &mut out),
            Ok(())
        );
        assert!(out.iter().all(|h| *h != sentinel()));
    }
}

/// The tests above run on the fastest SIMD path, chosen once per process; this one reruns
/// them in child processes capped at SSE and at the scalar path (`RAYPICK_SIMD`): the packet
/// traversal's node and member tests and the triangle kernels on every path.
#[test]
fn coherent_on_every_simd_path() {
    rerun_on_every_simd_path("coherent_", "coherent_on_every_simd_path", 10);
}

/// The tests above build with the default preset; this one reruns them with `fast`,
/// `high_quality` and `morton` (`RAYPICK_TEST_PRESET`): other tree shapes under the packets.
#[test]
fn coherent_on_every_preset() {
    rerun_on_every_preset("coherent_", "coherent_on_every_preset", 10);
}
