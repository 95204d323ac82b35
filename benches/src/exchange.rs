//! The benchmark exchange format of `workloads.md` (little-endian), so that tools outside Rust
//! (Embree through `embree_ref.py`) run exactly the same work.
//!
//! - mesh: `u32 nverts, u32 ntris, f32 x,y,z * nverts, u32 i0,i1,i2 * ntris`
//! - rays: `u32 n`, then per ray `f32 ox,oy,oz,dx,dy,dz,tmax` (`tmax` may be `+inf`)
//!
//! Readers take the whole byte buffer and check its length against the header before
//! allocating, so truncated or hostile input is an error, never a panic or a huge allocation.

use std::io::{self, Write};

use raypick_primitives::{Point3, Ray, Vector3};

use crate::workloads::{BenchRay, MeshData};

/// Why a buffer is not a valid exchange file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExchangeError {
    /// The buffer is shorter than its header says (or than the header itself).
    #[error("truncated: {what} needs {needed} bytes, got {got}")]
    Truncated {
        /// Which part was cut.
        what: &'static str,
        /// Bytes the header implies.
        needed: u64,
        /// Bytes present.
        got: u64,
    },
    /// Bytes remain after the data the header announces.
    #[error("{extra} trailing bytes after the {what}")]
    Trailing {
        /// Mesh or rays.
        what: &'static str,
        /// How many bytes are left over.
        extra: u64,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} has index {index} but there are {nverts} vertices")]
    IndexOutOfRange {
        /// Which triangle.
        triangle: usize,
        /// The offending index.
        index: u32,
        /// Number of vertices.
        nverts: u32,
    },
    /// More items than fit in the format's u32 counts (writer side).
    #[error("{what} count {count} does not fit in u32")]
    TooMany {
        /// Vertices, triangles or rays.
        what: &'static str,
        /// The count.
        count: usize,
    },
}

fn count_u32(what: &'static str, n: usize) -> io::Result<u32> {
    u32::try_from(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            ExchangeError::TooMany { what, count: n },
        )
    })
}

