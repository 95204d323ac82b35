//! Large coordinates: one scene placed four ways (origin, UTM-like, ECEF-like, rotated about
//! a far axis) must give the same answers through the f64 path; the naive f32 path (the same
//! triangles pre-transformed to f32 world coordinates) is measured for contrast.

use nalgebra::{Point3, Vector3};
use raypick_primitives::{Ray, Ray64};
use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
use raypick_query::scene::{RecentredMesh, SceneHit64};
use raypick_query::{Mesh, Scene, SceneQuery};
use raypick_test_support::{scale, Rng};

mod large_util;

use large_util::*;

/// One answer, reduced to what the placements must agree on.
#[derive(Clone, Copy, Debug)]
struct Answer {
    instance: u32,
    triangle: u32,
    t: f64,
    point: Point3<f64>,
}

fn answer(h: &SceneHit64) -> Answer {
    Answer {
        instance: h.hit.instance.index(),
        triangle: h.hit.triangle().unwrap(),
        t: h.t,
        point: h.point,
    }
}

/// True when `got` (in placement `place`) matches the origin's `want` for a ray of direction
/// length `dlen`: same instance, same triangle or the same point (edge ties), t within
/// 1e-5 of the object's size.
fn agrees(want: Option<Answer>, got: Option<Answer>, place: &M4, sizes: &[f64], dlen: f64) -> bool {
    match (want, got) {
        (None, None) => true,
        (Some(w), Some(g)) => {
            let tol = 1e-5 * sizes[w.instance as usize];
            let same_point = (place.transform_point(&w.point) - g.point).norm() <= tol;
            // The triangle may differ only at an edge tie, where the point is the same.
            w.instance == g.instance && same_point && (w.t - g.t).abs() * dlen <= tol
        }
        _ => false,
    }
}

#[test]
fn four_placements_agree_and_naive_f32_does_not() {
    let n = scale(100_000, 1_000_000);
    let places = placements();
    let origin = build_f64(&places[0].1);
    let size = sizes(&origin);
    let mut rng = Rng::new(28);
    let rays: Vec<(Point3<f64>, Vector3<f64>)> = (0..n)
        .map(|_| {
            let o = Point3::new(
                rng.f64() * 40.0 - 20.0,
                rng.f64() * 40.0 - 20.0,
                rng.f64() * 16.0 - 4.0,
            );
            let target = Point3::new(
                rng.f64() * 20.0 - 10.0,
                rng.f64() * 20.0 - 10.0,
                rng.f64() * 8.0 - 4.0,
            );
            (o, target - o)
        })
        .collect();
    let q = SceneQuery::default();
    let want: Vec<Option<Answer>> = rays
        .iter()
        .map(|(o, d)| {
            origin
                .closest_hit_f64(&Ray64::new(*o, *d), &q)
                .map(|h| answer(&h))
        })
        .collect();
    let hits = want.iter().filter(|w| w.is_some()).count();
    assert!(hits > n / 4, "the rays should mostly hit: {hits} of {n}");
    let mut report = Vec::new();
    for (name, place) in &places {
        let scene = build_f64(place);
        let naive = build_naive(place);
        let (mut wrong64, mut wrong32, mut gross32, mut ties64) = (0usize, 0usize, 0usize, 0usize);
        for ((o, d), w) in rays.iter().zip(&want) {
            let (po, pd) = (place.transform_point(o), place.transform_vector(d));
            let g = scene
                .closest_hit_f64(&Ray64::new(po, pd), &q)
                .map(|h| answer(&h));
            if !agrees(*w, g, place, &size, d.norm()) {
                wrong64 += 1;
            } else if w.zip(g).is_some_and(|(a, b)| a.triangle != b.triangle) {
                ties64 += 1;
            }
            let r32 = Ray::new(po.cast(), pd.cast());
            let g32 = naive.closest_hit(&r32, &q).map(|h| Answer {
                instance: h.instance.index(),
                triangle: h.triangle().unwrap(),
                t: f64::from(h.t),
                point: h.point.cast(),
            });
            if !agrees(*w, g32, place, &size, d.norm()) {
                wrong32 += 1;
                // Gross: a miss for a hit (or back), or another object.
                if w.map(|a| a.instance) != g32.map(|a| a.instance) {
                    gross32 += 1;
                }
            }
        }
        println!("placement {name}: {n} rays ({hits} hits), f64 path wrong {wrong64} (edge ties {ties64}), naive f32 wrong {wrong32} (of which {gross32} another object or hit/miss)");
        report.push((name, wrong64, wrong32));
    }
    for (name, wrong64, _) in &report {
        assert_eq!(*wrong64, 0, "f64 path at {name}");
    }
    // The failure this path removes: far from the origin the naive f32 scene goes wrong.
    for (name, _, wrong32) in &report[1..] {
        assert!(
            *wrong32 > n / 100,
            "naive f32 at {name} should fail often, failed {wrong32}"
        );
    }
}

