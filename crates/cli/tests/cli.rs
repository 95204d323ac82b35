//! Runs the built `raypick` binary: every command and the exit codes.

mod common;

use common::*;
use serde_json::Value;

#[test]
fn demo_prints_the_pick_and_writes_the_picture() {
    let dir = TempDir::new("demo");
    let out = ok(&run(&["demo"], Some(&dir.0), None));
    assert!(out.contains("3674 triangles"), "{out}");
    assert!(out.contains("BVH built in"), "{out}");
    assert!(out.contains("pick at the centre pixel (400, 300)"), "{out}");
    assert!(
        out.contains("triangle ") && out.contains("normal ("),
        "{out}"
    );
    assert!(out.contains("rays/s"), "{out}");
    let img = image::open(dir.path("raypick-demo.png")).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (800, 600));
    // The centre pixel is the picked triangle, drawn in the highlight colour.
    assert_eq!(img.get_pixel(400, 300).0, [255, 235, 0]);
}

#[test]
fn info_reports_counts_bounds_and_bvh() {
    let out = ok(&run(&["info", bunny_path().to_str().unwrap()], None, None));
    assert!(
        out.contains("triangles: 3674 in 1 instance of 1 mesh"),
        "{out}"
    );
    assert!(out.contains("bounds: min ("), "{out}");
    assert!(out.contains("BVH: ") && out.contains("SAH cost"), "{out}");
    assert!(out.contains("build time: "), "{out}");
    assert!(out.contains("memory: "), "{out}");
}

#[test]
fn pick_pixel_hits_the_bunny_at_the_centre_and_misses_the_corner() {
    let b = bunny_path();
    let out = ok(&run(
        &["pick", b.to_str().unwrap(), "--pixel", "400,300"],
        None,
        None,
    ));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["hit"], true, "{out}");
    assert_eq!(v["object"], 0);
    let out = ok(&run(
        &[
            "pick",
            b.to_str().unwrap(),
            "--pixel",
            "0,0",
            "--size",
            "800,600",
        ],
        None,
        None,
    ));
    assert_eq!(out.trim(), r#"{"hit":false}"#);
    // Snapping: the nearest vertex and edge within 10 px of the centre pixel, on screen.
    let out = ok(&run(
        &[
            "pick",
            b.to_str().unwrap(),
            "--pixel",
            "400,300",
            "--snap",
            "10",
        ],
        None,
        None,
    ));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["hit"], true, "{out}");
    let vertex = &v["snap_vertex"];
    assert_eq!(vertex["object"], 0, "{out}");
    assert!(f(&vertex["distance_px"]) <= 10.0, "{out}");
    let edge = &v["snap_edge"];
    assert!(
        f(&edge["distance_px"]) <= f(&vertex["distance_px"]) + 1e-3,
        "an edge is never farther than its vertices: {out}"
    );
    let out = ok(&run(
        &[
            "pick",
            b.to_str().unwrap(),
            "--pixel",
            "0,0",
            "--snap",
            "10",
        ],
        None,
        None,
    ));
    assert_eq!(
        out.trim(),
        r#"{"hit":false,"snap_vertex":null,"snap_edge":null}"#
    );
    // An explicit camera looking away from the bunny sees nothing.
    let out = ok(&run(
        &[
            "pick",
            b.to_str().unwrap(),
            "--pixel",
            "400,300",
            "--camera",
            "eye=0,5,30;target=0,5,60",
        ],
        None,
        None,
    ));
    assert_eq!(out.trim(), r#"{"hit":false}"#);
}

#[test]
fn render_writes_a_png_of_the_right_size() {
    let dir = TempDir::new("render");
    for heatmap in [false, true] {
        let png = dir.path(if heatmap { "heat.png" } else { "shaded.png" });
        let mut args = vec![
            "render",
            bunny_path().to_str().unwrap().to_owned().leak(),
            "-o",
        ];
        args.push(png.to_str().unwrap().to_owned().leak());
        args.extend(["--size", "96,64"]);
        if heatmap {
            args.push("--heatmap");
        }
        let out = ok(&run(&args, None, None));
        assert!(out.contains("rays/s"), "{out}");
        let img = image::open(&png).unwrap().to_rgb8();
        assert_eq!(img.dimensions(), (96, 64));
        let corner = img.get_pixel(0, 0).0;
        let centre = img.get_pixel(48, 32).0;
        assert_ne!(
            centre, corner,
            "heatmap {heatmap}: the bunny covers the centre"
        );
        if !heatmap {
            assert_eq!(corner, [28, 30, 36], "background");
        }
    }
}

