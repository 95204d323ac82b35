//! Picking, CAD snapping and marquee selection: hand-computed cases and brute-force oracles.

mod scene_util;

use nalgebra::{Isometry3, Matrix4, Vector3 as V3};
use parry3d::shape::SharedShape;
use rand::Rng;
use raypick_primitives::{Point3, Real, Vector3};
use raypick_query::camera::{Camera, ClipConvention, Projection, ScreenRect, Viewport};
use raypick_query::scene::{PickOptions, Scene, SelectMode, SelectOptions, VisibleSampling};
use raypick_query::Mesh;
use scene_util::*;

/// A quad [-1, 1]^2 at z = `z` (two triangles, vertices 0..4 counter-clockwise from +z).
fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32) -> (Vec<Point3<Real>>, Vec<[u32; 3]>) {
    (
        vec![
            Point3::new(x0, y0, z),
            Point3::new(x1, y0, z),
            Point3::new(x1, y1, z),
            Point3::new(x0, y1, z),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
}

/// Eye at z = 5 looking down -z, fov 90, 100 x 100 pixels: at depth d one world unit is
/// 50 / d pixels, and (x, y, 0) lands on pixel (50 + 10 x, 50 - 10 y).
fn front_camera() -> (Camera, Viewport) {
    let cam = Camera::look_at(
        Point3::new(0.0, 0.0, 5.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(std::f32::consts::FRAC_PI_2, 1.0, 1.0, 100.0),
        ClipConvention::ZERO_TO_ONE,
    )
    .unwrap();
    (cam, Viewport::new(100.0, 100.0))
}

#[test]
fn pick_hits_and_snaps_by_hand() {
    let (cam, vp) = front_camera();
    let mut scene = Scene::new();
    let (p, t) = quad(-1.0, -1.0, 1.0, 1.0, 0.0);
    // A plain `add_mesh`: the scene recovers the vertex indices snapping needs.
    let m = scene.add_mesh(Mesh::new(p, t).unwrap());
    let id = scene.add_instance(m, &Matrix4::identity()).unwrap();
    scene.update();

    // The centre: a hit at distance 4 from the near plane, no snapping asked.
    let pick = scene
        .pick(&cam, &vp, 50.0, 50.0, &PickOptions::default())
        .unwrap()
        .unwrap();
    let hit = pick.hit.unwrap();
    assert_eq!(hit.instance, id);
    assert!((hit.t - 4.0).abs() < 1e-5);
    assert!(pick.vertex.is_none() && pick.edge.is_none());

    // Beside the top right corner (1, 1) at pixel (60, 40): no hit, but the corner is 3.6 px
    // away and the right edge (x = 1, vertices 1 and 2) 2 px away.
    let pick = scene
        .pick(
            &cam,
            &vp,
            62.0,
            43.0,
            &PickOptions::new().with_snap_radius(5.0),
        )
        .unwrap()
        .unwrap();
    assert!(pick.hit.is_none());
    let v = pick.vertex.unwrap();
    assert_eq!((v.instance, v.vertex), (id, 2));
    assert!((v.distance_px - 13f32.sqrt()).abs() < 1e-3);
    assert!((v.point - Point3::new(1.0, 1.0, 0.0)).norm() < 1e-6);
    let e = pick.edge.unwrap();
    assert_eq!(e.vertices, [1, 2]);
    assert!((e.distance_px - 2.0).abs() < 1e-3);
    assert!(
        (e.point - Point3::new(1.0, 0.7, 0.0)).norm() < 1e-4,
        "{:?}",
        e.point
    );

    // A radius too small for either: nothing at all.
    assert!(scene
        .pick(
            &cam,
            &vp,
            62.0,
            43.0,
            &PickOptions::new().with_snap_radius(1.5)
        )
        .unwrap()
        .is_none());

    // An occluder at z = 2 hides the corner; its own vertices are > 5 px away, its bottom
    // edge (y = 0.2 at depth 3: pixel y 46.7) is 3.7 px away and its diagonal (vertices 0
    // and 2, the screen line through (53.3, 46.7) with slope -1) 5 / sqrt(2) = 3.54 px.
    let (p, t) = quad(0.2, 0.2, 3.0, 3.0, 2.0);
    let m2 = scene.add_mesh_with_source(p, t).unwrap();
    let occ = scene.add_instance(m2, &Matrix4::identity()).unwrap();
    scene.update();
    let pick = scene
        .pick(
            &cam,
            &vp,
            62.0,
            43.0,
            &PickOptions::new().with_snap_radius(5.0),
        )
        .unwrap()
        .unwrap();
    assert_eq!(pick.hit.unwrap().instance, occ);
    assert!(pick.vertex.is_none(), "{:?}", pick.vertex);
    let e = pick.edge.unwrap();
    assert_eq!((e.instance, e.vertices), (occ, [0, 2]));
    assert!((e.distance_px - 5.0 / 2f32.sqrt()).abs() < 1e-3, "{e:?}");
    let through = PickOptions::new()
        .with_snap_radius(5.0)
        .with_snap_occluded(true);
    let pick = scene
        .pick(&cam, &vp, 62.0, 43.0, &through)
        .unwrap()
        .unwrap();
    assert_eq!(pick.vertex.unwrap().instance, id);
    // Layer mask: hide the occluder's layer and the corner is visible again.
    scene.set_mask(occ, 2).unwrap();
    let masked = PickOptions::new()
        .with_snap_radius(5.0)
        .with_query(raypick_query::scene::SceneQuery::default().with_mask(1));
    let pick = scene.pick(&cam, &vp, 62.0, 43.0, &masked).unwrap().unwrap();
    assert!(pick.hit.is_none());
    assert_eq!(pick.vertex.unwrap().vertex, 2);
}

fn outside_camera(r: &mut rand_pcg::Pcg64, conv: ClipConvention) -> Camera {
    let dir = V3::new(
        r.gen_range(-1.0..1.0),
        r.gen_range(-1.0..1.0),
        r.gen_range(-1.0..1.0f32),
    )
    .normalize();
    let eye = Point3::from(dir * 40.0);
    let up = if dir.y.abs() > 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    Camera::look_at(
        eye,
        Point3::new(
            r.gen_range(-2.0..2.0),
            r.gen_range(-2.0..2.0),
            r.gen_range(-2.0..2.0),
        ),
        up,
        Projection::perspective(r.gen_range(0.5..1.2), 4.0 / 3.0, 0.5, 200.0),
        conv,
    )
    .unwrap()
}

/// With hidden features allowed, the snapped vertex is the brute-force nearest projected
/// vertex of all instances within the radius.
#[test]
fn snap_matches_brute_force() {
    let mut w = random_world(11, 16, 0);
    w.scene.update();
    let vp = Viewport::new(640.0, 480.0);
    let mut r = rng(12);
    let mut found = 0;
    for i in 0..scale(150) {
        let conv = if i % 2 == 0 {
            ClipConvention::OPENGL
        } else {
            ClipConvention::VULKAN.reversed_z()
        };
        let cam = outside_camera(&mut r, conv);
        let radius = r.gen_range(3.0..25.0f32);
        // Half the cursors near a projected vertex, half anywhere.
        let (mut x, mut y) = (r.gen_range(0.0..640.0f32), r.gen_range(0.0..480.0f32));
        if i % 2 == 0 {
            if let OracleGeom::Mesh { tris, .. } = &w.objects[r.gen_range(0..w.objects.len())].geom
            {
                let v = tris[r.gen_range(0..tris.len())][r.gen_range(0..3)];
                if let Some((sx, sy, _)) = cam.project_f64(&v, &vp) {
                    x = sx as f32 + r.gen_range(-1.5..1.5) * radius;
                    y = sy as f32 + r.gen_range(-1.5..1.5) * radius;
                }
            }
        }
        // The cursor stays in the viewport: outside it, `pick` refuses the input.
        let (x, y) = (x.clamp(0.0, 640.0), y.clamp(0.0, 480.0));
        let opts = PickOptions::new()
            .with_snap_radius(radius)
            .with_snap_occluded(true);
        let pick = w
            .scene
            .pick(&cam, &vp, x, y, &opts)
            .expect("a cursor in the viewport");
        let mut best: Option<f64> = None;
        for obj in &w.objects {
            let OracleGeom::Mesh { tris, .. } = &obj.geom else {
                continue;
            };
            for tri in tris {
                for v in tri {
                    if let Some((sx, sy, _)) = cam.project_f64(v, &vp) {
                        let d = (sx - f64::from(x)).hypot(sy - f64::from(y));
                        if d <= f64::from(radius) && best.is_none_or(|b| d < b) {
                            best = Some(d);
                        }
                    }
                }
            }
        }
        let ours = pick
            .and_then(|p| p.vertex)
            .map(|v| f64::from(v.distance_px));
        match (ours, best) {
            (Some(a), Some(b)) => {
                assert!((a - b).abs() < 1e-3, "snap {a} vs brute force {b}");
                found += 1;
            }
            (None, None) => {}
            (a, b) => {
                // Only at the radius boundary.
                let d = a.or(b).unwrap();
                assert!(
                    (d - f64::from(radius)).abs() < 1e-3,
                    "snap {a:?} vs brute force {b:?}"
                );
            }
        }
    }
    assert!(found > 20, "only {found} snaps");
}

/// Marquee selection against f64 per-triangle frustum tests, with a small band around the
/// planes where either answer is right.
#[test]
fn marquee_matches_brute_force() {
    let mut w = random_world(21, 20, 3);
    w.scene.update();
    let vp = Viewport::new(800.0, 600.0);
    let mut r = rng(22);
    let mut selected = [0usize; 2];
    for i in 0..scale(60) {
        let conv = [
            ClipConvention::OPENGL,
            ClipConvention::ZERO_TO_ONE.reversed_z(),
            ClipConvention::VULKAN,
        ][i % 3];
        let cam = outside_camera(&mut r, conv);
        let a = [r.gen_range(0.0..800.0f32), r.gen_range(0.0..600.0f32)];
        let b = [r.gen_range(0.0..800.0f32), r.gen_range(0.0..600.0f32)];
        let rect = ScreenRect::new(a, b);
        if !rect.is_valid() {
            continue;
        }
        let planes: Vec<(V3<f64>, f64)> = cam
            .rect_planes(&rect, &vp)
            .unwrap()
            .iter()
            .map(|(n, d)| (n / n.norm(), d / n.norm()))
            .collect();
        // The frustum kernels work in f32 and lean to "intersecting" within a few ulps of
        // the frustum's corners (up to 200 units away here): a band of 2e-3 world units.
        let eps = 2e-3;
        let dist = |p: &P| {
            planes
                .iter()
                .map(|(n, d)| n.dot(&p.coords) + d)
                .fold(f64::INFINITY, f64::min)
        };
        // Clip a triangle by the planes offset by `off` (inside where n.p + d >= off).
        let meets = |tri: &[P; 3], off: f64| {
            let mut poly: Vec<P> = tri.to_vec();
            for (n, d) in &planes {
                let mut next = Vec::new();
                for k in 0..poly.len() {
                    let (p, q) = (poly[k], poly[(k + 1) % poly.len()]);
                    let (dp, dq) = (n.dot(&p.coords) + d - off, n.dot(&q.coords) + d - off);
                    if dp >= 0.0 {
                        next.push(p);
                    }
                    if (dp >= 0.0) != (dq >= 0.0) {
                        next.push(p + (q - p) * (dp / (dp - dq)));
                    }
                }
                poly = next;
                if poly.is_empty() {
                    return false;
                }
            }
            true
        };
        for (mi, mode) in [SelectMode::Inside, SelectMode::Intersecting]
            .into_iter()
            .enumerate()
        {
            let opts = SelectOptions {
                mode,
                triangles: true,
                ..SelectOptions::default()
            };
            let sel = w.scene.select_rect(&cam, &vp, &rect, &opts);
            selected[mi] += sel.instances.len();
            for obj in &w.objects {
                let OracleGeom::Mesh { tris, .. } = &obj.geom else {
                    continue;
                };
                let ours_whole = sel.instances.contains(&obj.id);
                let ours_tris: Vec<u32> = sel
                    .triangles
                    .iter()
                    .find(|s| s.instance == obj.id)
                    .map(|s| s.triangles.clone())
                    .unwrap_or_default();
                let (mut all_strict, mut all_loose, mut any_strict, mut any_loose) =
                    (true, true, false, false);
                for (t, tri) in tris.iter().enumerate() {
                    let (strict, loose) = match mode {
                        SelectMode::Inside => {
                            let m = tri.iter().map(&dist).fold(f64::INFINITY, f64::min);
                            (m >= eps, m >= -eps)
                        }
                        SelectMode::Intersecting => (meets(tri, eps), meets(tri, -eps)),
                    };
                    let ours = ours_tris.binary_search(&(t as u32)).is_ok();
                    assert!(
                        !strict || ours,
                        "{mode:?}: triangle {t} of {:?} missed",
                        obj.id
                    );
                    if ours && !loose {
                        let gap = (0..40)
                            .map(|k| 1e-4 * 1.5f64.powi(k))
                            .find(|&g| match mode {
                                SelectMode::Inside => {
                                    tri.iter().map(&dist).fold(f64::INFINITY, f64::min) >= -g
                                }
                                SelectMode::Intersecting => meets(tri, -g),
                            });
                        panic!(
                            "{mode:?}: triangle {t} of {:?} wrongly selected (gap {gap:?}) {tri:?}",
                            obj.id
                        );
                    }
                    all_strict &= strict;
                    all_loose &= loose;
                    any_strict |= strict;
                    any_loose |= loose;
                }
                let (must, may) = match mode {
                    SelectMode::Inside => (all_strict, all_loose),
                    SelectMode::Intersecting => (any_strict, any_loose),
                };
                assert!(!must || ours_whole, "{mode:?}: {:?} missed", obj.id);
                assert!(
                    !ours_whole || may,
                    "{mode:?}: {:?} wrongly selected",
                    obj.id
                );
            }
        }
    }
    assert!(selected[0] > 5 && selected[1] > selected[0], "{selected:?}");
}

#[test]
fn marquee_shapes_and_visibility() {
    let (cam, vp) = front_camera();
    let mut scene = Scene::new();
    let (p, t) = quad(-1.0, -1.0, 1.0, 1.0, 0.0);
    let front = scene.add_mesh_with_source(p, t).unwrap();
    let a = scene.add_instance(front, &Matrix4::identity()).unwrap();
    // The same quad 2 units behind, entirely hidden by the first.
    let b = scene
        .add_instance(
            front,
            &Matrix4::new_translation(&Vector3::new(0.0, 0.0, -2.0)),
        )
        .unwrap();
    // A ball in view at the left, a ball out of view.
    let ball = scene
        .add_shape(
            SharedShape::ball(0.5),
            &Isometry3::translation(-3.0, 0.0, 0.0),
        )
        .unwrap();
    let far_ball = scene
        .add_shape(
            SharedShape::ball(0.5),
            &Isometry3::translation(40.0, 0.0, 0.0),
        )
        .unwrap();
    scene.update();
    let all = ScreenRect::new([0.0, 0.0], [100.0, 100.0]);
    let sel = scene.select_rect(&cam, &vp, &all, &SelectOptions::default());
    assert_eq!(sel.instances, vec![a, b, ball]);
    assert!(!sel.instances.contains(&far_ball));
    let vis = SelectOptions {
        visible_only: Some(VisibleSampling::default()),
        triangles: true,
        ..SelectOptions::default()
    };
    let sel = scene.select_rect(&cam, &vp, &all, &vis);
    assert_eq!(sel.instances, vec![a, ball]);
    assert_eq!(sel.triangles.len(), 1);
    assert_eq!(sel.triangles[0].triangles, vec![0, 1]);
    // A rectangle through the middle of the quads: they intersect it, are not inside it.
    let mid = ScreenRect::new([45.0, 45.0], [55.0, 55.0]);
    assert!(scene
        .select_rect(&cam, &vp, &mid, &SelectOptions::default())
        .instances
        .is_empty());
    let cross = SelectOptions {
        mode: SelectMode::Intersecting,
        ..SelectOptions::default()
    };
    assert_eq!(
        scene.select_rect(&cam, &vp, &mid, &cross).instances,
        vec![a, b]
    );
    // A rectangle around the ball's silhouette edge (pixel x 15..25 at depth 5): intersects
    // the ball, not inside; one beside it (x 0..10, clear of the ball): nothing.
    let edge = ScreenRect::new([18.0, 45.0], [22.0, 55.0]);
    assert_eq!(
        scene.select_rect(&cam, &vp, &edge, &cross).instances,
        vec![ball]
    );
    let beside = ScreenRect::new([0.0, 45.0], [10.0, 55.0]);
    assert!(scene
        .select_rect(&cam, &vp, &beside, &cross)
        .instances
        .is_empty());
    // Invalid rectangles select nothing.
    let empty = ScreenRect::new([10.0, 10.0], [10.0, 20.0]);
    assert_eq!(
        scene.select_rect(&cam, &vp, &empty, &cross).instances,
        vec![]
    );
}
