//! The signed solid angle of a triangle seen from a point (Van Oosterom and Strackee 1983),
//! in f64: the exact term of the winding number.

/// A point or vector in f64.
pub(crate) type V64 = [f64; 3];

#[inline(always)]
pub(crate) fn sub(a: V64, b: V64) -> V64 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline(always)]
pub(crate) fn dot(a: V64, b: V64) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
pub(crate) fn cross(a: V64, b: V64) -> V64 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[inline(always)]
fn norm(a: V64) -> f64 {
    dot(a, a).sqrt()
}

/// The solid angle of triangle `abc` seen from `q`, divided by 4π: positive when `q` sees
/// the triangle's back (the side opposite its counter-clockwise normal), in `[-0.5, 0.5]`.
///
/// Returns `(w, on)` where `on` is true when `q` lies in the triangle's closed plane patch
/// (the triple product is exactly zero and `q` is inside or on the border); `w` is then 0.
/// A degenerate triangle gives 0.
#[inline]
pub(crate) fn solid_angle(q: V64, a: V64, b: V64, c: V64) -> (f64, bool) {
    let (a, b, c) = (sub(a, q), sub(b, q), sub(c, q));
    let det = dot(a, cross(b, c));
    let (la, lb, lc) = (norm(a), norm(b), norm(c));
    let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    if det == 0.0 {
        // In the triangle's plane: q is on the triangle when the three sub-triangles' normals
        // do not disagree with each other.
        let n = cross(sub(b, a), sub(c, a));
        let (s0, s1, s2) = (
            dot(cross(a, b), n),
            dot(cross(b, c), n),
            dot(cross(c, a), n),
        );
        let on = if dot(n, n) > 0.0 {
            (s0 >= 0.0 && s1 >= 0.0 && s2 >= 0.0) || (s0 <= 0.0 && s1 <= 0.0 && s2 <= 0.0)
        } else {
            // A degenerate triangle: q on it when on one of its segments.
            on_segment(a, b) || on_segment(b, c) || on_segment(c, a)
        };
        return (0.0, on);
    }
    (det.atan2(den) / (2.0 * std::f64::consts::PI), false)
}

/// True when the origin lies on segment `ab` (both relative to the query point).
fn on_segment(a: V64, b: V64) -> bool {
    let c = cross(a, b);
    dot(c, c) == 0.0 && dot(a, b) <= 0.0
}

/// `[x, y, z]` of an f32 point, in f64.
#[inline(always)]
pub(crate) fn v64(p: &nalgebra::Point3<f32>) -> V64 {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octant_is_one_eighth() {
        // The triangle (1,0,0) (0,1,0) (0,0,1) seen from the origin covers one octant of the
        // sphere: 4π/8, so 1/8, positive (the origin is behind its normal).
        let (w, on) = solid_angle([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        assert!((w - 0.125).abs() < 1e-15, "{w}");
        assert!(!on);
        let (w, _) = solid_angle([0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]);
        assert!((w + 0.125).abs() < 1e-15, "{w}");
    }

    #[test]
    fn in_plane_points() {
        let (a, b, c) = ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        assert_eq!(solid_angle([0.25, 0.25, 0.0], a, b, c), (0.0, true));
        assert_eq!(solid_angle([0.5, 0.5, 0.0], a, b, c), (0.0, true));
        assert_eq!(solid_angle([0.0, 0.0, 0.0], a, b, c), (0.0, true));
        assert_eq!(solid_angle([2.0, 2.0, 0.0], a, b, c), (0.0, false));
        assert_eq!(solid_angle([-0.5, 0.0, 0.0], a, b, c), (0.0, false));
    }
}
