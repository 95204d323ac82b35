//! Pixel-tolerance picks of points and segments against a brute-force f64 oracle: project
//! every primitive, measure pixel distances, take the nearest in depth, apply occlusion by a
//! brute-force ray test over every triangle.

mod prims_util;

use nalgebra::Point3 as P3;
use prims_util::brute_occluded;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::{Point3, Vector3};
use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
use raypick_query::points::{PickConfig, PointSet, PrimPick, SegmentSet};
use raypick_query::Mesh;

const VP: Viewport = Viewport::new(640.0, 480.0);

fn camera(eye: [f32; 3], ortho: bool) -> Camera {
    let proj = if ortho {
        Projection::orthographic(8.0, 6.0, 0.5, 100.0)
    } else {
        Projection::perspective(50f32.to_radians(), 640.0 / 480.0, 0.5, 100.0)
    };
    Camera::look_at(
        Point3::new(eye[0], eye[1], eye[2]),
        Point3::origin(),
        Vector3::y(),
        proj,
        ClipConvention::OPENGL,
    )
    .unwrap()
}

fn depth(cam: &Camera, p: &P3<f64>) -> f64 {
    -(cam.view_matrix() * p.to_homogeneous()).z
}

fn near(cam: &Camera) -> f64 {
    let (o, _) = cam.ray_from_pixel_f64(320.0, 240.0, &VP).unwrap();
    depth(cam, &o)
}

fn px_dist(cam: &Camera, p: &P3<f64>, cx: f64, cy: f64) -> Option<f64> {
    let (x, y, _) = cam.project_f64(p, &VP)?;
    Some((x - cx).hypot(y - cy))
}

fn occluded(cam: &Camera, tris: &[[P3<f64>; 3]], p: &P3<f64>) -> bool {
    let (x, y, _) = cam.project_f64(p, &VP).unwrap();
    let (o, _) = cam.ray_from_pixel_f64(x, y, &VP).unwrap();
    let d = p - o;
    let len = d.norm();
    brute_occluded(tris, &o, &(d / len), len)
}

/// (index, depth, pixel distance) of the oracle's answer.
type Cand = (u32, f64, f64);

fn oracle_pick(
    cam: &Camera,
    cands: Vec<(u32, P3<f64>, f64)>,
    tris: &[[P3<f64>; 3]],
) -> Option<Cand> {
    let mut c: Vec<Cand> = cands
        .iter()
        .map(|(i, p, d)| (*i, depth(cam, p), *d))
        .collect();
    let pts: std::collections::HashMap<u32, P3<f64>> =
        cands.iter().map(|(i, p, _)| (*i, *p)).collect();
    c.sort_by(|a, b| a.1.total_cmp(&b.1));
    c.into_iter().find(|x| !occluded(cam, tris, &pts[&x.0]))
}

fn oracle_points(
    cam: &Camera,
    pts: &[P3<f64>],
    cx: f64,
    cy: f64,
    r: f64,
    tris: &[[P3<f64>; 3]],
) -> Option<Cand> {
    let n = near(cam);
    let cands = pts
        .iter()
        .enumerate()
        .filter(|(_, p)| depth(cam, p) >= n)
        .filter_map(|(i, p)| {
            let d = px_dist(cam, p, cx, cy)?;
            (d <= r).then_some((i as u32, *p, d))
        })
        .collect();
    oracle_pick(cam, cands, tris)
}