#[test]
fn camera_picks_agree_in_every_placement() {
    let places = placements();
    let eye = Point3::new(9.0, -12.0, 7.0);
    let cam0 = Camera::look_at(
        eye,
        Point3::origin(),
        Vector3::z(),
        Projection::Perspective {
            fov_y: 0.9,
            aspect: 4.0 / 3.0,
            near: 0.05,
            far: 500.0,
        },
        ClipConvention::OPENGL,
    )
    .unwrap();
    let vp = Viewport::new(640.0, 480.0);
    let step = if raypick_test_support::long() { 2 } else { 8 };
    let pixels: Vec<(f64, f64)> = (0..480 / step)
        .flat_map(|y| {
            (0..640 / step).map(move |x| (f64::from(x * step) + 0.5, f64::from(y * step) + 0.5))
        })
        .collect();
    let q = SceneQuery::default();
    let origin = build_f64(&places[0].1);
    let size = sizes(&origin);
    let want: Vec<_> = pixels
        .iter()
        .map(|(x, y)| {
            origin
                .pick_f64(&cam0, &vp, *x, *y, &q)
                .unwrap()
                .map(|h| answer(&h))
        })
        .collect();
    let hits = want.iter().filter(|w| w.is_some()).count();
    println!("picks: {hits} of {} pixels hit", pixels.len());
    assert!(hits > pixels.len() / 10);
    for (name, place) in &places[1..] {
        let scene = build_f64(place);
        let view = cam0.view_matrix() * place.try_inverse().unwrap();
        let cam =
            Camera::from_matrices_f64(&view, &cam0.projection_matrix(), cam0.convention()).unwrap();
        let mut wrong = 0;
        for ((x, y), w) in pixels.iter().zip(&want) {
            let got = scene
                .pick_f64(&cam, &vp, *x, *y, &q)
                .unwrap()
                .map(|h| answer(&h));
            // Camera rays are unit length in every placement.
            if !agrees(*w, got, place, &size, 1.0) {
                wrong += 1;
            }
        }
        println!("picks at {name}: {} pixels, wrong {wrong}", pixels.len());
        assert_eq!(wrong, 0, "picks at {name}");
    }
}

#[test]
fn recentred_mesh_keeps_its_answers_in_its_frame() {
    let (p, t) = terrain(8);
    let far: Vec<_> = p
        .iter()
        .map(|v| v + Vector3::new(5e6, 4e6, 300.0))
        .collect();
    let rec = RecentredMesh::new(&far, t).unwrap();
    assert_eq!(rec.offset, Vector3::new(5e6, 4e6, 300.0));
    let near = Mesh::new(p.iter().map(|v| v.cast::<f32>()).collect(), terrain(8).1).unwrap();
    let ray = Ray::new(Point3::new(0.1, 0.2, 5.0), -Vector3::z());
    let a = rec.mesh.closest_hit(&ray, &Default::default()).unwrap();
    let b = near.closest_hit(&ray, &Default::default()).unwrap();
    assert_eq!((a.triangle, a.t), (b.triangle, b.t));
}