/// Writes `mesh` in the exchange format. Indices are written as given (not validated).
///
/// # Errors
/// I/O errors of `w`, or `InvalidInput` when a count exceeds `u32::MAX`.
pub fn write_mesh<W: Write>(mut w: W, mesh: &MeshData) -> io::Result<()> {
    let nv = count_u32("vertex", mesh.positions.len())?;
    let nt = count_u32("triangle", mesh.triangles.len())?;
    let mut buf = Vec::with_capacity(8 + 12 * (mesh.positions.len() + mesh.triangles.len()));
    buf.extend_from_slice(&nv.to_le_bytes());
    buf.extend_from_slice(&nt.to_le_bytes());
    for p in &mesh.positions {
        for c in [p.x, p.y, p.z] {
            buf.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &mesh.triangles {
        for i in t {
            buf.extend_from_slice(&i.to_le_bytes());
        }
    }
    w.write_all(&buf)
}

/// Writes `rays` in the exchange format.
///
/// # Errors
/// I/O errors of `w`, or `InvalidInput` when there are more than `u32::MAX` rays.
pub fn write_rays<W: Write>(mut w: W, rays: &[BenchRay]) -> io::Result<()> {
    let n = count_u32("ray", rays.len())?;
    let mut buf = Vec::with_capacity(4 + 28 * rays.len());
    buf.extend_from_slice(&n.to_le_bytes());
    for r in rays {
        let (o, d) = (r.ray.origin, r.ray.dir);
        for c in [o.x, o.y, o.z, d.x, d.y, d.z, r.t_max] {
            buf.extend_from_slice(&c.to_le_bytes());
        }
    }
    w.write_all(&buf)
}

fn u32_at(b: &[u8], word: usize) -> u32 {
    let i = word * 4;
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn f32_at(b: &[u8], word: usize) -> f32 {
    f32::from_bits(u32_at(b, word))
}

fn check_len(what: &'static str, bytes: &[u8], needed: u64) -> Result<(), ExchangeError> {
    let got = bytes.len() as u64;
    if got < needed {
        return Err(ExchangeError::Truncated { what, needed, got });
    }
    if got > needed {
        return Err(ExchangeError::Trailing {
            what,
            extra: got - needed,
        });
    }
    Ok(())
}

/// Reads a mesh. Any float bit pattern is accepted (NaN included); indices must be below
/// `nverts`.
///
/// # Errors
/// Truncated or over-long buffers, and out-of-range indices (naming the triangle).
pub fn read_mesh(bytes: &[u8]) -> Result<MeshData, ExchangeError> {
    check_len("mesh header", bytes.get(..8).unwrap_or(bytes), 8)?;
    let nv = u32_at(bytes, 0);
    let nt = u32_at(bytes, 1);
    // u64 arithmetic cannot overflow: 8 + 12 * (2^32 - 1) * 2 < 2^64.
    check_len("mesh", bytes, 8 + 12 * u64::from(nv) + 12 * u64::from(nt))?;
    let positions = (0..nv as usize)
        .map(|v| {
            let w = 2 + 3 * v;
            Point3::new(f32_at(bytes, w), f32_at(bytes, w + 1), f32_at(bytes, w + 2))
        })
        .collect();
    let base = 2 + 3 * nv as usize;
    let mut triangles = Vec::with_capacity(nt as usize);
    for t in 0..nt as usize {
        let w = base + 3 * t;
        let tri = [u32_at(bytes, w), u32_at(bytes, w + 1), u32_at(bytes, w + 2)];
        if let Some(&index) = tri.iter().find(|&&i| i >= nv) {
            return Err(ExchangeError::IndexOutOfRange {
                triangle: t,
                index,
                nverts: nv,
            });
        }
        triangles.push(tri);
    }
    Ok(MeshData {
        positions,
        triangles,
    })
}

/// Reads a ray set. Any float bit pattern is accepted.
///
/// # Errors
/// Truncated or over-long buffers.
pub fn read_rays(bytes: &[u8]) -> Result<Vec<BenchRay>, ExchangeError> {
    check_len("rays header", bytes.get(..4).unwrap_or(bytes), 4)?;
    let n = u32_at(bytes, 0);
    check_len("rays", bytes, 4 + 28 * u64::from(n))?;
    Ok((0..n as usize)
        .map(|r| {
            let w = 1 + 7 * r;
            let f = |k| f32_at(bytes, w + k);
            BenchRay {
                ray: Ray::new(
                    Point3::new(f(0), f(1), f(2)),
                    Vector3::new(f(3), f(4), f(5)),
                ),
                t_max: f(6),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads::{soup, RaySet, Workload};

    #[test]
    fn mesh_and_rays_round_trip_bit_exactly() {
        let mesh = soup(50, 3);
        let mut rays = RaySet::Random.rays(Workload::Soup100k, &mesh, 20);
        rays[3].t_max = 2.5;
        let (mut mb, mut rb) = (Vec::new(), Vec::new());
        write_mesh(&mut mb, &mesh).unwrap();
        write_rays(&mut rb, &rays).unwrap();
        assert_eq!(mb.len(), 8 + 12 * (150 + 50));
        assert_eq!(rb.len(), 4 + 28 * 20);
        assert_eq!(&mb[..8], &[150, 0, 0, 0, 50, 0, 0, 0]);
        assert_eq!(read_mesh(&mb).unwrap(), mesh);
        let back = read_rays(&rb).unwrap();
        assert_eq!(back, rays);
        assert!(back[0].t_max.is_infinite() && back[3].t_max == 2.5);
    }

    #[test]
    fn hostile_buffers_are_errors() {
        let mesh = soup(4, 1);
        let mut mb = Vec::new();
        write_mesh(&mut mb, &mesh).unwrap();
        assert!(matches!(
            read_mesh(&mb[..mb.len() - 1]),
            Err(ExchangeError::Truncated { .. })
        ));
        assert!(matches!(
            read_mesh(&mb[..5]),
            Err(ExchangeError::Truncated { .. })
        ));
        let mut long = mb.clone();
        long.push(0);
        assert_eq!(
            read_mesh(&long),
            Err(ExchangeError::Trailing {
                what: "mesh",
                extra: 1
            })
        );
        // Triangle 2's second index points past the 12 vertices.
        let at = 8 + 12 * 12 + 12 * 2 + 4;
        mb[at..at + 4].copy_from_slice(&12u32.to_le_bytes());
        assert_eq!(
            read_mesh(&mb),
            Err(ExchangeError::IndexOutOfRange {
                triangle: 2,
                index: 12,
                nverts: 12
            })
        );
        // A header announcing 2^32-1 rays in 4 bytes must not allocate or panic.
        assert!(matches!(
            read_rays(&u32::MAX.to_le_bytes()),
            Err(ExchangeError::Truncated { .. })
        ));
        assert!(read_rays(&[]).is_err());
    }
}
