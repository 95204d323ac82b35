//! `Scene::closest_hit_coherent` and `Scene::any_hit_coherent` (tiles of 16 consecutive
//! rays: the objects any ray of a tile may reach gathered through the top-level tree, each
//! mesh instance asked for the whole tile as one packet in its own frame, each ray bounded
//! by its best hit so far, shapes ray by ray) against `Scene::closest_hit` and
//! `Scene::any_hit`, ray for ray, compared with `==`:
//! scenes of mesh instances under identity, translations, rotations, non-uniform scales and
//! mirrors, meshes shared by several instances, overlapping and far apart, with parry3d
//! balls, cuboids and a half-space; 4 x 4 tiles of camera rays from oblique, diagonal and
//! axis-aligned views (tiles straddling coordinate planes, exact zero direction components),
//! orthographic, close-up, inside, grazing and looking away, and scattered rays; exact ties
//! between duplicate instances (the lowest instance wins), masks, filters, bounded,
//! negative, empty, NaN and culled queries, invalid rays inside tiles, scenes of one object,
//! empty scenes, removed and re-used slots, moved objects, scenes queried before
//! `Scene::update`, long batches (parallel chunks, packets and single rays) and length
//! mismatches.
//!
//! A mismatch reports the scene, the query, the ray, both answers, and the smallest set of
//! rays of its tile and the smallest set of the scene's objects that still disagree, with
//! the objects' meshes and transforms. `RAYPICK_LONG=1` renders larger frames.

mod mesh_util;
mod tile_util;

use std::collections::BTreeSet;
use std::f32::consts::FRAC_PI_2;

use mesh_util::*;
use nalgebra::{Rotation3, Translation3, UnitQuaternion};
use raypick_primitives::{Aabb, Cull, Isometry3, Matrix4, Point3, Ray, Vector3};
use raypick_query::scene::{InstanceId, MeshId, Scene, SceneHit, SceneQuery, SharedShape};
use tile_util::*;

// ---- scenes, described for the failure messages ----

/// A scene and what each of its objects is.
struct World {
    name: String,
    scene: Scene,
    meshes: Vec<(MeshId, String)>,
    notes: Vec<(InstanceId, String)>,
}

impl World {
    fn new(name: &str) -> Self {
        Self {
            name: name.into(),
            scene: Scene::new(),
            meshes: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a mesh (built with the preset `RAYPICK_TEST_PRESET` names); returns its index
    /// in `self.meshes`.
    fn mesh(&mut self, tm: &TestMesh) -> usize {
        let id = self.scene.add_mesh(tm.mesh());
        self.meshes.push((
            id,
            format!("{} ({} triangles)", tm.name, tm.triangles.len()),
        ));
        self.meshes.len() - 1
    }

    /// An instance of mesh `k` (an index of `self.meshes`).
    fn instance(&mut self, k: usize, m: &Matrix4<f32>) -> InstanceId {
        let (mesh, name) = &self.meshes[k];
        let id = self.scene.add_instance(*mesh, m).unwrap();
        let note = format!("instance of mesh {} {name}", mesh.index());
        self.notes.push((id, note));
        id
    }

    fn shape(&mut self, what: &str, shape: SharedShape, pose: &Isometry3<f32>) -> InstanceId {
        let id = self.scene.add_shape(shape, pose).unwrap();
        self.notes.push((id, format!("shape {what}")));
        id
    }

    /// Every live object of `scene` (this world's scene or a part of it): what it is, its
    /// mask, user data and transform.
    fn describe(&self, scene: &Scene) -> String {
        let mut s = format!(
            "  scene '{}': {} objects, {}\n",
            self.name,
            scene.len(),
            if scene.is_stale() {
                "stale (not updated since its last edit)"
            } else {
                "updated"
            }
        );
        for id in scene.instances() {
            let note = self
                .notes
                .iter()
                .find(|(i, _)| *i == id)
                .map_or("?", |(_, n)| n.as_str());
            s += &format!(
                "    {id:?}: {note}, mask {:#x}, user data {}, transform {}\n",
                scene.mask(id).unwrap(),
                scene.user_data(id).unwrap(),
                rows(&scene.transform(id).unwrap())
            );
        }
        s
    }

    /// The box of the scene's objects but half-spaces (whose world box parry makes finite
    /// but huge, +-f32::MAX / 2, which `Scene::bounds` then takes in).
    fn bounds(&self) -> Aabb {
        self.scene
            .instances()
            .filter_map(|id| self.scene.world_box(id))
            .filter(|b| !b.is_empty() && b.extents().max() < 1e30)
            .fold(Aabb::EMPTY, |acc, b| acc.union(&b))
    }
}

/// A matrix row by row, its entries exact.
fn rows(m: &Matrix4<f32>) -> String {
    let r: Vec<String> = (0..3)
        .map(|i| {
            format!(
                "{:?} {:?} {:?} {:?}",
                m[(i, 0)],
                m[(i, 1)],
                m[(i, 2)],
                m[(i, 3)]
            )
        })
        .collect();
    format!("[{}]", r.join("; "))
}

/// Translation `t` after the rotation of Euler angles `e` after the scale `s` (negative
/// entries mirror).
fn place(t: [f32; 3], e: [f32; 3], s: [f32; 3]) -> Matrix4<f32> {
    Matrix4::new_translation(&Vector3::from(t))
        * Rotation3::from_euler_angles(e[0], e[1], e[2]).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::from(s))
}

fn pose(t: [f32; 3], e: [f32; 3]) -> Isometry3<f32> {
    Isometry3::from_parts(
        Translation3::new(t[0], t[1], t[2]),
        UnitQuaternion::from_euler_angles(e[0], e[1], e[2]),
    )
}

/// `tm` scaled to a largest extent of `size` about its box's centre, the centre moved to the
/// origin.
fn centred(tm: TestMesh, size: f32) -> TestMesh {
    let b = tm.bounds();
    let c = b.center();
    let s = size / b.extents().max();
    TestMesh {
        name: format!("{} centred, {size} wide", tm.name),
        positions: tm
            .positions
            .iter()
            .map(|p| Point3::from((p - c) * s))
            .collect(),
        triangles: tm.triangles,
    }
}

/// Meshes under every kind of transform, overlapping around the origin: a shared icosphere
/// (identity, translated, rotated with non-uniform scale, mirrored), a torus through it and
/// a mirrored flattened one, a heightfield floor under everything (non-uniform scale) and a
/// mirrored wall, architectural beams, the bunny twice (once mirrored), two balls (one inside
/// the torus) and two cuboids (one rotated).
fn mixed_scene() -> World {
    let mut w = World::new("mixed");
    let ico = w.mesh(&icosphere(3));
    let tor = w.mesh(&torus(48, 32, 1.0, 0.4));
    let grd = w.mesh(&grid(40, 0.2));
    let wal = w.mesh(&walls(24, 9));
    let bun = w.mesh(&centred(bunny(), 1.8));
    w.instance(ico, &Matrix4::identity());
    w.instance(ico, &place([2.5, 0.0, 0.0], [0.0; 3], [1.0; 3]));
    w.instance(
        ico,
        &place([0.0, 2.6, 0.3], [0.4, -0.3, 1.1], [0.5, 1.5, 0.8]),
    );
    w.instance(
        ico,
        &place([-2.2, 0.5, 0.0], [0.2, 0.1, -0.5], [-1.0, 0.7, 1.0]),
    );
    w.instance(
        tor,
        &place([0.6, 0.0, 0.0], [FRAC_PI_2, 0.0, 0.0], [1.0; 3]),
    );
    w.instance(
        tor,
        &place([1.0, -2.2, 0.5], [0.3, 0.9, -0.4], [1.2, -0.7, 1.0]),
    );
    w.instance(grd, &place([0.0, 0.0, -1.8], [0.0; 3], [4.5, 4.5, 1.0]));
    w.instance(
        grd,
        &place([-4.0, 0.0, 0.0], [0.0, FRAC_PI_2, 0.0], [2.0, 3.0, -1.0]),
    );
    w.instance(
        wal,
        &place([-1.5, -2.5, -1.2], [0.0, 0.0, 0.3], [0.5, 0.5, 0.5]),
    );
    w.instance(
        bun,
        &place([2.2, 2.2, -0.6], [FRAC_PI_2, 0.0, 0.7], [1.0; 3]),
    );
    w.instance(
        bun,
        &place([-2.0, -1.0, 0.9], [FRAC_PI_2, 0.0, -0.4], [1.0, -1.0, 1.3]),
    );
    w.shape(
        "ball 0.6",
        SharedShape::ball(0.6),
        &pose([1.3, 1.1, 0.7], [0.0; 3]),
    );
    w.shape(
        "ball 0.5 through the torus's tube",
        SharedShape::ball(0.5),
        &pose([1.6, 0.0, 0.0], [0.0; 3]),
    );
    w.shape(
        "cuboid 0.4 x 0.8 x 0.3",
        SharedShape::cuboid(0.4, 0.8, 0.3),
        &pose([-1.0, 1.7, -0.6], [0.5, 0.2, -0.7]),
    );
    w.shape(
        "cuboid 0.5",
        SharedShape::cuboid(0.5, 0.5, 0.5),
        &pose([2.5, -0.2, -1.0], [0.0; 3]),
    );
    w.scene.update();
    w
}

/// The cluster centres of [`far_scene`].
const FAR: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [400.0, 0.0, 0.0],
    [0.0, -250.0, 600.0],
    [-2.0e4, 1.0e4, -5.0e3],
];

