//! Fuzzes `Bvh::from_bytes`: any input must give an error or a structurally valid tree that
//! traverses without panicking.
#![no_main]

use std::ops::ControlFlow;

use libfuzzer_sys::fuzz_target;
use raypick_bvh::Bvh;
use raypick_primitives::{Aabb, Point3, Ray, Vector3};

fuzz_target!(|data: &[u8]| {
    let Ok(bvh) = Bvh::from_bytes(data) else {
        return;
    };
    bvh.validate_structure().expect("loaded trees are valid");
    assert_eq!(Bvh::from_bytes(&bvh.to_bytes()).unwrap(), bvh);
    let ray = Ray::new(Point3::new(-10.0, 0.1, 0.2), Vector3::new(1.0, 0.01, 0.02));
    bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |r, _| {
        assert!(r.end <= bvh.len());
        ControlFlow::Continue(())
    });
    let q = Aabb::new(Point3::new(-1e30, -1e30, -1e30), Point3::new(1e30, 1e30, 1e30));
    let mut seen = 0;
    bvh.traverse_aabb(&q, |r| {
        seen += r.len();
        ControlFlow::Continue(())
    });
    assert!(seen <= bvh.len());
    bvh.traverse_best_first(f32::INFINITY, |b| b.min.x, |_, _| ControlFlow::Continue(()));
});
