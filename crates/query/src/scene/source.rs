//! [`MeshSource`]: a scene mesh's vertices and triangles by original index.

use raypick_primitives::{Point3, Real};

use crate::Mesh;

/// A mesh's vertices and index triples by original index, kept for the queries that need
/// vertex indices (snapping) or world-space triangles (nearest point under non-uniform scale).
#[derive(Debug)]
pub(crate) struct MeshSource {
    pub positions: Vec<Point3<Real>>,
    pub triangles: Vec<[u32; 3]>,
}

impl MeshSource {
    /// Recovers the index triples and the used vertices from a built mesh's leaf-order data;
    /// vertices no triangle uses are left at the origin (no query reads them).
    pub(crate) fn from_mesh(mesh: &Mesh) -> Self {
        let mut positions = vec![Point3::origin(); mesh.vertex_count()];
        let mut triangles = vec![[0u32; 3]; mesh.len()];
        let slots = mesh.prim_indices();
        for ((&orig, tri), corners) in slots
            .iter()
            .zip(mesh.leaf_vertex_indices())
            .zip(mesh.leaf_triangles())
        {
            triangles[orig as usize] = *tri;
            for (&v, p) in tri.iter().zip(corners) {
                positions[v as usize] = p;
            }
        }
        Self {
            positions,
            triangles,
        }
    }

    /// The corners of triangle `t` (an original index).
    pub fn corners(&self, t: u32) -> [Point3<Real>; 3] {
        self.triangles[t as usize].map(|i| self.positions[i as usize])
    }
}
