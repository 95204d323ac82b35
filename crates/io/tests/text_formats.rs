//! Text-format loader cases from real and fuzzed files: ASCII STL whose first line is not
//! exactly `solid name` (a tab, several spaces, CRLF, no name), and a PLY element count that
//! overflows 64 bits.

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
