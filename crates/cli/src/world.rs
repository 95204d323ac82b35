//! What the commands query: a loaded file as a [`Scene`] (one BVH per distinct mesh, a
//! top-level tree over the instances), answering in terms of the file's objects (instance
//! index in load order) and their own triangle numbering.

use std::ops::{ControlFlow, Range};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use raypick_bvh::wide::{RayLayout8, RayTraversal, RayVisitor, WideBvh, WideLayout, WideStats};
use raypick_bvh::BoxRay;
use raypick_io::SceneData;
use raypick_primitives::{Aabb, Cull, Point3, Ray, Ray64, Real, Unit, Vector3, WatertightRay};

/// An f64 world point.
type P64 = nalgebra::Point3<f64>;
use raypick_query::camera::{Camera, Viewport};
use raypick_query::mesh::MeshTree;
use raypick_query::points::{PickConfig, PickKind, PointSet, PrimPick, SegmentSet};
use raypick_query::scene::{
    InstanceId, MeshId, Pick, PickError, PickOptions, PrimData, PrimId, Scene, SceneHit, SceneQuery,
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

/// Places the file's point clouds and line sets in `scene`, moved into world space (f32),
/// points first, each in file order.
fn place_prims(loaded: &SceneData, scene: &mut Scene) -> Result<(), CliError> {
    let place = |m: &nalgebra::Matrix4<f64>, p: &[Point3<Real>]| -> Vec<Point3<Real>> {
        p.iter()
            .map(|p| m.transform_point(&p.cast::<f64>()).cast::<Real>())
            .collect()
    };
    let bad = |name: &str, e: &dyn std::fmt::Display| CliError::BadInput(format!("{name}: {e}"));
    let id = nalgebra::Matrix4::identity();
    for c in &loaded.points {
        let set =
            PointSet::new(place(&c.transform64, &c.positions)).map_err(|e| bad(&c.name, &e))?;
        scene
            .add_point_set(Arc::new(set), &id)
            .map_err(|e| bad(&c.name, &e))?;
    }
    for l in &loaded.lines {
        let set = SegmentSet::new(place(&l.transform64, &l.positions), l.segments.clone())
            .map_err(|e| bad(&l.name, &e))?;
        scene
            .add_segment_set(Arc::new(set), &id)
            .map_err(|e| bad(&l.name, &e))?;
    }
    Ok(())
}

/// Every instance's triangles in world space under one BVH: only for the heatmap, which
/// counts the nodes a traversal visits (built on first use).
struct Flat {
    mesh: Mesh,
    positions: Vec<Point3<Real>>,
}

/// The loaded file and its scene.
pub struct World {
    pub loaded: SceneData,
    /// The meshes' instances, and the file's point clouds and line sets in world space.
    scene: Scene,
    meshes: Vec<MeshId>,
    flat: OnceLock<Result<Flat, String>>,
    pub build_time: Duration,
}

fn scene_query(q: &RayQuery) -> SceneQuery<'static> {
    SceneQuery::from(*q)
}

impl World {
    pub fn build(loaded: SceneData, file: &str) -> Result<World, CliError> {
        let t0 = Instant::now();
        let sl = loaded.to_scene(file)?;
        let build_time = t0.elapsed();
        tracing::info!(
            file,
            meshes = sl.meshes.len(),
            instances = sl.instances.len(),
            ?build_time,
            "scene built"
        );
        let mut scene = sl.scene;
        place_prims(&loaded, &mut scene)?;
        Ok(World {
            loaded,
            scene,
            meshes: sl.meshes,
            flat: OnceLock::new(),
            build_time,
        })
    }

    /// A world from a saved scene (`.rpk`): its BVHs were loaded, not built; `build_time`
    /// is the load time.
    pub fn from_saved(path: &std::path::Path) -> Result<World, CliError> {
        let t0 = Instant::now();
        let (loaded, sl) = raypick_io::load_saved(path)?;
        // The point clouds and line sets (what `raypick build` put there) are in the scene.
        Ok(World {
            loaded,
            scene: sl.scene,
            meshes: sl.meshes,
            flat: OnceLock::new(),
            build_time: t0.elapsed(),
        })
    }

