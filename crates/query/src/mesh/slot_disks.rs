//! A thick disk around the triangles of each slot of the tree, for the nearest-point search.
//!
//! A box is a weak lower bound on the distance to a nearly flat patch of a smooth surface:
//! its corners stand off the patch by about its size unless the patch lies in an axis
//! plane, so a query point a few tenths away from a curved surface finds a hundred leaf
//! boxes within its final distance. A slot's triangles lie inside a cylinder around their
//! mean normal, as thick as they bend away from their plane and as wide as they reach
//! across it; the distance to that cylinder grows with the offset along the surface at
//! once, and rules out the slots that are not under the point, leaves and subtrees alike.

use raypick_bvh::wide::{WideBvh, WideChild, WideLayout};
use raypick_primitives::{Point3, Real};
use smallvec::SmallVec;

use super::leaf_tris::LeafTriangles;
use super::solid::angle::{cross, dot, sub};

/// A cylinder: center, axis (unit up to f32 rounding), half height and radius. Every point
/// `v` it holds has `|n . (v - c)| <= half` and `|(v - c) - n (n . (v - c))| <= radius`,
/// both in f64 with the stored f32 values.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Disk {
    c: [f32; 3],
    n: [f32; 3],
    half: f32,
    radius: f32,
}

/// The disks of one node's 8 slots as lanes, for one pass over all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
struct NodeDisks {
    c: [[f32; 8]; 3],
    n: [[f32; 8]; 3],
    half: [f32; 8],
    radius: [f32; 8],
}

const _: () = assert!(size_of::<NodeDisks>() == 256);

impl NodeDisks {
    fn set(&mut self, i: usize, d: &Disk) {
        for k in 0..3 {
            self.c[k][i] = d.c[k];
            self.n[k][i] = d.n[k];
        }
        self.half[i] = d.half;
        self.radius[i] = d.radius;
    }

    /// The squared distance from `p` to each lane's cylinder grown by `grow` in height and
    /// radius, in f32, branch-free (it compiles to SIMD).
    #[inline(always)]
    fn lower2(&self, p: [f32; 3], grow: f32) -> [f32; 8] {
        let mut out = [0.0; 8];
        for (i, out) in out.iter_mut().enumerate() {
            let v = [
                p[0] - self.c[0][i],
                p[1] - self.c[1][i],
                p[2] - self.c[2][i],
            ];
            let n = [self.n[0][i], self.n[1][i], self.n[2][i]];
            let h = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
            let t = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
            let t = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt();
            let up = h.abs() - (self.half[i] + grow);
            let up = if up > 0.0 { up } else { 0.0 };
            let off = t - (self.radius[i] + grow);
            let off = if off > 0.0 { off } else { 0.0 };
            *out = up * up + off * off;
        }
        out
    }
}

/// The disks of every slot of a mesh's tree (8 per node), and which of them to test.
#[derive(Clone, Debug, Default)]
pub(crate) struct SlotDisks {
    /// Node `k`'s slots at `k`.
    disks: Vec<NodeDisks>,
    /// Bit `i` of node `k` set when that slot's disk is thinner than a quarter of its box's
    /// smallest extent (a tilted, nearly flat patch): only those are tested.
    useful: Vec<u8>,
}

/// What a subtree sums up to, for its parent's disk.
struct Summary {
    /// The triangles' area-weighted normals, each turned to agree with the sum.
    normal: [f64; 3],
    /// The corners' sum and count, for the center.
    sum: [f64; 3],
    count: f64,
    /// The corners' box.
    lo: [f64; 3],
    hi: [f64; 3],
    disk: Disk,
}

impl SlotDisks {
    /// The disks of every slot of `tree` over the leaf triangles `tris`; empty (nothing to
    /// test) when fewer than a quarter of the slots have a useful one.
    pub(crate) fn build<L: WideLayout<8>>(tree: &WideBvh<8, L>, tris: &LeafTriangles) -> Self {
        let nodes = tree.nodes();
        let mut out = Self {
            disks: vec![NodeDisks::default(); nodes.len()],
            useful: vec![0; nodes.len()],
        };
        if nodes.is_empty() {
            return out;
        }
        let (mut used, mut useful) = (0usize, 0usize);
        out.node(tree, tris, 0, 0, &mut used, &mut useful);
        if 4 * useful < used {
            return Self::default();
        }
        out
    }

