//! `raypick.load` and `raypick.load_scene`: every format raypick's loaders read.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::mesh::PyMesh;
use crate::scene::{Inner, PyScene};
use crate::RaypickError;

fn err(e: raypick::io::Error) -> PyErr {
    let not_found = matches!(&e.kind, raypick::io::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound);
    if not_found {
        PyFileNotFoundError::new_err(e.to_string())
    } else {
        RaypickError::new_err(e.to_string())
    }
}

/// Loads an OBJ, glTF/GLB, PLY or STL file as one mesh (instances flattened into world
/// space).
#[pyfunction]
pub fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PyMesh> {
    let mesh = py.detach(|| raypick::io::load_mesh(&path)).map_err(err)?;
    Ok(PyMesh {
        mesh: Arc::new(mesh),
    })
}

/// Loads a file as a scene: one mesh per file mesh, one instance per file instance (ids
/// in load order).
#[pyfunction]
pub fn load_scene(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PyScene> {
    let l = py.detach(|| raypick::io::load_scene(&path)).map_err(err)?;
    let instances: HashMap<u32, _> = l.instances.iter().map(|i| (i.index(), *i)).collect();
    Ok(PyScene::from_inner(Inner {
        scene: l.scene,
        meshes: l.meshes,
        instances,
        prims: HashMap::new(),
    }))
}
