//! The far-field expansion of a cluster of triangles' winding number (Barill et al. 2018,
//! "Fast winding numbers for soups and clouds"), to second order.
//!
//! A triangle's solid angle from `q`, over 4π, is the flux of a dipole field through it:
//! `∫ n · (x - q) / (4π |x - q|³) dA = -∫ n · ∇G(x - q) dA` with `G(r) = 1 / (4π |r|)`.
//! Expanding `∇G` in a Taylor series about the cluster's center `p` (`x = p + d`) leaves
//! moments of the cluster that do not depend on `q`:
//! - order 0: `N_i = ∫ n_i dA` (the area vector),
//! - order 1: `M_ij = ∫ n_i d_j dA`,
//! - order 2: `T_ijk = ∫ n_i d_j d_k dA` (symmetric in `j, k`),
//!
//! and `w(q) ≈ -(N·∇G(r) + M:H(r) + ½ T⋮∂³G(r))` with `r = p - q`. The series converges when
//! `|r|` exceeds the cluster's radius `R`; the truncation error falls as `(R / |r|)³`.

// Index loops read as the tensor formulas they implement.
#![allow(clippy::needless_range_loop)]

use super::angle::{cross, dot, sub, V64};

/// Moments of a cluster of triangles about `center`, and the radius of a ball about
/// `center` holding them all.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Expansion {
    pub(crate) center: V64,
    /// Bounds the distance from `center` to every point of the cluster.
    pub(crate) radius: f64,
    /// The cluster's total area (to weigh centers when clusters merge).
    pub(crate) area: f64,
    /// Order 0: the area vector.
    pub(crate) n: V64,
    /// Order 1, row-major `m[i][j]`.
    pub(crate) m: [[f64; 3]; 3],
    /// Order 2, `t[i][s]` with `s` the symmetric pair index of `(j, k)`:
    /// 0 xx, 1 yy, 2 zz, 3 xy, 4 xz, 5 yz.
    pub(crate) t: [[f64; 6]; 3],
    /// `tr(M)`, set by [`Expansion::finish`].
    pub(crate) trace: f64,
    /// `Σ_i (T_iik + T_iki + T_kii)` for each `k`, set by [`Expansion::finish`].
    pub(crate) lin: V64,
}

/// The symmetric pair index of `(j, k)` (see [`Expansion::t`]).
pub(crate) const PAIR: [[usize; 3]; 3] = [[0, 3, 4], [3, 1, 5], [4, 5, 2]];

/// The area-weighted centroid of `tris` (a triangle weighs its area), or `fallback` when
/// they have no area.
#[inline]
pub(crate) fn centroid(tris: impl Iterator<Item = [V64; 3]>, fallback: V64) -> V64 {
    let (mut sum, mut area) = ([0.0; 3], 0.0);
    for [a, b, c] in tris {
        let n = cross(sub(b, a), sub(c, a));
        let w = dot(n, n).sqrt();
        for i in 0..3 {
            sum[i] += w * (a[i] + b[i] + c[i]) / 3.0;
        }
        area += w;
    }
    if area > 0.0 && area.is_finite() {
        sum.map(|s| s / area)
    } else {
        fallback
    }
}

impl Expansion {
    /// No triangles, about `center`, within `radius`.
    pub(crate) fn empty(center: V64, radius: f64) -> Self {
        Expansion {
            center,
            radius,
            ..Default::default()
        }
    }

    /// The expansion of `tris` about `center`, with `radius` given by the caller (it must
    /// bound their distance to `center`).
    #[inline]
    pub(crate) fn of_triangles(
        tris: impl Iterator<Item = [V64; 3]>,
        center: V64,
        radius: f64,
    ) -> Self {
        let mut e = Expansion {
            center,
            radius,
            ..Default::default()
        };
        for [a, b, c] in tris {
            let n = cross(sub(b, a), sub(c, a)).map(|x| 0.5 * x);
            e.area += dot(n, n).sqrt();
            let g = [0, 1, 2].map(|i| (a[i] + b[i] + c[i]) / 3.0);
            let d = sub(g, center);
            // Second moment of the triangle about its centroid, over its area:
            // (1/12) Σ e eᵀ over the corners' offsets e from the centroid.
            let offs = [sub(a, g), sub(b, g), sub(c, g)];
            let mut cov = [[0.0; 3]; 3];
            for o in offs {
                for j in 0..3 {
                    for k in 0..3 {
                        cov[j][k] += o[j] * o[k] / 12.0;
                    }
                }
            }
            for i in 0..3 {
                e.n[i] += n[i];
                for j in 0..3 {
                    e.m[i][j] += n[i] * d[j];
                }
                for (j, row) in PAIR.iter().enumerate() {
                    for (k, &s) in row.iter().enumerate().skip(j) {
                        e.t[i][s] += n[i] * (d[j] * d[k] + cov[j][k]);
                    }
                }
            }
        }
        e
    }

    /// Adds `child`'s moments, moved from its center to `self.center` (`radius` is the
    /// caller's).
    pub(crate) fn add_shifted(&mut self, child: &Expansion) {
        let delta = sub(child.center, self.center);
        self.area += child.area;
        for i in 0..3 {
            self.n[i] += child.n[i];
            for j in 0..3 {
                self.m[i][j] += child.m[i][j] + child.n[i] * delta[j];
            }
            for (j, row) in PAIR.iter().enumerate() {
                for (k, &s) in row.iter().enumerate().skip(j) {
                    self.t[i][s] += child.t[i][s]
                        + child.m[i][j] * delta[k]
                        + child.m[i][k] * delta[j]
                        + child.n[i] * delta[j] * delta[k];
                }
            }
        }
    }

