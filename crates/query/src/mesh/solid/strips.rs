//! The strips of a rim ([`super::rim`]): the solid angle of an edge `u -> v` swept to
//! infinity along `+z`, seen from `q`, as a complex factor whose argument is half that angle
//! (Van Oosterom and Strackee: `tan(Ω / 2) = N / D` with `N = a · (b × z)` and
//! `D = |a||b| + a · b + a_z |b| + b_z |a|`, `a = u - q`, `b = v - q`). Products of factors
//! add the angles; one `atan2` at the end reads the sum modulo 4π, and the turns the product
//! wrapped, counted from the signs as it goes, give the whole sum.

use super::angle::{dot, sub, V64};

/// A factor whose magnitude is under this fraction of `|a||b|` leaves the fraction to the
/// triangle sum: its magnitude squared is `2 (1 + â·b̂)(1 + b̂·z)(1 + z·â)`, which vanishes
/// only where `q` is on the edge or on the half-line from one of its corners along `-z`,
/// and there its argument would be in doubt (at 1e-6, the f64 rounding of `N` and `D` moves
/// it by about 1e-10 radian).
const GUARD: f64 = 1e-6;

/// A running product of strip factors, with the number of times its argument passed ±π.
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    re: f64,
    im: f64,
    /// Whole turns the product's argument lost to the wrap into `(-π, π]`.
    wraps: i64,
}

impl Default for Turn {
    fn default() -> Self {
        Turn {
            re: 1.0,
            im: 0.0,
            wraps: 0,
        }
    }
}

impl Turn {
    /// Multiplies in the factor `re + i im` (argument in `(-π, π)`, as every strip's).
    ///
    /// The wrap is read from the signs of the imaginary parts, as `atan2` reads them
    /// (a negative zero is below the axis): two arguments in `[0, π]` whose product lands
    /// below the axis passed `π`, two below whose product lands above passed `-π`. Where
    /// rounding could tip the product's sign, its argument is near `±π`, and either side
    /// gives the same sum; near 0 both products of the imaginary part have the same sign.
    #[inline(always)]
    pub(super) fn mul(&mut self, re: f64, im: f64) {
        let (r, i) = (self.re * re - self.im * im, self.re * im + self.im * re);
        let (a, b, c) = (
            self.im.is_sign_negative(),
            im.is_sign_negative(),
            i.is_sign_negative(),
        );
        self.wraps += i64::from(!a & !b & c) - i64::from(a & b & !c);
        (self.re, self.im) = (r, i);
    }

    /// Keeps the product within f64's range: factors are at most 4 and at least [`GUARD`]
    /// in magnitude, so checking after every 8 is well in time.
    #[inline(always)]
    pub(super) fn rescale(&mut self) {
        let size = self.re.abs() + self.im.abs();
        if !(1e-100..=1e100).contains(&size) {
            self.re /= size;
            self.im /= size;
        }
    }

    /// Half the solid angle of the strips multiplied in, modulo 2π, in `(-π, π]`.
    pub(super) fn half_angle(&self) -> f64 {
        self.im.atan2(self.re)
    }

    /// Half the solid angle of the strips multiplied in: [`Turn::half_angle`] with the
    /// wrapped turns added back.
    pub(super) fn unwrapped_half_angle(&self) -> f64 {
        self.half_angle() + self.wraps as f64 * (2.0 * std::f64::consts::PI)
    }

    /// Multiplies in the strip of `u -> v` seen from `q`, `m` times (its conjugate for
    /// negative `m`). `None` when its factor fails [`GUARD`] (or `q` is at a corner).
    pub(super) fn strip(&mut self, q: V64, u: V64, v: V64, m: i32) -> Option<()> {
        let (re, im, ok) = factor(sub(u, q), sub(v, q));
        if !ok {
            return None;
        }
        let im = if m < 0 { -im } else { im };
        for _ in 0..m.unsigned_abs() {
            self.mul(re, im);
        }
        self.rescale();
        Some(())
    }
}

/// The factor of the strip with corners `a`, `b` relative to the query point, over `|a||b|`,
/// and whether it passes [`GUARD`] (false for NaN and for a corner at the point).
#[inline(always)]
fn factor(a: V64, b: V64) -> (f64, f64, bool) {
    let (la, lb) = (dot(a, a).sqrt(), dot(b, b).sqrt());
    let n = a[0] * b[1] - a[1] * b[0];
    let scale = la * lb;
    let d = scale + dot(a, b) + a[2] * lb + b[2] * la;
    let ok = n * n + d * d > GUARD * GUARD * (scale * scale);
    let inv = 1.0 / scale;
    (d * inv, n * inv, ok)
}

/// Up to 8 strips as f64 lanes, lane `i` the edge `u[.][i] -> v[.][i]`: one pass computes
/// every lane's factor (it compiles to SIMD).
#[derive(Clone, Debug, Default)]
pub(crate) struct StripLanes {
    u: [[f64; 8]; 3],
    v: [[f64; 8]; 3],
}

impl StripLanes {
    /// Lanes of `edges` (at most 8; the others unused).
    pub(super) fn new(edges: impl Iterator<Item = (V64, V64)>) -> Self {
        let mut l = StripLanes::default();
        for (i, (u, v)) in edges.take(8).enumerate() {
            for a in 0..3 {
                l.u[a][i] = u[a];
                l.v[a][i] = v[a];
            }
        }
        l
    }

