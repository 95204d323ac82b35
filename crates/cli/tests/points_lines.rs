//! Points and lines in files: `info` counts them, `pick --pixel` picks them within a pixel
//! tolerance unless a surface hides them, `render` draws them.

mod common;

use common::*;
use serde_json::Value;

/// A square at z = 0 with a line and a point in front of it (z = 0.5) and a line behind it
/// (z = -0.5).
const SKETCH: &str = "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3 4\n\
v -1 0 0.5\nv 1 0 0.5\nl 5 6\nv 0.5 0.5 0.5\np 7\nv -1 0.5 -0.5\nv 1 0.5 -0.5\nl 8 9\n";

fn scan(path: &str, radius: &str) -> Vec<Value> {
    (150..450)
        .step_by(2)
        .map(|y| {
            let px = format!("400,{y}");
            let out = ok(&run(
                &["pick", path, "--pixel", &px, "--radius-px", radius],
                None,
                None,
            ));
            serde_json::from_str(out.trim()).unwrap()
        })
        .collect()
}

#[test]
fn points_and_lines_are_counted_picked_and_drawn() {
    let dir = TempDir::new("sketch");
    let path = dir.path("sketch.obj");
    std::fs::write(&path, SKETCH).unwrap();
    let p = path.to_str().unwrap();
    let info = ok(&run(&["info", p], None, None));
    assert!(info.contains("points: 1 in 1 point cloud"), "{info}");
    assert!(info.contains("segments: 2 in 1 line set"), "{info}");

    let picks = scan(p, "3");
    let segments: Vec<&Value> = picks.iter().filter(|v| v["kind"] == "segment").collect();
    assert!(
        !segments.is_empty(),
        "the line in front is picked somewhere down the column"
    );
    for s in &segments {
        // Only the front line: the one behind the square is hidden.
        assert_eq!(s["point"][2].as_f64(), Some(0.5), "{s}");
        assert!(s["point"][1].as_f64().unwrap().abs() < 1e-6, "{s}");
        assert!(s["distance_px"].as_f64().unwrap() <= 3.0);
        let u = s["u"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&u));
    }
    assert!(
        picks.iter().any(|v| v.get("triangle").is_some()),
        "the surface elsewhere"
    );
    // Without a tolerance, only surfaces.
    assert!(scan(p, "0").iter().all(|v| v.get("kind").is_none()));

    let png = dir.path("sketch.png");
    ok(&run(
        &[
            "render",
            p,
            "-o",
            png.to_str().unwrap(),
            "--size",
            "200,150",
        ],
        None,
        None,
    ));
    let img = image::open(&png).unwrap().to_rgb8();
    let line = img.pixels().filter(|px| px.0 == [90, 230, 255]).count();
    let point = img.pixels().filter(|px| px.0 == [255, 120, 40]).count();
    assert!(
        line > 50 && point > 4,
        "line pixels {line}, point pixels {point}"
    );
}

#[test]
fn a_point_cloud_alone_renders_and_picks() {
    let dir = TempDir::new("cloud");
    let path = dir.path("cloud.ply");
    let mut ply = String::from("ply\nformat ascii 1.0\nelement vertex 64\nproperty float x\nproperty float y\nproperty float z\nend_header\n");
    for i in 0..64 {
        ply += &format!("{} {} 0\n", (i % 8) as f32 * 0.25, (i / 8) as f32 * 0.25);
    }
    std::fs::write(&path, ply).unwrap();
    let p = path.to_str().unwrap();
    let info = ok(&run(&["info", p], None, None));
    assert!(info.contains("points: 64 in 1 point cloud"), "{info}");
    let png = dir.path("cloud.png");
    ok(&run(
        &[
            "render",
            p,
            "-o",
            png.to_str().unwrap(),
            "--size",
            "160,120",
        ],
        None,
        None,
    ));
    let out = ok(&run(
        &["pick", p, "--pixel", "400,300", "--radius-px", "40"],
        None,
        None,
    ));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["kind"], "point", "{v}");
}

#[test]
fn built_files_keep_their_points_and_lines() {
    let dir = TempDir::new("sketch-saved");
    let path = dir.path("sketch.obj");
    std::fs::write(&path, SKETCH).unwrap();
    let p = path.to_str().unwrap();
    let rpk = dir.path("sketch.rpk");
    let r = rpk.to_str().unwrap();
    ok(&run(&["build", p, "-o", r], None, None));
    let info = ok(&run(&["info", r], None, None));
    assert!(info.contains("points: 1 in 1 point cloud"), "{info}");
    assert!(info.contains("segments: 2 in 1 line set"), "{info}");
    // The same picks, point for point, from the saved file as from the source.
    let (from_source, from_saved) = (scan(p, "3"), scan(r, "3"));
    assert!(from_source.iter().any(|v| v["kind"] == "segment"));
    assert_eq!(from_saved, from_source);
}
