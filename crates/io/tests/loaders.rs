//! Loader tests on small files written by the tests: one per format and variant, one per bad
//! case, and bounded no-panic sweeps over truncated and mutated files.

mod common;

use common::*;
use raypick_io::{read_bytes, read_file, ErrorKind, Format, SceneData};
use raypick_primitives::Point3;

fn pts(s: &SceneData, mesh: usize) -> Vec<[f32; 3]> {
    s.meshes[mesh]
        .positions
        .iter()
        .map(|p| [p.x, p.y, p.z])
        .collect()
}

fn world(s: &SceneData, inst: usize, p: [f32; 3]) -> [f32; 3] {
    let q = s.instances[inst]
        .transform
        .transform_point(&Point3::new(p[0], p[1], p[2]));
    [q.x, q.y, q.z]
}

// ---------------------------------------------------------------- OBJ

#[test]
fn obj_objects_groups_fan_and_relative_indices() {
    let text = "# two objects\n\
        o first\n\
        v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\n\
        vt 0 0\nvn 0 0 1\n\
        f 1/1/1 2/1/1 3/1/1 5/1/1 4/1/1\n\
        l 1 2\np 3\n\
        g second\n\
        v 5 5 5\nv 6 5 5\nv 5 6 5\n\
        f -3 -2 -1\n";
    let dir = TempDir::new("obj");
    let s = read_file(dir.write("two.obj", text.as_bytes())).unwrap();
    assert_eq!(s.format, Format::Obj);
    assert_eq!(s.meshes.len(), 2);
    assert_eq!(s.instances.len(), 2);
    assert_eq!(s.meshes[0].name, "first");
    assert_eq!(s.meshes[1].name, "second");
    // Pentagon 1 2 3 5 4 fans from its first vertex: (1 2 3) (1 3 5) (1 5 4); lines and
    // points add nothing. tobj numbers the vertices of each object in first-use order.
    let p = pts(&s, 0);
    let tri = |t: [u32; 3]| t.map(|i| p[i as usize]);
    let got: Vec<_> = s.meshes[0].triangles.iter().map(|&t| tri(t)).collect();
    let v = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.5, 1.5, 0.0],
    ];
    assert_eq!(
        got,
        vec![[v[0], v[1], v[2]], [v[0], v[2], v[4]], [v[0], v[4], v[3]]]
    );
    // The second object's relative indices -3 -2 -1 are its own three vertices.
    let p1 = pts(&s, 1);
    let t = s.meshes[1].triangles[0].map(|i| p1[i as usize]);
    assert_eq!(t, [[5.0, 5.0, 5.0], [6.0, 5.0, 5.0], [5.0, 6.0, 5.0]]);
    assert_eq!(s.instances[1].mesh, 1);
    assert_eq!(world(&s, 1, [1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
}

#[test]
fn obj_index_out_of_range_names_the_line() {
    let e = read_bytes(
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 3\nf 1 2 9\n",
        Format::Obj,
        "m.obj",
    )
    .unwrap_err();
    assert_eq!(e.line, Some(6), "{e}");
    assert!(
        matches!(
            e.kind,
            ErrorKind::IndexOutOfRange {
                index: 9,
                vertex_count: 3,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.file, "m.obj");
}

#[test]
fn obj_nan_position_names_the_line() {
    let e = read_bytes(
        b"v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n",
        Format::Obj,
        "n.obj",
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::NonFinite { vertex: 2, .. }),
        "{e}"
    );
    assert_eq!(e.line, Some(3), "{e}");
    let e = read_bytes(
        b"v 0 0 0\nv inf 0 0\nv 0 1 0\nf 1 2 3\n",
        Format::Obj,
        "i.obj",
    )
    .unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NonFinite { .. }), "{e}");
}

#[test]
fn obj_syntax_error_names_the_line() {
    let e = read_bytes(b"v 0 0 0\nv 1 zero 0\n", Format::Obj, "s.obj").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn obj_without_faces_is_an_empty_scene() {
    let s = read_bytes(b"# nothing\nv 0 0 0\n", Format::Obj, "e.obj").unwrap();
    assert!(s.meshes.is_empty() && s.instances.is_empty());
}

// ---------------------------------------------------------------- glTF

fn check_two_node_scene(s: &SceneData) {
    assert_eq!(s.meshes.len(), 1, "a mesh used by two nodes is loaded once");
    let m = &s.meshes[0];
    assert_eq!(m.name, "quad");
    // Primitive 0 (indexed), primitive 1 (LINES) skipped, primitive 2 (3 vertices, no
    // indices) appended after primitive 0's 4 vertices.
    assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [4, 5, 6]]);
    assert_eq!(m.positions.len(), 7);
    assert_eq!(s.instances.len(), 2);
    assert_eq!(s.instances[0].name, "a");
    assert_eq!(s.instances[1].name, "b");
    assert_eq!(s.instances[0].mesh, 0);
    assert_eq!(s.instances[1].mesh, 0);
    assert_eq!(world(s, 0, [1.0, 1.0, 0.0]), [1.0, 1.0, 0.0]);
    // Child b: translate (10,0,0) after scale 2, under the identity parent.
    assert_eq!(world(s, 1, [1.0, 1.0, 0.0]), [12.0, 2.0, 0.0]);
}

