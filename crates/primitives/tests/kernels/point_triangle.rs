//! point_triangle.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{point_triangle, Triangle};

fn tri() -> Triangle {
    Triangle::new(p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(0.0, 2.0, 0.0))
}

#[test]
fn point_triangle_all_seven_regions() {
    let cases = [
        // (query, closest point, u, v)
        (p3(0.5, 0.5, 3.0), p3(0.5, 0.5, 0.0), 0.25, 0.25), // face
        (p3(-1.0, -1.0, 0.0), p3(0.0, 0.0, 0.0), 0.0, 0.0), // vertex a
        (p3(3.0, -1.0, 1.0), p3(2.0, 0.0, 0.0), 1.0, 0.0),  // vertex b
        (p3(-1.0, 3.0, 0.0), p3(0.0, 2.0, 0.0), 0.0, 1.0),  // vertex c
        (p3(1.0, -2.0, 0.0), p3(1.0, 0.0, 0.0), 0.5, 0.0),  // edge ab
        (p3(-2.0, 1.5, 0.0), p3(0.0, 1.5, 0.0), 0.0, 0.75), // edge ac
        (p3(2.0, 2.0, 0.0), p3(1.0, 1.0, 0.0), 0.5, 0.5),   // edge bc
    ];
    for (q, want, u, v) in cases {
        let r = point_triangle(&q, &tri()).unwrap();
        assert_eq!((r.point, r.u, r.v), (want, u, v), "query {q}");
        assert_eq!(r.distance_squared, (q - want).norm_squared());
    }
}

#[test]
fn point_triangle_degenerate_triangles() {
    // Collinear: the segment from (0,0,0) to (2,0,0) (c in the middle).
    let seg = Triangle::new(p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(1.0, 0.0, 0.0));
    let r = point_triangle(&p3(1.5, 1.0, 0.0), &seg).unwrap();
    assert!((r.point - p3(1.5, 0.0, 0.0)).norm() < 1e-6, "{r:?}");
    assert!((seg.point_at(r.u, r.v) - r.point).norm() < 1e-6);
    // All corners equal.
    let p = p3(1.0, 2.0, 3.0);
    let r = point_triangle(&p3(0.0, 0.0, 0.0), &Triangle::new(p, p, p)).unwrap();
    assert_eq!(r.point, p);
    // Two corners equal.
    let t = Triangle::new(p3(0.0, 0.0, 0.0), p3(0.0, 0.0, 0.0), p3(0.0, 4.0, 0.0));
    let r = point_triangle(&p3(1.0, 2.0, 0.0), &t).unwrap();
    assert_eq!(r.point, p3(0.0, 2.0, 0.0));
}

#[test]
fn point_triangle_non_finite_is_none() {
    assert!(point_triangle(&p3(f32::NAN, 0.0, 0.0), &tri()).is_none());
    assert!(point_triangle(&p3(f32::INFINITY, 0.0, 0.0), &tri()).is_none());
    let mut t = tri();
    t.c.y = f32::NAN;
    assert!(point_triangle(&p3(0.0, 0.0, 0.0), &t).is_none());
}

proptest! {
    #![proptest_config(config(4000))]

    /// The distance matches a region-free f64 oracle; the point is on the triangle and is
    /// the barycentric combination reported.
    #[test]
    fn point_triangle_matches_f64_oracle(t in triangle(), q in point()) {
        let r = point_triangle(&q, &t).unwrap();
        let d = dist_point_triangle64(w(&q), w(&t.a), w(&t.b), w(&t.c));
        let got = (r.distance_squared as f64).sqrt();
        prop_assert!((got - d).abs() <= 1e-4 * (1.0 + d), "{got} vs {d}");
        prop_assert!(r.u >= 0.0 && r.v >= 0.0 && r.u + r.v <= 1.0 + 1e-6, "{r:?}");
        prop_assert!(((t.point_at(r.u, r.v) - r.point).norm() as f64) <= 1e-4 * (1.0 + d));
        prop_assert!(((q - r.point).norm() as f64 - d).abs() <= 1e-4 * (1.0 + d));
    }
}