/// Four clusters hundreds to 20,000 units apart, each of the same shared meshes under
/// translations, rotations, non-uniform scales and mirrors, with a ball and a cuboid.
fn far_scene() -> World {
    let mut w = World::new("far apart");
    let ico = w.mesh(&icosphere(2));
    let tor = w.mesh(&torus(32, 24, 1.0, 0.35));
    let cube = w.mesh(&subdivided_box(6));
    for (k, c) in FAR.iter().enumerate() {
        let at = |d: [f32; 3]| [c[0] + d[0], c[1] + d[1], c[2] + d[2]];
        let a = k as f32 * 0.7;
        w.instance(ico, &place(at([0.0, 0.0, 0.0]), [0.0; 3], [1.0; 3]));
        w.instance(
            tor,
            &place(at([1.2, 0.3, 0.0]), [a, 0.5, -a], [1.0, 1.4, 0.6]),
        );
        w.instance(
            cube,
            &place(at([-1.5, -0.5, 0.4]), [0.3, a, 0.1], [0.6, -0.8, 0.5]),
        );
        w.instance(
            ico,
            &place(at([0.4, -1.6, -0.3]), [a, a, a], [-0.7, 0.4, 0.9]),
        );
        w.shape(
            "ball 0.5",
            SharedShape::ball(0.5),
            &pose(at([0.0, 1.5, 0.5]), [0.0; 3]),
        );
        w.shape(
            "cuboid 0.3 x 0.6 x 0.4",
            SharedShape::cuboid(0.3, 0.6, 0.4),
            &pose(at([-0.4, 0.2, -1.3]), [a, 0.2, 0.4]),
        );
    }
    w.scene.update();
    w
}

/// Many instances of one shared torus and of one box, crossing each other (a tile meets
/// several of them, each bounding the next), nested boxes under non-uniform and mirroring
/// scales, a ball through the boxes and a half-space floor.
fn stack_scene() -> World {
    let mut w = World::new("stack");
    let tor = w.mesh(&torus(40, 24, 1.0, 0.3));
    let cube = w.mesh(&subdivided_box(8));
    for k in 0..12 {
        let f = k as f32;
        w.instance(
            tor,
            &place(
                [0.35 * f - 1.9, -0.2 * f + 1.1, 0.1 * f - 0.55],
                [0.3 * f, 0.17 * f - 0.9, 0.26 * f],
                [1.0 + 0.03 * f, 1.0, if k % 3 == 2 { -1.0 } else { 1.0 }],
            ),
        );
    }
    for s in [
        [1.6, 1.6, 1.6],
        [1.9, 1.3, 1.7],
        [-1.45, 1.75, 1.5],
        [2.1, 2.0, -1.2],
    ] {
        w.instance(cube, &place([0.0; 3], [0.0; 3], s));
    }
    w.shape(
        "ball 0.25",
        SharedShape::ball(0.25),
        &pose([0.0; 3], [0.0; 3]),
    );
    w.shape(
        "half-space below z = -2.5",
        SharedShape::halfspace(Vector3::z_axis()),
        &pose([0.0, 0.0, -2.5], [0.0; 3]),
    );
    w.scene.update();
    w
}

// ---- answers and their comparison ----

/// The smallest part of `scene` (greedily, one object removed at a time, updated as the
/// scene was) on which `rays` still disagree.
fn shrink_scene(scene: &Scene, rays: &[Ray], q: &SceneQuery<'_>) -> Scene {
    let fresh = !scene.is_stale();
    let mut s = scene.clone();
    for id in scene.instances().collect::<Vec<_>>() {
        let mut fewer = s.clone();
        fewer.remove(id).unwrap();
        if fresh {
            fewer.update();
        }
        if differs(&fewer, rays, q) {
            s = fewer;
        }
    }
    s
}

/// The failure message for ray `i`: the scene, the query, the ray, both answers, and the
/// smallest failing case (rays of its tile, objects of the scene).
#[allow(clippy::too_many_arguments)]
fn report(
    w: &World,
    scene: &Scene,
    what: &str,
    rays: &[Ray],
    q: &SceneQuery<'_>,
    i: usize,
    got: &Option<SceneHit>,
    want: &Option<SceneHit>,
) -> String {
    let tile = tile_of(rays, i);
    let smallest = if differs(scene, tile, q) {
        let few = shrink_rays(scene, tile.to_vec(), q);
        let part = shrink_scene(scene, &few, q);
        let answers: Vec<String> = coherent(&part, &few, q)
            .iter()
            .zip(&few)
            .map(|(c, r)| {
                format!(
                    "    {r:?}\n      coherent {c:?}\n      single   {:?}",
                    part.closest_hit(r, q)
                )
            })
            .collect();
        format!(
            "its tile alone disagrees; smallest failing case: rays\n{}\n  on{}",
            answers.join("\n"),
            w.describe(&part)
        )
    } else {
        chunk_alone(scene, rays, q, i)
    };
    format!(
        "{} {what} {q:?}: ray {i} of {} (tile {}, lane {}) {:?}\n  coherent {got:?}\n  \
         single   {want:?}\n  tile {tile:?}\n  {smallest}\n{}",
        w.name,
        rays.len(),
        i / TILE,
        i % TILE,
        rays[i],
        w.describe(scene),
    )
}

