//! Text-format loader cases from real and fuzzed files: ASCII STL whose first line is not
//! exactly `solid name` (a tab, several spaces, CRLF, no name), and a PLY element count that
//! overflows 64 bits; OBJ, ASCII PLY and ASCII STL with tabs, CRLF line ends and a UTF-8
//! byte-order mark.

use raypick_io::{read_bytes, Format};

const FACETS: &str = "facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 1 0
 endloop
endfacet
facet normal 0 0 1
 outer loop
  vertex 1 0 0
  vertex 1 1 0
  vertex 0 1 0
 endloop
endfacet
";

fn file(first: &str, crlf: bool, end: &str) -> Vec<u8> {
    let text = format!("{first}\n{FACETS}{end}\n");
    let text = if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    };
    text.into_bytes()
}

#[test]
fn every_whitespace_variant_of_the_first_line_reads_as_ascii() {
    let mut cases = 0;
    for first in [
        "solid name",
        "solid\tname",
        "solid   name",
        "solid",
        "solid ",
        "solid\t",
    ] {
        for crlf in [false, true] {
            for end in ["endsolid name", "endsolid", "endsolid name\ntrailing words"] {
                let bytes = file(first, crlf, end);
                let s = read_bytes(&bytes, Format::Stl, "t.stl")
                    .unwrap_or_else(|e| panic!("{first:?} crlf {crlf} {end:?}: {e}"));
                let m = &s.meshes[0];
                assert_eq!(m.triangles.len(), 2, "{first:?} crlf {crlf}");
                assert_eq!(m.positions.len(), 4, "{first:?} crlf {crlf}");
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 36);
}

#[test]
fn ascii_stl_after_a_byte_order_mark_reads_as_ascii() {
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(file("solid\tname", true, "endsolid name"));
    let s = read_bytes(&bytes, Format::Stl, "t.stl").unwrap();
    assert_eq!(s.meshes[0].triangles.len(), 2);
}

#[test]
fn a_word_that_only_starts_with_solid_is_not_ascii() {
    // `solidity` is not the keyword: read as binary, and far too short for that.
    let bytes = file("solidity", false, "endsolid");
    assert!(read_bytes(&bytes, Format::Stl, "t.stl").is_err());
}

/// A PLY element count that overflows 64 bits (found by fuzzing: ply-rs panicked on it) is a
/// syntax error naming its line.
#[test]
fn ply_element_count_beyond_64_bits_is_an_error() {
    let bytes = b"ply\nformat ascii 1.0\nelement vertex 99999999999999999999999\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    let e = read_bytes(bytes, Format::Ply, "t.ply").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("99999999999999999999999"), "{text}");
    assert_eq!(e.line, Some(3), "{text}");
    assert!(!text.contains("panicked"), "{text}");
}

/// OBJ and ASCII PLY with tabs between fields, CRLF line ends and a UTF-8 byte-order mark:
/// each reads as the plain file does.
#[test]
fn obj_and_ascii_ply_accept_tabs_crlf_and_a_byte_order_mark() {
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
    let ply = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n3 0 1 2\n3 1 3 2\n";
    for (text, format, name) in [(obj, Format::Obj, "t.obj"), (ply, Format::Ply, "t.ply")] {
        let plain = read_bytes(text.as_bytes(), format, name).unwrap();
        let want = (&plain.meshes[0].positions, &plain.meshes[0].triangles);
        assert_eq!(want.1.len(), 2);
        let tabs = text.replace(' ', "\t");
        let crlf = text.replace('\n', "\r\n");
        let bom = format!("\u{feff}{text}");
        for (what, variant) in [("tabs", tabs), ("crlf", crlf), ("bom", bom)] {
            let got = read_bytes(variant.as_bytes(), format, name)
                .unwrap_or_else(|e| panic!("{name} with {what}: {e}"));
            let got = (&got.meshes[0].positions, &got.meshes[0].triangles);
            assert_eq!(got, want, "{name} with {what}");
        }
    }
}
