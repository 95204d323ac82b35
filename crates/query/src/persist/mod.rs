//! Built meshes and scenes saved to bytes and loaded back without rebuilding
//! ([`Mesh::to_bytes`](crate::Mesh::to_bytes), [`Mesh::from_bytes`](crate::Mesh::from_bytes),
//! [`Scene::to_bytes`](crate::Scene::to_bytes), [`Scene::from_bytes`](crate::Scene::from_bytes)).
//!
//! What is saved is what queries use: the 8-wide tree in its node layout, the leaf order,
//! the vertex indices and the vertices; for a scene, each shared mesh once and every
//! instance slot (transform in f64, mask, user data, generation), so that instance ids stay
//! valid across a save and a load. Loading rebuilds nothing but the scene's top-level tree
//! (one box per instance), so the answers after a load are bit for bit those before.
//!
//! # Format (versions 1 and 2)
//! Version 1 holds meshes and scenes; version 2 is a version 1 scene followed by its point
//! and segment sets (written only when the scene has some, so a scene without them keeps
//! the version 1 bytes). All integers and floats are little-endian. A 32-byte header:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic [`MAGIC`] |
//! | 8 | 4 | format version, [`FORMAT_VERSION`] |
//! | 12 | 4 | kind: 1 mesh, 2 scene |
//! | 16 | 8 | payload length in bytes; the file is exactly header + payload |
//! | 24 | 4 | CRC-32 (IEEE) of the payload |
//! | 28 | 4 | reserved, 0 |
//!
//! A mesh payload: requested layout (u32: 0 auto, 1 plain, 2 compact), stored layout (u32: 1
//! or 2), tree depth (u32), 0 (u32), vertex count `V` (u64), leaf slot count `T` (u64: the
//! triangle count, or more when triangles were pre-split), node count `M` (u64); then `V`
//! vertices (3 f32 each), `T` vertex-index triples in leaf order (3 u32), `T` original
//! triangle indices in leaf order (u32), and `M` nodes in the stored layout (256 or 128
//! bytes, see `raypick_bvh::wide::WideBvh::write_nodes`).
//!
//! A scene payload: mesh count, slot count, free-slot count, 0 (u32 each); per mesh its
//! payload length (u64) and a mesh payload; per slot its generation (u32) and kind (u32: 0
//! empty, 1 mesh instance, 2 shape), and for a live slot its mask (u32), user data (u64) and
//! object-to-world matrix (16 f64, row-major), then the mesh id (u32) or the shape (a u32
//! tag and its parameters, see `scene`); then the free slots (u32 each) in reuse order.
//!
//! Version 2 appends: the set count `S` and the set-instance slot count `P` (u32 each); per
//! set its kind (u32: 1 points, 2 segments), point count `N` and segment count `M` (u64
//! each), `N` points (3 f32) and `M` point-index pairs (2 u32); per set-instance slot its
//! generation (u32) and set (u32, `u32::MAX` for an empty slot), and for a live slot its
//! mask (u32), user data (u64) and object-to-world matrix (16 f64, row-major). A set shared
//! by several instances is saved once. The sets' trees are rebuilt on load (a Morton build,
//! deterministic, so the answers are those before the save).
//!
//! # Loading untrusted bytes
//! Every structural invariant is checked before anything is trusted: the header, the
//! checksum, lengths against the counts, finite vertices, indices in range, the leaf order
//! holding every triangle (once, or in several slots with the same corners when it was
//! pre-split), every node (see `raypick_bvh::wide::WideBvh::read_nodes`), every leaf box
//! containing its triangles (for a pre-split triangle: its parts, as the pre-split cuts
//! them, each inside the leaf box of one of its slots), the
//! transforms, mesh ids and free slots of a scene. A corrupted, truncated or hostile input
//! gets a [`LoadError`] naming the problem: no panic, no huge allocation (nothing is
//! allocated beyond what the input's own length holds), no undefined behaviour.

