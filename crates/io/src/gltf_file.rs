//! glTF 2.0 (`.gltf` with `.bin` or embedded base64 buffers, and `.glb`) through `gltf`.

use std::io::Read;
use std::path::Path;

use gltf::accessor::{DataType, Dimensions};
use nalgebra::{Matrix3, Matrix4};
use raypick_primitives::Point3;

use crate::error::{Error, ErrorKind};
use gltf::mesh::Mode;

use crate::gltf_prims::{assemble, has_remainder, Elements};
use crate::loaded::{LoadedInstance, LoadedLines, LoadedMesh, LoadedPoints, SceneData};
use crate::{guard, Format};

/// Reads glTF or GLB bytes. `base` is the directory external buffers are resolved against;
/// `None` (in-memory loads) makes any external buffer a [`ErrorKind::MissingBuffer`].
///
/// Each glTF mesh becomes one [`LoadedMesh`] (its triangle primitives, lists, strips and
/// fans, concatenated in order), its line primitives (lists, strips, loops) one
/// [`LoadedLines`] and its point primitives one [`LoadedPoints`] per node that uses it; each
/// node with a mesh in
/// the default scene (or the first scene, or, without scenes, every parentless node) becomes
/// one [`LoadedInstance`] with its world transform, depth-first in child order.
pub(crate) fn read(
    bytes: &[u8],
    file: &str,
    base: Option<&Path>,
    format: Format,
) -> Result<SceneData, Error> {
    if bytes.starts_with(b"glTF") {
        check_glb_header(bytes, file)?;
    }
    let gltf = guard(file, || gltf::Gltf::from_slice_without_validation(bytes))?
        .map_err(|e| gltf_error(file, e))?;
    validate(&gltf, file)?;
    for ext in gltf.extensions_required() {
        if ext != "KHR_materials_unlit"
            && !ext.starts_with("KHR_texture")
            && !ext.starts_with("KHR_materials")
        {
            return Err(Error::new(
                file,
                ErrorKind::Unsupported(format!("required glTF extension {ext}")),
            ));
        }
    }
    let buffers = load_buffers(&gltf, file, base)?;

    let mut meshes = Vec::with_capacity(gltf.meshes().len());
    let mut extras = Vec::with_capacity(gltf.meshes().len());
    for mesh in gltf.meshes() {
        let (m, e) = read_mesh(&mesh, &buffers, file)?;
        meshes.push(m);
        extras.push(e);
    }
    let instances = read_nodes(&gltf.document, file)?;
    // Point and line primitives, placed by every node that uses their mesh.
    let (mut points, mut lines) = (Vec::new(), Vec::new());
    for inst in &instances {
        let e = &extras[inst.mesh];
        if !e.points.is_empty() {
            points.push(LoadedPoints {
                name: format!("{} points", inst.name),
                positions: e.points.iter().map(|&i| e.positions[i as usize]).collect(),
                transform64: inst.transform64,
            });
        }
        if !e.segments.is_empty() {
            lines.push(LoadedLines {
                name: format!("{} lines", inst.name),
                positions: e.positions.clone(),
                segments: e.segments.clone(),
                transform64: inst.transform64,
            });
        }
    }
    Ok(SceneData {
        format,
        meshes,
        instances,
        points,
        lines,
    })
}

/// gltf's own validation, after the one check it assumes (it indexes POSITION accessors
/// unchecked). Many exporters omit the POSITION min/max the spec requires; nothing here
/// needs them, so those two errors alone are accepted.
fn validate(gltf: &gltf::Gltf, file: &str) -> Result<(), Error> {
    use gltf::json::validation::Validate;
    let root = gltf.document.as_json();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for acc in prim.attributes.values() {
                if acc.value() >= root.accessors.len() {
                    return Err(Error::new(
                        file,
                        ErrorKind::Syntax(format!(
                            "invalid glTF: mesh {m} primitive {p} refers to accessor {}, but there are {}",
                            acc.value(),
                            root.accessors.len()
                        )),
                    ));
                }
            }
        }
    }
    let mut errors = Vec::new();
    guard(file, || {
        root.validate(root, gltf::json::Path::new, &mut |path, error| {
            errors.push((path(), error))
        })
    })?;
    if errors.iter().all(|(path, e)| only_bounds_missing(path, e)) {
        if !errors.is_empty() {
            tracing::warn!(file, "glTF POSITION accessors lack min/max; accepted");
        }
        return Ok(());
    }
    Err(gltf_error(file, gltf::Error::Validation(errors)))
}

fn only_bounds_missing(path: &gltf::json::Path, e: &gltf::json::validation::Error) -> bool {
    let p = path.as_str();
    matches!(e, gltf::json::validation::Error::Missing)
        && (p.ends_with(".min") || p.ends_with(".max"))
}

