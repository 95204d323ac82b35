//! Shared support for the point and segment tests: the view they look through and where a
//! point projects against a marquee rectangle.
#![allow(dead_code)]

use nalgebra::{Point3 as P3, Vector3 as V3};
use raypick_primitives::{Point3, Vector3};
use raypick_query::camera::{Camera, ClipConvention, Projection, ScreenRect, Viewport};

/// The window the tests pick and select in.
pub const VP: Viewport = Viewport::new(640.0, 480.0);

/// A 50-degree perspective camera at `eye` looking at the origin, near 0.5, far 100.
pub fn camera_at(eye: [f32; 3]) -> Camera {
    Camera::look_at(
        Point3::new(eye[0], eye[1], eye[2]),
        Point3::origin(),
        Vector3::y(),
        Projection::perspective(50f32.to_radians(), 640.0 / 480.0, 0.5, 100.0),
        ClipConvention::OPENGL,
    )
    .unwrap()
}

/// Whether `p` projects into `r`, and its distance in pixels to the rectangle's nearest
/// edge; `None` behind the camera.
pub fn in_rect(cam: &Camera, r: &ScreenRect, p: &P3<f64>) -> Option<(bool, f64)> {
    let (x, y, _) = cam.project_f64(p, &VP)?;
    let (x0, y0, x1, y1) = (
        f64::from(r.min[0]),
        f64::from(r.min[1]),
        f64::from(r.max[0]),
        f64::from(r.max[1]),
    );
    let inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
    let margin = [x - x0, x - x1, y - y0, y - y1]
        .iter()
        .fold(f64::INFINITY, |m, v| m.min(v.abs()));
    Some((inside, margin))
}

/// Möller-Trumbore in f64 over every triangle: does one cross the ray `o + t d` at
/// `0 < t < len`?
pub fn brute_occluded(tris: &[[P3<f64>; 3]], o: &P3<f64>, d: &V3<f64>, len: f64) -> bool {
    tris.iter().any(|t| {
        let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
        let p = d.cross(&e2);
        let det = e1.dot(&p);
        if det.abs() < 1e-15 {
            return false;
        }
        let s = o - t[0];
        let u = s.dot(&p) / det;
        let q = s.cross(&e1);
        let v = d.dot(&q) / det;
        let tt = e2.dot(&q) / det;
        u >= 0.0 && v >= 0.0 && u + v <= 1.0 && tt > 0.0 && tt < len
    })
}

/// True when a triangle lies in front of `p` on the camera ray through `p`'s pixel (the
/// ray stops 1e-5 short of `p`, as the library's occlusion ray does).
pub fn brute_hidden(cam: &Camera, tris: &[[P3<f64>; 3]], p: &P3<f64>) -> bool {
    let (sx, sy, _) = cam.project_f64(p, &VP).unwrap();
    let (o, _) = cam.ray_from_pixel_f64(sx, sy, &VP).unwrap();
    let d: V3<f64> = p - o;
    let len = d.norm();
    brute_occluded(tris, &o, &(d / len), len * (1.0 - 1e-5))
}
