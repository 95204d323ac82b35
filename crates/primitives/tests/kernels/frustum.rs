//! Frustum construction, frustum_aabb, frustum_obb, frustum_sphere and frustum_triangle.

use crate::common::*;
use nalgebra::{Isometry3, Matrix4, Perspective3};
use proptest::prelude::*;
use raypick_primitives::{
    frustum_aabb, frustum_obb, frustum_sphere, frustum_triangle, Aabb, Classification, DepthRange,
    Frustum, GeometryError, Obb, Point3, Sphere, Triangle,
};
use Classification::{Inside, Intersecting, Outside};

/// OpenGL -1..1 to 0..1 depth.
fn gl_to_zo() -> Matrix4<f32> {
    Matrix4::new(
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 0.5, 0.5, //
        0.0, 0.0, 0.0, 1.0,
    )
}

/// 0..1 depth to reversed 1..0.
fn zo_to_rev() -> Matrix4<f32> {
    Matrix4::new(
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, -1.0, 1.0, //
        0.0, 0.0, 0.0, 1.0,
    )
}

/// Reversed-Z with an infinite far plane (0..1 depth, near maps to 1).
fn infinite_reversed(aspect: f32, fovy: f32, near: f32) -> Matrix4<f32> {
    let f = 1.0 / (fovy * 0.5).tan();
    Matrix4::new(
        f / aspect,
        0.0,
        0.0,
        0.0, //
        0.0,
        f,
        0.0,
        0.0, //
        0.0,
        0.0,
        0.0,
        near, //
        0.0,
        0.0,
        -1.0,
        0.0,
    )
}

/// Projection for a depth convention from the OpenGL one.
fn projection(gl: &Matrix4<f32>, depth: DepthRange) -> Matrix4<f32> {
    match depth {
        DepthRange::NegOneToOne => *gl,
        DepthRange::ZeroToOne => gl_to_zo() * gl,
        DepthRange::OneToZero => zo_to_rev() * gl_to_zo() * gl,
    }
}

const ALL_DEPTHS: [DepthRange; 3] = [
    DepthRange::NegOneToOne,
    DepthRange::ZeroToOne,
    DepthRange::OneToZero,
];

/// The clip-space oracle: `Some(inside)` when `p` is not within `tol` of a clip boundary.
fn clip_inside(m: &Matrix4<f32>, depth: DepthRange, p: &Point3<f32>, tol: f64) -> Option<bool> {
    let c = m.cast::<f64>() * nalgebra::Vector4::new(p.x as f64, p.y as f64, p.z as f64, 1.0);
    let (x, y, z, w) = (c.x, c.y, c.z, c.w);
    let z_lo = match depth {
        DepthRange::NegOneToOne => -w,
        _ => 0.0,
    };
    // Margins of each inequality (positive = satisfied).
    let m = [w - x, w + x, w - y, w + y, w - z, z - z_lo];
    let t = tol * (1.0 + w.abs());
    if m.iter().all(|v| *v > t) {
        Some(true)
    } else if m.iter().any(|v| *v < -t) {
        Some(false)
    } else {
        None
    }
}

fn gl_camera() -> Matrix4<f32> {
    Perspective3::new(1.5, 1.0, 0.1, 100.0).to_homogeneous()
}

