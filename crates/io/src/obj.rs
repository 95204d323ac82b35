//! Wavefront OBJ through `tobj`: one mesh and one instance per object or group.

use nalgebra::Matrix4;
use raypick_primitives::Point3;

use crate::error::{Error, ErrorKind};
use crate::loaded::{recentre, LoadedInstance, LoadedMesh, SceneData};
use crate::{guard, Format};

/// Reads OBJ text. Polygons are fan-triangulated in order (`a b c d` gives `a b c`, `a c d`);
/// `p` elements become one point cloud and `l` elements one set of segments (see
/// `obj_elements`); materials are not loaded (`mtllib` is skipped). Objects and
/// groups without faces give no mesh.
/// Unnamed objects are named after `stem` (the file name without extension).
pub(crate) fn read(bytes: &[u8], file: &str, stem: &str) -> Result<SceneData, Error> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    check_face_attributes(bytes, file)?;
    let mut reader = bytes;
    let result = guard(file, || {
        tobj::load_obj_buf(&mut reader, &options, |_| {
            // Materials do not matter for picking; never open files named by the OBJ.
            Err(tobj::LoadError::OpenFileFailed)
        })
    })?;
    let models = match result {
        Ok((models, _materials)) => models,
        Err(e) => return Err(locate(bytes, file, e)),
    };

    let (points, lines) = crate::obj_elements::read(bytes, file, stem)?;
    let mut scene = SceneData {
        format: Format::Obj,
        meshes: Vec::new(),
        instances: Vec::new(),
        points,
        lines,
    };
    for (k, model) in models.into_iter().enumerate() {
        let m = model.mesh;
        if m.indices.len() < 3 {
            continue;
        }
        let name = if model.name.is_empty() || model.name == "unnamed_object" {
            if k == 0 {
                stem.to_owned()
            } else {
                format!("{stem} {k}")
            }
        } else {
            model.name
        };
        // Read in f64 (tobj's `use_f64`), re-centred when far from the origin.
        let wide: Vec<Point3<f64>> = m
            .positions
            .chunks_exact(3)
            .map(|c| Point3::new(c[0], c[1], c[2]))
            .collect();
        let (positions, offset) = recentre(&wide);
        let triangles: Vec<[u32; 3]> = m
            .indices
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        let mesh = LoadedMesh {
            name: name.clone(),
            positions,
            triangles,
            offset,
        };
        if let Err(mut e) = mesh.check(file) {
            if matches!(e.kind, ErrorKind::NonFinite { .. }) {
                e.line = first_line(bytes, |toks| {
                    toks.first() == Some(&"v")
                        && toks[1..]
                            .iter()
                            .take(3)
                            .any(|t| t.parse::<f32>().is_ok_and(|f| !f.is_finite()))
                });
            }
            return Err(e);
        }
        scene.instances.push(LoadedInstance::new(
            name,
            scene.meshes.len(),
            Matrix4::new_translation(&offset),
        ));
        scene.meshes.push(mesh);
    }
    Ok(scene)
}

