//! Points and segments within a radius of a ray, against brute force over every primitive
//! (sampling the segment and ray parameters densely for the segment distance).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::points::ray::{closest_ray_segment, RayNear};
use raypick_query::points::{PointSet, SegmentSet};

fn p(rng: &mut Pcg64) -> Point3<f32> {
    Point3::new(
        rng.gen_range(-2.0..2.0),
        rng.gen_range(-2.0..2.0),
        rng.gen_range(-2.0..2.0),
    )
}

fn ids(v: &[RayNear]) -> Vec<u32> {
    let mut i: Vec<u32> = v.iter().map(|n| n.index).collect();
    i.sort_unstable();
    i
}

#[test]
fn points_within_ray_match_brute_force() {
    let mut rng = Pcg64::seed_from_u64(5);
    let pts: Vec<_> = (0..5000).map(|_| p(&mut rng)).collect();
    let set = PointSet::new(pts.clone()).unwrap();
    let mut found = 0;
    for _ in 0..200 {
        let o = p(&mut rng);
        let d = Vector3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        let r = 0.1;
        let got = set.within_ray(&Ray::new(o, d), r);
        let (o64, d64) = (o.cast::<f64>(), d.cast::<f64>());
        let want: Vec<u32> = (0..pts.len() as u32)
            .filter(|&i| {
                let q = pts[i as usize].cast::<f64>();
                let t = ((q - o64).dot(&d64) / d64.norm_squared()).max(0.0);
                (o64 + d64 * t - q).norm() <= r
            })
            .collect();
        assert_eq!(ids(&got), want);
        found += want.len();
        // Best-first, the same as the first of the sorted list (or nothing).
        assert_eq!(
            set.nearest_along_ray(&Ray::new(o, d), r).as_ref(),
            got.first()
        );
    }
    assert!(found > 100, "{found}");
}

#[test]
fn segment_closest_approach_matches_sampling() {
    let mut rng = Pcg64::seed_from_u64(6);
    for k in 0..300 {
        let (o, a) = (p(&mut rng).cast::<f64>(), p(&mut rng).cast::<f64>());
        // Every tenth segment degenerate.
        let b = if k % 10 == 0 {
            a
        } else {
            p(&mut rng).cast::<f64>()
        };
        let d = p(&mut rng).coords.cast::<f64>();
        let (t, u, dist) = closest_ray_segment(&o, &d, &a, &b);
        assert!((0.0..=1.0).contains(&u) && t >= 0.0);
        assert!(((o + d * t) - (a + (b - a) * u)).norm() - dist < 1e-9);
        // No sampled pair is closer.
        let mut best = f64::INFINITY;
        for i in 0..=200 {
            let uu = f64::from(i) / 200.0;
            let q = a + (b - a) * uu;
            let tt = ((q - o).dot(&d) / d.norm_squared()).max(0.0);
            best = best.min((o + d * tt - q).norm());
        }
        assert!(dist <= best + 1e-9, "{dist} > {best}");
    }
}

#[test]
fn segments_within_ray_match_brute_force() {
    let mut rng = Pcg64::seed_from_u64(7);
    let pts: Vec<_> = (0..2000).map(|_| p(&mut rng)).collect();
    let segs: Vec<[u32; 2]> = (0..1000).map(|i| [2 * i, 2 * i + 1]).collect();
    let set = SegmentSet::new(pts.clone(), segs.clone()).unwrap();
    for _ in 0..100 {
        let o = p(&mut rng);
        let d = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), 0.3);
        let got = set.within_ray(&Ray::new(o, d), 0.05);
        let want: Vec<u32> = (0..segs.len() as u32)
            .filter(|&i| {
                let s = segs[i as usize];
                let (_, _, dist) = closest_ray_segment(
                    &o.cast(),
                    &d.cast(),
                    &pts[s[0] as usize].cast(),
                    &pts[s[1] as usize].cast(),
                );
                dist <= 0.05
            })
            .collect();
        assert_eq!(ids(&got), want);
        assert_eq!(
            set.nearest_along_ray(&Ray::new(o, d), 0.05).as_ref(),
            got.first()
        );
    }
}

#[test]
fn nearest_point_matches_brute_force() {
    let mut rng = Pcg64::seed_from_u64(8);
    let pts: Vec<_> = (0..3000).map(|_| p(&mut rng)).collect();
    let segs: Vec<[u32; 2]> = (0..1500)
        .map(|i| [2 * i, if i % 7 == 0 { 2 * i } else { 2 * i + 1 }])
        .collect();
    let cloud = PointSet::new(pts.clone()).unwrap();
    let lines = SegmentSet::new(pts.clone(), segs.clone()).unwrap();
    for _ in 0..300 {
        let q = p(&mut rng);
        let q64 = q.cast::<f64>();
        let want = pts
            .iter()
            .map(|x| (x.cast::<f64>() - q64).norm())
            .fold(f64::INFINITY, f64::min);
        let got = cloud.nearest_point(q, f64::INFINITY).unwrap();
        assert!((got.distance - want).abs() <= 1e-9, "{got:?} vs {want}");
        let want = segs
            .iter()
            .map(|s| {
                let (a, b) = (
                    pts[s[0] as usize].cast::<f64>(),
                    pts[s[1] as usize].cast::<f64>(),
                );
                let e = b - a;
                let u = if e.norm_squared() > 0.0 {
                    ((q64 - a).dot(&e) / e.norm_squared()).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (a + e * u - q64).norm()
            })
            .fold(f64::INFINITY, f64::min);
        let got = lines.nearest_point(q, f64::INFINITY).unwrap();
        assert!((got.distance - want).abs() <= 1e-9, "{got:?} vs {want}");
        assert!(lines.nearest_point(q, want * 0.5).is_none());
    }
}