    /// Fills node `k`'s slots (and its subtree's) and sums them up; `depth` guards against
    /// a malformed tree.
    fn node<L: WideLayout<8>>(
        &mut self,
        tree: &WideBvh<8, L>,
        tris: &LeafTriangles,
        k: usize,
        depth: usize,
        used: &mut usize,
        useful: &mut usize,
    ) -> Option<Summary> {
        let node = tree.nodes().get(k)?;
        let mut slots: SmallVec<[Summary; 8]> = SmallVec::new();
        for i in 0..8 {
            let s = match node.child(i) {
                WideChild::Empty => continue,
                WideChild::Leaf(range) => {
                    let corners: SmallVec<[[Point3<Real>; 3]; 16]> = tris.leaf(range).collect();
                    Summary::of_corners(&corners)
                }
                WideChild::Node(c) if c > k && depth < 128 => {
                    self.node(tree, tris, c, depth + 1, used, useful)?
                }
                WideChild::Node(_) => return None,
            };
            *used += 1;
            self.disks[k].set(i, &s.disk);
            if s.tighter() {
                self.useful[k] |= 1 << i;
                *useful += 1;
            }
            slots.push(s);
        }
        Summary::merge(&slots)
    }

    /// Raises `d[i]`, for each slot `i` of node `k` in `within` with a useful disk (none on
    /// a mesh whose disks were not worth keeping), to the squared distance from `p` to that
    /// disk grown by `slack` in height and radius (which holds the disk's
    /// `slack`-neighbourhood, so the distance drops by at least `slack`: more than the f32
    /// rounding of the distance, at most `1e-5 * scale` where `scale` is at least every
    /// coordinate's magnitude). Never above the squared distance of a triangle in the slot.
    #[inline(always)]
    pub(crate) fn raise(&self, k: usize, within: u32, p: [f32; 3], slack: f32, d: &mut [f32; 8]) {
        let Some(&bits) = self.useful.get(k) else {
            return;
        };
        let m = within & u32::from(bits);
        if m == 0 {
            return;
        }
        let lower = self.disks[k].lower2(p, slack);
        for (i, (d, lower)) in d.iter_mut().zip(lower).enumerate() {
            if m & (1 << i) != 0 && lower > *d {
                *d = lower;
            }
        }
    }
}

impl Summary {
    /// The summary and exact disk of a leaf's triangles.
    fn of_corners(corners: &[[Point3<Real>; 3]]) -> Self {
        let w = |p: &Point3<Real>| [f64::from(p.x), f64::from(p.y), f64::from(p.z)];
        let mut s = Summary::empty();
        for tri in corners {
            let [a, b, c] = [w(&tri[0]), w(&tri[1]), w(&tri[2])];
            s.add_normal(cross(sub(b, a), sub(c, a)));
            for v in [a, b, c] {
                s.add_corner(v);
            }
        }
        let (c, n) = s.axis();
        let (cw, nw) = (c.map(f64::from), n.map(f64::from));
        let (mut half, mut radius) = (0.0f64, 0.0f64);
        for v in corners.iter().flatten() {
            let (h, t) = split(sub(w(v), cw), nw);
            half = half.max(h.abs());
            radius = radius.max(t);
        }
        s.disk = Disk::new(c, n, half, radius);
        s
    }

    /// The summary of a node from its slots': the disk around theirs.
    fn merge(slots: &[Summary]) -> Option<Self> {
        let mut s = Summary::empty();
        for x in slots {
            s.add_normal(x.normal);
            for k in 0..3 {
                s.sum[k] += x.sum[k];
                s.lo[k] = s.lo[k].min(x.lo[k]);
                s.hi[k] = s.hi[k].max(x.hi[k]);
            }
            s.count += x.count;
        }
        if slots.is_empty() {
            return None;
        }
        let (c, n) = s.axis();
        let (cw, nw) = (c.map(f64::from), n.map(f64::from));
        let (mut half, mut radius) = (0.0f64, 0.0f64);
        for x in slots {
            // The child cylinder's reach along the axis and off it: its center's offset,
            // its height tilted onto (or off) the axis, and its disk's radius.
            let d = &x.disk;
            let (h, t) = split(sub(d.c.map(f64::from), cw), nw);
            let ni = d.n.map(f64::from);
            let cos = dot(nw, ni).abs().min(1.0);
            let sin = (1.0 - cos * cos).max(0.0).sqrt();
            let (hi, ri) = (f64::from(d.half), f64::from(d.radius));
            // 1e-6: the unit vectors' f32 rounding in the cosine; 1e-3: what that rounding
            // can take off the sine near cos = 1 (about the square root of twice it).
            half = half.max(h.abs() + hi * (cos + 1e-6) + ri * (sin + 1e-3));
            radius = radius.max(t + hi * (sin + 1e-3) + ri * (1.0 + 1e-6));
        }
        s.disk = Disk::new(c, n, half, radius);
        Some(s)
    }

    fn empty() -> Self {
        Self {
            normal: [0.0; 3],
            sum: [0.0; 3],
            count: 0.0,
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
            disk: Disk::default(),
        }
    }

    fn add_normal(&mut self, x: [f64; 3]) {
        // Turned to agree with the sum so far: the axis of a folded or flipped patch, not
        // their cancellation.
        let s = if dot(x, self.normal) < 0.0 { -1.0 } else { 1.0 };
        for (n, x) in self.normal.iter_mut().zip(x) {
            *n += s * x;
        }
    }