#[test]
fn bench_quick_reports_every_row() {
    let out = ok(&run(
        &["bench", bunny_path().to_str().unwrap(), "--quick"],
        None,
        None,
    ));
    assert!(out.contains("BVH build"), "{out}");
    for rays in ["camera", "incoherent"] {
        for q in ["closest_hit", "any_hit"] {
            assert!(
                out.lines()
                    .any(|l| l.starts_with(rays) && l.contains(q) && l.contains("rays/s")),
                "{rays} {q}: {out}"
            );
        }
    }
}

#[test]
fn every_command_works_on_every_format() {
    let dir = TempDir::new("formats");
    let s = bunny();
    let files = [
        bunny_path(),
        write_stl(&dir, &s),
        write_ply(&dir, &s),
        write_glb(&dir, &s),
        write_gltf(&dir, &s),
    ];
    let rays = "0 5 20 0 0 -1\n1 3 -20 0 0 1\n30 30 30 1 0 0\n";
    let mut first: Option<Vec<String>> = None;
    for f in &files {
        let f = f.to_str().unwrap();
        let info = ok(&run(&["info", f], None, None));
        assert!(info.contains("triangles: "), "{f}: {info}");
        let picked = ok(&run(&["pick", f, "--rays", "-"], None, Some(rays)));
        let lines: Vec<String> = picked.lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), 3, "{f}: {picked}");
        // Same triangles in the same order in every format: the same answers (the GLB's
        // first object is the bunny as is; its mirrored twin sits at x = 20).
        match &first {
            None => first = Some(lines),
            Some(expected) => assert_eq!(&lines, expected, "{f}"),
        }
        let png = dir.path("r.png");
        ok(&run(
            &["render", f, "-o", png.to_str().unwrap(), "--size", "32,24"],
            None,
            None,
        ));
        ok(&run(&["bench", f, "--quick"], None, None));
    }
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_input_exits_2_with_one_sentence() {
    let dir = TempDir::new("errors");
    let b = bunny_path();
    let b = b.to_str().unwrap();
    let missing = dir.path("absent.obj");
    let unknown = dir.path("mesh.xyz");
    std::fs::write(&unknown, "v 0 0 0\n").unwrap();
    let broken = dir.path("broken.obj");
    std::fs::write(&broken, "v 0 0 0\nv 1 0 0\nf 1 2 3\n").unwrap();
    let no_rays = dir.path("none.txt");
    let cases: Vec<(Vec<&str>, Option<&str>, &str)> = vec![
        (vec!["info", missing.to_str().unwrap()], None, "cannot read"),
        (
            vec!["info", unknown.to_str().unwrap()],
            None,
            "unknown format",
        ),
        (vec!["info", broken.to_str().unwrap()], None, "line 3"),
        (
            vec!["pick", b, "--rays", "-"],
            Some("0 0 0 1 0 0\n0 0 x 1 0 0\n"),
            "stdin, line 2",
        ),
        (
            vec!["pick", b, "--rays", "-"],
            Some("0 0 0 1 0\n"),
            "line 1",
        ),
        (
            vec!["pick", b, "--rays", "-"],
            Some("nan 0 0 1 0 0\n"),
            "finite",
        ),
        (
            vec!["pick", b, "--rays", no_rays.to_str().unwrap()],
            None,
            "cannot read rays",
        ),
        (
            vec!["pick", b, "--pixel", "1,2", "--camera", "eye=1,2"],
            None,
            "camera",
        ),
        (
            vec![
                "pick",
                b,
                "--pixel",
                "1,2",
                "--camera",
                "eye=0,0,0;target=0,0,0",
            ],
            None,
            "camera",
        ),
        (
            vec!["render", b, "-o", "x.png", "--size", "0,10"],
            None,
            "size",
        ),
    ];
    for (args, input, needle) in cases {
        let o = run(&args, None, input);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?}: nothing on stdout");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
    }
    // Usage errors come from clap, also with exit code 2.
    assert_eq!(run(&["pick", b], None, None).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"], None, None).status.code(), Some(2));
    // Writing into a directory that does not exist is the caller's mistake too.
    let o = run(
        &[
            "render",
            b,
            "-o",
            dir.path("no/such/dir.png").to_str().unwrap(),
            "--size",
            "8,8",
        ],
        None,
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

// ---------------------------------------------------------------- the contract