mod mesh;
mod prims;
mod scene;

pub use scene::SaveError;

use std::fmt;

use raypick_bvh::wide::WideLoadError;

/// The bytes every saved mesh or scene starts with (a non-ASCII first byte and a CR LF pair,
/// so that a text-mode transfer or a truncated ASCII file is caught at once).
pub const MAGIC: [u8; 8] = *b"\x89RPK\r\n\x1a\n";
/// The newest format version, written for a scene with point or segment sets (version 1
/// otherwise); versions 1 to this one are read.
pub const FORMAT_VERSION: u32 = 2;
const HEADER: usize = 32;

/// What a saved file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedKind {
    /// A [`Mesh`](crate::Mesh).
    Mesh,
    /// A [`Scene`](crate::Scene).
    Scene,
}

impl SavedKind {
    fn code(self) -> u32 {
        match self {
            SavedKind::Mesh => 1,
            SavedKind::Scene => 2,
        }
    }
}

impl fmt::Display for SavedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SavedKind::Mesh => "mesh",
            SavedKind::Scene => "scene",
        })
    }
}

/// The kind of saved data `bytes` holds, by its header alone (no validation beyond the
/// magic bytes, version and kind); `None` when it is not a saved mesh or scene.
#[must_use]
pub fn saved_kind(bytes: &[u8]) -> Option<SavedKind> {
    if bytes.len() < HEADER
        || bytes[..8] != MAGIC
        || !(1..=FORMAT_VERSION).contains(&u32_le(&bytes[8..12]))
    {
        return None;
    }
    match u32_le(&bytes[12..16]) {
        1 => Some(SavedKind::Mesh),
        2 => Some(SavedKind::Scene),
        _ => None,
    }
}

/// Why saved bytes could not be loaded. Each variant names what is wrong and where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Not a saved raypick mesh or scene (the magic bytes differ).
    #[error("not a saved raypick mesh or scene (bad magic bytes)")]
    BadMagic,
    /// Saved by another format version.
    #[error("format version {found} (this build reads versions 1 to {FORMAT_VERSION})")]
    UnsupportedVersion {
        /// The version in the header.
        found: u32,
    },
    /// A mesh where a scene was expected, or the other way round.
    #[error("the file holds a {found}, not a {expected}")]
    WrongKind {
        /// What the caller asked for.
        expected: SavedKind,
        /// What the file holds (`None`: an unknown kind code).
        found: KindFound,
    },
    /// The input ends before what it declares, or goes on after it.
    #[error("{what}: needs {needed} bytes, {available} available")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// Bytes after the end of the declared payload.
    #[error("{extra} bytes after the end of the data")]
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The payload's checksum differs from the header's: the data was changed.
    #[error(
        "checksum mismatch (header {stored:#010x}, data {computed:#010x}): the data is corrupted"
    )]
    Checksum {
        /// The header's.
        stored: u32,
        /// The payload's.
        computed: u32,
    },
    /// A field holds a value the format does not allow.
    #[error("{0}")]
    Invalid(String),
    /// The tree's nodes are invalid (in mesh `mesh` of a scene, if given).
    #[error("{}tree: {error}", mesh_prefix(*.mesh))]
    Tree {
        /// The mesh of a scene, by id; `None` for a single mesh.
        mesh: Option<u32>,
        /// What is wrong.
        error: WideLoadError,
    },
}

/// The kind code found in a header, for [`LoadError::WrongKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindFound(pub u32);

impl fmt::Display for KindFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            1 => f.write_str("mesh"),
            2 => f.write_str("scene"),
            k => write!(f, "kind {k}"),
        }
    }
}

fn mesh_prefix(mesh: Option<u32>) -> String {
    mesh.map_or(String::new(), |m| format!("mesh {m}: "))
}

