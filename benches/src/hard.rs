//! Generators for the workloads that test tree quality rather than raw traversal: a CAD-like
//! part, an architectural model and a noisy heightfield. Their long, thin triangles and parts
//! of very different sizes are what CAD tessellators and scanners produce, and what a builder
//! that splits along one axis only handles badly.

use std::f64::consts::TAU;

use raypick_primitives::Point3;

use crate::rng::SplitMix64;
use crate::workloads::MeshData;

/// Appends triangles to a [`MeshData`] from f64 coordinates.
struct Builder {
    mesh: MeshData,
}

type P = [f64; 3];

impl Builder {
    fn new() -> Self {
        Self {
            mesh: MeshData::default(),
        }
    }

    fn vertex(&mut self, p: P) -> u32 {
        self.mesh
            .positions
            .push(Point3::new(p[0] as f32, p[1] as f32, p[2] as f32));
        (self.mesh.positions.len() - 1) as u32
    }

    fn tri(&mut self, a: u32, b: u32, c: u32) {
        self.mesh.triangles.push([a, b, c]);
    }

    /// A quad `a b c d` (counter-clockwise) as two triangles.
    fn quad(&mut self, a: u32, b: u32, c: u32, d: u32) {
        self.tri(a, b, c);
        self.tri(a, c, d);
    }

    /// An axis-aligned box, 12 triangles, outward facing.
    fn cuboid(&mut self, lo: P, hi: P) {
        let v: Vec<u32> = (0..8)
            .map(|i| {
                self.vertex([
                    if i & 1 == 0 { lo[0] } else { hi[0] },
                    if i & 2 == 0 { lo[1] } else { hi[1] },
                    if i & 4 == 0 { lo[2] } else { hi[2] },
                ])
            })
            .collect();
        for [a, b, c, d] in BOX_FACES {
            self.quad(v[a], v[b], v[c], v[d]);
        }
    }

    /// A point on the circle of `radius` around `centre` in the plane spanned by `u` and `v`.
    fn on_circle(centre: P, u: P, v: P, radius: f64, angle: f64) -> P {
        let (s, c) = angle.sin_cos();
        std::array::from_fn(|i| centre[i] + radius * (c * u[i] + s * v[i]))
    }

    /// A ring of `segments` vertices.
    fn ring(&mut self, centre: P, u: P, v: P, radius: f64, segments: u32) -> Vec<u32> {
        (0..segments)
            .map(|j| {
                let a = TAU * f64::from(j) / f64::from(segments);
                self.vertex(Self::on_circle(centre, u, v, radius, a))
            })
            .collect()
    }

    /// The side strip between two rings of the same size: one quad per segment, spanning the
    /// whole length (the long thin triangles of a tessellated cylinder).
    fn strip(&mut self, a: &[u32], b: &[u32]) {
        let n = a.len();
        for j in 0..n {
            let k = (j + 1) % n;
            self.quad(a[j], a[k], b[k], b[j]);
        }
    }

    /// A disc as a fan of thin triangles from its centre.
    fn fan(&mut self, centre: P, ring: &[u32]) {
        let c = self.vertex(centre);
        let n = ring.len();
        for j in 0..n {
            self.tri(c, ring[j], ring[(j + 1) % n]);
        }
    }

    /// A closed cylinder along `axis` (a unit vector with `u`, `v` completing a frame), from
    /// `base` to `base + length * axis`, with fan caps.
    #[allow(clippy::too_many_arguments)]
    fn cylinder(&mut self, base: P, axis: P, u: P, v: P, radius: f64, length: f64, segments: u32) {
        let top: P = std::array::from_fn(|i| base[i] + length * axis[i]);
        let r0 = self.ring(base, u, v, radius, segments);
        let r1 = self.ring(top, u, v, radius, segments);
        self.strip(&r0, &r1);
        let rev: Vec<u32> = r0.iter().rev().copied().collect();
        self.fan(base, &rev);
        self.fan(top, &r1);
    }
}

/// The faces of a box whose corner `i` takes bit 0 of `i` for x, bit 1 for y and bit 2 for
/// z (set: the high side), as counter-clockwise quads seen from outside.
const BOX_FACES: [[usize; 4]; 6] = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
];

