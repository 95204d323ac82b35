//! The `pick --rays` contract: rays in, one JSON object per ray out.
//!
//! Input: one ray per line, `ox oy oz dx dy dz [tmax]`, whitespace-separated; blank lines and
//! lines starting with `#` are skipped. Output, per ray in input order: `{"hit":false}` or
//! `{"hit":true,"t":T,"object":O,"triangle":K,"point":[x,y,z],"normal":[x,y,z],"uv":[u,v]}`;
//! with `--all`, `{"hits":[{"t":..,"object":..,"triangle":..,"point":..,"normal":..,"uv":..},..]}`
//! sorted by t; with `--any`, `{"hit":true|false}`.
//!
//! Rays are read as f64 and cast on the scene's f64 path (`Scene::closest_hit_f64`): each
//! instance gets the ray in its own frame before anything is rounded to f32, so rays far from
//! the origin (map or survey coordinates) are exact. `t` and points are printed in f64,
//! normals and barycentrics in f32, each in its shortest round-trip form.

use std::fmt::Write as _;

use nalgebra::{Point3 as P64, Vector3 as V64};
use raypick_primitives::{Point3, Ray64, Real};
use raypick_query::RayQuery;

use crate::world::{World, WorldHit};
use crate::CliError;

/// A ray read from the input and its `t_max` (infinity when not given).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputRay {
    pub ray: Ray64,
    pub t_max: Real,
}

/// The input rules shared by `pick --rays` and `distance --points`: calls `each` with the
/// numbers of every line that is neither blank nor a `#` comment, their text, and a function
/// that makes an error naming the line. A line whose field count is not in `counts`, or with a
/// field that is not a number, is an error; `usage` says what a line holds.
pub fn each_number_line(
    text: &str,
    source: &str,
    counts: &[usize],
    usage: &str,
    mut each: impl FnMut(&[f64], &[&str], &dyn Fn(String) -> CliError) -> Result<(), CliError>,
) -> Result<(), CliError> {
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| CliError::BadInput(format!("{source}, line {}: {why}", n + 1));
        let fields: Vec<&str> = line.split_whitespace().collect();
        if !counts.contains(&fields.len()) {
            return Err(bad(format!(
                "expected {usage}, found {} fields",
                fields.len()
            )));
        }
        let mut v = [0.0f64; 8];
        for (k, f) in fields.iter().enumerate() {
            v[k] = f
                .parse::<f64>()
                .map_err(|_| bad(format!("{f:?} is not a number")))?;
        }
        each(&v[..fields.len()], &fields, &bad)?;
    }
    Ok(())
}

/// Parses the whole input first, so a malformed line leaves stdout empty.
///
/// Coordinates must be finite numbers; `tmax` may be `inf` but not NaN or negative.
pub fn parse_rays(text: &str, source: &str) -> Result<Vec<InputRay>, CliError> {
    let mut rays = Vec::new();
    let usage = "6 or 7 numbers (ox oy oz dx dy dz [tmax])";
    each_number_line(text, source, &[6, 7], usage, |v, fields, bad| {
        if let Some(k) = v[..6].iter().position(|c| !c.is_finite()) {
            return Err(bad(format!(
                "{} must be finite",
                ["ox", "oy", "oz", "dx", "dy", "dz"][k]
            )));
        }
        let t_max = v.get(6).map_or(Real::INFINITY, |&t| t as Real);
        if t_max.is_nan() || t_max < 0.0 {
            return Err(bad(format!(
                "tmax must be a number >= 0, got {}",
                fields[6]
            )));
        }
        rays.push(InputRay {
            ray: Ray64::new(P64::new(v[0], v[1], v[2]), V64::new(v[3], v[4], v[5])),
            t_max,
        });
        Ok(())
    })?;
    Ok(rays)
}

/// What each output line answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Closest,
    Any,
    All,
}

/// The JSON line for one ray (no trailing newline).
pub fn answer(world: &World, r: &InputRay, mode: Mode, base: &RayQuery) -> String {
    let q = RayQuery {
        t_max: r.t_max,
        ..*base
    };
    match mode {
        Mode::Closest => match world.closest_hit_f64(&r.ray, &q) {
            None => "{\"hit\":false}".to_owned(),
            Some((h, p)) => format!("{{\"hit\":true,{}}}", hit_fields(&h, &p64(&p))),
        },
        Mode::Any => format!("{{\"hit\":{}}}", world.any_hit_f64(&r.ray, &q)),
        Mode::All => {
            let mut s = String::from("{\"hits\":[");
            for (i, (h, p)) in world.all_hits_f64(&r.ray, &q).iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{{{}}}", hit_fields(h, &p64(p)));
            }
            s.push_str("]}");
            s
        }
    }
}

