//! The batch queries shared by `Mesh` and `Scene`: rays and points in, columns out.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use raypick::primitives::{Cull, Point3};
use raypick::query::image_rows::{tile_order, TILE};

use crate::convert::{arr1, arr2, points, Coord, FloatArg, RayInput};
use crate::pool;
use crate::RaypickError;

/// The id reported for "no instance" or "no triangle" (open3d's invalid id).
pub const INVALID: u32 = u32::MAX;

/// One ray hit, whatever it hit, with `t` and the point in the rays' precision `C`.
#[derive(Clone, Copy, Debug)]
pub struct Rec<C> {
    pub t: C,
    pub instance: u32,
    pub triangle: u32,
    pub uv: [f32; 2],
    pub point: [C; 3],
    pub normal: [f32; 3],
    pub front_face: bool,
}

/// One nearest point.
#[derive(Clone, Copy, Debug)]
pub struct Near<C = f32> {
    pub instance: u32,
    pub triangle: u32,
    pub uv: [f32; 2],
    pub point: [C; 3],
    pub distance: C,
}

/// The interval, culling and mask of a query, as given from Python.
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    pub t_min: f32,
    pub t_max: f32,
    pub cull: Cull,
    pub mask: u32,
    /// Raise on a non-finite or zero-direction ray (true) or report it as a miss (false).
    pub strict: bool,
}

/// The options of a ray batch as the package's `_Queries._kw` passes them: one dict, so
/// that the Python signatures (with their defaults and docs) are written once, in Python.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct RayArgs {
    pub t_min: f32,
    pub t_max: f32,
    pub cull: String,
    pub mask: u32,
    pub strict: bool,
    pub threads: Option<usize>,
}

impl RayArgs {
    fn opts(&self) -> PyResult<Opts> {
        Opts::new(self.t_min, self.t_max, &self.cull, self.mask, self.strict)
    }
}

impl Opts {
    pub fn new(t_min: f32, t_max: f32, cull: &str, mask: u32, strict: bool) -> PyResult<Self> {
        let cull = match cull {
            "none" => Cull::None,
            "back" => Cull::Back,
            "front" => Cull::Front,
            other => {
                return Err(RaypickError::new_err(format!(
                    "cull must be 'none', 'back' or 'front', got {other:?}"
                )))
            }
        };
        Ok(Self {
            t_min,
            t_max,
            cull,
            mask,
            strict,
        })
    }
}

/// A mesh or a scene, queried in batches of rays in precision `C` on the current rayon
/// pool: a `Mesh` and a `Scene` with f32 rays, a `Scene` with f64 rays too.
pub trait Target<C: Coord>: Sync {
    /// The library's hit type, turned into a [`Rec`] as the columns are filled.
    type Hit: Send + Sync + Clone;
    /// The closest hits of `rays` into `out` (of the same length).
    fn closest_into(
        &self,
        rays: &[C::Ray],
        o: &Opts,
        out: &mut [Option<Self::Hit>],
    ) -> Result<(), String>;
    /// [`Target::closest_into`] for rays that come as 4 x 4 tiles of an image, 16 after 16
    /// (the tail of the batch in any order): the same answers, cast as packets where the
    /// target has them.
    fn closest_tiles_into(
        &self,
        rays: &[C::Ray],
        o: &Opts,
        out: &mut [Option<Self::Hit>],
    ) -> Result<(), String> {
        self.closest_into(rays, o, out)
    }
    fn rec(h: &Self::Hit) -> Rec<C>;
    /// Whether each of `rays` hits anything, into `out` (of the same length).
    fn any_into(&self, rays: &[C::Ray], o: &Opts, out: &mut [bool]) -> Result<(), String>;
    /// [`Target::any_into`] for rays that come as 4 x 4 tiles (see
    /// [`Target::closest_tiles_into`]).
    fn any_tiles_into(&self, rays: &[C::Ray], o: &Opts, out: &mut [bool]) -> Result<(), String> {
        self.any_into(rays, o, out)
    }
    /// Every crossing of `ray`, sorted, into `out` (cleared first; the caller keeps it from
    /// ray to ray, so the query allocates nothing once it has grown).
    fn all_into(&self, ray: &C::Ray, o: &Opts, out: &mut Vec<Self::Hit>);
}

/// A mesh or a scene, queried for nearest points in batches.
pub trait NearestTarget: Sync {
    fn nearest(
        &self,
        points: &[Point3<f32>],
        max_distance: f32,
    ) -> Result<Vec<Option<Near>>, String>;
}

