//! Scene queries against a float64 brute force over every world triangle and parry3d's own
//! shape queries: closest, any and all hits, nearest point, layer masks and filters, on
//! random scenes with shared meshes, non-uniform scales, mirrors and shapes; before the
//! top-level update (linear path), after it (tree), after moves (refit) and removals.

mod scene_util;

use rand::Rng;
use raypick_primitives::{Cull, Point3, Ray, Real};
use raypick_query::scene::{InstanceId, SceneHit, SceneQuery};
use scene_util::*;

/// t tolerance for a ray: the f32 rounding of world coordinates, in units of the direction.
fn tol(ray: &Ray, t: f64) -> f64 {
    tol_tri(ray, t)
}

/// Shapes: parry 0.25's GJK ray casts disagree with themselves when started from different
/// points on the same line (measured over 20,000 random lines through unit-sized shapes: up
/// to 0.002 world units on capsules, 0.004 on cylinders, 0.019 on cones). The oracle (a
/// world-space cast) and the scene (an object-space cast) start from different points.
fn tol_shape(ray: &Ray, t: f64) -> f64 {
    0.025 / f64::from(ray.dir.norm()) + 1e-3 * t.abs()
}

fn tol_for(ray: &Ray, h: &scene_util::OHit) -> f64 {
    if h.triangle.is_some() {
        // A grazing ray spreads the rounding along the ray by 1 / |cos(incidence)|.
        let cos = h.normal.dot(&ray.dir.cast::<f64>().normalize()).abs();
        tol_tri(ray, h.t) / cos.max(1e-3)
    } else {
        tol_shape(ray, h.t)
    }
}

fn tol_tri(ray: &Ray, t: f64) -> f64 {
    let d = f64::from(ray.dir.norm());
    let extent = f64::from(ray.origin.coords.norm()) + t.abs() * d + 20.0;
    4e-6 * extent / d
}

const EDGE_BAND: f64 = 1e-4;

#[derive(Default, Debug)]
struct Tally {
    rays: usize,
    hits: usize,
    edge_band: usize,
    any_checked: usize,
    all_checked: usize,
    all_skipped: usize,
    /// Rays on which parry's GJK disagrees with itself (a miss from one start point, a hit
    /// from another): not ours to fix, but bounded below.
    shape_disagree: usize,
    shape_rays: usize,
}