/// The `pick --pixel --snap` line: the hit fields as for a closest hit, then
/// `"snap_vertex":{"object":O,"vertex":V,"point":[..],"distance_px":D}` and
/// `"snap_edge":{"object":O,"vertices":[A,B],"point":[..],"distance_px":D}`, each `null`
/// when nothing lies within the radius.
pub fn snap_answer(world: &World, pick: Option<&raypick_query::scene::Pick>) -> String {
    let hit = pick.and_then(|p| p.hit).map(|h| world.world_hit(h));
    let mut s = match hit {
        None => String::from("{\"hit\":false"),
        Some(h) => format!("{{\"hit\":true,{}", hit_fields(&h, &p32(&h.point))),
    };
    let p3 = p32;
    match pick.and_then(|p| p.vertex) {
        None => s.push_str(",\"snap_vertex\":null"),
        Some(v) => {
            let _ = write!(
                s,
                ",\"snap_vertex\":{{\"object\":{},\"vertex\":{},\"point\":{},\"distance_px\":{}}}",
                world.object_of(v.instance),
                v.vertex,
                p3(&v.point),
                num(v.distance_px)
            );
        }
    }
    match pick.and_then(|p| p.edge) {
        None => s.push_str(",\"snap_edge\":null"),
        Some(e) => {
            let _ = write!(
                s,
                ",\"snap_edge\":{{\"object\":{},\"vertices\":[{},{}],\"point\":{},\"distance_px\":{}}}",
                world.object_of(e.instance),
                e.vertices[0],
                e.vertices[1],
                p3(&e.point),
                num(e.distance_px)
            );
        }
    }
    s.push('}');
    s
}

/// The `pick --pixel` line for a picked point or segment:
/// `{"hit":true,"kind":"point","set":S,"index":I,"point":[..],"distance_px":D}`, a segment
/// adding `"u":U`, the parameter along it from its first end.
pub fn prim_answer(set: usize, p: &raypick_query::points::PrimPick) -> String {
    use raypick_query::points::PickKind;
    let kind = match p.kind {
        PickKind::Point => "point",
        PickKind::Segment => "segment",
    };
    let mut s = format!(
        "{{\"hit\":true,\"kind\":\"{kind}\",\"set\":{set},\"index\":{},\"point\":{},\"distance_px\":{}",
        p.index,
        p64(&p.point),
        num64(p.pixel_distance)
    );
    if p.kind == PickKind::Segment {
        let _ = write!(s, ",\"u\":{}", num64(p.u));
    }
    s.push('}');
    s
}

/// `"t":..,"object":..,"triangle":..,"point":POINT,"normal":[..],"uv":[..]`. Floats use
/// Rust's shortest round-trip form, so parsing them back gives the same number: `t` in f64
/// (the f32 `t` of the instance's frame, exactly), the point as given, the rest in f32.
pub fn hit_fields(h: &WorldHit, point: &str) -> String {
    let n = h.normal.into_inner();
    format!(
        "\"t\":{},\"object\":{},\"triangle\":{},\"point\":{point},\"normal\":[{},{},{}],\"uv\":[{},{}]",
        num64(f64::from(h.t)),
        h.object,
        h.triangle,
        num(n.x),
        num(n.y),
        num(n.z),
        num(h.u),
        num(h.v)
    )
}

/// A JSON number; hits are finite, but never print NaN or inf as JSON.
pub fn num(v: Real) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_owned()
    }
}

/// [`num`] for an f64.
pub fn num64(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_owned()
    }
}

/// An f32 point as a JSON array.
fn p32(p: &Point3<Real>) -> String {
    format!("[{},{},{}]", num(p.x), num(p.y), num(p.z))
}

/// An f64 point as a JSON array.
fn p64(p: &P64<f64>) -> String {
    format!("[{},{},{}]", num64(p.x), num64(p.y), num64(p.z))
}