/// Rays per parallel task of a closest-hit batch: each task queries its rays into a buffer
/// of its own and writes their columns. Small enough (about 60 KB of hits) for the buffer
/// to come from the allocator's heap rather than fresh zeroed pages: one buffer of the
/// whole batch's hits cost about a third of the time of a batch on the bunny.
const FILL_CHUNK: usize = 1024;

/// The task's rays `buf` put in tile order into `tiled` ([`tile_order`], kept in `order`
/// for the answers' way back).
fn gather_tiles<R: Copy>(buf: &[R], width: usize, order: &mut Vec<u32>, tiled: &mut Vec<R>) {
    tile_order(buf.len(), width, order);
    tiled.clear();
    tiled.extend(order.iter().map(|&i| buf[i as usize]));
}

/// Rays per task of a batch, and the image width to cast them in tiles at: [`FILL_CHUNK`]
/// and `None` for a flat batch; for an image at least 4 rays wide, whole bands of 4 x 4
/// tiles (as few as come to about [`FILL_CHUNK`] rays, at least one) and its width.
fn task_rays(width: Option<usize>) -> (usize, Option<usize>) {
    match width {
        Some(w) if w >= TILE => {
            let band = TILE * w;
            ((FILL_CHUNK / band).max(1) * band, Some(w))
        }
        _ => (FILL_CHUNK, None),
    }
}

/// One task's closest hits: its rays `start..start + len` read from numpy into `buf` and
/// answered (an image's in tiles, see [`Target::closest_tiles_into`]), each hit given to
/// `put` with its ray's place in the task. `hits`, `order` and `tiled` are the task's
/// buffers, kept from chunk to chunk.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn closest_task<C: Coord, T: Target<C>>(
    target: &T,
    rays: &RayInput<'_>,
    o: &Opts,
    tiles: Option<usize>,
    (start, len): (usize, usize),
    (buf, hits, order, tiled): &mut TaskBuffers<C, T::Hit>,
    mut put: impl FnMut(usize, Option<&T::Hit>),
) -> Result<(), (usize, String)> {
    rays.fill::<C>(start..start + len, o.strict, buf)?;
    hits.clear();
    hits.resize(buf.len(), None);
    if let Some(width) = tiles {
        gather_tiles(buf, width, order, tiled);
        target
            .closest_tiles_into(tiled, o, hits)
            .map_err(|e| (start, e))?;
        for (&i, h) in order.iter().zip(hits.iter()) {
            put(i as usize, h.as_ref());
        }
    } else {
        target.closest_into(buf, o, hits).map_err(|e| (start, e))?;
        for (i, h) in hits.iter().enumerate() {
            put(i, h.as_ref());
        }
    }
    Ok(())
}

/// A closest-hit task's buffers: its rays, their hits, and an image's tile order and tiled
/// rays.
type TaskBuffers<C, H> = (
    Vec<<C as Coord>::Ray>,
    Vec<Option<H>>,
    Vec<u32>,
    Vec<<C as Coord>::Ray>,
);

/// One task's share of every column.
struct ColumnChunk<'a, C> {
    t: &'a mut [C],
    hit: &'a mut [bool],
    instance: &'a mut [u32],
    triangle: &'a mut [u32],
    uv: &'a mut [f32],
    point: &'a mut [C],
    normal: &'a mut [f32],
    front_face: &'a mut [bool],
}

impl<C: Coord> ColumnChunk<'_, C> {
    /// Writes ray `i`'s row (without `hit`, `point` and `front_face` unless `FULL`).
    /// Inlined into the caller's loop, which then keeps the columns' addresses in
    /// registers (a call per ray reloaded them: about a third of a batch's own cost on the
    /// bunny).
    #[inline(always)]
    fn set<const FULL: bool>(&mut self, i: usize, r: Option<Rec<C>>) {
        if FULL {
            self.hit[i] = r.is_some();
        }
        let r = r.unwrap_or_else(miss);
        self.t[i] = r.t;
        self.instance[i] = r.instance;
        self.triangle[i] = r.triangle;
        self.uv[2 * i..2 * i + 2].copy_from_slice(&r.uv);
        self.normal[3 * i..3 * i + 3].copy_from_slice(&r.normal);
        if FULL {
            self.point[3 * i..3 * i + 3].copy_from_slice(&r.point);
            self.front_face[i] = r.front_face;
        }
    }
}

/// The first `n` items of `s` (all of it if shorter), `s` keeping the rest.
fn split_off<'a, T>(s: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let all = std::mem::take(s);
    let (head, tail) = all.split_at_mut(n.min(all.len()));
    *s = tail;
    head
}

