//! PLY (ASCII, binary little and big endian) through `ply-rs`: one mesh, one instance.

use std::io::{BufRead, Cursor};

use nalgebra::Matrix4;
use ply_rs::parser::Parser;
use ply_rs::ply::{
    ElementDef, Encoding, Header, Property, PropertyAccess, PropertyType, ScalarType,
};
use raypick_primitives::Point3;

use crate::error::{Error, ErrorKind};
use crate::loaded::{recentre, LoadedMesh, LoadedPoints, SceneData};
use crate::{guard, Format};

/// Reads PLY. Vertices come from the `vertex` element's `x`, `y`, `z` (any numeric type),
/// faces from the `face` element's `vertex_indices` (or `vertex_index`) list, fan-triangulated
/// in order; faces with fewer than 3 vertices are skipped with a warning. Other elements are
/// read and ignored. Declared element counts are checked against the bytes after the header
/// before any element is read.
pub(crate) fn read(bytes: &[u8], file: &str, name: &str) -> Result<SceneData, Error> {
    check_element_lines(bytes, file)?;
    let mut cursor = Cursor::new(bytes);
    let header = guard(file, || Parser::<Ignored>::new().read_header(&mut cursor))?
        .map_err(|e| Error::new(file, ErrorKind::Syntax(format!("PLY header: {e}"))))?;
    let body_start = cursor.position() as usize;
    let header_lines = bytes[..body_start].iter().filter(|&&b| b == b'\n').count();
    check_counts(&header, bytes.len() - body_start, file)?;

    let mut positions: Vec<Point3<f64>> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut faces_seen = 0usize;
    let mut line = header_lines;
    let declared_vertices = header.elements.get("vertex").map_or(0, |d| d.count);
    for (element_name, def) in &header.elements {
        if element_name == "vertex" {
            for p in ["x", "y", "z"] {
                if !def.properties.contains_key(p) {
                    return Err(Error::new(
                        file,
                        ErrorKind::Syntax(format!("PLY vertex element has no {p} property")),
                    ));
                }
            }
        }
        for i in 0..def.count {
            line += 1;
            let at = |kind| Error {
                file: file.to_owned(),
                line: (header.encoding == Encoding::Ascii).then_some(line),
                kind,
            };
            match element_name.as_str() {
                "vertex" => {
                    let v: PlyVertex = read_element(&mut cursor, def, &header, file, line)?;
                    positions.push(Point3::new(v.xyz[0], v.xyz[1], v.xyz[2]));
                }
                "face" => {
                    let f: PlyFace = read_element(&mut cursor, def, &header, file, line)?;
                    if f.indices.len() < 3 {
                        tracing::warn!(
                            file,
                            face = i,
                            "PLY face with fewer than 3 vertices skipped"
                        );
                        continue;
                    }
                    faces_seen += 1;
                    let mut tri = |a: i64, b: i64, c: i64| -> Result<(), Error> {
                        let mut out = [0u32; 3];
                        for (o, idx) in out.iter_mut().zip([a, b, c]) {
                            *o = u32::try_from(idx)
                                .ok()
                                .filter(|&v| (v as usize) < declared_vertices)
                                .ok_or_else(|| {
                                    at(ErrorKind::IndexOutOfRange {
                                        context: format!("face {i}"),
                                        index: idx,
                                        vertex_count: declared_vertices,
                                    })
                                })?;
                        }
                        triangles.push(out);
                        Ok(())
                    };
                    let a = f.indices[0];
                    for w in f.indices[1..].windows(2) {
                        tri(a, w[0], w[1])?;
                    }
                }
                _ => {
                    let _: Ignored = read_element(&mut cursor, def, &header, file, line)?;
                }
            }
        }
    }
    tracing::debug!(
        file,
        faces = faces_seen,
        triangles = triangles.len(),
        "PLY read"
    );
    let (positions, offset) = recentre(&positions);
    // Vertices without a face element: a point cloud (scans, LiDAR).
    if !header.elements.contains_key("face") && !positions.is_empty() {
        return Ok(SceneData {
            format: Format::Ply,
            meshes: Vec::new(),
            instances: Vec::new(),
            points: vec![LoadedPoints {
                name: name.to_owned(),
                positions,
                transform64: Matrix4::new_translation(&offset),
            }],
            lines: Vec::new(),
        });
    }
    let mesh = LoadedMesh {
        name: name.to_owned(),
        positions,
        triangles,
        offset,
    };
    mesh.check(file)?;
    Ok(SceneData::single_mesh(Format::Ply, name, mesh))
}

/// Refuses an `element` line of the header whose count is not a whole number of at most 64
/// bits, before ply-rs sees it (its header grammar panics on one that overflows).
fn check_element_lines(bytes: &[u8], file: &str) -> Result<(), Error> {
    // ply-rs ends lines at CR as well as LF, and parses the numbers of `format` and `element`
    // lines with an unchecked `parse().unwrap()`: every digit run there must fit in u64.
    let pieces = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .flat_map(|(n, line)| line.split(|&b| b == b'\r').map(move |piece| (n + 1, piece)));
    for (line_no, line) in pieces {
        let line = String::from_utf8_lossy(line);
        let mut words = line.split_whitespace();
        let first = words.next();
        match first {
            Some("end_header") => break,
            Some("element") | Some("format") => {}
            _ => continue,
        }
        let too_long = line
            .split(|c: char| !c.is_ascii_digit())
            .find(|run| !run.is_empty() && run.parse::<u64>().is_err());
        if let Some(run) = too_long {
            let what = if first == Some("element") {
                format!(
                    "PLY element {:?} has count {run:?}, not a whole number below 2^64",
                    words.next().unwrap_or("")
                )
            } else {
                format!("PLY format version {run:?} is not a whole number below 2^64")
            };
            return Err(Error {
                file: file.to_owned(),
                line: Some(line_no),
                kind: ErrorKind::Syntax(what),
            });
        }
    }
    Ok(())
}