#[test]
fn frustum_planes_of_a_camera_all_depth_ranges() {
    for depth in ALL_DEPTHS {
        let m = projection(&gl_camera(), depth);
        let f = Frustum::try_from_view_projection(&m, depth).unwrap();
        assert!(f.contains_point(&p3(0.0, 0.0, -10.0)), "{depth:?}");
        assert!(!f.contains_point(&p3(0.0, 0.0, -0.05)), "{depth:?}");
        assert!(!f.contains_point(&p3(0.0, 0.0, -200.0)), "{depth:?}");
        assert!(!f.contains_point(&p3(0.0, 0.0, 10.0)), "{depth:?}");
        assert!(!f.contains_point(&p3(50.0, 0.0, -10.0)), "{depth:?}");
        // Near and far planes are named right, outward normals.
        assert!(
            f.near().signed_distance(&p3(0.0, 0.0, -0.1)).abs() < 1e-5,
            "{depth:?}"
        );
        assert!((f.near().normal.z - 1.0).abs() < 1e-5, "{depth:?}");
        assert!(
            f.far().signed_distance(&p3(0.0, 0.0, -100.0)).abs() < 1e-2,
            "{depth:?}"
        );
        assert!((f.far().normal.z + 1.0).abs() < 1e-5, "{depth:?}");
        let c = f.corners().expect("finite corners");
        // Corner 0: left, bottom, near. Half-height at the near plane is 0.1 tan(0.5).
        let h = 0.1 * 0.5f32.tan();
        assert!((c[0] - p3(-1.5 * h, -h, -0.1)).norm() < 1e-5, "{:?}", c[0]);
        assert!((c[7].z + 100.0).abs() < 1e-2);
    }
}

#[test]
fn frustum_identity_matrix_is_the_clip_cube() {
    let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne);
    assert!(f.contains_point(&p3(1.0, -1.0, 1.0)));
    assert!(!f.contains_point(&p3(1.01, 0.0, 0.0)));
    let f = Frustum::from_view_projection(&Matrix4::identity(), DepthRange::ZeroToOne);
    assert!(f.contains_point(&p3(0.0, 0.0, 0.0)));
    assert!(!f.contains_point(&p3(0.0, 0.0, -0.01)));
    assert_eq!(f.near().offset, 0.0);
}

#[test]
fn frustum_infinite_reversed_z() {
    let m = infinite_reversed(1.0, 1.0, 0.1);
    let f = Frustum::try_from_view_projection(&m, DepthRange::OneToZero).unwrap();
    assert!(f.contains_point(&p3(0.0, 0.0, -1e6)));
    assert!(f.contains_point(&p3(0.0, 0.0, -0.2)));
    assert!(!f.contains_point(&p3(0.0, 0.0, -0.05)));
    assert!(!f.contains_point(&p3(0.0, 0.0, 1.0)));
    assert_eq!(f.far().offset, f32::INFINITY);
    assert!(f.near().signed_distance(&p3(0.0, 0.0, -0.1)).abs() < 1e-6);
    assert!(f.corners().is_none());
    // Classification still works without corners.
    let far_sphere = Sphere::new(p3(0.0, 0.0, -1e5), 1.0);
    assert_eq!(frustum_sphere(&f, &far_sphere), Inside);
    let behind = Aabb::new(p3(-1.0, -1.0, 1.0), p3(1.0, 1.0, 2.0));
    assert_eq!(frustum_aabb(&f, &behind), Outside);
    // Exact separation also without a far plane: a triangle beyond the side edge through
    // (1, 1, -1) (90 degree field of view), culled only by an edge x edge axis.
    let m = infinite_reversed(1.0, std::f32::consts::FRAC_PI_2, 0.1);
    let f = Frustum::from_view_projection(&m, DepthRange::OneToZero);
    let beyond = Triangle::new(
        p3(-9.0, 34.0, -10.0),
        p3(34.0, -9.0, -10.0),
        p3(50.0, 50.0, -13.0),
    );
    assert_eq!(frustum_triangle(&f, &beyond), Outside);
    let across = Triangle::new(
        p3(-9.0, 24.0, -10.0),
        p3(24.0, -9.0, -10.0),
        p3(50.0, 50.0, -13.0),
    );
    assert_eq!(frustum_triangle(&f, &across), Intersecting);
    let deep = Triangle::new(
        p3(-1.0, -1.0, -1e6),
        p3(1.0, -1.0, -1e6),
        p3(0.0, 1.0, -1e6),
    );
    assert_eq!(frustum_triangle(&f, &deep), Inside);
    // Standard OpenGL infinite projection (far = inf): the far plane is also at infinity.
    let mut gl = Perspective3::new(1.0, 1.0, 0.1, 100.0).to_homogeneous();
    gl[(2, 2)] = -1.0;
    gl[(2, 3)] = -0.2;
    let f = Frustum::from_view_projection(&gl, DepthRange::NegOneToOne);
    assert!(f.contains_point(&p3(0.0, 0.0, -1e6)));
    assert_eq!(f.far().offset, f32::INFINITY);
}