#[test]
fn gltf_with_external_bin() {
    let dir = TempDir::new("gltf");
    let idx = [0u16, 1, 2, 0, 2, 3];
    dir.write("quad data.bin", &gltf_bin(&QUAD_POS, &idx));
    let json = gltf_json(
        &QUAD_POS,
        &idx,
        Some("quad%20data.bin"),
        TWO_NODES,
        SCENE0,
        None,
    );
    let s = read_file(dir.write("scene.gltf", json.as_bytes())).unwrap();
    assert_eq!(s.format, Format::Gltf);
    check_two_node_scene(&s);
}

#[test]
fn gltf_with_embedded_base64() {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64(&gltf_bin(&QUAD_POS, &idx))
    );
    let json = gltf_json(&QUAD_POS, &idx, Some(&uri), TWO_NODES, SCENE0, None);
    let s = read_bytes(json.as_bytes(), Format::Gltf, "embedded.gltf").unwrap();
    check_two_node_scene(&s);
}

#[test]
fn glb_binary_gltf() {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, SCENE0, None);
    let dir = TempDir::new("glb");
    let s = read_file(dir.write("scene.glb", &glb(&json, &gltf_bin(&QUAD_POS, &idx)))).unwrap();
    assert_eq!(s.format, Format::Glb);
    check_two_node_scene(&s);
}

#[test]
fn gltf_without_scenes_uses_parentless_nodes() {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, "[]", None)
        .replace("\"scene\": 0", "\"extras\": {}");
    let s = read_bytes(
        &glb(&json, &gltf_bin(&QUAD_POS, &idx)),
        Format::Glb,
        "noscene.glb",
    )
    .unwrap();
    check_two_node_scene(&s);
}

fn glb_err(
    nodes: &str,
    positions: &[[f32; 3]],
    idx: &[u16],
    declared: Option<usize>,
) -> raypick_io::Error {
    let json = gltf_json(positions, idx, None, nodes, SCENE0, declared);
    read_bytes(
        &glb(&json, &gltf_bin(positions, idx)),
        Format::Glb,
        "bad.glb",
    )
    .unwrap_err()
}

#[test]
fn gltf_node_cycle() {
    let nodes = r#"[ { "mesh": 0, "children": [1] }, { "mesh": 0, "children": [2] }, { "children": [1] } ]"#;
    let e = glb_err(nodes, &QUAD_POS, &[0, 1, 2], None);
    assert!(matches!(e.kind, ErrorKind::SharedNode { node: 1 }), "{e}");
    let nodes = r#"[ { "mesh": 0, "children": [1] }, { "mesh": 0, "children": [0] } ]"#;
    let e = glb_err(nodes, &QUAD_POS, &[0, 1, 2], None);
    assert!(matches!(e.kind, ErrorKind::NodeCycle { .. }), "{e}");
    let nodes = r#"[ { "mesh": 0, "children": [0] } ]"#;
    let e = glb_err(nodes, &QUAD_POS, &[0, 1, 2], None);
    assert!(matches!(e.kind, ErrorKind::NodeCycle { node: 0 }), "{e}");
    assert!(e.to_string().contains("cycle"), "{e}");
}

#[test]
fn gltf_missing_buffer() {
    let idx = [0u16, 1, 2];
    // External .bin that is not there.
    let dir = TempDir::new("gltf-missing");
    let json = gltf_json(
        &QUAD_POS,
        &idx,
        Some("nowhere.bin"),
        TWO_NODES,
        SCENE0,
        None,
    );
    let e = read_file(dir.write("s.gltf", json.as_bytes())).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::MissingBuffer { buffer: 0, .. }),
        "{e}"
    );
    // An in-memory load cannot reach external files.
    let e = read_bytes(json.as_bytes(), Format::Gltf, "mem.gltf").unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::MissingBuffer { buffer: 0, .. }),
        "{e}"
    );
    // A GLB whose buffer refers to a BIN chunk it does not have.
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, SCENE0, None);
    let e = read_bytes(json.as_bytes(), Format::Gltf, "nobin.gltf").unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::MissingBuffer { buffer: 0, .. }),
        "{e}"
    );
}