    /// The point or segment whose projection lies within `radius_px` of window position
    /// `(x, y)`, nearest the camera and not hidden by the scene's surfaces: `(set, pick)`,
    /// `set` counting the point clouds or the line sets (by the pick's kind) in id order,
    /// which is file order.
    pub fn pick_prims(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: f64,
        y: f64,
        radius_px: f64,
    ) -> Option<(usize, PrimPick)> {
        let config = PickConfig {
            radius_px,
            xray: false,
        };
        let p = self
            .scene
            .pick_prims(camera, viewport, x, y, &config, &SceneQuery::default())?;
        let set = self
            .prim_sets()
            .filter(|(_, data, _)| kind_of(data) == p.pick.kind)
            .position(|(id, ..)| id == p.id)?;
        Some((set, p.pick))
    }

    /// The point and segment sets in the scene, in id order, with their object-to-world
    /// matrices.
    pub fn prim_sets(
        &self,
    ) -> impl Iterator<Item = (PrimId, &PrimData, nalgebra::Matrix4<Real>)> + '_ {
        self.scene
            .prim_ids()
            .filter_map(|id| self.scene.prims(id).map(|(d, m)| (id, d, m)))
    }

    /// Triangles over all instances.
    pub fn triangle_count(&self) -> usize {
        self.loaded.instance_triangle_count()
    }

    /// The box of the meshes, points and lines (those of a saved file are in its scene).
    pub fn bounds(&self) -> Aabb {
        let mut b = self.loaded.bounds();
        for (_, data, m) in self.prim_sets() {
            let points = match data {
                PrimData::Points(s) => s.points(),
                PrimData::Segments(s) => s.points(),
            };
            for p in points {
                b = b.grow(&m.transform_point(p));
            }
        }
        b
    }

    /// Statistics and SAH cost of each distinct mesh's (8-wide) BVH, in file order.
    pub fn mesh_stats(&self) -> Vec<(WideStats, f64)> {
        self.meshes
            .iter()
            .filter_map(|&id| self.scene.mesh(id))
            .map(|m| (m.tree().stats(), m.tree().sah_cost()))
            .collect()
    }

    fn to_world_hit(h: SceneHit) -> WorldHit {
        let (u, v) = h.barycentrics().unwrap_or((0.0, 0.0));
        WorldHit {
            t: h.t,
            object: h.user_data as usize,
            triangle: h.triangle().unwrap_or(0),
            point: h.point,
            normal: h.normal,
            u,
            v,
        }
    }

    pub fn closest_hit(&self, ray: &Ray, q: &RayQuery) -> Option<WorldHit> {
        self.scene
            .closest_hit(ray, &scene_query(q))
            .map(Self::to_world_hit)
    }

    /// [`World::closest_hit`] for every ray of a coherent batch (a render's pixels in 4 x 4
    /// tiles) into `out`, through [`Scene::closest_hit_coherent`]; `scratch` holds the
    /// scene's hits between calls.
    pub fn closest_hit_coherent(
        &self,
        rays: &[Ray],
        q: &RayQuery,
        scratch: &mut Vec<Option<SceneHit>>,
        out: &mut Vec<Option<WorldHit>>,
    ) {
        scratch.clear();
        scratch.resize(rays.len(), None);
        out.clear();
        // The lengths agree: the call cannot fail.
        if self
            .scene
            .closest_hit_coherent(rays, &scene_query(q), scratch)
            .is_ok()
        {
            out.extend(scratch.iter().map(|h| h.map(Self::to_world_hit)));
        }
    }

    /// [`World::closest_hit`] for an f64 ray, with the f64 world point.
    pub fn closest_hit_f64(&self, ray: &Ray64, q: &RayQuery) -> Option<(WorldHit, P64)> {
        self.scene
            .closest_hit_f64(ray, &scene_query(q))
            .map(|h| (Self::to_world_hit(h.hit), h.point))
    }

    /// [`World::any_hit`] for an f64 ray.
    pub fn any_hit_f64(&self, ray: &Ray64, q: &RayQuery) -> bool {
        self.scene.any_hit_f64(ray, &scene_query(q))
    }

    /// Every crossing of an f64 ray, sorted by t, with the f64 world points.
    pub fn all_hits_f64(&self, ray: &Ray64, q: &RayQuery) -> Vec<(WorldHit, P64)> {
        self.scene
            .all_hits_f64(ray, &scene_query(q))
            .into_iter()
            .map(|h| (Self::to_world_hit(h.hit), h.point))
            .collect()
    }

    pub fn any_hit(&self, ray: &Ray, q: &RayQuery) -> bool {
        self.scene.any_hit(ray, &scene_query(q))
    }

    /// `Scene::pick` at window position `(x, y)` with snapping within `radius` pixels.
    pub fn pick_snap(
        &self,
        camera: &Camera,
        viewport: &Viewport,
        x: Real,
        y: Real,
        radius: Real,
        q: &RayQuery,
    ) -> Result<Option<Pick>, PickError> {
        let mut options = PickOptions::new()
            .with_snap_radius(radius)
            .with_query(scene_query(q));
        // Points and lines are picked first, by `pick_prims`, with the caller's tolerance.
        options.prims.radius_px = 0.0;
        self.scene.pick(camera, viewport, x, y, &options)
    }

    /// The scene the file was loaded into (for the queries `World` does not wrap).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The file object (load index) of an instance.
    pub fn object_of(&self, id: InstanceId) -> usize {
        self.scene.user_data(id).unwrap_or(0) as usize
    }

    /// The world hit of a scene hit.
    pub fn world_hit(&self, h: SceneHit) -> WorldHit {
        Self::to_world_hit(h)
    }

    /// Bytes held by the distinct meshes (triangles and BVHs); the top-level tree and the
    /// instance records come on top.
    pub fn memory_bytes(&self) -> usize {
        self.meshes
            .iter()
            .filter_map(|&id| self.scene.mesh(id))
            .map(|m| m.memory_bytes())
            .sum()
    }

    fn flat(&self) -> Result<&Flat, CliError> {
        self.flat
            .get_or_init(|| {
                let (m, _) = self.loaded.flatten();
                let mesh =
                    Mesh::new(m.positions.clone(), m.triangles).map_err(|e| e.to_string())?;
                Ok(Flat {
                    mesh,
                    positions: m.positions,
                })
            })
            .as_ref()
            .map_err(|e| CliError::Internal(format!("cannot build the heatmap BVH: {e}")))
    }

    /// Prepares [`World::traversal_cost`] (builds the flattened BVH it walks).
    pub fn prepare_heatmap(&self) -> Result<(), CliError> {
        self.flat().map(|_| ())
    }

    /// The traversal cost of a closest-hit query over all instances' world-space triangles
    /// under one 8-wide BVH: (child boxes the ray was tested against, triangles tested),
    /// counted by a visitor of the tree's own nearest-first traversal, pruned by the closest
    /// hit so far as the real query is.
    pub fn traversal_cost(&self, ray: &Ray) -> (u32, u32) {
        let Ok(flat) = self.flat() else { return (0, 0) };
        match flat.mesh.tree() {
            MeshTree::Plain(t) => traversal_cost_in(t, flat, ray),
            MeshTree::Compact(t) => traversal_cost_in(t, flat, ray),
        }
    }
}

