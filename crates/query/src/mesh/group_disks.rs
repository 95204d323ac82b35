//! A thick disk around each group of leaf triangles, for the nearest-point search.
//!
//! A box is a weak lower bound on the distance to a nearly flat patch of a smooth surface:
//! its corners stand off the patch by about its size unless the patch lies in an axis
//! plane, so a query point a few tenths away from a curved surface finds a hundred leaf
//! boxes within its final distance. The group's triangles lie inside a cylinder around
//! their mean normal, as thick as they bend away from their plane and as wide as they
//! reach across it; the distance to that cylinder grows with the offset along the surface
//! at once, and rules out every group but those under the point.

use raypick_primitives::{Point3, Real};

use super::leaf_tris::LeafTriangles;

/// The cylinder of one group: its center, axis (unit up to f32 rounding), half height and
/// radius. Every corner `v` has `|n . (v - c)| <= half` and `|(v - c) - n (n . (v - c))|
/// <= radius`, both in f64 with the stored f32 values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Disk {
    c: [f32; 3],
    n: [f32; 3],
    half: f32,
    radius: f32,
}

/// The disks of a mesh's groups, in slot order, with a rank table to find a group's disk
/// from its first slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupDisks {
    disks: Vec<Disk>,
    /// Groups starting before each 64-slot word of the group-start bit set.
    rank: Vec<u32>,
    starts: Vec<u64>,
    /// Bit `s` set when the group starting at slot `s` has a disk thinner than a quarter of
    /// its box's smallest extent (a tilted, nearly flat patch): only those are tested.
    useful: Vec<u64>,
    enabled: bool,
}

impl GroupDisks {
    /// The disks of every group of `tris`.
    pub(crate) fn build(tris: &LeafTriangles) -> Self {
        let starts = tris.starts().to_vec();
        let mut rank = Vec::with_capacity(starts.len());
        let mut total = 0u32;
        for w in &starts {
            rank.push(total);
            total += w.count_ones();
        }
        let mut disks = Vec::with_capacity(total as usize);
        let mut useful = vec![0u64; starts.len()];
        let mut count = 0usize;
        tris.for_each_group(|start, corners| {
            let (disk, tighter) = Disk::around(corners);
            if tighter {
                useful[start / 64] |= 1 << (start % 64);
                count += 1;
            }
            disks.push(disk);
        });
        let enabled = 4 * count >= total as usize;
        if !enabled {
            disks = Vec::new();
        }
        Self {
            disks,
            rank,
            starts,
            useful,
            enabled,
        }
    }

    /// True when the disks are worth testing on this mesh: at least a quarter of its groups
    /// have one clearly tighter than their box.
    #[inline(always)]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// True when the group starting at `start` has a disk clearly tighter than its box.
    #[inline(always)]
    pub(crate) fn useful(&self, start: usize) -> bool {
        self.useful[start / 64] & (1 << (start % 64)) != 0
    }

    /// A lower bound on the squared distance from `p` to the triangles of the group starting
    /// at slot `start`, whose root exceeds the true distance by at most about `1e-6 *
    /// scale` (f32 rounding of offsets below `2 * scale`).
    #[inline(always)]
    pub(crate) fn lower2(&self, start: usize, p: [f32; 3]) -> f32 {
        let (w, b) = (start / 64, start % 64);
        let below = self.starts[w] & ((1u64 << b) - 1);
        let g = self.rank[w] as usize + below.count_ones() as usize;
        self.disks[g].lower2(p)
    }
}

impl Disk {
    /// The squared distance from `p` to the cylinder, in f32.
    #[inline(always)]
    fn lower2(&self, p: [f32; 3]) -> f32 {
        let v = [p[0] - self.c[0], p[1] - self.c[1], p[2] - self.c[2]];
        let h = v[0] * self.n[0] + v[1] * self.n[1] + v[2] * self.n[2];
        let t = [
            v[0] - h * self.n[0],
            v[1] - h * self.n[1],
            v[2] - h * self.n[2],
        ];
        let t = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
        let up = (h.abs() - self.half).max(0.0);
        let out = (t - self.radius).max(0.0);
        up * up + out * out
    }

