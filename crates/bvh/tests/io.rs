//! Save/load: round trips, and hostile bytes never panic.

mod common;

use std::ops::ControlFlow;

use common::*;
use raypick_bvh::io::{FORMAT_VERSION, MAGIC};
use raypick_bvh::{BuildConfig, Bvh, LoadError, ValidationError};
use raypick_primitives::{Point3, Ray, Vector3};

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= 40 {
        let sum = fnv1a(&bytes[40..]);
        bytes[32..40].copy_from_slice(&sum.to_le_bytes());
    }
}

/// Exercises a loaded tree: it must not panic whatever it is.
fn exercise(bvh: &Bvh) {
    let stats = bvh
        .validate_structure()
        .expect("a loaded tree passes the structure checks");
    assert_eq!(stats.prim_count, bvh.len());
    let mut rng = Rng::new(1);
    for _ in 0..8 {
        let ray = random_ray(&mut rng, 12.0);
        bvh.traverse_ray(&ray, 0.0, f32::INFINITY, |r, _| {
            assert!(r.end <= bvh.len());
            ControlFlow::Continue(())
        });
    }
    bvh.traverse_aabb(&bx([-5.0; 3], [5.0; 3]), |r| {
        assert!(r.end <= bvh.len());
        ControlFlow::Continue(())
    });
    bvh.traverse_best_first(
        f32::INFINITY,
        |b| b.min.x.abs(),
        |_, _| ControlFlow::Continue(()),
    );
    let _ = bvh.sah_cost();
}

fn small_trees() -> Vec<(Bvh, Vec<raypick_primitives::Aabb>)> {
    let mut rng = Rng::new(2);
    let mut out = Vec::new();
    for n in [0usize, 1, 2, 5, 13] {
        let boxes = random_boxes(&mut rng, n, 10.0, 1.0);
        let cfg = BuildConfig {
            max_leaf_size: 2,
            ..BuildConfig::default()
        };
        out.push((Bvh::build(&boxes, &cfg).unwrap(), boxes));
    }
    out
}

#[test]
fn round_trip_is_identical() {
    let mut rng = Rng::new(3);
    for n in [0usize, 1, 2, 3, 64, 300, 5000] {
        for (fam, boxes) in families(n, n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let bytes = bvh.to_bytes();
                assert_eq!(bytes.len(), 40 + 32 * bvh.nodes().len() + 4 * n);
                assert_eq!(&bytes[..8], &MAGIC);
                let back =
                    Bvh::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name} {fam} {n}: {e}"));
                assert_eq!(back, bvh);
                back.validate(&boxes).unwrap();
                let mut buf = Vec::new();
                bvh.write_to(&mut buf).unwrap();
                assert_eq!(buf, bytes);
                // Trailing data after the tree is left in the reader.
                buf.extend_from_slice(b"tail");
                let mut cursor = std::io::Cursor::new(&buf);
                assert_eq!(Bvh::read_from(&mut cursor).unwrap(), bvh);
                assert_eq!(cursor.position() as usize, bytes.len());
            }
        }
    }
    let _ = rng.f32();
}

#[test]
fn every_single_byte_corruption_is_rejected() {
    // The checksum covers the payload and every header field is checked, so no single-byte
    // change can load.
    for (bvh, _) in small_trees() {
        let bytes = bvh.to_bytes();
        for i in 0..bytes.len() {
            for x in [0x01u8, 0x80, 0xff, 0x10] {
                let mut b = bytes.clone();
                b[i] ^= x;
                assert!(Bvh::from_bytes(&b).is_err(), "byte {i} ^ {x:#x} loaded");
                assert!(Bvh::read_from(&b[..]).is_err());
            }
        }
    }
}

#[test]
fn corruption_with_fixed_checksum_is_rejected_or_valid() {
    // Past the checksum: every byte set to a few values must give an error or a tree that
    // passes every structural invariant and traverses without panicking.
    let mut loaded = 0;
    let mut rejected = 0;
    for (bvh, _) in small_trees() {
        let bytes = bvh.to_bytes();
        for i in 0..bytes.len() {
            for v in [0u8, 1, 2, 0x7f, 0x80, 0xff, bytes[i] ^ 1, bytes[i] ^ 0x40] {
                let mut b = bytes.clone();
                b[i] = v;
                fix_checksum(&mut b);
                match Bvh::from_bytes(&b) {
                    Ok(t) => {
                        exercise(&t);
                        loaded += 1;
                    }
                    Err(_) => rejected += 1,
                }
            }
        }
    }
    assert!(loaded > 0 && rejected > 0, "{loaded} {rejected}");
}

#[test]
fn every_truncation_is_rejected() {
    for (bvh, _) in small_trees() {
        let bytes = bvh.to_bytes();
        for len in 0..bytes.len() {
            let r = Bvh::from_bytes(&bytes[..len]);
            assert!(r.is_err(), "truncated to {len} loaded");
            assert!(Bvh::read_from(&bytes[..len]).is_err());
            // Even with a checksum fixed up.
            let mut b = bytes[..len].to_vec();
            fix_checksum(&mut b);
            assert!(Bvh::from_bytes(&b).is_err());
        }
    }
}

fn header(nodes: u32, prims: u32, depth: u32) -> Vec<u8> {
    let mut b = MAGIC.to_vec();
    for v in [FORMAT_VERSION, 0, nodes, prims, depth, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&[0; 8]);
    b
}

