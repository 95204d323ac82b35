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
mod tile_util;

use mesh_util::*;
use raypick_primitives::{Aabb, Cull, Point3, Ray, Vector3};
use raypick_query::{Hit, Mesh, RayQuery};
use tile_util::*;

// ---- answers and their comparison ----

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
    let tile = tile_of(rays, i);
    let alone = if differs(mesh, tile, q) {
        format!(
            "its tile alone disagrees; smallest failing subset: {:?}",
            shrink_rays(mesh, tile.to_vec(), q)
        )
    } else {
        chunk_alone(mesh, rays, q, i)
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
    let out = check_with(mesh, rays, q, |i, got, want| {
        report(mesh, what, rays, q, i, got, want)
    });
    let hits = out.iter().filter(|h| h.is_some()).count();
    (out, hits)
}

// ---- frames and meshes ----

/// The frame side of the camera tests: 64 pixels (256 with `RAYPICK_LONG=1`).
fn side() -> usize {
    scale(64, 256)
}

/// Frames around the box `b`: oblique and diagonal views (the diagonal ones have every
/// direction in one octant, so every tile runs as a packet), the six axis-aligned views
/// (tiles straddling the coordinate planes, a column and a row of exact zero components,
/// or straddling without zeros), orthographic views and thin-lens views (origins spread
/// over the packet), the oblique view with very short and very long directions, a
/// close-up, a view from inside, a grazing view and one looking away from the mesh.
fn views(b: &Aabb) -> Vec<View> {
    let mut v = Views::new(b, side());
    v.around();
    v.orthographic("orthographic", Vector3::new(0.4, 0.3, 0.85));
    v.orthographic("orthographic diagonal", Vector3::new(-1.0, 1.0, 1.0));
    // Depth of field: origins over an aperture, small and large.
    let (c, r, n, mid) = (v.c, v.r, v.n, v.mid);
    let mut rng = Rng::new(4321);
    for aperture in [0.05, 0.5] {
        let cam = Camera::look_at(c + Vector3::new(0.3, -0.5, 0.8).normalize() * (3.0 * r), c);
        let rays = cam.lens_tiles(
            n,
            (mid, mid),
            v.pitch(3.0 * r),
            (aperture * r, 3.0 * r),
            &mut rng,
        );
        v.add(format!("lens {aperture}"), rays, true);
    }
    v.scaled_directions([1e-4, 3e4]);
    v.close_inside_grazing_away();
    v.out
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
                assert!(!v.sees || h > 0, "{what}: no hit");
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
        rays.extend(octant_groups(&mut rng, b.center(), r, n / TILE, 2.0));
        rays.extend(wild_rays(&mut rng, b.center(), r, n / 2 + 3));
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
        let d = 3.0 * r;
        let cams = outside_inside_away(c, r, d, Vector3::new(0.1, 0.05, -0.02), side());
        let queries = interval_queries(d);
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
        let clean = Camera::look_at(eye, c).tiles(n, (mid, mid), pitch);
        // The tiles whose every ray hits the mesh (default query): the invalid rays go there.
        let probe = tm.mesh();
        let full = full_tiles(&clean, |ray| {
            probe.closest_hit(ray, &RayQuery::default()).is_some()
        });
        assert!(full.len() >= 22, "{}: {} full tiles", tm.name, full.len());
        let spoiled = Spoiled::new(&clean, &full, eye);
        for mesh in layouts(&tm) {
            for q in [
                RayQuery::default(),
                RayQuery::new(-1.0, 3.0 * r).with_cull(Cull::Back),
            ] {
                let (out, _) = check(&mesh, &tm.name, &spoiled.rays, &q);
                let (want, hits) = check(&mesh, &tm.name, &clean, &q);
                assert!(hits > clean.len() / 8, "{} {q:?}: {hits} hits", tm.name);
                spoiled.check_answers(&tm.name, &clean, &out, &want);
                if q == RayQuery::default() {
                    // The rays beside the invalid ones hit, the lone one included.
                    spoiled.check_valid_hit(&tm.name, &full, &out);
                }
                // The helpers' own spoiled rays, every 7th.
                let mut spoilt = clean.clone();
                spoil_rays(&mut spoilt, 7, eye);
                let (out, _) = check(&mesh, &tm.name, &spoilt, &q);
                check_every_7th_spoiled(&tm.name, &spoilt, &out, &want);
            }
        }
        // Tiles made of invalid and edge rays only.
        let odd = odd_tiles(eye);
        for mesh in layouts(&tm) {
            check(&mesh, &tm.name, &odd, &RayQuery::default());
        }
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
        let frame = cam.tiles(n, (mid, mid), pitch);
        let mut scattered = |k: usize| -> Vec<Ray> {
            if k % 5 == 4 {
                // Directions of every sign: these run one ray at a time.
                random_rays(&b, TILE, rng.next_u64())
            } else {
                cam.random_pixels(TILE, n, (mid, mid), pitch, &mut rng)
            }
        };
        // The scattered packets, numbered by `k` in turn.
        let mut k = 0;
        let (mut rays, mut tiles) = interrupted_tiles(&frame, scale(20, 200), |_| {
            k += 1;
            scattered(k - 1)
        });
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
                let cut = cut_in_two(&mesh, &rays, &q);
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
                rays.extend(cam.tiles(n, (mid, mid), 2.0 * r / (eye - c).norm() / n as f32));
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

/// `out` of another length than `rays`: an error, and `out` untouched; equal lengths, empty
/// included, succeed.
#[test]
fn coherent_length_mismatch() {
    let tm = icosphere(2);
    let rays = camera_rays(&tm.bounds(), 100, 5);
    for mesh in layouts(&tm) {
        check_length_mismatch::<RayQuery, _>(&mesh, &rays);
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
