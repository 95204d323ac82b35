//! The far-field expansions of one node's 8 slots as f32 lanes, for the winding-number
//! traversal: the far test and the evaluation of every slot of a node in one branch-free
//! pass that compiles to SIMD.
//!
//! The moments are built in f64 ([`Expansion`]) and stored here rounded to f32 in the
//! tree's [`Frame`]: centers relative to the middle of the mesh's box, so that the offset
//! from a query point keeps its precision where coordinates are large, and lengths over a
//! power of two near the box's size, so that the f32 powers of a distance neither overflow
//! nor underflow whatever the mesh's units (the scaling is exact). The f32 rounding
//! (relative 6e-8 on each term) is far below the truncation error of the expansion
//! (1e-3 at 4 radii).

// Index loops read as the tensor layout they fill.
#![allow(clippy::needless_range_loop)]

use super::angle::V64;
use super::expansion::{Expansion, PAIR};

/// Slots per node.
pub(crate) const LANES: usize = 8;

/// 1 / 4π.
const INV_4PI: f32 = (1.0 / (4.0 * std::f64::consts::PI)) as f32;

/// The monomials of the cubic form, as their three axes in order: xxx, yyy, zzz, xxy, xxz,
/// xyy, yyz, xzz, yzz, xyz.
const CUBIC: [[usize; 3]; 10] = [
    [0, 0, 0],
    [1, 1, 1],
    [2, 2, 2],
    [0, 0, 1],
    [0, 0, 2],
    [0, 1, 1],
    [1, 1, 2],
    [0, 2, 2],
    [1, 2, 2],
    [0, 1, 2],
];

/// How many of a monomial's three axes are x, y and z.
const fn axis_counts(m: [usize; 3]) -> [usize; 3] {
    let mut c = [0; 3];
    c[m[0]] += 1;
    c[m[1]] += 1;
    c[m[2]] += 1;
    c
}

/// `CUBIC_AT[a][b][k]`: the row of [`CUBIC`] of the monomial with axes `a`, `b` and `k` in
/// any order (a table, as the lanes of every node of the winding tree look it up 27 times
/// a slot).
const CUBIC_AT: [[[usize; 3]; 3]; 3] = {
    let mut at = [[[0; 3]; 3]; 3];
    let mut i = 0;
    while i < 27 {
        let (a, b, k) = (i / 9, i / 3 % 3, i % 3);
        let want = axis_counts([a, b, k]);
        let mut row = 0;
        while row < CUBIC.len() {
            let c = axis_counts(CUBIC[row]);
            if c[0] == want[0] && c[1] == want[1] && c[2] == want[2] {
                at[a][b][k] = row;
            }
            row += 1;
        }
        i += 1;
    }
    at
};

/// A slot is far only beyond this squared distance in frame units (1e-5 of the frame's
/// scale): nearer, the seventh power of the inverse distance would overflow f32. Such a
/// slot is taken apart instead (its radius is smaller still).
const NEAREST2: f32 = 1e-10;

/// A far slot beyond this squared distance in frame units adds nothing: its winding number
/// is under 1e-23 (a cluster within the frame has moments of order 1), and the cube of the
/// offset would overflow f32.
const FARTHEST2: f32 = 1e24;

/// Where the lanes' coordinates are taken: `(x - origin) / scale`, `scale` a power of two.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Frame {
    pub(crate) origin: V64,
    /// A power of two, so that dividing by it is exact.
    scale: f64,
}

impl Frame {
    /// The frame of a box with middle `origin` and largest half extent `half`: a power of
    /// two within a factor 2 of `half` (1 for an empty or flat-to-a-point box).
    pub(crate) fn new(origin: V64, half: f64) -> Self {
        let scale = if half > 0.0 && half.is_finite() {
            2f64.powi(half.log2().round().clamp(-1000.0, 1000.0) as i32)
        } else {
            1.0
        };
        Frame { origin, scale }
    }

    /// The frame units of point `q`, rounded to f32.
    #[inline(always)]
    pub(crate) fn offset(&self, q: V64) -> [f32; 3] {
        let inv = 1.0 / self.scale;
        [0, 1, 2].map(|a| ((q[a] - self.origin[a]) * inv) as f32)
    }

    /// A length in frame units.
    #[inline(always)]
    pub(crate) fn length(&self, x: f64) -> f64 {
        x / self.scale
    }
}

/// One node's expansions, lane `i` being slot `i`.
#[derive(Clone, Debug)]
pub(crate) struct ExpansionLanes {
    /// Centers in the frame.
    c: [[f32; LANES]; 3],
    /// Squared radii; infinite for an unused slot, which is then never far.
    r2: [f32; LANES],
    /// Order 0: the area vector.
    n: [[f32; LANES]; 3],
    /// Order 1: `tr(M)`, and the symmetric part of `M` as the coefficients of the
    /// quadratic form `r·M·r` over the monomials xx, yy, zz, xy, xz, yz (the pairs of
    /// [`PAIR`]).
    trace: [f32; LANES],
    m: [[f32; LANES]; 6],
    /// Order 2: `Σ_i (T_iik + T_iki + T_kii)` per `k`, and the fully symmetric part of `T`
    /// as the coefficients of the cubic form `Σ T_ijk r_i r_j r_k` over the monomials of
    /// [`CUBIC`] (the evaluation needs no more: 10 rows where the tensor has 18).
    lin: [[f32; LANES]; 3],
    t: [[f32; LANES]; 10],
    /// Bit `i` set for each used slot.
    pub(crate) used: u32,
    /// The least squared radius of a used slot (infinite for none).
    pub(crate) min_r2: f32,
}