#[test]
fn frustum_try_rejects_bad_matrices() {
    let mut m = gl_camera();
    m[(2, 1)] = f32::NAN;
    assert_eq!(
        Frustum::try_from_view_projection(&m, DepthRange::NegOneToOne),
        Err(GeometryError::NonFiniteMatrix { row: 2, column: 1 })
    );
    m[(2, 1)] = f32::INFINITY;
    assert!(Frustum::try_from_view_projection(&m, DepthRange::NegOneToOne).is_err());
    assert_eq!(
        Frustum::try_from_view_projection(&Matrix4::zeros(), DepthRange::ZeroToOne),
        Err(GeometryError::SingularMatrix)
    );
    let mut rank3 = Matrix4::identity();
    rank3[(3, 3)] = 0.0;
    assert_eq!(
        Frustum::try_from_view_projection(&rank3, DepthRange::ZeroToOne),
        Err(GeometryError::SingularMatrix)
    );
    // The unchecked constructor does not panic, and classification stays conservative.
    let mut nan = gl_camera();
    nan[(0, 0)] = f32::NAN;
    let f = Frustum::from_view_projection(&nan, DepthRange::NegOneToOne);
    let s = Sphere::new(p3(0.0, 0.0, -10.0), 1.0);
    assert_ne!(frustum_sphere(&f, &s), Outside);
    let msg = GeometryError::NonFiniteMatrix { row: 2, column: 1 }.to_string();
    assert!(msg.contains("(2, 1)"), "{msg}");
}

fn cube() -> Frustum {
    Frustum::from_view_projection(&Matrix4::identity(), DepthRange::NegOneToOne)
}

#[test]
fn frustum_aabb_hand_cases() {
    let f = cube();
    let b = |lo: f32, hi: f32| Aabb::new(p3(lo, lo, lo), p3(hi, hi, hi));
    assert_eq!(frustum_aabb(&f, &b(-0.5, 0.5)), Inside);
    assert_eq!(frustum_aabb(&f, &b(0.5, 1.5)), Intersecting);
    assert_eq!(frustum_aabb(&f, &b(1.5, 2.5)), Outside);
    // Touching counts as intersecting, from either side.
    assert_eq!(frustum_aabb(&f, &b(-1.0, 1.0)), Intersecting);
    assert_eq!(frustum_aabb(&f, &b(1.0, 2.0)), Intersecting); // touching from outside
    assert_eq!(frustum_aabb(&f, &Aabb::EMPTY), Outside);
    let mut nan = b(-0.5, 0.5);
    nan.min.y = f32::NAN;
    assert_eq!(frustum_aabb(&f, &nan), Intersecting);
}

#[test]
fn frustum_aabb_perspective_camera() {
    for depth in ALL_DEPTHS {
        let f = Frustum::from_view_projection(&projection(&gl_camera(), depth), depth);
        let at = |x: f32, y: f32, z: f32, h: f32| {
            Aabb::from_center_half_extents(p3(x, y, z), v3(h, h, h))
        };
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, -10.0, 0.5)),
            Inside,
            "{depth:?}"
        );
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, 10.0, 0.5)),
            Outside,
            "{depth:?}"
        );
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, 0.0, 0.5)),
            Intersecting,
            "{depth:?}"
        );
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, -150.0, 1.0)),
            Outside,
            "{depth:?}"
        );
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, -100.0, 1.0)),
            Intersecting,
            "{depth:?}"
        );
        assert_eq!(
            frustum_aabb(&f, &at(100.0, 0.0, -10.0, 1.0)),
            Outside,
            "{depth:?}"
        );
        // A box around the near plane, overlapping the frustum.
        assert_eq!(
            frustum_aabb(&f, &at(0.0, 0.0, -0.2, 0.15)),
            Intersecting,
            "{depth:?}"
        );
    }
}