const X: P = [1.0, 0.0, 0.0];
const Y: P = [0.0, 1.0, 0.0];
const Z: P = [0.0, 0.0, 1.0];

/// A CAD-like two-cylinder engine part (117,984 triangles): a block whose faces are fans
/// of long thin triangles, two finned cylinders with bores and fillets, a long crankshaft, and
/// hundreds of small bolts beside the large faces, tessellated the way CAD exporters do (one
/// quad per segment along a whole cylinder, fans on flat faces).
#[must_use]
pub fn cad_part(seed: u64) -> MeshData {
    let mut b = Builder::new();
    let mut rng = SplitMix64::new(seed);
    // The block: each face a fan from one corner to a finely divided far edge pair.
    let (lo, hi) = ([-1.2, -0.5, 0.0], [1.2, 0.5, 0.8]);
    block_faces(&mut b, lo, hi, 160);
    for cx in [-0.55, 0.55] {
        let base = [cx, 0.0, hi[2]];
        let (r_out, r_bore, h) = (0.36, 0.28, 1.3);
        let seg = 384;
        // Outer wall and bore: rings at both ends, joined by a top annulus.
        let o0 = b.ring(base, X, Y, r_out, seg);
        let o1 = b.ring([cx, 0.0, hi[2] + h], X, Y, r_out, seg);
        b.strip(&o0, &o1);
        // The bore faces inwards: its strip runs top to bottom.
        let i0 = b.ring([cx, 0.0, hi[2] + 0.05], X, Y, r_bore, seg);
        let i1 = b.ring([cx, 0.0, hi[2] + h], X, Y, r_bore, seg);
        b.strip(&i1, &i0);
        b.fan([cx, 0.0, hi[2] + 0.05], &i0);
        b.strip(&o1, &i1);
        // Fins: thin annuli with rims.
        for f in 0..12 {
            let z = hi[2] + 0.15 + 0.09 * f64::from(f);
            let r_fin = 0.6 + 0.03 * f64::from(f % 3);
            let a0 = b.ring([cx, 0.0, z], X, Y, r_out, seg);
            let a1 = b.ring([cx, 0.0, z], X, Y, r_fin, seg);
            let c0 = b.ring([cx, 0.0, z + 0.015], X, Y, r_out, seg);
            let c1 = b.ring([cx, 0.0, z + 0.015], X, Y, r_fin, seg);
            b.strip(&a1, &a0);
            b.strip(&c0, &c1);
            b.strip(&a1, &c1);
        }
        // Fillet at the base: a quarter torus, 8 bands.
        let (rf, bands) = (0.06, 8);
        let mut prev = b.ring([cx, 0.0, hi[2]], X, Y, r_out + rf, seg);
        for k in 1..=bands {
            let a = std::f64::consts::FRAC_PI_2 * f64::from(k) / f64::from(bands);
            let r = r_out + rf - rf * a.sin();
            let z = hi[2] + rf - rf * a.cos();
            let next = b.ring([cx, 0.0, z], X, Y, r, seg);
            b.strip(&prev, &next);
            prev = next;
        }
    }
    // Crankshaft: a long thin cylinder through the block along x, and two flywheels.
    b.cylinder([-2.0, 0.0, 0.3], X, Y, Z, 0.05, 4.0, 512);
    for x in [-1.6, 1.5] {
        b.cylinder([x, 0.0, 0.3], X, Y, Z, 0.45, 0.06, 512);
    }
    // Bolts: small hexagonal cylinders scattered on the block's faces and the flanges.
    for _ in 0..420 {
        let x = rng.range_f64(lo[0] + 0.05, hi[0] - 0.05);
        let y = rng.range_f64(lo[1] + 0.05, hi[1] - 0.05);
        let (base, axis, u, v) = match rng.below(3) {
            0 => ([x, y, hi[2]], Z, X, Y),
            1 => ([x, hi[1], rng.range_f64(0.05, 0.75)], Y, Z, X),
            _ => ([x, lo[1] - 0.04, rng.range_f64(0.05, 0.75)], Y, Z, X),
        };
        b.cylinder(base, axis, u, v, 0.018, 0.04, 6);
        b.cylinder(base, axis, u, v, 0.008, 0.07, 16);
    }
    b.mesh
}

