//! ray_triangle (watertight).

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Triangle, Vector3};

const INF: f32 = f32::INFINITY;

fn tri() -> Triangle {
    // Counter-clockwise seen from +z: the front face looks up.
    Triangle::new(p3(0.0, 0.0, 0.0), p3(1.0, 0.0, 0.0), p3(0.0, 1.0, 0.0))
}

/// f64 Möller–Trumbore: `(t, u, v, det)`, or `None` when the ray is parallel to the plane.
fn mt64(ray: &Ray, t: &Triangle) -> Option<(f64, f64, f64, f64)> {
    let (o, d) = (w(&ray.origin), wv(&ray.dir));
    let (a, b, c) = (w(&t.a), w(&t.b), w(&t.c));
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(&e2);
    let det = e1.dot(&p);
    if det.abs() < 1e-12 * e1.norm() * e2.norm() * d.norm() {
        return None;
    }
    let s = o - a;
    let u = s.dot(&p) / det;
    let q = s.cross(&e1);
    let v = d.dot(&q) / det;
    let tt = e2.dot(&q) / det;
    Some((tt, u, v, det))
}

#[test]
fn ray_triangle_hand_hit_barycentrics_and_t() {
    let r = Ray::new(p3(0.25, 0.5, 2.0), v3(0.0, 0.0, -4.0));
    let h = ray_triangle(&r, &tri(), 0.0, INF, Cull::None).unwrap();
    assert_eq!((h.t, h.u, h.v), (0.5, 0.25, 0.5));
    assert!(h.front_face);
    // From below: back face, same point.
    let r = Ray::new(p3(0.25, 0.5, -1.0), v3(0.0, 0.0, 1.0));
    let h = ray_triangle(&r, &tri(), 0.0, INF, Cull::None).unwrap();
    assert_eq!((h.t, h.u, h.v), (1.0, 0.25, 0.5));
    assert!(!h.front_face);
}

#[test]
fn ray_triangle_miss_and_range() {
    let r = Ray::new(p3(0.75, 0.75, 1.0), v3(0.0, 0.0, -1.0));
    assert_eq!(ray_triangle(&r, &tri(), 0.0, INF, Cull::None), None);
    let r = Ray::new(p3(0.25, 0.25, 1.0), v3(0.0, 0.0, -1.0));
    assert!(ray_triangle(&r, &tri(), 0.0, 1.0, Cull::None).is_some());
    assert_eq!(ray_triangle(&r, &tri(), 0.0, 0.99, Cull::None), None);
    assert_eq!(ray_triangle(&r, &tri(), 1.01, INF, Cull::None), None);
    // Triangle behind the origin.
    let r = Ray::new(p3(0.25, 0.25, 1.0), v3(0.0, 0.0, 1.0));
    assert_eq!(ray_triangle(&r, &tri(), 0.0, INF, Cull::None), None);
    assert_eq!(
        ray_triangle(&r, &tri(), -INF, INF, Cull::None).map(|h| h.t),
        Some(-1.0)
    );
}

#[test]
fn ray_triangle_culling() {
    let down = Ray::new(p3(0.25, 0.25, 1.0), v3(0.0, 0.0, -1.0)); // sees the front
    let up = Ray::new(p3(0.25, 0.25, -1.0), v3(0.0, 0.0, 1.0)); // sees the back
    let hit = |r: &Ray, c: Cull| ray_triangle(r, &tri(), 0.0, INF, c).is_some();
    assert!(hit(&down, Cull::None) && hit(&up, Cull::None));
    assert!(hit(&down, Cull::Back) && !hit(&up, Cull::Back));
    assert!(!hit(&down, Cull::Front) && hit(&up, Cull::Front));
    // Reversing the winding swaps the faces.
    let rev = Triangle::new(tri().a, tri().c, tri().b);
    assert!(ray_triangle(&down, &rev, 0.0, INF, Cull::Back).is_none());
    assert!(ray_triangle(&up, &rev, 0.0, INF, Cull::Back).is_some());
}