#[test]
fn frustum_obb_hand_cases() {
    let f = cube();
    let rot = nalgebra::Rotation3::from_axis_angle(
        &nalgebra::Vector3::z_axis(),
        std::f32::consts::FRAC_PI_4,
    );
    let o = |x: f32| Obb::new(p3(x, 0.0, 0.0), v3(0.5, 0.5, 0.5), rot);
    assert_eq!(frustum_obb(&f, &o(0.0)), Inside);
    assert_eq!(frustum_obb(&f, &o(1.5)), Intersecting); // reaches 1.5 - 0.707
    assert_eq!(frustum_obb(&f, &o(1.8)), Outside);
    let empty = Obb::new(p3(0.0, 0.0, 0.0), v3(0.5, -0.5, 0.5), rot);
    assert_eq!(frustum_obb(&f, &empty), Outside);
    // A thin slab turned 45 degrees beyond the edge x = y = 1: every plane alone sees it
    // straddle or inside, its own face axis separates it from the frustum's corners.
    let slab = Obb::new(p3(1.6, 1.6, 0.0), v3(0.1, 3.0, 0.5), rot);
    assert_eq!(frustum_obb(&f, &slab), Outside);
    let slab_in = Obb::new(p3(0.9, 0.9, 0.0), v3(0.1, 3.0, 0.5), rot);
    assert_eq!(frustum_obb(&f, &slab_in), Intersecting);
}

#[test]
fn frustum_sphere_hand_cases() {
    let f = cube();
    let s = |c: f32, r: f32| Sphere::new(p3(c, 0.0, 0.0), r);
    assert_eq!(frustum_sphere(&f, &s(0.0, 0.5)), Inside);
    assert_eq!(frustum_sphere(&f, &s(1.2, 0.5)), Intersecting);
    assert_eq!(frustum_sphere(&f, &s(2.0, 0.5)), Outside);
    assert_eq!(frustum_sphere(&f, &s(1.5, 0.5)), Intersecting); // touching
    assert_eq!(frustum_sphere(&f, &s(0.0, -1.0)), Outside);
    assert_eq!(frustum_sphere(&f, &s(f32::NAN, 0.5)), Intersecting);
    // Sphere near the edge x = y = 1: the planes alone cannot cull it (it reaches x = 0.9),
    // the corner-box test does: the nearest cube point (1, 1, 0) is 0.85 away.
    let corner = Sphere::new(p3(1.6, 1.6, 0.0), 0.7);
    assert_eq!(frustum_sphere(&f, &corner), Outside);
    let corner_hit = Sphere::new(p3(1.6, 1.6, 0.0), 0.9);
    assert_eq!(frustum_sphere(&f, &corner_hit), Intersecting);
}

#[test]
fn frustum_triangle_hand_cases() {
    let f = cube();
    let t = Triangle::new(p3(-0.5, -0.5, 0.0), p3(0.5, -0.5, 0.0), p3(0.0, 0.5, 0.0));
    assert_eq!(frustum_triangle(&f, &t), Inside);
    let big = Triangle::new(
        p3(-5.0, -5.0, 0.0),
        p3(10.0, -5.0, 0.0),
        p3(-5.0, 10.0, 0.0),
    );
    assert_eq!(frustum_triangle(&f, &big), Intersecting);
    let beyond = Triangle::new(p3(1.5, -5.0, 0.0), p3(1.5, 5.0, 0.0), p3(1.5, 0.0, 5.0));
    assert_eq!(frustum_triangle(&f, &beyond), Outside);
    // Separated by the triangle normal only: the plane x + y + z = 3.5 beyond corner (1,1,1).
    let tilted = Triangle::new(p3(3.5, 0.0, 0.0), p3(0.0, 3.5, 0.0), p3(0.0, 0.0, 3.5));
    assert_eq!(frustum_triangle(&f, &tilted), Outside);
    let cutting = Triangle::new(p3(2.5, 0.0, 0.0), p3(0.0, 2.5, 0.0), p3(0.0, 0.0, 2.5));
    assert_eq!(frustum_triangle(&f, &cutting), Intersecting);
    // Separated only by a frustum-edge x triangle-edge axis: every corner is outside some
    // plane, no plane has all three outside, and the triangle's plane cuts the cube.
    let edge_only = Triangle::new(p3(-1.0, 3.5, 0.0), p3(3.5, -1.0, 0.0), p3(5.0, 5.0, -3.0));
    assert_eq!(frustum_triangle(&f, &edge_only), Outside);
    let edge_cut = Triangle::new(p3(-1.0, 2.5, 0.0), p3(2.5, -1.0, 0.0), p3(5.0, 5.0, -3.0));
    assert_eq!(frustum_triangle(&f, &edge_cut), Intersecting);
    // Degenerate and bad triangles.
    let p = p3(0.2, 0.2, 0.2);
    assert_eq!(frustum_triangle(&f, &Triangle::new(p, p, p)), Inside);
    let q = p3(2.0, 0.0, 0.0);
    assert_eq!(frustum_triangle(&f, &Triangle::new(q, q, q)), Outside);
    let nan = Triangle::new(p3(f32::NAN, 0.0, 0.0), p, p);
    assert_eq!(frustum_triangle(&f, &nan), Intersecting);
}

