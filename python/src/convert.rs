//! numpy arrays in: float32 or float64, any memory order, shape `(..., K)`, read in place.
//!
//! float64 values are rounded to the nearest float32 as they are read (the queries run in
//! float32); a value beyond float32's range becomes infinite and is then reported as not
//! finite. Outputs are built in Rust vectors and handed to numpy without a copy.

use std::ops::Range;

use numpy::ndarray::{ArrayView2, ArrayViewD, CowArray, Ix2, IxDyn};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use raypick::primitives::{Point3, Ray, Ray64, Vector3};
use raypick::query::image_rows::row_width;

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

/// The rows of `a` (whose last axis has length `K`) in logical (C) order, read as the ray
/// input reads them ([`Store`]).
fn rows_of<T: Copy, U, const K: usize>(a: &ArrayViewD<'_, T>, f: impl Fn(T) -> U) -> Vec<[U; K]> {
    match Store::of(a).rows(K) {
        Rows::Flat(s, _) => s
            .chunks_exact(K)
            .map(|c| std::array::from_fn(|i| f(c[i])))
            .collect(),
        Rows::View(v) => v
            .rows()
            .into_iter()
            .map(|r| std::array::from_fn(|i| f(r[i])))
            .collect(),
    }
}

impl Floats<'_> {
    /// The rows in logical (C) order, rounded to float32.
    pub fn rows<const K: usize>(&self) -> Vec<[f32; K]> {
        match self {
            Floats::F32(a) => rows_of(a, |x| x),
            Floats::F64(a) => rows_of(a, |x| x as f32),
        }
    }
}

impl Floats<'_> {
    /// The rows in logical (C) order, in f64 (float32 widened exactly).
    pub fn rows64<const K: usize>(&self) -> Vec<[f64; K]> {
        match self {
            Floats::F32(a) => rows_of(a, f64::from),
            Floats::F64(a) => rows_of(a, |x| x),
        }
    }
}

/// [`points`] in f64, for the scene's f64 path.
pub fn points64(v: &Floats<'_>, what: &str, strict: bool) -> Result<Vec<Point3<f64>>, String> {
    v.rows64::<3>()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if !strict || r.iter().all(|x| x.is_finite()) {
                Ok(Point3::from(r))
            } else {
                Err(format!("{what} {i} is not finite: {r:?}"))
            }
        })
        .collect()
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
    type Ray: Send + Sync + Copy;
    /// What a miss reports as `t` and as a point coordinate.
    const INFINITY: Self;
    const NAN: Self;
    fn is_finite(self) -> bool;
    fn ray(parts: RayParts<Self>) -> Self::Ray;
    /// A float32 input value (widened exactly to f64).
    fn from_f32(x: f32) -> Self;
    /// A float64 input value (rounded to the nearest f32 for f32).
    fn from_f64(x: f64) -> Self;
}