/// What a checked batch found.
struct Checked {
    out: Vec<Option<SceneHit>>,
    hits: usize,
    /// Tiles whose hits land on two objects or more.
    mixed_tiles: usize,
    /// The objects hit.
    objects: BTreeSet<InstanceId>,
}

/// Checks that every coherent answer of `rays` on `scene` (`w`'s scene, or an edited copy
/// of it) equals the single-ray one.
fn check_on(w: &World, scene: &Scene, what: &str, rays: &[Ray], q: &SceneQuery<'_>) -> Checked {
    let out = check_with(scene, rays, q, |i, got, want| {
        report(w, scene, what, rays, q, i, got, want)
    });
    check_any_on(w, scene, what, rays, q);
    let hits = out.iter().filter(|h| h.is_some()).count();
    let objects: BTreeSet<InstanceId> = out.iter().flatten().map(|h| h.instance).collect();
    let mixed_tiles = out
        .chunks(TILE)
        .filter(|t| {
            let ids: BTreeSet<InstanceId> = t.iter().flatten().map(|h| h.instance).collect();
            ids.len() > 1
        })
        .count();
    Checked {
        out,
        hits,
        mixed_tiles,
        objects,
    }
}

/// Checks that every answer of `Scene::any_hit_coherent` on `rays` equals the single-ray
/// `Scene::any_hit`, and that a closest hit within the interval means an any hit.
fn check_any_on(w: &World, scene: &Scene, what: &str, rays: &[Ray], q: &SceneQuery<'_>) {
    let mut any = vec![false; rays.len()];
    scene.any_hit_coherent(rays, q, &mut any).unwrap();
    for (i, (ray, &got)) in rays.iter().zip(&any).enumerate() {
        let want = scene.any_hit(ray, q);
        assert!(
            got == want,
            "{} {what} {q:?}: any hit of ray {i} of {} {ray:?}: coherent {got}, single {want}\n  \
             tile {:?}",
            w.name,
            rays.len(),
            tile_of(rays, i)
        );
    }
}

fn check(w: &World, what: &str, rays: &[Ray], q: &SceneQuery<'_>) -> Checked {
    check_on(w, &w.scene, what, rays, q)
}

// ---- frames and scattered rays ----

/// The frame side of the camera tests: 48 pixels (192 with `RAYPICK_LONG=1`).
fn side() -> usize {
    scale(48, 192)
}

/// `n x n` frames around the box `b`: oblique and diagonal views (every direction in one
/// octant: every tile runs as packets), the six axis-aligned views (tiles holding a column
/// and a row of exact zero components, or straddling the coordinate planes without zeros),
/// orthographic views (one of them along an axis: two zero components in every ray), a
/// view three times wider than the box (tiles across the silhouette and beside it), a
/// close-up, a view from inside, a grazing view, one looking away, and the oblique view
/// with very short and very long directions.
fn views(b: &Aabb, n: usize) -> Vec<View> {
    let mut v = Views::new(b, n);
    v.around();
    v.orthographic("orthographic", Vector3::new(0.4, 0.3, 0.85));
    let (c, r, mid) = (v.c, v.r, v.mid);
    let cam = Camera::along_axis(c + Vector3::new(0.0, 0.0, 3.0 * r), 2, -1.0);
    let rays = cam.orthographic_tiles(n, (mid - 0.5, mid - 0.5), 2.4 * r / n as f32);
    v.add("orthographic along -z", rays, true);
    let cam = Camera::look_at(c + Vector3::new(-0.7, -0.4, 0.5).normalize() * (3.0 * r), c);
    let rays = cam.tiles(n, (mid, mid), 3.0 * v.pitch(3.0 * r));
    v.add("wide", rays, true);
    v.close_inside_grazing_away();
    v.scaled_directions([1e-3, 1e3]);
    v.out
}

/// Scattered rays around the box `b`, `n` of each kind: random origins aimed into the box,
/// random pixels of a view, rays from inside, groups of 16 in one octant spread wide (they
/// run as packets that waste their work), and random origins and directions; the length is
/// not a multiple of 16.
fn scattered(b: &Aabb, n: usize, seed: u64) -> Vec<Ray> {
    let mut rng = Rng::new(seed);
    let c = b.center();
    let r = b.half_extents().norm();
    let mut rays = random_rays(b, n, seed + 1);
    rays.extend(camera_rays(b, n, seed + 2));
    rays.extend(inner_rays(b, n, seed + 3));
    rays.extend(octant_groups(&mut rng, c, r, n / TILE, 1.0));
    rays.extend(wild_rays(&mut rng, c, r, n + 5));
    if rays.len().is_multiple_of(TILE) {
        rays.pop();
    }
    rays
}

// ---- the tests ----

/// Tiles of camera rays over scenes of transformed, shared, overlapping and distant mesh
/// instances and shapes, from every view, default and culled (culling front faces, the
/// rays pass into the crowd of objects and end on the back faces inside).
#[test]
fn scene_coherent_camera_tiles() {
    let n = side();
    for w in [mixed_scene(), far_scene(), stack_scene()] {
        // (what, box, true when the views aimed at it must see something): the whole
        // scene, and for the distant clusters (specks in a frame of the whole) each
        // cluster on its own.
        let far = w.name == "far apart";
        let mut boxes = vec![("whole".to_string(), w.bounds(), !far)];
        if far {
            for c in &FAR {
                let c = Point3::from(*c);
                let b = Aabb::new(c - Vector3::repeat(2.5), c + Vector3::repeat(2.5));
                boxes.push((format!("cluster at {c:?}"), b, true));
            }
        }
        let mut total = 0;
        let mut hits = 0;
        let mut mixed = 0;
        let mut objects = BTreeSet::new();
        for (which, b, must_see) in &boxes {
            for v in views(b, n) {
                for q in [
                    SceneQuery::default(),
                    SceneQuery::default().with_cull(Cull::Back),
                    SceneQuery::default().with_cull(Cull::Front),
                ] {
                    let what = format!("{which} {}", v.name);
                    let c = check(&w, &what, &v.rays, &q);
                    assert!(
                        !(v.sees && *must_see) || c.hits > 0,
                        "{} {what}: no hit",
                        w.name
                    );
                    total += v.rays.len();
                    hits += c.hits;
                    mixed += c.mixed_tiles;
                    objects.extend(c.objects);
                }
            }
        }
        assert!(hits > total / 10, "{}: {hits} hits of {total} rays", w.name);
        // Tiles whose rays end on several objects: packets with unequal bounds per ray.
        assert!(mixed > 500, "{}: {mixed} mixed tiles", w.name);
        // Every object (every transform, every shape) took part.
        let missed: Vec<String> = w
            .notes
            .iter()
            .filter(|(id, _)| !objects.contains(id))
            .map(|(id, n)| format!("{id:?} {n}"))
            .collect();
        assert!(missed.is_empty(), "{}: never hit: {missed:?}", w.name);
    }
}

