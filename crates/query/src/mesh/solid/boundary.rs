//! The boundary (rim) of a mesh: the edges its triangles use more often in one direction
//! than in the other, with corners welded by position, walked into loops.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use raypick_primitives::{Point3, Real};

/// A hasher for coordinate bits: a multiply and a rotate per word (the keys are positions,
/// not an adversary's choice, and a collision costs only time).
#[derive(Default)]
struct BitsHasher(u64);

impl Hasher for BitsHasher {
    fn finish(&self) -> u64 {
        self.0 ^ self.0 >> 29
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(4);
        for w in &mut words {
            self.write_u32(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
        for &b in words.remainder() {
            self.write_u32(u32::from(b));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0.rotate_left(26) ^ u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The net rim of a set of directed edges: every edge used more often in one direction than
/// in the other, in that direction, once per unit of the difference (self-loops drop out),
/// in the order of their lower corner, then their higher one. Empty when the edges bound a
/// closed surface.
pub(super) fn rim_edges(edges: impl Iterator<Item = (u32, u32)>) -> Vec<(u32, u32)> {
    let edges: Vec<(u32, u32)> = edges.filter(|(a, b)| a != b).collect();
    let Some(top) = edges.iter().map(|&(a, b)| a.max(b)).max() else {
        return Vec::new();
    };
    // Bucketed by the lower corner (a counting sort: two passes, where a comparison sort of
    // a 1M-triangle mesh's 3M edges took 100 ms), each with its higher corner and +1 for
    // the direction up, -1 for the other.
    let mut start = vec![0usize; top as usize + 2];
    for &(a, b) in &edges {
        start[a.min(b) as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut bucket = vec![(0u32, 0i32); edges.len()];
    for &(a, b) in &edges {
        let lo = a.min(b) as usize;
        bucket[fill[lo]] = (a.max(b), if a < b { 1 } else { -1 });
        fill[lo] += 1;
    }
    let mut rim = Vec::new();
    for lo in 0..=top {
        let run = &mut bucket[start[lo as usize]..start[lo as usize + 1]];
        run.sort_unstable_by_key(|e| e.0);
        for same in run.chunk_by(|x, y| x.0 == y.0) {
            let net: i32 = same.iter().map(|e| e.1).sum();
            let hi = same[0].0;
            let edge = if net > 0 { (lo, hi) } else { (hi, lo) };
            rim.extend(std::iter::repeat_n(edge, net.unsigned_abs() as usize));
        }
    }
    rim
}

/// The rim of a mesh with its corners welded by position ([`welded_rim`]).
pub(super) struct WeldedRim {
    /// The rim's edges, as [`rim_edges`] over indices of `positions`.
    pub(super) edges: Vec<(u32, u32)>,
    /// The welded corners' positions, in the order the rim's edges first reach them.
    pub(super) positions: Vec<[Real; 3]>,
    /// Every vertex index that is a corner of the rim by index, with its welded corner.
    pub(super) welds: Vec<(u32, u32)>,
}

/// The rim of `mesh` (each pre-split triangle once) with its corners welded by position
/// (`-0` and `+0` are one), as [`rim_edges`] over indices of the returned positions, in the
/// order the rim's edges first reach them. The edges that cancel by vertex index cancel
/// by position too, so only the others are welded (all of them for a mesh whose triangles
/// share no index, as an STL file's).
pub(super) fn mesh_rim(mesh: &crate::Mesh) -> (Vec<(u32, u32)>, Vec<[Real; 3]>) {
    let rim = welded_rim(mesh);
    (rim.edges, rim.positions)
}

/// [`mesh_rim`], with the vertex indices welded into each corner.
pub(super) fn welded_rim(mesh: &crate::Mesh) -> WeldedRim {
    let tris = mesh
        .indices
        .iter()
        .enumerate()
        .filter(|(pos, _)| !mesh.is_secondary(*pos))
        .flat_map(|(_, t)| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]);
    let by_index = rim_edges(tris);
    if by_index.is_empty() {
        return WeldedRim {
            edges: by_index,
            positions: Vec::new(),
            welds: Vec::new(),
        };
    }
    let mut at = vec![[0.0; 3]; mesh.vertex_count];
    for (t, c) in mesh.indices.iter().zip(mesh.tris.iter()) {
        for k in 0..3 {
            at[t[k] as usize] = [c[k].x, c[k].y, c[k].z];
        }
    }
    // Each rim corner's position (`-0` as `+0`) welded through a hash of its bits, in the
    // order the corners first appear: a sort of the soup's 600k corners took 60 ms.
    let mut id = vec![u32::MAX; mesh.vertex_count];
    let mut positions: Vec<[Real; 3]> = Vec::new();
    let mut welds = Vec::new();
    let mut seen: HashMap<[u32; 3], u32, BuildHasherDefault<BitsHasher>> = HashMap::default();
    for v in by_index.iter().flat_map(|&(a, b)| [a, b]) {
        if id[v as usize] == u32::MAX {
            let p = at[v as usize].map(|c| c + 0.0);
            id[v as usize] = *seen.entry(p.map(Real::to_bits)).or_insert_with(|| {
                positions.push(p);
                positions.len() as u32 - 1
            });
            welds.push((v, id[v as usize]));
        }
    }
    let edges = rim_edges(
        by_index
            .iter()
            .map(|&(a, b)| (id[a as usize], id[b as usize])),
    );
    WeldedRim {
        edges,
        positions,
        welds,
    }
}

/// `rim` (directed edges between `positions`, as [`rim_edges`] gives) walked into loops:
/// each loop's edges in order (an edge's end is the next one's start, and the last ends
/// where the first starts), with the index one past each edge's loop.
pub(super) fn rim_loops(
    mut rim: Vec<(u32, u32)>,
    positions: &[[Real; 3]],
) -> (Vec<[[Real; 3]; 2]>, Vec<u32>) {
    rim.sort_unstable();
    // Walk: from an unused edge, on along unused edges out of each end reached. Every corner
    // has as many rim edges in as out, so a walk stops where it started.
    let mut next = vec![0usize; positions.len() + 1];
    for &(from, _) in &rim {
        next[from as usize + 1] += 1;
    }
    for i in 1..next.len() {
        next[i] += next[i - 1];
    }
    let first_out = next.clone();
    let mut used = vec![false; rim.len()];
    let (mut edges, mut loop_end) = (Vec::new(), Vec::new());
    for e0 in 0..rim.len() {
        if used[e0] {
            continue;
        }
        let mut e = e0;
        loop {
            used[e] = true;
            let (from, to) = rim[e];
            edges.push([positions[from as usize], positions[to as usize]]);
            let v = to as usize;
            let stop = first_out[v + 1];
            while next[v] < stop && used[next[v]] {
                next[v] += 1;
            }
            if next[v] == stop {
                break;
            }
            e = next[v];
        }
        // The loop's edges, `start..`, end where it does.
        loop_end.resize(edges.len(), edges.len() as u32);
    }
    // Loops in the Morton order of their first corners, so that a run across several small
    // loops (the holes of a scan, the open faces of a CAD model) is compact.
    let starts: Vec<usize> = (0..edges.len())
        .filter(|&i| i == 0 || loop_end[i - 1] as usize == i)
        .collect();
    let firsts: Vec<Point3<Real>> = starts.iter().map(|&i| Point3::from(edges[i][0])).collect();
    let (mut sorted, mut sorted_end) = (Vec::with_capacity(edges.len()), Vec::new());
    for k in raypick_bvh::morton_order(&firsts) {
        let start = starts[k as usize];
        sorted.extend_from_slice(&edges[start..loop_end[start] as usize]);
        sorted_end.resize(sorted.len(), sorted.len() as u32);
    }
    (sorted, sorted_end)
}
