//! Camera rays against hand-computed values, and the project / unproject round trip for every
//! clip convention.

use nalgebra::{Matrix4, Orthographic3, Perspective3, Point3 as P3, Vector3 as V3};
use proptest::prelude::*;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::camera::{
    Camera, CameraError, ClipConvention, Projection, ScreenRect, Viewport,
};

fn conventions() -> Vec<(&'static str, ClipConvention)> {
    vec![
        ("opengl", ClipConvention::OPENGL),
        ("zero_to_one", ClipConvention::ZERO_TO_ONE),
        ("vulkan", ClipConvention::VULKAN),
        ("opengl_reversed", ClipConvention::OPENGL.reversed_z()),
        (
            "zero_to_one_reversed",
            ClipConvention::ZERO_TO_ONE.reversed_z(),
        ),
        ("vulkan_reversed", ClipConvention::VULKAN.reversed_z()),
    ]
}

fn assert_ray(name: &str, ray: Ray, origin: [f32; 3], dir: [f32; 3]) {
    let d = V3::from(dir).normalize();
    for i in 0..3 {
        assert!(
            (ray.origin[i] - origin[i]).abs() < 1e-5,
            "{name}: origin {:?} != {origin:?}",
            ray.origin
        );
        assert!(
            (ray.dir[i] - d[i]).abs() < 1e-6,
            "{name}: dir {:?} != {d:?}",
            ray.dir
        );
    }
}

/// Eye at z = 5 looking at the origin; 90 degree vertical fov, aspect 2, near 1: the near plane
/// spans x in [-2, 2], y in [-1, 1] at z = 4.
#[test]
fn perspective_corners_and_centre_every_convention() {
    let vp = Viewport::new(200.0, 100.0);
    for far in [10.0, f32::INFINITY] {
        for (name, conv) in conventions() {
            let cam = Camera::look_at(
                Point3::new(0.0, 0.0, 5.0),
                Point3::origin(),
                Vector3::y(),
                Projection::perspective(std::f32::consts::FRAC_PI_2, 2.0, 1.0, far),
                conv,
            )
            .unwrap();
            let r = |x, y| cam.ray_from_pixel(x, y, &vp).unwrap();
            assert_ray(name, r(100.0, 50.0), [0.0, 0.0, 4.0], [0.0, 0.0, -1.0]);
            assert_ray(name, r(0.0, 0.0), [-2.0, 1.0, 4.0], [-2.0, 1.0, -1.0]);
            assert_ray(name, r(200.0, 0.0), [2.0, 1.0, 4.0], [2.0, 1.0, -1.0]);
            assert_ray(name, r(0.0, 100.0), [-2.0, -1.0, 4.0], [-2.0, -1.0, -1.0]);
            assert_ray(name, r(200.0, 100.0), [2.0, -1.0, 4.0], [2.0, -1.0, -1.0]);
            // Pixel (0, 0)'s centre is half a pixel in: x = -2 + 0.5 * 4 / 200.
            assert_ray(name, r(0.5, 0.5), [-1.99, 0.99, 4.0], [-1.99, 0.99, -1.0]);
        }
    }
}

/// Orthographic: height 4, aspect 2, near 1 from an eye at z = 5: near plane x in [-4, 4],
/// y in [-2, 2] at z = 4, every direction -z.
#[test]
fn orthographic_corners_and_centre_every_convention() {
    let vp = Viewport {
        x: 10.0,
        y: 20.0,
        width: 200.0,
        height: 100.0,
    };
    for (name, conv) in conventions() {
        let cam = Camera::look_at(
            Point3::new(0.0, 0.0, 5.0),
            Point3::origin(),
            Vector3::y(),
            Projection::orthographic(4.0, 2.0, 1.0, 10.0),
            conv,
        )
        .unwrap();
        let r = |x, y| cam.ray_from_pixel(x, y, &vp).unwrap();
        assert_ray(name, r(110.0, 70.0), [0.0, 0.0, 4.0], [0.0, 0.0, -1.0]);
        assert_ray(name, r(10.0, 20.0), [-4.0, 2.0, 4.0], [0.0, 0.0, -1.0]);
        assert_ray(name, r(210.0, 120.0), [4.0, -2.0, 4.0], [0.0, 0.0, -1.0]);
    }
}

/// A camera looking along +x from (1, 2, 3): the right axis is forward x up = +z, up is +y.
#[test]
fn look_at_other_axis() {
    let vp = Viewport::new(100.0, 100.0);
    let cam = Camera::look_at(
        Point3::new(1.0, 2.0, 3.0),
        Point3::new(11.0, 2.0, 3.0),
        Vector3::y(),
        Projection::perspective(std::f32::consts::FRAC_PI_2, 1.0, 0.5, 100.0),
        ClipConvention::ZERO_TO_ONE,
    )
    .unwrap();
    let r = cam.ray_from_pixel(100.0, 0.0, &vp).unwrap();
    assert_ray("x-axis", r, [1.5, 2.5, 3.5], [1.0, 1.0, 1.0]);
}