/// Scattered rays (random origins and directions, random pixels, rays from inside, wide
/// groups in one octant), in batches of every length around the tile and chunk sizes.
#[test]
fn scene_coherent_scattered_rays() {
    let mut rng = Rng::new(99);
    for (k, w) in [mixed_scene(), far_scene(), stack_scene()]
        .into_iter()
        .enumerate()
    {
        let n = scale(400, 8000);
        let mut rays = scattered(&w.bounds(), n, 10 * k as u64);
        if w.name == "far apart" {
            for (j, c) in FAR.iter().enumerate() {
                let c = Point3::from(*c);
                let b = Aabb::new(c - Vector3::repeat(2.5), c + Vector3::repeat(2.5));
                rays.extend(scattered(&b, n / 2, 100 + j as u64));
            }
        }
        let r = w.bounds().half_extents().norm();
        for q in [
            SceneQuery::default(),
            SceneQuery::new(0.1, 1.5 * r).with_cull(Cull::Back),
        ] {
            let c = check(&w, "scattered", &rays, &q);
            assert!(
                c.hits > rays.len() / 20 && c.hits < rays.len(),
                "{} {q:?}: {} hits of {}",
                w.name,
                c.hits,
                rays.len()
            );
        }
        for len in [0, 1, 2, 3, 15, 16, 17, 31, 33, 255, 256, 257, 513] {
            let start = rng.below(rays.len() - len);
            check(
                &w,
                &format!("scattered, length {len}"),
                &rays[start..start + len],
                &SceneQuery::default(),
            );
        }
    }
}

/// The mesh `tm` with one more triangle beyond its box's top corner (so that its box is
/// larger, reached first by rays from that side): its other triangles are `tm`'s, in the
/// same order.
fn with_corner(tm: &TestMesh) -> TestMesh {
    let mut m = tm.clone();
    m.name = format!("{} with a corner triangle", tm.name);
    let b = tm.bounds();
    let p = b.max + b.extents() * 0.3;
    let k = m.positions.len() as u32;
    m.positions.extend([
        p,
        p + Vector3::new(0.1, 0.0, 0.0),
        p + Vector3::new(0.0, 0.1, 0.0),
    ]);
    m.triangles.push([k, k + 1, k + 2]);
    m
}

/// For every hit of `out` on an object of `group`: no lower object of the group hits the
/// ray at the same `t` (it would have won) or before; returns the number of higher objects
/// of the group that hit at exactly the same `t` (the ties the lowest won).
fn lowest_wins(
    w: &World,
    scene: &Scene,
    what: &str,
    rays: &[Ray],
    out: &[Option<SceneHit>],
    group: &[InstanceId],
) -> usize {
    let mut ties = 0;
    for (i, (ray, h)) in rays.iter().zip(out).enumerate() {
        let Some(h) = h else { continue };
        if !group.contains(&h.instance) {
            continue;
        }
        for &g in group.iter().filter(|&&g| g != h.instance) {
            let only = move |id: InstanceId, _: u64| id == g;
            let alone = scene.closest_hit(ray, &SceneQuery::default().with_filter(&only));
            let Some(a) = alone else { continue };
            if g < h.instance {
                assert!(
                    a.t > h.t,
                    "{} {what}: ray {i} {ray:?}: {:?} won at t = {:?} but {g:?} hits at {:?}\n{}",
                    w.name,
                    h.instance,
                    h.t,
                    a.t,
                    w.describe(scene)
                );
            } else {
                ties += usize::from(a.t == h.t);
            }
        }
    }
    ties
}

/// Duplicate surfaces: instances of one mesh (twice added, once with one more triangle
/// that makes its box larger) under the same transform, so that hits tie in `t` across
/// instances; the lowest instance wins, as the single-ray query decides, also when it is
/// masked out, filtered out, removed, or replaced by a new object in its slot.
#[test]
fn scene_coherent_ties_across_instances() {
    let n = scale(24, 64);
    let mut ties = 0;
    for tm in [icosphere(2), grid(16, 0.2), subdivided_box(4)] {
        for (tname, t) in [
            ("identity", Matrix4::identity()),
            (
                "rotated and scaled",
                place([0.5, -1.0, 2.0], [0.4, -0.2, 0.9], [1.5, 0.7, 1.1]),
            ),
            (
                "mirrored",
                place([-3.0, 0.25, 0.5], [0.0, 0.3, 0.0], [1.0, -1.25, 0.75]),
            ),
        ] {
            let mut w = World::new(&format!("ties: {} {tname}", tm.name));
            let plain = w.mesh(&tm);
            let again = w.mesh(&tm);
            let corner = w.mesh(&with_corner(&tm));
            // A decoy first, far away, so that slot order differs from the tree's order.
            w.shape(
                "decoy ball",
                SharedShape::ball(0.5),
                &pose([40.0, 40.0, 40.0], [0.0; 3]),
            );
            let a = w.instance(plain, &t);
            let b = w.instance(corner, &t);
            let c = w.instance(plain, &t);
            let d = w.instance(again, &t);
            w.scene.update();
            // Frames around the middle half of the box: the surface fills much of them.
            let wb = w.scene.world_box(a).unwrap();
            let (mid, half) = (wb.center(), wb.half_extents() * 0.5);
            let vs: Vec<View> = views(&Aabb::new(mid - half, mid + half), n)
                .into_iter()
                .filter(|v| {
                    ["oblique", "diagonal", "axis", "orthographic", "inside"]
                        .iter()
                        .any(|p| v.name.starts_with(p))
                })
                .collect();
            let rays: Vec<Ray> = vs.iter().flat_map(|v| v.rays.iter().copied()).collect();
            let back = SceneQuery::default().with_cull(Cull::Back);
            // Fresh and stale (every object tested in slot order), default and culled.
            let mut stale = w.scene.clone();
            stale.set_transform(a, &t).unwrap();
            assert!(stale.is_stale());
            for (state, scene) in [("updated", &w.scene), ("stale", &stale)] {
                for q in [SceneQuery::default(), back] {
                    let ch = check_on(&w, scene, state, &rays, &q);
                    assert!(ch.hits > rays.len() / 10, "{}: {} hits", w.name, ch.hits);
                    assert!(ch.objects.contains(&a), "{}: the lowest never won", w.name);
                    assert!(
                        ch.objects.iter().all(|&o| o == a || o == b),
                        "{} {state} {q:?}: {:?} won",
                        w.name,
                        ch.objects
                    );
                    if q.cull == Cull::None {
                        ties += lowest_wins(&w, scene, state, &rays, &ch.out, &[a, b, c, d]);
                    }
                }
            }
            // The lowest masked out, or filtered out: the next wins.
            w.scene.set_mask(a, 2).unwrap();
            let q = SceneQuery::default().with_mask(!2);
            let ch = check(&w, "mask without the lowest", &rays, &q);
            assert!(ch.objects.iter().all(|&o| o == b || o == c), "{}", w.name);
            lowest_wins(&w, &w.scene, "masked", &rays, &ch.out, &[b, c, d]);
            let not_b = move |id: InstanceId, _: u64| id != b;
            let q = SceneQuery::default().with_mask(!2).with_filter(&not_b);
            let ch = check(&w, "mask and filter without the two lowest", &rays, &q);
            assert!(ch.objects.iter().all(|&o| o == c), "{}", w.name);
            w.scene.set_mask(a, u32::MAX).unwrap();
            // The lowest removed (stale, then updated), then a new object in its slot (a
            // lower index than every other duplicate, a new generation).
            w.scene.remove(a).unwrap();
            for state in ["removed, stale", "removed, updated"] {
                let ch = check(&w, state, &rays, &SceneQuery::default());
                assert!(ch.objects.iter().all(|&o| o == b || o == c), "{}", w.name);
                lowest_wins(&w, &w.scene, state, &rays, &ch.out, &[b, c, d]);
                w.scene.update();
            }
            let e = w.instance(again, &t);
            assert_eq!(e.index(), a.index(), "the freed slot is reused");
            assert_ne!(e, a);
            for state in ["re-used slot, stale", "re-used slot, updated"] {
                let ch = check(&w, state, &rays, &SceneQuery::default());
                assert!(ch.objects.iter().all(|&o| o == e || o == b), "{}", w.name);
                assert!(ch.objects.contains(&e), "{}", w.name);
                ties += lowest_wins(&w, &w.scene, state, &rays, &ch.out, &[e, b, c, d]);
                w.scene.update();
            }
        }
    }
    assert!(ties > 1000, "{ties} ties");
}

