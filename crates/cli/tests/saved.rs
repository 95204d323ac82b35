//! `raypick build`: a file's BVHs saved once (`.rpk`) and loaded by every command, giving the
//! same answers as the source file; broken saved files are input errors.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn build_saves_and_every_command_reads_the_saved_file() {
    let dir = TempDir::new("saved");
    let src = bunny_path();
    let src = src.to_str().unwrap();
    let rpk = dir.path("bunny.rpk");
    let rpk_s = rpk.to_str().unwrap();
    let report: Value =
        serde_json::from_str(ok(&run(&["build", src, "-o", rpk_s], None, None)).trim()).unwrap();
    assert_eq!(report["triangles"], 3674);
    assert_eq!(
        report["bytes"].as_u64(),
        Some(std::fs::metadata(&rpk).unwrap().len())
    );

    let rays = "0.0 0.1 5 0 0 -1\n-6 4 0 1 0 0\n0 20 0 0 -1 0 3\n1 1 1 0 0 0\n";
    for mode in [&[][..], &["--all"][..], &["--any"][..]] {
        let pick = |file: &str| {
            let mut args = vec!["pick", file, "--rays", "-"];
            args.extend_from_slice(mode);
            ok(&run(&args, None, Some(rays)))
        };
        assert_eq!(pick(rpk_s), pick(src), "{mode:?}");
    }
    let pixel = |file: &str| {
        ok(&run(
            &["pick", file, "--pixel", "400,300", "--snap", "8"],
            None,
            None,
        ))
    };
    assert_eq!(pixel(rpk_s), pixel(src));
    let info = ok(&run(&["info", rpk_s], None, None));
    assert!(
        info.contains("3674 triangles") && info.contains("load time (saved BVHs)"),
        "{info}"
    );
    let points = "0 3 0\n10 10 10\n";
    let dist = |file: &str| {
        ok(&run(
            &["distance", file, "--points", "-"],
            None,
            Some(points),
        ))
    };
    assert_eq!(dist(rpk_s), dist(src));
    let png = dir.path("r.png");
    ok(&run(
        &[
            "render",
            rpk_s,
            "-o",
            png.to_str().unwrap(),
            "--size",
            "64,48",
        ],
        None,
        None,
    ));
    assert!(std::fs::metadata(&png).unwrap().len() > 0);
}

#[test]
fn broken_saved_files_are_input_errors() {
    let dir = TempDir::new("saved-bad");
    let src = bunny_path();
    let rpk = dir.path("b.rpk");
    ok(&run(
        &["build", src.to_str().unwrap(), "-o", rpk.to_str().unwrap()],
        None,
        None,
    ));
    let bytes = std::fs::read(&rpk).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("flipped", {
            let mut b = bytes.clone();
            b[bytes.len() / 3] ^= 4;
            b
        }),
        ("not saved", b"solid x\nendsolid x\n".to_vec()),
    ];
    for (what, b) in cases {
        let path = dir.path(&format!("{what}.rpk"));
        std::fs::write(&path, b).unwrap();
        let o = run(&["info", path.to_str().unwrap()], None, None);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("not a valid saved mesh or scene") && !e.contains("panicked"),
            "{what}: {e}"
        );
    }
}