    /// The cylinder around `corners` (a group's triangles), computed in f64, and whether
    /// it is clearly thinner than their box.
    fn around(corners: &[[Point3<Real>; 3]]) -> (Self, bool) {
        let w = |p: &Point3<Real>| [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
        let mut sum = [0.0f64; 3];
        let mut normal = [0.0f64; 3];
        let mut count = 0.0;
        for tri in corners {
            let [a, b, c] = [w(&tri[0]), w(&tri[1]), w(&tri[2])];
            for v in [a, b, c] {
                for k in 0..3 {
                    sum[k] += v[k];
                }
                count += 1.0;
            }
            let (e, f) = (sub(b, a), sub(c, a));
            let x = cross(e, f);
            // Each triangle's normal turned to agree with the sum so far: the axis of a
            // folded or flipped patch, not their cancellation.
            let s = if dot(x, normal) < 0.0 { -1.0 } else { 1.0 };
            for k in 0..3 {
                normal[k] += s * x[k];
            }
        }
        let len = dot(normal, normal).sqrt();
        let n = if len > 0.0 && len.is_finite() {
            normal.map(|x| (x / len) as f32)
        } else {
            [0.0, 0.0, 1.0]
        };
        let c = sum.map(|x| (x / count) as f32);
        let (cw, nw) = (c.map(f64::from), n.map(f64::from));
        let (mut half, mut radius) = (0.0f64, 0.0f64);
        for tri in corners {
            for v in tri {
                let v = sub(w(v), cw);
                let h = dot(v, nw);
                let t = [v[0] - h * nw[0], v[1] - h * nw[1], v[2] - h * nw[2]];
                half = half.max(h.abs());
                radius = radius.max(dot(t, t).sqrt());
            }
        }
        // Rounded up past the f64 rounding of the sums above.
        let up = |x: f64| ((x * (1.0 + 1e-12)) as f32).next_up();
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for v in corners.iter().flatten() {
            let v = w(v);
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        let thinnest = (0..3).map(|k| hi[k] - lo[k]).fold(f64::INFINITY, f64::min);
        let disk = Self {
            c,
            n,
            half: up(half),
            radius: up(radius),
        };
        (disk, 4.0 * half < thinnest)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use raypick_primitives::{point_triangle, Triangle};

    fn point() -> impl Strategy<Value = Point3<Real>> {
        (-4.0f32..4.0, -4.0f32..4.0, -4.0f32..4.0).prop_map(|(x, y, z)| Point3::new(x, y, z))
    }

    /// Up to 8 triangles: a bent, tilted strip (the disks' case), or corners anywhere
    /// (slivers, degenerate and folded ones included).
    fn group() -> impl Strategy<Value = Vec<[Point3<Real>; 3]>> {
        let strip = (
            1usize..=8,
            point(),
            0.01f32..1.0,
            0.0f32..0.2,
            0.0f32..6.3,
            0.0f32..6.3,
        )
            .prop_map(|(n, o, size, bend, a, b)| {
                let u = [a.cos() * b.cos(), a.sin() * b.cos(), b.sin()];
                let v = [-a.sin(), a.cos(), 0.0];
                let w = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                let at = |i: f32, j: f32| {
                    let lift = bend * size * (i * i + j * j);
                    Point3::new(
                        o.x + size * (i * u[0] + j * v[0]) + lift * w[0],
                        o.y + size * (i * u[1] + j * v[1]) + lift * w[1],
                        o.z + size * (i * u[2] + j * v[2]) + lift * w[2],
                    )
                };
                (0..n)
                    .map(|k| {
                        let (i, j) = ((k / 2) as f32 * 0.5, (k % 2) as f32 * 0.5);
                        [at(i, 0.0), at(i + 0.5, j), at(i, 0.5 + j)]
                    })
                    .collect()
            });
        let loose = prop::collection::vec(
            (point(), point(), point()).prop_map(|(a, b, c)| [a, b, c]),
            1..=8,
        );
        prop_oneof![strip, loose]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(if std::env::var_os("RAYPICK_LONG").is_some() { 100_000 } else { 2_000 }))]

        /// Every corner lies in the cylinder, and the bound's root exceeds the exact (f64)
        /// distance to the nearest triangle by at most the search's slack (`1e-5 * scale`).
        #[test]
        fn disk_holds_its_group_and_bounds_its_distance(g in group(), p in point()) {
            let (d, _) = Disk::around(&g);
            let (c, n) = (d.c.map(f64::from), d.n.map(f64::from));
            for v in g.iter().flatten() {
                let v = [f64::from(v.x) - c[0], f64::from(v.y) - c[1], f64::from(v.z) - c[2]];
                let h = dot(v, n);
                let t = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
                prop_assert!(h.abs() <= f64::from(d.half));
                prop_assert!(dot(t, t).sqrt() <= f64::from(d.radius));
            }
            let exact = g
                .iter()
                .filter_map(|t| point_triangle(&p, &Triangle::new(t[0], t[1], t[2])))
                .map(|h| f64::from(h.distance_squared).sqrt())
                .fold(f64::INFINITY, f64::min);
            let scale = g
                .iter()
                .flatten()
                .chain([&p])
                .flat_map(|v| [v.x.abs(), v.y.abs(), v.z.abs()])
                .fold(0.0f32, f32::max);
            let bound = f64::from(d.lower2([p.x, p.y, p.z])).sqrt();
            prop_assert!(bound <= exact + 1e-5 * f64::from(scale), "{bound} > {exact}");
        }
    }

    /// A tilted flat patch gets a disk tighter than its box, and a point off to the side of
    /// it is kept out by the disk where its box lets it in.
    #[test]
    fn tilted_patch_disk_is_tighter_than_its_box() {
        let s = std::f32::consts::FRAC_1_SQRT_2;
        // A unit square in the plane x = z (normal (1, 0, -1) / sqrt 2).
        let g = [
            [
                Point3::new(0.0, 0.0, 0.0),
                Point3::new(s, 0.0, s),
                Point3::new(s, 1.0, s),
            ],
            [
                Point3::new(0.0, 0.0, 0.0),
                Point3::new(s, 1.0, s),
                Point3::new(0.0, 1.0, 0.0),
            ],
        ];
        let (d, tighter) = Disk::around(&g);
        assert!(tighter);
        assert!(d.half < 1e-6, "{d:?}");
        // Half a unit above the square's middle, along its normal: distance 0.5.
        let m = Point3::new(0.5 * s + 0.5 * s, 0.5, 0.5 * s - 0.5 * s);
        let bound = d.lower2([m.x, m.y, m.z]).sqrt();
        assert!((bound - 0.5).abs() < 1e-5, "{bound}");
        // The box [0, s] x [0, 1] x [0, s] holds this point (distance 0 to the box), but
        // it lies 0.1 * sqrt 2 off the patch's plane.
        let q = Point3::new(0.5, 0.5, 0.3);
        assert!(d.lower2([q.x, q.y, q.z]).sqrt() > 0.14);
    }
}