    /// Precomputes the parts of `Expansion::eval` that do not depend on the query point;
    /// call once the moments are final.
    pub(crate) fn finish(&mut self) {
        let t = &self.t;
        let full = |i: usize, j: usize, k: usize| t[i][PAIR[j][k]];
        self.trace = self.m[0][0] + self.m[1][1] + self.m[2][2];
        for k in 0..3 {
            self.lin[k] = (0..3)
                .map(|i| full(i, i, k) + full(i, k, i) + full(k, i, i))
                .sum();
        }
    }

    /// The expansion's winding number at `q` (meaningful when `|q - center|` exceeds
    /// `radius`; [`Expansion::finish`] must have run), term by term from the full tensors in
    /// f64: the reference of the f32 lanes the traversal evaluates (`lanes.rs`).
    #[cfg(test)]
    pub(crate) fn eval(&self, q: V64) -> f64 {
        let r = sub(self.center, q);
        let r2 = dot(r, r);
        let inv = 1.0 / r2.sqrt();
        let inv2 = inv * inv;
        let inv3 = inv2 * inv;
        let inv5 = inv3 * inv2;
        let inv7 = inv5 * inv2;
        // Order 0: -N·∇G = N·r / |r|³.
        let w0 = dot(self.n, r) * inv3;
        // Order 1: -M:H = tr(M) / |r|³ - 3 rᵀMr / |r|⁵.
        let m = &self.m;
        let tr = m[0][0] + m[1][1] + m[2][2];
        let mut rmr = 0.0;
        for i in 0..3 {
            rmr += r[i] * dot(m[i], r);
        }
        let w1 = tr * inv3 - 3.0 * rmr * inv5;
        // Order 2: -½ T⋮∂³G, with ∂³G_ijk = (3 (δij rk + δik rj + δjk ri) / |r|⁵
        // - 15 ri rj rk / |r|⁷) / 4π.
        let t = &self.t;
        let full = |i: usize, j: usize, k: usize| t[i][PAIR[j][k]];
        let mut lin = 0.0; // Σ (T_iik + T_iki + T_kii) r_k
        let mut cub = 0.0; // Σ T_ijk ri rj rk
        for k in 0..3 {
            for i in 0..3 {
                lin += (full(i, i, k) + full(i, k, i) + full(k, i, i)) * r[k];
            }
        }
        for i in 0..3 {
            let mut s = 0.0;
            for j in 0..3 {
                for k in 0..3 {
                    s += full(i, j, k) * r[j] * r[k];
                }
            }
            cub += r[i] * s;
        }
        let w2 = -0.5 * (3.0 * lin * inv5 - 15.0 * cub * inv7);
        (w0 + w1 + w2) / (4.0 * std::f64::consts::PI)
    }
}

/// A small cluster of triangles in the unit cube, for the tests of the expansions.
#[cfg(test)]
pub(crate) const CLUSTER: [[V64; 3]; 3] = [
    [[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [0.2, 0.9, 0.3]],
    [[0.3, 0.2, 0.5], [0.9, 0.8, 0.1], [0.1, 0.7, 0.9]],
    [[0.5, 0.5, 0.0], [0.6, 0.1, 0.8], [0.0, 0.3, 0.4]],
];

#[cfg(test)]
mod tests {
    use super::super::angle::solid_angle;
    use super::*;

    /// Far from a cluster, the expansion matches the exact sum, with an error falling as
    /// the third power of the distance; shifting moments equals expanding directly.
    #[test]
    fn expansion_matches_exact_far_away() {
        let tris = CLUSTER;
        let c = centroid(tris.iter().copied(), [0.0; 3]);
        let mut e = Expansion::of_triangles(tris.iter().copied(), c, 2.0);
        e.finish();
        let mut errs = Vec::new();
        for dist in [4.0, 8.0, 16.0] {
            let q = [c[0] + dist * 0.6, c[1] - dist * 0.48, c[2] + dist * 0.64];
            let exact: f64 = tris
                .iter()
                .map(|t| solid_angle(q, t[0], t[1], t[2]).0)
                .sum();
            errs.push((e.eval(q) - exact).abs());
        }
        assert!(errs[0] < 1e-3, "{errs:?}");
        assert!(
            errs[1] < errs[0] / 10.0 && errs[2] < errs[1] / 10.0,
            "{errs:?}"
        );
        // Shifted sub-clusters sum to the direct expansion.
        let mut sum = Expansion {
            center: [0.4, 0.4, 0.4],
            ..Default::default()
        };
        for t in &tris {
            let ct = centroid(std::iter::once(*t), [0.0; 3]);
            sum.add_shifted(&Expansion::of_triangles(std::iter::once(*t), ct, 1.0));
        }
        let direct = Expansion::of_triangles(tris.iter().copied(), [0.4, 0.4, 0.4], 1.0);
        for i in 0..3 {
            assert!((sum.n[i] - direct.n[i]).abs() < 1e-12);
            for j in 0..3 {
                assert!((sum.m[i][j] - direct.m[i][j]).abs() < 1e-12);
            }
            for s in 0..6 {
                assert!((sum.t[i][s] - direct.t[i][s]).abs() < 1e-12);
            }
        }
    }
}