impl ExpansionLanes {
    /// The lanes of `slots` (the node's used slots, at most [`LANES`], finished), in
    /// `frame` (a moment of order `k` holds `k + 2` powers of length).
    pub(crate) fn new(slots: &[Expansion], frame: &Frame) -> Self {
        let mut l = ExpansionLanes {
            c: [[0.0; LANES]; 3],
            r2: [f32::INFINITY; LANES],
            n: [[0.0; LANES]; 3],
            trace: [0.0; LANES],
            m: [[0.0; LANES]; 6],
            lin: [[0.0; LANES]; 3],
            t: [[0.0; LANES]; 10],
            used: (1u32 << slots.len().min(LANES)) - 1,
            min_r2: f32::INFINITY,
        };
        let (s2, s3, s4) = (
            frame.length(1.0).powi(2),
            frame.length(1.0).powi(3),
            frame.length(1.0).powi(4),
        );
        for (i, e) in slots.iter().enumerate().take(LANES) {
            let c = frame.offset(e.center);
            for a in 0..3 {
                l.c[a][i] = c[a];
                l.n[a][i] = (e.n[a] * s2) as f32;
                l.lin[a][i] = (e.lin[a] * s4) as f32;
            }
            // Each monomial's coefficient: the sum of the tensor's entries over the
            // orderings of its axes.
            let mut quadratic = [0.0f64; 6];
            let mut cubic = [0.0f64; 10];
            for a in 0..3 {
                for b in 0..3 {
                    quadratic[PAIR[a][b]] += e.m[a][b];
                    for k in 0..3 {
                        cubic[CUBIC_AT[a][b][k]] += e.t[a][PAIR[b][k]];
                    }
                }
            }
            for (row, q) in l.m.iter_mut().zip(quadratic) {
                row[i] = (q * s3) as f32;
            }
            for (row, t) in l.t.iter_mut().zip(cubic) {
                row[i] = (t * s4) as f32;
            }
            l.trace[i] = (e.trace * s3) as f32;
            // Rounded up, so that a slot is far in f32 only if it is in f64 too (up to the
            // query offset's rounding).
            let r = frame.length(e.radius);
            l.r2[i] = ((r * r) as f32).next_up();
            l.min_r2 = l.min_r2.min(l.r2[i]);
        }
        l
    }

    /// The slots whose column, the disk of their radius grown by `grow` around their center
    /// in the first two coordinates, holds `q`'s first two (in the frame), as a bit mask:
    /// a point outside it is not above or below anything in the slot's ball.
    #[inline(always)]
    pub(crate) fn columns(&self, q: [f32; 3], grow: f32) -> u32 {
        // (r + g)^2 <= r^2 (1 + g) + g + g^2, as 2r <= r^2 + 1: no square root.
        let (scale, add) = (1.0 + grow, grow + grow * grow);
        let mut mask = 0u32;
        for i in 0..LANES {
            let (dx, dy) = (self.c[0][i] - q[0], self.c[1][i] - q[1]);
            // NaN holds.
            let beside = dx * dx + dy * dy > self.r2[i] * scale + add;
            mask |= u32::from(!beside) << i;
        }
        mask
    }

    /// The slots farther from `q` (in the frame) than `ratio2` squared radii (and than
    /// [`NEAREST2`]), as a bit mask, and the sum of their expansions' winding numbers.
    #[inline(always)]
    pub(crate) fn eval_far(&self, q: [f32; 3], ratio2: f32) -> (u32, f32) {
        let mut w = [0.0f32; LANES];
        let mut far = [false; LANES];
        for (i, (w, far)) in w.iter_mut().zip(far.iter_mut()).enumerate() {
            let r = [
                self.c[0][i] - q[0],
                self.c[1][i] - q[1],
                self.c[2][i] - q[2],
            ];
            let (xx, yy, zz) = (r[0] * r[0], r[1] * r[1], r[2] * r[2]);
            let (xy, xz, yz) = (r[0] * r[1], r[0] * r[2], r[1] * r[2]);
            let d2 = xx + yy + zz;
            *far = d2 > ratio2 * self.r2[i] && d2 > NEAREST2;
            let inv = 1.0 / d2.sqrt();
            let inv2 = inv * inv;
            let inv3 = inv2 * inv;
            let inv5 = inv3 * inv2;
            let inv7 = inv5 * inv2;
            let m = |k: usize| self.m[k][i];
            let rmr = m(0) * xx + m(1) * yy + m(2) * zz + m(3) * xy + m(4) * xz + m(5) * yz;
            let t = |k: usize| self.t[k][i];
            let cub = t(0) * xx * r[0]
                + t(1) * yy * r[1]
                + t(2) * zz * r[2]
                + t(3) * xx * r[1]
                + t(4) * xx * r[2]
                + t(5) * yy * r[0]
                + t(6) * yy * r[2]
                + t(7) * zz * r[0]
                + t(8) * zz * r[1]
                + t(9) * xy * r[2];
            let nr = self.n[0][i] * r[0] + self.n[1][i] * r[1] + self.n[2][i] * r[2];
            let lr = self.lin[0][i] * r[0] + self.lin[1][i] * r[1] + self.lin[2][i] * r[2];
            let w0 = nr * inv3;
            let w1 = self.trace[i] * inv3 - 3.0 * rmr * inv5;
            let w2 = -0.5 * (3.0 * lr * inv5 - 15.0 * cub * inv7);
            let v = (w0 + w1 + w2) * INV_4PI;
            *w = if *far && d2 < FARTHEST2 { v } else { 0.0 };
        }
        let mut mask = 0u32;
        for (i, &f) in far.iter().enumerate() {
            mask |= u32::from(f) << i;
        }
        (mask, w.iter().sum())
    }
}

