//! Runs the built `raypick` binary: every command, the exit codes, and the `pick --rays`
//! contract against the library's `closest_hit`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use raypick_io::{read_file, Format, SceneData};
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::{Mesh, RayQuery};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_raypick");

fn bunny_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/bunny.obj")
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "raypick-cli-test-{}-{tag}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str], cwd: Option<&Path>, stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("run raypick");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            input.write_all(s.as_bytes()).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}, stderr: {}",
        o.status.code(),
        stderr(o)
    );
    stdout(o)
}

// ---------------------------------------------------------------- files in every format

fn bunny() -> SceneData {
    read_file(bunny_path()).unwrap()
}

fn write_stl(dir: &TempDir, s: &SceneData) -> PathBuf {
    let m = &s.meshes[0];
    let mut out = vec![0u8; 80];
    out.extend_from_slice(&(m.triangles.len() as u32).to_le_bytes());
    for t in &m.triangles {
        out.extend_from_slice(&[0u8; 12]);
        for &i in t {
            let p = m.positions[i as usize];
            for c in [p.x, p.y, p.z] {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0, 0]);
    }
    let path = dir.path("bunny.stl");
    std::fs::write(&path, out).unwrap();
    path
}

fn write_ply(dir: &TempDir, s: &SceneData) -> PathBuf {
    let m = &s.meshes[0];
    let mut out = format!(
        "ply\nformat binary_big_endian 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangles.len()
    )
    .into_bytes();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            out.extend_from_slice(&c.to_be_bytes());
        }
    }
    for t in &m.triangles {
        out.push(3);
        for i in t {
            out.extend_from_slice(&i.to_be_bytes());
        }
    }
    let path = dir.path("bunny.ply");
    std::fs::write(&path, out).unwrap();
    path
}