#[test]
fn gltf_declared_count_larger_than_the_buffer() {
    let e = glb_err(TWO_NODES, &QUAD_POS, &[0, 1, 2, 0, 2, 3], Some(1 << 30));
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                declared: 1073741824,
                fits: 6,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn gltf_index_out_of_range() {
    let e = glb_err(TWO_NODES, &QUAD_POS, &[0, 1, 2, 0, 2, 4], None);
    assert!(
        matches!(
            e.kind,
            ErrorKind::IndexOutOfRange {
                index: 4,
                vertex_count: 4,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("triangle 1"), "{e}");
}

#[test]
fn gltf_nan_position() {
    let mut p = QUAD_POS;
    p[2][1] = f32::NAN;
    let e = glb_err(TWO_NODES, &p, &[0, 1, 2], None);
    assert!(
        matches!(e.kind, ErrorKind::NonFinite { vertex: 2, .. }),
        "{e}"
    );
}

#[test]
fn gltf_truncated() {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, SCENE0, None);
    let bytes = glb(&json, &gltf_bin(&QUAD_POS, &idx));
    let e = read_bytes(&bytes[..bytes.len() - 10], Format::Glb, "cut.glb").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    let e = read_bytes(&bytes[..7], Format::Glb, "cut.glb").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    // JSON cut in the middle: serde's line number comes through.
    let e = read_bytes(&json.as_bytes()[..200], Format::Gltf, "cut.gltf").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    assert!(e.line.is_some(), "{e}");
}

#[test]
fn gltf_singular_node_transform() {
    let nodes = r#"[ { "mesh": 0, "scale": [1, 0, 1] } ]"#;
    let e = glb_err(nodes, &QUAD_POS, &[0, 1, 2], None);
    assert!(matches!(e.kind, ErrorKind::BadTransform { node: 0 }), "{e}");
}

// ---------------------------------------------------------------- PLY

#[test]
fn ply_ascii_and_binary_both_endiannesses() {
    let dir = TempDir::new("ply");
    for enc in ["ascii", "binary_little_endian", "binary_big_endian"] {
        let path = dir.write(
            &format!("quad_{enc}.ply"),
            &ply(enc, &QUAD_POS, &ply_faces()),
        );
        let s = read_file(&path).unwrap_or_else(|e| panic!("{enc}: {e}"));
        assert_eq!(s.format, Format::Ply);
        assert_eq!(s.meshes.len(), 1);
        assert_eq!(s.meshes[0].name, format!("quad_{enc}"));
        assert_eq!(pts(&s, 0), QUAD_POS.to_vec(), "{enc}");
        // The 4-gon fans to (0 1 2)(0 2 3); the 2-vertex face is skipped.
        assert_eq!(
            s.meshes[0].triangles,
            vec![[0, 1, 2], [0, 2, 3], [3, 2, 1]],
            "{enc}"
        );
    }
}

#[test]
fn ply_count_larger_than_the_file() {
    let text = b"ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n\0\0\0\0";
    let e = read_bytes(text, Format::Ply, "huge.ply").unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                declared: 4000000000,
                fits: 0,
                ..
            }
        ),
        "{e}"
    );
    let text = b"ply\nformat ascii 1.0\nelement vertex 1000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n";
    let e = read_bytes(text, Format::Ply, "huge.ply").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
}

#[test]
fn ply_truncated() {
    let bytes = ply("ascii", &QUAD_POS, &ply_faces());
    // Drop the last two lines (the last face and the extra element).
    let text = String::from_utf8(bytes).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    let cut = cut[..cut.len() - 2].join("\n") + "\n";
    let e = read_bytes(cut.as_bytes(), Format::Ply, "cut.ply").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    // 13 header lines, 4 vertices, 3 faces: the missing face is line 20.
    assert_eq!(e.line, Some(20), "{e}");
    for enc in ["binary_little_endian", "binary_big_endian"] {
        let bytes = ply(enc, &QUAD_POS, &ply_faces());
        let e = read_bytes(&bytes[..bytes.len() - 3], Format::Ply, "cut.ply").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{enc}: {e}");
    }
}