    fn add_corner(&mut self, v: [f64; 3]) {
        for (k, v) in v.into_iter().enumerate() {
            self.sum[k] += v;
            self.lo[k] = self.lo[k].min(v);
            self.hi[k] = self.hi[k].max(v);
        }
        self.count += 1.0;
    }

    /// The center and unit axis, rounded to f32 (any axis when the normals cancel).
    fn axis(&self) -> ([f32; 3], [f32; 3]) {
        let len = dot(self.normal, self.normal).sqrt();
        let n = if len > 0.0 && len.is_finite() {
            self.normal.map(|x| (x / len) as f32)
        } else {
            [0.0, 0.0, 1.0]
        };
        let count = self.count.max(1.0);
        (self.sum.map(|x| (x / count) as f32), n)
    }

    /// True when the disk is thinner than a quarter of the box's thinnest extent.
    fn tighter(&self) -> bool {
        let thinnest = (0..3)
            .map(|k| self.hi[k] - self.lo[k])
            .fold(f64::INFINITY, f64::min);
        4.0 * f64::from(self.disk.half) < thinnest
    }
}

impl Disk {
    /// A disk with `half` and `radius` rounded up past their f64 rounding.
    fn new(c: [f32; 3], n: [f32; 3], half: f64, radius: f64) -> Self {
        let up = |x: f64| ((x * (1.0 + 1e-12)) as f32).next_up();
        Self {
            c,
            n,
            half: up(half),
            radius: up(radius),
        }
    }
}

/// `v`'s component along the unit `n` and its distance from the line along `n`.
fn split(v: [f64; 3], n: [f64; 3]) -> (f64, f64) {
    let h = dot(v, n);
    let t = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
    (h, dot(t, t).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use raypick_primitives::{point_triangle, Triangle};

    /// `d`'s squared distance as the search computes it: in one lane of a node's disks.
    fn lane(d: &Disk, p: [f32; 3], grow: f32) -> f32 {
        let mut node = NodeDisks::default();
        node.set(5, d);
        node.lower2(p, grow)[5]
    }

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

        /// A leaf's disk, and a node's merged from several: every corner lies in the
        /// cylinder, and its distance with the search's growth (`1e-5 * scale`) never exceeds
        /// the exact (f64) distance to the nearest triangle.
        #[test]
        fn disk_holds_its_triangles_and_bounds_their_distance(
            groups in prop::collection::vec(group(), 1..4), merged in any::<bool>(), p in point(),
            near in any::<bool>(), uv in (0.0f32..1.0, 0.0f32..1.0), off in -1e-4f32..1e-4
        ) {
            // Half the points within 1e-4 of a triangle, where rounding matters most.
            let p = if near {
                let [a, b, c] = groups[0][0];
                let (u, v) = (uv.0, uv.1 * (1.0 - uv.0));
                a + (b - a) * u + (c - a) * v + nalgebra::Vector3::repeat(off)
            } else {
                p
            };
            let (d, g) = if merged {
                let s: Vec<Summary> = groups.iter().map(|g| Summary::of_corners(g)).collect();
                (Summary::merge(&s).unwrap().disk, groups.concat())
            } else {
                (Summary::of_corners(&groups[0]).disk, groups[0].clone())
            };
            let (c, n) = (d.c.map(f64::from), d.n.map(f64::from));
            for v in g.iter().flatten() {
                let v = [f64::from(v.x) - c[0], f64::from(v.y) - c[1], f64::from(v.z) - c[2]];
                let h = dot(v, n);
                let t = [v[0] - h * n[0], v[1] - h * n[1], v[2] - h * n[2]];
                prop_assert!(h.abs() <= f64::from(d.half), "{h} > {}", d.half);
                prop_assert!(dot(t, t).sqrt() <= f64::from(d.radius), "{} > {}", dot(t, t).sqrt(), d.radius);
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
            let bound = f64::from(lane(&d, [p.x, p.y, p.z], 1e-5 * scale)).sqrt();
            prop_assert!(bound <= exact, "{bound} > {exact}");
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
        let summary = Summary::of_corners(&g);
        assert!(summary.tighter());
        let d = summary.disk;
        assert!(d.half < 1e-6, "{d:?}");
        // Half a unit above the square's middle, along its normal: distance 0.5.
        let m = Point3::new(0.5 * s + 0.5 * s, 0.5, 0.5 * s - 0.5 * s);
        let bound = lane(&d, [m.x, m.y, m.z], 0.0).sqrt();
        assert!((bound - 0.5).abs() < 1e-5, "{bound}");
        // The box [0, s] x [0, 1] x [0, s] holds this point (distance 0 to the box), but
        // it lies 0.1 * sqrt 2 off the patch's plane.
        let q = Point3::new(0.5, 0.5, 0.3);
        assert!(lane(&d, [q.x, q.y, q.z], 0.0).sqrt() > 0.14);
    }
}
