//! `load_scene`: shared meshes, instances in load order, hits naming the file object.

mod common;

use common::*;
use raypick_io::{load_scene, load_scene_from_bytes, Format};
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::scene::SceneQuery;

#[test]
fn gltf_scene_shares_the_mesh_and_names_objects() {
    let idx = [0u16, 1, 2, 0, 2, 3];
    let json = gltf_json(&QUAD_POS, &idx, None, TWO_NODES, SCENE0, None);
    let dir = TempDir::new("scene");
    let path = dir.write("two.glb", &glb(&json, &gltf_bin(&QUAD_POS, &idx)));
    let sl = load_scene(&path).unwrap();
    assert_eq!(sl.meshes.len(), 1);
    assert_eq!(sl.instances.len(), 2);
    assert_eq!(sl.scene.len(), 2);
    let m0 = sl.scene.instance_mesh(sl.instances[0]).unwrap();
    assert_eq!(
        sl.scene.instance_mesh(sl.instances[1]),
        Some(m0),
        "one shared mesh"
    );
    assert!(!sl.scene.is_stale());
    // Node b is the quad scaled by 2 and moved to x = 10: (10..12, 0..2) in z = 0.
    let down = Vector3::new(0.0, 0.0, -1.0);
    let q = SceneQuery::default();
    let hb = sl
        .scene
        .closest_hit(&Ray::new(Point3::new(11.5, 0.5, 5.0), down), &q)
        .unwrap();
    assert_eq!(hb.user_data, 1);
    assert_eq!(hb.instance, sl.instances[1]);
    assert_eq!(hb.triangle(), Some(0));
    assert_eq!(hb.t, 5.0);
    let ha = sl
        .scene
        .closest_hit(&Ray::new(Point3::new(0.25, 0.75, 5.0), down), &q)
        .unwrap();
    assert_eq!(ha.user_data, 0);
    assert_eq!(ha.triangle(), Some(1));
    assert!(sl
        .scene
        .closest_hit(&Ray::new(Point3::new(5.0, 0.5, 5.0), down), &q)
        .is_none());
}

#[test]
fn obj_objects_become_instances_in_file_order() {
    let text =
        b"o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n";
    let sl = load_scene_from_bytes(text, Format::Obj, "ab.obj").unwrap();
    assert_eq!(sl.instances.len(), 2);
    let h = sl
        .scene
        .closest_hit(
            &Ray::new(Point3::new(0.2, 0.2, 5.0), Vector3::new(0.0, 0.0, -2.0)),
            &SceneQuery::default(),
        )
        .unwrap();
    assert_eq!(h.user_data, 1, "object b (z = 1) is nearer");
    assert_eq!(h.t, 2.0, "t in units of the direction");
    let e = load_scene_from_bytes(b"v 0 0 0\nf 1 2 3\n", Format::Obj, "bad.obj").unwrap_err();
    assert!(e.to_string().starts_with("bad.obj, line 2"), "{e}");
}

#[test]
fn loaded_meshes_keep_their_vertices_for_snapping() {
    use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
    use raypick_query::scene::PickOptions;

    let text = b"o quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
    let sl = load_scene_from_bytes(text, Format::Obj, "quad.obj").unwrap();
    // Looking straight down -z at the quad's centre; the corner (1, 1, 0) is up and right.
    let camera = Camera::look_at(
        Point3::new(0.5, 0.5, 3.0),
        Point3::new(0.5, 0.5, 0.0),
        Vector3::y(),
        Projection::perspective(60f32.to_radians(), 1.0, 0.1, 10.0),
        ClipConvention::OPENGL,
    )
    .unwrap();
    let vp = Viewport::new(200.0, 200.0);
    let corner = camera.project(&Point3::new(1.0, 1.0, 0.0), &vp).unwrap();
    // A cursor 3 px left of and below the corner's image snaps to it.
    let pick = sl
        .scene
        .pick(
            &camera,
            &vp,
            corner.x - 3.0,
            corner.y + 3.0,
            &PickOptions::new().with_snap_radius(8.0),
        )
        .unwrap()
        .unwrap();
    assert!(pick.hit.is_some());
    let v = pick.vertex.expect("a snap vertex");
    assert_eq!(v.point, Point3::new(1.0, 1.0, 0.0));
    assert_eq!(v.instance, sl.instances[0]);
}
