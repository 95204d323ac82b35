//! Shared support for the point and segment tests: the view they look through and where a
//! point projects against a marquee rectangle.
#![allow(dead_code)]

use nalgebra::Point3 as P3;
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