/// What a miss reports.
fn miss<C: Coord>() -> Rec<C> {
    Rec {
        t: C::INFINITY,
        instance: INVALID,
        triangle: INVALID,
        uv: [0.0; 2],
        point: [C::NAN; 3],
        normal: [0.0; 3],
        front_face: false,
    }
}

struct Columns<C> {
    t: Vec<C>,
    hit: Vec<bool>,
    instance: Vec<u32>,
    triangle: Vec<u32>,
    uv: Vec<f32>,
    point: Vec<C>,
    normal: Vec<f32>,
    front_face: Vec<bool>,
}

impl<C: Coord> Columns<C> {
    fn with_capacity(n: usize) -> Self {
        Self {
            t: Vec::with_capacity(n),
            hit: Vec::with_capacity(n),
            instance: Vec::with_capacity(n),
            triangle: Vec::with_capacity(n),
            uv: Vec::with_capacity(2 * n),
            point: Vec::with_capacity(3 * n),
            normal: Vec::with_capacity(3 * n),
            front_face: Vec::with_capacity(n),
        }
    }

    /// The closest hits of `rays` as columns, in parallel chunks, each read from numpy and
    /// answered into buffers its thread keeps. Rays given as an image (see
    /// [`RayInput::image_width`]) are cast in 4 x 4 tiles ([`Target::closest_tiles_into`]).
    /// Without `FULL` the `hit`, `point` and `front_face` columns stay empty (open3d's
    /// `cast_rays` has none of them: building them cost about 7 ns per ray).
    fn closest<const FULL: bool, T: Target<C>>(
        target: &T,
        rays: &RayInput<'_>,
        o: &Opts,
    ) -> Result<Self, String> {
        let n = rays.len();
        let (chunk, tiles) = task_rays(rays.image_width());
        let full = if FULL { n } else { 0 };
        let mut c = Self {
            t: vec![C::default(); n],
            hit: vec![false; full],
            instance: vec![0; n],
            triangle: vec![0; n],
            uv: vec![0.0; 2 * n],
            point: vec![C::default(); 3 * full],
            normal: vec![0.0; 3 * n],
            front_face: vec![false; full],
        };
        let mut chunks = Vec::with_capacity(n.div_ceil(chunk));
        {
            let (mut t, mut hit, mut instance, mut triangle) = (
                &mut c.t[..],
                &mut c.hit[..],
                &mut c.instance[..],
                &mut c.triangle[..],
            );
            let (mut uv, mut point, mut normal, mut front_face) = (
                &mut c.uv[..],
                &mut c.point[..],
                &mut c.normal[..],
                &mut c.front_face[..],
            );
            while !t.is_empty() {
                chunks.push(ColumnChunk {
                    t: split_off(&mut t, chunk),
                    hit: split_off(&mut hit, chunk),
                    instance: split_off(&mut instance, chunk),
                    triangle: split_off(&mut triangle, chunk),
                    uv: split_off(&mut uv, 2 * chunk),
                    point: split_off(&mut point, 3 * chunk),
                    normal: split_off(&mut normal, 3 * chunk),
                    front_face: split_off(&mut front_face, chunk),
                });
            }
        }
        first_error(chunks.into_par_iter().enumerate().map_init(
            || (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
            |bufs, (k, mut out)| {
                let at = (k * chunk, out.t.len());
                closest_task(target, rays, o, tiles, at, bufs, |i, h| {
                    out.set::<FULL>(i, h.map(T::rec));
                })
            },
        ))?;
        Ok(c)
    }

    /// Appends a hit (all-hits rows are all hits).
    fn push(&mut self, r: &Rec<C>) {
        self.t.push(r.t);
        self.hit.push(true);
        self.instance.push(r.instance);
        self.triangle.push(r.triangle);
        self.uv.extend_from_slice(&r.uv);
        self.point.extend_from_slice(&r.point);
        self.normal.extend_from_slice(&r.normal);
        self.front_face.push(r.front_face);
    }

    /// The columns as a dict of numpy arrays; without `full`, no `hit`, `point` and
    /// `front_face` (see [`Columns::closest`]).
    fn into_dict(self, py: Python<'_>, full: bool) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("t", arr1(py, self.t))?;
        d.set_item("instance", arr1(py, self.instance))?;
        d.set_item("triangle", arr1(py, self.triangle))?;
        d.set_item("uv", arr2(py, self.uv, 2)?)?;
        d.set_item("normal", arr2(py, self.normal, 3)?)?;
        if full {
            d.set_item("hit", arr1(py, self.hit))?;
            d.set_item("point", arr2(py, self.point, 3)?)?;
            d.set_item("front_face", arr1(py, self.front_face))?;
        }
        Ok(d)
    }
}

pub(crate) fn ray_args<'py>(
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
) -> PyResult<(FloatArg<'py>, Option<FloatArg<'py>>)> {
    Ok(match directions {
        None => (FloatArg::extract(origins, "rays", 6)?, None),
        Some(d) => (
            FloatArg::extract(origins, "origins", 3)?,
            Some(FloatArg::extract(d, "directions", 3)?),
        ),
    })
}