#[test]
fn ray_triangle_edges_and_vertices_hit() {
    // Through the middle of edge ab, through vertex c, through the hypotenuse midpoint.
    for target in [p3(0.5, 0.0, 0.0), p3(0.0, 1.0, 0.0), p3(0.5, 0.5, 0.0)] {
        let r = Ray::new(target + v3(0.0, 0.0, 1.0), v3(0.0, 0.0, -1.0));
        let h = ray_triangle(&r, &tri(), 0.0, INF, Cull::None);
        assert_eq!(h.map(|h| h.t), Some(1.0), "target {target}");
    }
}

#[test]
fn ray_triangle_zero_area_never_hits() {
    let p = p3(0.2, 0.3, 0.0);
    let degenerate = [
        Triangle::new(p, p, p),
        Triangle::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 0.0), p3(2.0, 2.0, 0.0)),
        Triangle::new(p3(0.0, 0.0, 0.0), p3(1.0, 0.0, 0.0), p3(1.0, 0.0, 0.0)),
    ];
    let mut rng = TestRng(7);
    for t in &degenerate {
        for _ in 0..2000 {
            let o = rng.point(3.0);
            let target = t.point_at(rng.f32(0.0, 1.0), rng.f32(0.0, 1.0));
            let r = Ray::new(o, target - o);
            assert_eq!(
                ray_triangle(&r, t, -INF, INF, Cull::None),
                None,
                "{t:?} {r:?}"
            );
        }
        // Rays lying in the line of the segment, too.
        let r = Ray::new(t.a - (t.c - t.a), t.c - t.a);
        assert_eq!(ray_triangle(&r, t, -INF, INF, Cull::None), None);
    }
}

#[test]
fn ray_triangle_ray_in_triangle_plane_misses() {
    let r = Ray::new(p3(-1.0, 0.25, 0.0), v3(1.0, 0.0, 0.0));
    assert_eq!(ray_triangle(&r, &tri(), -INF, INF, Cull::None), None);
}

#[test]
fn ray_triangle_non_finite_never_hits() {
    let ok = Ray::new(p3(0.25, 0.25, 1.0), v3(0.0, 0.0, -1.0));
    assert!(ray_triangle(&ok, &tri(), 0.0, INF, Cull::None).is_some());
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        for i in 0..3 {
            let mut r = ok;
            r.origin[i] = bad;
            assert_eq!(ray_triangle(&r, &tri(), 0.0, INF, Cull::None), None);
            let mut r = ok;
            r.dir[i] = bad;
            assert_eq!(ray_triangle(&r, &tri(), 0.0, INF, Cull::None), None);
            for v in 0..3 {
                let mut t = tri();
                match v {
                    0 => t.a[i] = bad,
                    1 => t.b[i] = bad,
                    _ => t.c[i] = bad,
                }
                assert_eq!(ray_triangle(&ok, &t, 0.0, INF, Cull::None), None);
            }
        }
    }
    assert_eq!(ray_triangle(&ok, &tri(), f32::NAN, INF, Cull::None), None);
    assert_eq!(ray_triangle(&ok, &tri(), 0.0, f32::NAN, Cull::None), None);
    let zero = Ray::new(p3(0.25, 0.25, 1.0), v3(0.0, 0.0, 0.0));
    assert_eq!(ray_triangle(&zero, &tri(), -INF, INF, Cull::None), None);
}

/// Two triangles sharing the edge `p q`, with the third corners on opposite sides of it.
fn shared_edge_pair(rng: &mut TestRng, s: f32) -> (Triangle, Triangle, Point3<f32>, Point3<f32>) {
    loop {
        let (p, q) = (rng.point(s), rng.point(s));
        let r1 = rng.point(s);
        // r2: reflect r1 through the edge line, then perturb (a bent but proper pair).
        let e = (q - p).normalize();
        let rel = r1 - p;
        let perp = rel - e * e.dot(&rel);
        let r2 = p + e * e.dot(&rel) * 0.7 - perp * rng.f32(0.3, 2.0) + rng.point(s * 0.2).coords;
        let t1 = Triangle::new(p, q, r1);
        let t2 = Triangle::new(q, p, r2);
        if t1.area() > 1e-3 * s * s && t2.area() > 1e-3 * s * s {
            return (t1, t2, p, q);
        }
    }
}