/// The heatmap's counting visitor: the closest-hit leaf test (the watertight test, the hit
/// lowering `t_max`) on the flattened triangles, counting the child boxes tested at each node
/// the real traversal visits and the triangles tested in each leaf.
struct CostCounter<'a, L> {
    nodes: &'a [L],
    flat: &'a Flat,
    ray: WatertightRay,
    boxes_tested: u32,
    triangles_tested: u32,
}

impl<L: WideLayout<8>> RayVisitor for CostCounter<'_, L> {
    fn leaf(&mut self, range: Range<usize>, t_max: &mut Real) -> ControlFlow<()> {
        let leaf = &self.flat.mesh.leaf_vertex_indices()[range];
        for tri in leaf {
            self.triangles_tested += 1;
            let [a, b, c] = tri.map(|k| self.flat.positions[k as usize]);
            if let Some(h) = self.ray.intersect(&a, &b, &c, 0.0, *t_max, Cull::None) {
                *t_max = h.t;
            }
        }
        ControlFlow::Continue(())
    }

    fn node(&mut self, node: usize) {
        self.boxes_tested += self.nodes[node].child_count() as u32;
    }
}

/// [`World::traversal_cost`] on the tree of either layout, through its own traversal.
fn traversal_cost_in<L: RayLayout8>(tree: &WideBvh<8, L>, flat: &Flat, ray: &Ray) -> (u32, u32) {
    let mut counter = CostCounter {
        nodes: tree.nodes(),
        flat,
        ray: WatertightRay::new(ray),
        boxes_tested: 0,
        triangles_tested: 0,
    };
    let how = RayTraversal::nearest_first();
    tree.traverse_ray_visit(how, &BoxRay::new(ray), 0.0, Real::INFINITY, &mut counter);
    (counter.boxes_tested, counter.triangles_tested)
}

fn kind_of(data: &PrimData) -> PickKind {
    match data {
        PrimData::Points(_) => PickKind::Point,
        PrimData::Segments(_) => PickKind::Segment,
    }
}