fn u32_le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// A writer with room for the header, which [`finish`] fills in.
pub(crate) fn start() -> Writer {
    Writer {
        out: vec![0; HEADER],
    }
}

/// The saved bytes: `w`'s payload under the header for `kind` and format `version`.
pub(crate) fn finish(kind: SavedKind, version: u32, w: Writer) -> Vec<u8> {
    let mut out = w.out;
    let len = (out.len() - HEADER) as u64;
    let crc = crc32fast::hash(&out[HEADER..]);
    let mut h = Vec::with_capacity(HEADER);
    h.extend_from_slice(&MAGIC);
    h.extend_from_slice(&version.to_le_bytes());
    h.extend_from_slice(&kind.code().to_le_bytes());
    h.extend_from_slice(&len.to_le_bytes());
    h.extend_from_slice(&crc.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    out[..HEADER].copy_from_slice(&h);
    out
}

/// The payload of `bytes` and its format version, once the header, the length and the
/// checksum are right.
pub(crate) fn payload(bytes: &[u8], kind: SavedKind) -> Result<(&[u8], u32), LoadError> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(LoadError::BadMagic);
    }
    let mut r = Reader::new(&bytes[8..]);
    let version = r.u32("header")?;
    if !(1..=FORMAT_VERSION).contains(&version) {
        return Err(LoadError::UnsupportedVersion { found: version });
    }
    let found = r.u32("header")?;
    if found != kind.code() {
        return Err(LoadError::WrongKind {
            expected: kind,
            found: KindFound(found),
        });
    }
    let len = r.u64("header")?;
    let stored = r.u32("header")?;
    if r.u32("header")? != 0 {
        return Err(LoadError::Invalid("header: reserved field is not 0".into()));
    }
    let available = r.remaining() as u64;
    if len > available {
        return Err(LoadError::Truncated {
            what: "payload",
            needed: len,
            available,
        });
    }
    if len < available {
        return Err(LoadError::TrailingBytes {
            extra: available - len,
        });
    }
    let data = r.rest();
    let computed = crc32fast::hash(data);
    if computed != stored {
        return Err(LoadError::Checksum { stored, computed });
    }
    Ok((data, version))
}

/// Little-endian writes.
#[derive(Default)]
pub(crate) struct Writer {
    pub out: Vec<u8>,
}

impl Writer {
    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub fn f32(&mut self, v: f32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub fn f64(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Bounds-checked little-endian reads: each names what it reads in the error.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }

    pub fn remaining(&self) -> usize {
        self.data.len()
    }

    /// The rest of the data, consumed.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    /// The next `count` items of `size` bytes, consumed; an error (before any allocation)
    /// when the data is shorter.
    pub fn take(
        &mut self,
        what: &'static str,
        count: u64,
        size: usize,
    ) -> Result<&'a [u8], LoadError> {
        let needed = count.checked_mul(size as u64);
        match needed {
            Some(n) if n <= self.data.len() as u64 => {
                let (head, tail) = self.data.split_at(n as usize);
                self.data = tail;
                Ok(head)
            }
            _ => Err(LoadError::Truncated {
                what,
                needed: needed.unwrap_or(u64::MAX),
                available: self.data.len() as u64,
            }),
        }
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, LoadError> {
        self.take(what, 1, 4).map(u32_le)
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64, LoadError> {
        let b = self.take(what, 1, 8)?;
        Ok(u64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }

    pub fn f64(&mut self, what: &'static str) -> Result<f64, LoadError> {
        self.u64(what).map(f64::from_bits)
    }

    pub fn f32(&mut self, what: &'static str) -> Result<f32, LoadError> {
        self.u32(what).map(f32::from_bits)
    }
}

/// Little-endian `u32`s and `f32`s of an exact slice (from [`Reader::take`]).
pub(crate) fn u32s(b: &[u8]) -> impl ExactSizeIterator<Item = u32> + '_ {
    b.chunks_exact(4).map(u32_le)
}
