//! Ray against plane.

use crate::{Plane, Ray, Real};

/// The parameter `t` in `[t_min, t_max]` where `ray` crosses `plane`, or `None`.
///
/// `t = (offset - normal . origin) / (normal . dir)`, evaluated in f64 and rounded once, in
/// units of the ray's direction. Either
/// side of the plane is hit (test the sign of `normal . dir` to tell the faces apart). A ray
/// parallel to the plane never hits, even when it lies in it. A NaN or infinity in the ray
/// or the plane, or a zero direction, gives `None`.
///
/// ```
/// use raypick_primitives::{ray_plane, Plane, Point3, Ray, Vector3};
/// let floor = Plane::from_point_normal(&Point3::origin(), &Vector3::z());
/// let ray = Ray::new(Point3::new(0.0, 0.0, 4.0), Vector3::new(1.0, 0.0, -2.0));
/// assert_eq!(ray_plane(&ray, &floor, 0.0, f32::INFINITY), Some(2.0));
/// assert_eq!(ray_plane(&ray, &floor, 0.0, 1.0), None);
/// ```
#[must_use]
pub fn ray_plane(ray: &Ray, plane: &Plane, t_min: Real, t_max: Real) -> Option<Real> {
    if !ray.is_valid() || !plane.offset.is_finite() {
        return None;
    }
    // In f64: `normal . dir` cancels badly for grazing rays in f32.
    let n = plane.normal.into_inner().cast::<f64>();
    let denom = n.dot(&ray.dir.cast::<f64>());
    if denom == 0.0 || !denom.is_finite() {
        return None;
    }
    let dist = n.dot(&ray.origin.coords.cast::<f64>()) - plane.offset as f64;
    let t = (-dist / denom) as Real;
    (t >= t_min && t <= t_max).then_some(t)
}