/// Masks that leave some objects out, filters, bounded, negative, empty, NaN and culled
/// queries, and their combinations, on tiles from outside, from inside and looking away.
#[test]
fn scene_coherent_query_variants() {
    let mut w = mixed_scene();
    // Layers 1, 2, 4, 8 in turn; user data 100 + slot.
    let ids: Vec<InstanceId> = w.scene.instances().collect();
    for (k, &id) in ids.iter().enumerate() {
        w.scene.set_mask(id, 1 << (k % 4)).unwrap();
        w.scene.set_user_data(id, 100 + k as u64).unwrap();
    }
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let b = w.bounds();
    let c = b.center();
    let r = b.half_extents().norm();
    let n = side();
    let mid = n as f32 / 2.0;
    let d = 2.0 * r;
    let mut cams = outside_inside_away(c, r, d, Vector3::new(0.3, 0.05, -0.2), n);
    let axis = Camera::along_axis(c + Vector3::new(0.0, 3.0 * r, 0.0), 1, -1.0);
    cams.push((
        "axis",
        axis.tiles(n, (mid - 2.0, mid - 2.0), 0.8 / n as f32),
    ));
    let even = |_: InstanceId, data: u64| data.is_multiple_of(2);
    let high = |id: InstanceId, _: u64| id.index() >= 5;
    let none = |_: InstanceId, _: u64| false;
    // (name, query, true when it must find nothing)
    let queries: Vec<(&str, SceneQuery<'_>, bool)> = vec![
        ("default", SceneQuery::default(), false),
        ("mask 1", SceneQuery::default().with_mask(1), false),
        ("mask 6", SceneQuery::default().with_mask(6), false),
        ("mask 8", SceneQuery::default().with_mask(8), false),
        (
            "mask 16 (no object)",
            SceneQuery::default().with_mask(16),
            true,
        ),
        ("mask 0", SceneQuery::default().with_mask(0), true),
        (
            "filter even data",
            SceneQuery::default().with_filter(&even),
            false,
        ),
        (
            "filter slots >= 5",
            SceneQuery::default().with_filter(&high),
            false,
        ),
        (
            "filter none",
            SceneQuery::default().with_filter(&none),
            true,
        ),
        (
            "mask 5, filter even data",
            SceneQuery::default().with_mask(5).with_filter(&even),
            false,
        ),
        ("[0, d]", SceneQuery::new(0.0, d), false),
        ("[0, d / 2]", SceneQuery::new(0.0, 0.5 * d), false),
        ("[d, inf]", SceneQuery::new(d, inf), false),
        ("[0.9 d, 1.1 d]", SceneQuery::new(0.9 * d, 1.1 * d), false),
        ("[0.3, 0.3]", SceneQuery::new(0.3, 0.3), false),
        ("[-inf, inf]", SceneQuery::new(-inf, inf), false),
        ("[-2 d, 0]", SceneQuery::new(-2.0 * d, 0.0), false),
        ("[-d, 0.25]", SceneQuery::new(-d, 0.25), false),
        ("[-d/2, -0.1]", SceneQuery::new(-0.5 * d, -0.1), false),
        ("[MIN, MAX]", SceneQuery::new(f32::MIN, f32::MAX), false),
        ("[0, -0]", SceneQuery::new(0.0, -0.0), false),
        ("[2, 1]", SceneQuery::new(2.0, 1.0), true),
        ("[d, d - ulp]", SceneQuery::new(d, d.next_down()), true),
        ("[nan, inf]", SceneQuery::new(nan, inf), true),
        ("[0, nan]", SceneQuery::new(0.0, nan), true),
        ("[nan, nan]", SceneQuery::new(nan, nan), true),
        ("[-inf, nan]", SceneQuery::new(-inf, nan), true),
        ("front", SceneQuery::default().with_cull(Cull::Front), false),
        ("back", SceneQuery::default().with_cull(Cull::Back), false),
        (
            "[0, d] back",
            SceneQuery::new(0.0, d).with_cull(Cull::Back),
            false,
        ),
        (
            "[d, inf] front",
            SceneQuery::new(d, inf).with_cull(Cull::Front),
            false,
        ),
        (
            "[-inf, inf] front",
            SceneQuery::new(-inf, inf).with_cull(Cull::Front),
            false,
        ),
        (
            "[-d, 0] back, mask 3",
            SceneQuery::new(-d, 0.0).with_cull(Cull::Back).with_mask(3),
            false,
        ),
        (
            "[0.5, inf] front, filter slots >= 5",
            SceneQuery::new(0.5, inf)
                .with_cull(Cull::Front)
                .with_filter(&high),
            false,
        ),
    ];
    // The stale copy: every object tested, in slot order.
    let mut stale = w.scene.clone();
    stale
        .set_transform(ids[0], &stale.transform(ids[0]).unwrap())
        .unwrap();
    for (state, scene) in [("updated", &w.scene), ("stale", &stale)] {
        for (cam, rays) in &cams {
            let mut found = 0;
            for (name, q, nothing) in &queries {
                let what = format!("{state} {cam} {name}");
                let ch = check_on(&w, scene, &what, rays, q);
                if *nothing {
                    assert_eq!(ch.hits, 0, "{what}: a hit");
                }
                for h in ch.out.iter().flatten() {
                    assert!(
                        scene.mask(h.instance).unwrap() & q.mask != 0
                            && q.filter.is_none_or(|f| f(h.instance, h.user_data)),
                        "{what}: {h:?} passes not the query's mask and filter"
                    );
                    assert!(q.t_min <= h.t && h.t <= q.t_max, "{what}: {h:?}");
                }
                found += ch.hits;
            }
            assert!(found > 0, "{state} {cam}: no hit with any query");
        }
        // Looking away: nothing ahead, the scene behind.
        let (_, rays) = &cams[2];
        let ahead = check_on(&w, scene, "away", rays, &SceneQuery::default()).hits;
        let behind = check_on(&w, scene, "away", rays, &SceneQuery::new(-inf, 0.0)).hits;
        assert_eq!(ahead, 0, "{state}: hits ahead of a view away");
        assert!(behind > rays.len() / 10, "{state}: {behind} hits behind");
    }
}