/// The GLB header's declared length must be sane before `gltf` subtracts from it.
fn check_glb_header(bytes: &[u8], file: &str) -> Result<(), Error> {
    let Some(len) = bytes.get(8..12) else {
        return Err(Error::new(
            file,
            ErrorKind::Truncated("the GLB header needs 12 bytes".to_owned()),
        ));
    };
    let declared = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if declared < 12 {
        return Err(Error::new(
            file,
            ErrorKind::Syntax(format!(
                "the GLB header declares a length of {declared} bytes"
            )),
        ));
    }
    if declared > bytes.len() {
        return Err(Error::new(
            file,
            ErrorKind::Truncated(format!(
                "the GLB header declares {declared} bytes, but the file has {}",
                bytes.len()
            )),
        ));
    }
    Ok(())
}

fn gltf_error(file: &str, e: gltf::Error) -> Error {
    match e {
        gltf::Error::Deserialize(je) => {
            let kind = if je.is_eof() {
                ErrorKind::Truncated(format!("glTF JSON: {je}"))
            } else {
                ErrorKind::Syntax(format!("glTF JSON: {je}"))
            };
            match je.line() {
                0 => Error::new(file, kind),
                line => Error::at_line(file, line, kind),
            }
        }
        gltf::Error::Validation(errors) => {
            let shown: Vec<String> = errors
                .iter()
                .take(3)
                .map(|(path, err)| format!("{path}: {err}"))
                .collect();
            let more = errors.len().saturating_sub(3);
            let mut text = format!("invalid glTF: {}", shown.join("; "));
            if more > 0 {
                text.push_str(&format!(" (and {more} more)"));
            }
            Error::new(file, ErrorKind::Syntax(text))
        }
        gltf::Error::Binary(be) => {
            let kind = match be {
                gltf::binary::Error::Length { .. } | gltf::binary::Error::ChunkLength { .. } => {
                    ErrorKind::Truncated(format!("GLB: {be}"))
                }
                _ => ErrorKind::Syntax(format!("GLB: {be}")),
            };
            Error::new(file, kind)
        }
        other => Error::new(file, ErrorKind::Syntax(format!("glTF: {other}"))),
    }
}

fn load_buffers(gltf: &gltf::Gltf, file: &str, base: Option<&Path>) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Vec::with_capacity(gltf.buffers().len());
    for buffer in gltf.buffers() {
        let index = buffer.index();
        let missing = |reason: String| {
            Error::new(
                file,
                ErrorKind::MissingBuffer {
                    buffer: index,
                    reason,
                },
            )
        };
        let data: Vec<u8> = match buffer.source() {
            gltf::buffer::Source::Bin => match &gltf.blob {
                Some(blob) => blob.clone(),
                None => return Err(missing("the file has no binary chunk".to_owned())),
            },
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let source = buffer.source();
                guard(file, || gltf::buffer::Data::from_source(source, None))?
                    .map_err(|e| {
                        Error::new(file, ErrorKind::Syntax(format!("buffer {index}: {e}")))
                    })?
                    .0
            }
            gltf::buffer::Source::Uri(uri) => {
                let Some(base) = base else {
                    return Err(missing(format!(
                        "it refers to the external file {uri:?}, which an in-memory load cannot read"
                    )));
                };
                if uri.contains(':') {
                    return Err(missing(format!("unsupported URI scheme in {uri:?}")));
                }
                let path = base.join(percent_decode(uri));
                read_limited(&path, buffer.length())
                    .map_err(|e| missing(format!("cannot read {}: {e}", path.display())))?
            }
        };
        if data.len() < buffer.length() {
            return Err(Error::new(
                file,
                ErrorKind::Truncated(format!(
                    "buffer {index} declares {} bytes but holds {}",
                    buffer.length(),
                    data.len()
                )),
            ));
        }
        out.push(data);
    }
    Ok(out)
}

/// Reads at most `limit` bytes of a regular file (never a device that streams forever).
fn read_limited(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut data = Vec::with_capacity(limit.min(meta.len() as usize));
    f.take(limit as u64).read_to_end(&mut data)?;
    Ok(data)
}

