//! Runs `raypick distance`: the JSON-lines contract against the library's
//! `Scene::signed_distance_f64` and `Mesh::signed_distance` on the bunny, the input rules shared with `pick --rays`, and
//! the README's example output.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use raypick_io::read_file;
use raypick_primitives::Point3;
use raypick_query::{Mesh, Scene};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_raypick");

fn bunny_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/bunny.obj")
}

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run raypick");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn bunny() -> (Scene, Mesh) {
    let loaded = read_file(bunny_path()).unwrap();
    let scene = loaded.to_scene("bunny").unwrap();
    let mesh = Mesh::clone(scene.scene.mesh(scene.meshes[0]).unwrap());
    (scene.scene, mesh)
}

fn f(v: &Value) -> f32 {
    v.as_f64().unwrap() as f32
}

#[test]
fn lines_match_the_library() {
    let (scene, mesh) = bunny();
    let mut input = String::from("# x y z\n\n");
    let mut pts = Vec::new();
    for i in 0..60 {
        let t = i as f32 * 0.37;
        let p = Point3::new(
            5.0 * t.sin(),
            5.0 + 4.0 * (1.3 * t).cos(),
            3.0 * (0.7 * t).sin(),
        );
        let line = format!("{} {} {}\n", p.x, p.y, p.z);
        // The point as the CLI reads it: the same text in f64.
        let v: Vec<f64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        input.push_str(&line);
        pts.push(nalgebra::Point3::new(v[0], v[1], v[2]));
    }
    let bunny = bunny_path();
    let o = run(
        &["distance", bunny.to_str().unwrap(), "--points", "-"],
        &input,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), pts.len());
    let mut inside = 0;
    for (line, p) in lines.iter().zip(&pts) {
        let v: Value = serde_json::from_str(line).unwrap();
        // Exactly the scene's f64 answer; the mesh's at the point rounded to f32 (where the
        // scene's identity instance takes it) to the f32 rounding of coordinates near 10.
        let s = scene.signed_distance_f64(*p).unwrap();
        let p = &p.cast::<f32>();
        let m = mesh.signed_distance(*p).unwrap();
        // serde_json parses floats to within an ulp or so, not always to the nearest.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
        let sd = v["signed_distance"].as_f64().unwrap();
        assert!(close(sd, s.distance), "{line} {s:?}");
        assert!(
            (s.distance - f64::from(m.distance)).abs() <= 1e-5,
            "{line} {m:?}"
        );
        assert!(
            close(v["distance"].as_f64().unwrap(), s.distance.abs()),
            "{line}"
        );
        assert_eq!(v["inside"].as_bool().unwrap(), mesh.contains(*p));
        assert_eq!(f(&v["winding_number"]), m.winding_number);
        let n: Vec<f64> = (0..3).map(|k| v["nearest"][k].as_f64().unwrap()).collect();
        assert!((0..3).all(|k| close(n[k], s.point[k])), "{line} {s:?}");
        assert!(
            (s.point - m.point.cast::<f64>()).norm() < 1e-6,
            "{line} {m:?}"
        );
        assert_eq!(v["object"].as_u64(), Some(0));
        assert_eq!(v["triangle"].as_u64(), Some(u64::from(m.triangle)));
        inside += usize::from(mesh.contains(*p));
    }
    assert!(inside > 3 && inside < pts.len() - 3, "{inside}");
}

#[test]
fn bad_lines_and_files() {
    let bunny = bunny_path();
    let b = bunny.to_str().unwrap();
    for (input, msg) in [
        (
            "0 0 0\n0 0\n",
            "stdin, line 2: expected 3 numbers (x y z), found 2 fields",
        ),
        ("0 x 0\n", "stdin, line 1: \"x\" is not a number"),
        ("0 0 inf\n", "stdin, line 1: z must be finite"),
        ("0 0 NaN\n", "stdin, line 1: z must be finite"),
    ] {
        let o = run(&["distance", b, "--points", "-"], input);
        assert_eq!(o.status.code(), Some(2), "{input:?}");
        assert!(o.stdout.is_empty(), "nothing on stdout for {input:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains(msg), "{err}");
    }
    let o = run(&["distance", b, "--points", "/nonexistent/points.txt"], "");
    assert_eq!(o.status.code(), Some(2));
    let o = run(
        &["distance", "/nonexistent.obj", "--points", "-"],
        "0 0 0\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["distance", b, "--points", "-"], "# nothing\n\n");
    assert!(o.status.success() && o.stdout.is_empty());
}

/// The README's `raypick distance` example, line for line.
#[test]
fn readme_example_output() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let start = readme
        .find("$ raypick distance assets/bunny.obj --points points.txt\n")
        .expect("the README shows raypick distance");
    let rest = &readme[start..];
    let expected: Vec<&str> = rest
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with('{'))
        .collect();
    assert_eq!(expected.len(), 3);
    let bunny = bunny_path();
    let o = run(
        &["distance", bunny.to_str().unwrap(), "--points", "-"],
        "# x y z\n0 5 0\n0 5 20\n\n3.5 2 0.5\n",
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().collect::<Vec<_>>(), expected);
}