/// The six faces of a box, each a fan from one corner to the subdivided opposite edges.
fn block_faces(b: &mut Builder, lo: P, hi: P, div: u32) {
    let corner = |i: usize| -> P {
        [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]
    };
    for [a, p, q, r] in BOX_FACES {
        // Fan from corner a over the path p -> q -> r (the two far edges).
        let (pa, pp, pq, pr) = (corner(a), corner(p), corner(q), corner(r));
        let hub = b.vertex(pa);
        let mut path = Vec::with_capacity(2 * div as usize + 1);
        for (s, e) in [(pp, pq), (pq, pr)] {
            for k in 0..div {
                let t = f64::from(k) / f64::from(div);
                path.push(b.vertex(std::array::from_fn(|i| s[i] + (e[i] - s[i]) * t)));
            }
        }
        path.push(b.vertex(pr));
        for w in path.windows(2) {
            b.tri(hub, w[0], w[1]);
        }
    }
}

/// An architectural model (232,224 triangles): four storeys of 12 x 4 rooms with long
/// walls and floor slabs (a few huge, thin triangles each), and many small fixtures in every
/// room: tables, chairs, shelves of books, lamps, and pipes running the length of each floor.
#[must_use]
pub fn architecture(seed: u64) -> MeshData {
    let mut b = Builder::new();
    let mut rng = SplitMix64::new(seed);
    let (nx, ny, floors) = (12u32, 4u32, 4u32);
    let (room, height, wall) = (4.0, 3.2, 0.2);
    let (w, d) = (f64::from(nx) * room, f64::from(ny) * room);
    for f in 0..floors {
        let z0 = f64::from(f) * height;
        b.cuboid([0.0, 0.0, z0 - 0.3], [w, d, z0]);
        // Long walls along x, and cross walls along y.
        for j in 0..=ny {
            let y = f64::from(j) * room;
            b.cuboid(
                [0.0, y - wall / 2.0, z0],
                [w, y + wall / 2.0, z0 + height - 0.3],
            );
        }
        for i in 0..=nx {
            let x = f64::from(i) * room;
            b.cuboid(
                [x - wall / 2.0, 0.0, z0],
                [x + wall / 2.0, d, z0 + height - 0.3],
            );
        }
        // Pipes under the ceiling along the whole floor.
        for k in 0..6 {
            let y = 0.5 + f64::from(k) * (d - 1.0) / 5.0;
            b.cylinder([0.0, y, z0 + height - 0.5], X, Y, Z, 0.05, w, 24);
        }
        for i in 0..nx {
            for j in 0..ny {
                let (x0, y0) = (f64::from(i) * room, f64::from(j) * room);
                furnish(&mut b, &mut rng, [x0 + 0.2, y0 + 0.2, z0], room - 0.4);
            }
        }
    }
    // A roof slab.
    b.cuboid(
        [-0.5, -0.5, f64::from(floors) * height - 0.3],
        [w + 0.5, d + 0.5, f64::from(floors) * height],
    );
    b.mesh
}

