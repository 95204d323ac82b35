//! World-space queries over a scene's point and segment sets (within a radius of a ray,
//! nearest point, marquee) against a brute force over every primitive moved to world space
//! in f64. Instances include a mirrored non-uniform scale and a rotation; one has a mask
//! the queries leave out. Cases within rounding of a radius, a distance tie or a rectangle
//! edge are counted apart, never as agreement.

mod prims_util;

use std::sync::Arc;

use nalgebra::{Matrix4, Point3 as P3, Vector3 as V3};
use prims_util::{brute_hidden, in_rect, VP};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::ray_segment::{closest_ray_point, closest_ray_segment};
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::camera::{Camera, ScreenRect};
use raypick_query::points::{PickKind, PointSet, SegmentSet};
use raypick_query::scene::{PrimId, Scene, SceneQuery, SelectMode, SelectOptions};
use raypick_query::Mesh;

fn transforms() -> [Matrix4<f32>; 4] {
    [
        Matrix4::identity(),
        Matrix4::new_translation(&Vector3::new(0.5, -0.5, -1.0))
            * Matrix4::new_nonuniform_scaling(&Vector3::new(-1.5, 0.75, 1.0)),
        Matrix4::new_translation(&Vector3::new(-1.0, 1.0, 1.0))
            * Matrix4::from_axis_angle(&Vector3::z_axis(), 0.4),
        // Masked out of every query below.
        Matrix4::new_translation(&Vector3::new(0.0, 0.0, 0.5)),
    ]
}

/// A primitive in world space: a point, or a segment's two ends.
#[derive(Clone, Copy, Debug)]
enum World {
    Point(P3<f64>),
    Segment(P3<f64>, P3<f64>),
}

struct Fixture {
    scene: Scene,
    /// (instance id, index, world primitive) over the instances the queries see.
    world: Vec<(PrimId, u32, World)>,
    /// World triangles of the occluding quad.
    quad: Vec<[P3<f64>; 3]>,
}

const MASK: u32 = 1;

fn random_point(rng: &mut Pcg64) -> Point3<f32> {
    Point3::new(
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-2.5..2.5),
        rng.gen_range(-2.0..1.0),
    )
}

fn fixture(seed: u64) -> Fixture {
    let mut rng = Pcg64::seed_from_u64(seed);
    let pts: Vec<Point3<f32>> = (0..300).map(|_| random_point(&mut rng)).collect();
    let mut seg_pts = Vec::new();
    for _ in 0..200 {
        let a = random_point(&mut rng);
        // Every tenth segment degenerate.
        let b = if rng.gen_bool(0.1) {
            a
        } else {
            a + Vector3::new(
                rng.gen_range(-0.6..0.6),
                rng.gen_range(-0.6..0.6),
                rng.gen_range(-0.6..0.6),
            )
        };
        seg_pts.extend([a, b]);
    }
    let segs: Vec<[u32; 2]> = (0..200).map(|i| [2 * i, 2 * i + 1]).collect();
    let points = Arc::new(PointSet::new(pts.clone()).unwrap());
    let lines = Arc::new(SegmentSet::new(seg_pts.clone(), segs.clone()).unwrap());
    let quad_v = [
        Point3::new(-4.0, -3.0, 2.0),
        Point3::new(0.0, -3.0, 2.0),
        Point3::new(0.0, 3.0, 2.0),
        Point3::new(-4.0, 3.0, 2.0),
    ];
    let quad_t = vec![[0u32, 1, 2], [0, 2, 3]];
    let mut scene = Scene::new();
    let m = scene.add_mesh(Mesh::new(quad_v.to_vec(), quad_t.clone()).unwrap());
    scene.add_instance(m, &Matrix4::identity()).unwrap();
    let mut world = Vec::new();
    for (k, t) in transforms().iter().enumerate() {
        let m64 = t.cast::<f64>();
        let to_world = |p: &Point3<f32>| m64.transform_point(&p.cast());
        let (pid, sid) = (
            scene.add_point_set(Arc::clone(&points), t).unwrap(),
            scene.add_segment_set(Arc::clone(&lines), t).unwrap(),
        );
        for id in [pid, sid] {
            scene.set_prims_user_data(id, 10 * k as u64).unwrap();
            scene
                .set_prims_mask(id, if k == 3 { 2 } else { MASK })
                .unwrap();
        }
        if k == 3 {
            continue;
        }
        for (i, p) in pts.iter().enumerate() {
            world.push((pid, i as u32, World::Point(to_world(p))));
        }
        for (i, s) in segs.iter().enumerate() {
            let (a, b) = (
                to_world(&seg_pts[s[0] as usize]),
                to_world(&seg_pts[s[1] as usize]),
            );
            world.push((sid, i as u32, World::Segment(a, b)));
        }
    }
    scene.update();
    let quad = quad_t
        .iter()
        .map(|t| t.map(|i| quad_v[i as usize].cast::<f64>()))
        .collect();
    Fixture { scene, world, quad }
}

