//! Helpers of the CLI tests: running the built binary, the bundled bunny, and the bunny
//! written in every format.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use raypick_io::{read_file, SceneData};

pub const BIN: &str = env!("CARGO_BIN_EXE_raypick");

pub fn bunny_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/bunny.obj")
}

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "raypick-cli-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(args: &[&str], cwd: Option<&Path>, stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("run raypick");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}, stderr: {}",
        o.status.code(),
        stderr(o)
    );
    stdout(o)
}

// ---------------------------------------------------------------- files in every format

pub fn bunny() -> SceneData {
    read_file(bunny_path()).unwrap()
}

pub fn write_stl(dir: &TempDir, s: &SceneData) -> PathBuf {
    let m = &s.meshes[0];
    let mut out = vec![0u8; 80];
    out.extend_from_slice(&(m.triangles.len() as u32).to_le_bytes());
    for t in &m.triangles {
        out.extend_from_slice(&[0u8; 12]);
        for &i in t {
            let p = m.positions[i as usize];
            for c in [p.x, p.y, p.z] {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0, 0]);
    }
    let path = dir.path("bunny.stl");
    std::fs::write(&path, out).unwrap();
    path
}

pub fn write_ply(dir: &TempDir, s: &SceneData) -> PathBuf {
    let m = &s.meshes[0];
    let mut out = format!(
        "ply\nformat binary_big_endian 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangles.len()
    )
    .into_bytes();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            out.extend_from_slice(&c.to_be_bytes());
        }
    }
    for t in &m.triangles {
        out.push(3);
        for i in t {
            out.extend_from_slice(&i.to_be_bytes());
        }
    }
    let path = dir.path("bunny.ply");
    std::fs::write(&path, out).unwrap();
    path
}

/// glTF JSON and its binary buffer for the bunny placed twice: node 0 as is, node 1
/// translated by (20, 0, 0) and mirrored in x. `uri` names the buffer (none: the GLB chunk).
pub fn gltf_parts(s: &SceneData, uri: Option<&str>) -> (String, Vec<u8>) {
    let m = &s.meshes[0];
    let mut bin = Vec::new();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let pos_len = bin.len();
    for t in &m.triangles {
        for i in t {
            bin.extend_from_slice(&i.to_le_bytes());
        }
    }
    let idx_len = bin.len() - pos_len;
    let b = m.bounds();
    let uri = uri.map(|u| format!(r#""uri":"{u}","#)).unwrap_or_default();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
"buffers":[{{{uri}"byteLength":{}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{pos_len}}},{{"buffer":0,"byteOffset":{pos_len},"byteLength":{idx_len}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},
{{"bufferView":1,"componentType":5125,"count":{},"type":"SCALAR"}}],
"meshes":[{{"name":"bunny","primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"nodes":[{{"name":"left","mesh":0}},{{"name":"right","mesh":0,"matrix":[-1,0,0,0, 0,1,0,0, 0,0,1,0, 20,0,0,1]}}],
"scenes":[{{"nodes":[0,1]}}],"scene":0}}"#,
        bin.len(),
        m.positions.len(),
        b.min.x,
        b.min.y,
        b.min.z,
        b.max.x,
        b.max.y,
        b.max.z,
        m.triangles.len() * 3
    );
    (json, bin)
}

pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            s.push(if k <= c.len() {
                A[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s
}

/// The two bunnies as a .gltf with an embedded base64 buffer.
pub fn write_gltf(dir: &TempDir, s: &SceneData) -> PathBuf {
    let (_, bin) = gltf_parts(s, None);
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let (json, _) = gltf_parts(s, Some(&uri));
    let path = dir.path("two_bunnies.gltf");
    std::fs::write(&path, json).unwrap();
    path
}

/// The two bunnies as a GLB.
pub fn write_glb(dir: &TempDir, s: &SceneData) -> PathBuf {
    let (json, bin) = gltf_parts(s, None);
    let mut j = json.into_bytes();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + j.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    let path = dir.path("two_bunnies.glb");
    std::fs::write(&path, out).unwrap();
    path
}

// ---------------------------------------------------------------- commands

pub fn f(v: &serde_json::Value) -> f32 {
    v.as_f64().unwrap() as f32
}
