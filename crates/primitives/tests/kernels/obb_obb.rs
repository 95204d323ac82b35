//! obb_obb.

use crate::common::*;
use nalgebra::Rotation3;
use proptest::prelude::*;
use raypick_primitives::{aabb_aabb, obb_obb, Aabb, Obb};

fn rot_z(a: f32) -> Rotation3<f32> {
    Rotation3::from_axis_angle(&nalgebra::Vector3::z_axis(), a)
}

#[test]
fn obb_obb_face_axes() {
    let a = Obb::new(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0), Rotation3::identity());
    let t = rot_z(std::f32::consts::FRAC_PI_4);
    let b = |x: f32| Obb::new(p3(x, 0.0, 0.0), v3(1.0, 1.0, 1.0), t);
    assert!(obb_obb(&a, &b(2.4)));
    assert!(!obb_obb(&a, &b(2.45)));
    assert!(obb_obb(&b(2.4), &a));
    assert!(!obb_obb(&b(2.45), &a));
}

#[test]
fn obb_obb_edge_edge_axis() {
    // a turned 45 deg about z, b turned 45 deg about y: a's rightmost feature is its edge
    // along z at x = sqrt2, b's leftmost is its edge along y at x = c - sqrt2. Only the axis
    // z x y = -x (an edge-edge axis; no face normal of either box) separates them.
    let a = Obb::new(
        p3(0.0, 0.0, 0.0),
        v3(1.0, 1.0, 1.0),
        rot_z(std::f32::consts::FRAC_PI_4),
    );
    let rx = Rotation3::from_axis_angle(&nalgebra::Vector3::y_axis(), std::f32::consts::FRAC_PI_4);
    let s2 = 2f32.sqrt();
    // a's vertical edge at (sqrt2, 0, z); b's edge parallel to y at (x, y, z) with x = c - sqrt2.
    let b = |c: f32| Obb::new(p3(c, 0.0, 0.0), v3(1.0, 1.0, 1.0), rx);
    // Along x the extents add up to 2 sqrt2: touching at c = 2 sqrt2.
    assert!(obb_obb(&a, &b(2.0 * s2 - 0.01)));
    assert!(!obb_obb(&a, &b(2.0 * s2 + 0.01)));
    // Shifted along y: separated by b's face normal y.
    let c = Obb::new(p3(2.0 * s2 - 0.01, 3.0, 0.0), v3(1.0, 1.0, 1.0), rx);
    assert!(!obb_obb(&a, &c));
}

#[test]
fn obb_obb_parallel_edges_are_robust() {
    // Identical rotations make all nine edge cross products zero: the epsilon must keep the
    // test from reporting separation for overlapping boxes.
    let r = Rotation3::from_euler_angles(0.3, 0.7, -1.1);
    let a = Obb::new(p3(0.0, 0.0, 0.0), v3(1.0, 2.0, 3.0), r);
    for k in 0..50 {
        let off = r * v3(1.9, 3.9, 5.9) * (k as f32 / 50.0);
        let b = Obb::new(p3(0.0, 0.0, 0.0) + off, v3(1.0, 2.0, 3.0), r);
        assert!(obb_obb(&a, &b), "k={k}");
    }
    let far = Obb::new(
        p3(0.0, 0.0, 0.0) + r * v3(2.1, 0.0, 0.0),
        v3(1.0, 2.0, 3.0),
        r,
    );
    assert!(!obb_obb(&a, &far));
}

#[test]
fn obb_obb_bad_input() {
    let a = Obb::new(p3(0.0, 0.0, 0.0), v3(1.0, 1.0, 1.0), Rotation3::identity());
    let mut b = a;
    assert!(obb_obb(&a, &b));
    b.half_extents.x = -1.0;
    assert!(!obb_obb(&a, &b));
    let mut c = a;
    c.center.y = f32::NAN;
    assert!(!obb_obb(&a, &c));
    let mut d = a;
    d.half_extents.z = f32::INFINITY;
    assert!(!obb_obb(&a, &d));
}

proptest! {
    #![proptest_config(config(3000))]

    /// Against an independent SAT that projects the 8 + 8 corners in f64 onto the 15 axes.
    #[test]
    fn obb_obb_matches_corner_projection_sat(a in obb(), b in obb()) {
        let (ca, cb) = (obb_corners64(&a), obb_corners64(&b));
        let ra = a.rotation.matrix().cast::<f64>();
        let rb = b.rotation.matrix().cast::<f64>();
        let mut axes = vec![];
        for i in 0..3 {
            axes.push(ra.column(i).into_owned());
            axes.push(rb.column(i).into_owned());
            for j in 0..3 {
                axes.push(ra.column(i).cross(&rb.column(j)));
            }
        }
        let max_gap = axes.iter().filter_map(|ax| gap(&ca, &cb, *ax)).fold(f64::NEG_INFINITY, f64::max);
        let got = obb_obb(&a, &b);
        prop_assert_eq!(got, obb_obb(&b, &a));
        if max_gap > 1e-4 { prop_assert!(!got, "gap {max_gap}"); }
        if max_gap < -1e-4 { prop_assert!(got, "gap {max_gap}"); }
    }

    /// With identity rotations the test is the AABB test.
    #[test]
    fn obb_obb_identity_is_aabb_aabb(a in aabb(), b in aabb()) {
        prop_assume!(a.extents().min() > 1e-3 && b.extents().min() > 1e-3);
        let lo = w(&a.min).sup(&w(&b.min));
        let hi = w(&a.max).inf(&w(&b.max));
        let margin = (0..3).map(|i| hi[i] - lo[i]).fold(f64::INFINITY, f64::min);
        prop_assume!(margin.abs() > 1e-4);
        prop_assert_eq!(obb_obb(&Obb::from_aabb(&a), &Obb::from_aabb(&b)), aabb_aabb(&a, &b));
        let _ = Aabb::EMPTY;
    }
}