/// Turns a `tobj` error (which carries no position) into an [`Error`], finding the line it
/// is about by a light rescan of the text.
fn locate(bytes: &[u8], file: &str, e: tobj::LoadError) -> Error {
    use tobj::LoadError as L;
    let total_v = lines(bytes)
        .filter(|toks| toks.first() == Some(&"v"))
        .count();
    let (line, kind) = match e {
        L::FaceVertexOutOfBounds | L::InvalidPolygon | L::FaceParseError => {
            let mut seen_v = 0usize;
            let mut found = None;
            for (n, toks) in lines(bytes).enumerate() {
                match toks.first() {
                    Some(&"v") => seen_v += 1,
                    Some(&"f") => {
                        for t in &toks[1..] {
                            let first = t.split('/').next().unwrap_or("");
                            match first.parse::<i64>() {
                                Ok(i) if i > 0 && (i as usize) <= total_v => {}
                                Ok(i) if i < 0 && i.unsigned_abs() as usize <= seen_v => {}
                                Ok(i) => {
                                    found = Some((
                                        n + 1,
                                        ErrorKind::IndexOutOfRange {
                                            context: "a face".to_owned(),
                                            index: i,
                                            vertex_count: total_v,
                                        },
                                    ));
                                }
                                Err(_) => {
                                    found = Some((
                                        n + 1,
                                        ErrorKind::Syntax(format!("bad face vertex {t:?}")),
                                    ));
                                }
                            }
                            if found.is_some() {
                                break;
                            }
                        }
                    }
                    _ => {}
                }
                if found.is_some() {
                    break;
                }
            }
            match found {
                Some((line, kind)) => (Some(line), kind),
                None => (None, kind_of(e)),
            }
        }
        L::PositionParseError => (
            first_line(bytes, |toks| {
                toks.first() == Some(&"v")
                    && (toks.len() < 4 || toks[1..4].iter().any(|t| t.parse::<f32>().is_err()))
            }),
            kind_of(e),
        ),
        L::NormalParseError => (first_bad(bytes, "vn", 3), kind_of(e)),
        L::TexcoordParseError => (first_bad(bytes, "vt", 1), kind_of(e)),
        _ => (None, kind_of(e)),
    };
    Error {
        file: file.to_owned(),
        line,
        kind,
    }
}

fn kind_of(e: tobj::LoadError) -> ErrorKind {
    ErrorKind::Syntax(format!("OBJ {e}"))
}

fn first_bad(bytes: &[u8], tag: &str, need: usize) -> Option<usize> {
    first_line(bytes, |toks| {
        toks.first() == Some(&tag)
            && (toks.len() < need + 1 || toks[1..=need].iter().any(|t| t.parse::<f32>().is_err()))
    })
}

/// Whitespace tokens of each line (lossy UTF-8, as tobj reads lines).
fn lines(bytes: &[u8]) -> impl Iterator<Item = Vec<&str>> {
    bytes.split(|&b| b == b'\n').map(|l| {
        std::str::from_utf8(l)
            .unwrap_or("")
            .split_whitespace()
            .collect()
    })
}

/// The 1-based number of the first line whose tokens satisfy `pred`.
fn first_line(bytes: &[u8], pred: impl Fn(&[&str]) -> bool) -> Option<usize> {
    lines(bytes).position(|t| pred(&t)).map(|n| n + 1)
}

/// Rejects a face whose texture coordinate or normal index is out of range, before tobj sees
/// it: tobj turns a relative index before the first element into a huge one and multiplies
/// it unchecked (a panic with overflow checks). Kinds the file has none of are skipped, as
/// tobj ignores their indices.
fn check_face_attributes(bytes: &[u8], file: &str) -> Result<(), Error> {
    let mut total = [0usize; 2];
    for line in bytes.split(|&b| b == b'\n') {
        match String::from_utf8_lossy(line).split_whitespace().next() {
            Some("vt") => total[0] += 1,
            Some("vn") => total[1] += 1,
            _ => {}
        }
    }
    if total == [0, 0] {
        return Ok(());
    }
    let mut seen = [0usize; 2];
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        let mut toks = text.split_whitespace();
        match toks.next() {
            Some("vt") => seen[0] += 1,
            Some("vn") => seen[1] += 1,
            Some("f") => {
                for tok in toks {
                    for (k, part) in tok.split('/').skip(1).take(2).enumerate() {
                        let Ok(i) = part.parse::<i64>() else {
                            continue;
                        };
                        // A relative index counts back from the elements read so far.
                        let bad = if i < 0 {
                            i.unsigned_abs() > seen[k] as u64
                        } else {
                            i as u64 > total[k] as u64
                        };
                        if total[k] > 0 && bad {
                            let what = ["texture coordinate", "normal"][k];
                            return Err(Error {
                                file: file.to_owned(),
                                line: Some(n + 1),
                                kind: ErrorKind::Syntax(format!(
                                    "face {what} index {i} is out of range ({} given)",
                                    total[k]
                                )),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