/// `%20` and friends; malformed escapes are kept as written.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Checks that an accessor's elements lie inside its view and buffer, before reading it.
fn check_accessor(
    acc: &gltf::Accessor<'_>,
    buffers: &[Vec<u8>],
    what: &str,
    file: &str,
) -> Result<(), Error> {
    let bad = |text: String| Error::new(file, ErrorKind::Syntax(format!("{what}: {text}")));
    if acc.sparse().is_some() {
        return Err(Error::new(
            file,
            ErrorKind::Unsupported(format!("{what}: sparse accessor {}", acc.index())),
        ));
    }
    let Some(view) = acc.view() else {
        return Err(Error::new(
            file,
            ErrorKind::Unsupported(format!(
                "{what}: accessor {} has no buffer view",
                acc.index()
            )),
        ));
    };
    let buffer_len = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    let view_end = view.offset().checked_add(view.length());
    if view_end.is_none_or(|end| end > buffer_len) {
        return Err(Error::new(
            file,
            ErrorKind::Truncated(format!(
                "{what}: buffer view {} ends past the end of buffer {} ({} bytes)",
                view.index(),
                view.buffer().index(),
                buffer_len
            )),
        ));
    }
    let elem = acc.size();
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(bad(format!(
            "byte stride {stride} is smaller than the element size {elem}"
        )));
    }
    let count = acc.count();
    if count == 0 {
        return Ok(());
    }
    // Elements that fit in the view after the accessor's offset.
    let room = view.length().saturating_sub(acc.offset());
    let fits = if room < elem {
        0
    } else {
        (room - elem) / stride + 1
    };
    if count > fits {
        return Err(Error::new(
            file,
            ErrorKind::CountTooLarge {
                what: format!("elements in accessor {} ({what})", acc.index()),
                declared: count as u64,
                fits: fits as u64,
            },
        ));
    }
    Ok(())
}

/// A mesh's point and line primitives, as indices into their own vertex list.
#[derive(Default)]
struct Extras {
    positions: Vec<Point3<f32>>,
    points: Vec<u32>,
    segments: Vec<[u32; 2]>,
}

fn read_mesh(
    mesh: &gltf::Mesh<'_>,
    buffers: &[Vec<u8>],
    file: &str,
) -> Result<(LoadedMesh, Extras), Error> {
    let name = match mesh.name() {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => format!("mesh {}", mesh.index()),
    };
    let mut positions: Vec<Point3<f32>> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut extras = Extras::default();
    let get = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(Vec::as_slice);
    for prim in mesh.primitives() {
        let what = format!("mesh {} primitive {}", mesh.index(), prim.index());
        let Some(pos_acc) = prim.get(&gltf::Semantic::Positions) else {
            return Err(Error::new(
                file,
                ErrorKind::Syntax(format!("{what} has no POSITION attribute")),
            ));
        };
        if pos_acc.data_type() != DataType::F32 || pos_acc.dimensions() != Dimensions::Vec3 {
            return Err(Error::new(
                file,
                ErrorKind::Unsupported(format!(
                    "{what}: POSITION is {:?} {:?}, not float VEC3",
                    pos_acc.data_type(),
                    pos_acc.dimensions()
                )),
            ));
        }
        check_accessor(&pos_acc, buffers, &what, file)?;
        if let Some(idx_acc) = prim.indices() {
            if idx_acc.dimensions() != Dimensions::Scalar
                || !matches!(
                    idx_acc.data_type(),
                    DataType::U8 | DataType::U16 | DataType::U32
                )
            {
                return Err(Error::new(
                    file,
                    ErrorKind::Syntax(format!("{what}: indices must be unsigned integer scalars")),
                ));
            }
            check_accessor(&idx_acc, buffers, &what, file)?;
        }

        // Triangles share the mesh's vertex list; points and lines have their own.
        let triangular = matches!(
            prim.mode(),
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        );
        let target = if triangular {
            &mut positions
        } else {
            &mut extras.positions
        };
        let base = target.len();
        let count = pos_acc.count();
        if base + count > u32::MAX as usize {
            return Err(Error::new(
                file,
                ErrorKind::TooLarge(format!("{what}: more than 2^32 vertices")),
            ));
        }
        let reader = prim.reader(get);
        if count > 0 {
            let Some(iter) = guard(file, || reader.read_positions())? else {
                return Err(Error::new(
                    file,
                    ErrorKind::Syntax(format!("{what}: unreadable POSITION")),
                ));
            };
            target.extend(iter.map(|p| Point3::new(p[0], p[1], p[2])));
        }
        let first_triangle = triangles.len();
        // The vertices in the primitive's order: its indices (each checked), or all of them.
        let order: Vec<u32> = match prim.indices() {
            Some(idx_acc) if idx_acc.count() > 0 => {
                let Some(indices) = guard(file, || reader.read_indices())? else {
                    return Err(Error::new(
                        file,
                        ErrorKind::Syntax(format!("{what}: unreadable indices")),
                    ));
                };
                let indices: Vec<u32> = indices.into_u32().collect();
                if let Some((k, &bad)) = indices
                    .iter()
                    .enumerate()
                    .find(|(_, &i)| i as usize >= count)
                {
                    let context = if prim.mode() == Mode::Triangles {
                        format!("{what}, triangle {}", k / 3)
                    } else {
                        format!("{what}, index {k}")
                    };
                    return Err(Error::new(
                        file,
                        ErrorKind::IndexOutOfRange {
                            context,
                            index: i64::from(bad),
                            vertex_count: count,
                        },
                    ));
                }
                indices
            }
            Some(_) => Vec::new(),
            None => (0..count as u32).collect(),
        };
        if has_remainder(prim.mode(), order.len()) {
            tracing::warn!(file, %what, mode = ?prim.mode(), "incomplete last element ignored");
        }
        let offset = |i: u32| i + base as u32;
        match assemble(prim.mode(), &order) {
            Elements::Triangles(t) => triangles.extend(t.into_iter().map(|t| t.map(offset))),
            Elements::Segments(s) => extras.segments.extend(s.into_iter().map(|s| s.map(offset))),
            Elements::Points(p) => extras.points.extend(p.into_iter().map(offset)),
        }
        tracing::debug!(file, %what, triangles = triangles.len() - first_triangle, "glTF primitive read");
    }
    // glTF positions are f32 in the format; far placements come from node transforms.
    let mesh = LoadedMesh {
        name,
        positions,
        triangles,
        offset: nalgebra::Vector3::zeros(),
    };
    mesh.check(file)?;
    Ok((mesh, extras))
}