/// glTF JSON and its binary buffer for the bunny placed twice: node 0 as is, node 1
/// translated by (20, 0, 0) and mirrored in x. `uri` names the buffer (none: the GLB chunk).
fn gltf_parts(s: &SceneData, uri: Option<&str>) -> (String, Vec<u8>) {
    let m = &s.meshes[0];
    let mut bin = Vec::new();
    for p in &m.positions {
        for c in [p.x, p.y, p.z] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let pos_len = bin.len();
    for t in &m.triangles {
        for i in t {
            bin.extend_from_slice(&i.to_le_bytes());
        }
    }
    let idx_len = bin.len() - pos_len;
    let b = m.bounds();
    let uri = uri.map(|u| format!(r#""uri":"{u}","#)).unwrap_or_default();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
"buffers":[{{{uri}"byteLength":{}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{pos_len}}},{{"buffer":0,"byteOffset":{pos_len},"byteLength":{idx_len}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},
{{"bufferView":1,"componentType":5125,"count":{},"type":"SCALAR"}}],
"meshes":[{{"name":"bunny","primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"nodes":[{{"name":"left","mesh":0}},{{"name":"right","mesh":0,"matrix":[-1,0,0,0, 0,1,0,0, 0,0,1,0, 20,0,0,1]}}],
"scenes":[{{"nodes":[0,1]}}],"scene":0}}"#,
        bin.len(),
        m.positions.len(),
        b.min.x,
        b.min.y,
        b.min.z,
        b.max.x,
        b.max.y,
        b.max.z,
        m.triangles.len() * 3
    );
    (json, bin)
}

fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            s.push(if k <= c.len() {
                A[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    s
}

/// The two bunnies as a .gltf with an embedded base64 buffer.
fn write_gltf(dir: &TempDir, s: &SceneData) -> PathBuf {
    let (_, bin) = gltf_parts(s, None);
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let (json, _) = gltf_parts(s, Some(&uri));
    let path = dir.path("two_bunnies.gltf");
    std::fs::write(&path, json).unwrap();
    path
}

/// The two bunnies as a GLB.
fn write_glb(dir: &TempDir, s: &SceneData) -> PathBuf {
    let (json, bin) = gltf_parts(s, None);
    let mut j = json.into_bytes();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&((12 + 8 + j.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    let path = dir.path("two_bunnies.glb");
    std::fs::write(&path, out).unwrap();
    path
}

// ---------------------------------------------------------------- commands

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

/// Rays through and around the bunny: from a ring of eyes towards random points of its box,
/// some with a tmax, plus misses.
fn contract_rays(s: &SceneData) -> Vec<(Ray, Option<f32>)> {
    let b = s.bounds();
    let c = b.center();
    let e = b.extents();
    let mut seed: u64 = 0xDEAD_BEEF_1234_5678;
    let mut unit = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut rays = Vec::new();
    for k in 0..400 {
        let a = k as f32 * 0.37;
        let eye = c + Vector3::new(a.cos() * 15.0, unit() * 10.0 - 5.0, a.sin() * 15.0);
        let target = b.min + Vector3::new(unit() * e.x, unit() * e.y, unit() * e.z);
        let dir = (target - eye) * (0.5 + unit()); // not unit length: t is in its units
        let t_max = if k % 5 == 0 { Some(unit() * 2.0) } else { None };
        rays.push((Ray::new(eye, dir), t_max));
    }
    rays
}

fn ray_line(r: &Ray, t_max: Option<f32>) -> String {
    let mut s = format!(
        "{:?} {:?} {:?} {:?} {:?} {:?}",
        r.origin.x, r.origin.y, r.origin.z, r.dir.x, r.dir.y, r.dir.z
    );
    if let Some(t) = t_max {
        s.push_str(&format!(" {t:?}"));
    }
    s
}

fn f(v: &Value) -> f32 {
    v.as_f64().unwrap() as f32
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn pick_rays_agrees_with_the_library_closest_hit() {
    let s = bunny();
    let mesh = raypick_io::load_mesh(bunny_path()).unwrap();
    let rays = contract_rays(&s);
    let mut input = String::from("# contract check\n\n");
    for (r, t) in &rays {
        input.push_str(&ray_line(r, *t));
        input.push('\n');
    }
    let b = bunny_path();
    let out = ok(&run(
        &["pick", b.to_str().unwrap(), "--rays", "-"],
        None,
        Some(&input),
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), rays.len());
    let mut hits = 0;
    for ((r, t_max), line) in rays.iter().zip(&lines) {
        let q = RayQuery::new(0.0, t_max.unwrap_or(f32::INFINITY));
        let v: Value = serde_json::from_str(line).unwrap();
        match mesh.closest_hit(r, &q) {
            None => assert_eq!(*line, r#"{"hit":false}"#),
            Some(h) => {
                hits += 1;
                assert_eq!(v["hit"], true, "{line}");
                assert_eq!(v["object"], 0);
                assert_eq!(v["triangle"], h.triangle, "{line}");
                assert!(close(f(&v["t"]), h.t), "{line} vs {}", h.t);
                let p = &v["point"];
                let n = &v["normal"];
                for k in 0..3 {
                    assert!(close(f(&p[k]), h.point[k]), "{line}");
                    assert!(close(f(&n[k]), h.normal[k]), "{line}");
                }
                let nn: f32 = (0..3).map(|k| f(&n[k]) * f(&n[k])).sum();
                assert!((nn - 1.0).abs() < 1e-5, "unit normal: {line}");
                assert!(
                    close(f(&v["uv"][0]), h.u) && close(f(&v["uv"][1]), h.v),
                    "{line}"
                );
                // The point is where the ray is at t, in the direction's units.
                let at = r.at(h.t);
                assert!((0..3).all(|k| (at[k] - f(&p[k])).abs() < 1e-3), "{line}");
            }
        }
    }
    assert!(
        hits > 100 && hits < rays.len(),
        "the rays mix hits ({hits}) and misses"
    );

    // --any agrees with closest; --all starts with the closest hit and is sorted by t.
    let any = ok(&run(
        &["pick", b.to_str().unwrap(), "--rays", "-", "--any"],
        None,
        Some(&input),
    ));
    let all = ok(&run(
        &["pick", b.to_str().unwrap(), "--rays", "-", "--all"],
        None,
        Some(&input),
    ));
    for ((closest, any), all) in lines.iter().zip(any.lines()).zip(all.lines()) {
        let c: Value = serde_json::from_str(closest).unwrap();
        let a: Value = serde_json::from_str(any).unwrap();
        let hits: Value = serde_json::from_str(all).unwrap();
        let hits = hits["hits"].as_array().unwrap();
        assert_eq!(a["hit"], c["hit"]);
        assert_eq!(!hits.is_empty(), c["hit"] == true);
        if let Some(first) = hits.first() {
            assert_eq!(first["t"], c["t"]);
            assert_eq!(first["triangle"], c["triangle"]);
        }
        assert!(
            hits.windows(2).all(|w| f(&w[0]["t"]) <= f(&w[1]["t"])),
            "{all}"
        );
    }

    // --cull back never reports a back face; --cull front never a front face.
    let ray = "0 5 20 0 0 -1\n";
    let back = ok(&run(
        &[
            "pick",
            b.to_str().unwrap(),
            "--rays",
            "-",
            "--all",
            "--cull",
            "back",
        ],
        None,
        Some(ray),
    ));
    let none = ok(&run(
        &["pick", b.to_str().unwrap(), "--rays", "-", "--all"],
        None,
        Some(ray),
    ));
    let nb: Value = serde_json::from_str(back.trim()).unwrap();
    let nn: Value = serde_json::from_str(none.trim()).unwrap();
    assert!(
        nb["hits"].as_array().unwrap().len() < nn["hits"].as_array().unwrap().len(),
        "{back} vs {none}"
    );
}

#[test]
fn pick_rays_names_the_object_in_a_multi_object_file() {
    let dir = TempDir::new("objects");
    let s = bunny();
    let glb = write_glb(&dir, &s);
    let loaded = read_file(&glb).unwrap();
    assert_eq!(loaded.instances.len(), 2);
    // The library's answer per instance: each instance's mesh in world space.
    let per_instance: Vec<Mesh> = loaded
        .instances
        .iter()
        .map(|inst| {
            let m = &loaded.meshes[inst.mesh];
            let p = m
                .positions
                .iter()
                .map(|p| inst.transform.transform_point(p))
                .collect();
            Mesh::new(p, m.triangles.clone()).unwrap()
        })
        .collect();
    let rays: Vec<Ray> = (0..60)
        .map(|k| {
            let x = -5.0 + k as f32 * 0.5;
            Ray::new(Point3::new(x, 4.0, 30.0), Vector3::new(0.0, 0.0, -1.0))
        })
        .collect();
    let input: String = rays.iter().map(|r| ray_line(r, None) + "\n").collect();
    let out = ok(&run(
        &["pick", glb.to_str().unwrap(), "--rays", "-"],
        None,
        Some(&input),
    ));
    let mut seen = [false; 2];
    for (r, line) in rays.iter().zip(out.lines()) {
        let best = per_instance
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.closest_hit(r, &RayQuery::default()).map(|h| (i, h)))
            .min_by(|a, b| a.1.t.total_cmp(&b.1.t));
        let v: Value = serde_json::from_str(line).unwrap();
        match best {
            None => assert_eq!(line, r#"{"hit":false}"#),
            Some((obj, h)) => {
                seen[obj] = true;
                assert_eq!(v["object"], obj, "{line}");
                assert_eq!(v["triangle"], h.triangle, "{line}");
                assert!(close(f(&v["t"]), h.t), "{line}");
            }
        }
    }
    assert_eq!(seen, [true, true], "rays hit both bunnies");
    let info = ok(&run(&["info", glb.to_str().unwrap()], None, None));
    assert!(info.contains("in 2 instances of 1 mesh"), "{info}");
    let _ = Format::Glb;
}
