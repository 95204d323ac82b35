//! `Mesh::any_hit_coherent` (groups of 16 consecutive rays traversed as one packet, each ray
//! leaving it at its first hit, with the same fallback to one ray at a time as the closest
//! hits) against `Mesh::any_hit`, ray for ray: 4 x 4 tiles of camera rays from outside,
//! inside and along the coordinate axes, orthographic and thin-lens tiles, on closed, open,
//! soup and architectural meshes; bounded, negative, empty, NaN and culled queries; invalid
//! rays inside tiles; tiles where some rays hit and others pass beside the mesh; batches long
//! enough to run in parallel chunks and to switch between packets and single rays; both node
//! layouts, every SIMD path and every preset.

mod mesh_util;
mod tile_util;

use mesh_util::*;
use raypick_primitives::{Cull, Ray, Vector3};
use raypick_query::{Mesh, MeshError, RayQuery};
use tile_util::*;

/// A mesh's any-hit queries in the shape the tile helpers compare: `Some(true)` for a hit,
/// `None` for none (`Some(false)`, which no query gives, marks a slot left unwritten).
struct AnyOf<'a>(&'a Mesh);

impl Coherent<RayQuery> for AnyOf<'_> {
    type Hit = bool;
    type Error = MeshError;

    fn sentinel() -> Option<bool> {
        Some(false)
    }

    fn length_mismatch(inputs: usize, outputs: usize) -> MeshError {
        MeshError::BatchLengthMismatch { inputs, outputs }
    }

    fn coherent_into(
        &self,
        rays: &[Ray],
        q: &RayQuery,
        out: &mut [Option<bool>],
    ) -> Result<(), MeshError> {
        let mut any = vec![false; out.len()];
        self.0.any_hit_coherent(rays, q, &mut any)?;
        for (slot, hit) in out.iter_mut().zip(any) {
            *slot = hit.then_some(true);
        }
        Ok(())
    }

    fn single(&self, ray: &Ray, q: &RayQuery) -> Option<bool> {
        self.0.any_hit(ray, q).then_some(true)
    }
}

/// Checks every coherent answer against the single-ray one; returns the number of hits.
fn check(mesh: &Mesh, what: &str, rays: &[Ray], q: &RayQuery) -> usize {
    let any = AnyOf(mesh);
    let out = check_with(&any, rays, q, |i, got, want| {
        let tile = tile_of(rays, i);
        let alone = if differs(&any, tile, q) {
            format!(
                "its tile alone disagrees; smallest failing subset: {:?}",
                shrink_rays(&any, tile.to_vec(), q)
            )
        } else {
            chunk_alone(&any, rays, q, i)
        };
        format!(
            "{what} ({:?} layout, {} triangles) {q:?}: ray {i} of {} {:?}\n  coherent \
             {got:?}\n  single   {want:?}\n  {alone}",
            mesh.node_layout(),
            mesh.len(),
            rays.len(),
            rays[i],
        )
    });
    out.iter().filter(|h| h.is_some()).count()
}

fn side() -> usize {
    scale(48, 192)
}

/// Tiles of camera rays from every view around each mesh, in both layouts. Frames cover
/// the mesh and the space beside it, so tiles along its outline hold rays that hit and rays
/// that do not.
#[test]
fn any_coherent_camera_tiles() {
    let q = RayQuery::default();
    for tm in [
        icosphere(3),
        torus(48, 32, 1.0, 0.4),
        subdivided_box(12),
        cad_cylinder(96, 0.3, 2.0),
        grid(64, 0.2),
        soup(3000, 0.08, 5),
        walls(48, 9),
        bunny(),
    ] {
        let b = tm.bounds();
        let mut views = Views::new(&b, side());
        views.around();
        views.orthographic("orthographic", Vector3::new(0.4, 0.3, 0.85));
        views.scaled_directions([1e-4, 3e4]);
        views.close_inside_grazing_away();
        let (mut total, mut hits) = (0, 0);
        for mesh in layouts(&tm) {
            for v in &views.out {
                let what = format!("{} {}", tm.name, v.name);
                let h = check(&mesh, &what, &v.rays, &q);
                assert!(!v.sees || h > 0, "{what}: no hit");
                total += v.rays.len();
                hits += h;
            }
        }
        assert!(
            hits > total / 20 && hits < total,
            "{}: {hits} hits of {total} rays",
            tm.name
        );
    }
}

/// Bounded, negative, empty, NaN and culled intervals, from outside, inside and looking
/// away.
#[test]
fn any_coherent_query_variants() {
    let inf = f32::INFINITY;
    for tm in [torus(48, 32, 1.0, 0.4), grid(48, 0.2), soup(2000, 0.06, 3)] {
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
                    let h = check(&mesh, &what, rays, q);
                    assert!(!nothing || h == 0, "{what} {q:?}: {h} hits");
                    found += h;
                }
                assert!(found > 0, "{} {cam}: no hit with any query", tm.name);
            }
            let ahead = check(&mesh, "away", &cams[2].1, &RayQuery::default());
            let behind = check(&mesh, "away", &cams[2].1, &RayQuery::new(-inf, 0.0));
            assert_eq!(ahead, 0, "{}: hits ahead of a view away", tm.name);
            assert!(behind > 0, "{}: no hit behind a view away", tm.name);
        }
    }
}

