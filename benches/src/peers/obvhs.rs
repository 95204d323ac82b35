//! obvhs' CWBVH with its own triangle test.

use raypick_primitives::Point3;

use super::Peer;
use crate::workloads::{BenchRay, MeshData};

/// obvhs 0.4: PLOC + reinsertion BVH2 collapsed to a compressed 8-wide BVH (`medium_build`,
/// serial without obvhs' `parallel` feature), triangles reordered to leaf order, its CWBVH
/// traversal and its own (Möller-Trumbore) triangle test.
pub struct ObvhsPeer {
    bvh: obvhs::cwbvh::CwBvh,
    tris: Vec<obvhs::triangle::Triangle>,
}

fn v3a(p: &Point3<f32>) -> glam::Vec3A {
    glam::Vec3A::new(p.x, p.y, p.z)
}

impl ObvhsPeer {
    /// Builds the CWBVH and the leaf-ordered triangle array.
    #[must_use]
    pub fn new(mesh: &MeshData) -> Self {
        let tris: Vec<obvhs::triangle::Triangle> = (0..mesh.triangles.len())
            .filter_map(|i| mesh.triangle(i))
            .map(|[a, b, c]| obvhs::triangle::Triangle {
                v0: v3a(&a),
                v1: v3a(&b),
                v2: v3a(&c),
            })
            .collect();
        if tris.is_empty() {
            return Self {
                bvh: obvhs::cwbvh::CwBvh::default(),
                tris,
            };
        }
        let mut core = std::time::Duration::default();
        let bvh = obvhs::cwbvh::builder::build_cwbvh_from_tris(
            &tris,
            obvhs::BvhBuildParams::medium_build(),
            &mut core,
        );
        let tris = bvh
            .primitive_indices
            .iter()
            .map(|&i| tris[i as usize])
            .collect();
        Self { bvh, tris }
    }

    fn ray(r: &BenchRay) -> obvhs::ray::Ray {
        let (o, d) = (r.ray.origin, r.ray.dir);
        obvhs::ray::Ray::new(
            glam::Vec3A::new(o.x, o.y, o.z),
            glam::Vec3A::new(d.x, d.y, d.z),
            0.0,
            r.t_max,
        )
    }
}

impl Peer for ObvhsPeer {
    fn name(&self) -> &'static str {
        "obvhs"
    }

    fn closest_hit(&self, r: &BenchRay) -> Option<f32> {
        if self.tris.is_empty() {
            return None;
        }
        let mut hit = obvhs::ray::RayHit::none();
        self.bvh
            .ray_traverse(Self::ray(r), &mut hit, |ray, id| {
                self.tris[id].intersect(ray)
            })
            .then_some(hit.t)
    }

    fn has_any_hit(&self) -> bool {
        true
    }

    fn any_hit(&self, r: &BenchRay) -> bool {
        !self.tris.is_empty()
            && !self
                .bvh
                .ray_traverse_miss(Self::ray(r), |ray, id| self.tris[id].intersect(ray))
    }

    fn memory_bytes(&self) -> Option<usize> {
        Some(
            self.bvh.nodes.capacity() * std::mem::size_of::<obvhs::cwbvh::node::CwBvhNode>()
                + self.bvh.primitive_indices.capacity() * 4
                + self.tris.capacity() * std::mem::size_of::<obvhs::triangle::Triangle>(),
        )
    }
}