/// Ternary search over the segment parameter (pixel distance to a fixed cursor is unimodal
/// along a projected line), after cutting the segment at the near plane.
fn oracle_segments(
    cam: &Camera,
    segs: &[[P3<f64>; 2]],
    cx: f64,
    cy: f64,
    r: f64,
    tris: &[[P3<f64>; 3]],
) -> Option<Cand> {
    let n = near(cam);
    let mut cands = Vec::new();
    for (i, [a, b]) in segs.iter().enumerate() {
        let (da, db) = (depth(cam, a), depth(cam, b));
        if da < n && db < n {
            continue;
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        if da < n {
            lo = (n - da) / (db - da);
        } else if db < n {
            hi = (n - da) / (db - da);
        }
        let at = |u: f64| a + (b - a) * u;
        let f = |u: f64| px_dist(cam, &at(u), cx, cy).unwrap_or(f64::INFINITY);
        let (mut l, mut h) = (lo, hi);
        for _ in 0..200 {
            let m1 = l + (h - l) / 3.0;
            let m2 = h - (h - l) / 3.0;
            if f(m1) <= f(m2) {
                h = m2;
            } else {
                l = m1;
            }
        }
        let mut u = 0.5 * (l + h);
        // Seen end-on every parameter is equally close: take the nearer end.
        if (f(lo) - f(hi)).abs() < 1e-9 && (f(u) - f(lo)).abs() < 1e-9 {
            u = if depth(cam, &at(lo)) <= depth(cam, &at(hi)) {
                lo
            } else {
                hi
            };
        }
        for cand in [u, lo, hi] {
            if f(cand) < f(u) {
                u = cand;
            }
        }
        let d = f(u);
        if d <= r {
            cands.push((i as u32, at(u), d));
        }
    }
    oracle_pick(cam, cands, tris)
}

/// Returns whether the pick hit, so callers can check the cases were not all misses.
fn agree(got: Option<PrimPick>, want: Option<Cand>, r: f64, what: &str) -> bool {
    let hit = got.is_some();
    match (got, want) {
        (None, None) => {}
        (Some(g), Some(w)) => {
            assert!(
                g.index == w.0 || (g.depth - w.1).abs() <= 1e-6 * (1.0 + w.1.abs()),
                "{what}: got {g:?}, oracle {w:?}"
            );
        }
        // Only on the tolerance boundary may one side see a candidate the other does not.
        (Some(g), None) => assert!(
            (g.pixel_distance - r).abs() < 1e-6,
            "{what}: got {g:?}, oracle none"
        ),
        (None, Some(w)) => assert!((w.2 - r).abs() < 1e-6, "{what}: got none, oracle {w:?}"),
    }
    hit
}

fn occluder() -> (Mesh, Vec<[P3<f64>; 3]>) {
    // A quad at z = 0.25 covering x, y in -1..0.8: occludes part of the cloud.
    let v = vec![
        Point3::new(-1.0, -1.0, 0.25),
        Point3::new(0.8, -1.0, 0.25),
        Point3::new(0.8, 0.8, 0.25),
        Point3::new(-1.0, 0.8, 0.25),
    ];
    let t = vec![[0u32, 1, 2], [0, 2, 3]];
    let tris = t
        .iter()
        .map(|f| f.map(|i| v[i as usize].cast::<f64>()))
        .collect();
    (Mesh::new(v, t).unwrap(), tris)
}

fn random_point(rng: &mut Pcg64) -> Point3<f32> {
    // Kept off the occluder plane z = 0.25 so occlusion is never a grazing tie.
    let mut z: f32 = rng.gen_range(-2.0..2.0);
    if (z - 0.25).abs() < 0.01 {
        z += 0.05;
    }
    Point3::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), z)
}

fn cursors(rng: &mut Pcg64, n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|_| (rng.gen_range(0.0..640.0), rng.gen_range(0.0..480.0)))
        .collect()
}

fn check_points(pts: Vec<Point3<f32>>, cams: &[Camera], rng: &mut Pcg64, what: &str) {
    let (mesh, tris) = occluder();
    let set = PointSet::new(pts.clone()).unwrap();
    let p64: Vec<P3<f64>> = pts.iter().map(|p| p.cast()).collect();
    let (mut hits, mut changed) = (0usize, 0usize);
    for cam in cams {
        for (cx, cy) in cursors(rng, 150) {
            for r in [2.0, 5.0, 12.0] {
                let got = set.pick(
                    cam,
                    &VP,
                    cx,
                    cy,
                    &PickConfig {
                        radius_px: r,
                        xray: false,
                    },
                    Some(&mesh),
                );
                let occ = got.map(|g| g.index);
                hits += usize::from(agree(
                    got,
                    oracle_points(cam, &p64, cx, cy, r, &tris),
                    r,
                    what,
                ));
                let got = set.pick(cam, &VP, cx, cy, &PickConfig::xray(r), Some(&mesh));
                changed += usize::from(got.map(|g| g.index) != occ);
                agree(got, oracle_points(cam, &p64, cx, cy, r, &[]), r, what);
            }
        }
    }
    // The cases must exercise hits and occlusion, not only misses.
    assert!(
        hits > 100 && changed > 10,
        "{what}: {hits} hits, {changed} occluded"
    );
}

