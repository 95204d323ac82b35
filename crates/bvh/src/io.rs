//! Save and load: a versioned little-endian binary format.
//!
//! Layout (all integers and floats little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `b"RPKBVH\r\n"` |
//! | 8 | 4 | format version, [`FORMAT_VERSION`] |
//! | 12 | 4 | flags, 0 |
//! | 16 | 4 | node count `N` |
//! | 20 | 4 | primitive count `P` |
//! | 24 | 4 | depth |
//! | 28 | 4 | reserved, 0 |
//! | 32 | 8 | FNV-1a 64 checksum of the bytes from offset 40 to the end |
//! | 40 | 32 N | nodes: `min` 3 x f32, `index` u32, `max` 3 x f32, `count` u32 |
//! | 40 + 32 N | 4 P | primitive indices in leaf order, u32 |
//!
//! The total length must be exactly `40 + 32 N + 4 P`.

use std::io::{Read, Write};

use crate::validate::check_structure;
use crate::{Bvh, Node, ValidationError, MAX_DEPTH};

/// The magic bytes that start a saved tree.
pub const MAGIC: [u8; 8] = *b"RPKBVH\r\n";
/// The format version written by [`Bvh::to_bytes`] and the only one read.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 40;

/// Why loading a saved tree failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Fewer bytes than the fixed-size header.
    #[error("{found} bytes is shorter than the {needed}-byte header")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes found.
        found: usize,
    },
    /// The data does not start with [`MAGIC`].
    #[error("not a raypick BVH (bad magic bytes)")]
    BadMagic,
    /// A version other than [`FORMAT_VERSION`].
    #[error("unsupported format version {version} (this build reads {FORMAT_VERSION})")]
    UnsupportedVersion {
        /// The version found.
        version: u32,
    },
    /// Flags or reserved fields are not zero, or the counts are inconsistent.
    #[error("bad header: {0}")]
    BadHeader(&'static str),
    /// The length disagrees with the counts in the header (truncated or trailing bytes).
    #[error("the header's counts need {expected} bytes but {found} were given")]
    LengthMismatch {
        /// Bytes the header's counts need.
        expected: u64,
        /// Bytes given.
        found: u64,
    },
    /// The checksum of the nodes and indices is wrong.
    #[error("checksum mismatch: stored {stored:#018x}, computed {computed:#018x}")]
    ChecksumMismatch {
        /// The stored checksum.
        stored: u64,
        /// The checksum of the data.
        computed: u64,
    },
    /// The nodes and indices do not form a valid tree.
    #[error("invalid tree: {0}")]
    Invalid(#[from] ValidationError),
    /// Reading failed.
    #[error("read error: {0}")]
    Io(#[from] std::io::Error),
}

/// FNV-1a, 64 bits: detects every single-byte change.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

struct Header {
    nodes: usize,
    depth: usize,
    checksum: u64,
    /// Payload bytes the counts need.
    payload: u64,
}

fn parse_header(b: &[u8]) -> Result<Header, LoadError> {
    if b.len() < HEADER {
        return Err(LoadError::Truncated {
            needed: HEADER,
            found: b.len(),
        });
    }
    if b[..8] != MAGIC {
        return Err(LoadError::BadMagic);
    }
    let version = u32_at(b, 8);
    if version != FORMAT_VERSION {
        return Err(LoadError::UnsupportedVersion { version });
    }
    if u32_at(b, 12) != 0 || u32_at(b, 28) != 0 {
        return Err(LoadError::BadHeader("flags or reserved field not zero"));
    }
    let nodes = u32_at(b, 16) as u64;
    let prims = u32_at(b, 20) as u64;
    let depth = u32_at(b, 24) as usize;
    if (nodes == 0) != (prims == 0) || (prims > 0 && nodes > 2 * prims - 1) {
        return Err(LoadError::BadHeader(
            "node count impossible for the primitive count",
        ));
    }
    if depth > MAX_DEPTH {
        return Err(LoadError::BadHeader("depth beyond MAX_DEPTH"));
    }
    let mut checksum = [0u8; 8];
    checksum.copy_from_slice(&b[32..40]);
    Ok(Header {
        nodes: nodes as usize,
        depth,
        checksum: u64::from_le_bytes(checksum),
        payload: nodes * 32 + prims * 4,
    })
}

fn parse_payload(h: &Header, payload: &[u8]) -> Result<Bvh, LoadError> {
    if payload.len() as u64 != h.payload {
        return Err(LoadError::LengthMismatch {
            expected: HEADER as u64 + h.payload,
            found: (HEADER + payload.len()) as u64,
        });
    }
    let computed = fnv1a(payload);
    if computed != h.checksum {
        return Err(LoadError::ChecksumMismatch {
            stored: h.checksum,
            computed,
        });
    }
    // Both allocations are bounded by the input length checked above.
    let (node_bytes, index_bytes) = payload.split_at(h.nodes * 32);
    let nodes: Vec<Node> = node_bytes
        .chunks_exact(32)
        .map(|c| Node {
            min: [f32_at(c, 0), f32_at(c, 4), f32_at(c, 8)],
            index: u32_at(c, 12),
            max: [f32_at(c, 16), f32_at(c, 20), f32_at(c, 24)],
            count: u32_at(c, 28),
        })
        .collect();
    let prim_indices: Vec<u32> = index_bytes.chunks_exact(4).map(|c| u32_at(c, 0)).collect();
    let depth = check_structure(&nodes, &prim_indices, h.depth)?;
    Ok(Bvh {
        nodes,
        prim_indices,
        depth,
    })
}

impl Bvh {
    /// The tree in the binary format described in the `io` module docs (magic, version,
    /// counts, checksum, nodes, indices). Loads back with [`Bvh::from_bytes`] to an equal tree.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload_len = self.nodes.len() * 32 + self.prim_indices.len() * 4;
        let mut out = Vec::with_capacity(HEADER + payload_len);
        out.extend_from_slice(&MAGIC);
        for v in [
            FORMAT_VERSION,
            0,
            self.nodes.len() as u32,
            self.prim_indices.len() as u32,
            self.depth as u32,
            0,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[0; 8]);
        for n in &self.nodes {
            for v in n.min {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&n.index.to_le_bytes());
            for v in n.max {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&n.count.to_le_bytes());
        }
        for i in &self.prim_indices {
            out.extend_from_slice(&i.to_le_bytes());
        }
        let sum = fnv1a(&out[HEADER..]);
        out[32..40].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Writes [`Bvh::to_bytes`] to `w`.
    pub fn write_to<W: Write>(&self, mut w: W) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Loads a tree saved by [`Bvh::to_bytes`], checking everything: magic, version, that the
    /// length is exactly what the counts need, the checksum, and then the tree itself (child
    /// and leaf ranges, every node reached once, the index permutation, finite nested boxes,
    /// depth at most [`MAX_DEPTH`]). Hostile or truncated bytes give an error, never a panic,
    /// and nothing larger than the input is allocated.
    ///
    /// The primitive boxes are not stored, so a loaded tree's leaf boxes cannot be checked
    /// against them here: call [`Bvh::validate`] with the boxes for that.
    ///
    /// ```
    /// use raypick_bvh::{BuildConfig, Bvh};
    /// use raypick_primitives::{Aabb, Point3};
    /// let boxes = vec![Aabb::from_point(Point3::origin()), Aabb::from_point(Point3::new(1.0, 0.0, 0.0))];
    /// let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
    /// let bytes = bvh.to_bytes();
    /// assert_eq!(Bvh::from_bytes(&bytes).unwrap(), bvh);
    /// assert!(Bvh::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Bvh, LoadError> {
        let h = parse_header(bytes)?;
        parse_payload(&h, &bytes[HEADER..])
    }

    /// Loads a tree from a reader (see [`Bvh::from_bytes`]). Reads the header, then at most
    /// the payload length it announces; memory grows only with the bytes actually read.
    /// Trailing data after the tree is left unread.
    pub fn read_from<R: Read>(mut r: R) -> Result<Bvh, LoadError> {
        let mut header = [0u8; HEADER];
        let mut got = 0;
        while got < HEADER {
            match r.read(&mut header[got..]) {
                Ok(0) => {
                    return Err(LoadError::Truncated {
                        needed: HEADER,
                        found: got,
                    })
                }
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let h = parse_header(&header)?;
        let mut payload = Vec::new();
        r.take(h.payload).read_to_end(&mut payload)?;
        parse_payload(&h, &payload)
    }
}