/// Runs `f` on the rays read in place from numpy, without the GIL, on `args.threads`.
fn on_rays<R: Send>(
    py: Python<'_>,
    origins: &Bound<'_, PyAny>,
    directions: Option<&Bound<'_, PyAny>>,
    args: &RayArgs,
    f: impl FnOnce(&RayInput<'_>, &Opts) -> Result<R, String> + Send,
) -> PyResult<R> {
    let o = args.opts()?;
    let (oa, da) = ray_args(origins, directions)?;
    let (ov, dv) = (oa.view(), da.as_ref().map(|d| d.view()));
    pool::run(py, args.threads, || {
        f(&RayInput::new(&ov, dv.as_ref())?, &o)
    })
}

/// The tasks' results in order, or the error of the lowest ray index among them (so that a
/// batch names the first bad ray whatever the order its tasks ran in).
fn first_error<T: Send>(
    results: impl IndexedParallelIterator<Item = Result<T, (usize, String)>>,
) -> Result<Vec<T>, String> {
    let parts: Vec<_> = results.collect();
    if let Some((_, e)) = parts
        .iter()
        .filter_map(|p| p.as_ref().err())
        .min_by_key(|e| e.0)
    {
        return Err(e.clone());
    }
    Ok(parts.into_iter().filter_map(Result::ok).collect())
}

/// The ray query `kind` ("closest", "any", "all"; "cast": the closest hits without their
/// `hit`, `point` and `front_face` columns, for the open3d drop-in; or "first": the closest
/// hit's triangle alone, see [`first_triangles`]) of `target`.
pub fn ray_query<'py, C: Coord, T: Target<C>>(
    py: Python<'py>,
    kind: &str,
    target: &T,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    args: &RayArgs,
) -> PyResult<Bound<'py, PyAny>> {
    match kind {
        "closest" => {
            Ok(closest_hit::<true, C, T>(py, target, origins, directions, args)?.into_any())
        }
        "cast" => Ok(closest_hit::<false, C, T>(py, target, origins, directions, args)?.into_any()),
        "any" => any_hit::<C, T>(py, target, origins, directions, args),
        "first" => {
            let ids = on_rays(py, origins, directions, args, |rays, o| {
                first_triangles(target, rays, o)
            })?;
            Ok(arr1(py, ids).into_any())
        }
        "all" => Ok(all_hits::<C, T>(py, target, origins, directions, args)?.into_any()),
        other => Err(RaypickError::new_err(format!(
            "unknown ray query {other:?}"
        ))),
    }
}

/// Closest hits: a dict of columns, one row per ray (`t` and `point` in `C`); without
/// `FULL` ("cast"), the columns of open3d's `cast_rays` alone (no `hit`, `point` and
/// `front_face`).
fn closest_hit<'py, const FULL: bool, C: Coord, T: Target<C>>(
    py: Python<'py>,
    target: &T,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    args: &RayArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let cols = on_rays(py, origins, directions, args, |rays, o| {
        Columns::<C>::closest::<FULL, T>(target, rays, o)
    })?;
    cols.into_dict(py, FULL)
}

/// The triangle of each ray's closest hit as int64, -1 for a miss (trimesh's
/// `intersects_first`): the closest-hit query without its other columns, which that
/// drop-in would build and then drop.
fn first_triangles<C: Coord, T: Target<C>>(
    target: &T,
    rays: &RayInput<'_>,
    o: &Opts,
) -> Result<Vec<i64>, String> {
    let mut out = vec![-1i64; rays.len()];
    let (chunk, tiles) = task_rays(rays.image_width());
    first_error(out.par_chunks_mut(chunk).enumerate().map_init(
        || (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
        |bufs, (k, out)| {
            let at = (k * chunk, out.len());
            closest_task(target, rays, o, tiles, at, bufs, |i, h| {
                out[i] = h.map_or(-1, |h| i64::from(T::rec(h).triangle));
            })
        },
    ))?;
    Ok(out)
}

/// Any hit: a bool per ray.
fn any_hit<'py, C: Coord, T: Target<C>>(
    py: Python<'py>,
    target: &T,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    args: &RayArgs,
) -> PyResult<Bound<'py, PyAny>> {
    let hits = on_rays(py, origins, directions, args, |rays, o| {
        let mut out = vec![false; rays.len()];
        let (chunk, tiles) = task_rays(rays.image_width());
        first_error(out.par_chunks_mut(chunk).enumerate().map_init(
            || (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
            |(buf, order, tiled, found), (k, out)| {
                let start = k * chunk;
                rays.fill::<C>(start..start + out.len(), o.strict, buf)?;
                let Some(width) = tiles else {
                    return target.any_into(buf, o, out).map_err(|e| (start, e));
                };
                gather_tiles(buf, width, order, tiled);
                found.clear();
                found.resize(buf.len(), false);
                target
                    .any_tiles_into(tiled, o, found)
                    .map_err(|e| (start, e))?;
                for (&i, &f) in order.iter().zip(found.iter()) {
                    out[i as usize] = f;
                }
                Ok(())
            },
        ))?;
        Ok(out)
    })?;
    Ok(arr1(py, hits).into_any())
}