/// The watertight property: a ray through a shared edge hits at least one of the two
/// triangles. Over many random edges, scales and ray directions.
///
/// The ray aims at a point of the edge rounded to f32, so it passes beside the edge by that
/// rounding. Where one triangle is seen nearly edge-on (the ray within 1e-3 of its plane's
/// direction), or the point is within 1e-3 of the edge's ends, the two triangles seen from
/// the ray may cover less than that rounding around the point, and the exact ray can pass
/// beside both: those rays are counted apart, not tested.
#[test]
fn ray_triangle_shared_edge_watertight() {
    let mut rng = TestRng(0x5EED);
    let n = cases(20_000);
    let (mut tested, mut grazing) = (0u32, 0u32);
    for i in 0..n {
        let s = [1.0f32, 1e-3, 1e3, 37.0][i as usize % 4];
        let (t1, t2, p, q) = shared_edge_pair(&mut rng, s);
        let (n1, n2) = (t1.scaled_normal(), t2.scaled_normal());
        let u = rng.f32(0.0, 1.0);
        let target = p + (q - p) * u;
        let o = target + rng.point(s * 3.0).coords;
        let d = target - o;
        // The ray must cross both planes in the same direction (else the pair folds over in
        // projection and the point may be in neither).
        if d.dot(&n1).signum() != d.dot(&n2).signum() || d.dot(&n1).abs() < 1e-6 * s * s * s {
            continue;
        }
        let cos = |n: &Vector3<f32>| wv(&d).dot(&wv(n)).abs() / (wv(&d).norm() * wv(n).norm());
        if cos(&n1) < 1e-3 || cos(&n2) < 1e-3 || !(1e-3..=1.0 - 1e-3).contains(&u) {
            grazing += 1;
            continue;
        }
        tested += 1;
        let r = Ray::new(o, d);
        let h1 = ray_triangle(&r, &t1, 0.0, INF, Cull::None);
        let h2 = ray_triangle(&r, &t2, 0.0, INF, Cull::None);
        assert!(
            h1.is_some() || h2.is_some(),
            "leak through edge: {t1:?} {t2:?} {r:?}"
        );
    }
    eprintln!("shared edges: {tested} rays tested, {grazing} grazing or at an end, not tested");
    assert!(tested > n / 2, "only {tested} of {n} rays tested");
}