/// Checks closest / any / all hits of one ray; returns false when the ray was in an edge band.
fn check_ray(w: &World, ray: &Ray, mask: u32, tally: &mut Tally) {
    let q = SceneQuery::default().with_mask(mask);
    let mut oracle = w.oracle_hits(ray, 0.0, f64::INFINITY, mask);
    oracle.sort_by(|a, b| a.t.total_cmp(&b.t));
    let ours = w.scene.closest_hit(ray, &q);
    tally.rays += 1;
    // The interval is closed at a triangle hit's reported `t`: bounded to exactly it, the
    // query finds that hit again, through the top-level boxes and the mesh's alike.
    if let Some(h) = ours.filter(|h| h.triangle().is_some()) {
        let bounded = SceneQuery::new(h.t, h.t).with_mask(mask);
        assert_eq!(
            w.scene.closest_hit(ray, &bounded),
            Some(h),
            "bounded to {h:?}"
        );
        assert!(w.scene.any_hit(ray, &bounded), "bounded to {h:?}");
    }
    if oracle.iter().any(|h| h.triangle.is_none()) || ours.is_some_and(|h| h.triangle().is_none()) {
        tally.shape_rays += 1;
    }
    let banded = |h: &scene_util::OHit| h.edge < EDGE_BAND;
    let mut in_band = false;
    match (ours, oracle.first()) {
        (None, None) => {}
        (None, Some(o)) => {
            if o.triangle.is_none() && !banded(o) {
                tally.shape_disagree += 1;
                return;
            }
            assert!(
                banded(o),
                "missed {o:?} on {ray:?}: shape {:?}",
                w.scene.shape(o.id).map(|s| s.shape_type())
            );
            tally.edge_band += 1;
            in_band = true;
        }
        (Some(h), None) => {
            if h.triangle().is_none() {
                tally.shape_disagree += 1;
                return;
            }
            // Only acceptable within an edge band of the triangle we hit.
            let e = our_edge(w, &h, ray);
            assert!(e < EDGE_BAND, "phantom {h:?} (edge {e}) on {ray:?}");
            tally.edge_band += 1;
            in_band = true;
        }
        (Some(h), Some(_)) => {
            tally.hits += 1;
            let t = f64::from(h.t);
            // Ours is one of the oracle's crossings (the same one, or an edge neighbour at
            // the same t)...
            let same = oracle.iter().find(|x| {
                x.id == h.instance
                    && x.triangle == h.triangle()
                    && (x.t - t).abs() <= tol_for(ray, x)
            });
            let object_banded = oracle.iter().any(|x| x.id == h.instance && banded(x));
            let matched =
                same.is_some() || oracle.iter().any(|x| (x.t - t).abs() <= tol_for(ray, x));
            let missed_shape = oracle
                .iter()
                .any(|x| x.t < t - tol_for(ray, x) && x.triangle.is_none() && !banded(x));
            if (!matched && h.triangle().is_none()) || missed_shape {
                tally.shape_disagree += 1;
                return;
            }
            if object_banded {
                in_band = true;
            }
            let ours_in_band = h.triangle().is_some() && our_edge(w, &h, ray) < EDGE_BAND;
            if ours_in_band {
                in_band = true;
            }
            assert!(
                matched || object_banded || ours_in_band,
                "{h:?} matches no oracle crossing of {oracle:?} on {ray:?}"
            );
            // ... and nothing clearly earlier was missed, except within an edge band.
            for x in oracle.iter().filter(|x| x.t < t - tol_for(ray, x)) {
                assert!(banded(x), "{h:?} but the oracle has {x:?} first on {ray:?}");
                tally.edge_band += 1;
                in_band = true;
            }
            if let Some(o) = same {
                let n = h.normal.cast::<f64>();
                if o.triangle.is_some() {
                    assert!(
                        n.dot(&o.normal) > 0.999,
                        "normal {n:?} vs {:?} on {ray:?}",
                        o.normal
                    );
                } else {
                    // Shapes: at an edge or rim either face's normal is right; check the
                    // normal is outward (against the ray on entry, along it on exit).
                    let along = n.dot(&ray.dir.cast::<f64>());
                    assert!(along == 0.0 || (along < 0.0) == h.front_face, "{h:?}");
                }
                assert!((n.norm() - 1.0).abs() < 1e-5);
                // Entry or exit is clear unless another crossing of the object is as close as
                // the tolerance (a grazing chord).
                let lone = !oracle.iter().any(|x| {
                    x.id == o.id && x.t != o.t && (x.t - o.t).abs() <= 4.0 * tol_for(ray, o)
                });
                if lone
                    && o.edge > EDGE_BAND
                    && n.dot(&ray.dir.cast::<f64>().normalize()).abs() > 1e-3
                {
                    assert_eq!(h.front_face, o.front, "front face on {ray:?}");
                }
                let p = ray.origin.cast::<f64>() + ray.dir.cast::<f64>() * o.t;
                let tl = tol_for(ray, o);
                assert!(
                    (h.point.cast::<f64>() - p).norm()
                        <= tl * f64::from(ray.dir.norm()) * 4.0 + 1e-4
                );
            }
            assert_eq!(
                h.user_data,
                w.objects.iter().find(|x| x.id == h.instance).unwrap().user
            );
        }
    }
    // any_hit agrees unless edge-banded.
    let any = w.scene.any_hit(ray, &q);
    if any == oracle.is_empty() {
        assert!(
            oracle.iter().all(banded) || ours.is_some() && !any,
            "any_hit {any} on {ray:?}"
        );
        tally.edge_band += 1;
    } else {
        tally.any_checked += 1;
    }
    // all_hits: one per crossing per object, sorted; skipped when any crossing is banded or
    // two crossings of one object are too close to tell apart.
    let all = w.scene.all_hits(ray, &q);
    assert!(
        all.windows(2).all(|p| p[0].t <= p[1].t),
        "all_hits not sorted"
    );
    // Crossings away from every edge are distinct surfaces: no merging needed. Two crossings
    // closer than the tolerance cannot be ordered reliably: skip such rays.
    let expect = oracle.clone();
    let close_pair = expect
        .windows(2)
        .any(|p| (p[1].t - p[0].t).abs() < 1e-3 * (1.0 + p[0].t.abs()));
    let ours_banded = all
        .iter()
        .any(|h| h.triangle().is_some() && our_edge(w, h, ray) < EDGE_BAND);
    if in_band || ours_banded || oracle.iter().any(banded) || close_pair {
        tally.all_skipped += 1;
        return;
    }
    // A ray through a shape's rim can be an entry with no exit for one cast and a miss for
    // another: an odd crossing count on a convex shape seen from outside marks such a ray.
    let odd_shape = w.objects.iter().any(|obj| {
        let OracleGeom::Shape { shape, pose } = &obj.geom else {
            return false;
        };
        if shape.contains_point(pose, &ray.origin) {
            return false;
        }
        let ours_n = all.iter().filter(|h| h.instance == obj.id).count();
        let oracle_n = expect.iter().filter(|h| h.id == obj.id).count();
        ours_n % 2 == 1 || oracle_n % 2 == 1
    });
    if odd_shape {
        tally.all_skipped += 1;
        return;
    }
    let shapes_involved =
        all.iter().any(|h| h.triangle().is_none()) || expect.iter().any(|h| h.triangle.is_none());
    let agree = all.len() == expect.len()
        && all
            .iter()
            .zip(&expect)
            .all(|(a, e)| a.instance == e.id && (f64::from(a.t) - e.t).abs() <= tol_for(ray, e));
    if shapes_involved && !agree {
        tally.shape_disagree += 1;
        return;
    }
    assert_eq!(
        all.len(),
        expect.len(),
        "all_hits {:?} vs oracle {:?} on {ray:?}",
        all.iter()
            .map(|h| (h.instance.index(), h.triangle(), h.t))
            .collect::<Vec<_>>(),
        expect
            .iter()
            .map(|h| (h.id.index(), h.triangle, h.t))
            .collect::<Vec<_>>()
    );
    for (a, e) in all.iter().zip(&expect) {
        assert_eq!(a.instance, e.id);
        let tl = tol_for(ray, e);
        assert!((f64::from(a.t) - e.t).abs() <= tl, "{a:?} vs {e:?}");
        assert_eq!(a.front_face, e.front, "{a:?} vs {e:?}");
    }
    tally.all_checked += 1;
}