/// Rays per parallel task of [`all_hits`].
const ALL_CHUNK: usize = 256;

/// Every crossing of every ray: flat columns sorted by ray, then by `t`, plus `ray`, the
/// ray index of each hit.
fn all_hits<'py, C: Coord, T: Target<C>>(
    py: Python<'py>,
    target: &T,
    origins: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    args: &RayArgs,
) -> PyResult<Bound<'py, PyDict>> {
    let (cols, ray_index) = on_rays(py, origins, directions, args, |rays, o| {
        let chunks = first_error(
            (0..rays.len().div_ceil(ALL_CHUNK))
                .into_par_iter()
                .map_init(
                    || (Vec::new(), Vec::new()),
                    |(buf, one), c| {
                        let start = c * ALL_CHUNK;
                        let end = (start + ALL_CHUNK).min(rays.len());
                        rays.fill::<C>(start..end, o.strict, buf)?;
                        let (mut recs, mut idx) = (Vec::new(), Vec::new());
                        for (i, ray) in buf.iter().enumerate() {
                            target.all_into(ray, o, one);
                            recs.extend(one.iter().map(T::rec));
                            idx.resize(recs.len(), (start + i) as u64);
                        }
                        Ok((recs, idx))
                    },
                ),
        )?;
        let n = chunks.iter().map(|c| c.0.len()).sum();
        let mut cols = Columns::with_capacity(n);
        let mut ray_index = Vec::with_capacity(n);
        for (recs, idx) in chunks {
            for r in &recs {
                cols.push(r);
            }
            ray_index.extend_from_slice(&idx);
        }
        Ok((cols, ray_index))
    })?;
    let d = cols.into_dict(py, true)?;
    d.set_item("ray", arr1(py, ray_index))?;
    Ok(d)
}

/// Nearest points: one row per query point.
pub fn nearest_point<'py, T: NearestTarget>(
    py: Python<'py>,
    target: &T,
    pts: &Bound<'py, PyAny>,
    max_distance: f32,
    strict: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let pa = FloatArg::extract(pts, "points", 3)?;
    let pv = pa.view();
    let found = pool::run(py, threads, || {
        let p = points(&pv, "point", strict)?;
        target.nearest(&p, max_distance)
    })?;
    nearest_columns(py, found)
}

/// Nearest points as columns (NaN points, infinite distances and invalid ids where nothing
/// was found).
pub fn nearest_columns<C: Coord>(
    py: Python<'_>,
    found: Vec<Option<Near<C>>>,
) -> PyResult<Bound<'_, PyDict>> {
    let n = found.len();
    let (mut point, mut distance, mut instance, mut triangle, mut uv, mut hit) = (
        Vec::with_capacity(3 * n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(2 * n),
        Vec::with_capacity(n),
    );
    for f in found {
        match f {
            Some(f) => {
                point.extend_from_slice(&f.point);
                distance.push(f.distance);
                instance.push(f.instance);
                triangle.push(f.triangle);
                uv.extend_from_slice(&f.uv);
                hit.push(true);
            }
            None => {
                point.extend_from_slice(&[C::NAN; 3]);
                distance.push(C::INFINITY);
                instance.push(INVALID);
                triangle.push(INVALID);
                uv.extend_from_slice(&[0.0; 2]);
                hit.push(false);
            }
        }
    }
    let d = PyDict::new(py);
    d.set_item("point", arr2(py, point, 3)?)?;
    d.set_item("distance", arr1(py, distance))?;
    d.set_item("instance", arr1(py, instance))?;
    d.set_item("triangle", arr1(py, triangle))?;
    d.set_item("uv", arr2(py, uv, 2)?)?;
    d.set_item("found", arr1(py, hit))?;
    Ok(d)
}