/// A random camera: view-projection matrix and its depth convention.
fn camera() -> impl Strategy<Value = (Matrix4<f32>, DepthRange)> {
    (
        point(),
        direction(),
        0.3f32..2.5,
        0.5f32..2.0,
        0.05f32..1.0,
        2.0f32..500.0,
        0usize..4,
    )
        .prop_filter_map("degenerate view", |(eye, dir, fovy, aspect, near, k, d)| {
            if dir.norm() < 0.1 {
                return None;
            }
            let up = if dir.x.abs() > 0.9 * dir.norm() {
                v3(0.0, 1.0, 0.0)
            } else {
                v3(1.0, 0.0, 0.0)
            };
            let view = Isometry3::look_at_rh(&eye, &(eye + dir), &up).to_homogeneous();
            if d == 3 {
                return Some((
                    infinite_reversed(aspect, fovy, near) * view,
                    DepthRange::OneToZero,
                ));
            }
            let gl = Perspective3::new(aspect, fovy, near, near * k).to_homogeneous();
            let depth = ALL_DEPTHS[d];
            Some((projection(&gl, depth) * view, depth))
        })
}

/// Points of a shape sampled on a small lattice of its parameters.
fn samples_aabb(b: &Aabb) -> Vec<Point3<f32>> {
    let mut v = vec![];
    for i in 0..27 {
        let s = v3(
            (i % 3) as f32 * 0.5,
            ((i / 3) % 3) as f32 * 0.5,
            (i / 9) as f32 * 0.5,
        );
        v.push(b.min + b.extents().component_mul(&s));
    }
    v
}

fn strictly_inside(f: &Frustum, p: &Point3<f32>) -> bool {
    f.planes()
        .iter()
        .all(|pl| wv(&pl.normal).dot(&w(p)) - (pl.offset as f64) < -1e-4)
}

fn inside_or_on(f: &Frustum, p: &V64) -> bool {
    f.planes()
        .iter()
        .all(|pl| wv(&pl.normal).dot(p) - (pl.offset as f64) <= 1e-4)
}