impl Coord for f32 {
    type Ray = Ray;
    const INFINITY: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    fn ray((o, d): RayParts<f32>) -> Ray {
        Ray::new(Point3::from(o), Vector3::from(d))
    }
    fn from_f32(x: f32) -> f32 {
        x
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Coord for f64 {
    type Ray = Ray64;
    const INFINITY: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    fn ray((o, d): RayParts<f64>) -> Ray64 {
        Ray64::new(o.into(), d.into())
    }
    fn from_f32(x: f32) -> f64 {
        f64::from(x)
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// A numpy float array as the readers keep it: borrowed when C-contiguous or 2-D (any
/// strides, as `rays[:, :3]` makes), copied once into C order otherwise.
enum Store<'a, T> {
    C(CowArray<'a, T, IxDyn>),
    Strided(ArrayView2<'a, T>),
}

impl<'a, T: Copy> Store<'a, T> {
    fn of(a: &ArrayViewD<'a, T>) -> Self {
        if a.is_standard_layout() {
            Store::C(CowArray::from(a.clone()))
        } else if let Ok(v) = a.clone().into_dimensionality::<Ix2>() {
            Store::Strided(v)
        } else {
            Store::C(CowArray::from(a.as_standard_layout().into_owned()))
        }
    }

    /// Rows of `k` floats (the array's last axis).
    fn rows(&self, k: usize) -> Rows<'_, T> {
        match self {
            Store::C(a) => Rows::Flat(a.as_slice().unwrap_or(&[]), k),
            Store::Strided(v) => Rows::View(v.view()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Store::C(a) => a.len(),
            Store::Strided(v) => v.len(),
        }
    }
}

/// A [`Store`] read as rows.
enum Rows<'s, T> {
    /// A C-order slice of rows of the given length.
    Flat(&'s [T], usize),
    View(ArrayView2<'s, T>),
}

impl<T: Copy> Rows<'_, T> {
    /// Element `j` of row `i`.
    #[inline(always)]
    fn get(&self, i: usize, j: usize) -> T {
        match self {
            Rows::Flat(s, k) => s[i * k + j],
            Rows::View(v) => v[[i, j]],
        }
    }
}

/// A [`Store`] of either input float type.
enum Stored<'a> {
    F32(Store<'a, f32>),
    F64(Store<'a, f64>),
}

impl<'a> Stored<'a> {
    fn of(v: &Floats<'a>) -> Self {
        match v {
            Floats::F32(a) => Stored::F32(Store::of(a)),
            Floats::F64(a) => Stored::F64(Store::of(a)),
        }
    }

    fn len(&self) -> usize {
        match self {
            Stored::F32(a) => a.len(),
            Stored::F64(a) => a.len(),
        }
    }
}

/// A float read from numpy, turned into the queries' precision.
trait Scalar: Copy {
    fn to<C: Coord>(self) -> C;
}

impl Scalar for f32 {
    fn to<C: Coord>(self) -> C {
        C::from_f32(self)
    }
}

impl Scalar for f64 {
    fn to<C: Coord>(self) -> C {
        C::from_f64(self)
    }
}

/// A batch of rays read in place from numpy: `(..., 6)` rows, or origins and directions of
/// the same shape. Each parallel task turns its own range into the library's rays
/// ([`RayInput::fill`]), so no array of the whole batch's rays is ever built; arrays that
/// are not C-contiguous are copied once into C order first.
pub struct RayInput<'a> {
    origins: Stored<'a>,
    /// `None`: the directions are the last three of each row of `origins`.
    directions: Option<Stored<'a>>,
    len: usize,
    /// The length of the second-to-last axis of arrays of three or more axes (an image's
    /// width for `(H, W, 6)` rays), or the row width of a flat batch that is an image's rows
    /// ([`row_width`]): the queries may cast its rays in tiles.
    width: Option<usize>,
}

impl<'a> RayInput<'a> {
    /// Errors when origins and directions hold different numbers of rays.
    pub fn new(origins: &Floats<'a>, directions: Option<&Floats<'a>>) -> Result<Self, String> {
        let shape = match origins {
            Floats::F32(a) => a.shape(),
            Floats::F64(a) => a.shape(),
        };
        let shaped = (shape.len() >= 3).then(|| shape[shape.len() - 2]);
        let origins = Stored::of(origins);
        let directions = directions.map(Stored::of);
        let len = match &directions {
            None => origins.len() / 6,
            Some(d) => {
                let (no, nd) = (origins.len() / 3, d.len() / 3);
                if no != nd {
                    return Err(format!("{no} ray origins but {nd} directions"));
                }
                no
            }
        };
        let mut input = Self {
            origins,
            directions,
            len,
            width: shaped,
        };
        // A flat batch that is an image's rays row after row is cast in tiles too.
        if input.width.is_none() {
            input.width = row_width(len, |i| input.parts(i));
        }
        Ok(input)
    }

    /// Floats per row, and the direction's offset in its row.
    fn layout(&self) -> (usize, usize) {
        match self.directions {
            None => (6, 3),
            Some(_) => (3, 0),
        }
    }

    /// Ray `i`'s origin and direction in f64, as stored.
    fn parts(&self, i: usize) -> Option<([f64; 3], [f64; 3])> {
        if i >= self.len {
            return None;
        }
        let (k, off) = self.layout();
        fn row(s: &Stored<'_>, k: usize, i: usize, off: usize) -> [f64; 3] {
            match s {
                Stored::F32(a) => {
                    let r = a.rows(k);
                    std::array::from_fn(|j| f64::from(r.get(i, off + j)))
                }
                Stored::F64(a) => {
                    let r = a.rows(k);
                    std::array::from_fn(|j| r.get(i, off + j))
                }
            }
        }
        let d = self.directions.as_ref().unwrap_or(&self.origins);
        Some((row(&self.origins, k, i, 0), row(d, k, i, off)))
    }

    /// The number of rays.
    pub fn len(&self) -> usize {
        self.len
    }

    /// For rays given as an image (three or more axes, such as `(H, W, 6)` or origins and
    /// directions of `(H, W, 3)`), the image's width `W`: consecutive runs of `W` rays are
    /// its rows. A flat batch gets the width [`row_width`] finds in its rays (an image's
    /// pixels row after row), else `None`.
    pub fn image_width(&self) -> Option<usize> {
        self.width
    }

    /// Replaces `out` with the rays `range` in `C`. When `strict`, each ray must have a finite
    /// origin and a finite, non-zero direction: the first that does not is returned with its
    /// index and a message naming it (and `out` is left partial); otherwise such rays are
    /// passed on, and the queries report them as misses.
    pub fn fill<C: Coord>(
        &self,
        range: Range<usize>,
        strict: bool,
        out: &mut Vec<C::Ray>,
    ) -> Result<(), (usize, String)> {
        out.clear();
        let (k, off) = self.layout();
        let d = self.directions.as_ref().unwrap_or(&self.origins);
        match (&self.origins, d) {
            (Stored::F32(o), Stored::F32(d)) => {
                fill_from::<C, _, _>(o.rows(k), d.rows(k), off, range, strict, out)
            }
            (Stored::F64(o), Stored::F64(d)) => {
                fill_from::<C, _, _>(o.rows(k), d.rows(k), off, range, strict, out)
            }
            (Stored::F32(o), Stored::F64(d)) => {
                fill_from::<C, _, _>(o.rows(k), d.rows(k), off, range, strict, out)
            }
            (Stored::F64(o), Stored::F32(d)) => {
                fill_from::<C, _, _>(o.rows(k), d.rows(k), off, range, strict, out)
            }
        }
    }
}

/// The loop of [`RayInput::fill`] for one pair of input float types: ray `i`'s origin is
/// the first three floats of row `i` of `o`, its direction three of row `i` of `d` from
/// `off`. C-order slices take a loop of their own (no per-element dispatch).
#[inline(always)]
fn fill_from<C: Coord, A: Scalar, B: Scalar>(
    o: Rows<'_, A>,
    d: Rows<'_, B>,
    off: usize,
    range: Range<usize>,
    strict: bool,
    out: &mut Vec<C::Ray>,
) -> Result<(), (usize, String)> {
    if let (Rows::Flat(o, ok), Rows::Flat(d, dk)) = (&o, &d) {
        let o = o.get(ok * range.start..ok * range.end).unwrap_or(&[]);
        let d = d.get(dk * range.start..dk * range.end).unwrap_or(&[]);
        let parts = |(oc, dc): (&[A], &[B])| -> RayParts<C> {
            (
                [oc[0].to(), oc[1].to(), oc[2].to()],
                [dc[off].to(), dc[off + 1].to(), dc[off + 2].to()],
            )
        };
        let rows = || o.chunks_exact(*ok).zip(d.chunks_exact(*dk));
        // The check first, in a pass of its own, so that the copy below has no early exit:
        // a push per ray behind a fallible check compiled to a loop about three times slower.
        if strict {
            if let Some((k, (org, dir))) = rows()
                .map(parts)
                .enumerate()
                .find(|(_, (org, dir))| !ray_ok(org, dir))
            {
                return Err(bad(range.start + k, &org, &dir));
            }
        }
        out.extend(rows().map(|r| C::ray(parts(r))));
    } else {
        for i in range {
            let org = [o.get(i, 0).to(), o.get(i, 1).to(), o.get(i, 2).to()];
            let dir = [
                d.get(i, off).to(),
                d.get(i, off + 1).to(),
                d.get(i, off + 2).to(),
            ];
            if strict && !ray_ok(&org, &dir) {
                return Err(bad(i, &org, &dir));
            }
            out.push(C::ray((org, dir)));
        }
    }
    Ok(())
}

/// The strict check of one ray.
#[cold]
#[inline(never)]
fn bad<C: Coord>(i: usize, o: &[C; 3], d: &[C; 3]) -> (usize, String) {
    let finite = |v: &[C; 3]| v.iter().all(|x| x.is_finite());
    let msg = if !finite(o) {
        format!("ray {i}: origin {o:?} is not finite")
    } else if !finite(d) {
        format!("ray {i}: direction {d:?} is not finite")
    } else {
        format!("ray {i}: direction is zero")
    };
    (i, msg)
}

/// Whether a ray passes the strict check: a finite origin and a finite, non-zero direction.
#[inline(always)]
fn ray_ok<C: Coord>(o: &[C; 3], d: &[C; 3]) -> bool {
    o.iter().chain(d).all(|x| x.is_finite()) && d.iter().any(|&x| x != C::default())
}

/// One ray's origin and direction.
pub type RayParts<C> = ([C; 3], [C; 3]);

/// A flat vector as a 1-D numpy array (no copy).
pub fn arr1<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> Bound<'_, PyArray1<T>> {
    PyArray1::from_vec(py, v)
}

/// A flat vector of `k`-rows as an `(n, k)` numpy array (no copy).
pub fn arr2<T: numpy::Element>(py: Python<'_>, v: Vec<T>, k: usize) -> PyResult<Bound<'_, PyAny>> {
    let n = v.len() / k;
    Ok(PyArray1::from_vec(py, v).reshape([n, k])?.into_any())
}
