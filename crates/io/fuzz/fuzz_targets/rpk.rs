//! Saved meshes and scenes (`.rpk`): any bytes load to an error or to a mesh or scene that
//! answers queries without panicking. The header's length and checksum are rewritten to
//! match the input first (half of the time), so that the structural checks behind them are
//! what gets fuzzed, not the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;
use raypick_io::{read_bytes, Format};
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::scene::SceneQuery;
use raypick_query::{Mesh, RayQuery, Scene};

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 32 && bytes[0] & 1 == 0 {
        let len = (bytes.len() - 32) as u64;
        bytes[16..24].copy_from_slice(&len.to_le_bytes());
        let crc = crc32fast::hash(&bytes[32..]);
        bytes[24..28].copy_from_slice(&crc.to_le_bytes());
    }
    let ray = Ray::new(Point3::new(-3.0, 0.25, 0.5), Vector3::new(1.0, 0.01, -0.02));
    if let Ok(mesh) = Mesh::from_bytes(&bytes) {
        mesh.tree().validate().expect("a loaded tree validates");
        let q = RayQuery::default();
        let _ = mesh.closest_hit(&ray, &q);
        let _ = mesh.all_hits(&ray, &q);
        let _ = mesh.nearest_point(&Point3::new(0.1, 0.2, 0.3), f32::INFINITY);
        assert_eq!(Mesh::from_bytes(&mesh.to_bytes()).map(|m| m.to_bytes()).ok(), Some(mesh.to_bytes()));
    }
    if let Ok(scene) = Scene::from_bytes(&bytes) {
        let q = SceneQuery::default();
        let _ = scene.closest_hit(&ray, &q);
        let _ = scene.all_hits(&ray, &q);
        let _ = scene.nearest_prim(Point3::new(0.1, 0.2, 0.3), f64::INFINITY, &q);
        let _ = scene.prims_within_ray(&ray, 0.1, &q);
    }
    if let Err(e) = read_bytes(&bytes, Format::Saved, "fuzz.rpk") {
        assert!(e.is_bad_input(), "{e}");
    }
});