/// One room's fixtures in the square `[o, o + size]` on the floor at `o[2]`.
fn furnish(b: &mut Builder, rng: &mut SplitMix64, o: P, size: f64) {
    let at = |rng: &mut SplitMix64, margin: f64| {
        [
            o[0] + rng.range_f64(margin, size - margin),
            o[1] + rng.range_f64(margin, size - margin),
        ]
    };
    // A table with four legs, and chairs around it.
    let [tx, ty] = at(rng, 1.2);
    let z = o[2];
    b.cuboid(
        [tx - 0.6, ty - 0.4, z + 0.72],
        [tx + 0.6, ty + 0.4, z + 0.76],
    );
    for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
        let (lx, ly) = (tx + sx * 0.55, ty + sy * 0.35);
        b.cuboid([lx - 0.03, ly - 0.03, z], [lx + 0.03, ly + 0.03, z + 0.72]);
        let (cx, cy) = (tx + sx * 0.8, ty + sy * 0.6);
        b.cuboid(
            [cx - 0.2, cy - 0.2, z + 0.42],
            [cx + 0.2, cy + 0.2, z + 0.46],
        );
        b.cuboid(
            [cx - 0.2, cy + sy * 0.18, z + 0.46],
            [cx + 0.2, cy + sy * 0.2, z + 0.9],
        );
        for (lx, ly) in [(-0.18, -0.18), (0.18, -0.18), (0.18, 0.18), (-0.18, 0.18)] {
            b.cuboid(
                [cx + lx - 0.015, cy + ly - 0.015, z],
                [cx + lx + 0.015, cy + ly + 0.015, z + 0.42],
            );
        }
    }
    // A shelf along one wall, with rows of books.
    let sy = o[1] + 0.05;
    let sx = o[0] + rng.range_f64(0.0, size - 1.6);
    for k in 0..2 {
        let zs = z + 0.3 + 0.45 * f64::from(k);
        b.cuboid([sx, sy, zs - 0.02], [sx + 1.6, sy + 0.3, zs]);
        let mut x = sx + 0.02;
        while x < sx + 1.55 {
            let t = rng.range_f64(0.03, 0.07);
            let h = rng.range_f64(0.2, 0.35);
            b.cuboid([x, sy + 0.02, zs], [x + t, sy + 0.25, zs + h]);
            x += t + 0.004;
        }
    }
    // A hanging lamp: a thin cord and a shade.
    let [lx, ly] = at(rng, 0.5);
    let top = o[2] + 2.9;
    b.cylinder([lx, ly, top - 0.8], Z, X, Y, 0.006, 0.8, 8);
    b.cylinder([lx, ly, top - 0.95], Z, X, Y, 0.2, 0.15, 24);
}

/// A heightfield like [`crate::terrain`] (`n x n` vertices over `[-1, 1]^2`) with white
/// noise of `cells` grid cells of amplitude added to every height: neighbouring vertices jump
/// by several cells, so most triangles are tall slivers, as in raw scans and DEMs.
#[must_use]
pub fn noisy_terrain(n: u32, cells: f64, seed: u64) -> MeshData {
    let mut mesh = crate::terrain(n, seed);
    if n < 2 {
        return mesh;
    }
    let amp = cells * 2.0 / f64::from(n - 1);
    let mut rng = SplitMix64::new(seed ^ 0x9E37_79B9);
    for p in &mut mesh.positions {
        p.z += (amp * rng.range_f64(-1.0, 1.0)) as f32;
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finite_and_in_range(m: &MeshData) -> bool {
        m.positions
            .iter()
            .all(|p| p.coords.iter().all(|c| c.is_finite()))
            && m.triangles
                .iter()
                .flatten()
                .all(|&i| (i as usize) < m.positions.len())
    }

    #[test]
    fn cad_part_is_deterministic_and_thin() {
        let m = cad_part(3);
        assert!(finite_and_in_range(&m));
        assert_eq!(m.triangles.len(), 117_984);
        assert_eq!(cad_part(3), m);
        // Most triangles are slivers: longest edge over 10x the height.
        let slivers = (0..m.triangles.len())
            .filter(|&i| {
                let [a, b, c] = m.triangle(i).unwrap();
                let e = [(b - a).norm(), (c - b).norm(), (a - c).norm()];
                let area = (b - a).cross(&(c - a)).norm() * 0.5;
                let long = e.iter().copied().fold(0.0f32, f32::max);
                area > 0.0 && long * long > 20.0 * area
            })
            .count();
        assert!(slivers * 2 > m.triangles.len(), "{slivers}");
    }

    #[test]
    fn architecture_is_deterministic() {
        let m = architecture(5);
        assert!(finite_and_in_range(&m));
        assert_eq!(m.triangles.len(), 232_224);
        assert_eq!(architecture(5), m);
    }

    #[test]
    fn noisy_terrain_jumps_by_cells() {
        let m = noisy_terrain(50, 4.0, 2);
        let t = crate::terrain(50, 2);
        assert_eq!(m.triangles, t.triangles);
        let cell = 2.0 / 49.0;
        let dz = m
            .positions
            .iter()
            .zip(&t.positions)
            .map(|(p, q)| (p.z - q.z).abs())
            .fold(0.0f32, f32::max);
        assert!(dz > 2.0 * cell && dz <= 4.0 * cell + 1e-5, "{dz}");
    }
}
