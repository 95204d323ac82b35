//! `pick --rays` and `distance --points` on a file in map coordinates: rays and points read
//! in f64, the file's vertices read in f64 and re-centred, points and distances printed in
//! f64. An f32 ray, point or vertex there would be off by up to a quarter of a unit.

mod common;

use common::*;
use serde_json::Value;

const E: f64 = 5_000_000.0;
const N: f64 = 4_000_000.0;

/// A flat square at z = 300 in UTM-like coordinates, two triangles, written to `dir`.
fn square(dir: &TempDir) -> std::path::PathBuf {
    let (e, n) = (E, N);
    let obj = format!(
        "v {e} {n} 300\nv {} {n} 300\nv {} {} 300\nv {e} {} 300\nf 1 2 3\nf 1 3 4\n",
        e + 2.0,
        e + 2.0,
        n + 2.0,
        n + 2.0
    );
    let path = dir.path("utm.obj");
    std::fs::write(&path, obj).unwrap();
    path
}

/// `raypick ARGS` on `input`, its JSON lines parsed.
fn json_lines(args: &[&str], input: &str) -> Vec<Value> {
    ok(&run(args, None, Some(input)))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn pick_rays_is_exact_in_map_coordinates() {
    let dir = TempDir::new("utm");
    let (e, n) = (E, N);
    let path = square(&dir);
    // Origins a few centimetres apart: f32 cannot tell them apart at 5e6.
    let rays: String = (0..8)
        .map(|k| format!("{} {} 310 0 0 -1\n", e + 0.3 + 0.03 * f64::from(k), n + 1.1))
        .collect();
    let lines = json_lines(&["pick", path.to_str().unwrap(), "--rays", "-"], &rays);
    assert_eq!(lines.len(), 8);
    for (k, v) in lines.iter().enumerate() {
        assert_eq!(v["hit"], true, "{v}");
        let x = v["point"][0].as_f64().unwrap();
        let y = v["point"][1].as_f64().unwrap();
        let want_x = e + 0.3 + 0.03 * k as f64;
        assert!((x - want_x).abs() < 1e-6, "ray {k}: x {x} vs {want_x}");
        assert!((y - (n + 1.1)).abs() < 1e-6, "ray {k}: y {y}");
        assert!((v["t"].as_f64().unwrap() - 10.0).abs() < 1e-5, "{v}");
    }
}

#[test]
fn distance_is_exact_in_map_coordinates() {
    let dir = TempDir::new("utm-distance");
    let path = square(&dir);
    // Points a few centimetres apart and 4 cm above the square.
    let points: String = (0..8)
        .map(|k| format!("{} {} 300.04\n", E + 0.3 + 0.03 * f64::from(k), N + 1.1))
        .collect();
    let lines = json_lines(
        &["distance", path.to_str().unwrap(), "--points", "-"],
        &points,
    );
    assert_eq!(lines.len(), 8);
    for (k, v) in lines.iter().enumerate() {
        let d = v["distance"].as_f64().unwrap();
        assert!((d - 0.04).abs() < 1e-6, "point {k}: {v}");
        let x = v["nearest"][0].as_f64().unwrap();
        let want_x = E + 0.3 + 0.03 * k as f64;
        assert!((x - want_x).abs() < 1e-6, "point {k}: x {x} vs {want_x}");
        assert!(
            (v["nearest"][2].as_f64().unwrap() - 300.0).abs() < 1e-6,
            "{v}"
        );
    }
}
