//! What the commands query: a loaded file with its acceleration structure, answering in terms
//! of the file's objects (instance index in load order) and their own triangle numbering.

use std::time::{Duration, Instant};

use raypick_io::LoadedScene;
use raypick_primitives::{
    Aabb, Cull, Point3, Ray, RayAabbPrecomp, Real, Unit, Vector3, WatertightRay,
};
use raypick_query::{Mesh, RayQuery};

use crate::CliError;

/// A hit in the file's terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldHit {
    /// Distance in units of the ray direction.
    pub t: Real,
    /// Instance index in load order.
    pub object: usize,
    /// Triangle index within that instance's mesh, in file order.
    pub triangle: u32,
    /// World-space hit point.
    pub point: Point3<Real>,
    /// Unit geometric normal in world space.
    pub normal: Unit<Vector3<Real>>,
    /// Barycentrics.
    pub u: Real,
    /// Barycentrics.
    pub v: Real,
}

/// The loaded file and one BVH over all of its instances' world-space triangles.
pub struct World {
    pub loaded: LoadedScene,
    mesh: Mesh,
    /// World-space triangle corners by flattened index (for the heatmap traversal).
    flat_positions: Vec<Point3<Real>>,
    flat_triangles: Vec<[u32; 3]>,
    /// First flattened triangle of each instance.
    starts: Vec<usize>,
    pub build_time: Duration,
}

impl World {
    pub fn build(loaded: LoadedScene, file: &str) -> Result<World, CliError> {
        let t0 = Instant::now();
        let (flat, starts) = loaded.flatten();
        let mesh = Mesh::new(flat.positions.clone(), flat.triangles.clone())
            .map_err(|e| CliError::BadInput(format!("{file}: cannot build the BVH: {e}")))?;
        let build_time = t0.elapsed();
        tracing::info!(file, triangles = mesh.len(), ?build_time, "BVH built");
        Ok(World {
            loaded,
            mesh,
            flat_positions: flat.positions,
            flat_triangles: flat.triangles,
            starts,
            build_time,
        })
    }

    /// Triangles over all instances.
    pub fn triangle_count(&self) -> usize {
        self.mesh.len()
    }

    pub fn bounds(&self) -> Aabb {
        self.mesh.bounds()
    }

    /// BVH statistics of each BVH (here one, over every instance's triangles).
    pub fn mesh_stats(&self) -> Vec<raypick_bvh::BvhStats> {
        vec![self.mesh.bvh().stats()]
    }

    /// Prepares [`World::traversal_cost`] (nothing to do here).
    pub fn prepare_heatmap(&self) -> Result<(), CliError> {
        Ok(())
    }

    fn to_world_hit(&self, h: raypick_query::Hit) -> WorldHit {
        let flat = h.triangle as usize;
        let object = self.starts.partition_point(|&s| s <= flat) - 1;
        WorldHit {
            t: h.t,
            object,
            triangle: (flat - self.starts[object]) as u32,
            point: h.point,
            normal: h.normal,
            u: h.u,
            v: h.v,
        }
    }

    pub fn closest_hit(&self, ray: &Ray, q: &RayQuery) -> Option<WorldHit> {
        self.mesh.closest_hit(ray, q).map(|h| self.to_world_hit(h))
    }

    pub fn any_hit(&self, ray: &Ray, q: &RayQuery) -> bool {
        self.mesh.any_hit(ray, q)
    }

    pub fn all_hits(&self, ray: &Ray, q: &RayQuery) -> Vec<WorldHit> {
        self.mesh
            .all_hits(ray, q)
            .into_iter()
            .map(|h| self.to_world_hit(h))
            .collect()
    }

    /// Bytes held by the acceleration structure and its triangles.
    pub fn memory_bytes(&self) -> usize {
        self.mesh.memory_bytes()
    }

    /// The traversal cost of a closest-hit query: (nodes whose box the ray was tested
    /// against, triangles tested). Near child first with pruning by the closest hit so far,
    /// as the real query does, so the picture shows what the BVH costs.
    pub fn traversal_cost(&self, ray: &Ray) -> (u32, u32) {
        let bvh = self.mesh.bvh();
        let nodes = bvh.nodes();
        if nodes.is_empty() {
            return (0, 0);
        }
        let pre = RayAabbPrecomp::new(ray);
        let wt = WatertightRay::new(ray);
        let order = bvh.prim_indices();
        let mut t_max = Real::INFINITY;
        let mut visited = 1u32;
        let mut tested = 0u32;
        if pre.intersect_robust(&nodes[0].aabb(), 0.0, t_max).is_none() {
            return (visited, tested);
        }
        let mut stack: Vec<(usize, Real)> = vec![(0, 0.0)];
        while let Some((i, t_enter)) = stack.pop() {
            if t_enter > t_max {
                continue; // pruned by a hit found after it was pushed
            }
            let node = &nodes[i];
            if let Some(range) = node.leaf_range() {
                for pos in range {
                    tested += 1;
                    let [a, b, c] = self.flat_triangles[order[pos] as usize]
                        .map(|k| self.flat_positions[k as usize]);
                    if let Some(h) = wt.intersect(&a, &b, &c, 0.0, t_max, Cull::None) {
                        t_max = h.t;
                    }
                }
                continue;
            }
            let Some(first) = node.first_child() else {
                continue;
            };
            visited += 2;
            let hit_a = pre.intersect_robust(&nodes[first].aabb(), 0.0, t_max);
            let hit_b = pre.intersect_robust(&nodes[first + 1].aabb(), 0.0, t_max);
            match (hit_a, hit_b) {
                (Some((ta, _)), Some((tb, _))) => {
                    // Push the far child first so the near one is popped next.
                    if ta <= tb {
                        stack.push((first + 1, tb));
                        stack.push((first, ta));
                    } else {
                        stack.push((first, ta));
                        stack.push((first + 1, tb));
                    }
                }
                (Some((ta, _)), None) => stack.push((first, ta)),
                (None, Some((tb, _))) => stack.push((first + 1, tb)),
                (None, None) => {}
            }
        }
        (visited, tested)
    }
}
