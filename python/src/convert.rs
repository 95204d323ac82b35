//! numpy arrays in: float32 or float64, any memory order, shape `(..., K)`, read in place.
//!
//! float64 values are rounded to the nearest float32 as they are read (the queries run in
//! float32); a value beyond float32's range becomes infinite and is then reported as not
//! finite. Outputs are built in Rust vectors and handed to numpy without a copy.

use numpy::ndarray::{ArrayViewD, Axis};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use raypick::primitives::{Point3, Ray, Ray64, Vector3};

use crate::RaypickError;

/// A float array argument, borrowed read-only from numpy.
pub enum FloatArg<'py> {
    /// float32 data.
    F32(PyReadonlyArrayDyn<'py, f32>),
    /// float64 data, rounded to float32 when read.
    F64(PyReadonlyArrayDyn<'py, f64>),
}

/// A view of a [`FloatArg`] that can cross into a thread without the GIL.
pub enum Floats<'a> {
    /// float32 data.
    F32(ArrayViewD<'a, f32>),
    /// float64 data.
    F64(ArrayViewD<'a, f64>),
}

impl<'py> FloatArg<'py> {
    /// Borrows `ob` as a float32 or float64 array whose last axis has length `k`.
    pub fn extract(ob: &Bound<'py, PyAny>, name: &str, k: usize) -> PyResult<Self> {
        let arg = if let Ok(a) = ob.extract::<PyReadonlyArrayDyn<'py, f32>>() {
            FloatArg::F32(a)
        } else if let Ok(a) = ob.extract::<PyReadonlyArrayDyn<'py, f64>>() {
            FloatArg::F64(a)
        } else {
            return Err(RaypickError::new_err(format!(
                "{name} must be a float32 or float64 numpy array"
            )));
        };
        let shape = arg.shape();
        if shape.last() != Some(&k) {
            return Err(RaypickError::new_err(format!(
                "{name} must have shape (..., {k}), got {shape:?}"
            )));
        }
        Ok(arg)
    }

    fn shape(&self) -> Vec<usize> {
        match self {
            FloatArg::F32(a) => a.shape().to_vec(),
            FloatArg::F64(a) => a.shape().to_vec(),
        }
    }

    /// A view for use without the GIL.
    pub fn view(&self) -> Floats<'_> {
        match self {
            FloatArg::F32(a) => Floats::F32(a.as_array()),
            FloatArg::F64(a) => Floats::F64(a.as_array()),
        }
    }
}

fn rows_of<T: Copy, U, const K: usize>(a: &ArrayViewD<'_, T>, f: impl Fn(T) -> U) -> Vec<[U; K]> {
    if let Some(s) = a.as_slice() {
        return s
            .chunks_exact(K)
            .map(|c| std::array::from_fn(|i| f(c[i])))
            .collect();
    }
    let last = Axis(a.ndim() - 1);
    a.lanes(last)
        .into_iter()
        .map(|l| std::array::from_fn(|i| f(l[i])))
        .collect()
}

impl Floats<'_> {
    /// The rows in logical (C) order, rounded to float32.
    pub fn rows<const K: usize>(&self) -> Vec<[f32; K]> {
        match self {
            Floats::F32(a) => rows_of(a, |x| x),
            Floats::F64(a) => rows_of(a, |x| x as f32),
        }
    }

    /// The rows in logical (C) order, in float64 (float32 data widened exactly).
    pub fn rows64<const K: usize>(&self) -> Vec<[f64; K]> {
        match self {
            Floats::F32(a) => rows_of(a, f64::from),
            Floats::F64(a) => rows_of(a, |x| x),
        }
    }
}

fn finite<const K: usize>(r: &[f32; K]) -> bool {
    r.iter().all(|x| x.is_finite())
}

/// Points, each checked finite when `strict` (the error names the first bad one); otherwise
/// a non-finite point is passed on, and the queries find nothing for it.
pub fn points(v: &Floats<'_>, what: &str, strict: bool) -> Result<Vec<Point3<f32>>, String> {
    v.rows::<3>()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if !strict || finite(&r) {
                Ok(Point3::from(r))
            } else {
                Err(format!("{what} {i} is not finite: {r:?}"))
            }
        })
        .collect()
}

