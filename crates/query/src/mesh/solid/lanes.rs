//! The far-field expansions of one node's 8 slots as f32 lanes, for the winding-number
//! traversal: the far test and the evaluation of every slot of a node in one branch-free
//! pass that compiles to SIMD.
//!
//! The moments are built in f64 ([`Expansion`]) and stored here rounded to f32, with the
//! centers relative to the tree's origin (the middle of the mesh's box), so that the offset
//! from a query point keeps its precision where coordinates are large. The f32 rounding
//! (relative 6e-8 on each term) is far below the truncation error of the expansion
//! (1e-3 at 4 radii).

// Index loops read as the tensor layout they fill.
#![allow(clippy::needless_range_loop)]

use super::angle::V64;
use super::expansion::Expansion;

/// Slots per node.
pub(crate) const LANES: usize = 8;

/// 1 / 4π.
const INV_4PI: f32 = (1.0 / (4.0 * std::f64::consts::PI)) as f32;

/// One node's expansions, lane `i` being slot `i`.
#[derive(Clone, Debug)]
pub(crate) struct ExpansionLanes {
    /// Centers minus the tree's origin.
    c: [[f32; LANES]; 3],
    /// Squared radii; infinite for an unused slot, which is then never far.
    r2: [f32; LANES],
    /// Order 0: the area vector.
    n: [[f32; LANES]; 3],
    /// Order 1: `tr(M)` and `M` row-major.
    trace: [f32; LANES],
    m: [[f32; LANES]; 9],
    /// Order 2: `Σ_i (T_iik + T_iki + T_kii)` per `k`, and `T[i][pair]` at `3 * i + pair`
    /// with the pairs of [`Expansion`] (xx, yy, zz, xy, xz, yz).
    lin: [[f32; LANES]; 3],
    t: [[f32; LANES]; 18],
    /// Bit `i` set for each used slot.
    pub(crate) used: u32,
    /// The least squared radius of a used slot (infinite for none).
    pub(crate) min_r2: f32,
}

impl ExpansionLanes {
    /// The lanes of `slots` (the node's used slots, at most [`LANES`], finished), with
    /// centers relative to `origin`.
    pub(crate) fn new(slots: &[Expansion], origin: V64) -> Self {
        let mut l = ExpansionLanes {
            c: [[0.0; LANES]; 3],
            r2: [f32::INFINITY; LANES],
            n: [[0.0; LANES]; 3],
            trace: [0.0; LANES],
            m: [[0.0; LANES]; 9],
            lin: [[0.0; LANES]; 3],
            t: [[0.0; LANES]; 18],
            used: (1u32 << slots.len().min(LANES)) - 1,
            min_r2: f32::INFINITY,
        };
        for (i, e) in slots.iter().enumerate().take(LANES) {
            for a in 0..3 {
                l.c[a][i] = (e.center[a] - origin[a]) as f32;
                l.n[a][i] = e.n[a] as f32;
                l.lin[a][i] = e.lin[a] as f32;
                for b in 0..3 {
                    l.m[3 * a + b][i] = e.m[a][b] as f32;
                }
                for s in 0..6 {
                    l.t[6 * a + s][i] = e.t[a][s] as f32;
                }
            }
            l.trace[i] = e.trace as f32;
            // Rounded up, so that a slot is far in f32 only if it is in f64 too (up to the
            // query offset's rounding).
            l.r2[i] = ((e.radius * e.radius) as f32).next_up();
            l.min_r2 = l.min_r2.min(l.r2[i]);
        }
        l
    }

    /// The slots farther from `q` (relative to the origin) than `ratio2` squared radii, as
    /// a bit mask, and the sum of their expansions' winding numbers.
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
            let d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
            *far = d2 > ratio2 * self.r2[i];
            let inv = 1.0 / d2.sqrt();
            let inv2 = inv * inv;
            let inv3 = inv2 * inv;
            let inv5 = inv3 * inv2;
            let inv7 = inv5 * inv2;
            let m = |a: usize, b: usize| self.m[3 * a + b][i];
            let mr = |a: usize| m(a, 0) * r[0] + m(a, 1) * r[1] + m(a, 2) * r[2];
            let rmr = r[0] * mr(0) + r[1] * mr(1) + r[2] * mr(2);
            let pairs = [
                r[0] * r[0],
                r[1] * r[1],
                r[2] * r[2],
                2.0 * r[0] * r[1],
                2.0 * r[0] * r[2],
                2.0 * r[1] * r[2],
            ];
            let row = |a: usize| {
                let t = |s: usize| self.t[6 * a + s][i];
                t(0) * pairs[0]
                    + t(1) * pairs[1]
                    + t(2) * pairs[2]
                    + t(3) * pairs[3]
                    + t(4) * pairs[4]
                    + t(5) * pairs[5]
            };
            let cub = r[0] * row(0) + r[1] * row(1) + r[2] * row(2);
            let nr = self.n[0][i] * r[0] + self.n[1][i] * r[1] + self.n[2][i] * r[2];
            let lr = self.lin[0][i] * r[0] + self.lin[1][i] * r[1] + self.lin[2][i] * r[2];
            let w0 = nr * inv3;
            let w1 = self.trace[i] * inv3 - 3.0 * rmr * inv5;
            let w2 = -0.5 * (3.0 * lr * inv5 - 15.0 * cub * inv7);
            let v = (w0 + w1 + w2) * INV_4PI;
            *w = if *far { v } else { 0.0 };
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
        let lanes = ExpansionLanes::new(&slots, origin);
        for q in [[4.0, 3.0, -2.0], [-6.0, 1.0, 0.5], [20.0, 0.0, 7.0]] {
            let qa = [q[0] + origin[0], q[1] + origin[1], q[2] + origin[2]];
            let (mask, sum) = lanes.eval_far(q.map(|x| x as f32), 4.0);
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
                let (m, s) = crate::mesh::triangle_kernel_x86::eval_far8(
                    cpu,
                    &lanes,
                    q.map(|x| x as f32),
                    4.0,
                );
                assert_eq!((m, s.to_bits()), (mask, sum.to_bits()), "{path:?}");
            }
        }
    }
}