/// Invalid rays inside tiles answer `None`, and the other rays of their tiles answer as
/// they would without them; valid rays with zero, subnormal or negligible components too.
#[test]
fn scene_coherent_invalid_rays_in_tiles() {
    let w = mixed_scene();
    let b = w.bounds();
    let c = b.center();
    let r = b.half_extents().norm();
    let n = side().max(48);
    let mid = n as f32 / 2.0;
    // From above, every direction in one octant; the floor fills the frame.
    let eye = c + Vector3::new(0.4, 0.3, 1.0).normalize() * (1.6 * r);
    let clean = Camera::look_at(eye, c).tiles(n, (mid, mid), 0.7 / n as f32);
    let full = full_tiles(&clean, |ray| {
        w.scene.closest_hit(ray, &SceneQuery::default()).is_some()
    });
    assert!(full.len() >= 22, "{} full tiles", full.len());
    let spoiled = Spoiled::new(&clean, &full, eye);
    let mut stale = w.scene.clone();
    let first = stale.instances().next().unwrap();
    stale
        .set_transform(first, &stale.transform(first).unwrap())
        .unwrap();
    for (state, scene) in [("updated", &w.scene), ("stale", &stale)] {
        for q in [
            SceneQuery::default(),
            SceneQuery::new(-1.0, 3.0 * r).with_cull(Cull::Back),
        ] {
            let out = check_on(&w, scene, state, &spoiled.rays, &q).out;
            let want = check_on(&w, scene, state, &clean, &q);
            assert!(
                want.hits > clean.len() / 8,
                "{state} {q:?}: {} hits",
                want.hits
            );
            spoiled.check_answers(state, &clean, &out, &want.out);
            if q.cull == Cull::None {
                spoiled.check_valid_hit(state, &full, &out);
            }
            // The helpers' own spoiled rays, every 7th.
            let mut spoilt = clean.clone();
            spoil_rays(&mut spoilt, 7, eye);
            let out = check_on(&w, scene, state, &spoilt, &q).out;
            check_every_7th_spoiled(state, &spoilt, &out, &want.out);
        }
        // Tiles of invalid and edge rays only.
        check_on(&w, scene, state, &odd_tiles(eye), &SceneQuery::default());
    }
}

/// Frames and scattered rays around the box `b` (default, bounded and culled queries), on
/// the scene `w.scene`; returns the number of hits.
fn check_everything(w: &World, what: &str, b: &Aabb) -> usize {
    let n = scale(24, 96);
    let mut hits = 0;
    let r = b.half_extents().norm();
    let mut rays: Vec<Ray> = views(b, n).into_iter().flat_map(|v| v.rays).collect();
    rays.extend(scattered(b, scale(100, 2000), 7));
    for q in [
        SceneQuery::default(),
        SceneQuery::new(0.2, 2.0 * r).with_cull(Cull::Back),
        SceneQuery::new(-r, pow2_above(r)).with_cull(Cull::Front),
    ] {
        hits += check(w, what, &rays, &q).hits;
    }
    hits
}

/// A power of two above `r`: a finite bound past the box.
fn pow2_above(r: f32) -> f32 {
    2f32.powi(r.log2().ceil() as i32 + 1)
}

/// Scenes of one object, updated (the top-level tree's one-object path, which skips the
/// box test) and not: one mesh under the identity, one mesh transformed, one ball, one
/// cuboid; then each mesh beside a half-space (whose world box parry makes finite, if
/// huge: a tree of two objects).
#[test]
fn scene_coherent_one_object_scenes() {
    let cases: Vec<(&str, TestMesh, Matrix4<f32>)> = vec![
        ("identity", grid(40, 0.3), Matrix4::identity()),
        (
            "rotated, scaled, mirrored",
            torus(48, 32, 1.0, 0.4),
            place([3.0, -1.0, 0.5], [0.3, -0.7, 1.1], [2.0, -0.5, 1.5]),
        ),
        (
            "bunny, translated",
            centred(bunny(), 1.5),
            place([0.0, 0.0, 5.0], [0.0; 3], [1.0; 3]),
        ),
    ];
    for (name, tm, t) in cases {
        let mut w = World::new(&format!("one mesh, {name}"));
        let k = w.mesh(&tm);
        w.instance(k, &t);
        let b = w.bounds();
        assert!(w.scene.is_stale());
        let stale = check_everything(&w, "stale", &b);
        w.scene.update();
        let fresh = check_everything(&w, "updated", &b);
        assert_eq!(stale, fresh, "{}", w.name);
        assert!(fresh > 0, "{}: no hit", w.name);
        // Beside a half-space under it.
        w.shape(
            "half-space",
            SharedShape::halfspace(Vector3::z_axis()),
            &pose([0.0, 0.0, b.min.z - 0.5], [0.0; 3]),
        );
        w.scene.update();
        check_everything(&w, "beside a half-space", &b);
    }
    let mut w = World::new("one ball");
    w.shape(
        "ball 0.8",
        SharedShape::ball(0.8),
        &pose([1.0, 2.0, 3.0], [0.0; 3]),
    );
    let b = w.bounds();
    let stale = check_everything(&w, "stale", &b);
    w.scene.update();
    assert_eq!(stale, check_everything(&w, "updated", &b));
    assert!(stale > 0);
    let mut w = World::new("one cuboid");
    w.shape(
        "cuboid",
        SharedShape::cuboid(0.3, 1.0, 0.6),
        &pose([-1.0, 0.0, 2.0], [0.2, 0.4, -0.3]),
    );
    w.scene.update();
    assert!(check_everything(&w, "updated", &w.bounds()) > 0);
}

/// Scenes with nothing to hit: new, updated, of empty meshes only, and with every object
/// removed (stale and updated); and a scene of a half-space alone.
#[test]
fn scene_coherent_empty_scenes() {
    let b = Aabb::new(Point3::new(-1.0, -1.0, -1.0), Point3::new(1.0, 1.0, 1.0));
    let mut rays: Vec<Ray> = views(&b, 16).into_iter().flat_map(|v| v.rays).collect();
    rays.extend(scattered(&b, 100, 3));
    let nothing = |w: &World, what: &str| {
        for q in [
            SceneQuery::default(),
            SceneQuery::new(-f32::INFINITY, f32::INFINITY),
        ] {
            let ch = check(w, what, &rays, &q);
            assert_eq!(ch.hits, 0, "{} {what}: a hit", w.name);
        }
    };
    let mut w = World::new("empty");
    nothing(&w, "new");
    w.scene.update();
    nothing(&w, "updated");
    let empty = TestMesh {
        name: "no triangles".into(),
        positions: vec![Point3::origin()],
        triangles: Vec::new(),
    };
    let mut w = World::new("an empty mesh");
    let k = w.mesh(&empty);
    w.instance(k, &Matrix4::identity());
    w.instance(
        k,
        &place([1.0, 0.0, 0.0], [0.3, 0.0, 0.0], [2.0, 1.0, -1.0]),
    );
    nothing(&w, "stale");
    w.scene.update();
    nothing(&w, "updated");
    // A half-space alone (a tree of one huge box).
    let mut w = World::new("a half-space");
    w.shape(
        "half-space",
        SharedShape::halfspace(Vector3::y_axis()),
        &pose([0.0, -0.5, 0.0], [0.2, 0.0, 0.1]),
    );
    w.scene.update();
    let ch = check(&w, "updated", &rays, &SceneQuery::default());
    assert!(ch.hits > 0 && ch.hits < rays.len());
    // Everything removed.
    let mut w = mixed_scene();
    for id in w.scene.instances().collect::<Vec<_>>() {
        w.scene.remove(id).unwrap();
    }
    assert!(w.scene.is_empty());
    nothing(&w, "all removed, stale");
    w.scene.update();
    nothing(&w, "all removed, updated");
}

