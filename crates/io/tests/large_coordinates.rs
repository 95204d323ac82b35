//! Files in survey or map coordinates: vertices read in f64 and re-centred before rounding to
//! f32, glTF node matrices composed in f64, and the loaded scene picked exactly on the f64
//! path, as the same file at the origin is.

use nalgebra::{Point3 as P64, Vector3 as V64};
use raypick_io::{load_scene_from_bytes, read_bytes, Format, RECENTRE_FROM};
use raypick_primitives::Ray64;
use raypick_query::scene::SceneQuery;

/// A 4 x 4 grid of quads in the plane z = h(x, y), its corner at `(e, n)`, in OBJ and ASCII
/// PLY text, coordinates written with 3 decimals.
fn grid(e: f64, n: f64) -> (String, String, Vec<P64<f64>>) {
    let mut v = Vec::new();
    for j in 0..5 {
        for i in 0..5 {
            let z = 0.125 * f64::from((i * 3 + j * 5) % 4);
            v.push(P64::new(
                e + 0.5 * f64::from(i),
                n + 0.5 * f64::from(j),
                300.0 + z,
            ));
        }
    }
    let mut faces = Vec::new();
    for j in 0..4u32 {
        for i in 0..4u32 {
            let p = j * 5 + i;
            faces.push([p, p + 1, p + 6]);
            faces.push([p, p + 6, p + 5]);
        }
    }
    let mut obj = String::new();
    let mut ply = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        v.len(),
        faces.len()
    );
    for p in &v {
        obj += &format!("v {:.3} {:.3} {:.3}\n", p.x, p.y, p.z);
        ply += &format!("{:.3} {:.3} {:.3}\n", p.x, p.y, p.z);
    }
    for f in &faces {
        obj += &format!("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
        ply += &format!("3 {} {} {}\n", f[0], f[1], f[2]);
    }
    (obj, ply, v)
}

#[test]
fn far_vertices_are_recentred_exactly() {
    let (e, n) = (5_000_000.0, 4_000_000.0);
    let (obj, ply, v) = grid(e, n);
    for (format, text) in [(Format::Obj, &obj), (Format::Ply, &ply)] {
        let s = read_bytes(text.as_bytes(), format, "utm").unwrap();
        let m = &s.meshes[0];
        assert!(
            m.offset.x.abs() >= RECENTRE_FROM,
            "{format:?}: {:?}",
            m.offset
        );
        assert_eq!(m.positions.len(), v.len());
        for local in &m.positions {
            // Quarter steps near a whole offset: exact in f32 once re-centred (tobj may
            // order the vertices its own way).
            let got = local.cast::<f64>() + m.offset;
            assert!(v.contains(&got), "{format:?}: {got:?}");
        }
        let t = s.instances[0].transform64;
        assert_eq!(t.fixed_view::<3, 1>(0, 3).into_owned(), m.offset);
    }
    // Near the origin nothing moves.
    let (obj, _, v) = grid(10.0, 20.0);
    let s = read_bytes(obj.as_bytes(), Format::Obj, "near").unwrap();
    assert_eq!(s.meshes[0].offset, V64::zeros());
    assert!(v.contains(&s.meshes[0].positions[0].cast::<f64>()));
}

#[test]
fn far_files_pick_as_the_same_file_at_the_origin() {
    let (e, n) = (5_000_000.0, 4_000_000.0);
    let (far_obj, _, _) = grid(e, n);
    let (near_obj, _, _) = grid(0.0, 0.0);
    let far = load_scene_from_bytes(far_obj.as_bytes(), Format::Obj, "far").unwrap();
    let near = load_scene_from_bytes(near_obj.as_bytes(), Format::Obj, "near").unwrap();
    let q = SceneQuery::default();
    let mut hits = 0;
    for k in 0..200 {
        let (x, y) = (0.1 + 0.0097 * f64::from(k), 0.05 + 0.0091 * f64::from(k));
        let dir = V64::new(0.01 * f64::from(k % 7) - 0.03, 0.02, -1.0);
        let o = P64::new(x, y, 310.0);
        let a = near.scene.closest_hit_f64(&Ray64::new(o, dir), &q);
        let b = far
            .scene
            .closest_hit_f64(&Ray64::new(o + V64::new(e, n, 0.0), dir), &q);
        let (Some(a), Some(b)) = (a, b) else {
            assert!(a.is_none() && b.is_none(), "ray {k}");
            continue;
        };
        hits += 1;
        assert!((a.t - b.t).abs() < 1e-5, "ray {k}: t {} vs {}", a.t, b.t);
        let moved = a.point + V64::new(e, n, 0.0);
        assert!(
            (moved - b.point).norm() < 1e-4,
            "ray {k}: {moved:?} vs {:?}",
            b.point
        );
    }
    assert!(hits > 150, "{hits}");
}

#[test]
fn gltf_node_matrices_compose_in_f64() {
    // A root translated to UTM-like coordinates, a child moved by a small step: composed in
    // f64 the child lands exactly at their sum, which f32 cannot hold.
    let positions: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let bytes: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
    let b64 = base64_encode(&bytes);
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"translation":[5000000.0,4000000.0,0.0],"children":[1]}},{{"translation":[0.25,0.125,0.0],"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{b64}"}}]}}"#
    );
    let s = read_bytes(gltf.as_bytes(), Format::Gltf, "far.gltf").unwrap();
    let t = s.instances[0].transform64;
    assert_eq!((t[(0, 3)], t[(1, 3)]), (5_000_000.25, 4_000_000.125));
    let built = s.to_scene("far.gltf").unwrap();
    let ray = Ray64::new(
        P64::new(5_000_000.5, 4_000_000.25, 10.0),
        V64::new(0.0, 0.0, -1.0),
    );
    let hit = built
        .scene
        .closest_hit_f64(&ray, &SceneQuery::default())
        .unwrap();
    assert_eq!((hit.point.x, hit.point.y), (5_000_000.5, 4_000_000.25));
}

fn base64_encode(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(T[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
