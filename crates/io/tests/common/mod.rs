//! Small files the tests write themselves.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("raypick-io-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A unit-ish test mesh: 4 vertices, 2 triangles (a quad in z = 0).
pub const QUAD_POS: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
];

pub fn binary_stl(tris: &[[[f32; 3]; 3]], header: &[u8; 80], declared: Option<u32>) -> Vec<u8> {
    let mut out = header.to_vec();
    out.extend_from_slice(&declared.unwrap_or(tris.len() as u32).to_le_bytes());
    for t in tris {
        for _ in 0..3 {
            out.extend_from_slice(&0f32.to_le_bytes());
        }
        for v in t {
            for c in v {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0, 0]);
    }
    out
}

pub fn ascii_stl(tris: &[[[f32; 3]; 3]]) -> String {
    let mut s = String::from("solid test\n");
    for t in tris {
        s.push_str("  facet normal 0 0 1\n    outer loop\n");
        for v in t {
            s.push_str(&format!("      vertex {} {} {}\n", v[0], v[1], v[2]));
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    s.push_str("endsolid test\n");
    s
}

/// A PLY with the quad as one 4-gon face (fan-triangulated on load) plus an extra element.
pub fn ply(encoding: &str, positions: &[[f32; 3]], faces: &[Vec<i32>]) -> Vec<u8> {
    let mut out = format!(
        "ply\nformat {encoding} 1.0\ncomment written by a test\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nelement face {}\nproperty list uchar int vertex_indices\nelement extra 1\nproperty short k\nend_header\n",
        positions.len(),
        faces.len()
    )
    .into_bytes();
    match encoding {
        "ascii" => {
            for p in positions {
                out.extend_from_slice(format!("{} {} {} 7\n", p[0], p[1], p[2]).as_bytes());
            }
            for f in faces {
                let idx: Vec<String> = f.iter().map(|i| i.to_string()).collect();
                out.extend_from_slice(format!("{} {}\n", f.len(), idx.join(" ")).as_bytes());
            }
            out.extend_from_slice(b"42\n");
        }
        _ => {
            let be = encoding == "binary_big_endian";
            let f32b = |v: f32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
            let i32b = |v: i32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
            for p in positions {
                for c in p {
                    out.extend_from_slice(&f32b(*c));
                }
                out.push(7);
            }
            for f in faces {
                out.push(f.len() as u8);
                for i in f {
                    out.extend_from_slice(&i32b(*i));
                }
            }
            out.extend_from_slice(&if be {
                42i16.to_be_bytes()
            } else {
                42i16.to_le_bytes()
            });
        }
    }
    out
}

/// Binary data for glTF: positions (f32 VEC3) then u16 indices, padded to 4 bytes.
pub fn gltf_bin(positions: &[[f32; 3]], indices: &[u16]) -> Vec<u8> {
    let mut bin = Vec::new();
    for p in positions {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in indices {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    bin
}

/// A glTF document over one buffer (`uri` or, if `None`, the GLB chunk) holding
/// `gltf_bin(positions, indices)`. Mesh 0 has a triangle primitive over the indices, a LINES
/// primitive over the same indices (segments, one set per node) and a second, non-indexed triangle primitive over the first
/// three positions. `nodes_json` is spliced in as the `nodes` array, `scenes_json` as
/// `scenes`.
pub fn gltf_json(
    positions: &[[f32; 3]],
    indices: &[u16],
    uri: Option<&str>,
    nodes_json: &str,
    scenes_json: &str,
    declared_index_count: Option<usize>,
) -> String {
    let pos_len = positions.len() * 12;
    let idx_len = indices.len() * 2;
    let bin_len = gltf_bin(positions, indices).len();
    let uri = uri
        .map(|u| format!(r#""uri": "{u}", "#))
        .unwrap_or_default();
    let idx_count = declared_index_count.unwrap_or(indices.len());
    format!(
        r#"{{
  "asset": {{ "version": "2.0" }},
  "buffers": [ {{ {uri}"byteLength": {bin_len} }} ],
  "bufferViews": [
    {{ "buffer": 0, "byteOffset": 0, "byteLength": {pos_len} }},
    {{ "buffer": 0, "byteOffset": {pos_len}, "byteLength": {idx_len} }}
  ],
  "accessors": [
    {{ "bufferView": 0, "componentType": 5126, "count": {n}, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1] }},
    {{ "bufferView": 1, "componentType": 5123, "count": {idx_count}, "type": "SCALAR" }},
    {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" }}
  ],
  "meshes": [ {{ "name": "quad", "primitives": [
    {{ "attributes": {{ "POSITION": 0 }}, "indices": 1 }},
    {{ "attributes": {{ "POSITION": 0 }}, "indices": 1, "mode": 1 }},
    {{ "attributes": {{ "POSITION": 2 }} }}
  ] }} ],
  "nodes": {nodes_json},
  "scenes": {scenes_json},
  "scene": 0
}}"#,
        n = positions.len()
    )
}

/// Two nodes share mesh 0: "a" at the origin with a child "b" translated by (10, 0, 0)
/// and scaled by 2.
pub const TWO_NODES: &str = r#"[
    { "name": "a", "mesh": 0, "children": [1] },
    { "name": "b", "mesh": 0, "translation": [10, 0, 0], "scale": [2, 2, 2] }
  ]"#;
pub const SCENE0: &str = r#"[ { "nodes": [0] } ]"#;

pub fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= c.len() {
                s.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A tiny deterministic generator (xorshift) for the no-panic sweeps.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub const TRIS: [[[f32; 3]; 3]; 2] = [
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
    [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
];

pub fn ply_faces() -> Vec<Vec<i32>> {
    PLY_FACES.iter().map(|f| f.to_vec()).collect()
}

pub const PLY_FACES: [&[i32]; 3] = [&[0, 1, 2, 3], &[0, 1], &[3, 2, 1]];