#[test]
fn f64_entry_points_reject_bad_input() {
    let (p, t) = cube();
    let rec = RecentredMesh::new(&p, t).unwrap();
    let mut scene = Scene::new();
    let mesh = scene.add_mesh(rec.mesh.clone());
    // Beyond f32's range: the f32 forms could not hold it.
    let huge = M4::new_translation(&Vector3::new(1e40, 0.0, 0.0));
    assert!(scene.add_instance_f64(mesh, &huge).is_err());
    let mut nan = M4::identity();
    nan[(0, 3)] = f64::NAN;
    assert!(scene.add_instance_f64(mesh, &nan).is_err());
    let place = M4::new_translation(&Vector3::new(5e6 + 0.125, 4e6, 300.0));
    let id = scene.add_instance_f64(mesh, &place).unwrap();
    assert_eq!(scene.transform_f64(id), Some(place));
    scene.update();
    let q = SceneQuery::default();
    let bad = Ray64::new(Point3::new(5e6, 4e6, 310.0), Vector3::zeros());
    assert!(scene.closest_hit_f64(&bad, &q).is_none());
    let down = Ray64::new(Point3::new(5e6 + 0.5, 4e6 + 0.5, 310.0), -Vector3::z());
    let h = scene.closest_hit_f64(&down, &q).unwrap();
    assert!((h.point - Point3::new(5e6 + 0.5, 4e6 + 0.5, 301.0)).norm() < 1e-6);
    assert!(scene
        .closest_hit_f64(&down, &SceneQuery::new(0.0, 8.9))
        .is_none());
    let cam = Camera::look_at(
        Point3::new(0.0, -10.0, 0.0),
        Point3::origin(),
        Vector3::z(),
        Projection::Perspective {
            fov_y: 0.9,
            aspect: 1.0,
            near: 0.1,
            far: 100.0,
        },
        ClipConvention::OPENGL,
    )
    .unwrap();
    let vp = Viewport::new(100.0, 100.0);
    assert!(scene.pick_f64(&cam, &vp, 200.0, 50.0, &q).is_err());
    assert!(scene.pick_f64(&cam, &vp, f64::NAN, 50.0, &q).is_err());
}