fn check_segments(
    pts: Vec<Point3<f32>>,
    segs: Vec<[u32; 2]>,
    cams: &[Camera],
    rng: &mut Pcg64,
    what: &str,
) {
    let (mesh, tris) = occluder();
    let set = SegmentSet::new(pts.clone(), segs.clone()).unwrap();
    let s64: Vec<[P3<f64>; 2]> = segs
        .iter()
        .map(|s| [pts[s[0] as usize].cast(), pts[s[1] as usize].cast()])
        .collect();
    let (mut hits, mut changed) = (0usize, 0usize);
    for cam in cams {
        for (cx, cy) in cursors(rng, 100) {
            for r in [2.0, 6.0] {
                let got = set.pick(
                    cam,
                    &VP,
                    cx,
                    cy,
                    &PickConfig {
                        radius_px: r,
                        xray: false,
                    },
                    Some(&mesh),
                );
                let occ = got.map(|g| g.index);
                hits += usize::from(agree(
                    got,
                    oracle_segments(cam, &s64, cx, cy, r, &tris),
                    r,
                    what,
                ));
                let got = set.pick(cam, &VP, cx, cy, &PickConfig::xray(r), None);
                changed += usize::from(got.map(|g| g.index) != occ);
                agree(got, oracle_segments(cam, &s64, cx, cy, r, &[]), r, what);
            }
        }
    }
    // End-on segments stand in front of the occluder: only their hits are counted.
    let need = if what == "end-on" { 0 } else { 5 };
    assert!(
        hits > 10 && changed >= need,
        "{what}: {hits} hits, {changed} occluded"
    );
}

fn cams() -> Vec<Camera> {
    vec![
        camera([0.0, 0.0, 6.0], false),
        camera([3.0, 2.0, 4.0], false),
        camera([0.5, 0.3, 6.0], true),
        // Inside the cloud: segments cross the near plane.
        camera([0.3, 0.2, 1.0], false),
    ]
}

#[test]
fn random_cloud_matches_oracle() {
    let mut rng = Pcg64::seed_from_u64(1);
    let pts: Vec<_> = (0..3000).map(|_| random_point(&mut rng)).collect();
    check_points(pts, &cams(), &mut rng, "random cloud");
}

#[test]
fn coincident_and_collinear_grid_matches_oracle() {
    let mut rng = Pcg64::seed_from_u64(2);
    let mut pts = Vec::new();
    for i in 0..12 {
        for j in 0..12 {
            let p = Point3::new(i as f32 * 0.3 - 1.6, j as f32 * 0.3 - 1.6, 0.5);
            pts.push(p);
            pts.push(p); // coincident twin
            pts.push(Point3::new(p.x, p.y, -0.5)); // collinear along z
        }
    }
    check_points(pts, &cams(), &mut rng, "grid");
}

#[test]
fn random_segments_match_oracle() {
    let mut rng = Pcg64::seed_from_u64(3);
    let pts: Vec<_> = (0..800).map(|_| random_point(&mut rng)).collect();
    let mut segs: Vec<[u32; 2]> = (0..400).map(|i| [2 * i, 2 * i + 1]).collect();
    // Degenerate segments (both ends equal).
    segs.extend((0..40).map(|i| [i, i]));
    check_segments(pts, segs, &cams(), &mut rng, "random segments");
}

#[test]
fn end_on_segments_match_oracle() {
    let mut rng = Pcg64::seed_from_u64(4);
    // Segments along the view axis of the first camera: each projects to a dot.
    let mut pts = Vec::new();
    let mut segs = Vec::new();
    for i in 0..60u32 {
        let x = rng.gen_range(-1.5f32..1.5);
        let y = rng.gen_range(-1.5f32..1.5);
        pts.push(Point3::new(x, y, -1.0));
        pts.push(Point3::new(x, y, 1.5));
        segs.push([2 * i, 2 * i + 1]);
    }
    check_segments(
        pts,
        segs,
        &[
            camera([0.0, 0.0, 6.0], true),
            camera([0.0, 0.0, 6.0], false),
        ],
        &mut rng,
        "end-on",
    );
}

#[test]
fn bad_input_is_an_error() {
    let p = vec![Point3::new(0.0, 0.0, 0.0), Point3::new(f32::NAN, 0.0, 0.0)];
    assert!(PointSet::new(p)
        .unwrap_err()
        .to_string()
        .contains("point 1"));
    let e = SegmentSet::new(vec![Point3::origin()], vec![[0, 3]]).unwrap_err();
    assert!(e.to_string().contains("segment 0"), "{e}");
    let empty = PointSet::new(vec![]).unwrap();
    let cam = camera([0.0, 0.0, 6.0], false);
    assert!(empty
        .pick(&cam, &VP, 1.0, 1.0, &PickConfig::default(), None)
        .is_none());
    let one = PointSet::new(vec![Point3::origin()]).unwrap();
    assert!(one
        .pick(&cam, &VP, f64::NAN, 1.0, &PickConfig::default(), None)
        .is_none());
    assert!(one
        .pick(&cam, &VP, 320.0, 240.0, &PickConfig::default(), None)
        .is_some());
}
