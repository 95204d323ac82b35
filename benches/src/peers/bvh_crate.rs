//! The `bvh` crate's tree, its nearest-first iterator, raypick's watertight test per candidate.

use raypick_primitives::{Cull, Point3, WatertightRay};

use super::Peer;
use crate::workloads::{BenchRay, MeshData};

/// A triangle as the `bvh` crate's shape, with its box and the node index it asks us to keep.
struct BvhTri {
    corners: [Point3<f32>; 3],
    node_index: usize,
}

impl bvh::aabb::Bounded<f32, 3> for BvhTri {
    fn aabb(&self) -> bvh::aabb::Aabb<f32, 3> {
        let [a, b, c] = self.corners;
        let min = a.inf(&b).inf(&c);
        let max = a.sup(&b).sup(&c);
        // bvh 0.13 is on nalgebra 0.35: convert through arrays.
        bvh::aabb::Aabb::with_bounds(
            <[f32; 3]>::from(min.coords).into(),
            <[f32; 3]>::from(max.coords).into(),
        )
    }
}

impl bvh::bounding_hierarchy::BHShape<f32, 3> for BvhTri {
    fn set_bh_node_index(&mut self, index: usize) {
        self.node_index = index;
    }

    fn bh_node_index(&self) -> usize {
        self.node_index
    }
}

/// The `bvh` crate 0.13: binary SAH BVH (`Bvh::build`, serial), nearest-first traversal
/// iterator, raypick's watertight test on each candidate; stops once the next candidate's box
/// starts beyond the best hit.
pub struct BvhCratePeer {
    shapes: Vec<BvhTri>,
    bvh: bvh::bvh::Bvh<f32, 3>,
}

impl BvhCratePeer {
    /// Builds the BVH (serially: `Bvh::build`, not `build_par`).
    #[must_use]
    pub fn new(mesh: &MeshData) -> Self {
        Self::with_builder(mesh, false)
    }

    /// Builds the BVH with `Bvh::build_par` (rayon) when `parallel`, else `Bvh::build`.
    #[must_use]
    pub fn with_builder(mesh: &MeshData, parallel: bool) -> Self {
        let mut shapes: Vec<BvhTri> = (0..mesh.triangles.len())
            .filter_map(|i| mesh.triangle(i))
            .map(|corners| BvhTri {
                corners,
                node_index: 0,
            })
            .collect();
        let bvh = if parallel {
            <bvh::bvh::Bvh<f32, 3> as bvh::bounding_hierarchy::BoundingHierarchy<f32, 3>>::build_par(
                &mut shapes,
            )
        } else {
            bvh::bvh::Bvh::build(&mut shapes)
        };
        Self { shapes, bvh }
    }
}

fn bvh_ray(r: &BenchRay) -> bvh::ray::Ray<f32, 3> {
    let (o, d) = (r.ray.origin, r.ray.dir);
    // Normalizes the direction: its distances are in world units.
    bvh::ray::Ray::new([o.x, o.y, o.z].into(), [d.x, d.y, d.z].into())
}

impl Peer for BvhCratePeer {
    fn name(&self) -> &'static str {
        "bvh"
    }

    fn closest_hit(&self, r: &BenchRay) -> Option<f32> {
        use bvh::aabb::Bounded;
        let bray = bvh_ray(r);
        let w = WatertightRay::new(&r.ray);
        let len = r.ray.dir.norm();
        let mut best: Option<f32> = None;
        let mut t_max = r.t_max;
        for s in self.bvh.nearest_traverse_iterator(&bray, &self.shapes) {
            if let Some(best) = best {
                // Candidates come in order of their box's entry distance (world units).
                let entry = bray
                    .intersection_slice_for_aabb(&s.aabb())
                    .map_or(f32::INFINITY, |(t0, _)| t0);
                if entry > best * len * (1.0 + 1e-5) {
                    break;
                }
            }
            let [a, b, c] = &s.corners;
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
        let bray = bvh_ray(r);
        let w = WatertightRay::new(&r.ray);
        // Depth-first stack traversal (no heap), first hit wins.
        self.bvh.traverse_iterator(&bray, &self.shapes).any(|s| {
            let [a, b, c] = &s.corners;
            w.intersect(a, b, c, 0.0, r.t_max, Cull::None).is_some()
        })
    }

    fn memory_bytes(&self) -> Option<usize> {
        Some(
            self.bvh.nodes.capacity() * std::mem::size_of::<bvh::bvh::BvhNode<f32, 3>>()
                + self.shapes.capacity() * std::mem::size_of::<BvhTri>(),
        )
    }
}
