//! Marquee selection of points and segments against a brute force in f64: project every
//! point (and densely sample every segment) and test the rectangle and the depth range;
//! occlusion by a brute-force ray test over the occluder's triangles. Cases within rounding
//! of the rectangle's edges are counted apart, not as agreement.

mod prims_util;

use nalgebra::Point3 as P3;
use prims_util::{brute_hidden, in_rect, VP};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::{Point3, Vector3};
use raypick_query::camera::{Camera, ScreenRect};
use raypick_query::points::{PointSet, SegmentSet};
use raypick_query::scene::SelectMode;
use raypick_query::Mesh;

/// A quad at z = 2 over x in [-3, 0]: it hides what lies behind it on the left.
fn occluder() -> (Mesh, Vec<[P3<f64>; 3]>) {
    let v = [
        Point3::new(-3.0, -3.0, 2.0),
        Point3::new(0.0, -3.0, 2.0),
        Point3::new(0.0, 3.0, 2.0),
        Point3::new(-3.0, 3.0, 2.0),
    ];
    let tris = vec![[0u32, 1, 2], [0, 2, 3]];
    let world = tris
        .iter()
        .map(|t| t.map(|i| v[i as usize].cast::<f64>()))
        .collect();
    (Mesh::new(v.to_vec(), tris).unwrap(), world)
}

fn rects(rng: &mut Pcg64) -> Vec<ScreenRect> {
    (0..40)
        .map(|_| {
            let a = [rng.gen_range(0.0..640.0f32), rng.gen_range(0.0..480.0f32)];
            let b = [rng.gen_range(0.0..640.0f32), rng.gen_range(0.0..480.0f32)];
            ScreenRect::new(a, b)
        })
        .collect()
}

#[test]
fn points_in_a_rectangle_match_the_brute_force() {
    let mut rng = Pcg64::seed_from_u64(5);
    let pts: Vec<Point3<f32>> = (0..4000)
        .map(|_| {
            Point3::new(
                rng.gen_range(-4.0..4.0),
                rng.gen_range(-3.0..3.0),
                rng.gen_range(-3.0..1.5),
            )
        })
        .collect();
    let set = PointSet::new(pts.clone()).unwrap();
    let cam = camera();
    let (mesh, tris) = occluder();
    let (mut compared, mut graze, mut selected, mut hidden_seen) = (0, 0, 0, 0);
    for r in rects(&mut rng) {
        for occ in [None, Some(&mesh)] {
            let got = set.select_rect(&cam, &VP, &r, occ.map(|m| m as _));
            for (i, p) in pts.iter().enumerate() {
                let p64 = p.cast::<f64>();
                let Some((inside, margin)) = in_rect(&cam, &r, &p64) else {
                    continue;
                };
                if margin < 1e-3 {
                    graze += 1;
                    continue;
                }
                let hidden = occ.is_some() && inside && brute_hidden(&cam, &tris, &p64);
                hidden_seen += usize::from(hidden);
                let want = inside && !hidden;
                assert_eq!(
                    got.binary_search(&(i as u32)).is_ok(),
                    want,
                    "point {i} {p:?} in {r:?}"
                );
                compared += 1;
                selected += usize::from(want);
            }
        }
    }
    println!("points: {compared} compared, {selected} selected, {hidden_seen} hidden, {graze} within 1e-3 px of an edge");
    assert!(selected > 1000 && hidden_seen > 100);
}

#[test]
fn segments_inside_or_crossing_a_rectangle_match_the_brute_force() {
    let mut rng = Pcg64::seed_from_u64(6);
    let mut pts = Vec::new();
    let mut segs = Vec::new();
    for k in 0..600u32 {
        let c = Point3::new(
            rng.gen_range(-4.0..4.0),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..1.5),
        );
        let d = Vector3::new(
            rng.gen_range(-1.5..1.5),
            rng.gen_range(-1.5..1.5),
            rng.gen_range(-1.0..1.0),
        );
        pts.push(c);
        pts.push(c + d);
        segs.push([2 * k, 2 * k + 1]);
    }
    let set = SegmentSet::new(pts.clone(), segs.clone()).unwrap();
    let cam = camera();
    let (mut compared, mut graze, mut selected) = (0, 0, [0, 0]);
    for r in rects(&mut rng) {
        for (m, mode) in [SelectMode::Inside, SelectMode::Intersecting]
            .into_iter()
            .enumerate()
        {
            let got = set.select_rect(&cam, &VP, &r, mode, None);
            for (i, s) in segs.iter().enumerate() {
                let (a, b) = (
                    pts[s[0] as usize].cast::<f64>(),
                    pts[s[1] as usize].cast::<f64>(),
                );
                // Dense samples: inside when all (Inside) or any (Intersecting) are in.
                let samples: Vec<(bool, f64)> = (0..=400)
                    .filter_map(|k| in_rect(&cam, &r, &(a + (b - a) * (f64::from(k) / 400.0))))
                    .collect();
                let want = match mode {
                    SelectMode::Inside => samples.len() == 401 && samples.iter().all(|s| s.0),
                    SelectMode::Intersecting => samples.iter().any(|s| s.0),
                };
                // Near an edge, or crossing a corner between samples: a graze.
                let min_margin = samples.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
                let got_it = got.binary_search(&(i as u32)).is_ok();
                if min_margin < 2.0 && got_it != want {
                    graze += 1;
                    continue;
                }
                assert_eq!(got_it, want, "segment {i} ({mode:?}) in {r:?}");
                compared += 1;
                selected[m] += usize::from(want);
            }
        }
    }
    println!(
        "segments: {compared} compared, {selected:?} selected (inside, crossing), {graze} grazes"
    );
    assert!(selected[0] > 100 && selected[1] > selected[0]);
}

#[test]
fn occluded_segments_are_left_out_when_asked() {
    let cam = camera();
    let (mesh, _) = occluder();
    // Behind the quad (x < 0, z < 2) and beside it.
    let pts = vec![
        Point3::new(-2.5, 0.0, -1.0),
        Point3::new(-0.5, 0.0, -1.0),
        Point3::new(0.5, 0.0, -1.0),
        Point3::new(2.5, 0.0, -1.0),
    ];
    let set = SegmentSet::new(pts, vec![[0, 1], [2, 3], [1, 2]]).unwrap();
    let all = ScreenRect::new([0.0, 0.0], [640.0, 480.0]);
    let plain = set.select_rect(&cam, &VP, &all, SelectMode::Intersecting, None);
    assert_eq!(plain, vec![0, 1, 2]);
    let seen = set.select_rect(&cam, &VP, &all, SelectMode::Intersecting, Some(&mesh));
    assert_eq!(
        seen,
        vec![1, 2],
        "the segment wholly behind the quad is hidden"
    );
    assert!(set
        .select_rect(
            &cam,
            &VP,
            &ScreenRect::new([5.0, 5.0], [5.0, 9.0]),
            SelectMode::Inside,
            None
        )
        .is_empty());
}

fn camera() -> Camera {
    prims_util::camera_at([1.0, 2.0, 12.0])
}