/// Invalid rays inside tiles answer no hit, and the other rays of their tiles answer as
/// they would without them.
#[test]
fn any_coherent_invalid_rays_in_tiles() {
    for tm in [bunny(), torus(48, 32, 1.0, 0.4)] {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        let n = side();
        let mid = n as f32 / 2.0;
        let eye = c + Vector3::new(0.6, 0.5, 1.0).normalize() * (2.5 * r);
        let pitch = 1.6 * r / (2.5 * r) / n as f32;
        let clean = Camera::look_at(eye, c).tiles(n, (mid, mid), pitch);
        let probe = tm.mesh();
        let full = full_tiles(&clean, |ray| probe.any_hit(ray, &RayQuery::default()));
        assert!(full.len() >= 16, "{}: {} full tiles", tm.name, full.len());
        let spoiled = Spoiled::new(&clean, &full, eye);
        for mesh in layouts(&tm) {
            let any = AnyOf(&mesh);
            let q = RayQuery::default();
            check(&mesh, &tm.name, &spoiled.rays, &q);
            let out = coherent(&any, &spoiled.rays, &q);
            let want = coherent(&any, &clean, &q);
            spoiled.check_answers(&tm.name, &clean, &out, &want);
            spoiled.check_valid_hit(&tm.name, &full, &out);
            check(&mesh, &tm.name, &odd_tiles(eye), &q);
        }
    }
}

/// A batch of tiles interrupted by scattered groups (random pixels, and rays in every
/// direction), long enough for several parallel chunks and for the packets to give way to
/// single rays and come back; its answers do not depend on how it is cut into calls.
#[test]
fn any_coherent_large_batch_switches_modes() {
    let mut rng = Rng::new(78);
    for tm in [grid(scale(128, 512), 0.3), walls(48, 9)] {
        let b = tm.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        let eye = c + Vector3::new(-1.7, -1.4, 1.5).normalize() * (2.5 * r);
        let cam = Camera::look_at(eye, c);
        let n = scale(64, 256);
        let mid = n as f32 / 2.0;
        let pitch = 1.6 * r / (2.5 * r) / n as f32;
        let frame = cam.tiles(n, (mid, mid), pitch);
        let mut k = 0;
        let (mut rays, _) = interrupted_tiles(&frame, scale(20, 200), |_| {
            k += 1;
            if k % 5 == 4 {
                random_rays(&b, TILE, rng.next_u64())
            } else {
                cam.random_pixels(TILE, n, (mid, mid), pitch, &mut rng)
            }
        });
        rays.extend(octant_groups(&mut rng, c, r, 40, 1.0));
        rays.extend(&frame[..9]);
        assert!(rays.len() > 4000, "{}", rays.len());
        for mesh in layouts(&tm) {
            for q in [
                RayQuery::default(),
                RayQuery::new(0.5, 2.5 * r).with_cull(Cull::Back),
            ] {
                let hits = check(&mesh, &tm.name, &rays, &q);
                assert!(
                    hits > rays.len() / 10 && hits < rays.len(),
                    "{} {q:?}: {hits} hits of {}",
                    tm.name,
                    rays.len()
                );
                let any = AnyOf(&mesh);
                assert!(
                    coherent(&any, &rays, &q) == cut_in_two(&any, &rays, &q),
                    "{} {q:?}: cut batch",
                    tm.name
                );
            }
        }
    }
}

/// Empty and one-triangle meshes, and a length mismatch (an error, `out` untouched).
#[test]
fn any_coherent_tiny_meshes_and_lengths() {
    let rays = camera_rays(&icosphere(2).bounds(), 100, 5);
    for tm in [icosphere(2), one_triangle(), empty_mesh()] {
        for mesh in layouts_or_plain(&tm) {
            check(&mesh, &tm.name, &rays, &RayQuery::default());
            check_length_mismatch::<RayQuery, _>(&AnyOf(&mesh), &rays);
        }
    }
}

/// One triangle across the middle of the icosphere's box.
fn one_triangle() -> TestMesh {
    TestMesh {
        name: "one triangle".into(),
        positions: vec![
            raypick_primitives::Point3::new(-1.0, -1.0, 0.1),
            raypick_primitives::Point3::new(1.0, -0.8, -0.1),
            raypick_primitives::Point3::new(0.0, 1.0, 0.0),
        ],
        triangles: vec![[0, 1, 2]],
    }
}

fn empty_mesh() -> TestMesh {
    TestMesh {
        name: "empty".into(),
        positions: Vec::new(),
        triangles: Vec::new(),
    }
}

/// Both layouts where the mesh has a tree to lay out, else the mesh as built.
fn layouts_or_plain(tm: &TestMesh) -> Vec<Mesh> {
    if tm.triangles.is_empty() {
        vec![tm.mesh()]
    } else {
        layouts(tm).into()
    }
}

/// The tests above on the SSE and scalar paths, in child processes.
#[test]
fn any_coherent_on_every_simd_path() {
    rerun_on_every_simd_path("any_coherent_", "any_coherent_on_every_simd_path", 6);
}

/// The tests above on the `fast`, `high_quality` and `morton` presets, in child processes.
#[test]
fn any_coherent_on_every_preset() {
    rerun_on_every_preset("any_coherent_", "any_coherent_on_every_preset", 6);
}