/// How far (in barycentric units) our hit lies from its triangle's boundary in f64.
fn our_edge(w: &World, h: &SceneHit, ray: &Ray) -> f64 {
    let obj = w.objects.iter().find(|o| o.id == h.instance).unwrap();
    match (&obj.geom, h.triangle()) {
        (OracleGeom::Mesh { tris, .. }, Some(t)) => {
            let tri = &tris[t as usize];
            let o = ray.origin.cast::<f64>();
            let d = ray.dir.cast::<f64>();
            let e1 = tri[1] - tri[0];
            let e2 = tri[2] - tri[0];
            let p = d.cross(&e2);
            let det = e1.dot(&p);
            let s = o - tri[0];
            let u = s.dot(&p) / det;
            let v = d.dot(&s.cross(&e1)) / det;
            let cos = e1.cross(&e2).normalize().dot(&d.normalize()).abs();
            u.min(v).min(1.0 - u - v).abs() * cos
        }
        // A shape hit the oracle misses: a grazing ray.
        _ => 0.0,
    }
}

fn run_rays(w: &World, seed: u64, n: usize, tally: &mut Tally) {
    let mut r = rng(seed);
    for _ in 0..n {
        let ray = random_ray(&mut r);
        let mask = if r.gen_bool(0.5) {
            u32::MAX
        } else {
            r.gen_range(1..16)
        };
        check_ray(w, &ray, mask, tally);
    }
}

