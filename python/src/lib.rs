//! `raypick._raypick`: the native module behind the `raypick` Python package.
//!
//! Every query takes numpy arrays, converts them once (float64 is rounded to the nearest
//! float32 there), releases the GIL for the whole batch and runs on rayon's threads (see
//! `pool.rs`). The pure-Python package in `python/raypick` wraps these functions with shapes,
//! result objects and the trimesh and open3d drop-ins.

mod camera;
mod convert;
mod large;
mod large_solid;
mod load;
mod mesh;
mod points;
mod pool;
mod queries;
mod scene;
mod solid;

use pyo3::prelude::*;

pyo3::create_exception!(
    raypick,
    RaypickError,
    pyo3::exceptions::PyValueError,
    "Bad input to raypick: the message names the bad element (ray, point, face, vertex)."
);

/// The native module.
#[pymodule]
fn _raypick(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RaypickError", m.py().get_type::<RaypickError>())?;
    m.add_class::<mesh::PyMesh>()?;
    m.add_class::<scene::PyScene>()?;
    m.add_class::<camera::PyCamera>()?;
    m.add_class::<points::PyPointSet>()?;
    m.add_class::<points::PySegmentSet>()?;
    m.add_function(wrap_pyfunction!(load::load, m)?)?;
    m.add_function(wrap_pyfunction!(load::load_scene, m)?)?;
    m.add_function(wrap_pyfunction!(pool::set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(pool::get_threads, m)?)?;
    Ok(())
}
