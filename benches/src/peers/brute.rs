//! Every triangle with raypick's watertight test: the oracle (slow).

use raypick_primitives::{Cull, Point3, WatertightRay};

use super::Peer;
use crate::workloads::{BenchRay, MeshData};

/// Brute force: every triangle with raypick's watertight test. The oracle of the checksums.
pub struct BrutePeer {
    tris: Vec<[Point3<f32>; 3]>,
}

impl BrutePeer {
    /// Copies the triangles' corners (out-of-range indices are skipped).
    #[must_use]
    pub fn new(mesh: &MeshData) -> Self {
        Self {
            tris: (0..mesh.triangles.len())
                .filter_map(|i| mesh.triangle(i))
                .collect(),
        }
    }
}

impl Peer for BrutePeer {
    fn name(&self) -> &'static str {
        "brute"
    }

    fn closest_hit(&self, r: &BenchRay) -> Option<f32> {
        let w = WatertightRay::new(&r.ray);
        let mut best = None;
        let mut t_max = r.t_max;
        for [a, b, c] in &self.tris {
            if let Some(h) = w.intersect(a, b, c, 0.0, t_max, Cull::None) {
                t_max = h.t;
                best = Some(h.t);
            }
        }
        best
    }

    fn has_any_hit(&self) -> bool {
        true
    }

    fn any_hit(&self, r: &BenchRay) -> bool {
        let w = WatertightRay::new(&r.ray);
        self.tris
            .iter()
            .any(|[a, b, c]| w.intersect(a, b, c, 0.0, r.t_max, Cull::None).is_some())
    }

    fn has_nearest_point(&self) -> bool {
        true
    }

    fn nearest_point(&self, p: &Point3<f32>) -> Option<f32> {
        let p = p.cast::<f64>();
        self.tris
            .iter()
            .map(|[a, b, c]| {
                let q = closest_point_triangle(&p, &a.cast(), &b.cast(), &c.cast());
                (q - p).norm_squared()
            })
            .min_by(f64::total_cmp)
            .map(|d2| d2.sqrt() as f32)
    }

    fn memory_bytes(&self) -> Option<usize> {
        Some(self.tris.capacity() * std::mem::size_of::<[Point3<f32>; 3]>())
    }
}

/// The point of triangle `abc` closest to `p` (Ericson, Real-Time Collision Detection 5.1.5),
/// in f64. A degenerate triangle still gives a point of it.
#[must_use]
pub fn closest_point_triangle(
    p: &Point3<f64>,
    a: &Point3<f64>,
    b: &Point3<f64>,
    c: &Point3<f64>,
) -> Point3<f64> {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return *a;
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return *b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return a + ab * v;
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return *c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return a + ac * w;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return b + (c - b) * w;
    }
    let denom = va + vb + vc;
    if denom == 0.0 || !denom.is_finite() {
        // Degenerate: the best of the three edges' endpoints is good enough here.
        return [*a, *b, *c]
            .into_iter()
            .min_by(|x, y| (x - p).norm_squared().total_cmp(&(y - p).norm_squared()))
            .unwrap_or(*a);
    }
    let v = vb / denom;
    let w = vc / denom;
    a + ab * v + ac * w
}
