//! Points and lines in files: PLY vertices without faces, OBJ `p` and `l` elements, glTF
//! point and line primitives (and triangle strips and fans), each placed as the file says.

mod common;

use common::*;
use raypick_io::{read_bytes, Format};

#[test]
fn ply_vertices_without_faces_are_a_point_cloud() {
    let pts = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]];
    let header = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    let body: String = pts
        .iter()
        .map(|p| format!("{} {} {}\n", p[0], p[1], p[2]))
        .collect();
    let s = read_bytes(format!("{header}{body}").as_bytes(), Format::Ply, "cloud").unwrap();
    assert!(s.meshes.is_empty() && s.instances.is_empty() && s.lines.is_empty());
    assert_eq!(s.points.len(), 1);
    let c = &s.points[0];
    assert_eq!(c.positions.len(), 3);
    assert_eq!(c.positions[1].coords.as_slice(), &[1.0, 2.0, 3.0]);
    // With a face element, even an empty one, it stays a mesh.
    let with_faces = ply("ascii", &pts, &[vec![0, 1, 2]]);
    let s = read_bytes(&with_faces, Format::Ply, "mesh").unwrap();
    assert!(s.points.is_empty() && s.meshes.len() == 1);
}

#[test]
fn obj_points_and_polylines() {
    let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\np 1 3\nl 1 2 3 4\nl -1 -4\n";
    let s = read_bytes(obj, Format::Obj, "sketch").unwrap();
    assert_eq!(s.meshes.len(), 1);
    assert_eq!(s.points.len(), 1);
    let p = &s.points[0];
    assert_eq!(p.positions.len(), 2);
    assert_eq!(p.positions[1].coords.as_slice(), &[1.0, 1.0, 0.0]);
    assert_eq!(s.lines.len(), 1);
    let l = &s.lines[0];
    // 1-2, 2-3, 3-4, then 4-1 from the relative indices.
    assert_eq!(l.segments.len(), 4);
    let ends: Vec<_> = l
        .segments
        .iter()
        .map(|s| s.map(|i| l.positions[i as usize].coords.as_slice().to_vec()))
        .collect();
    assert_eq!(ends[3], [vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 0.0]]);
    // An index out of range names its line.
    let bad = b"v 0 0 0\nv 1 0 0\nl 1 3\n";
    let e = read_bytes(bad, Format::Obj, "bad.obj")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3") && e.contains("vertex 3"), "{e}");
    // A file of lines only has no mesh.
    let s = read_bytes(b"v 0 0 0\nv 1 0 0\nl 1 2\n", Format::Obj, "wire").unwrap();
    assert!(s.meshes.is_empty() && s.lines[0].segments == vec![[0, 1]]);
}

#[test]
fn gltf_line_primitives_are_placed_by_their_nodes() {
    let positions = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let indices = [0u16, 1, 2, 0, 2, 3];
    let bin = gltf_bin(&positions, &indices);
    let json = gltf_json(&positions, &indices, None, TWO_NODES, SCENE0, None);
    let s = read_bytes(&glb(&json, &bin), Format::Glb, "two.glb").unwrap();
    // One line set per node using the mesh: the LINES primitive's 6 indices, 3 segments.
    assert_eq!(s.lines.len(), 2);
    for l in &s.lines {
        assert_eq!(l.segments.len(), 3);
        assert_eq!(l.positions.len(), 4);
    }
    assert_eq!(s.lines[1].transform64[(0, 3)], 10.0);
    assert_eq!(s.lines[1].transform64[(0, 0)], 2.0);
    // The mesh's triangles keep their own numbering.
    assert_eq!(s.meshes[0].triangles, vec![[0, 1, 2], [0, 2, 3], [4, 5, 6]]);
}