/// `any_hit_f64` and `all_hits_f64` in every placement: the same answers as at the origin
/// (any: exactly; all: the same crossings, instance by instance, t and points within the
/// placement's rounding), and at the origin the same as the f32 queries.
#[test]
fn any_and_all_hits_agree_in_every_placement() {
    let places = placements();
    let origin = build_f64(&places[0].1);
    let size = sizes(&origin);
    let mut rng = Rng::new(29);
    let rays: Vec<(Point3<f64>, Vector3<f64>)> = (0..scale(3000, 30_000))
        .map(|_| {
            let o = Point3::new(
                rng.f64() * 40.0 - 20.0,
                rng.f64() * 40.0 - 20.0,
                rng.f64() * 16.0 - 4.0,
            );
            let target = Point3::new(
                rng.f64() * 20.0 - 10.0,
                rng.f64() * 20.0 - 10.0,
                rng.f64() * 8.0 - 4.0,
            );
            // Exact in f32, so that the origin's f64 answers can be held to the f32 ones.
            let (o, d) = (o.cast::<f32>(), (target - o).cast::<f32>());
            (o.cast(), d.cast())
        })
        .collect();
    let q = SceneQuery::default();
    let mut crossings = 0;
    for (o, d) in &rays {
        let r64 = Ray64::new(*o, *d);
        let r32 = Ray::new(o.cast(), d.cast());
        // At the origin the f64 path agrees with the f32 one (the ray goes into each
        // instance's frame through the f64 or the f32 inverse: t within rounding).
        let all32 = origin.all_hits(&r32, &q);
        let all64 = origin.all_hits_f64(&r64, &q);
        assert_eq!(all64.len(), all32.len(), "{o:?} {d:?}");
        for (a, b) in all64.iter().zip(&all32) {
            let b = Answer {
                instance: b.instance.index(),
                triangle: b.triangle().unwrap(),
                t: f64::from(b.t),
                point: b.point.cast(),
            };
            let id = M4::identity();
            assert!(
                agrees(Some(answer(a)), Some(b), &id, &size, d.norm()),
                "{a:?} {b:?}"
            );
        }
        assert_eq!(origin.any_hit_f64(&r64, &q), origin.any_hit(&r32, &q));
        let want = origin.all_hits_f64(&r64, &q);
        assert_eq!(origin.any_hit_f64(&r64, &q), !want.is_empty());
        crossings += want.len();
        for (name, place) in &places[1..] {
            let scene = build_f64(place);
            let r = Ray64::new(place.transform_point(o), place.transform_vector(d));
            assert_eq!(scene.any_hit_f64(&r, &q), !want.is_empty(), "{name}");
            let got = scene.all_hits_f64(&r, &q);
            assert_eq!(got.len(), want.len(), "{name}: {o:?} {d:?}");
            for (w, g) in want.iter().zip(&got) {
                assert!(
                    agrees(Some(answer(w)), Some(answer(g)), place, &size, d.norm()),
                    "{name}: {w:?} {g:?}"
                );
            }
        }
    }
    assert!(crossings > rays.len() / 2, "{crossings} crossings");
}

/// The f64 batches answer as the single-ray f64 queries, on a scene of one large mesh (the
/// streamed path) and on the several-instance scene, near and far from the origin.
#[test]
fn f64_batches_match_single_rays() {
    // 320,000 triangles: enough for the mesh's batches to run as streams.
    let (p, t) = terrain(400);
    let rec = RecentredMesh::new(&p, t).unwrap();
    for (name, place) in placements() {
        let mut sole = Scene::new();
        let id = sole.add_mesh(rec.mesh.clone());
        sole.add_instance_f64(id, &rec.placement(&place)).unwrap();
        sole.update();
        for scene in [sole, build_f64(&place)] {
            let mut rng = Rng::new(31);
            let rays: Vec<Ray64> = (0..2000)
                .map(|_| {
                    let o = Point3::new(rng.f64() * 10.0 - 5.0, rng.f64() * 10.0 - 5.0, 12.0);
                    let target = Point3::new(rng.f64() * 2.0 - 1.0, rng.f64() * 2.0 - 1.0, 0.0);
                    Ray64::new(
                        place.transform_point(&o),
                        place.transform_vector(&(target - o)),
                    )
                })
                .collect();
            let q = SceneQuery::default();
            let mut closest = vec![None; rays.len()];
            scene
                .closest_hit_batch_f64(&rays, &q, &mut closest)
                .unwrap();
            let mut any = vec![false; rays.len()];
            scene.any_hit_batch_f64(&rays, &q, &mut any).unwrap();
            let mut hits = 0;
            for (i, r) in rays.iter().enumerate() {
                let one = scene.closest_hit_f64(r, &q);
                hits += usize::from(one.is_some());
                assert_eq!(
                    closest[i].map(|h| (h.hit.instance, h.hit.triangle(), h.t)),
                    one.map(|h| (h.hit.instance, h.hit.triangle(), h.t)),
                    "{name} ray {i}"
                );
                assert_eq!(any[i], scene.any_hit_f64(r, &q), "{name} ray {i}");
            }
            assert!(hits > 50, "{name}: {hits}");
            assert!(scene
                .closest_hit_batch_f64(&rays, &q, &mut closest[1..])
                .is_err());
        }
    }
}
