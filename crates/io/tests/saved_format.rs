//! The saved format is stable: a small scene saved by this build is byte for byte the file
//! in `tests/data/small_scene.rpk` (also the `rpk` fuzz target's seed), and that file loads
//! and answers. A change to the format must bump `FORMAT_VERSION` and re-bless the file with
//! `RAYPICK_BLESS=1 cargo test -p raypick-io --test saved_format`.

use nalgebra::{Isometry3, Matrix4, Vector3};
use raypick_io::{load_scene_from_bytes, Format};
use raypick_primitives::{Point3, Ray};
use raypick_query::scene::{SceneQuery, SharedShape};
use raypick_query::{Mesh, Scene};

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/small_scene.rpk");

fn small_scene() -> Scene {
    let square = Mesh::new(
        vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(1.0, 1.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap();
    let tetra = Mesh::new(
        vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(0.0, 0.0, 1.0),
        ],
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    )
    .unwrap();
    let mut scene = Scene::new();
    let (a, b) = (scene.add_mesh(square), scene.add_mesh(tetra));
    scene.add_instance(a, &Matrix4::identity()).unwrap();
    let gone = scene.add_instance(b, &Matrix4::identity()).unwrap();
    let mirrored = Matrix4::new_translation(&Vector3::new(3.0, 0.0, 0.0))
        * Matrix4::new_nonuniform_scaling(&Vector3::new(-1.0, 2.0, 1.0));
    let t = scene.add_instance(b, &mirrored).unwrap();
    scene.set_user_data(t, 7).unwrap();
    scene.set_mask(t, 2).unwrap();
    scene
        .add_shape(
            SharedShape::ball(0.5),
            &Isometry3::translation(0.0, 0.0, 3.0),
        )
        .unwrap();
    scene.remove(gone).unwrap();
    scene.update();
    scene
}

#[test]
fn the_saved_format_is_stable() {
    let bytes = small_scene().to_bytes().unwrap();
    if std::env::var_os("RAYPICK_BLESS").is_some() {
        std::fs::write(FILE, &bytes).unwrap();
    }
    let committed = std::fs::read(FILE).expect("tests/data/small_scene.rpk");
    assert!(
        committed == bytes,
        "the saved format changed: bump FORMAT_VERSION and re-bless (see the file's doc)"
    );
    let loaded = load_scene_from_bytes(&committed, Format::Saved, "small_scene.rpk").unwrap();
    let q = SceneQuery::default();
    let down = Ray::new(Point3::new(0.0, 0.0, 5.0), -Vector3::z());
    let hit = loaded.scene.closest_hit(&down, &q).unwrap();
    assert!((hit.t - 1.5).abs() < 1e-5, "the ball first: {hit:?}");
    let beside = Ray::new(Point3::new(0.75, 0.5, 5.0), -Vector3::z());
    assert_eq!(
        loaded.scene.closest_hit(&beside, &q).unwrap().t,
        5.0,
        "the square"
    );
    let side = Ray::new(Point3::new(5.0, 0.1, 0.1), -Vector3::x());
    let hit = loaded.scene.closest_hit(&side, &q).unwrap();
    assert_eq!(hit.user_data, 7);
    assert_eq!(loaded.scene.len(), 3);
}
