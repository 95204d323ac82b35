//! `Mesh::closest_hit_batch` and `Mesh::any_hit_batch` on flat batches that are a frame's
//! rays row after row, which they find (`image_rows::ray_row_width`) and cast in 4 x 4 tiles as
//! packets: every answer equals the single-ray query's, compared with `==`, for pinhole and
//! orthographic frames in row and in column order, widths that are no multiple of 4, a
//! partial last row, invalid rays inside the frame, bounded and culled queries, both node
//! layouts, and a mesh large enough to stream (where batches that are not a frame's run as
//! streams).

mod mesh_util;

use mesh_util::*;
use raypick_primitives::{Aabb, Cull, Ray, Vector3};
use raypick_query::image_rows::ray_row_width;
use raypick_query::{Mesh, RayQuery};
use raypick_test_support::scale;

/// A `w` x `h` frame of `b` seen from `dir` (pinhole from 3 radii away, or orthographic),
/// row after row, or column after column when `by_column`.
fn frame(
    b: &Aabb,
    dir: Vector3<f32>,
    w: usize,
    h: usize,
    ortho: bool,
    by_column: bool,
) -> Vec<Ray> {
    let c = b.center();
    let r = b.half_extents().norm();
    let fwd = dir.normalize();
    let right = fwd.cross(&Vector3::new(0.1, 0.2, 1.0)).normalize();
    let up = right.cross(&fwd);
    let eye = c - fwd * (3.0 * r);
    let ray = |x: usize, y: usize| {
        let sx = (x as f32 + 0.5) / w as f32 * 2.0 - 1.0;
        let sy = (y as f32 + 0.5) / h as f32 * 2.0 - 1.0;
        if ortho {
            Ray::new(eye + right * (sx * r) + up * (sy * r), fwd)
        } else {
            Ray::new(
                eye,
                fwd + right * (0.4 * sx) + up * (0.4 * sy * h as f32 / w as f32),
            )
        }
    };
    if by_column {
        (0..w)
            .flat_map(|x| (0..h).map(move |y| (x, y)))
            .map(|(x, y)| ray(x, y))
            .collect()
    } else {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| ray(x, y))
            .collect()
    }
}

/// Both batch queries against the single-ray ones on `rays`; returns the hits.
fn check(mesh: &Mesh, what: &str, rays: &[Ray], q: &RayQuery) -> usize {
    let mut closest = vec![None; rays.len()];
    mesh.closest_hit_batch(rays, q, &mut closest).unwrap();
    let mut any = vec![false; rays.len()];
    mesh.any_hit_batch(rays, q, &mut any).unwrap();
    for (i, r) in rays.iter().enumerate() {
        assert_eq!(
            closest[i],
            mesh.closest_hit(r, q),
            "{what}: closest, ray {i} {r:?}"
        );
        assert_eq!(any[i], mesh.any_hit(r, q), "{what}: any, ray {i} {r:?}");
    }
    closest.iter().filter(|h| h.is_some()).count()
}

#[test]
fn frames_in_flat_batches_give_the_single_ray_answers() {
    let (w, h) = (scale(96, 320), scale(64, 240));
    let mut frames = 0;
    for tm in [
        bunny(),
        torus(48, 32, 1.0, 0.4),
        grid(64, 0.2),
        soup(3000, 0.08, 5),
    ] {
        let b = tm.bounds();
        let r = b.half_extents().norm();
        for mesh in layouts(&tm) {
            for (dir, ortho, by_column) in [
                (Vector3::new(0.4, -0.5, -0.8), false, false),
                (Vector3::new(-0.3, 0.2, -0.9), false, true),
                (Vector3::new(0.0, 0.0, -1.0), true, false),
            ] {
                let rays = frame(&b, dir, w, h, ortho, by_column);
                let long = if by_column { h } else { w };
                assert_eq!(
                    ray_row_width(&rays),
                    Some(long),
                    "{}: the frame is found",
                    tm.name
                );
                let what = format!("{} {dir:?} ortho {ortho} by column {by_column}", tm.name);
                let hits = check(&mesh, &what, &rays, &RayQuery::default());
                assert!(
                    hits > rays.len() / 20 && hits < rays.len(),
                    "{what}: {hits} hits"
                );
                check(
                    &mesh,
                    &what,
                    &rays,
                    &RayQuery::new(0.5 * r, 3.2 * r).with_cull(Cull::Back),
                );
                frames += 1;
            }
            // A width that is no multiple of 4, a partial last row, and invalid rays in column
            // 5 of every third row (columns the look does not read, so the frame is found).
            let (w2, h2) = (w + 3, h + 1);
            let mut rays = frame(&b, Vector3::new(0.4, -0.5, -0.8), w2, h2, false, false);
            rays.truncate(rays.len() - 7);
            for y in (1..h2 - 1).step_by(3) {
                let bad = [Vector3::zeros(), Vector3::new(f32::NAN, 0.0, -1.0)];
                rays[y * w2 + 5] = Ray::new(rays[y * w2 + 5].origin, bad[y % 2]);
            }
            assert_eq!(ray_row_width(&rays), Some(w2));
            check(
                &mesh,
                &format!("{} partial", tm.name),
                &rays,
                &RayQuery::default(),
            );
            frames += 1;
        }
    }
    assert_eq!(frames, 4 * 2 * 4);
}

/// On a mesh that streams its batches (300,000 triangles or more), a frame is cast in
/// tiles and a scattered batch as a stream: both give the single-ray answers.
#[test]
fn frames_and_scattered_rays_on_a_streamed_mesh() {
    let tm = noisy_grid(scale(390, 390), 8.0, 3);
    let mesh = tm.mesh();
    assert!(mesh.len() >= 300_000, "{} triangles", mesh.len());
    let b = tm.bounds();
    let rays = frame(&b, Vector3::new(0.3, 0.4, -0.9), 80, 60, false, false);
    assert_eq!(ray_row_width(&rays), Some(80));
    assert!(check(&mesh, "frame", &rays, &RayQuery::default()) > 1000);
    let scattered = random_rays(&b, 5000, 9);
    assert_eq!(ray_row_width(&scattered), None);
    check(&mesh, "scattered", &scattered, &RayQuery::default());
}
