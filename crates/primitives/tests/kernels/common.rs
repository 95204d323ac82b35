//! Shared strategies, configuration and f64 helpers.

#![allow(dead_code)]

use proptest::prelude::*;
use raypick_primitives::{Aabb, Obb, Point3, Real, Triangle, Vector3};

/// Cases per property: `RAYPICK_PROPTEST_CASES`, else `default` (x10 with `RAYPICK_LONG=1`).
pub fn cases(default: u32) -> u32 {
    if let Some(n) = std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("RAYPICK_LONG").is_ok_and(|v| v == "1") {
        return default * 10;
    }
    default
}

/// Fixed seed for reproducible CI; `RAYPICK_PROPTEST_SEED=N` picks another, `=random` a
/// random one.
pub fn config(default: u32) -> ProptestConfig {
    let rng_seed = match std::env::var("RAYPICK_PROPTEST_SEED").ok().as_deref() {
        Some("random") => proptest::test_runner::RngSeed::Random,
        Some(s) => proptest::test_runner::RngSeed::Fixed(s.parse().unwrap_or(0x5EED)),
        None => proptest::test_runner::RngSeed::Fixed(0x5EED),
    };
    let cases = cases(default);
    ProptestConfig {
        cases,
        max_global_rejects: cases.saturating_mul(10),
        failure_persistence: None,
        rng_seed,
        ..ProptestConfig::default()
    }
}

pub type V64 = nalgebra::Vector3<f64>;

pub fn w(p: &Point3<Real>) -> V64 {
    p.coords.cast::<f64>()
}

pub fn wv(v: &Vector3<Real>) -> V64 {
    v.cast::<f64>()
}

pub fn p3(x: f32, y: f32, z: f32) -> Point3<Real> {
    Point3::new(x, y, z)
}

pub fn v3(x: f32, y: f32, z: f32) -> Vector3<Real> {
    Vector3::new(x, y, z)
}

pub fn coord() -> impl Strategy<Value = f32> {
    -10.0f32..10.0
}

pub fn point() -> impl Strategy<Value = Point3<Real>> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| Point3::new(x, y, z))
}

/// Mostly small values, sometimes exactly zero (to exercise axis-parallel cases).
pub fn dir_component() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -5.0f32..5.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
    ]
}

pub fn direction() -> impl Strategy<Value = Vector3<Real>> {
    (dir_component(), dir_component(), dir_component()).prop_map(|(x, y, z)| Vector3::new(x, y, z))
}

pub fn aabb() -> impl Strategy<Value = Aabb> {
    (point(), (0.0f32..6.0, 0.0f32..6.0, 0.0f32..6.0))
        .prop_map(|(min, (x, y, z))| Aabb::from_min_size(min, Vector3::new(x, y, z)))
}

pub fn triangle() -> impl Strategy<Value = Triangle> {
    (point(), point(), point()).prop_map(|(a, b, c)| Triangle::new(a, b, c))
}

pub fn rotation() -> impl Strategy<Value = nalgebra::Rotation3<Real>> {
    prop_oneof![
        4 => (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(a, b, c, d)| {
            let q = nalgebra::Quaternion::new(a, b, c, d);
            let q = nalgebra::UnitQuaternion::try_new(q, 1e-3)
                .unwrap_or_else(nalgebra::UnitQuaternion::identity);
            q.to_rotation_matrix()
        }),
        1 => Just(nalgebra::Rotation3::identity()),
        // Quarter turns keep edges parallel to world axes.
        1 => (0usize..3).prop_map(|i| {
            let axis = [Vector3::x_axis(), Vector3::y_axis(), Vector3::z_axis()][i];
            nalgebra::Rotation3::from_axis_angle(&axis, std::f32::consts::FRAC_PI_2)
        }),
    ]
}

pub fn obb() -> impl Strategy<Value = Obb> {
    (point(), (0.0f32..4.0, 0.0f32..4.0, 0.0f32..4.0), rotation())
        .prop_map(|(c, (x, y, z), r)| Obb::new(c, Vector3::new(x, y, z), r))
}

pub fn aabb_corners64(b: &Aabb) -> Vec<V64> {
    (0..8)
        .map(|i| {
            V64::new(
                if i & 1 == 0 { b.min.x } else { b.max.x } as f64,
                if i & 2 == 0 { b.min.y } else { b.max.y } as f64,
                if i & 4 == 0 { b.min.z } else { b.max.z } as f64,
            )
        })
        .collect()
}

/// OBB corners in f64 from the f32 centre, rotation and extents.
pub fn obb_corners64(o: &Obb) -> Vec<V64> {
    let r = o.rotation.matrix().cast::<f64>();
    let c = w(&o.center);
    let h = o.half_extents.cast::<f64>();
    (0..8)
        .map(|i| {
            let s = V64::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            );
            c + r * s
        })
        .collect()
}

/// The separating-axis gap of two convex point sets along `axis` (normalized): positive when
/// separated. `None` for a (near) zero axis.
pub fn gap(a: &[V64], b: &[V64], axis: V64) -> Option<f64> {
    let n = axis.norm();
    if n < 1e-9 {
        return None;
    }
    let ax = axis / n;
    let (alo, ahi) = a
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
            (l.min(ax.dot(p)), h.max(ax.dot(p)))
        });
    let (blo, bhi) = b
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
            (l.min(ax.dot(p)), h.max(ax.dot(p)))
        });
    Some((blo - ahi).max(alo - bhi))
}

/// Closest point of the segment `a b` to `p`, brute force in f64.
pub fn closest_on_segment(p: V64, a: V64, b: V64) -> V64 {
    let d = b - a;
    let l = d.norm_squared();
    if l == 0.0 {
        return a;
    }
    let t = ((p - a).dot(&d) / l).clamp(0.0, 1.0);
    a + d * t
}

/// Distance from `p` to the triangle, without Voronoi regions: the plane projection when it
/// lies inside (barycentric test), else the best of the three edges.
pub fn dist_point_triangle64(p: V64, a: V64, b: V64, c: V64) -> f64 {
    let mut best = [(a, b), (b, c), (c, a)]
        .iter()
        .map(|(s, e)| (p - closest_on_segment(p, *s, *e)).norm())
        .fold(f64::INFINITY, f64::min);
    let n = (b - a).cross(&(c - a));
    let nn = n.norm_squared();
    if nn > 0.0 {
        let q = p - n * ((p - a).dot(&n) / nn);
        let u = (c - b).cross(&(q - b)).dot(&n);
        let v = (a - c).cross(&(q - c)).dot(&n);
        let x = (b - a).cross(&(q - a)).dot(&n);
        if u >= 0.0 && v >= 0.0 && x >= 0.0 {
            best = best.min((p - q).norm());
        }
    }
    best
}

/// Deterministic small PRNG for hand-rolled loops (xorshift64*).
pub struct TestRng(pub u64);

impl TestRng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    pub fn point(&mut self, s: f32) -> Point3<Real> {
        Point3::new(self.f32(-s, s), self.f32(-s, s), self.f32(-s, s))
    }
}