/// A closed fan around a vertex: a ray through the vertex hits at least one triangle.
#[test]
fn ray_triangle_shared_vertex_watertight() {
    let mut rng = TestRng(99);
    for _ in 0..cases(3000) {
        let c = rng.point(5.0);
        let k = 3 + (rng.next_u64() % 6) as usize;
        let rim: Vec<Point3<f32>> = (0..k)
            .map(|j| {
                let a = j as f32 / k as f32 * std::f32::consts::TAU + rng.f32(0.0, 0.3);
                c + v3(a.cos(), a.sin(), rng.f32(-0.3, 0.3)) * rng.f32(0.5, 2.0)
            })
            .collect();
        let fan: Vec<Triangle> = (0..k)
            .map(|j| Triangle::new(c, rim[j], rim[(j + 1) % k]))
            .collect();
        let o = c + v3(rng.f32(-0.5, 0.5), rng.f32(-0.5, 0.5), rng.f32(1.0, 3.0));
        let r = Ray::new(o, c - o);
        let hits = fan
            .iter()
            .filter(|t| ray_triangle(&r, t, 0.0, INF, Cull::None).is_some())
            .count();
        assert!(hits >= 1, "leak through vertex {c} of fan {fan:?}");
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// Agrees with f64 Möller–Trumbore except within a thin band around the edges.
    #[test]
    fn ray_triangle_matches_f64_moller_trumbore(o in point(), target in point(), t in triangle(),
                                                aim in any::<bool>(), uv in (0.0f32..1.0, 0.0f32..1.0)) {
        // Half the rays are aimed at (or near) the triangle, the rest at a random point.
        let goal = if aim { t.point_at(uv.0 * 1.2 - 0.1, uv.1 * (1.0 - uv.0)) } else { target };
        let d: Vector3<f32> = goal - o;
        let ray = Ray::new(o, d);
        prop_assume!(ray.is_valid() && !t.is_degenerate());
        let got = ray_triangle(&ray, &t, 0.0, INF, Cull::None);
        // The interval is closed at the reported `t`.
        if let Some(h) = got {
            prop_assert_eq!(ray_triangle(&ray, &t, h.t, h.t, Cull::None), Some(h));
        }
        let Some((tt, u, v, det)) = mt64(&ray, &t) else { return Ok(()); };
        // Grazing rays are ill-conditioned (f32 error grows like 1 / |cos|): widen the band.
        let n = (w(&t.b) - w(&t.a)).cross(&(w(&t.c) - w(&t.a))).normalize();
        let cos = n.dot(&wv(&d).normalize()).abs();
        prop_assume!(cos > 1e-3);
        let band = 1e-4 / cos;
        let inside = u > band && v > band && 1.0 - u - v > band && tt > band;
        let outside = u < -band || v < -band || 1.0 - u - v < -band || tt < -band;
        if inside {
            let h = got.expect("f64 says clear hit");
            prop_assert!((h.t as f64 - tt).abs() <= band * (1.0 + tt.abs()), "t {} vs {}", h.t, tt);
            prop_assert!((h.u as f64 - u).abs() <= band && (h.v as f64 - v).abs() <= band);
            // Front face: d points against the normal; MT's det is -(d . n).
            prop_assert_eq!(h.front_face, det > 0.0);
            // Culling drops exactly one face.
            let back = ray_triangle(&ray, &t, 0.0, INF, Cull::Back).is_some();
            let front = ray_triangle(&ray, &t, 0.0, INF, Cull::Front).is_some();
            prop_assert_eq!(back, h.front_face);
            prop_assert_eq!(front, !h.front_face);
        } else if outside {
            prop_assert!(got.is_none(), "f64 says clear miss, got {got:?}");
        }
    }
}

/// `WatertightRay::new` picks the dominant axis as `kz` (the lowest on ties) and the
/// permutation at `2 * kz + (d[kz] < 0)` in `PERMUTATIONS`; `permutation_index` and
/// `index_of_permutation` agree with it, and the table holds six distinct permutations.
#[test]
fn ray_triangle_permutation_table_and_index() {
    use raypick_primitives::WatertightRay;
    let perms = WatertightRay::PERMUTATIONS;
    for (i, p) in perms.iter().enumerate() {
        let mut sorted = *p;
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2], "{p:?} is not a permutation");
        assert_eq!(WatertightRay::index_of_permutation(*p), i);
        assert_eq!(p[2], i / 2, "{p:?}: kz");
    }
    assert_eq!(WatertightRay::index_of_permutation([0, 0, 0]), 6);
    let mut rng = TestRng(0xD1CE);
    let mut seen = [0usize; 6];
    for n in 0..3000 {
        let mut d = [0.0f32; 3];
        for v in &mut d {
            // Few distinct magnitudes, so that ties between axes are common.
            *v = (rng.next_u64() % 7) as f32 * 0.5 - 1.5;
        }
        if n % 7 == 0 {
            d[n % 3] = -0.0;
        }
        let ray = Ray::new(Point3::origin(), Vector3::new(d[0], d[1], d[2]));
        let w = WatertightRay::new(&ray);
        if !ray.is_valid() {
            continue;
        }
        let ad = d.map(f32::abs);
        let kz = (0..3).find(|&a| (0..3).all(|b| ad[a] >= ad[b])).unwrap();
        let i = 2 * kz + usize::from(d[kz] < 0.0);
        assert_eq!(w.k, perms[i], "{d:?}");
        assert_eq!(w.permutation_index(), i, "{d:?}");
        seen[i] += 1;
    }
    assert!(seen.iter().all(|&c| c > 50), "{seen:?}");
}
