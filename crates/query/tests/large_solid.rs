//! Large coordinates, nearest points and solids: the scene of `large_coordinates.rs` (closed
//! and open meshes under non-uniform scales and mirrors) placed four ways answers
//! `nearest_point_f64`, `signed_distance_f64`, `contains_f64` and `winding_number_f64` as an
//! f64 brute force does, in every placement: distances over the world triangles, winding
//! numbers summed over each instance's triangles in its own frame (as
//! `Scene::winding_number` defines it: for an open mesh under a non-uniform scale that is
//! not the world solid angle). The placements are rigid, so the brute force runs once, in
//! the scene's own frame. The f32 queries of the far placements are measured for contrast.

mod large_util;

use large_util::*;
use nalgebra::Point3;
use raypick_query::{Scene, SceneQuery};
use raypick_test_support::{point_tri_dist2_64, scale, winding_term_64, Rng, V64};

/// The scene's triangles in its own frame, in f64, each with its instance; a mirrored
/// instance's reversed (the solid the instance places).
fn world_triangles() -> Vec<(usize, [V64; 3])> {
    let (meshes, inst) = scene_parts();
    let mut out = Vec::new();
    for (k, (m, t)) in inst.iter().enumerate() {
        let flip = t.fixed_view::<3, 3>(0, 0).determinant() < 0.0;
        let (p, tris) = &meshes[*m];
        for tri in tris {
            let mut v = tri.map(|i| {
                let w = t.transform_point(&p[i as usize]);
                [w.x, w.y, w.z]
            });
            if flip {
                v.swap(1, 2);
            }
            out.push((k, v));
        }
    }
    out
}

/// The brute force at `p`: the winding number (each instance's in its own frame) and the
/// world distance.
fn oracle(tris: &[(usize, [V64; 3])], p: Point3<f64>) -> (f64, f64) {
    let (meshes, inst) = scene_parts();
    let mut w = 0.0;
    for (m, t) in &inst {
        let o = t.try_inverse().expect("invertible").transform_point(&p);
        let (v, faces) = &meshes[*m];
        for f in faces {
            let [a, b, c] = f.map(|i| v[i as usize]);
            w += winding_term_64([o.x, o.y, o.z], [a, b, c].map(|x| [x.x, x.y, x.z]));
        }
    }
    let d2 = tris
        .iter()
        .map(|(_, t)| point_tri_dist2_64([p.x, p.y, p.z], *t))
        .fold(f64::INFINITY, f64::min);
    (w, d2.sqrt())
}

/// The distance from `p` to the triangles of instance `k`.
fn distance_to(tris: &[(usize, [V64; 3])], k: usize, p: V64) -> f64 {
    tris.iter()
        .filter(|(i, _)| *i == k)
        .map(|(_, t)| point_tri_dist2_64(p, *t))
        .fold(f64::INFINITY, f64::min)
        .sqrt()
}

/// Points in the scene's frame: uniform around it, and near its triangles (on them and
/// off them along their normals by 1e-4 to 0.1, both sides).
fn points(tris: &[(usize, [V64; 3])], n: usize) -> Vec<Point3<f64>> {
    let mut rng = Rng::new(0x1a_65e);
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                return Point3::new(
                    rng.f64() * 26.0 - 13.0,
                    rng.f64() * 26.0 - 13.0,
                    rng.f64() * 12.0 - 5.0,
                );
            }
            let (_, [a, b, c]) = tris[rng.below(tris.len())];
            let (a, b, c) = (Point3::from(a), Point3::from(b), Point3::from(c));
            let (mut u, mut v) = (rng.f64(), rng.f64());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            let on = a + (b - a) * u + (c - a) * v;
            // The sphere's pole rows hold degenerate triangles: no normal, the point on them.
            let normal = (b - a)
                .cross(&(c - a))
                .try_normalize(0.0)
                .unwrap_or_default();
            let off = [0.0, 1e-4, 1e-3, 1e-2, 0.1][rng.below(5)];
            let side = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            on + normal * (off * side)
        })
        .collect()
}

