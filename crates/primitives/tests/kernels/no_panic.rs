//! Hostile input: every kernel and constructor on random mixes of NaN, infinities, signed
//! zeros, subnormals and huge values. Nothing may panic, and answers keep their contracts.

use crate::common::*;
use nalgebra::{Matrix4, Rotation3};
use raypick_primitives::*;

const SPECIAL: [f32; 12] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1e-45,
    1e30,
];

fn val(rng: &mut TestRng) -> f32 {
    if rng.next_u64().is_multiple_of(3) {
        SPECIAL[(rng.next_u64() % SPECIAL.len() as u64) as usize]
    } else {
        rng.f32(-4.0, 4.0)
    }
}

fn pt(rng: &mut TestRng) -> Point3<f32> {
    p3(val(rng), val(rng), val(rng))
}

fn vc(rng: &mut TestRng) -> Vector3<f32> {
    v3(val(rng), val(rng), val(rng))
}

fn has_nan(x: &[f32]) -> bool {
    x.iter().any(|v| v.is_nan())
}

#[test]
fn no_panic_on_hostile_input() {
    let mut rng = TestRng(0xBAD);
    for _ in 0..cases(20_000) {
        let ray = Ray::new(pt(&mut rng), vc(&mut rng));
        let b = Aabb::new(pt(&mut rng), pt(&mut rng));
        let tri = Triangle::new(pt(&mut rng), pt(&mut rng), pt(&mut rng));
        let s = Sphere::new(pt(&mut rng), val(&mut rng));
        let rot = Rotation3::from_euler_angles(val(&mut rng), val(&mut rng), val(&mut rng));
        let o = Obb::new(pt(&mut rng), vc(&mut rng), rot);
        let plane = Plane::from_point_normal(&pt(&mut rng), &vc(&mut rng));
        let m = Matrix4::from_fn(|_, _| val(&mut rng));
        let depth = [
            DepthRange::NegOneToOne,
            DepthRange::ZeroToOne,
            DepthRange::OneToZero,
        ][(rng.next_u64() % 3) as usize];
        let f = Frustum::from_view_projection(&m, depth);
        let _ = Frustum::try_from_view_projection(&m, depth);
        let (t0, t1) = (val(&mut rng), val(&mut rng));

        for r in [
            ray_aabb(&ray, &b, t0, t1),
            ray_aabb_robust(&ray, &b, t0, t1),
            line_aabb(&ray, &b),
            segment_aabb(&ray.origin, &tri.a, &b),
            ray_obb(&ray, &o, t0, t1),
            ray_sphere(&ray, &s, t0, t1),
        ]
        .into_iter()
        .flatten()
        {
            assert!(!has_nan(&[r.0, r.1]) && r.0 <= r.1, "{r:?}");
        }
        if let Some(t) = ray_plane(&ray, &plane, t0, t1) {
            assert!(t >= t0 && t <= t1);
        }
        for cull in [Cull::None, Cull::Back, Cull::Front] {
            if let Some(h) = ray_triangle(&ray, &tri, t0, t1, cull) {
                assert!(h.t >= t0 && h.t <= t1 && !has_nan(&[h.u, h.v]), "{h:?}");
                assert!(ray.is_valid() && !tri.is_degenerate());
            }
        }
        // Overlap tests are symmetric, whatever the input.
        let b2 = Aabb::new(pt(&mut rng), pt(&mut rng));
        assert_eq!(aabb_aabb(&b, &b2), aabb_aabb(&b2, &b), "{b:?} {b2:?}");
        let s2 = Sphere::new(pt(&mut rng), val(&mut rng));
        assert_eq!(
            sphere_sphere(&s, &s2),
            sphere_sphere(&s2, &s),
            "{s:?} {s2:?}"
        );
        let _ = aabb_sphere(&b, &s);
        let _ = (
            obb_obb(&o, &o),
            triangle_aabb(&tri, &b),
            triangle_obb(&tri, &o),
        );
        let _ = triangle_sphere(&tri, &s);
        let _ = (
            plane_aabb(&plane, &b),
            plane_obb(&plane, &o),
            plane_sphere(&plane, &s),
        );
        let _ = (
            frustum_aabb(&f, &b),
            frustum_obb(&f, &o),
            frustum_sphere(&f, &s),
        );
        let _ = frustum_triangle(&f, &tri);
        if let Some(q) = point_triangle(&ray.origin, &tri) {
            assert!(!has_nan(&[q.u, q.v]), "{q:?}");
        }
        let pts = [tri.a, tri.b, tri.c, ray.origin, s.center];
        // The box of points holds every finite one.
        let hull = Aabb::from_points(&pts);
        for p in pts.iter().filter(|p| p.iter().all(|c| c.is_finite())) {
            assert!(hull.contains_point(p), "{hull:?} misses {p:?}");
        }
        let _ = b.transformed_by_matrix(&m);
        let _ = Aabb::from_sphere(&s);
        let _ = Sphere::from_points(&pts);
        let _ = Sphere::from_points_minimal(&pts);
        let _ = Obb::from_points(&pts);
        let _ = Plane::try_from_points(&tri.a, &tri.b, &tri.c);
        let _ = (o.aabb(), o.corners(), o.contains_point(&ray.origin));
        // A normal, when there is one, is a finite unit vector; degenerate triangles have
        // none.
        match tri.normal() {
            Some(n) => {
                assert!(n.iter().all(|c| c.is_finite()), "{tri:?}: {n:?}");
                assert!((n.norm() - 1.0).abs() < 1e-4, "{tri:?}: {n:?}");
            }
            None => assert!(tri.is_degenerate(), "{tri:?} has no normal"),
        }
    }
}