/// Edits: removed objects (stale slots, before and after the update), new objects in the
/// freed slots, moved objects (a refit at the update), changed masks and user data, and
/// every step queried before its update (every object tested) and after.
#[test]
fn scene_coherent_after_edits() {
    let mut w = mixed_scene();
    let b = w.bounds();
    let ids: Vec<InstanceId> = w.scene.instances().collect();
    let step = |w: &mut World, what: &str| {
        assert!(w.scene.is_stale(), "{what}: not stale");
        let stale = check_everything(w, &format!("{what}, stale"), &b);
        w.scene.update();
        let fresh = check_everything(w, &format!("{what}, updated"), &b);
        assert_eq!(stale, fresh, "{what}");
        assert!(fresh > 0, "{what}: no hit");
    };
    // Removed: a shared mesh's instance, a mirrored one, a shape, the floor.
    for k in [1, 3, 6, 12] {
        w.scene.remove(ids[k]).unwrap();
    }
    step(&mut w, "removed");
    // New objects in the freed slots.
    let tor = 1;
    let n0 = w.instance(
        tor,
        &place([-0.5, 1.0, -0.5], [1.0, 0.2, 0.0], [0.8, 0.8, -0.8]),
    );
    let n1 = w.shape(
        "new ball",
        SharedShape::ball(0.7),
        &pose([0.0, -1.0, 1.0], [0.0; 3]),
    );
    assert!([n0, n1]
        .iter()
        .all(|n| ids.iter().any(|i| i.index() == n.index())));
    step(&mut w, "re-used slots");
    // Moved: meshes under new transforms (mirrored and not), a shape moved.
    w.scene
        .set_transform(
            ids[0],
            &place([0.3, 0.3, 0.3], [0.5, 0.5, 0.5], [1.0, 1.3, -0.6]),
        )
        .unwrap();
    w.scene
        .set_transform(
            ids[4],
            &place([-0.5, -0.5, 0.8], [0.0, 0.4, 0.0], [0.5, 0.5, 0.5]),
        )
        .unwrap();
    w.scene
        .set_transform(ids[13], &pose([0.0, 0.0, 1.4], [0.0; 3]).to_homogeneous())
        .unwrap();
    step(&mut w, "moved");
    // Masks and user data change nothing in the tree; the queries see them.
    w.scene.set_mask(ids[0], 2).unwrap();
    w.scene.set_user_data(ids[2], 7).unwrap();
    let q = SceneQuery::default().with_mask(1);
    for v in views(&b, side()) {
        let ch = check(&w, &format!("mask 1 {}", v.name), &v.rays, &q);
        assert!(!ch.objects.contains(&ids[0]));
    }
    // Down to one object: the one-object tree.
    for id in w.scene.instances().skip(1).collect::<Vec<_>>() {
        w.scene.remove(id).unwrap();
    }
    assert_eq!(w.scene.len(), 1);
    w.scene.set_mask(ids[0], u32::MAX).unwrap();
    step(&mut w, "one left");
}

/// `v` moved by `k` units in the last place (towards +inf for `k > 0`).
fn ulps(v: f32, k: i32) -> f32 {
    let mut v = v;
    for _ in 0..k.abs() {
        v = if k > 0 { v.next_up() } else { v.next_down() };
    }
    v
}

/// Rays aimed exactly at the edges and corners of objects' world boxes, where their
/// boundary triangles lie in the boxes' faces (a flat heightfield, axis-aligned cubes,
/// under the identity and dyadic translations, scales and a mirror: every coordinate exact),
/// and the same rays nudged by one or two units in the last place of one component: rays
/// the top-level box test and the mesh's own tests may decide differently at the rounding
/// level. In each tile they ride with rays aimed at the same object's middle, so that the
/// tile gathers the object whichever way the top-level test decides them.
#[test]
fn scene_coherent_rays_at_box_boundaries() {
    let mut w = World::new("box boundaries");
    let flat = w.mesh(&grid(8, 0.0));
    let cube = w.mesh(&subdivided_box(4));
    let objects = [
        w.instance(flat, &Matrix4::identity()),
        w.instance(cube, &place([3.0, 0.0, 0.0], [0.0; 3], [1.0; 3])),
        w.instance(cube, &place([0.0, 3.0, 0.0], [0.0; 3], [0.5, 2.0, 1.0])),
        w.instance(flat, &place([0.0, -3.0, 0.5], [0.0; 3], [-1.0, 1.0, 1.0])),
        w.instance(
            cube,
            &place([-3.0, 0.0, 0.25], [0.0; 3], [-0.75, 1.0, -0.5]),
        ),
    ];
    w.shape(
        "ball",
        SharedShape::ball(0.5),
        &pose([0.0, 0.0, -3.0], [0.0; 3]),
    );
    w.scene.update();
    let eyes = [
        Point3::new(5.0, 4.5, 6.0),
        Point3::new(-4.0, 1.5, 2.25),
        Point3::new(0.5, -6.0, -2.5),
        Point3::new(0.0, 0.0, 5.0),
        Point3::new(7.0, 0.0, 0.0),
        Point3::new(-0.75, -1.25, -6.0),
        // In the planes of faces: rays along them, direction components exactly zero.
        Point3::new(4.0, 2.5, 3.0),
        Point3::new(1.0, -3.0, 4.0),
        Point3::new(-2.0, 5.0, 1.0),
    ];
    let mut rays = Vec::new();
    for &id in &objects {
        let b = w.scene.world_box(id).unwrap();
        let corner = |k: usize| {
            Point3::new(
                if k & 1 == 0 { b.min.x } else { b.max.x },
                if k & 2 == 0 { b.min.y } else { b.max.y },
                if k & 4 == 0 { b.min.z } else { b.max.z },
            )
        };
        // Points 1/8 apart along the box's 12 edges (corners included).
        let mut targets = Vec::new();
        for k in 0..8usize {
            for axis in [1usize, 2, 4] {
                if k & axis == 0 {
                    let (p, q) = (corner(k), corner(k | axis));
                    for j in 0..=8 {
                        targets.push(p + (q - p) * (j as f32 / 8.0));
                    }
                }
            }
        }
        for &eye in &eyes {
            let mut edge = Vec::new();
            for p in &targets {
                let d = p - eye;
                edge.push(Ray::new(eye, d));
                for a in 0..3 {
                    for k in [-2, -1, 1, 2] {
                        let mut e = d;
                        e[a] = ulps(e[a], k);
                        edge.push(Ray::new(eye, e));
                    }
                }
            }
            // Each tile: 8 rays at the middle of the object, 8 at its box's boundary.
            let c = b.center();
            let h = b.half_extents();
            for (t, part) in edge.chunks(8).enumerate() {
                for j in 0..8 {
                    let f = |s: usize| if (t + j) >> s & 1 == 0 { -0.25 } else { 0.25 };
                    let m = c + Vector3::new(h.x * f(0), h.y * f(1), h.z * f(2));
                    rays.push(Ray::new(eye, m - eye));
                }
                rays.extend_from_slice(part);
            }
        }
    }
    for q in [
        SceneQuery::default(),
        SceneQuery::default().with_cull(Cull::Back),
        SceneQuery::new(0.5, 100.0).with_cull(Cull::Front),
    ] {
        let ch = check(&w, "boundary tiles", &rays, &q);
        assert!(ch.hits > rays.len() / 4, "{q:?}: {} hits", ch.hits);
        assert!(ch.hits < rays.len(), "{q:?}: {} hits", ch.hits);
    }
}

