//! STL (ASCII and binary) through `stl_io`: one mesh, one instance.

use std::io::Cursor;

use raypick_primitives::Point3;

use crate::error::{Error, ErrorKind};
use crate::loaded::{recentre, LoadedMesh, SceneData};
use crate::{guard, Format};

const HEADER: usize = 84;
const FACET: usize = 50;

/// Reads STL. A file whose first word is `solid` (then a space, a tab, a line end or nothing)
/// is read as ASCII, unless the ASCII read fails and the length is exactly that of a binary
/// STL with the count in its header (some exporters write binary files whose 80-byte header
/// starts with `solid`). Identical vertex positions are merged (by `stl_io`), triangles stay
/// in file order.
pub(crate) fn read(bytes: &[u8], file: &str, name: &str) -> Result<SceneData, Error> {
    let looks_ascii =
        bytes.starts_with(b"solid") && bytes.get(5).is_none_or(|b| b.is_ascii_whitespace());
    let binary_count = binary_count(bytes);
    let binary_exact =
        binary_count.is_some_and(|n| HEADER as u64 + n * FACET as u64 == bytes.len() as u64);
    let mesh = if looks_ascii && !binary_exact {
        read_ascii(bytes, file)?
    } else if looks_ascii {
        // Ambiguous: try ASCII first, fall back to binary.
        match read_ascii(bytes, file) {
            Ok(m) => m,
            Err(_) => read_binary(bytes, file)?,
        }
    } else {
        read_binary(bytes, file)?
    };
    // STL stores f32 (binary) and stl_io reads ASCII into f32: far coordinates are re-centred
    // but keep the precision the file had.
    let wide: Vec<Point3<f64>> = mesh
        .vertices
        .iter()
        .map(|v| Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])))
        .collect();
    let (positions, offset) = recentre(&wide);
    let mesh = LoadedMesh {
        name: name.to_owned(),
        positions,
        offset,
        triangles: mesh
            .faces
            .iter()
            .map(|f| {
                // stl_io indexes its own deduplicated vertex list; the count was bounded by
                // the file length above, so these fit u32. Out-of-range is caught by check().
                f.vertices.map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            })
            .collect(),
    };
    mesh.check(file)?;
    Ok(SceneData::single_mesh(Format::Stl, name, mesh))
}

fn binary_count(bytes: &[u8]) -> Option<u64> {
    let c = bytes.get(80..84)?;
    Some(u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
}

fn read_binary(bytes: &[u8], file: &str) -> Result<stl_io::IndexedMesh, Error> {
    let Some(count) = binary_count(bytes) else {
        return Err(Error::new(
            file,
            ErrorKind::Truncated(format!(
                "{} bytes is shorter than the 84-byte binary STL header",
                bytes.len()
            )),
        ));
    };
    // Check the declared count against the length before the parser loops over it.
    let fits = (bytes.len() - HEADER) as u64 / FACET as u64;
    if count > fits {
        return Err(Error::new(
            file,
            ErrorKind::CountTooLarge {
                what: "triangles".to_owned(),
                declared: count,
                fits,
            },
        ));
    }
    let mut cursor = Cursor::new(bytes);
    let result = guard(file, || stl_io::read_stl(&mut cursor))?;
    result.map_err(|e| Error::new(file, io_kind(e)))
}

fn read_ascii(bytes: &[u8], file: &str) -> Result<stl_io::IndexedMesh, Error> {
    // stl_io wants the first line to start with `solid ` exactly: the name after `solid` is
    // only a label, so the first line becomes `solid ` (one line for one: line numbers stay).
    let body = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(&[][..], |i| &bytes[i..]);
    let text = [&b"solid "[..], body].concat();
    // Go through the triangle iterator so a failure can be tied to its facet and line.
    let mut cursor = Cursor::new(&text[..]);
    guard(file, || {
        let reader =
            stl_io::create_stl_reader(&mut cursor).map_err(|e| Error::new(file, io_kind(e)))?;
        let mut facets = 0usize;
        let mut triangles = Vec::new();
        for t in reader {
            match t {
                Ok(t) => {
                    triangles.push(t);
                    facets += 1;
                }
                Err(e) => {
                    // The parser skips blank lines; facet k starts at the (2 + 7k)th
                    // non-blank line.
                    let line = nth_nonblank_line(bytes, 1 + 7 * facets);
                    return Err(Error {
                        file: file.to_owned(),
                        line,
                        kind: io_kind(e),
                    });
                }
            }
        }
        // Reuse stl_io's vertex merging over the triangles already read.
        let mut iter = TriIter(triangles.into_iter());
        stl_io::TriangleIterator::as_indexed_triangles(&mut iter)
            .map_err(|e| Error::new(file, io_kind(e)))
    })?
}

struct TriIter(std::vec::IntoIter<stl_io::Triangle>);

impl Iterator for TriIter {
    type Item = std::io::Result<stl_io::Triangle>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(Ok)
    }
}

impl stl_io::TriangleIterator for TriIter {}

fn io_kind(e: std::io::Error) -> ErrorKind {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => ErrorKind::Truncated(format!("STL: {e}")),
        _ => ErrorKind::Syntax(format!("STL: {e}")),
    }
}

/// The 1-based line number of the `n`th (0-based) non-blank line.
fn nth_nonblank_line(bytes: &[u8], n: usize) -> Option<usize> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| l.iter().any(|b| !b.is_ascii_whitespace()))
        .nth(n)
        .map(|(i, _)| i + 1)
}