/// Matrices written out by hand, as a renderer would pass them.
#[test]
fn from_matrices_hand_written() {
    let vp = Viewport::new(100.0, 100.0);
    // View: camera at (0, 0, 5) looking down -z (a translation by -5 in z).
    #[rustfmt::skip]
    let view = Matrix4::new(
        1.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0,
        0.0, 0.0, 1.0, -5.0,
        0.0, 0.0, 0.0, 1.0,
    );
    // Reversed-Z, infinite far, 0..1, fov 90, aspect 1, near 0.5: z_clip = near, w = -z.
    #[rustfmt::skip]
    let rev_inf = Matrix4::new(
        1.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.5,
        0.0, 0.0, -1.0, 0.0,
    );
    let cam =
        Camera::from_matrices(&view, &rev_inf, ClipConvention::ZERO_TO_ONE.reversed_z()).unwrap();
    assert_ray(
        "rev-inf centre",
        cam.ray_from_pixel(50.0, 50.0, &vp).unwrap(),
        [0.0, 0.0, 4.5],
        [0.0, 0.0, -1.0],
    );
    assert_ray(
        "rev-inf corner",
        cam.ray_from_pixel(0.0, 100.0, &vp).unwrap(),
        [-0.5, -0.5, 4.5],
        [-1.0, -1.0, -1.0],
    );
    // A point at depth 100 along the corner ray projects onto the corner, NDC depth near/d.
    let p = cam
        .project(&Point3::new(-100.0, -100.0, -95.0), &vp)
        .unwrap();
    assert!((p.x - 0.0).abs() < 1e-3 && (p.y - 100.0).abs() < 1e-3);
    assert!((p.depth - 0.005).abs() < 1e-7);

    // nalgebra's own OpenGL matrices agree with look_at.
    let persp = Perspective3::new(1.5, 0.8, 0.1, 50.0).to_homogeneous();
    let a = Camera::from_matrices(&view, &persp, ClipConvention::OPENGL).unwrap();
    let b = Camera::look_at(
        Point3::new(0.0, 0.0, 5.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(0.8, 1.5, 0.1, 50.0),
        ClipConvention::OPENGL,
    )
    .unwrap();
    let vp2 = Viewport::new(150.0, 100.0);
    for (x, y) in [(0.0, 0.0), (75.0, 50.0), (150.0, 13.0)] {
        let ra = a.ray_from_pixel(x, y, &vp2).unwrap();
        let rb = b.ray_from_pixel(x, y, &vp2).unwrap();
        assert_ray("nalgebra persp", ra, rb.origin.into(), rb.dir.into());
    }
    let ortho = Orthographic3::new(-3.0, 3.0, -2.0, 2.0, 1.0, 9.0).to_homogeneous();
    let c = Camera::from_matrices(&view, &ortho, ClipConvention::OPENGL).unwrap();
    assert_ray(
        "nalgebra ortho",
        c.ray_from_pixel(0.0, 0.0, &vp).unwrap(),
        [-3.0, 2.0, 4.0],
        [0.0, 0.0, -1.0],
    );
}

#[test]
fn bad_input_is_an_error_or_none() {
    let p = Projection::perspective(1.0, 1.0, 0.1, 10.0);
    let up = Vector3::y();
    let e = Point3::new(0.0, 0.0, 1.0);
    let o = Point3::origin();
    let c = ClipConvention::OPENGL;
    assert!(matches!(
        Camera::look_at(e, e, up, p, c),
        Err(CameraError::InvalidLookAt(_))
    ));
    assert!(Camera::look_at(e, o, Vector3::z(), p, c).is_err());
    assert!(Camera::look_at(e, o, Vector3::zeros(), p, c).is_err());
    assert!(Camera::look_at(Point3::new(f32::NAN, 0.0, 0.0), o, up, p, c).is_err());
    for bad in [
        Projection::perspective(0.0, 1.0, 0.1, 10.0),
        Projection::perspective(4.0, 1.0, 0.1, 10.0),
        Projection::perspective(f32::NAN, 1.0, 0.1, 10.0),
        Projection::perspective(1.0, 0.0, 0.1, 10.0),
        Projection::perspective(1.0, 1.0, 0.0, 10.0),
        Projection::perspective(1.0, 1.0, 1.0, 1.0),
        Projection::perspective(1.0, 1.0, 1.0, f32::NAN),
        Projection::orthographic(0.0, 1.0, 0.0, 1.0),
        Projection::orthographic(1.0, 1.0, 0.0, f32::INFINITY),
    ] {
        assert!(
            matches!(
                Camera::look_at(e, o, up, bad, c),
                Err(CameraError::InvalidProjection(_))
            ),
            "{bad:?}"
        );
    }
    let mut m = Matrix4::identity();
    assert_eq!(
        Camera::from_matrices(&m, &Matrix4::zeros(), c),
        Err(CameraError::Singular)
    );
    m[(0, 0)] = f32::INFINITY;
    assert_eq!(
        Camera::from_matrices(&m, &Matrix4::identity(), c),
        Err(CameraError::NonFinite("view"))
    );

    let cam = Camera::look_at(e, o, up, p, c).unwrap();
    let vp = Viewport::new(10.0, 10.0);
    assert!(cam.ray_from_pixel(f32::NAN, 0.0, &vp).is_none());
    assert!(cam
        .ray_from_pixel(0.0, 0.0, &Viewport::new(0.0, 10.0))
        .is_none());
    assert!(cam
        .ray_from_pixel(0.0, 0.0, &Viewport::new(10.0, f32::NAN))
        .is_none());
    // Behind the camera, on the camera plane, non-finite: no projection.
    assert!(cam.project(&Point3::new(0.0, 0.0, 2.0), &vp).is_none());
    assert!(cam.project(&Point3::new(0.3, 0.0, 1.0), &vp).is_none());
    assert!(cam.project(&Point3::new(f32::NAN, 0.0, 0.0), &vp).is_none());
    assert!(cam
        .rect_view_projection(&ScreenRect::new([1.0, 1.0], [1.0, 5.0]), &vp)
        .is_none());
}

/// The rectangle's frustum planes contain exactly the points that project into it.
#[test]
fn rect_planes_match_projection() {
    let vp = Viewport::new(640.0, 480.0);
    for (name, conv) in conventions() {
        let cam = Camera::look_at(
            Point3::new(3.0, 4.0, 5.0),
            Point3::new(0.0, 0.5, 0.0),
            Vector3::y(),
            Projection::perspective(1.0, 640.0 / 480.0, 0.5, 30.0),
            conv,
        )
        .unwrap();
        let rect = ScreenRect::new([400.0, 100.0], [200.0, 300.0]);
        let planes = cam.rect_planes(&rect, &vp).unwrap();
        let mut inside_count = 0;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut f = || {
            // xorshift64: a deterministic spread of points around the origin.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 8.0 - 4.0
        };
        for _ in 0..2000 {
            let p = P3::new(f(), f(), f());
            let inside = planes.iter().all(|(n, d)| n.dot(&p.coords) + d >= 0.0);
            let (x, y, z) = cam.project_f64(&p, &vp).unwrap();
            let (lo, hi) = (
                conv.near_ndc().min(conv.far_ndc()),
                conv.near_ndc().max(conv.far_ndc()),
            );
            let expect = (200.0..=400.0).contains(&x)
                && (100.0..=300.0).contains(&y)
                && (lo..=hi).contains(&z);
            assert_eq!(inside, expect, "{name}: {p:?} at ({x}, {y}, {z})");
            inside_count += usize::from(inside);
        }
        assert!(inside_count > 20, "{name}: only {inside_count} inside");
    }
}

fn convention_strategy() -> impl Strategy<Value = ClipConvention> {
    (0usize..2, any::<bool>(), any::<bool>()).prop_map(|(d, r, y)| {
        let mut c = if d == 0 {
            ClipConvention::OPENGL
        } else {
            ClipConvention::ZERO_TO_ONE
        };
        c.y_down = y;
        if r {
            c = c.reversed_z();
        }
        c
    })
}

fn cases() -> u32 {
    std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if std::env::var("RAYPICK_LONG").is_ok() {
            100_000
        } else {
            2000
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A point on the pixel's ray projects back onto the pixel: within 1e-3 px for f32 rays at
    /// sensible depths, within 1e-6 px for the f64 ray anywhere in the depth range.
    #[test]
    fn round_trip(
        conv in convention_strategy(),
        ortho in any::<bool>(),
        eye in prop::array::uniform3(-10.0f32..10.0),
        target in prop::array::uniform3(-10.0f32..10.0),
        fov in 0.2f32..2.5,
        w in 64.0f32..2560.0,
        h in 64.0f32..1440.0,
        near in 0.05f32..1.0,
        far_ratio in prop::option::of(10.0f32..1000.0),
        px in -0.2f32..1.2,
        py in -0.2f32..1.2,
        depth_frac in 0.0f64..1.0,
    ) {
        let (eye, target) = (Point3::from(eye), Point3::from(target));
        prop_assume!((target - eye).norm() > 0.5);
        let up = if (target - eye).normalize().y.abs() > 0.9 { Vector3::x() } else { Vector3::y() };
        let projection = if ortho {
            Projection::orthographic(fov * 4.0, w / h, -near, near * far_ratio.unwrap_or(100.0))
        } else {
            Projection::perspective(fov, w / h, near, far_ratio.map_or(f32::INFINITY, |r| near * r))
        };
        let cam = Camera::look_at(eye, target, up, projection, conv).unwrap();
        let vp = Viewport { x: 7.0, y: 3.0, width: w, height: h };
        let (x, y) = (vp.x + px * w, vp.y + py * h);

        // f64 ray: anywhere from the near plane to far into the volume.
        let (o, d) = cam.ray_from_pixel_f64(f64::from(x), f64::from(y), &vp).unwrap();
        let t = depth_frac * 200.0;
        let (sx, sy, sz) = cam.project_f64(&(o + d * t), &vp).unwrap();
        prop_assert!((sx - f64::from(x)).abs() < 1e-6 && (sy - f64::from(y)).abs() < 1e-6,
            "f64: ({sx}, {sy}) vs ({x}, {y})");
        if t == 0.0 {
            prop_assert!((sz - conv.near_ndc()).abs() < 1e-6, "origin depth {sz}");
        }

        // f32 ray: every f32 coordinate carries a relative error of up to 6e-8, so 1e-3 px
        // needs (pixels per world unit at the point) x (coordinate magnitude) below a few 1e3.
        // Check it wherever that holds, from 1 unit past the near plane.
        let ray = cam.ray_from_pixel(x, y, &vp).unwrap();
        prop_assert!((ray.dir.norm() - 1.0).abs() < 1e-6);
        let t = 1.0 + depth_frac as f32 * 50.0;
        let q = ray.at(t);
        let q64 = o + d * f64::from(t);
        let here = cam.project_f64(&q64, &vp).unwrap();
        let px_per_unit = (0..3)
            .map(|k| {
                let s = cam.project_f64(&(q64 + V3::ith(k, 1e-3)), &vp).unwrap();
                (s.0 - here.0).hypot(s.1 - here.1) / 1e-3
            })
            .fold(0.0, f64::max);
        let magnitude = f64::from(q.coords.abs().max().max(ray.origin.coords.abs().max()));
        if px_per_unit * magnitude < 2500.0 {
            let p = cam.project(&q, &vp).unwrap();
            prop_assert!((p.x - x).abs() < 1e-3 && (p.y - y).abs() < 1e-3,
                "f32: ({}, {}) vs ({x}, {y}) at t {t}", p.x, p.y);
        }
    }
}

/// `row_rays` gives exactly `ray_from_pixel`'s ray at every pixel centre of a row, for perspective
/// and orthographic cameras in every convention, with an offset viewport and a column range
/// that starts inside it; an invalid viewport gives `None` for every column.
#[test]
fn row_rays_are_the_pixel_rays() {
    let vp = Viewport {
        x: 7.0,
        y: 3.0,
        width: 320.0,
        height: 180.0,
    };
    let mut row = Vec::new();
    let mut checked = 0;
    for (name, conv) in conventions() {
        for projection in [
            Projection::perspective(1.1, 16.0 / 9.0, 0.05, 500.0),
            Projection::perspective(0.4, 16.0 / 9.0, 0.3, f32::INFINITY),
            Projection::orthographic(6.0, 16.0 / 9.0, -1.0, 50.0),
        ] {
            let cam = Camera::look_at(
                Point3::new(3.0, -4.0, 2.5),
                Point3::new(0.2, 0.1, -0.3),
                Vector3::z(),
                projection,
                conv,
            )
            .unwrap();
            for y in [0u32, 1, 90, 179, 200] {
                let columns = 5u32..330;
                cam.row_rays(y, columns.clone(), &vp, &mut row);
                assert_eq!(row.len(), columns.len(), "{name}");
                for (x, got) in columns.zip(&row) {
                    let want = cam.ray_from_pixel(x as f32 + 0.5, y as f32 + 0.5, &vp);
                    assert!(want.is_some(), "{name} ({x}, {y})");
                    assert_eq!(*got, want, "{name} ({x}, {y})");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 20_000);
    let bad = Viewport::new(0.0, 10.0);
    let cam = Camera::look_at(
        Point3::new(0.0, 0.0, 5.0),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(1.0, 1.0, 0.1, 10.0),
        ClipConvention::OPENGL,
    )
    .unwrap();
    cam.row_rays(0, 0..4, &bad, &mut row);
    assert_eq!(row, vec![None; 4]);
}