/// The scalar rays are read in and `t` and points come back in: f32 (the queries' own) or
/// f64 (the scene's f64 path).
pub trait Coord:
    Copy + PartialEq + Default + std::fmt::Debug + numpy::Element + Send + Sync + 'static
{
    /// The library's ray in this precision.
    type Ray: Send + Sync;
    /// What a miss reports as `t` and as a point coordinate.
    const INFINITY: Self;
    const NAN: Self;
    /// The rows of `v` in logical (C) order, in this type.
    fn rows<const K: usize>(v: &Floats<'_>) -> Vec<[Self; K]>;
    fn is_finite(self) -> bool;
    fn ray(parts: RayParts<Self>) -> Self::Ray;
}

impl Coord for f32 {
    type Ray = Ray;
    const INFINITY: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;
    fn rows<const K: usize>(v: &Floats<'_>) -> Vec<[f32; K]> {
        v.rows()
    }
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn ray((o, d): RayParts<f32>) -> Ray {
        Ray::new(Point3::from(o), Vector3::from(d))
    }
}

impl Coord for f64 {
    type Ray = Ray64;
    const INFINITY: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
    fn rows<const K: usize>(v: &Floats<'_>) -> Vec<[f64; K]> {
        v.rows64()
    }
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn ray((o, d): RayParts<f64>) -> Ray64 {
        Ray64::new(o.into(), d.into())
    }
}

/// One ray's origin and direction.
pub type RayParts<C> = ([C; 3], [C; 3]);

/// Ray origins and directions from `(..., 6)` rows or from origins and directions of the
/// same shape, in `C`. When `strict`, each ray must have a finite origin and a finite,
/// non-zero direction (the error names the ray); otherwise such rays are passed on, and the
/// queries report them as misses.
pub fn ray_parts<C: Coord>(
    origins: &Floats<'_>,
    directions: Option<&Floats<'_>>,
    strict: bool,
) -> Result<Vec<RayParts<C>>, String> {
    let pairs: Vec<RayParts<C>> = match directions {
        None => C::rows::<6>(origins)
            .into_iter()
            .map(|r| ([r[0], r[1], r[2]], [r[3], r[4], r[5]]))
            .collect(),
        Some(d) => {
            let (o, d) = (C::rows::<3>(origins), C::rows::<3>(d));
            if o.len() != d.len() {
                return Err(format!(
                    "{} ray origins but {} directions",
                    o.len(),
                    d.len()
                ));
            }
            o.into_iter().zip(d).collect()
        }
    };
    if !strict {
        return Ok(pairs);
    }
    let finite = |v: &[C; 3]| v.iter().all(|x| x.is_finite());
    for (i, (o, d)) in pairs.iter().enumerate() {
        if !finite(o) {
            return Err(format!("ray {i}: origin {o:?} is not finite"));
        } else if !finite(d) {
            return Err(format!("ray {i}: direction {d:?} is not finite"));
        } else if d.iter().all(|&x| x == C::default()) {
            return Err(format!("ray {i}: direction is zero"));
        }
    }
    Ok(pairs)
}

/// [`ray_parts`] as the library's rays in `C`.
pub fn rays<C: Coord>(
    origins: &Floats<'_>,
    directions: Option<&Floats<'_>>,
    strict: bool,
) -> Result<Vec<C::Ray>, String> {
    Ok(ray_parts::<C>(origins, directions, strict)?
        .into_iter()
        .map(C::ray)
        .collect())
}

/// A flat vector as a 1-D numpy array (no copy).
pub fn arr1<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> Bound<'_, PyArray1<T>> {
    PyArray1::from_vec(py, v)
}

/// A flat vector of `k`-rows as an `(n, k)` numpy array (no copy).
pub fn arr2<T: numpy::Element>(py: Python<'_>, v: Vec<T>, k: usize) -> PyResult<Bound<'_, PyAny>> {
    let n = v.len() / k;
    Ok(PyArray1::from_vec(py, v).reshape([n, k])?.into_any())
}
