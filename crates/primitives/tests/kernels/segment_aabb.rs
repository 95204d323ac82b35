//! segment_aabb.

use crate::common::*;
use proptest::prelude::*;
use raypick_primitives::{segment_aabb, Aabb};

fn unit() -> Aabb {
    Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0))
}

#[test]
fn segment_aabb_hand_cases() {
    let a = p3(-1.0, 0.5, 0.5);
    assert_eq!(
        segment_aabb(&a, &p3(3.0, 0.5, 0.5), &unit()),
        Some((0.25, 0.5))
    );
    assert_eq!(
        segment_aabb(&a, &p3(0.0, 0.5, 0.5), &unit()),
        Some((1.0, 1.0))
    ); // ends on face
    assert_eq!(segment_aabb(&a, &p3(-0.5, 0.5, 0.5), &unit()), None);
    // Starts inside.
    assert_eq!(
        segment_aabb(&p3(0.5, 0.5, 0.5), &p3(0.5, 0.5, 2.5), &unit()),
        Some((0.0, 0.25))
    );
    // Fully inside.
    assert_eq!(
        segment_aabb(&p3(0.25, 0.5, 0.5), &p3(0.75, 0.5, 0.5), &unit()),
        Some((0.0, 1.0))
    );
}

#[test]
fn segment_aabb_zero_length_and_bad_input() {
    let p = p3(0.5, 0.5, 0.5);
    assert_eq!(segment_aabb(&p, &p, &unit()), Some((0.0, 1.0)));
    let q = p3(2.0, 0.5, 0.5);
    assert_eq!(segment_aabb(&q, &q, &unit()), None);
    let n = p3(f32::NAN, 0.5, 0.5);
    assert_eq!(segment_aabb(&n, &n, &unit()), None);
    assert_eq!(segment_aabb(&n, &p, &unit()), None);
    assert_eq!(segment_aabb(&p, &q, &Aabb::EMPTY), None);
}

proptest! {
    #![proptest_config(config(2000))]

    /// Against the f64 oracle: the interval endpoints are on or inside the box, and points of
    /// the segment sampled outside the interval are outside the (slightly shrunk) box.
    #[test]
    fn segment_aabb_matches_sampling(a in point(), b in point(), bx in aabb()) {
        let got = segment_aabb(&a, &b, &bx);
        let at = |t: f64| w(&a) + (w(&b) - w(&a)) * t;
        let inside = |p: crate::common::V64, m: f64| {
            (0..3).all(|i| p[i] >= bx.min[i] as f64 - m && p[i] <= bx.max[i] as f64 + m)
        };
        if let Some((e, x)) = got {
            prop_assert!((0.0..=1.0).contains(&e) && (0.0..=1.0).contains(&x) && e <= x);
            prop_assert!(inside(at(e as f64), 1e-4) && inside(at(x as f64), 1e-4));
        }
        for k in 0..=64 {
            let t = k as f64 / 64.0;
            let in_interval = got.is_some_and(|(e, x)| t >= e as f64 - 1e-4 && t <= x as f64 + 1e-4);
            if inside(at(t), -1e-4) {
                prop_assert!(in_interval, "sample t={t} inside the box but outside {got:?}");
            }
        }
    }
}
