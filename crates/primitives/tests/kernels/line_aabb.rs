//! line_aabb.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{line_aabb, ray_aabb, Aabb, Ray};

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

#[test]
fn line_aabb_hand_cases() {
    // In front, behind, through the origin inside.
    let l = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), Some((1.0, 2.0)));
    let l = Ray::new(p3(3.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), Some((-3.0, -2.0)));
    let l = Ray::new(p3(0.5, 0.5, 0.5), v3(0.0, 2.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), Some((-0.25, 0.25)));
    // Parallel, outside a slab.
    let l = Ray::new(p3(3.0, 1.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), None);
    // Lying in a face plane.
    let l = Ray::new(p3(5.0, 1.0, 0.5), v3(-1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), Some((4.0, 5.0)));
}

#[test]
fn line_aabb_bad_input() {
    let l = Ray::new(p3(f32::NAN, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), None);
    let l = Ray::new(p3(0.5, 0.5, 0.5), v3(0.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &unit()), None);
    let l = Ray::new(p3(-1.0, 0.5, 0.5), v3(1.0, 0.0, 0.0));
    assert_eq!(line_aabb(&l, &Aabb::EMPTY), None);
}

proptest! {
    #![proptest_config(config(2000))]

    /// The line hits exactly when the ray or the reversed ray hits, with the same interval.
    #[test]
    fn line_aabb_is_union_of_both_rays(o in point(), d in direction(), b in aabb()) {
        let line = Ray::new(o, d);
        let got = line_aabb(&line, &b);
        let fwd = ray_aabb(&line, &b, 0.0, f32::INFINITY);
        let back = ray_aabb(&Ray::new(o, -d), &b, 0.0, f32::INFINITY);
        prop_assert_eq!(got.is_some(), fwd.is_some() || back.is_some());
        if let (Some((e, x)), Some((fe, fx))) = (got, fwd) {
            prop_assert_eq!(x, fx);
            prop_assert!(e <= fe);
        }
        if let (Some((e, _)), Some((_, bx))) = (got, back) {
            prop_assert_eq!(e, -bx);
        }
    }
}
