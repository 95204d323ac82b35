//! `raypick.Camera`: rays through pixels, for picking, rendering and selection.

use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;
use raypick::io::Matrix4;
use raypick::query::camera::{Camera, ClipConvention, Projection, Viewport};

use crate::convert::{arr2, FloatArg};
use crate::{pool, RaypickError};

/// A camera (view and projection, kept in float64), right-handed, looking down its -z.
#[pyclass(name = "Camera", module = "raypick._raypick", frozen)]
pub struct PyCamera {
    pub(crate) cam: Camera,
}

fn err(e: impl std::fmt::Display) -> PyErr {
    RaypickError::new_err(e.to_string())
}

fn convention(name: &str) -> PyResult<ClipConvention> {
    Ok(match name {
        "opengl" => ClipConvention::OPENGL,
        "zero_to_one" | "d3d" | "wgpu" => ClipConvention::ZERO_TO_ONE,
        "vulkan" => ClipConvention::VULKAN,
        other => {
            return Err(RaypickError::new_err(format!(
            "convention must be 'opengl', 'zero_to_one', 'd3d', 'wgpu' or 'vulkan', got {other:?}"
        )))
        }
    })
}

fn matrix4(m: &PyReadonlyArrayDyn<'_, f64>, what: &str) -> PyResult<Matrix4<f64>> {
    if m.shape() != [4, 4] {
        return Err(RaypickError::new_err(format!(
            "{what} must have shape (4, 4), got {:?}",
            m.shape()
        )));
    }
    let a = m.as_array();
    Ok(Matrix4::from_fn(|r, c| a[[r, c]]))
}

pub(crate) fn viewport(width: f32, height: f32) -> PyResult<Viewport> {
    let v = Viewport::new(width, height);
    if v.is_valid() {
        Ok(v)
    } else {
        Err(RaypickError::new_err(format!(
            "the viewport {width} x {height} is not a positive finite size"
        )))
    }
}

#[pymethods]
impl PyCamera {
    /// A perspective camera at `eye` looking at `target` (vertical field of view
    /// `fov_y_deg`), or orthographic when `ortho_height` is given.
    #[staticmethod]
    #[pyo3(signature = (eye, target, up=[0.0, 1.0, 0.0], fov_y_deg=60.0, aspect=1.0, near=0.1, far=1000.0, ortho_height=None, convention="opengl"))]
    #[allow(clippy::too_many_arguments)]
    fn look_at(
        eye: [f32; 3],
        target: [f32; 3],
        up: [f32; 3],
        fov_y_deg: f32,
        aspect: f32,
        near: f32,
        far: f32,
        ortho_height: Option<f32>,
        convention: &str,
    ) -> PyResult<Self> {
        let projection = match ortho_height {
            Some(h) => Projection::orthographic(h, aspect, near, far),
            None => Projection::perspective(fov_y_deg.to_radians(), aspect, near, far),
        };
        let cam = Camera::look_at(
            eye.into(),
            target.into(),
            up.into(),
            projection,
            self::convention(convention)?,
        )
        .map_err(err)?;
        Ok(Self { cam })
    }

    /// A camera from a 4x4 view matrix (world to view) and projection matrix (view to clip)
    /// in `convention`.
    #[staticmethod]
    #[pyo3(signature = (view, projection, convention="opengl"))]
    fn from_matrices(
        view: PyReadonlyArrayDyn<'_, f64>,
        projection: PyReadonlyArrayDyn<'_, f64>,
        convention: &str,
    ) -> PyResult<Self> {
        let cam = Camera::from_matrices_f64(
            &matrix4(&view, "view")?,
            &matrix4(&projection, "projection")?,
            self::convention(convention)?,
        )
        .map_err(err)?;
        Ok(Self { cam })
    }

    /// Rays `(..., 6)` float32 through window positions `(..., 2)` (pixels, origin top left,
    /// y down) of a `width` x `height` viewport: origins on the near plane, unit directions.
    #[pyo3(signature = (pixels, width, height, threads=None))]
    fn rays_from_pixels<'py>(
        &self,
        py: Python<'py>,
        pixels: &Bound<'py, PyAny>,
        width: f32,
        height: f32,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let vp = viewport(width, height)?;
        let pa = FloatArg::extract(pixels, "pixels", 2)?;
        let px = pa.view().rows::<2>();
        let cam = self.cam;
        let out = pool::run(py, threads, || {
            let mut out = vec![0.0f32; px.len() * 6];
            let all = out
                .par_chunks_mut(6)
                .zip(px.par_iter())
                .with_min_len(1024)
                .all(|(o, &[x, y])| {
                    cam.ray_from_pixel(x, y, &vp).is_some_and(|r| {
                        o.copy_from_slice(&[
                            r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z,
                        ]);
                        true
                    })
                });
            if !all {
                // The first pixel without a ray, in order (the parallel pass may stop at any).
                let (i, [x, y]) = px
                    .iter()
                    .enumerate()
                    .find(|(_, &[x, y])| cam.ray_from_pixel(x, y, &vp).is_none())
                    .map_or((0, [f32::NAN; 2]), |(i, &p)| (i, p));
                return Err(format!("pixel {i} ({x}, {y}) gives no ray"));
            }
            Ok(out)
        })?;
        arr2(py, out, 6)
    }

    /// The rays through every pixel centre of a `width` x `height` viewport, row by row from
    /// the top left: `(width * height, 6)` float32, exactly `rays_from_pixels`' rays, made a
    /// row at a time on the pool.
    #[pyo3(signature = (width, height, threads=None))]
    fn pixel_rays<'py>(
        &self,
        py: Python<'py>,
        width: u32,
        height: u32,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let vp = viewport(width as f32, height as f32)?;
        let cam = self.cam;
        let w = width as usize;
        let out = pool::run(py, threads, || {
            // `viewport` has refused a zero size, so rows are not empty.
            let mut out = vec![0.0f32; w * height as usize * 6];
            out.par_chunks_mut(w * 6).enumerate().try_for_each_init(
                Vec::new,
                |rays, (y, row)| {
                    cam.row_rays(y as u32, 0..width, &vp, rays);
                    for (x, (o, r)) in row.chunks_exact_mut(6).zip(rays.iter()).enumerate() {
                        let r = r.ok_or_else(|| format!("pixel ({x}, {y}) gives no ray"))?;
                        o.copy_from_slice(&[
                            r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z,
                        ]);
                    }
                    Ok::<(), String>(())
                },
            )?;
            Ok(out)
        })?;
        arr2(py, out, 6)
    }

    /// The 4x4 view matrix (float64, row-major nested lists).
    fn view_matrix(&self) -> Vec<Vec<f64>> {
        let m = self.cam.view_matrix();
        (0..4)
            .map(|r| (0..4).map(|c| m[(r, c)]).collect())
            .collect()
    }

    /// The 4x4 projection matrix (float64, row-major nested lists).
    fn projection_matrix(&self) -> Vec<Vec<f64>> {
        let m = self.cam.projection_matrix();
        (0..4)
            .map(|r| (0..4).map(|c| m[(r, c)]).collect())
            .collect()
    }
}
