//! point_triangle.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{point_triangle, point_triangle_lower_bounds, Triangle};

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

/// Triangles of every shape: general, slivers (the third corner within `1e-k` of the first
/// edge), one tiny edge, and degenerate ones; all moved by a common offset.
fn hard_triangle() -> impl Strategy<Value = (Triangle, [f32; 3])> {
    (
        triangle(),
        0u8..4,
        -7i32..0,
        0.0f32..1.0,
        prop::array::uniform3(-1.0e4f32..1.0e4),
        any::<bool>(),
    )
        .prop_map(|(t, kind, k, s, off, shift)| {
            let e = 10f32.powi(k);
            let t = match kind {
                0 => t,
                // c near the edge ab: a sliver of width about e.
                1 => Triangle::new(t.a, t.b, t.a + (t.b - t.a) * s + (t.c - t.a) * e),
                // b near a: a tiny edge.
                2 => Triangle::new(t.a, t.a + (t.b - t.a) * e, t.c),
                // c on ab: degenerate (up to rounding).
                _ => Triangle::new(t.a, t.b, t.a + (t.b - t.a) * s),
            };
            (t, if shift { off } else { [0.0; 3] })
        })
}

#[test]
fn point_triangle_lower_bounds_hand_cases() {
    // The seven regions of `tri()` in lanes 0-6, a degenerate triangle in lane 7.
    let qs = [
        p3(0.5, 0.5, 3.0),
        p3(-1.0, -1.0, 0.0),
        p3(3.0, -1.0, 1.0),
        p3(-1.0, 3.0, 0.0),
        p3(1.0, -2.0, 0.0),
        p3(-2.0, 1.5, 0.0),
        p3(2.0, 2.0, 0.0),
    ];
    let want = [9.0, 2.0, 3.0, 2.0, 4.0, 4.0, 2.0];
    let t = tri();
    for (q, want) in qs.iter().zip(want) {
        let mut rows = [[0.0f32; 8]; 9];
        for (c, v) in [t.a, t.b, t.c].iter().enumerate() {
            for a in 0..3 {
                rows[3 * c + a] = [v[a]; 8];
            }
        }
        // Lane 7: the segment (0,0,0)-(2,0,0) as a triangle with c in the middle.
        rows[6][7] = 1.0;
        rows[7][7] = 0.0;
        let got = point_triangle_lower_bounds([q.x, q.y, q.z], &rows, 3.0);
        for (l, g) in got.iter().enumerate().take(7) {
            assert!((g - want).abs() <= 1e-5, "{q} lane {l}: {g}");
        }
        let (s0, s1, s2) = (p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(1.0, 0.0, 0.0));
        let seg = dist_point_triangle64(w(q), w(&s0), w(&s1), w(&s2));
        assert!(
            (f64::from(got[7]).sqrt() - seg).abs() <= 1e-5,
            "{q}: {}",
            got[7]
        );
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// The lower bound's square root never exceeds the exact f64 distance by more than
    /// 1e-5 of the largest coordinate magnitude, and is not far below it on ordinary
    /// triangles (it is meant to reject).
    #[test]
    fn point_triangle_lower_bounds_hold((t, off) in hard_triangle(), q in point(), far in 0u8..3) {
        let o = p3(off[0], off[1], off[2]).coords;
        let q = q * 10f32.powi(i32::from(far)) + o;
        let (a, b, c) = (t.a + o, t.b + o, t.c + o);
        let mut rows = [[0.0f32; 8]; 9];
        for (k, v) in [a, b, c].iter().enumerate() {
            for x in 0..3 {
                rows[3 * k + x] = [v[x]; 8];
            }
        }
        let scale = [q, a, b, c].iter().flat_map(|p| p.iter().map(|x| x.abs())).fold(0.0f32, f32::max);
        let got = point_triangle_lower_bounds([q.x, q.y, q.z], &rows, scale)[3];
        let d = dist_point_triangle64(w(&q), w(&a), w(&b), w(&c));
        let slack = 1e-5 * f64::from(scale);
        let lb = f64::from(got).sqrt();
        prop_assert!(lb <= d + slack, "bound {lb} over distance {d} (slack {slack})");
        // Tight on well-shaped triangles (degenerate ones may fall back to a weaker bound).
        let (ab, ac) = (w(&b) - w(&a), w(&c) - w(&a));
        let longest = ab.norm().max(ac.norm()).max((w(&c) - w(&b)).norm());
        if ab.cross(&ac).norm() > 0.1 * longest * longest {
            prop_assert!(lb >= d - 2.0 * slack, "bound {lb} far below {d}");
        }
    }
}
