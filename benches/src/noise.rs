//! Value noise and its fractal sum, used to displace the sphere and the terrain.
//!
//! Lattice values come from hashing the integer coordinates with a seed, so the noise is a
//! pure function of its inputs: no tables, no state.

use crate::rng::mix64;

fn lattice(seed: u64, x: i64, y: i64, z: i64) -> f64 {
    let h = mix64(
        seed ^ mix64((x as u64).wrapping_mul(0x8CB9_2BA7_2F3D_8DD7))
            ^ mix64(
                (y as u64)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(17),
            )
            ^ mix64(
                (z as u64)
                    .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                    .rotate_left(34),
            ),
    );
    // Uniform in [-1, 1].
    (h >> 11) as f64 * (2.0 / (1u64 << 53) as f64) - 1.0
}

fn smooth(t: f64) -> f64 {
    t * t * (3.0 - 2.0 * t)
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

/// Trilinearly interpolated value noise with smoothstep weights, in `[-1, 1]`.
///
/// Non-finite inputs give a meaningless but finite value (the lattice index saturates).
#[must_use]
pub fn value3(seed: u64, p: [f64; 3]) -> f64 {
    let f = [p[0].floor(), p[1].floor(), p[2].floor()];
    let i = [f[0] as i64, f[1] as i64, f[2] as i64];
    let t = [
        smooth((p[0] - f[0]).clamp(0.0, 1.0)),
        smooth((p[1] - f[1]).clamp(0.0, 1.0)),
        smooth((p[2] - f[2]).clamp(0.0, 1.0)),
    ];
    let c = |dx: i64, dy: i64, dz: i64| lattice(seed, i[0] + dx, i[1] + dy, i[2] + dz);
    let x00 = lerp(c(0, 0, 0), c(1, 0, 0), t[0]);
    let x10 = lerp(c(0, 1, 0), c(1, 1, 0), t[0]);
    let x01 = lerp(c(0, 0, 1), c(1, 0, 1), t[0]);
    let x11 = lerp(c(0, 1, 1), c(1, 1, 1), t[0]);
    lerp(lerp(x00, x10, t[1]), lerp(x01, x11, t[1]), t[2])
}

/// Fractal sum of `octaves` value-noise layers (frequency x2, amplitude x0.5 per octave),
/// normalized back to `[-1, 1]`. Zero octaves give 0.
#[must_use]
pub fn fbm3(seed: u64, p: [f64; 3], octaves: u32) -> f64 {
    let (mut sum, mut norm, mut amp, mut freq) = (0.0, 0.0, 1.0, 1.0);
    for o in 0..octaves {
        sum += amp
            * value3(
                seed.wrapping_add(u64::from(o)),
                [p[0] * freq, p[1] * freq, p[2] * freq],
            );
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    if norm > 0.0 {
        sum / norm
    } else {
        0.0
    }
}