#[test]
fn ply_index_out_of_range() {
    let faces = vec![vec![0, 1, 2], vec![0, 1, 7]];
    let e = read_bytes(&ply("ascii", &QUAD_POS, &faces), Format::Ply, "oob.ply").unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::IndexOutOfRange {
                index: 7,
                vertex_count: 4,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.line, Some(19), "{e}");
    let faces = vec![vec![0, -1, 2]];
    let e = read_bytes(
        &ply("binary_big_endian", &QUAD_POS, &faces),
        Format::Ply,
        "neg.ply",
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::IndexOutOfRange { index: -1, .. }),
        "{e}"
    );
}

#[test]
fn ply_nan_position() {
    let mut p = QUAD_POS;
    p[1][0] = f32::INFINITY;
    for enc in ["binary_little_endian", "binary_big_endian"] {
        let e = read_bytes(&ply(enc, &p, &ply_faces()), Format::Ply, "nan.ply").unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::NonFinite { vertex: 1, .. }),
            "{enc}: {e}"
        );
    }
    // ply-rs's ASCII grammar has no spelling for inf or NaN: a syntax error on the line.
    let e = read_bytes(&ply("ascii", &p, &ply_faces()), Format::Ply, "nan.ply").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    assert_eq!(e.line, Some(15), "{e}");
}

#[test]
fn ply_bad_header() {
    let e = read_bytes(
        b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nbogus line\nend_header\n",
        Format::Ply,
        "h.ply",
    )
    .unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    let e = read_bytes(
        b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n",
        Format::Ply,
        "h.ply",
    )
    .unwrap_err();
    assert!(e.to_string().contains("no y property"), "{e}");
}

// ---------------------------------------------------------------- STL

fn check_stl(s: &SceneData) {
    assert_eq!(s.format, Format::Stl);
    // Shared corners are merged: 4 vertices, triangles in file order.
    assert_eq!(s.meshes[0].positions.len(), 4);
    let p = pts(s, 0);
    let got: Vec<_> = s.meshes[0]
        .triangles
        .iter()
        .map(|t| t.map(|i| p[i as usize]))
        .collect();
    assert_eq!(got, TRIS.to_vec());
}

#[test]
fn stl_ascii_and_binary() {
    let dir = TempDir::new("stl");
    check_stl(&read_file(dir.write("a.stl", ascii_stl(&TRIS).as_bytes())).unwrap());
    check_stl(&read_file(dir.write("b.stl", &binary_stl(&TRIS, &[b' '; 80], None))).unwrap());
    // A binary file whose header starts with "solid " (written by some exporters).
    let mut header = [b' '; 80];
    header[..10].copy_from_slice(b"solid fake");
    check_stl(&read_file(dir.write("c.STL", &binary_stl(&TRIS, &header, None))).unwrap());
}

#[test]
fn stl_count_larger_than_the_file() {
    let e = read_bytes(
        &binary_stl(&TRIS, &[0; 80], Some(u32::MAX)),
        Format::Stl,
        "big.stl",
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                declared: 4294967295,
                fits: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn stl_truncated() {
    let text = ascii_stl(&TRIS);
    // Stop after the second facet's first vertex (line 11).
    let cut: String = text.lines().take(11).map(|l| format!("{l}\n")).collect();
    let e = read_bytes(cut.as_bytes(), Format::Stl, "cut.stl").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    assert_eq!(
        e.line,
        Some(9),
        "the facet that is cut starts on line 9: {e}"
    );
    let e = read_bytes(&[0u8; 50], Format::Stl, "tiny.stl").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
}

#[test]
fn stl_nan_position_and_syntax() {
    let mut t = TRIS;
    t[1][2][2] = f32::NAN;
    let e = read_bytes(&binary_stl(&t, &[0; 80], None), Format::Stl, "nan.stl").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NonFinite { .. }), "{e}");
    let bad = ascii_stl(&TRIS).replace("outer loop", "outer space");
    let e = read_bytes(bad.as_bytes(), Format::Stl, "bad.stl").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    assert_eq!(e.line, Some(2), "{e}");
}

// ---------------------------------------------------------------- any format

#[test]
fn unknown_format_and_unreadable_file() {
    let dir = TempDir::new("unknown");
    let e = read_file(dir.write("mesh.xyz", b"whatever")).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::UnknownFormat(ref x) if x == ".xyz"),
        "{e}"
    );
    assert!(e.is_bad_input());
    let e = read_file(dir.write("noext", b"whatever")).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::UnknownFormat(_)), "{e}");
    let e = read_file(dir.0.join("absent.obj")).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Io(_)), "{e}");
    assert!(e
        .to_string()
        .starts_with(&dir.0.join("absent.obj").display().to_string()));
}