fn query() -> SceneQuery<'static> {
    SceneQuery::default().with_mask(MASK)
}

#[test]
fn within_ray_matches_a_world_space_brute_force() {
    let f = fixture(3);
    let mut rng = Pcg64::seed_from_u64(4);
    let (mut found, mut grazes) = (0, 0);
    for _ in 0..300 {
        let o = Point3::new(
            rng.gen_range(-6.0..6.0),
            rng.gen_range(-6.0..6.0),
            rng.gen_range(4.0..9.0),
        );
        let target = random_point(&mut rng);
        // Unnormalized directions: t is in units of the direction.
        let ray = Ray::new(o, (target - o) * rng.gen_range(0.5..2.0));
        let radius = rng.gen_range(0.0..0.3);
        let got = f.scene.prims_within_ray(&ray, radius, &query());
        let (o64, d64): (P3<f64>, V3<f64>) = (ray.origin.cast(), ray.dir.cast());
        let mut want = Vec::new();
        for &(id, i, w) in &f.world {
            let (t, u, dist) = match w {
                World::Point(p) => {
                    let (t, d) = closest_ray_point(&o64, &d64, &p);
                    (t, 0.0, d)
                }
                World::Segment(a, b) => closest_ray_segment(&o64, &d64, &a, &b),
            };
            if (dist - radius).abs() <= 1e-9 {
                grazes += 1;
                continue;
            }
            if dist <= radius {
                want.push((id, i, t, u, dist));
            }
        }
        let got_near: Vec<_> = got
            .iter()
            .filter(|g| (g.near.distance - radius).abs() > 1e-9)
            .collect();
        assert_eq!(got_near.len(), want.len(), "ray {ray:?} radius {radius}");
        for g in &got_near {
            let w = want
                .iter()
                .find(|w| (w.0, w.1) == (g.id, g.near.index))
                .unwrap_or_else(|| panic!("{g:?} not in the brute force"));
            assert!(
                (g.near.t - w.2).abs() <= 1e-9 * (1.0 + w.2.abs()),
                "{g:?} {w:?}"
            );
            assert!((g.near.distance - w.4).abs() <= 1e-9, "{g:?} {w:?}");
            if w.4 > 1e-6 {
                assert!((g.near.u - w.3).abs() <= 1e-6, "{g:?} {w:?}");
            }
            let k = transforms_index(&f, g.id);
            assert_eq!(g.user_data, 10 * k as u64);
        }
        // Sorted by t.
        assert!(got.windows(2).all(|p| p[0].near.t <= p[1].near.t));
        if let Some(first) = f.scene.nearest_prim_along_ray(&ray, radius, &query()) {
            assert_eq!(Some(&first), got.first());
        }
        found += got_near.len();
    }
    println!("{found} primitives near the rays, {grazes} within 1e-9 of the radius");
    assert!(found > 300);
}

/// The position of `id` in the fixture's instance order (by its user data).
fn transforms_index(f: &Fixture, id: PrimId) -> usize {
    let (data, m) = f.scene.prims(id).unwrap();
    let _ = data;
    transforms()
        .iter()
        .position(|t| *t == m)
        .expect("a fixture transform")
}

