//! triangle_aabb and triangle_obb.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{triangle_aabb, triangle_obb, Aabb, Obb, Triangle};

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

#[test]
fn triangle_aabb_hand_cases() {
    // A corner inside.
    let t = Triangle::new(p3(0.5, 0.5, 0.5), p3(5.0, 5.0, 5.0), p3(5.0, 6.0, 5.0));
    assert!(triangle_aabb(&t, &unit()));
    // Slicing through with all corners outside (needs the triangle-plane or edge axes).
    let slice = Triangle::new(
        p3(-5.0, -5.0, 0.5),
        p3(10.0, -5.0, 0.5),
        p3(-5.0, 10.0, 0.5),
    );
    assert!(triangle_aabb(&slice, &unit()));
    // Separated by a box face normal.
    let above = Triangle::new(
        p3(-5.0, -5.0, 1.5),
        p3(10.0, -5.0, 1.5),
        p3(-5.0, 10.0, 1.5),
    );
    assert!(!triangle_aabb(&above, &unit()));
    // Separated only by the triangle normal: the plane x + y + z = 3.2 passes beyond the
    // corner (1,1,1) (which is at 3) but its box overlaps the unit box.
    let tilted = Triangle::new(p3(3.2, 0.0, 0.0), p3(0.0, 3.2, 0.0), p3(0.0, 0.0, 3.2));
    assert!(!triangle_aabb(&tilted, &unit()));
    let touching = Triangle::new(p3(3.0, 0.0, 0.0), p3(0.0, 3.0, 0.0), p3(0.0, 0.0, 3.0));
    assert!(triangle_aabb(&touching, &unit()));
    // A vertical sliver in the plane x + y = 2.2, beyond the edge x = y = 1, whose own box
    // overlaps the unit box.
    let sliver = Triangle::new(p3(2.2, 0.0, -1.0), p3(0.0, 2.2, -1.0), p3(0.0, 2.2, 2.0));
    assert!(!triangle_aabb(&sliver, &unit()));
    let sliver_in = Triangle::new(p3(1.9, 0.0, -1.0), p3(0.0, 1.9, -1.0), p3(0.0, 1.9, 2.0));
    assert!(triangle_aabb(&sliver_in, &unit()));
}

#[test]
fn triangle_aabb_degenerate_triangles() {
    // A segment crossing the box, and one passing the corner.
    let seg = Triangle::new(p3(-1.0, 0.5, 0.5), p3(2.0, 0.5, 0.5), p3(2.0, 0.5, 0.5));
    assert!(triangle_aabb(&seg, &unit()));
    // On the line x + y = 2.5, beyond the edge x = y = 1: only an edge cross axis separates.
    let past = Triangle::new(p3(-1.0, 3.5, 0.5), p3(3.5, -1.0, 0.5), p3(3.5, -1.0, 0.5));
    assert!(!triangle_aabb(&past, &unit()));
    let through = Triangle::new(p3(-1.0, 2.5, 0.5), p3(2.5, -1.0, 0.5), p3(2.5, -1.0, 0.5));
    assert!(triangle_aabb(&through, &unit()));
    // A point on the boundary, and one outside.
    let p = p3(1.0, 0.3, 0.0);
    assert!(triangle_aabb(&Triangle::new(p, p, p), &unit()));
    let q = p3(1.01, 0.3, 0.0);
    assert!(!triangle_aabb(&Triangle::new(q, q, q), &unit()));
}

#[test]
fn triangle_aabb_bad_input() {
    let t = Triangle::new(p3(0.5, 0.5, 0.5), p3(5.0, 5.0, 5.0), p3(5.0, 6.0, 5.0));
    assert!(!triangle_aabb(&t, &Aabb::EMPTY));
    let nan = Triangle::new(p3(f32::NAN, 0.5, 0.5), p3(5.0, 5.0, 5.0), p3(5.0, 6.0, 5.0));
    assert!(!triangle_aabb(&nan, &unit()));
    let far = Triangle::new(
        p3(f32::INFINITY, 0.5, 0.5),
        p3(5.0, 5.0, 5.0),
        p3(5.0, 6.0, 5.0),
    );
    assert!(!triangle_aabb(&far, &unit()));
    let inf = f32::INFINITY;
    let all = Aabb::new(p3(-inf, -inf, -inf), p3(inf, inf, inf));
    assert!(triangle_aabb(&t, &all));
}

#[test]
fn triangle_obb_hand_cases() {
    let rot = nalgebra::Rotation3::from_axis_angle(
        &nalgebra::Vector3::z_axis(),
        std::f32::consts::FRAC_PI_4,
    );
    let o = Obb::new(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0), rot);
    // The turned cube reaches x = sqrt2 ~ 1.414 at y = 0.
    let wall = |x: f32| Triangle::new(p3(x, -5.0, -5.0), p3(x, 5.0, -5.0), p3(x, 0.0, 5.0));
    assert!(triangle_obb(&wall(1.4), &o));
    assert!(!triangle_obb(&wall(1.43), &o));
    assert!(!triangle_obb(
        &wall(1.4),
        &Obb::new(o.center, v3(-1.0, 1.0, 1.0), rot)
    ));
    assert!(!triangle_obb(&wall(f32::NAN), &o));
}

/// Independent SAT: projects the 8 box corners and 3 triangle corners on the 13 axes.
fn sat_gap(t: &Triangle, corners: &[V64], box_axes: [V64; 3]) -> f64 {
    let v = [w(&t.a), w(&t.b), w(&t.c)];
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let mut axes: Vec<V64> = box_axes.to_vec();
    axes.push(e[0].cross(&e[1]));
    for ei in &e {
        for bj in &box_axes {
            axes.push(ei.cross(bj));
        }
    }
    axes.iter()
        .filter_map(|a| gap(&v, corners, *a))
        .fold(f64::NEG_INFINITY, f64::max)
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn triangle_aabb_matches_corner_projection_sat(t in triangle(), b in aabb()) {
        let g = sat_gap(&t, &aabb_corners64(&b), [V64::x(), V64::y(), V64::z()]);
        let got = triangle_aabb(&t, &b);
        if g > 1e-4 { prop_assert!(!got, "gap {g}"); }
        if g < -1e-4 { prop_assert!(got, "gap {g}"); }
        // A sampled triangle point in the box forces overlap.
        for (u, v) in [(0.3, 0.3), (0.1, 0.8), (0.5, 0.5), (0.0, 0.0)] {
            if b.contains_point(&t.point_at(u, v)) { prop_assert!(got); }
        }
    }

    #[test]
    fn triangle_obb_matches_corner_projection_sat(t in triangle(), o in obb()) {
        let r = o.rotation.matrix().cast::<f64>();
        let axes = [r.column(0).into_owned(), r.column(1).into_owned(), r.column(2).into_owned()];
        let g = sat_gap(&t, &obb_corners64(&o), axes);
        let got = triangle_obb(&t, &o);
        if g > 1e-3 { prop_assert!(!got, "gap {g}"); }
        if g < -1e-3 { prop_assert!(got, "gap {g}"); }
    }
}
