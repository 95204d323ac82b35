//! `raypick.Mesh`: one triangle mesh with its BVH.

use std::sync::Arc;

use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use raypick::primitives::{Point3, Ray};
use raypick::query::{Hit, Mesh, RayQuery};

use crate::convert::FloatArg;
use crate::queries::{self, Near, NearestTarget, Opts, RayArgs, Rec, Target};
use crate::{pool, RaypickError};

/// A triangle mesh with its BVH (immutable; share it between scenes and threads freely).
#[pyclass(name = "Mesh", module = "raypick._raypick", frozen)]
pub struct PyMesh {
    pub(crate) mesh: Arc<Mesh>,
}

pub(crate) fn rec(h: &Hit, instance: u32) -> Rec<f32> {
    Rec {
        t: h.t,
        instance,
        triangle: h.triangle,
        uv: [h.u, h.v],
        point: h.point.into(),
        normal: (*h.normal).into(),
        front_face: h.front_face,
    }
}

fn ray_query(o: &Opts) -> RayQuery {
    RayQuery::new(o.t_min, o.t_max).with_cull(o.cull)
}

impl Target<f32> for Mesh {
    type Hit = Hit;

    fn closest_into(&self, rays: &[Ray], o: &Opts, out: &mut [Option<Hit>]) -> Result<(), String> {
        self.closest_hit_batch(rays, &ray_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn closest_tiles_into(
        &self,
        rays: &[Ray],
        o: &Opts,
        out: &mut [Option<Hit>],
    ) -> Result<(), String> {
        self.closest_hit_coherent(rays, &ray_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn rec(h: &Hit) -> Rec<f32> {
        rec(h, 0)
    }

    fn any_into(&self, rays: &[Ray], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_hit_batch(rays, &ray_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn any_tiles_into(&self, rays: &[Ray], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_hit_coherent(rays, &ray_query(o), out)
            .map_err(|e| e.to_string())
    }

    fn all_into(&self, ray: &Ray, o: &Opts, out: &mut Vec<Hit>) {
        self.all_hits_into(ray, &ray_query(o), out);
    }
}

impl NearestTarget for Mesh {
    fn nearest(&self, p: &[Point3<f32>], max_distance: f32) -> Result<Vec<Option<Near>>, String> {
        let near = self.nearest_points(p, max_distance);
        Ok(near
            .into_iter()
            .map(|n| {
                n.map(|n| Near {
                    instance: 0,
                    triangle: n.triangle,
                    uv: [n.u, n.v],
                    point: n.point.into(),
                    distance: n.distance,
                })
            })
            .collect())
    }
}

/// Reads `(M, 3)` int64 faces, naming the first negative or too large index.
fn faces(f: &PyReadonlyArrayDyn<'_, i64>) -> PyResult<Vec<[u32; 3]>> {
    let shape = f.shape();
    if shape.len() != 2 || shape[1] != 3 {
        return Err(RaypickError::new_err(format!(
            "faces must have shape (M, 3), got {shape:?}"
        )));
    }
    let a = f.as_array();
    let mut out = Vec::with_capacity(shape[0]);
    for (i, row) in a.outer_iter().enumerate() {
        let mut tri = [0u32; 3];
        for (c, &x) in row.iter().enumerate() {
            tri[c] = u32::try_from(x).map_err(|_| {
                RaypickError::new_err(format!(
                    "face {i}: vertex index {x} (corner {c}) is out of range"
                ))
            })?;
        }
        out.push(tri);
    }
    Ok(out)
}

#[pymethods]
impl PyMesh {
    /// Builds a mesh from `vertices` `(..., 3)` (float32 or float64) and `faces` `(M, 3)`
    /// (int64 vertex indices).
    #[new]
    #[pyo3(signature = (vertices, faces, threads=None))]
    fn new(
        py: Python<'_>,
        vertices: &Bound<'_, PyAny>,
        faces: PyReadonlyArrayDyn<'_, i64>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let va = FloatArg::extract(vertices, "vertices", 3)?;
        let vv = va.view();
        let tris = self::faces(&faces)?;
        let mesh = pool::run(py, threads, || {
            let positions: Vec<Point3<f32>> =
                vv.rows::<3>().into_iter().map(Point3::from).collect();
            Mesh::new(positions, tris).map_err(|e| e.to_string())
        })?;
        Ok(Self {
            mesh: Arc::new(mesh),
        })
    }

    /// The number of triangles.
    #[getter]
    fn triangle_count(&self) -> usize {
        self.mesh.len()
    }

    /// The number of vertices.
    #[getter]
    fn vertex_count(&self) -> usize {
        self.mesh.vertex_count()
    }

    /// The bounding box as `((min x, y, z), (max x, y, z))`.
    #[getter]
    fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let b = self.mesh.bounds();
        (b.min.into(), b.max.into())
    }

    fn __len__(&self) -> usize {
        self.mesh.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Mesh({} triangles, {} vertices)",
            self.mesh.len(),
            self.mesh.vertex_count()
        )
    }

    // `Mesh` and `Scene` each declare their native entries (pyo3 wants them per class); both
    // are one call into `queries`, where the work is written once.

    /// The ray queries behind the package's `Mesh.closest_hit`, `any_hit` and `all_hits`
    /// (`kind` "closest", "any" or "all"; "cast" and "first" for the open3d and trimesh
    /// drop-ins; `query` the dict of `_Queries._kw`).
    fn rays<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        origins: &Bound<'py, PyAny>,
        directions: Option<&Bound<'py, PyAny>>,
        query: RayArgs,
    ) -> PyResult<Bound<'py, PyAny>> {
        queries::ray_query::<f32, _>(py, kind, &*self.mesh, origins, directions, &query)
    }

    /// The nearest surface point to each point within `max_distance`.
    #[pyo3(signature = (points, max_distance=f32::INFINITY, strict=true, threads=None))]
    fn nearest_point<'py>(
        &self,
        py: Python<'py>,
        points: &Bound<'py, PyAny>,
        max_distance: f32,
        strict: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        queries::nearest_point(py, &*self.mesh, points, max_distance, strict, threads)
    }

    /// The solid queries behind the package's `Mesh.winding_number` (float32, about 1
    /// inside a closed mesh and 0 outside), `contains` (winding number >= 0.5, or exactly on
    /// the surface) and `signed_distance` (negative inside, with the nearest surface
    /// points): `kind` "winding_number", "contains" or "signed_distance".
    #[pyo3(signature = (kind, points, strict=true, threads=None))]
    fn solid<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        points: &Bound<'py, PyAny>,
        strict: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::solid::solid_query(py, kind, &*self.mesh, points, strict, threads)
    }
}
