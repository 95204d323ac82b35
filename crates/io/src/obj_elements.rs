//! OBJ point (`p`) and line (`l`) elements, which `tobj` does not return: read here from the
//! text, against every `v` line read in f64.

use std::collections::HashMap;

use nalgebra::Matrix4;
use raypick_primitives::Point3;

use crate::error::{Error, ErrorKind};
use crate::loaded::{recentre, LoadedLines, LoadedPoints};

/// The file's `p` elements as one point cloud and its `l` elements (polylines: each pair of
/// consecutive vertices a segment) as one line set, named after `stem`; none when the file
/// has no such element. An index out of range is an error naming its line.
pub(crate) fn read(
    bytes: &[u8],
    file: &str,
    stem: &str,
) -> Result<(Vec<LoadedPoints>, Vec<LoadedLines>), Error> {
    let has = |tag: &[u8]| {
        bytes
            .split(|&b| b == b'\n')
            .any(|l| l.trim_ascii_start().starts_with(tag))
    };
    if !has(b"p ") && !has(b"p\t") && !has(b"l ") && !has(b"l\t") {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut vertices: Vec<Point3<f64>> = Vec::new();
    let mut points: Vec<u32> = Vec::new();
    let mut segments: Vec<[u32; 2]> = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        let mut toks = text.split_whitespace();
        let Some(tag) = toks.next() else { continue };
        match tag {
            "v" => {
                let mut c = [0.0f64; 3];
                for x in c.iter_mut() {
                    *x = toks.next().and_then(|t| t.parse().ok()).unwrap_or(f64::NAN);
                }
                vertices.push(Point3::from(c));
            }
            "p" | "l" => {
                let at = |index: i64| {
                    Error::at_line(
                        file,
                        n + 1,
                        ErrorKind::IndexOutOfRange {
                            context: format!("an {tag} element"),
                            index,
                            vertex_count: vertices.len(),
                        },
                    )
                };
                let mut chain: Vec<u32> = Vec::new();
                for t in toks {
                    let first = t.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| {
                        Error::at_line(
                            file,
                            n + 1,
                            ErrorKind::Syntax(format!("{first:?} is not a vertex index")),
                        )
                    })?;
                    let count = vertices.len() as i64;
                    let resolved = if i > 0 { i - 1 } else { count + i };
                    if i == 0 || resolved < 0 || resolved >= count {
                        return Err(at(i));
                    }
                    chain.push(resolved as u32);
                }
                if tag == "p" {
                    points.extend_from_slice(&chain);
                } else {
                    segments.extend(chain.windows(2).map(|w| [w[0], w[1]]));
                }
            }
            _ => {}
        }
    }
    let mut clouds = Vec::new();
    if !points.is_empty() {
        let wide: Vec<Point3<f64>> = points.iter().map(|&i| vertices[i as usize]).collect();
        let (positions, offset) = recentre(&wide);
        clouds.push(LoadedPoints {
            name: format!("{stem} points"),
            positions,
            transform64: Matrix4::new_translation(&offset),
        });
    }
    let mut sets = Vec::new();
    if !segments.is_empty() {
        // Only the vertices the segments use, renumbered in order of first use.
        let mut local: HashMap<u32, u32> = HashMap::new();
        let mut wide = Vec::new();
        let segments: Vec<[u32; 2]> = segments
            .iter()
            .map(|s| {
                s.map(|g| {
                    *local.entry(g).or_insert_with(|| {
                        wide.push(vertices[g as usize]);
                        (wide.len() - 1) as u32
                    })
                })
            })
            .collect();
        let (positions, offset) = recentre(&wide);
        sets.push(LoadedLines {
            name: format!("{stem} lines"),
            positions,
            segments,
            transform64: Matrix4::new_translation(&offset),
        });
    }
    Ok((clouds, sets))
}