#[test]
fn rays_match_brute_force_through_edits() {
    let mut total = Tally::default();
    let scenes = scale(3);
    for seed in 0..scenes as u64 {
        let mut w = random_world(seed, 24, 6);
        let n = scale(400);
        // Stale: every object tested linearly.
        assert!(w.scene.is_stale());
        run_rays(&w, seed * 10 + 1, n / 4, &mut total);
        w.scene.update();
        assert!(!w.scene.is_stale());
        run_rays(&w, seed * 10 + 2, n, &mut total);

        // Move a third of the mesh instances: refit.
        let mut r = rng(seed + 99);
        for k in 0..w.objects.len() {
            if k % 3 != 0 {
                continue;
            }
            if let OracleGeom::Mesh { .. } = w.objects[k].geom {
                let m = random_affine(&mut r, 0.5, 8.0);
                let id = w.objects[k].id;
                w.scene.set_transform(id, &m).unwrap();
                let mesh = w.scene.instance_mesh(id).unwrap().index() as usize;
                w.objects[k].geom = OracleGeom::Mesh {
                    tris: world_tris(&w.meshes[mesh], &m),
                    indices: w.meshes[mesh].triangles.clone(),
                    mirrored: m.fixed_view::<3, 3>(0, 0).determinant() < 0.0,
                };
            }
        }
        run_rays(&w, seed * 10 + 3, n / 4, &mut total);
        w.scene.update();
        run_rays(&w, seed * 10 + 4, n, &mut total);

        // Remove some objects (shapes too): rebuild.
        let gone: Vec<InstanceId> = w.objects.iter().step_by(4).map(|o| o.id).collect();
        for id in &gone {
            w.scene.remove(*id).unwrap();
            assert!(w.scene.remove(*id).is_err());
        }
        w.objects.retain(|o| !gone.contains(&o.id));
        w.scene.update();
        run_rays(&w, seed * 10 + 5, n, &mut total);
    }
    println!("scene rays vs brute force: {total:?}");
    assert!(total.hits > 300, "too few hits to mean anything: {total:?}");
    assert!(
        total.edge_band * 100 <= total.rays,
        "too many edge-band rays: {total:?}"
    );
    assert!(
        total.shape_disagree * 100 <= total.shape_rays,
        "parry disagreements: {total:?}"
    );
}

#[test]
fn nearest_point_matches_brute_force() {
    let mut checked = 0;
    for seed in 0..2 {
        let mut w = random_world(100 + seed, 20, 6);
        w.scene.update();
        let mut r = rng(seed + 7);
        for i in 0..300 * scale(1) {
            let p = Point3::new(
                r.gen_range(-14.0..14.0),
                r.gen_range(-14.0..14.0),
                r.gen_range(-14.0..14.0),
            );
            let mask = if i % 2 == 0 {
                u32::MAX
            } else {
                r.gen_range(1..16)
            };
            let q = SceneQuery::default().with_mask(mask);
            let ours = w.scene.nearest_point(&p, Real::INFINITY, &q);
            let oracle = w.oracle_nearest(&p, mask);
            match (ours, oracle) {
                (None, None) => {}
                (Some(a), Some((_, d))) => {
                    let tl = 2e-5 * (1.0 + d + f64::from(p.coords.norm()));
                    assert!(
                        (f64::from(a.distance) - d).abs() <= tl,
                        "{a:?} vs oracle {d} at {p:?}"
                    );
                    // The reported point is on the surface at the reported distance.
                    let dd = (a.point.cast::<f64>() - p.cast::<f64>()).norm();
                    assert!((dd - d).abs() <= tl, "point {:?} at {dd} vs {d}", a.point);
                    // A bound just above the answer still finds it; just below, nothing.
                    let above = w
                        .scene
                        .nearest_point(&p, (d * (1.0 + 1e-4) + 1e-4) as Real, &q);
                    assert!(above.is_some());
                    let below =
                        w.scene
                            .nearest_point(&p, (d * (1.0 - 1e-3) - 1e-3).max(0.0) as Real, &q);
                    assert!(below.is_none() || d < 2e-3, "{below:?} below {d}");
                    checked += 1;
                }
                (a, b) => panic!("nearest {a:?} vs oracle {b:?}"),
            }
        }
    }
    println!("nearest points checked: {checked}");
    assert!(checked > 100);
}

