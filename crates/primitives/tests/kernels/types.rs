//! The value types: Ray, Aabb, Plane, Sphere, Obb, Triangle, Classification, GeometryError.

use crate::common::*;
use nalgebra::{Rotation3, UnitQuaternion};
use proptest::prelude::*;
use raypick_primitives::{
    Aabb, Classification, GeometryError, Obb, Plane, Ray, Sphere, Triangle, WatertightRay,
};

#[test]
fn types_ray_at_and_validity() {
    let r = Ray::new(p3(1.0, 2.0, 3.0), v3(0.0, 0.0, 2.0));
    assert_eq!(r.at(1.5), p3(1.0, 2.0, 6.0)); // not normalized
    assert!(r.is_valid());
    assert!(!Ray::new(p3(1.0, 2.0, 3.0), v3(0.0, 0.0, 0.0)).is_valid());
    assert!(!Ray::new(p3(f32::NAN, 2.0, 3.0), v3(0.0, 0.0, 1.0)).is_valid());
    assert!(!Ray::new(p3(1.0, 2.0, 3.0), v3(0.0, f32::INFINITY, 1.0)).is_valid());
}

/// `is_valid` (written as one sum of `x * 0` terms), and `WatertightRay::new`'s `valid`,
/// against the rule component by component, over every mix of special values in every slot.
#[test]
fn types_ray_validity_matches_the_componentwise_rule() {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -3.5,
        f32::MIN_POSITIVE / 4.0,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let mut invalid = 0;
    // Each component takes each special value in turn, with the others drawn from a
    // smaller set, so that every slot meets every value next to zeros and finite values.
    let others = [0.0, -0.0, 2.0, f32::NAN];
    for slot in 0..6 {
        for &x in &specials {
            for (n, &y) in others.iter().enumerate() {
                let mut c = [y; 6];
                c[slot] = x;
                c[(slot + 1 + n) % 6] = 1.5;
                let r = Ray::new(p3(c[0], c[1], c[2]), v3(c[3], c[4], c[5]));
                let expected = c.iter().all(|v| v.is_finite()) && c[3..].iter().any(|&v| v != 0.0);
                assert_eq!(r.is_valid(), expected, "{c:?}");
                // `WatertightRay::new` tests a zero direction on its dominant axis instead,
                // and takes a direction whose reciprocal overflows (subnormal) for zero.
                let largest = c[3..].iter().fold(0.0f32, |m, v| m.max(v.abs()));
                let w_expected = expected && largest.recip().is_finite();
                assert_eq!(WatertightRay::new(&r).valid, w_expected, "watertight {c:?}");
                invalid += usize::from(!expected);
            }
        }
    }
    assert!(invalid > 50 && invalid < 216, "{invalid}");
}

#[test]
fn types_aabb_core_operations() {
    let a = Aabb::new(p3(0.0, 0.0, 0.0), p3(2.0, 3.0, 4.0));
    assert_eq!(a.union(&Aabb::EMPTY), a);
    assert_eq!(Aabb::EMPTY.union(&a), a);
    assert_eq!(
        Aabb::EMPTY.grow(&p3(1.0, 1.0, 1.0)),
        Aabb::from_point(p3(1.0, 1.0, 1.0))
    );
    assert_eq!(Aabb::default(), Aabb::EMPTY);
    assert_eq!(a.center(), p3(1.0, 1.5, 2.0));
    assert_eq!(a.extents(), v3(2.0, 3.0, 4.0));
    assert_eq!(a.half_extents(), v3(1.0, 1.5, 2.0));
    assert_eq!(a.surface_area(), 2.0 * (6.0 + 12.0 + 8.0));
    assert_eq!(a.volume(), 24.0);
    assert_eq!(Aabb::EMPTY.surface_area(), 0.0);
    assert_eq!(Aabb::EMPTY.volume(), 0.0);
    assert_eq!(a.largest_axis(), 2);
    assert!(a.contains_point(&p3(2.0, 0.0, 4.0)));
    assert!(!a.contains_point(&p3(2.1, 0.0, 4.0)));
    assert!(!a.contains_point(&p3(f32::NAN, 0.0, 0.0)));
    assert!(a.contains_aabb(&Aabb::new(p3(1.0, 1.0, 1.0), p3(2.0, 2.0, 2.0))));
    assert!(!a.contains_aabb(&Aabb::new(p3(1.0, 1.0, 1.0), p3(2.0, 4.0, 2.0))));
    assert!(a.contains_aabb(&Aabb::EMPTY));
    assert!(!Aabb::from_point(p3(1.0, 1.0, 1.0)).is_empty());
    let g = a.grow(&p3(-1.0, 5.0, f32::NAN));
    assert_eq!((g.min, g.max), (p3(-1.0, 0.0, 0.0), p3(2.0, 5.0, 4.0)));
}

