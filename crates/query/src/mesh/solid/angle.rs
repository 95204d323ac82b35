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

/// The solid angles of up to 8 triangles seen from `q`, divided by 4π, in f32 lanes: the
/// winding number's near-field terms away from the triangles. `rows[3 * corner + axis][lane]`
/// holds the corners (the leaf rows' layout).
///
/// A lane is answered only where `q` is well away from its triangle, in the sense that the
/// Van Oosterom and Strackee denominator exceeds a quarter of the product of the corner
/// distances (and the triple product is not zero): there `atan2` is `atan` of a ratio of at
/// most 4, and f32 rounding moves the angle by a few 1e-7 of a radian whatever the
/// triangle's size and distance (the products' errors are relative to that product, which
/// the denominator is within a factor 4 of). Each corner is taken relative to `q` first,
/// a correctly rounded subtraction, so large coordinates cost nothing. The other lanes
/// (bit set in the returned mask) are left for [`solid_angle`] in f64, which also tells
/// points on a triangle: they have a denominator of at most 0 (inside the triangle) or a
/// zero product (at a corner, or a degenerate triangle). Their values are 0.
#[inline(always)]
pub(crate) fn solid_angles8(q: [f32; 3], rows: &[[f32; 8]; 9]) -> ([f32; 8], u32) {
    let mut w = [0.0f32; 8];
    let mut doubt = [false; 8];
    for l in 0..8 {
        let c = |r: usize| rows[r][l] - q[r % 3];
        let (ax, ay, az) = (c(0), c(1), c(2));
        let (bx, by, bz) = (c(3), c(4), c(5));
        let (cx, cy, cz) = (c(6), c(7), c(8));
        let det = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
        let la = (ax * ax + ay * ay + az * az).sqrt();
        let lb = (bx * bx + by * by + bz * bz).sqrt();
        let lc = (cx * cx + cy * cy + cz * cz).sqrt();
        let product = la * lb * lc;
        let den = product
            + (ax * bx + ay * by + az * bz) * lc
            + (bx * cx + by * cy + bz * cz) * la
            + (cx * ax + cy * ay + cz * az) * lb;
        // False for NaN as well.
        let ok = (den > 0.25 * product) & (det != 0.0);
        let x = if ok { det / den } else { 0.0 };
        w[l] = atan_f32(x) * (1.0 / (2.0 * std::f32::consts::PI));
        doubt[l] = !ok;
    }
    let mask = doubt
        .iter()
        .enumerate()
        .fold(0, |m, (l, &d)| m | (u32::from(d) << l));
    (w, mask)
}

/// `atan(x)` in f32 within about 2e-7 (relative) for finite `x`, branch-free: the argument
/// reduced to `[0, tan(pi/8)]` by `atan(x) = pi/4 + atan((x - 1) / (x + 1))` or
/// `pi/2 - atan(1/x)`, then an odd polynomial (the classic single-precision minimax
/// coefficients of the Cephes library).
#[inline(always)]
fn atan_f32(x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, FRAC_PI_4};
    let t = x.abs();
    let big = t > 2.414_213_5;
    let mid = t > 0.414_213_57;
    // Each branch's reduced argument; `t + 1 >= 1` and `t > 2.4` keep the divisions safe.
    let r_big = -1.0 / if big { t } else { 1.0 };
    let r_mid = (t - 1.0) / (t + 1.0);
    let (y0, r) = if big {
        (FRAC_PI_2, r_big)
    } else if mid {
        (FRAC_PI_4, r_mid)
    } else {
        (0.0, t)
    };
    let z = r * r;
    let p = ((8.053_744_5e-2 * z - 1.387_768_6e-1) * z + 1.997_771_1e-1) * z - 3.333_295e-1;
    let y = y0 + (p * z * r + r);
    if x < 0.0 {
        -y
    } else {
        y
    }
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

    /// The f32 lanes against the f64 angle: within 1e-6 (of 4π) where they answer, and
    /// leaving to f64 every point on a triangle.
    #[test]
    fn f32_lanes_match_f64() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        let mut next = || rng.gen_range(-1.0f32..1.0);
        let mut answered = 0;
        for round in 0..4000 {
            // Corners around an offset (large coordinates in some rounds), sizes from 1e-3
            // to 1, points near and far; some on a triangle or at a corner.
            let offset = if round % 3 == 0 { 1e4 } else { 0.0 };
            let size = [1e-3, 0.1, 1.0][round % 3];
            let mut rows = [[0.0f32; 8]; 9];
            for row in rows.iter_mut() {
                for x in row.iter_mut() {
                    *x = offset + size * next();
                }
            }
            let l0 = round % 8;
            let q: [f32; 3] = match round % 5 {
                // At a corner of lane l0.
                0 => [rows[0][l0], rows[1][l0], rows[2][l0]],
                // At the middle of lane l0's edge ab (rounded: on or beside it).
                1 => std::array::from_fn(|a| 0.5 * (rows[a][l0] + rows[3 + a][l0])),
                _ => std::array::from_fn(|_| offset + 3.0 * size * next()),
            };
            let (w, doubt) = solid_angles8(q, &rows);
            for l in 0..8 {
                let corner = |k: usize| std::array::from_fn(|a| f64::from(rows[3 * k + a][l]));
                let q64 = q.map(f64::from);
                let (exact, on) = solid_angle(q64, corner(0), corner(1), corner(2));
                if doubt & (1 << l) != 0 {
                    assert_eq!(w[l], 0.0);
                    continue;
                }
                answered += 1;
                assert!(
                    !on,
                    "a point on the triangle answered in f32: {q:?} lane {l}"
                );
                assert!(
                    (f64::from(w[l]) - exact).abs() < 1e-6,
                    "{} vs {exact}",
                    w[l]
                );
            }
        }
        assert!(answered > 10_000, "{answered}");
    }

    #[test]
    fn atan_matches_std() {
        for i in -40_000..=40_000 {
            let x = i as f32 * 1e-4;
            let (got, want) = (atan_f32(x), x.atan());
            assert!(
                (got - want).abs() <= 2.5e-7 * want.abs().max(1e-30) + 1e-30,
                "{x}: {got} vs {want}"
            );
        }
        assert_eq!(atan_f32(0.0), 0.0);
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
