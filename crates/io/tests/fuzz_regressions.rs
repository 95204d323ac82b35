//! Inputs on which the cargo-fuzz targets (crates/io/fuzz) crashed, kept as plain tests.

use raypick_io::{read_bytes, Format};

/// From the obj target: a relative texture coordinate index reaching before the first `vt`
/// made tobj multiply a wrapped index (a panic with overflow checks).
#[test]
fn obj_relative_texcoord_before_the_first() {
    let bytes = b"vt 1 4\nv 0 9 1\nf 1/-8 /\x0b1";
    let e = read_bytes(bytes, Format::Obj, "fuzz.obj").unwrap_err();
    assert!(e.is_bad_input(), "{e}");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().contains("texture coordinate index -8"), "{e}");
}

/// The same for normals, and a positive index past the last normal.
#[test]
fn obj_normal_index_out_of_range() {
    for face in [
        "f 1//-2 1//1 1//1",
        "f 1//2 1//1 1//1",
        "f 1//9223372036854775807 1 1",
    ] {
        let text = format!("v 0 0 0\nvn 0 0 1\n{face}\n");
        let e = read_bytes(text.as_bytes(), Format::Obj, "fuzz.obj").unwrap_err();
        assert!(e.is_bad_input(), "{face}: {e}");
        assert_eq!(e.line, Some(3), "{face}: {e}");
        assert!(e.to_string().contains("normal index"), "{face}: {e}");
    }
}

/// Indices of a kind the file has none of are ignored, as before.
#[test]
fn obj_texcoord_index_without_texcoords_is_ignored() {
    let text = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/-8 2/5 3/1\n";
    let scene = read_bytes(text, Format::Obj, "fuzz.obj").unwrap();
    assert_eq!(scene.meshes.len(), 1);
}

/// From the ply target: a `format` line whose version is a digit run beyond 64 bits (ply-rs's
/// header grammar unwraps its parse), also after a carriage return, which ply-rs ends a line
/// at. The two inputs as found, and the same after a well-formed first line.
#[test]
fn ply_format_version_beyond_64_bits() {
    let found: [&[u8]; 2] = [
        b"format      binary_little_endian\t\t\t88888888888888888888888888888888888888888888888888888888888888888888888888\t\t\t\t\r\r",
        b"format      binary_little_endian\t\t\t111111111111111111111111111111111111111111111111111111111111111111111111111111111111\t0en\r",
    ];
    for bytes in found {
        let e = read_bytes(bytes, Format::Ply, "fuzz.ply").unwrap_err();
        assert!(e.is_bad_input(), "{e}");
    }
    for header in [
        "ply\nformat ascii 99999999999999999999999.0\nend_header\n",
        "ply\nformat ascii 1.99999999999999999999999\nend_header\n",
        "ply\ncomment x\relement vertex 99999999999999999999999\nend_header\n",
    ] {
        let e = read_bytes(header.as_bytes(), Format::Ply, "fuzz.ply").unwrap_err();
        assert!(e.is_bad_input(), "{header:?}: {e}");
        assert!(e.to_string().contains("below 2^64"), "{header:?}: {e}");
    }
}