#[test]
fn types_aabb_closest_point_and_distance() {
    let a = Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 2.0, 3.0));
    assert_eq!(a.closest_point(&p3(0.5, 1.0, 1.0)), p3(0.5, 1.0, 1.0));
    assert_eq!(a.closest_point(&p3(-1.0, 5.0, 1.0)), p3(0.0, 2.0, 1.0));
    assert_eq!(a.distance_squared_to_point(&p3(0.5, 1.0, 1.0)), 0.0);
    assert_eq!(a.distance_squared_to_point(&p3(-1.0, 5.0, 1.0)), 10.0);
    assert_eq!(a.distance_squared_to_point(&p3(4.0, 6.0, 3.0)), 25.0);
    assert_eq!(
        Aabb::EMPTY.distance_squared_to_point(&p3(0.0, 0.0, 0.0)),
        f32::INFINITY
    );
    assert!(a
        .distance_squared_to_point(&p3(f32::NAN, 0.0, 0.0))
        .is_nan());
    assert!(a.closest_point(&p3(0.0, f32::NAN, 0.0)).y.is_nan());
    let big = Aabb::new(p3(-1e30, -1e30, -1e30), p3(1e30, 1e30, 1e30));
    assert_eq!(
        big.distance_squared_to_point(&p3(3e30, 0.0, 0.0)),
        4e60f64 as f32
    );
}

#[test]
fn types_plane_constructors_and_errors() {
    let p = Plane::from_point_normal(&p3(0.0, 0.0, 2.0), &v3(0.0, 0.0, 5.0));
    assert_eq!((p.normal.into_inner(), p.offset), (v3(0.0, 0.0, 1.0), 2.0));
    assert_eq!(p.signed_distance(&p3(7.0, 1.0, 5.0)), 3.0);
    assert_eq!(p.signed_distance(&p3(7.0, 1.0, -1.0)), -3.0);
    assert_eq!(p.project_point(&p3(7.0, 1.0, 5.0)), p3(7.0, 1.0, 2.0));
    assert_eq!(p.flipped().signed_distance(&p3(0.0, 0.0, 5.0)), -3.0);
    assert!(p.is_valid());
    // Three points, counter-clockwise from +z: normal +z.
    let q =
        Plane::try_from_points(&p3(0.0, 0.0, 1.0), &p3(1.0, 0.0, 1.0), &p3(0.0, 1.0, 1.0)).unwrap();
    assert_eq!((q.normal.into_inner(), q.offset), (v3(0.0, 0.0, 1.0), 1.0));
    assert_eq!(
        Plane::try_from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 0.0)),
        Err(GeometryError::ZeroNormal)
    );
    assert_eq!(
        Plane::try_from_point_normal(&p3(0.0, f32::NAN, 0.0), &v3(0.0, 0.0, 1.0)),
        Err(GeometryError::NonFinite("plane point"))
    );
    assert_eq!(
        Plane::try_from_point_normal(&p3(0.0, 0.0, 0.0), &v3(f32::INFINITY, 0.0, 1.0)),
        Err(GeometryError::NonFinite("plane normal"))
    );
    assert_eq!(
        Plane::try_from_points(&p3(0.0, 0.0, 0.0), &p3(1.0, 1.0, 1.0), &p3(2.0, 2.0, 2.0)),
        Err(GeometryError::CollinearPoints)
    );
    assert_eq!(
        Plane::try_from_points(&p3(0.0, 0.0, 0.0), &p3(1.0, 1.0, 1.0), &p3(1.0, 1.0, 1.0)),
        Err(GeometryError::CollinearPoints)
    );
    assert_eq!(
        Plane::try_from_points(
            &p3(0.0, 0.0, 0.0),
            &p3(1.0, f32::NAN, 1.0),
            &p3(0.0, 1.0, 0.0)
        ),
        Err(GeometryError::NonFinite("point b"))
    );
    assert!(GeometryError::NonFinite("point b")
        .to_string()
        .contains("point b"));
    // The unchecked twins give NaN planes instead of panicking.
    assert!(!Plane::from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 0.0, 0.0)).is_valid());
    assert!(
        !Plane::from_points(&p3(0.0, 0.0, 0.0), &p3(0.0, 0.0, 0.0), &p3(0.0, 0.0, 0.0)).is_valid()
    );
    // A tiny but non-zero normal still normalizes.
    let tiny = Plane::try_from_point_normal(&p3(0.0, 0.0, 0.0), &v3(0.0, 1e-30, 0.0)).unwrap();
    assert_eq!(tiny.normal.into_inner(), v3(0.0, 1.0, 0.0));
}

