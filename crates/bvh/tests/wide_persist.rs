//! Wide trees saved with `write_nodes` and read back with `read_nodes`: every preset, size
//! and box family round trips exactly, in both layouts, and broken nodes are rejected.

mod common;

use common::{families, presets};
use raypick_bvh::wide::{Bvh8, CollapseConfig, CompactBvh8, WideLoadError};
use raypick_bvh::{Bvh, MAX_DEPTH};

fn trees() -> Vec<(String, Bvh8)> {
    let mut out = Vec::new();
    for n in [0usize, 1, 2, 9, 100, 2000] {
        for (family, boxes) in families(n, n as u64 + 3) {
            for (preset, config) in presets() {
                let bvh = Bvh::build(&boxes, &config).unwrap();
                for collapse in [CollapseConfig::new(), CollapseConfig::merge_leaves()] {
                    out.push((
                        format!("{family} n={n} {preset}"),
                        Bvh8::from_bvh_with(&bvh, &collapse),
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn plain_and_compact_trees_round_trip() {
    for (name, tree) in trees() {
        let mut bytes = Vec::new();
        tree.write_nodes(&mut bytes);
        assert_eq!(bytes.len(), tree.nodes().len() * Bvh8::SAVED_NODE_BYTES);
        let back = Bvh8::read_nodes(&bytes, tree.len(), tree.depth()).unwrap();
        assert_eq!(back, tree, "{name}");
        let compact = CompactBvh8::from_wide(&tree).unwrap();
        let mut cbytes = Vec::new();
        compact.write_nodes(&mut cbytes);
        assert_eq!(
            cbytes.len(),
            compact.nodes().len() * CompactBvh8::SAVED_NODE_BYTES
        );
        let cback = CompactBvh8::read_nodes(&cbytes, tree.len(), tree.depth()).unwrap();
        assert_eq!(cback, compact, "{name}");
    }
}

#[test]
fn broken_nodes_are_rejected() {
    let (_, tree) = trees()
        .into_iter()
        .find(|(n, t)| n.contains("n=100") && t.nodes().len() > 2)
        .unwrap();
    let mut bytes = Vec::new();
    tree.write_nodes(&mut bytes);
    let (n, d) = (tree.len(), tree.depth());
    assert!(matches!(
        Bvh8::read_nodes(&bytes[1..], n, d),
        Err(WideLoadError::Length { .. })
    ));
    assert!(matches!(
        Bvh8::read_nodes(&bytes, n, MAX_DEPTH + 1),
        Err(WideLoadError::TooDeep { .. })
    ));
    assert!(matches!(
        Bvh8::read_nodes(&bytes, n + 1, d),
        Err(WideLoadError::Invalid(_))
    ));
    assert!(matches!(
        Bvh8::read_nodes(&bytes, n, d + 1),
        Err(WideLoadError::Invalid(_))
    ));
    // Node 0's last slot: a box in an unused slot, or a used slot after an unused one.
    let last = tree.nodes()[0].child_count();
    if last < 8 {
        let mut b = bytes.clone();
        b[4 * last..4 * last + 4].copy_from_slice(&0.0f32.to_le_bytes());
        assert!(matches!(
            Bvh8::read_nodes(&b, n, d),
            Err(WideLoadError::BadNode { node: 0, .. })
        ));
    }
    // Every single-byte change: an error or a tree that validates, never a panic.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x40;
        if let Ok(t) = Bvh8::read_nodes(&b, n, d) {
            t.validate().unwrap();
        }
    }
    let compact = CompactBvh8::from_wide(&tree).unwrap();
    let mut cbytes = Vec::new();
    compact.write_nodes(&mut cbytes);
    let mut rejected = 0;
    for i in 0..cbytes.len() {
        for flip in [0x01u8, 0x40, 0x80] {
            let mut b = cbytes.clone();
            b[i] ^= flip;
            match CompactBvh8::read_nodes(&b, n, d) {
                Ok(t) => {
                    t.validate().unwrap();
                }
                Err(_) => rejected += 1,
            }
        }
    }
    assert!(rejected > 0);
    // A step that is not a power of two (node 0, x step at byte 12).
    let mut b = cbytes.clone();
    b[12..16].copy_from_slice(&3.0f32.to_le_bytes());
    assert!(matches!(
        CompactBvh8::read_nodes(&b, n, d),
        Err(WideLoadError::BadNode { node: 0, .. })
    ));
}
