//! Bounded no-panic sweeps over every truncation and many mutations of small files of every
//! format: each is an error or a smaller scene, never a panic.

mod common;

use common::*;
use raypick_io::{read_bytes, Format};

/// Valid files of every format and variant, for the sweeps.
fn corpus() -> Vec<(Format, Vec<u8>)> {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, SCENE0, None);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64(&gltf_bin(&QUAD_POS, &idx))
    );
    vec![
        (
            Format::Obj,
            b"o a\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\ng b\nf -1 -2 -3\n".to_vec(),
        ),
        (
            Format::Gltf,
            gltf_json(&QUAD_POS, &idx, Some(&uri), TWO_NODES, SCENE0, None).into_bytes(),
        ),
        (Format::Glb, glb(&json, &gltf_bin(&QUAD_POS, &idx))),
        (Format::Ply, ply("ascii", &QUAD_POS, &ply_faces())),
        (
            Format::Ply,
            ply("binary_little_endian", &QUAD_POS, &ply_faces()),
        ),
        (
            Format::Ply,
            ply("binary_big_endian", &QUAD_POS, &ply_faces()),
        ),
        (Format::Stl, ascii_stl(&TRIS).into_bytes()),
        (Format::Stl, binary_stl(&TRIS, &[0; 80], None)),
    ]
}

#[test]
fn every_truncation_is_an_error_or_a_smaller_scene_never_a_panic() {
    for (format, bytes) in corpus() {
        read_bytes(&bytes, format, "ok").unwrap_or_else(|e| panic!("{format:?}: {e}"));
        for len in 0..bytes.len() {
            if let Err(e) = read_bytes(&bytes[..len], format, "cut") {
                assert!(e.is_bad_input(), "{format:?} cut at {len}: {e}");
            }
        }
    }
}

#[test]
fn mutated_files_never_panic() {
    let rounds: usize = std::env::var("RAYPICK_LONG").map_or(300, |_| 30_000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let interesting = [0u8, 0xFF, b'-', b'9', b'\n', b' ', b'n', 0x7F, 0x80];
    for (format, bytes) in corpus() {
        for _ in 0..rounds {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len());
                b[at] = if rng.below(2) == 0 {
                    interesting[rng.below(interesting.len())]
                } else {
                    rng.next() as u8
                };
            }
            if let Err(e) = read_bytes(&b, format, "mutated") {
                assert!(e.is_bad_input(), "{format:?}: {e}");
            }
        }
    }
}
