//! Meshes and scenes saved by raypick (`.rpk`): built once, loaded without rebuilding.

use std::path::Path;
use std::sync::Arc;

use raypick_query::persist::{saved_kind, SavedKind};
use raypick_query::scene::{InstanceId, MeshId, Scene};
use raypick_query::Mesh;

use crate::error::{Error, ErrorKind};
use crate::{BuiltScene, LoadedInstance, LoadedMesh, SceneData};

/// Saves a built scene to `path` in raypick's saved format ([`raypick_query::persist`]),
/// to be loaded again by [`load_scene`](crate::load_scene) or any loader given a `.rpk` path,
/// without rebuilding its BVHs.
///
/// Errors: [`ErrorKind::Unsupported`] for a scene holding a shape the format cannot save,
/// [`ErrorKind::Io`] when the file cannot be written.
///
/// ```no_run
/// let built = raypick_io::load_scene("city.glb")?;
/// raypick_io::save_scene(&built.scene, "city.rpk")?;
/// let again = raypick_io::load_scene("city.rpk")?; // no BVH build
/// # Ok::<(), raypick_io::Error>(())
/// ```
pub fn save_scene(scene: &Scene, path: impl AsRef<Path>) -> Result<(), Error> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let bytes = scene
        .to_bytes()
        .map_err(|e| Error::new(&name, ErrorKind::Unsupported(e.to_string())))?;
    std::fs::write(path, bytes).map_err(|e| Error::new(&name, ErrorKind::Io(e)))
}

/// A mesh's vertices and triangles in file (original) order, recovered from the built mesh;
/// vertices no triangle uses are at the origin.
fn source_of(mesh: &Mesh, name: String) -> LoadedMesh {
    let (positions, triangles) = mesh.vertices_and_triangles();
    LoadedMesh {
        name,
        positions,
        triangles,
        offset: nalgebra::Vector3::zeros(),
    }
}

/// Loads a saved mesh or scene (`.rpk`) from `path`: its data and the scene, BVHs loaded,
/// not rebuilt. The data's names are invented (`mesh M`, `object K`: names are not saved);
/// a saved mesh becomes a scene of one instance; instances are in the order of their user
/// data (which [`SceneData::to_scene`] sets to the load order), then of their ids; shapes are
/// in the scene but not in the data (it holds meshes only). Errors: as [`crate::read_file`]
/// for the file itself, [`ErrorKind::Saved`] for contents that fail the checks.
pub fn load_saved(path: impl AsRef<Path>) -> Result<(SceneData, BuiltScene), Error> {
    let path = path.as_ref();
    let name = path.display().to_string();
    load(&crate::read_checked(path, &name)?, &name)
}

/// [`load_saved`] from bytes; `file` names them in errors.
pub(crate) fn load(bytes: &[u8], file: &str) -> Result<(SceneData, BuiltScene), Error> {
    let err = |e| Error::new(file, ErrorKind::Saved(e));
    let scene = match saved_kind(bytes) {
        Some(SavedKind::Mesh) => {
            let mesh = Mesh::from_bytes(bytes).map_err(err)?;
            let mut scene = Scene::new();
            let id = scene.add_shared_mesh(Arc::new(mesh));
            scene
                .add_instance(id, &nalgebra::Matrix4::identity())
                .map_err(|e| Error::new(file, ErrorKind::Build(e.to_string())))?;
            scene.update();
            scene
        }
        _ => Scene::from_bytes(bytes).map_err(err)?,
    };
    let ids: Vec<MeshId> = scene.mesh_ids().collect();
    let meshes = ids
        .iter()
        .filter_map(|&id| Some(source_of(scene.mesh(id)?, format!("mesh {}", id.index()))))
        .collect();
    let mut placed: Vec<(u64, InstanceId)> = scene
        .instances()
        .filter(|&id| scene.instance_mesh(id).is_some())
        .map(|id| (scene.user_data(id).unwrap_or(0), id))
        .collect();
    placed.sort_by_key(|&(data, id)| (data, id.index()));
    let mut instances = Vec::with_capacity(placed.len());
    for (k, &(_, id)) in placed.iter().enumerate() {
        let (Some(mesh), Some(transform)) = (scene.instance_mesh(id), scene.transform_f64(id))
        else {
            continue;
        };
        instances.push(LoadedInstance::new(
            format!("object {k}"),
            mesh.index() as usize,
            transform,
        ));
    }
    let data = SceneData {
        format: crate::Format::Saved,
        meshes,
        instances,
        points: Vec::new(),
        lines: Vec::new(),
    };
    let built = BuiltScene {
        scene,
        meshes: ids,
        instances: placed.into_iter().map(|(_, id)| id).collect(),
    };
    Ok((data, built))
}

/// The mesh of a saved file: a saved mesh as it is; a saved scene flattened (as
/// [`crate::load_mesh`] flattens files of several instances), which builds a new BVH.
pub(crate) fn load_mesh(bytes: &[u8], file: &str) -> Result<Mesh, Error> {
    if saved_kind(bytes) == Some(SavedKind::Mesh) {
        return Mesh::from_bytes(bytes).map_err(|e| Error::new(file, ErrorKind::Saved(e)));
    }
    load(bytes, file)?.0.to_mesh(file)
}