#[test]
fn types_sphere_and_obb_basics() {
    let s = Sphere::new(p3(0.0, 0.0, 0.0), 2.0);
    assert!(s.contains_point(&p3(2.0, 0.0, 0.0)) && !s.contains_point(&p3(2.0, 0.1, 0.0)));
    assert!(!s.is_empty() && Sphere::new(s.center, -1.0).is_empty());
    assert!(!Sphere::new(s.center, -1.0).contains_point(&s.center));
    let q =
        UnitQuaternion::from_axis_angle(&nalgebra::Vector3::z_axis(), std::f32::consts::FRAC_PI_2);
    let o = Obb::from_quaternion(p3(1.0, 0.0, 0.0), v3(2.0, 1.0, 0.5), &q);
    assert!((o.axis(0) - v3(0.0, 1.0, 0.0)).norm() < 1e-6);
    assert!(o.contains_point(&p3(1.0, 1.9, 0.0)) && !o.contains_point(&p3(2.1, 0.0, 0.0)));
    assert!((o.to_local(&p3(1.0, 2.0, 0.0)) - p3(2.0, 0.0, 0.0)).norm() < 1e-6);
    let b = o.aabb();
    assert!(
        (b.min - p3(0.0, -2.0, -0.5)).norm() < 1e-6 && (b.max - p3(2.0, 2.0, 0.5)).norm() < 1e-6
    );
    assert_eq!(o.volume(), 8.0);
    assert!(o
        .corners()
        .iter()
        .all(|c| b.contains_point(c) || (c - b.min).norm() < 1e-5 || (c - b.max).norm() < 1e-5));
    assert!((o.quaternion().angle_to(&q)).abs() < 1e-6);
    let from = Obb::from_aabb(&Aabb::new(p3(0.0, 0.0, 0.0), p3(2.0, 4.0, 6.0)));
    assert_eq!(
        (from.center, from.half_extents, from.rotation),
        (p3(1.0, 2.0, 3.0), v3(1.0, 2.0, 3.0), Rotation3::identity())
    );
}

#[test]
fn types_triangle_and_classification() {
    let t = Triangle::new(p3(0.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(0.0, 2.0, 0.0));
    assert_eq!(t.scaled_normal(), v3(0.0, 0.0, 4.0));
    assert_eq!(t.normal().unwrap().into_inner(), v3(0.0, 0.0, 1.0));
    assert_eq!(t.area(), 2.0);
    assert_eq!(t.point_at(0.5, 0.25), p3(1.0, 0.5, 0.0));
    assert!(!t.is_degenerate());
    let d = Triangle::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0), p3(3.0, 3.0, 3.0));
    assert!(d.is_degenerate() && d.normal().is_none());
    assert!(Triangle::new(p3(f32::NAN, 0.0, 0.0), t.b, t.c)
        .normal()
        .is_none());
    assert_eq!(t.aabb(), Aabb::new(p3(0.0, 0.0, 0.0), p3(2.0, 2.0, 0.0)));
    assert!(Classification::Outside.is_outside() && !Classification::Outside.may_intersect());
    assert!(Classification::Inside.may_intersect() && Classification::Intersecting.may_intersect());
}

proptest! {
    #![proptest_config(config(2000))]

    /// A plane through three points has them at (near) zero signed distance, with the normal
    /// along (b - a) x (c - a).
    #[test]
    fn types_plane_from_points_contains_them(a in point(), b in point(), c in point()) {
        let Ok(p) = Plane::try_from_points(&a, &b, &c) else { return Ok(()); };
        let n = (w(&b) - w(&a)).cross(&(w(&c) - w(&a)));
        prop_assume!(n.norm() > 1e-3);
        for q in [a, b, c] {
            prop_assert!(p.signed_distance(&q).abs() < 1e-4 * (1.0 + q.coords.norm()));
        }
        prop_assert!(wv(&p.normal).dot(&n) > 0.0);
        prop_assert!((p.normal.norm() - 1.0).abs() < 1e-6);
    }

    /// The distance to the box is the distance to its closest point, which is in the box and
    /// no farther than any sampled box point.
    #[test]
    fn types_aabb_distance_matches_closest_point(b in aabb(), p in point(), s in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0)) {
        let c = b.closest_point(&p);
        prop_assert!(b.contains_point(&c));
        let d2 = b.distance_squared_to_point(&p) as f64;
        prop_assert!((d2 - (w(&c) - w(&p)).norm_squared()).abs() <= 1e-5 * (1.0 + d2));
        let q = b.min + b.extents().component_mul(&v3(s.0, s.1, s.2));
        prop_assert!(d2 <= (w(&q) - w(&p)).norm_squared() * (1.0 + 1e-6) + 1e-6);
    }

    /// The three representations of a box convert into each other.
    #[test]
    fn types_aabb_representations_round_trip(b in aabb()) {
        let (c, h) = b.to_center_half_extents();
        let b2 = Aabb::from_center_half_extents(c, h);
        let (m, s) = b.to_min_size();
        let b3 = Aabb::from_min_size(m, s);
        for i in 0..3 {
            prop_assert!((b2.min[i] - b.min[i]).abs() <= 1e-5 * (1.0 + b.min[i].abs()));
            prop_assert!((b2.max[i] - b.max[i]).abs() <= 1e-5 * (1.0 + b.max[i].abs()));
            prop_assert!((b3.max[i] - b.max[i]).abs() <= 1e-5 * (1.0 + b.max[i].abs()));
        }
        prop_assert_eq!(b3.min, b.min);
    }
}