/// Rays grazing the edges of mesh instances whose faces lie in their world boxes' faces:
/// cubes under axis-aligned non-uniform scales and translations with fractions, at
/// coordinates from 1 to 20,000, where the f32 map of a world ray into the instance's frame
/// rounds by up to about 1e-7 of the coordinates (1e-3 at 20,000) while the top-level box
/// test sees the world ray. Each edge is approached across either face from outside, the
/// rays swept across it a fraction of that rounding apart, so that some pass just outside
/// the world box while their images in the cube's frame just hit the face (or the reverse).
/// A ball inside each cube makes the scene two objects (the top-level box is tested; a
/// scene of one object skips it) with the cube's box as the tree's. Each tile holds 8 rays
/// at the cube's middle (they gather the cube for the tile) and 8 grazing rays.
#[test]
fn scene_coherent_rays_grazing_instance_edges() {
    let mut rng = Rng::new(17);
    let k = scale(40, 160) as i32;
    for (c, s) in [
        (1.0f32, [3.0f32, 3.0, 3.0]),
        (100.0, [3.0, 3.0, 3.0]),
        (100.0, [0.7, 1.3, 0.9]),
        (1000.0, [3.0, 0.7, 1.9]),
        (5.0e3, [1.1, 2.3, 0.35]),
        (2.0e4, [3.0, 3.0, 3.0]),
        (2.0e4, [0.7, 1.3, 0.9]),
    ] {
        let mut w = World::new(&format!("grazing the edges of a cube at {c}"));
        let cube = w.mesh(&subdivided_box(2));
        let id = w.instance(
            cube,
            &place([c + 0.1, 0.3 - 0.3 * c, 0.2 * c - 0.2], [0.0; 3], s),
        );
        let b = w.scene.world_box(id).unwrap();
        let mid = b.center();
        let size = b.extents();
        w.shape(
            "ball inside the cube",
            SharedShape::ball(0.2 * size.min()),
            &pose([mid.x, mid.y, mid.z], [0.0; 3]),
        );
        w.scene.update();
        let step = f64::from(1.0 + c) * 1.5e-8;
        let mut rays = Vec::new();
        let mut grazing = Vec::new();
        // The edge along axis `a` where the faces of axes `p` and `q` meet on sides
        // `sp`, `sq` (0: min, 1: max); approached across the face of axis `p`.
        for a in 0..3 {
            let (p, q) = ((a + 1) % 3, (a + 2) % 3);
            for (sp, sq) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                for (p, q, sp, sq) in [(p, q, sp, sq), (q, p, sq, sp)] {
                    let side =
                        |axis: usize, s: usize| if s == 0 { b.min[axis] } else { b.max[axis] };
                    let out_p = if sp == 0 { -1.0 } else { 1.0 };
                    let out_q = if sq == 0 { -1.0 } else { 1.0 };
                    for frac in [0.3f32, 0.7] {
                        let mut edge = Point3::origin();
                        edge[a] = b.min[a] + size[a] * frac;
                        edge[p] = side(p, sp);
                        edge[q] = side(q, sq);
                        // Outside the face of `p`, inside the plane of the face of `q`.
                        let mut eye = edge;
                        eye[p] += out_p * size[p] * rng.range(0.5, 10.0);
                        eye[q] -= out_q * size[q] * rng.range(0.05, 0.9);
                        eye[a] += size[a] * rng.range(-0.5, 0.5);
                        let e64 = eye.cast::<f64>();
                        for j in -k..=k {
                            let mut target = edge.cast::<f64>();
                            target[q] += f64::from(out_q) * step * f64::from(j);
                            grazing.push(Ray::new(eye, (target - e64).cast::<f32>()));
                        }
                        for part in grazing.chunks(8) {
                            for _ in 0..8 {
                                let m = mid
                                    + Vector3::new(
                                        size.x * rng.range(-0.15, 0.15),
                                        size.y * rng.range(-0.15, 0.15),
                                        size.z * rng.range(-0.15, 0.15),
                                    );
                                rays.push(Ray::new(eye, m - eye));
                            }
                            rays.extend_from_slice(part);
                        }
                        grazing.clear();
                    }
                }
            }
        }
        for q in [
            SceneQuery::default(),
            SceneQuery::default().with_cull(Cull::Back),
        ] {
            let ch = check(&w, "grazing tiles", &rays, &q);
            assert!(
                ch.hits > rays.len() / 2,
                "{} {q:?}: {} hits",
                w.name,
                ch.hits
            );
        }
    }
}

/// Thousands of rays, run in parallel chunks of 256, where scattered groups (wide, in one
/// octant: packets that waste their work; or of every sign) interrupt the tiles at various
/// places of a chunk, so that tiles after a wasteful one run ray by ray for a while, then
/// as packets again; the answers do not depend on how the batch is cut into calls.
#[test]
fn scene_coherent_large_batch_switches_modes() {
    let mut rng = Rng::new(5);
    for w in [mixed_scene(), stack_scene()] {
        let b = w.bounds();
        let c = b.center();
        let r = b.half_extents().norm();
        let n = scale(64, 256);
        let mid = n as f32 / 2.0;
        let cam = Camera::look_at(c + Vector3::new(-1.7, -1.4, 1.5).normalize() * (2.5 * r), c);
        let pitch = 1.6 / 2.5 / n as f32;
        let frame = cam.tiles(n, (mid, mid), pitch);
        let (mut rays, _) = interrupted_tiles(&frame, scale(20, 200), |p| {
            if p % 4 == 3 {
                random_rays(&b, TILE, rng.next_u64())
            } else {
                cam.random_pixels(TILE, n, (mid, mid), pitch, &mut rng)
            }
        });
        rays.extend(cam.random_pixels(TILE, n, (mid, mid), pitch, &mut rng));
        rays.extend(&frame[..9]);
        assert!(rays.len() > 4000 && rays.len() % TILE == 9);
        for q in [
            SceneQuery::default(),
            SceneQuery::new(0.5, 3.0 * r).with_cull(Cull::Back),
        ] {
            let whole = check(&w, "long batch", &rays, &q);
            assert!(
                whole.hits > rays.len() / 4,
                "{}: {} hits",
                w.name,
                whole.hits
            );
            let cut = cut_in_two(&w.scene, &rays, &q);
            assert!(whole.out == cut, "{} {q:?}: cut batch", w.name);
        }
    }
}

/// `out` of another length than `rays`: an error, and `out` untouched; equal lengths, empty
/// included, succeed.
#[test]
fn scene_coherent_length_mismatch() {
    let w = mixed_scene();
    let rays = camera_rays(&w.bounds(), 100, 5);
    for scene in [&w.scene, &Scene::new()] {
        check_length_mismatch::<SceneQuery<'_>, _>(scene, &rays);
    }
}

/// The tests above run on the fastest SIMD path, chosen once per process; this one reruns
/// them in child processes capped at SSE and at the scalar path (`RAYPICK_SIMD`): the
/// packet traversal, the top-level tree and the triangle kernels on every path.
#[test]
fn scene_coherent_on_every_simd_path() {
    rerun_on_every_simd_path("scene_coherent_", "scene_coherent_on_every_simd_path", 13);
}

/// The tests above build their meshes with the default preset; this one reruns them with
/// `fast`, `high_quality` and `morton` (`RAYPICK_TEST_PRESET`): other trees under the
/// packets.
#[test]
fn scene_coherent_on_every_preset() {
    rerun_on_every_preset("scene_coherent_", "scene_coherent_on_every_preset", 13);
}