#[cfg(test)]
mod tests {
    use super::super::expansion::{centroid, Expansion, CLUSTER};
    use super::*;

    /// Each ordering of three axes finds the row of its monomial.
    #[test]
    fn cubic_rows_of_every_axis_order() {
        for a in 0..3 {
            for b in 0..3 {
                for k in 0..3 {
                    let mut abk = [a, b, k];
                    abk.sort_unstable();
                    assert_eq!(CUBIC[CUBIC_AT[a][b][k]], abk, "{a} {b} {k}");
                }
            }
        }
    }

    /// The lanes give the f64 expansions' values to f32 precision, far slots only.
    #[test]
    fn lanes_match_the_f64_expansions() {
        let tris = CLUSTER;
        let origin = [100.0, -50.0, 25.0];
        let shifted =
            |t: &[[f64; 3]; 3], k: f64| t.map(|v| [v[0] + k + 100.0, v[1] - 50.0, v[2] + 25.0]);
        let slots: Vec<Expansion> = (0..5)
            .map(|k| {
                let ts: Vec<_> = tris.iter().map(|t| shifted(t, 2.0 * k as f64)).collect();
                let c = centroid(ts.iter().copied(), [0.0; 3]);
                let mut e = Expansion::of_triangles(ts.iter().copied(), c, 1.0);
                e.finish();
                e
            })
            .collect();
        let frame = Frame::new(origin, 5.0);
        let lanes = ExpansionLanes::new(&slots, &frame);
        for q in [[4.0, 3.0, -2.0], [-6.0, 1.0, 0.5], [20.0, 0.0, 7.0]] {
            let qa = [q[0] + origin[0], q[1] + origin[1], q[2] + origin[2]];
            let (mask, sum) = lanes.eval_far(frame.offset(qa), 4.0);
            let mut want = 0.0;
            for (i, e) in slots.iter().enumerate() {
                let d: f64 = (0..3).map(|a| (e.center[a] - qa[a]).powi(2)).sum();
                let far = d > 4.0 * e.radius * e.radius;
                assert_eq!(mask & (1 << i) != 0, far, "slot {i} at {q:?}");
                if far {
                    want += e.eval(qa);
                }
            }
            assert!(mask >> 5 == 0, "unused lanes are never far");
            assert!(
                (f64::from(sum) - want).abs() < 1e-6,
                "{sum} against {want} at {q:?}"
            );
            // Every SIMD path gives the same bits.
            #[cfg(target_arch = "x86_64")]
            for path in raypick_primitives::simd::SimdPath::available() {
                let cpu = raypick_primitives::simd::CpuPath::new(path);
                let (m, s) =
                    crate::mesh::triangle_kernel_x86::eval_far8(cpu, &lanes, frame.offset(qa), 4.0);
                assert_eq!((m, s.to_bits()), (mask, sum.to_bits()), "{path:?}");
            }
        }
    }

    /// A slot a hair from the query point, or the query point at the edge of f32's range,
    /// gives a finite sum: the first is not far (its powers of the inverse distance would
    /// overflow), the second adds nothing.
    #[test]
    fn near_and_huge_offsets_stay_finite() {
        let mut e = Expansion::of_triangles(CLUSTER.iter().copied(), [0.5, 0.5, 0.5], 0.0);
        e.finish();
        let empty = Expansion::empty([0.25, 0.25, 0.25], 0.0);
        let frame = Frame::new([0.5; 3], 0.5);
        let lanes = ExpansionLanes::new(&[e, empty], &frame);
        let mut hair = frame.offset([0.25; 3]);
        hair[2] = hair[2].next_up();
        let (mask, sum) = lanes.eval_far(hair, 1.69);
        assert_eq!(mask & 2, 0, "the slot a hair away is not far");
        assert!(sum.is_finite());
        let (mask, sum) = lanes.eval_far([3e38, -3e38, 1e38], 1.69);
        assert_eq!(mask, 3);
        assert_eq!(sum, 0.0);
    }
}
