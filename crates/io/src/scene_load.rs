//! Loaded files into a [`Scene`]: one shared mesh per file mesh, one instance per placement.

use std::path::Path;

use raypick_query::scene::{InstanceId, MeshId, Scene};

use crate::error::{Error, ErrorKind};
use crate::{read_bytes, read_file, Format, SceneData};

/// A file loaded into a [`Scene`], with which id each of the file's objects became.
///
/// Every instance's user data is its index in `instances` (its load order), so a
/// `SceneHit::user_data` names the file object directly. The scene's top-level tree is up
/// to date (`Scene::update` has run).
#[derive(Clone, Debug)]
pub struct BuiltScene {
    /// The scene, ready to query.
    pub scene: Scene,
    /// `meshes[m]` is the id of [`SceneData::meshes`]`[m]` (one BVH however many
    /// instances use it).
    pub meshes: Vec<MeshId>,
    /// `instances[k]` is the id of [`SceneData::instances`]`[k]`: the file's objects in
    /// load order.
    pub instances: Vec<InstanceId>,
}

impl BuiltScene {
    /// The file object (index into [`BuiltScene::instances`], load order) that instance `id`
    /// is; `None` for an instance added by hand after loading.
    #[must_use]
    pub fn object_of(&self, id: InstanceId) -> Option<usize> {
        self.instances.iter().position(|&i| i == id)
    }
}

impl SceneData {
    /// Builds a [`Scene`]: each mesh's BVH once (with its vertex data kept, so
    /// `Scene::pick` can snap to vertices and edges), then its instances with their
    /// transforms.
    /// `file` names the source in errors ([`ErrorKind::Build`]; the loaders have already
    /// checked what would make this fail, so it is not expected).
    pub fn to_scene(&self, file: &str) -> Result<BuiltScene, Error> {
        let build = |e: String| Error::new(file, ErrorKind::Build(e));
        let mut scene = Scene::new();
        let mut meshes = Vec::with_capacity(self.meshes.len());
        for m in &self.meshes {
            let id = scene
                .add_mesh_with_source(m.positions.clone(), m.triangles.clone())
                .map_err(|e| build(format!("mesh {:?}: {e}", m.name)))?;
            meshes.push(id);
        }
        let mut instances = Vec::with_capacity(self.instances.len());
        for (k, inst) in self.instances.iter().enumerate() {
            let id = scene
                .add_instance_f64(meshes[inst.mesh], &inst.transform64)
                .map_err(|e| build(format!("object {:?}: {e}", inst.name)))?;
            scene
                .set_user_data(id, k as u64)
                .map_err(|e| build(format!("object {:?}: {e}", inst.name)))?;
            instances.push(id);
        }
        scene.update();
        Ok(BuiltScene {
            scene,
            meshes,
            instances,
        })
    }
}

/// Loads a file into a [`Scene`] (format by extension; errors as in [`read_file`]). A
/// saved scene (`.rpk`, see [`crate::save_scene`]) is loaded with its BVHs, not rebuilt.
///
/// ```no_run
/// use raypick_io::load_scene;
/// use raypick_primitives::{Point3, Ray, Vector3};
/// use raypick_query::scene::SceneQuery;
///
/// let loaded = load_scene("city.glb")?;
/// let ray = Ray::new(Point3::new(0.0, 2.0, 50.0), Vector3::new(0.0, 0.0, -1.0));
/// if let Some(hit) = loaded.scene.closest_hit(&ray, &SceneQuery::default()) {
///     println!("file object {} triangle {:?}", hit.user_data, hit.triangle());
/// }
/// # Ok::<(), raypick_io::Error>(())
/// ```
pub fn load_scene(path: impl AsRef<Path>) -> Result<BuiltScene, Error> {
    let path = path.as_ref();
    let name = path.display().to_string();
    if Format::from_path(path) == Some(Format::Saved) {
        return Ok(crate::saved::load(&crate::read_checked(path, &name)?, &name)?.1);
    }
    read_file(path)?.to_scene(&name)
}

/// [`load_scene`] from in-memory bytes; `name` stands for the file in errors. glTF external
/// buffers cannot be reached from memory (see [`read_bytes`]).
pub fn load_scene_from_bytes(
    bytes: &[u8],
    format: Format,
    name: &str,
) -> Result<BuiltScene, Error> {
    if format == Format::Saved {
        return Ok(crate::saved::load(bytes, name)?.1);
    }
    read_bytes(bytes, format, name)?.to_scene(name)
}
