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
    /// The vertex data of a built mesh ([`Mesh::vertices_and_triangles`]).
    pub(crate) fn from_mesh(mesh: &Mesh) -> Self {
        let (positions, triangles) = mesh.vertices_and_triangles();
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
