//! The `pick --rays` contract: rays in, one JSON object per ray out.
//!
//! Input: one ray per line, `ox oy oz dx dy dz [tmax]`, whitespace-separated; blank lines and
//! lines starting with `#` are skipped. Output, per ray in input order: `{"hit":false}` or
//! `{"hit":true,"t":T,"object":O,"triangle":K,"point":[x,y,z],"normal":[x,y,z],"uv":[u,v]}`;
//! with `--all`, `{"hits":[{"t":..,"object":..,"triangle":..,"point":..,"normal":..,"uv":..},..]}`
//! sorted by t; with `--any`, `{"hit":true|false}`.

use std::fmt::Write as _;

use raypick_primitives::{Point3, Ray, Real, Vector3};
use raypick_query::RayQuery;

use crate::world::{World, WorldHit};
use crate::CliError;

/// A ray read from the input and its `t_max` (infinity when not given).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputRay {
    pub ray: Ray,
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
    mut each: impl FnMut(&[Real], &[&str], &dyn Fn(String) -> CliError) -> Result<(), CliError>,
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
        let mut v = [0.0 as Real; 8];
        for (k, f) in fields.iter().enumerate() {
            v[k] = f
                .parse::<Real>()
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
        let t_max = v.get(6).copied().unwrap_or(Real::INFINITY);
        if t_max.is_nan() || t_max < 0.0 {
            return Err(bad(format!(
                "tmax must be a number >= 0, got {}",
                fields[6]
            )));
        }
        rays.push(InputRay {
            ray: Ray::new(
                Point3::new(v[0], v[1], v[2]),
                Vector3::new(v[3], v[4], v[5]),
            ),
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
        Mode::Closest => match world.closest_hit(&r.ray, &q) {
            None => "{\"hit\":false}".to_owned(),
            Some(h) => format!("{{\"hit\":true,{}}}", hit_fields(&h)),
        },
        Mode::Any => format!("{{\"hit\":{}}}", world.any_hit(&r.ray, &q)),
        Mode::All => {
            let mut s = String::from("{\"hits\":[");
            for (i, h) in world.all_hits(&r.ray, &q).iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                let _ = write!(s, "{{{}}}", hit_fields(h));
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
        Some(h) => format!("{{\"hit\":true,{}", hit_fields(&h)),
    };
    let p3 = |p: &Point3<Real>| format!("[{},{},{}]", num(p.x), num(p.y), num(p.z));
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

/// `"t":..,"object":..,"triangle":..,"point":[..],"normal":[..],"uv":[..]`. Floats use
/// Rust's shortest round-trip form, so parsing them back gives the same f32.
pub fn hit_fields(h: &WorldHit) -> String {
    let n = h.normal.into_inner();
    format!(
        "\"t\":{},\"object\":{},\"triangle\":{},\"point\":[{},{},{}],\"normal\":[{},{},{}],\"uv\":[{},{}]",
        num(h.t),
        h.object,
        h.triangle,
        num(h.point.x),
        num(h.point.y),
        num(h.point.z),
        num(n.x),
        num(n.y),
        num(n.z),
        num(h.u),
        num(h.v)
    )
}

/// A JSON number; hits are finite, but never print NaN or inf as JSON.
fn num(v: Real) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_owned()
    }
}