#[test]
fn hostile_headers_are_rejected_cheaply() {
    // Counts announcing gigabytes, with few bytes behind them.
    let b = header(u32::MAX, u32::MAX, 10);
    assert!(matches!(
        Bvh::from_bytes(&b),
        Err(LoadError::LengthMismatch { .. })
    ));
    let mut b = header(2 * 1_000_000_000 - 1, 1_000_000_000, 30);
    b.extend_from_slice(&[0u8; 100]);
    assert!(matches!(
        Bvh::from_bytes(&b),
        Err(LoadError::LengthMismatch { .. })
    ));
    assert!(Bvh::read_from(&b[..]).is_err());
    assert!(matches!(
        Bvh::from_bytes(&header(1, 0, 1)),
        Err(LoadError::BadHeader(_))
    ));
    assert!(matches!(
        Bvh::from_bytes(&header(0, 1, 1)),
        Err(LoadError::BadHeader(_))
    ));
    assert!(matches!(
        Bvh::from_bytes(&header(1, 1, 65)),
        Err(LoadError::BadHeader(_))
    ));
    let mut v2 = header(0, 0, 0);
    v2[8] = 2;
    assert!(matches!(
        Bvh::from_bytes(&v2),
        Err(LoadError::UnsupportedVersion { version: 2 })
    ));
    let mut magic = header(0, 0, 0);
    magic[0] = b'X';
    assert!(matches!(Bvh::from_bytes(&magic), Err(LoadError::BadMagic)));
    // The empty tree's header alone is a valid file.
    let mut empty = header(0, 0, 0);
    fix_checksum(&mut empty);
    assert!(Bvh::from_bytes(&empty).unwrap().is_empty());
}

fn node_bytes(min: [f32; 3], index: u32, max: [f32; 3], count: u32) -> Vec<u8> {
    let mut b = Vec::new();
    for v in min {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&index.to_le_bytes());
    for v in max {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&count.to_le_bytes());
    b
}

#[test]
fn handmade_invalid_trees_name_the_invariant() {
    let file = |nodes: &[Vec<u8>], indices: &[u32], depth: u32| {
        let mut b = header(nodes.len() as u32, indices.len() as u32, depth);
        for n in nodes {
            b.extend_from_slice(n);
        }
        for i in indices {
            b.extend_from_slice(&i.to_le_bytes());
        }
        fix_checksum(&mut b);
        Bvh::from_bytes(&b)
    };
    let invalid = |r: Result<Bvh, LoadError>| match r {
        Err(LoadError::Invalid(e)) => e,
        other => panic!("{other:?}"),
    };
    let leaf = |s, c| node_bytes([0.0; 3], s, [1.0; 3], c);
    // A valid two-leaf tree first.
    let ok = file(
        &[node_bytes([0.0; 3], 1, [1.0; 3], 0), leaf(0, 1), leaf(1, 1)],
        &[1, 0],
        2,
    )
    .unwrap();
    assert_eq!(ok.len(), 2);
    exercise(&ok);
    // Child pointing at itself (a cycle).
    assert_eq!(
        invalid(file(
            &[node_bytes([0.0; 3], 0, [1.0; 3], 0), leaf(0, 1), leaf(1, 1)],
            &[1, 0],
            2
        )),
        ValidationError::BadChild {
            node: 0,
            child: 0,
            len: 3
        }
    );
    // Duplicate primitive index.
    assert_eq!(
        invalid(file(
            &[node_bytes([0.0; 3], 1, [1.0; 3], 0), leaf(0, 1), leaf(1, 1)],
            &[1, 1],
            2
        )),
        ValidationError::DuplicateIndex {
            position: 1,
            index: 1
        }
    );
    // Overlapping leaves.
    assert_eq!(
        invalid(file(
            &[node_bytes([0.0; 3], 1, [1.0; 3], 0), leaf(0, 2), leaf(1, 1)],
            &[1, 0],
            2
        )),
        ValidationError::PositionCoveredTwice {
            node: 2,
            position: 1
        }
    );
    // Child box outside its parent.
    assert_eq!(
        invalid(file(
            &[
                node_bytes([0.0; 3], 1, [1.0; 3], 0),
                leaf(0, 1),
                node_bytes([0.0; 3], 1, [2.0; 3], 1)
            ],
            &[1, 0],
            2
        )),
        ValidationError::ChildNotContained { node: 0, child: 2 }
    );
    // NaN box.
    assert_eq!(
        invalid(file(
            &[node_bytes([f32::NAN, 0.0, 0.0], 0, [1.0; 3], 1)],
            &[0],
            1
        )),
        ValidationError::BadNodeBox { node: 0 }
    );
    // Wrong depth.
    assert_eq!(
        invalid(file(
            &[node_bytes([0.0; 3], 1, [1.0; 3], 0), leaf(0, 1), leaf(1, 1)],
            &[1, 0],
            3
        )),
        ValidationError::DepthMismatch {
            stored: 3,
            actual: 2
        }
    );
    // Zero-count "leaf" that is really an interior node pointing out of range.
    assert!(matches!(
        invalid(file(&[node_bytes([0.0; 3], 5, [1.0; 3], 0)], &[0], 1)),
        ValidationError::NodeCount { .. } | ValidationError::BadChild { .. }
    ));
    let _ = Ray::new(Point3::origin(), Vector3::x());
}
