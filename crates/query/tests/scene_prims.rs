//! Point and segment sets as scene objects: instances under transforms (non-uniform scale
//! and a mirror among them), masks, user data, picked under the cursor with a tolerance and
//! hidden by the scene's surfaces, checked against a brute force in world space.

use std::sync::Arc;

mod prims_util;

use nalgebra::{Matrix4, Point3 as P3, Vector3 as V3};
use prims_util::VP;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::{Point3, Vector3};
use raypick_query::camera::Camera;
use raypick_query::points::{PickConfig, PickKind, PointSet, SegmentSet};
use raypick_query::scene::{PickOptions, PrimData, Scene, SceneError, SceneQuery};
use raypick_query::Mesh;

fn camera() -> Camera {
    prims_util::camera_at([0.5, 1.0, 14.0])
}

/// A quad at z = 2 over x in [-4, 0], y in [-3, 3]: it hides what lies behind it.
fn quad() -> Mesh {
    Mesh::new(
        vec![
            Point3::new(-4.0, -3.0, 2.0),
            Point3::new(0.0, -3.0, 2.0),
            Point3::new(0.0, 3.0, 2.0),
            Point3::new(-4.0, 3.0, 2.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap()
}

fn transforms() -> [Matrix4<f32>; 3] {
    [
        Matrix4::identity(),
        Matrix4::new_translation(&Vector3::new(0.5, -0.5, -1.0))
            * Matrix4::new_nonuniform_scaling(&Vector3::new(-1.5, 0.75, 1.0)),
        Matrix4::new_translation(&Vector3::new(-1.0, 1.0, 1.0))
            * Matrix4::from_axis_angle(&Vector3::z_axis(), 0.4),
    ]
}

/// Every point of every instance in world space, with its instance, index and user data.
fn world_points(pts: &[Point3<f32>]) -> Vec<(usize, u32, P3<f64>)> {
    let mut out = Vec::new();
    for (k, m) in transforms().iter().enumerate() {
        let m = m.cast::<f64>();
        for (i, p) in pts.iter().enumerate() {
            out.push((k, i as u32, m.transform_point(&p.cast())));
        }
    }
    out
}

#[test]
fn scene_point_picks_match_a_world_space_brute_force() {
    let mut rng = Pcg64::seed_from_u64(9);
    let pts: Vec<Point3<f32>> = (0..300)
        .map(|_| {
            Point3::new(
                rng.gen_range(-3.0..3.0),
                rng.gen_range(-2.5..2.5),
                rng.gen_range(-2.0..1.0),
            )
        })
        .collect();
    let set = Arc::new(PointSet::new(pts.clone()).unwrap());
    let mut scene = Scene::new();
    let m = scene.add_mesh(quad());
    scene.add_instance(m, &Matrix4::identity()).unwrap();
    let ids: Vec<_> = transforms()
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let id = scene.add_point_set(Arc::clone(&set), t).unwrap();
            scene.set_prims_user_data(id, 100 + k as u64).unwrap();
            id
        })
        .collect();
    scene.update();
    let cam = camera();
    let world = world_points(&pts);
    let q = SceneQuery::default();
    let (mut agree, mut found, mut hidden) = (0, 0, 0);
    for _ in 0..400 {
        // Half the cursors near a point's projection, half anywhere.
        let (x, y) = match cam.project_f64(&world[rng.gen_range(0..world.len())].2, &VP) {
            Some((px, py, _)) if rng.gen_bool(0.5) => {
                (px + rng.gen_range(-4.0..4.0), py + rng.gen_range(-4.0..4.0))
            }
            _ => (rng.gen_range(0.0..640.0), rng.gen_range(0.0..480.0)),
        };
        let got = scene.pick_prims(&cam, &VP, x, y, &PickConfig::default(), &q);
        // Brute force: the nearest point in depth within 5 px whose line of sight is clear.
        let mut want: Option<(f64, f64, usize, u32)> = None;
        for &(k, i, p) in &world {
            let Some((sx, sy, _)) = cam.project_f64(&p, &VP) else {
                continue;
            };
            let d = (sx - x).hypot(sy - y);
            if d > 5.0 {
                continue;
            }
            let depth = -(cam.view_matrix() * p.to_homogeneous()).z;
            let (o, _) = cam.ray_from_pixel_f64(sx, sy, &VP).unwrap();
            let to = p - o;
            let ray = raypick_primitives::Ray::new(o.cast(), (to / to.norm()).cast());
            let t_max = (to.norm() * (1.0 - 1e-5) - 1e-6) as f32;
            if scene.any_hit(&ray, &SceneQuery::new(0.0, t_max)) {
                hidden += 1;
                continue;
            }
            let c = (depth, d, k, i);
            if want.is_none_or(|w| (c.0, c.1) < (w.0, w.1)) {
                want = Some(c);
            }
        }
        match (got, want) {
            (None, None) => agree += 1,
            (Some(g), Some(w)) => {
                assert_eq!((g.id, g.pick.index), (ids[w.2], w.3), "cursor ({x}, {y})");
                assert_eq!(g.user_data, 100 + w.2 as u64);
                assert_eq!(g.pick.kind, PickKind::Point);
                let wp = world.iter().find(|e| e.0 == w.2 && e.1 == w.3).unwrap().2;
                assert!(
                    (g.pick.point - wp).norm() < 1e-5,
                    "{:?} vs {wp:?}",
                    g.pick.point
                );
                agree += 1;
                found += 1;
            }
            (g, w) => panic!("cursor ({x}, {y}): got {g:?}, want {w:?}"),
        }
    }
    println!("{agree} cursors agree, {found} picked a point, {hidden} candidates hidden");
    assert!(found > 100 && hidden > 0);
}

#[test]
fn scene_pick_reports_the_prim_before_the_surface_behind_it() {
    let mut scene = Scene::new();
    let m = scene.add_mesh(quad());
    scene.add_instance(m, &Matrix4::identity()).unwrap();
    // A segment in front of the quad (z = 3) and one behind it (z = 0), both at y = 0.
    let segs = Arc::new(
        SegmentSet::new(
            vec![
                Point3::new(-3.5, 0.0, 3.0),
                Point3::new(-0.5, 0.0, 3.0),
                Point3::new(-3.5, 1.0, 0.0),
                Point3::new(-0.5, 1.0, 0.0),
            ],
            vec![[0, 1], [2, 3]],
        )
        .unwrap(),
    );
    let id = scene
        .add_segment_set(Arc::clone(&segs), &Matrix4::identity())
        .unwrap();
    scene.update();
    let cam = camera();
    // The pixel of the front segment's middle.
    let (sx, sy, _) = cam.project_f64(&P3::new(-2.0, 0.0, 3.0), &VP).unwrap();
    let pick = scene
        .pick(&cam, &VP, sx as f32, sy as f32, &PickOptions::new())
        .unwrap()
        .unwrap();
    let prim = pick.prim.expect("the segment in front");
    assert_eq!(
        (prim.id, prim.pick.kind, prim.pick.index),
        (id, PickKind::Segment, 0)
    );
    assert!((prim.pick.u - 0.5).abs() < 0.01);
    assert!(pick.hit.is_some(), "the quad behind is the surface hit");
    // The segment behind the quad is hidden, unless x-ray.
    let (bx, by, _) = cam.project_f64(&P3::new(-2.0, 1.0, 0.0), &VP).unwrap();
    let behind = scene
        .pick(&cam, &VP, bx as f32, by as f32, &PickOptions::new())
        .unwrap()
        .unwrap();
    assert!(behind.prim.is_none());
    let xray = PickOptions {
        prims: PickConfig::xray(5.0),
        ..PickOptions::new()
    };
    let seen = scene
        .pick(&cam, &VP, bx as f32, by as f32, &xray)
        .unwrap()
        .unwrap();
    assert_eq!(seen.prim.map(|p| p.pick.index), Some(1));
    // Masks, transforms, removal.
    scene.set_prims_mask(id, 2).unwrap();
    let masked = PickOptions::new().with_query(SceneQuery::default().with_mask(1));
    assert!(scene
        .pick(&cam, &VP, sx as f32, sy as f32, &masked)
        .unwrap()
        .unwrap()
        .prim
        .is_none());
    scene
        .set_prims_transform(id, &Matrix4::new_translation(&V3::new(0.0, 10.0, 0.0)))
        .unwrap();
    assert!(scene
        .pick(&cam, &VP, sx as f32, sy as f32, &PickOptions::new())
        .unwrap()
        .unwrap()
        .prim
        .is_none());
    assert!(matches!(scene.prims(id), Some((PrimData::Segments(_), _))));
    scene.remove_prims(id).unwrap();
    assert_eq!(scene.remove_prims(id), Err(SceneError::UnknownPrims(id)));
    assert!(scene.prims(id).is_none());
    // A scene with a segment set saves and loads it (crates/query/tests/persist.rs has the
    // round trips).
    let mut with = Scene::new();
    let kept = with.add_segment_set(segs, &Matrix4::identity()).unwrap();
    let back = Scene::from_bytes(&with.to_bytes().unwrap()).unwrap();
    assert!(matches!(back.prims(kept), Some((PrimData::Segments(_), _))));
}
