//! aabb_aabb.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{aabb_aabb, Aabb};

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

#[test]
fn aabb_aabb_separated_only_along_z() {
    // Same x and y ranges, z ranges [0,1] and [2,3]: the published bug (min.z vs min.z)
    // reports overlap here.
    let above = Aabb::new(p3(0.0, 0.0, 2.0), p3(1.0, 1.0, 3.0));
    assert!(!aabb_aabb(&unit(), &above));
    assert!(!aabb_aabb(&above, &unit()));
    // Also with the upper box's min.z below the lower box's min.z? No: separated the other
    // way round, below.
    let below = Aabb::new(p3(0.2, 0.2, -3.0), p3(0.8, 0.8, -0.5));
    assert!(!aabb_aabb(&unit(), &below));
    // And a case where the wrong comparison (a.min.z <= b.min.z && b.min.z <= a.max.z style
    // mix-up) would say "apart" although the boxes overlap: b contains a along z.
    let tall = Aabb::new(p3(0.5, 0.5, -5.0), p3(2.0, 2.0, 5.0));
    assert!(aabb_aabb(&unit(), &tall));
    assert!(aabb_aabb(&tall, &unit()));
}

#[test]
fn aabb_aabb_separated_along_each_axis() {
    for i in 0..3 {
        let mut b = unit();
        b.min[i] = 1.5;
        b.max[i] = 2.0;
        assert!(!aabb_aabb(&unit(), &b), "axis {i}");
        b.min[i] = 1.0; // touching
        assert!(aabb_aabb(&unit(), &b), "touch axis {i}");
    }
}

#[test]
fn aabb_aabb_containment_corner_and_empty() {
    let inner = Aabb::new(p3(0.25, 0.25, 0.25), p3(0.5, 0.5, 0.5));
    assert!(aabb_aabb(&unit(), &inner) && aabb_aabb(&inner, &unit()));
    let corner = Aabb::from_point(p3(1.0, 1.0, 1.0));
    assert!(aabb_aabb(&unit(), &corner));
    assert!(!aabb_aabb(&unit(), &Aabb::EMPTY));
    assert!(!aabb_aabb(&Aabb::EMPTY, &Aabb::EMPTY));
    let inverted = Aabb::new(p3(0.8, 0.0, 0.0), p3(0.2, 1.0, 1.0));
    assert!(!aabb_aabb(&unit(), &inverted));
    let mut nan = unit();
    nan.max.y = f32::NAN;
    assert!(!aabb_aabb(&unit(), &nan));
}

proptest! {
    #![proptest_config(config(3000))]

    /// Overlap iff the f64 intersection box is non-empty; symmetric; and a shared sampled
    /// point implies overlap.
    #[test]
    fn aabb_aabb_matches_intersection_box(a in aabb(), b in aabb(), s in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0)) {
        let lo = w(&a.min).sup(&w(&b.min));
        let hi = w(&a.max).inf(&w(&b.max));
        let oracle = (0..3).all(|i| lo[i] <= hi[i]);
        prop_assert_eq!(aabb_aabb(&a, &b), oracle);
        prop_assert_eq!(aabb_aabb(&b, &a), oracle);
        let p = a.min + a.extents().component_mul(&v3(s.0, s.1, s.2));
        if b.contains_point(&p) && a.contains_point(&p) {
            prop_assert!(aabb_aabb(&a, &b));
        }
    }
}