/// Refuses headers whose element counts cannot fit in `available` bytes, using the smallest
/// size each element can take (binary: scalar sizes and list counts; ASCII: one character and
/// one separator per property, or a line break).
fn check_counts(header: &Header, available: usize, file: &str) -> Result<(), Error> {
    let mut needed: u128 = 0;
    for (name, def) in &header.elements {
        let min = min_element_bytes(def, header.encoding == Encoding::Ascii);
        let fits = (available as u64).checked_div(min).unwrap_or(u64::MAX);
        let count = def.count as u64;
        if count > fits {
            return Err(Error::new(
                file,
                ErrorKind::CountTooLarge {
                    what: format!("{name:?} elements"),
                    declared: count,
                    fits,
                },
            ));
        }
        needed += u128::from(count) * u128::from(min);
    }
    if needed > available as u128 {
        return Err(Error::new(
            file,
            ErrorKind::Truncated(format!(
                "the header's elements need at least {needed} bytes, but {available} follow it"
            )),
        ));
    }
    Ok(())
}

fn min_element_bytes(def: &ElementDef, ascii: bool) -> u64 {
    if ascii {
        return (2 * def.properties.len() as u64).max(1);
    }
    def.properties
        .values()
        .map(|p| match &p.data_type {
            PropertyType::Scalar(s) => scalar_size(s),
            PropertyType::List(count, _) => scalar_size(count),
        })
        .sum()
}

fn scalar_size(s: &ScalarType) -> u64 {
    match s {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}

fn read_element<E: PropertyAccess>(
    cursor: &mut Cursor<&[u8]>,
    def: &ElementDef,
    header: &Header,
    file: &str,
    line: usize,
) -> Result<E, Error> {
    let parser = Parser::<E>::new();
    match header.encoding {
        Encoding::Ascii => {
            let mut text = String::new();
            match cursor.read_line(&mut text) {
                Ok(0) => Err(Error::at_line(
                    file,
                    line,
                    ErrorKind::Truncated(format!(
                        "the file ends before this {:?} element",
                        def.name
                    )),
                )),
                Ok(_) => guard(file, || parser.read_ascii_element(&text, def))?.map_err(|e| {
                    Error::at_line(
                        file,
                        line,
                        ErrorKind::Syntax(format!("PLY {:?} element: {e}", def.name)),
                    )
                }),
                Err(e) => Err(Error::at_line(
                    file,
                    line,
                    ErrorKind::Syntax(format!("PLY: {e}")),
                )),
            }
        }
        Encoding::BinaryLittleEndian | Encoding::BinaryBigEndian => {
            let little = header.encoding == Encoding::BinaryLittleEndian;
            let result = guard(file, || {
                if little {
                    parser.read_little_endian_element(cursor, def)
                } else {
                    parser.read_big_endian_element(cursor, def)
                }
            })?;
            result.map_err(|e| {
                let kind = if e.kind() == std::io::ErrorKind::UnexpectedEof
                    || e.to_string().contains("failed to fill whole buffer")
                {
                    ErrorKind::Truncated(format!("the file ends inside a {:?} element", def.name))
                } else {
                    ErrorKind::Syntax(format!("PLY {:?} element: {e}", def.name))
                };
                Error::new(file, kind)
            })
        }
    }
}

/// A vertex: only its position is kept.
struct PlyVertex {
    xyz: [f64; 3],
}

impl PropertyAccess for PlyVertex {
    fn new() -> Self {
        PlyVertex { xyz: [0.0; 3] }
    }
    fn set_property(&mut self, name: String, property: Property) {
        let axis = match name.as_str() {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return,
        };
        self.xyz[axis] = match property {
            Property::Char(v) => v.into(),
            Property::UChar(v) => v.into(),
            Property::Short(v) => v.into(),
            Property::UShort(v) => v.into(),
            Property::Int(v) => v.into(),
            Property::UInt(v) => v.into(),
            Property::Float(v) => v.into(),
            Property::Double(v) => v,
            // A list where a coordinate belongs: not a position.
            _ => f64::NAN,
        };
    }
}

/// A face: only its vertex list is kept.
struct PlyFace {
    indices: Vec<i64>,
}

impl PropertyAccess for PlyFace {
    fn new() -> Self {
        PlyFace {
            indices: Vec::new(),
        }
    }
    fn set_property(&mut self, name: String, property: Property) {
        if name != "vertex_indices" && name != "vertex_index" {
            return;
        }
        self.indices = match property {
            Property::ListChar(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUChar(v) => v.into_iter().map(i64::from).collect(),
            Property::ListShort(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUShort(v) => v.into_iter().map(i64::from).collect(),
            Property::ListInt(v) => v.into_iter().map(i64::from).collect(),
            Property::ListUInt(v) => v.into_iter().map(i64::from).collect(),
            // Float indices are not indices; -1 makes the face fail the range check.
            Property::ListFloat(v) => v.iter().map(|_| -1).collect(),
            Property::ListDouble(v) => v.iter().map(|_| -1).collect(),
            _ => Vec::new(),
        };
    }
}

/// Any other element, read and dropped.
struct Ignored;

impl PropertyAccess for Ignored {
    fn new() -> Self {
        Ignored
    }
}
