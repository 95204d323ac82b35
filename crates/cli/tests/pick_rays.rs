//! The `pick --rays` contract against the library's `closest_hit`, on every format and on
//! multi-object files.

mod common;

use common::*;
use raypick_io::{read_file, Format, SceneData};
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::{Mesh, RayQuery};
use serde_json::Value;

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