#[test]
fn filters_and_culling() {
    let mut w = random_world(7, 20, 4);
    w.scene.update();
    let mut r = rng(77);
    let reject_odd = |_: InstanceId, user: u64| user.is_multiple_of(2);
    let mut seen = 0;
    for _ in 0..scale(400) {
        let ray = random_ray(&mut r);
        // Filter: the closest hit among even user data equals the oracle restricted to them.
        let q = SceneQuery::default().with_filter(&reject_odd);
        let ours = w.scene.closest_hit(&ray, &q);
        let mut oracle: Vec<_> = w
            .oracle_hits(&ray, 0.0, f64::INFINITY, u32::MAX)
            .into_iter()
            .filter(|h| w.objects.iter().find(|o| o.id == h.id).unwrap().user % 2 == 0)
            .collect();
        oracle.sort_by(|a, b| a.t.total_cmp(&b.t));
        if let Some(h) = ours {
            assert_eq!(h.user_data % 2, 0);
            seen += 1;
        }
        if let (Some(h), Some(o)) = (ours, oracle.first()) {
            if o.edge > EDGE_BAND {
                assert!((f64::from(h.t) - o.t).abs() <= tol_for(&ray, o));
            }
        }
        // Back-face culling: the first front-facing crossing.
        let qb = SceneQuery::default().with_cull(Cull::Back);
        let all = w.oracle_hits(&ray, 0.0, f64::INFINITY, u32::MAX);
        if all.iter().any(|h| {
            h.edge < EDGE_BAND || h.normal.dot(&ray.dir.cast::<f64>().normalize()).abs() < 1e-3
        }) {
            continue;
        }
        let first_of = |front: bool| {
            all.iter()
                .filter(|h| h.front == front)
                .min_by(|a, b| a.t.total_cmp(&b.t))
                .map_or((f64::INFINITY, 0.0), |h| (h.t, tol_for(&ray, h)))
        };
        let (first_front, tl_front) = first_of(true);
        let (first_back, tl_back) = first_of(false);
        match w.scene.closest_hit(&ray, &qb) {
            Some(h) => {
                assert!(h.front_face);
                assert!(
                    (f64::from(h.t) - first_front).abs() <= tl_front,
                    "{h:?} vs {first_front}"
                );
            }
            None => assert!(first_front.is_infinite()),
        }
        match w
            .scene
            .closest_hit(&ray, &SceneQuery::default().with_cull(Cull::Front))
        {
            Some(h) => {
                assert!(!h.front_face);
                assert!(
                    (f64::from(h.t) - first_back).abs() <= tl_back,
                    "{h:?} vs {first_back}"
                );
            }
            None => assert!(first_back.is_infinite()),
        }
        // t interval: starting just past the closest hit finds the next crossing.
        if all.len() >= 2 {
            let mut ts: Vec<f64> = all.iter().map(|h| h.t).collect();
            ts.sort_by(f64::total_cmp);
            if ts[1] - ts[0] > 1e-3 {
                let mid = ((ts[0] + ts[1]) / 2.0) as Real;
                let h = w
                    .scene
                    .closest_hit(&ray, &SceneQuery::new(mid, Real::INFINITY))
                    .unwrap();
                assert!(
                    (f64::from(h.t) - ts[1]).abs() <= tol_shape(&ray, ts[1]).max(tol(&ray, ts[1]))
                );
                assert!(w
                    .scene
                    .closest_hit(&ray, &SceneQuery::new(0.0, mid))
                    .is_some());
            }
        }
    }
    assert!(seen > 20);
}

#[test]
fn batches_equal_single_queries() {
    let mut w = random_world(3, 16, 4);
    w.scene.update();
    let mut r = rng(5);
    let rays: Vec<Ray> = (0..500).map(|_| random_ray(&mut r)).collect();
    let q = SceneQuery::default();
    let mut out = vec![None; rays.len()];
    w.scene.closest_hit_batch(&rays, &q, &mut out).unwrap();
    let mut any = vec![false; rays.len()];
    w.scene.any_hit_batch(&rays, &q, &mut any).unwrap();
    for (i, ray) in rays.iter().enumerate() {
        assert_eq!(out[i], w.scene.closest_hit(ray, &q));
        assert_eq!(any[i], w.scene.any_hit(ray, &q));
    }
    let pts: Vec<Point3<Real>> = rays.iter().map(|r| r.origin).collect();
    let mut near = vec![None; pts.len()];
    w.scene
        .nearest_point_batch(&pts, Real::INFINITY, &q, &mut near)
        .unwrap();
    for (p, n) in pts.iter().zip(&near) {
        assert_eq!(*n, w.scene.nearest_point(p, Real::INFINITY, &q));
    }
    assert!(w.scene.closest_hit_batch(&rays, &q, &mut out[..3]).is_err());
}
