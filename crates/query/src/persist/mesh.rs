//! A [`Mesh`] to bytes and back (the format is in the module above).

use std::sync::OnceLock;

use raypick_bvh::wide::{Bvh8, CompactBvh8, WideChild};
use raypick_primitives::{Aabb, Point3, Real, Triangle};

use super::{finish, payload, start, u32s, LoadError, Reader, SavedKind, Writer};
use crate::mesh::leaf_tris::LeafTriangles;
use crate::mesh::presplit::{self, split_slots};
use crate::mesh::{check_positions, with_tree, MeshTree, NodeLayout};
use crate::Mesh;

impl Mesh {
    /// The mesh saved as bytes: its tree in its node layout, leaf order, vertex indices and
    /// vertices (the format is in [`crate::persist`]). [`Mesh::from_bytes`] loads it without
    /// rebuilding, and the loaded mesh answers every query bit for bit as this one does.
    ///
    /// Vertices no triangle uses are saved at the origin (the mesh does not keep them).
    ///
    /// ```
    /// use raypick_query::{Mesh, RayQuery};
    /// use raypick_primitives::{Point3, Ray, Vector3};
    ///
    /// let p = vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
    /// let mesh = Mesh::new(p, vec![[0, 1, 2]]).unwrap();
    /// let loaded = Mesh::from_bytes(&mesh.to_bytes()).unwrap();
    /// let ray = Ray::new(Point3::new(0.2, 0.2, 1.0), Vector3::new(0.0, 0.0, -1.0));
    /// assert_eq!(loaded.closest_hit(&ray, &RayQuery::default()), mesh.closest_hit(&ray, &RayQuery::default()));
    /// ```
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = start();
        self.write_payload(&mut w);
        finish(SavedKind::Mesh, 1, w)
    }

    /// Loads a mesh saved by [`Mesh::to_bytes`], checking every invariant first (see
    /// [`crate::persist`]).
    ///
    /// # Errors
    /// A [`LoadError`] naming what is wrong, for any input that is not a valid saved mesh:
    /// another format, a scene, a truncated or corrupted file, inconsistent contents. Never
    /// panics, and allocates no more than the input's length holds.
    pub fn from_bytes(bytes: &[u8]) -> Result<Mesh, LoadError> {
        Self::read_payload(payload(bytes, SavedKind::Mesh)?.0, None)
    }

    pub(crate) fn write_payload(&self, w: &mut Writer) {
        let requested = match self.layout {
            NodeLayout::Auto => 0,
            NodeLayout::Plain => 1,
            NodeLayout::Compact => 2,
        };
        let stored = match &self.wide {
            MeshTree::Plain(_) => 1,
            MeshTree::Compact(_) => 2,
        };
        w.u32(requested);
        w.u32(stored);
        w.u32(with_tree!(&self.wide, t => t.depth()) as u32);
        w.u32(0);
        w.u64(self.vertex_count as u64);
        w.u64(self.tris.len() as u64);
        w.u64(with_tree!(&self.wide, t => t.nodes().len()) as u64);
        let (positions, _) = self.vertices_and_triangles();
        w.out.reserve(12 * positions.len() + 16 * self.tris.len());
        for p in &positions {
            for c in p.coords.iter() {
                w.f32(*c);
            }
        }
        for tri in &self.indices {
            for &v in tri {
                w.u32(v);
            }
        }
        for p in self.tris.prims() {
            w.u32(p);
        }
        with_tree!(&self.wide, t => t.write_nodes(&mut w.out));
    }

    /// A mesh from a mesh payload; `mesh` names it in errors when it is part of a scene.
    pub(crate) fn read_payload(data: &[u8], mesh: Option<u32>) -> Result<Mesh, LoadError> {
        let at = |what: String| match mesh {
            Some(m) => LoadError::Invalid(format!("mesh {m}: {what}")),
            None => LoadError::Invalid(what),
        };
        let mut r = Reader::new(data);
        let requested = match r.u32("mesh header")? {
            0 => NodeLayout::Auto,
            1 => NodeLayout::Plain,
            2 => NodeLayout::Compact,
            k => return Err(at(format!("unknown node layout {k}"))),
        };
        let stored = r.u32("mesh header")?;
        let depth = r.u32("mesh header")? as usize;
        if r.u32("mesh header")? != 0 {
            return Err(at("reserved field is not 0".into()));
        }
        let consistent = matches!(
            (requested, stored),
            (NodeLayout::Auto, 1 | 2) | (NodeLayout::Plain, 1) | (NodeLayout::Compact, 2)
        );
        if !consistent {
            return Err(at(format!(
                "stored layout {stored} does not fit the requested {requested:?}"
            )));
        }
        let vertex_count = r.u64("vertex count")?;
        let tri_count = r.u64("triangle count")?;
        let node_count = r.u64("node count")?;
        if tri_count > crate::mesh::MAX_TRIANGLES as u64 {
            return Err(at(format!("{tri_count} triangles is too many")));
        }
        let node_size = if stored == 1 {
            Bvh8::SAVED_NODE_BYTES
        } else {
            CompactBvh8::SAVED_NODE_BYTES
        };
        let vertex_bytes = r.take("vertices", vertex_count, 12)?;
        let index_bytes = r.take("vertex indices", tri_count, 12)?;
        let prim_bytes = r.take("leaf order", tri_count, 4)?;
        let node_bytes = r.take("nodes", node_count, node_size)?;
        if r.remaining() != 0 {
            return Err(at(format!("{} bytes after the nodes", r.remaining())));
        }
        // The counts are now bounded by the input's length, so these allocations are too.
        let (n, t) = (vertex_count as usize, tri_count as usize);

        let f = |b: &[u8], i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let positions: Vec<Point3<Real>> = vertex_bytes
            .chunks_exact(12)
            .map(|b| Point3::new(f(b, 0), f(b, 4), f(b, 8)))
            .collect();
        check_positions(&positions).map_err(|e| at(e.to_string()))?;

        let indices: Vec<[u32; 3]> = index_bytes
            .chunks_exact(12)
            .map(|b| {
                let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                [w(0), w(4), w(8)]
            })
            .collect();
        // One branch-free pass finds whether any index is out of range; only then is the
        // culprit looked for.
        let top = indices
            .iter()
            .fold(0u32, |m, t| m.max(t[0]).max(t[1]).max(t[2]));
        if !indices.is_empty() && top as usize >= n {
            let (slot, corner, v) = indices
                .iter()
                .enumerate()
                .find_map(|(s, tri)| {
                    let c = tri.iter().position(|&v| v as usize >= n)?;
                    Some((s, c, tri[c]))
                })
                .unwrap_or((0, 0, top));
            return Err(at(format!(
                "leaf slot {slot}, corner {corner}: vertex index {v} is out of range \
                 ({n} vertices)"
            )));
        }

        let prims: Vec<u32> = u32s(prim_bytes).collect();
        // Every triangle in some slot: the slots hold triangles `0..=max`, each at least
        // once; a triangle in several slots (pre-split) has the same corners in each.
        let top = prims.iter().copied().max().map_or(0, |m| m as usize + 1);
        if top > t {
            let (slot, p) = prims
                .iter()
                .enumerate()
                .find(|(_, &p)| p as usize >= t)
                .map_or((0, top), |(s, &p)| (s, p as usize));
            return Err(at(format!(
                "leaf slot {slot}: triangle {p} is out of range ({t} leaf slots)"
            )));
        }
        let mut first = vec![u32::MAX; top];
        for (slot, &p) in prims.iter().enumerate() {
            let f = &mut first[p as usize];
            if *f == u32::MAX {
                *f = slot as u32;
            } else if indices[*f as usize] != indices[slot] {
                return Err(at(format!(
                    "triangle {p} has other corners in leaf slot {slot} than in slot {f}"
                )));
            }
        }
        if let Some(p) = first.iter().position(|&f| f == u32::MAX) {
            return Err(at(format!("triangle {p} is in no leaf slot")));
        }
        drop(first);
        let (split, secondary) = split_slots(&prims, top);

        let tree_error = |error| LoadError::Tree { mesh, error };
        let wide = if stored == 1 {
            MeshTree::Plain(Bvh8::read_nodes(node_bytes, t, depth).map_err(tree_error)?)
        } else {
            MeshTree::Compact(CompactBvh8::read_nodes(node_bytes, t, depth).map_err(tree_error)?)
        };

        let tris = LeafTriangles::from_indices(&indices, &prims, &positions, &wide.leaf_ranges());
        // Traversal prunes by the leaf boxes: each must hold its triangles; for a mesh with
        // pre-split triangles, the boxes of each triangle's slots its parts.
        let pieces = if secondary.is_empty() {
            Vec::new()
        } else {
            split_pieces(&wide, &tris, &prims, top)
                .map_err(|(p, why)| at(format!("triangle {p}: {why}")))?
        };
        let outside = secondary.is_empty().then(|| with_tree!(&wide, tree => {
            tree.nodes().iter().enumerate().find_map(|(ni, node)| {
                (0..8).find_map(|slot| match node.child(slot) {
                    WideChild::Leaf(range) => {
                        let inside = node.child_aabb(slot).contains_aabb(&tris.leaf_box(range));
                        (!inside).then_some((ni, slot))
                    }
                    _ => None,
                })
            })
        })).flatten();
        if let Some((node, slot)) = outside {
            return Err(at(format!(
                "node {node}, slot {slot}: the leaf box does not contain its triangles"
            )));
        }
        Ok(Mesh {
            reach: crate::mesh::ray::RootReach::new(&wide.bounds()),
            wide,
            tris,
            indices,
            vertex_count: n,
            triangle_count: top,
            split,
            secondary,
            pieces,
            layout: requested,
            winding: OnceLock::new(),
            disks: OnceLock::new(),
        })
    }
}