fn read_nodes(doc: &gltf::Document, file: &str) -> Result<Vec<LoadedInstance>, Error> {
    let n = doc.nodes().len();
    // Parent of each node; glTF requires a forest, so a second parent is an error.
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for node in doc.nodes() {
        for child in node.children() {
            let c = child.index();
            if c == node.index() {
                return Err(Error::new(file, ErrorKind::NodeCycle { node: c }));
            }
            if parent[c].is_some() {
                return Err(Error::new(file, ErrorKind::SharedNode { node: c }));
            }
            parent[c] = Some(node.index());
        }
    }
    // With one parent each, a cycle is a loop in the parent chains: colour the chains.
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the current chain, 2 done
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            match state[c] {
                2 => break,
                1 => return Err(Error::new(file, ErrorKind::NodeCycle { node: c })),
                _ => {
                    state[c] = 1;
                    path.push(c);
                    cur = parent[c];
                }
            }
        }
        for c in path {
            state[c] = 2;
        }
    }

    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let mut roots: Vec<usize> = match &scene {
        Some(s) => s.nodes().map(|n| n.index()).collect(),
        None => (0..n).filter(|&i| parent[i].is_none()).collect(),
    };
    // A root listed twice, or a "root" that is some node's child, would be instanced twice.
    let mut seen = vec![false; n];
    roots.retain(|&r| {
        let keep = parent[r].is_none() && !seen[r];
        if !keep {
            tracing::warn!(
                file,
                node = r,
                "scene root is a child or listed twice; skipped"
            );
        }
        seen[r] = true;
        keep
    });

    let nodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
    let mut instances = Vec::new();
    // Depth-first, children in order; an explicit stack so deep trees cannot overflow.
    // World matrices are composed in f64, so deep hierarchies and far placements do not
    // accumulate f32 rounding.
    let mut stack: Vec<(usize, Matrix4<f64>)> = roots
        .iter()
        .rev()
        .map(|&r| (r, Matrix4::identity()))
        .collect();
    while let Some((i, parent_world)) = stack.pop() {
        let node = &nodes[i];
        let local: Matrix4<f64> = Matrix4::from(node.transform().matrix()).cast();
        let world = parent_world * local;
        if let Some(mesh) = node.mesh() {
            if !invertible(&world) {
                return Err(Error::new(file, ErrorKind::BadTransform { node: i }));
            }
            let name = match node.name() {
                Some(s) if !s.is_empty() => s.to_owned(),
                _ => format!("node {i}"),
            };
            instances.push(LoadedInstance::new(name, mesh.index(), world));
        }
        let children: Vec<usize> = node.children().map(|c| c.index()).collect();
        for &c in children.iter().rev() {
            stack.push((c, world));
        }
    }
    Ok(instances)
}

/// Finite (in f32 too), affine (last row 0 0 0 1) and with an invertible linear part.
fn invertible(m: &Matrix4<f64>) -> bool {
    if !m.iter().all(|v| v.is_finite() && (*v as f32).is_finite()) {
        return false;
    }
    let lin: Matrix3<f64> = m.fixed_view::<3, 3>(0, 0).into_owned();
    let det = lin.determinant();
    let scale = lin.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    det.is_finite() && scale > 0.0 && det.abs() > 1e-12 * scale * scale * scale
}