    /// Every lane's factor seen from `q` (real and imaginary parts) and the mask of the lanes
    /// that pass [`GUARD`]. Unused lanes give meaningless values.
    #[inline(always)]
    pub(crate) fn factors(&self, q: V64) -> ([f64; 8], [f64; 8], u32) {
        let (mut re, mut im, mut ok) = ([0.0; 8], [0.0; 8], [false; 8]);
        for i in 0..8 {
            let a = [0, 1, 2].map(|k| self.u[k][i] - q[k]);
            let b = [0, 1, 2].map(|k| self.v[k][i] - q[k]);
            (re[i], im[i], ok[i]) = factor(a, b);
        }
        let mut mask = 0u32;
        for (i, &o) in ok.iter().enumerate() {
            mask |= u32::from(o) << i;
        }
        (re, im, mask)
    }

    /// True when the projection of `q` along the sweep axis is farther than `margin` from the
    /// line through each edge of the lanes in `mask`, also projected (from the point, for an
    /// edge along the axis): the ray from `q` down the axis then passes that edge by more
    /// than `margin`.
    #[inline(always)]
    pub(super) fn clear_of(&self, q: V64, mask: u32, margin: f64) -> bool {
        let mut near = 0u32;
        for i in 0..8 {
            let a = [self.u[0][i] - q[0], self.u[1][i] - q[1]];
            let b = [self.v[0][i] - q[0], self.v[1][i] - q[1]];
            let n = a[0] * b[1] - a[1] * b[0];
            let e = [self.v[0][i] - self.u[0][i], self.v[1][i] - self.u[1][i]];
            let len2 = e[0] * e[0] + e[1] * e[1];
            // Not `>`: NaN is near.
            let clear = if len2 > 0.0 {
                n * n > margin * margin * len2
            } else {
                a[0] * a[0] + a[1] * a[1] > margin * margin
            };
            near |= u32::from(!clear) << i;
        }
        near & mask == 0
    }
}

/// Multiplies into `turn` the factors of the lanes in `mask` (conjugated where `conj` has
/// them) of `lanes` seen from `q`; `None` when one fails [`GUARD`]. One AVX2 pass for the
/// factors where `cpu` has it (the same f64 operations, without FMA).
#[inline(always)]
pub(super) fn multiply(
    turn: &mut Turn,
    lanes: &StripLanes,
    q: V64,
    mask: u32,
    conj: u32,
    #[cfg(target_arch = "x86_64")] cpu: Option<raypick_primitives::simd::CpuPath>,
) -> Option<()> {
    #[cfg(target_arch = "x86_64")]
    let (re, im, ok) = crate::mesh::triangle_kernel_x86::strip_factors8(cpu, lanes, q);
    #[cfg(not(target_arch = "x86_64"))]
    let (re, im, ok) = lanes.factors(q);
    if mask & !ok != 0 {
        return None;
    }
    let mut bits = mask;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        turn.mul(re[i], if conj & (1 << i) != 0 { -im[i] } else { im[i] });
    }
    turn.rescale();
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::angle::solid_angle;
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A strip's angle is that of the quad `(u, v, v + s z, u + s z)` as `s` grows, and the lanes
    /// give the scalar factors bit for bit, on every SIMD path.
    #[test]
    fn strips_are_swept_triangles_and_lanes_match() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5791_9500);
        for _ in 0..200 {
            let mut pt = || [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0));
            let (q, u, v) = (pt(), pt(), pt());
            let mut t = Turn::default();
            if t.strip(q, u, v, 1).is_none() {
                continue;
            }
            // The quad (u, v, v + s z, u + s z) as two triangles.
            let (u2, v2) = ([u[0], u[1], u[2] + 1e7], [v[0], v[1], v[2] + 1e7]);
            let tri = solid_angle(q, u, v, v2).0 + solid_angle(q, u, v2, u2).0;
            let got = t.half_angle() / (2.0 * std::f64::consts::PI);
            assert!((got - tri).abs() < 1e-6, "{got} against {tri}");
        }
        let edges: Vec<(V64, V64)> = (0..8)
            .map(|_| {
                let mut pt = || [0, 1, 2].map(|_| rng.gen_range(-1.0..1.0));
                (pt(), pt())
            })
            .collect();
        let lanes = StripLanes::new(edges.iter().copied());
        let q = [0.1, -0.2, 0.3];
        let (re, im, ok) = lanes.factors(q);
        for (i, &(u, v)) in edges.iter().enumerate() {
            let (r, m, o) = factor(sub(u, q), sub(v, q));
            assert_eq!(
                (r.to_bits(), m.to_bits()),
                (re[i].to_bits(), im[i].to_bits())
            );
            assert_eq!(o, ok & (1 << i) != 0);
        }
        #[cfg(target_arch = "x86_64")]
        for path in raypick_primitives::simd::SimdPath::available() {
            let cpu = raypick_primitives::simd::CpuPath::new(path);
            let (r, m, o) = crate::mesh::triangle_kernel_x86::strip_factors8(cpu, &lanes, q);
            assert_eq!(
                (r.map(f64::to_bits), m.map(f64::to_bits), o),
                (re.map(f64::to_bits), im.map(f64::to_bits), ok)
            );
        }
    }
}