#[test]
fn nearest_prim_matches_a_world_space_brute_force() {
    let f = fixture(5);
    let mut rng = Pcg64::seed_from_u64(6);
    let mut ties = 0;
    for n in 0..500 {
        let q = Point3::new(
            rng.gen_range(-5.0..5.0),
            rng.gen_range(-5.0..5.0),
            rng.gen_range(-4.0..4.0),
        );
        let limit = if n % 2 == 0 {
            f64::INFINITY
        } else {
            rng.gen_range(0.0..0.5)
        };
        let q64: P3<f64> = q.cast();
        let mut dists: Vec<(f64, PrimId, u32)> = f
            .world
            .iter()
            .map(|&(id, i, w)| {
                let d = match w {
                    World::Point(p) => (p - q64).norm(),
                    World::Segment(a, b) => {
                        let e = b - a;
                        let ee = e.norm_squared();
                        let u = if ee > 0.0 {
                            ((q64 - a).dot(&e) / ee).clamp(0.0, 1.0)
                        } else {
                            0.0
                        };
                        (a + e * u - q64).norm()
                    }
                };
                (d, id, i)
            })
            .filter(|e| e.0 <= limit)
            .collect();
        dists.sort_by(|a, b| a.0.total_cmp(&b.0));
        let got = f.scene.nearest_prim(q, limit, &query());
        match (got, dists.first()) {
            (None, None) => {}
            (Some(g), Some(w)) => {
                if dists.len() > 1 && dists[1].0 - w.0 <= 1e-9 {
                    ties += 1;
                    assert!((g.nearest.distance - w.0).abs() <= 1e-9);
                    continue;
                }
                assert_eq!((g.id, g.nearest.index), (w.1, w.2), "q {q:?}");
                assert!((g.nearest.distance - w.0).abs() <= 1e-12 * (1.0 + w.0));
                assert!(((g.nearest.point - q64).norm() - w.0).abs() <= 1e-9);
                let kind = if f
                    .scene
                    .prims(g.id)
                    .map(|p| matches!(p.0, raypick_query::scene::PrimData::Points(_)))
                    == Some(true)
                {
                    PickKind::Point
                } else {
                    PickKind::Segment
                };
                assert_eq!(g.kind, kind);
            }
            (g, w) => panic!("q {q:?} limit {limit}: got {g:?}, want {w:?}"),
        }
    }
    println!("{ties} queries with a tie within 1e-9 counted apart");
    // A point far from everything, within no limit, and a NaN point.
    assert!(f
        .scene
        .nearest_prim(Point3::new(50.0, 0.0, 0.0), 1.0, &query())
        .is_none());
    assert!(f
        .scene
        .nearest_prim(Point3::new(f32::NAN, 0.0, 0.0), f64::INFINITY, &query())
        .is_none());
}

fn camera() -> Camera {
    prims_util::camera_at([0.5, 1.0, 14.0])
}

#[test]
fn marquee_selects_points_and_segments_as_a_world_space_brute_force() {
    let f = fixture(7);
    let cam = camera();
    let mut rng = Pcg64::seed_from_u64(8);
    let (mut selected, mut edge, mut hid) = (0, 0, 0);
    for n in 0..40 {
        let a: [f32; 2] = [rng.gen_range(0.0..640.0), rng.gen_range(0.0..480.0)];
        let b: [f32; 2] = [rng.gen_range(0.0..640.0), rng.gen_range(0.0..480.0)];
        let rect = ScreenRect::new(
            [a[0].min(b[0]), a[1].min(b[1])],
            [a[0].max(b[0]), a[1].max(b[1])],
        );
        let visible = n % 2 == 1;
        let mut opts = SelectOptions::new()
            .with_mode(SelectMode::Inside)
            .with_query(query());
        if visible {
            opts = opts.visible_only();
        }
        let sel = f.scene.select_rect(&cam, &VP, &rect, &opts);
        let chosen = |id: PrimId, i: u32| {
            sel.prims
                .iter()
                .any(|s| s.id == id && s.indices.binary_search(&i).is_ok())
        };
        for &(id, i, w) in &f.world {
            // Points, and segments by their two ends (mode Inside).
            let ends: Vec<P3<f64>> = match w {
                World::Point(p) => vec![p],
                World::Segment(a, b) => vec![a, b],
            };
            let mut want = true;
            let mut near_edge = false;
            for p in &ends {
                match in_rect(&cam, &rect, p) {
                    Some((inside, margin)) => {
                        want &= inside;
                        near_edge |= margin < 1e-3;
                    }
                    None => want = false,
                }
            }
            if near_edge {
                edge += 1;
                continue;
            }
            if want
                && visible
                && matches!(w, World::Point(_))
                && brute_hidden(&cam, &f.quad, &ends[0])
            {
                hid += 1;
                want = false;
            }
            if visible && matches!(w, World::Segment(..)) {
                // Visibility of segments is sampled; only check what is wholly visible or
                // wholly hidden at its ends.
                let h: Vec<bool> = ends
                    .iter()
                    .map(|p| want && brute_hidden(&cam, &f.quad, p))
                    .collect();
                if h[0] != h[1] {
                    continue;
                }
                if h[0] {
                    hid += 1;
                    want = false;
                }
            }
            assert_eq!(
                chosen(id, i),
                want,
                "rect {rect:?} visible {visible}: {id:?} {i} {w:?}"
            );
            selected += usize::from(want);
        }
        // No instance outside the mask, and every list ascending and non-empty.
        for s in &sel.prims {
            assert!(transforms_index(&f, s.id) < 3);
            assert!(!s.indices.is_empty() && s.indices.windows(2).all(|p| p[0] < p[1]));
        }
        let none = f
            .scene
            .select_rect(&cam, &VP, &rect, &opts.with_prims(false));
        assert!(none.prims.is_empty());
    }
    println!("{selected} selected, {hid} hidden, {edge} within 1e-3 px of an edge counted apart");
    assert!(selected > 500 && hid > 20);
}