proptest! {
    #![proptest_config(config(2000))]

    /// The six planes agree with the clip-space inequalities in f64.
    #[test]
    fn frustum_planes_match_clip_space((m, depth) in camera(), p in point(), s in 0.0f32..1.0) {
        let f = Frustum::from_view_projection(&m, depth);
        // Half the points are pushed towards the view volume (along the camera's line of
        // sight is not known here, so mix with the origin of clip space instead).
        let inv = m.try_inverse();
        let q = match inv {
            Some(inv) if s > 0.5 => {
                let c = inv * nalgebra::Vector4::new(p.x * 0.1, p.y * 0.1, s * 2.0 - 1.5, 1.0);
                if c.w.abs() > 1e-6 { Point3::new(c.x / c.w, c.y / c.w, c.z / c.w) } else { p }
            }
            _ => p,
        };
        prop_assume!(q.iter().all(|c| c.is_finite()));
        if let Some(want) = clip_inside(&m, depth, &q, 1e-4) {
            prop_assert_eq!(f.contains_point(&q), want, "{:?} {}", depth, q);
        }
    }

    /// Never `Outside` for a box with a sampled point inside; `Inside` only when all corners
    /// are inside.
    #[test]
    fn frustum_aabb_is_sound((m, depth) in camera(), b in aabb()) {
        let f = Frustum::from_view_projection(&m, depth);
        let got = frustum_aabb(&f, &b);
        if samples_aabb(&b).iter().any(|p| strictly_inside(&f, p)) {
            prop_assert_ne!(got, Outside);
        }
        if got == Inside {
            prop_assert!(aabb_corners64(&b).iter().all(|c| inside_or_on(&f, c)));
        }
    }

    #[test]
    fn frustum_obb_is_sound((m, depth) in camera(), o in obb()) {
        let f = Frustum::from_view_projection(&m, depth);
        let got = frustum_obb(&f, &o);
        let local = Aabb::new(Point3::from(-o.half_extents), Point3::from(o.half_extents));
        let pts: Vec<Point3<f32>> = samples_aabb(&local).iter().map(|p| o.center + o.rotation * p.coords).collect();
        if pts.iter().any(|p| strictly_inside(&f, p)) {
            prop_assert_ne!(got, Outside);
        }
        if got == Inside {
            prop_assert!(obb_corners64(&o).iter().all(|c| inside_or_on(&f, c)));
        }
    }

    #[test]
    fn frustum_sphere_is_sound((m, depth) in camera(), c in point(), r in 0.0f32..4.0,
                               dirs in proptest::collection::vec(direction(), 8)) {
        let f = Frustum::from_view_projection(&m, depth);
        let s = Sphere::new(c, r);
        let got = frustum_sphere(&f, &s);
        let mut pts = vec![c];
        for d in &dirs {
            if d.norm() > 1e-3 { pts.push(c + d.normalize() * r * 0.999); }
        }
        if pts.iter().any(|p| strictly_inside(&f, p)) {
            prop_assert_ne!(got, Outside);
        }
        if got == Inside {
            for pl in f.planes() {
                prop_assert!(wv(&pl.normal).dot(&w(&c)) - pl.offset as f64 <= -(r as f64) + 1e-4);
            }
        }
    }

    /// Sound like the others, and exact: when an independent f64 separating-axis search over
    /// the same axes (planes, triangle normal, edge pairs) finds a clear gap, the answer is
    /// `Outside`.
    #[test]
    fn frustum_triangle_is_sound_and_exact((m, depth) in camera(), t in triangle()) {
        let f = Frustum::from_view_projection(&m, depth);
        let got = frustum_triangle(&f, &t);
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.33, 0.33), (0.5, 0.25), (0.1, 0.6)] {
            if strictly_inside(&f, &t.point_at(u, v)) {
                prop_assert_ne!(got, Outside);
            }
        }
        let v = [w(&t.a), w(&t.b), w(&t.c)];
        if got == Inside {
            prop_assert!(v.iter().all(|p| inside_or_on(&f, p)));
        }
        if let Some(c) = f.corners() {
            let c: Vec<V64> = c.iter().map(w).collect();
            let scale = c.iter().chain(v.iter()).flat_map(|p| p.iter()).fold(1.0f64, |m, x| m.max(x.abs()));
            let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
            let mut axes: Vec<V64> = f.planes().iter().map(|p| wv(&p.normal)).collect();
            axes.push(e[0].cross(&e[1]));
            for i in 0..8usize {
                for bit in [1usize, 2, 4] {
                    if i & bit == 0 {
                        for te in &e { axes.push((c[i | bit] - c[i]).cross(te)); }
                    }
                }
            }
            let g = axes.iter().filter_map(|a| gap(&c, &v, *a)).fold(f64::NEG_INFINITY, f64::max);
            if g > 1e-4 * scale {
                prop_assert_eq!(got, Outside, "gap {}", g);
            }
        }
    }
}