#[test]
fn solid_queries_agree_with_the_brute_force_in_every_placement() {
    let n = scale(2_000, 20_000);
    let tris = world_triangles();
    let pts = points(&tris, n);
    let want: Vec<(f64, f64)> = pts.iter().map(|p| oracle(&tris, *p)).collect();
    // Distances within 2e-5 (the f32 rounding of the objects' own data, up to 10 units
    // across); sides compared off the surface and away from 0.5 (6 instances of 1e-3
    // stated accuracy each).
    let tol = 2e-5;
    let clear = |(w, d): (f64, f64)| d > 1e-4 && (w - 0.5).abs() > 1e-2;
    let (mut inside, mut compared) = (0usize, 0usize);
    let q = SceneQuery::default();
    for (name, place) in placements() {
        let scene = build_f64(&place);
        let mut off32 = 0usize;
        for (x, &(w, d)) in pts.iter().zip(&want) {
            let p = place.transform_point(x);
            let Some(near) = scene.nearest_point_f64(&p, f64::INFINITY, &q) else {
                panic!("{name} {x}: no answer");
            };
            assert!(
                (near.distance - d).abs() <= tol,
                "{name} {x}: {} against {d}",
                near.distance
            );
            assert!(
                ((near.point - p).norm() - near.distance).abs() <= tol,
                "{name} {x}"
            );
            // The point lies on the instance it names.
            let back = place.try_inverse().unwrap().transform_point(&near.point);
            let k = near.nearest.instance.index() as usize;
            assert!(
                distance_to(&tris, k, [back.x, back.y, back.z]) <= tol,
                "{name} {x}"
            );
            let sd = scene.signed_distance_f64(p).expect("a mesh");
            assert!((sd.distance.abs() - d).abs() <= tol, "{name} {x}");
            // Off the surface, where the winding number is continuous.
            let wn = f64::from(scene.winding_number_f64(p));
            assert!(
                d <= 1e-4 || (wn - w).abs() <= 6e-3,
                "{name} {x}: winding {wn} against {w} at distance {d}"
            );
            if clear((w, d)) {
                let truth = w >= 0.5;
                assert_eq!(scene.contains_f64(p), truth, "{name} {x}: winding {w}");
                assert_eq!(sd.distance < 0.0, truth, "{name} {x}: winding {w}");
                inside += usize::from(truth);
                compared += 1;
            }
            // The f32 query of the same point, rounded to f32 world coordinates.
            let Some(n32) = scene.nearest_point(&p.cast(), f32::INFINITY, &q) else {
                panic!("{name} {x}: no f32 answer");
            };
            off32 += usize::from((f64::from(n32.distance) - d).abs() > 1e-3);
        }
        println!("placement {name}: {n} points, f32 queries off by more than 1e-3: {off32}");
        if name != "origin" {
            // What the f64 forms are for: far from the origin the f32 point alone is off.
            assert!(off32 > n / 10, "{name}: f32 off {off32}");
        } else {
            assert_eq!(off32, 0, "at the origin the f32 queries agree");
        }
    }
    assert!(compared > n && inside > n / 4, "{compared} {inside}");
}

#[test]
fn f64_batches_answer_as_single_points() {
    let tris = world_triangles();
    // More than the batches' Morton-order threshold.
    let pts = points(&tris, 5_000);
    let place = placements()[1].1;
    let scene = build_f64(&place);
    let world: Vec<Point3<f64>> = pts.iter().map(|x| place.transform_point(x)).collect();
    let w = scene.winding_numbers_f64(&world);
    let c = scene.contains_points_f64(&world);
    let s = scene.signed_distances_f64(&world);
    for (i, p) in world.iter().enumerate() {
        assert_eq!(
            w[i].to_bits(),
            scene.winding_number_f64(*p).to_bits(),
            "{p}"
        );
        assert_eq!(c[i], scene.contains_f64(*p), "{p}");
        assert_eq!(s[i], scene.signed_distance_f64(*p), "{p}");
    }
}

#[test]
fn f64_solid_queries_refuse_bad_points() {
    let scene = build_f64(&placements()[1].1);
    let q = SceneQuery::default();
    let utm = Point3::new(5e6, 4e6, 300.0);
    for bad in [
        Point3::new(f64::NAN, 4e6, 300.0),
        Point3::new(f64::INFINITY, 4e6, 300.0),
        Point3::new(1e39, 4e6, 300.0),
    ] {
        assert!(scene.nearest_point_f64(&bad, f64::INFINITY, &q).is_none());
        assert!(scene.signed_distance_f64(bad).is_none());
        assert!(!scene.contains_f64(bad));
    }
    assert!(scene
        .winding_number_f64(Point3::new(f64::NAN, 0.0, 0.0))
        .is_nan());
    assert!(scene.nearest_point_f64(&utm, -1.0, &q).is_none());
    assert!(scene.nearest_point_f64(&utm, f64::NAN, &q).is_none());
    // The first instance is a unit sphere about the scene's origin: within reach, and not.
    assert!(scene.nearest_point_f64(&utm, 1.001, &q).is_some());
    assert!(scene.nearest_point_f64(&utm, 0.9, &q).is_none());
    assert!(Scene::new().signed_distance_f64(utm).is_none());
    assert!(!Scene::new().contains_f64(utm));
}