/// The leaf box of every leaf slot `0..slots` of `tree`.
fn slot_leaf_boxes(tree: &MeshTree, slots: usize) -> Vec<Aabb> {
    let mut boxes = vec![Aabb::EMPTY; slots];
    with_tree!(tree, tree => {
        for node in tree.nodes() {
            for slot in 0..8 {
                if let WideChild::Leaf(range) = node.child(slot) {
                    let b = node.child_aabb(slot);
                    for x in boxes.get_mut(range).into_iter().flatten() {
                        *x = b;
                    }
                }
            }
        }
    });
    boxes
}

/// The part of its triangle each slot of a pre-split triangle holds ([`Mesh::pieces`]), after
/// checking that the leaf boxes hold every triangle: a triangle in one slot must lie in its
/// leaf box, a pre-split one's parts (as the pre-split cuts them) each in the leaf box of one
/// of its slots, and no triangle fills more slots than the pre-split makes. The error names
/// the first triangle that fails.
fn split_pieces(
    tree: &MeshTree,
    tris: &LeafTriangles,
    prims: &[u32],
    count: usize,
) -> Result<Vec<presplit::SlotPiece>, (usize, &'static str)> {
    let boxes = slot_leaf_boxes(tree, prims.len());
    let tri_box = |c: [Point3<Real>; 3]| Triangle::new(c[0], c[1], c[2]).aabb();
    let scene = tris.iter().fold(Aabb::EMPTY, |u, c| u.union(&tri_box(c)));
    // The slots grouped by triangle (a counting sort), each group in leaf order.
    let mut start = vec![0usize; count + 1];
    for &p in prims {
        start[p as usize + 1] += 1;
    }
    for i in 0..count {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut order = vec![0usize; prims.len()];
    for (pos, &p) in prims.iter().enumerate() {
        order[next[p as usize]] = pos;
        next[p as usize] += 1;
    }
    let mut pieces = Vec::new();
    for p in 0..count {
        let slots = &order[start[p]..start[p + 1]];
        let Some(&first) = slots.first() else {
            return Err((p, "in no leaf slot"));
        };
        let c = tris.get(first);
        let b = tri_box(c);
        if let [one] = slots {
            if !boxes[*one].contains_aabb(&b) {
                return Err((p, "its leaf box does not contain it"));
            }
            continue;
        }
        if slots.len() > presplit::MAX_PIECES {
            return Err((p, "it fills more leaf slots than a pre-split makes"));
        }
        let leaves: Vec<Aabb> = slots.iter().map(|&s| boxes[s]).collect();
        if !presplit::covered(&c, b, &scene, &leaves) {
            return Err((p, "the leaf boxes of its slots do not hold it"));
        }
        // Each slot takes the first piece (cut into as many as there are slots) its leaf box
        // holds that no slot before took; a slot that finds none boxes the whole triangle
        // in a refit (so the slots still cover it whatever was cut at the build).
        let m = slots.len() as u8;
        let mut cut = Vec::with_capacity(slots.len());
        presplit::split_ranges(&c, b, slots.len(), &scene, &mut |x, r| {
            cut.push(Some((x, r)))
        });
        for &s in slots {
            let k = cut
                .iter()
                .position(|x| x.is_some_and(|(x, _)| boxes[s].contains_aabb(&x)));
            let piece = match k {
                Some(k) => cut[k].take().map_or(presplit::Piece::WHOLE, |(_, r)| r),
                None => presplit::Piece::WHOLE,
            };
            pieces.push(presplit::SlotPiece {
                slot: s as u32,
                piece,
                count: m,
            });
        }
    }
    pieces.sort_unstable_by_key(|x| x.slot);
    Ok(pieces)
}
