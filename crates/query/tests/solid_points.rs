//! Winding number, `contains` and `signed_distance` against float64 brute force: the
//! winding number summed over every triangle's solid angle, the distance over every
//! triangle. Point sets: uniform in the bounding box grown by 20%, within 1e-4 of the
//! surface on both sides, on the normals through vertices and edges, and open3d issue
//! 5105's layout (points outside a cube on lines through its edges and corners).
//! `--nocapture` prints the figures; `RAYPICK_LONG=1` runs more points.

mod mesh_util;

use mesh_util::*;
use raypick_primitives::{Aabb, Point3, Vector3};
use raypick_query::{GridConfig, Mesh};

/// The winding-number accuracy the far-field expansion is held to (stated on
/// `Mesh::winding_number`).
const WINDING_TOL: f64 = 1e-3;

/// The accuracy of the side decision's coarse pass (stated on `SignedDistance`), which it
/// keeps only more than 0.1 from 0.5.
const SIDE_WINDING_TOL: f64 = 3e-2;

/// The accuracy of the side decision's first, cheapest pass (stated on `SignedDistance`),
/// which it keeps only more than 0.35 from 0.5.
const FIRST_WINDING_TOL: f64 = 0.105;

/// The winding number by brute force: every triangle's signed solid angle (the
/// Van Oosterom-Strackee formula) over 4π, in f64.
fn oracle_winding(m: &TestMesh, p: &Point3<f32>) -> f64 {
    let q = v64(p);
    (0..m.triangles.len())
        .map(|i| winding_term_64(q, m.tri(i).map(|x| v64(&x))))
        .sum()
}

/// The distance by brute force over every triangle (an independent f64 kernel).
fn oracle_distance(m: &TestMesh, p: &Point3<f32>) -> f64 {
    (0..m.triangles.len())
        .map(|i| point_tri_dist2_f64(p, &m.tri(i)))
        .fold(f64::INFINITY, f64::min)
        .sqrt()
}

fn diag(m: &TestMesh) -> f64 {
    let b = m.bounds();
    f64::from((b.max - b.min).norm())
}

fn grown(b: &Aabb, f: f32) -> Aabb {
    let g = (b.max - b.min) * f;
    Aabb::new(b.min - g, b.max + g)
}

fn face_normal(t: &[Point3<f32>; 3]) -> Vector3<f32> {
    (t[1] - t[0]).cross(&(t[2] - t[0]))
}

/// The four point sets of the issue, for mesh `m`.
fn point_sets(m: &TestMesh, n: usize, seed: u64) -> Vec<(&'static str, Vec<Point3<f32>>)> {
    let mut rng = Rng::new(seed);
    let d = diag(m) as f32;
    let uniform = (0..n)
        .map(|_| rng.point_in(&grown(&m.bounds(), 0.2)))
        .collect();
    // Within 1e-4 of the diagonal of the surface, both sides, off random surface points.
    let mut near = Vec::new();
    for _ in 0..n {
        let t = m.tri(rng.below(m.triangles.len()));
        let (mut u, mut v) = (rng.f32(), rng.f32());
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        let p = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
        let nrm = face_normal(&t);
        if nrm.norm() == 0.0 {
            continue;
        }
        let off = d * 1e-4 * rng.range(-1.0, 1.0);
        near.push(p + nrm.normalize() * off);
    }
    // On the normals through vertices (area-weighted) and edge midpoints.
    let mut vn = vec![Vector3::zeros(); m.positions.len()];
    let mut edges = std::collections::HashMap::new();
    for (i, tri) in m.triangles.iter().enumerate() {
        let nrm = face_normal(&m.tri(i));
        for k in 0..3 {
            vn[tri[k] as usize] += nrm;
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            *edges
                .entry((a.min(b), a.max(b)))
                .or_insert(Vector3::zeros()) += nrm;
        }
    }
    let mut normals = Vec::new();
    let scales = [1e-3, 1e-2, 0.1, 0.5];
    for _ in 0..n / 2 {
        let i = rng.below(m.positions.len());
        if let Some(nv) = vn[i].try_normalize(0.0) {
            let s = d * scales[rng.below(4)] * if rng.f32() < 0.5 { -1.0 } else { 1.0 };
            normals.push(m.positions[i] + nv * s);
        }
    }
    let edge_list: Vec<_> = edges.into_iter().collect();
    for _ in 0..n / 2 {
        let ((a, b), ne) = edge_list[rng.below(edge_list.len())];
        if let Some(ne) = ne.try_normalize(0.0) {
            let mid = nalgebra::center(&m.positions[a as usize], &m.positions[b as usize]);
            let s = d * scales[rng.below(4)] * if rng.f32() < 0.5 { -1.0 } else { 1.0 };
            normals.push(mid + ne * s);
        }
    }
    vec![("uniform", uniform), ("near", near), ("normals", normals)]
}

/// open3d issue 5105's layout for the cube [-1, 1]³: every point of a lattice outside the
/// cube, which puts many on the lines through its edges and corners (and on the planes of
/// its faces), where one axis-aligned sign ray grazes the cube.
fn cube_5105_points() -> Vec<Point3<f32>> {
    let c = [-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0];
    let mut out = Vec::new();
    for &x in &c {
        for &y in &c {
            for &z in &c {
                let p: Point3<f32> = Point3::new(x, y, z);
                if p.iter().any(|v| v.abs() > 1.0) {
                    out.push(p);
                }
            }
        }
    }
    // And along the diagonals through the corners and edge midpoints, just outside.
    for k in [1.0001f32, 1.001, 1.01, 1.1, 2.0] {
        for s in [
            [1.0, 1.0, 1.0],
            [-1.0, 1.0, -1.0],
            [0.0, 1.0, 1.0],
            [1.0, 0.0, -1.0],
        ] {
            out.push(Point3::new(s[0] * k, s[1] * k, s[2] * k));
        }
    }
    out
}

#[derive(Default, Debug)]
struct Stats {
    points: usize,
    sign_errors: usize,
    sign_checked: usize,
    max_winding_err: f64,
    /// The largest error of `SignedDistance::winding_number` (the side decision's).
    max_side_winding_err: f64,
    max_dist_rel: f64,
}

/// Checks every point of `points` on `mesh` against the oracles. `closed`: the sign must
/// match the oracle's for points farther than 1e-6 of the diagonal from the surface.
fn check(m: &TestMesh, mesh: &Mesh, points: &[Point3<f32>], closed: bool) -> Stats {
    let d = diag(m);
    let mut st = Stats::default();
    let batch_w = mesh.winding_numbers(points);
    let batch_c = mesh.contains_points(points);
    let batch_s = mesh.signed_distances(points);
    for (i, p) in points.iter().enumerate() {
        let w = mesh.winding_number(*p);
        let c = mesh.contains(*p);
        let s = mesh
            .signed_distance(*p)
            .expect("finite point, non-empty mesh");
        assert_eq!(w.to_bits(), batch_w[i].to_bits(), "batch winding at {p:?}");
        assert_eq!(c, batch_c[i], "batch contains at {p:?}");
        assert_eq!(Some(s), batch_s[i], "batch signed distance at {p:?}");
        // The side decision's winding number: the same as `winding_number` where that is
        // within 1/30 of 0.5 less the rim's coarse error, else possibly from a first pass.
        let sw = f64::from(s.winding_number);
        if (f64::from(w) - 0.5).abs() <= 1.0 / 30.0 - 1e-2 {
            assert_eq!(s.winding_number.to_bits(), w.to_bits(), "{p:?}");
        }
        let ow = oracle_winding(m, p);
        let od = oracle_distance(m, p);
        st.points += 1;
        let werr = (f64::from(w) - ow).abs();
        if od == 0.0 {
            // On the surface the winding number jumps: no value to compare.
            assert!(c && s.distance == 0.0, "{p:?} on the surface");
            continue;
        }
        st.max_winding_err = st.max_winding_err.max(werr);
        assert!(
            werr <= WINDING_TOL,
            "{}: winding {w} against {ow} at {p:?}",
            m.name
        );
        let serr = (sw - ow).abs();
        st.max_side_winding_err = st.max_side_winding_err.max(serr);
        let side_tol = if (sw - 0.5).abs() > 0.35 {
            FIRST_WINDING_TOL
        } else {
            SIDE_WINDING_TOL
        };
        assert!(
            serr <= side_tol,
            "{}: side winding {sw} against {ow} at {p:?}",
            m.name
        );
        let dist = f64::from(s.distance.abs());
        let r = (dist - od).abs() / od.max(1e-9 * d);
        st.max_dist_rel = st.max_dist_rel.max(r);
        assert!(
            r <= 1e-5,
            "{}: distance {dist} against {od} at {p:?}",
            m.name
        );
        // The nearest point is on its triangle, at the reported distance.
        let t = m.tri(s.triangle as usize);
        let on = t[0] + (t[1] - t[0]) * s.u + (t[2] - t[0]) * s.v;
        assert!(
            (on - s.point).norm() <= 1e-5 * d as f32,
            "{on:?} {:?}",
            s.point
        );
        assert_eq!(
            c,
            s.distance < 0.0 || (s.distance == 0.0 && c),
            "sign and contains"
        );
        if od > 1e-6 * d && (closed || (ow - 0.5).abs() > WINDING_TOL) {
            st.sign_checked += 1;
            if c != (ow >= 0.5) {
                st.sign_errors += 1;
            }
        }
    }
    st
}

fn closed_meshes() -> Vec<TestMesh> {
    let mut t = torus(24, 12, 1.0, 0.3);
    // The generator's winding: make it outward by the oracle at a point inside the tube.
    if oracle_winding(&t, &Point3::new(1.0, 0.0, 0.0)) < 0.0 {
        for tri in &mut t.triangles {
            tri.swap(1, 2);
        }
    }
    vec![
        icosphere(1),
        icosphere(3),
        t,
        subdivided_box(4),
        bipyramid(7),
    ]
}

fn open_meshes() -> Vec<TestMesh> {
    let sphere = icosphere(3);
    let mut half = sphere.clone();
    half.name = "half_sphere".into();
    half.triangles.retain(|tri| {
        tri.iter()
            .map(|&k| sphere.positions[k as usize].z)
            .sum::<f32>()
            > 0.0
    });
    let mut plane = grid(8, 0.0);
    plane.name = "plane".into();
    let mut wavy = grid(12, 0.2);
    wavy.name = "wavy_plane".into();
    vec![half, plane, wavy, bunny()]
}

#[test]
fn closed_meshes_against_oracle() {
    let n = scale(300, 5000);
    for m in closed_meshes() {
        let mesh = m.mesh();
        for (name, pts) in point_sets(&m, n, 7) {
            let st = check(&m, &mesh, &pts, true);
            println!("{} {name}: {st:?}", m.name);
            assert_eq!(st.sign_errors, 0, "{} {name}: {st:?}", m.name);
            assert!(st.sign_checked > pts.len() / 2, "{st:?}");
        }
    }
}

#[test]
fn open_meshes_against_oracle() {
    let n = scale(200, 3000);
    for m in open_meshes() {
        let mesh = m.mesh();
        for (name, pts) in point_sets(&m, n, 11) {
            let st = check(&m, &mesh, &pts, false);
            println!("{} {name}: {st:?}", m.name);
            assert_eq!(st.sign_errors, 0, "{} {name}: {st:?}", m.name);
        }
    }
}

/// open3d issue 5105: no point outside the cube is called inside, whatever line it is on.
#[test]
fn cube_edge_and_corner_lines() {
    for n in [1, 4] {
        let m = subdivided_box(n);
        let mesh = m.mesh();
        let pts = cube_5105_points();
        let st = check(&m, &mesh, &pts, true);
        println!("{} 5105: {st:?}", m.name);
        assert_eq!(st.sign_errors, 0);
        for p in &pts {
            assert!(!mesh.contains(*p), "{p:?}");
            assert!(mesh.signed_distance(*p).unwrap().distance > 0.0, "{p:?}");
        }
    }
}

/// Points exactly on the surface (vertices, edges, faces of an axis-aligned cube) are
/// contained, at distance 0.
#[test]
fn surface_points_are_inside_at_zero() {
    let m = subdivided_box(4);
    let mesh = m.mesh();
    for p in &m.positions {
        assert!(mesh.contains(*p), "{p:?}");
        assert_eq!(mesh.signed_distance(*p).unwrap().distance, 0.0, "{p:?}");
    }
    let mut pts = Vec::new();
    for (x, y) in [(0.1f32, 0.3f32), (0.5, 0.5), (-0.75, 0.25), (0.9, 0.3)] {
        pts.extend([
            Point3::new(x, y, 1.0),
            Point3::new(1.0, x, y),
            Point3::new(y, -1.0, x),
        ]);
    }
    for p in pts {
        assert!(mesh.contains(p), "{p:?}");
        let s = mesh.signed_distance(p).unwrap();
        assert_eq!(s.distance, 0.0, "{p:?}");
        assert!(
            f64::from((s.winding_number - 0.5).abs()) < WINDING_TOL,
            "{p:?} {}",
            s.winding_number
        );
    }
}

#[test]
fn empty_mesh_and_bad_points() {
    let empty = Mesh::new(vec![], vec![]).unwrap();
    let p = Point3::new(0.0, 0.0, 0.0);
    assert_eq!(empty.winding_number(p), 0.0);
    assert!(!empty.contains(p));
    assert!(empty.signed_distance(p).is_none());
    assert!(empty
        .signed_distance_grid(&GridConfig::default())
        .iter()
        .all(|d| d.is_nan()));
    let mesh = icosphere(1).mesh();
    for bad in [
        Point3::new(f32::NAN, 0.0, 0.0),
        Point3::new(0.0, f32::INFINITY, 0.0),
    ] {
        assert!(mesh.winding_number(bad).is_nan());
        assert!(!mesh.contains(bad));
        assert!(mesh.signed_distance(bad).is_none());
    }
    // A degenerate mesh: triangles of no area count for distance, not for winding.
    let flat = Mesh::new(
        vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0)],
        vec![[0, 1, 1], [0, 0, 0]],
    )
    .unwrap();
    let s = flat.signed_distance(Point3::new(0.5, 2.0, 0.0)).unwrap();
    assert_eq!((s.distance, s.winding_number), (2.0, 0.0));
}

/// Grids give exactly the single-point answers at the grid's points, in x-fastest order.
#[test]
fn grids_match_single_points() {
    let m = torus(16, 8, 1.0, 0.4);
    let mesh = m.mesh();
    let grid = GridConfig::around(&mesh, 9, 0.1);
    let grid = GridConfig {
        resolution: [9, 7, 5],
        ..grid
    };
    let occ = mesh.occupancy_grid(&grid);
    let sd = mesh.signed_distance_grid(&grid);
    let wn = mesh.winding_number_grid(&grid);
    let pts = grid.points();
    assert_eq!((occ.len(), sd.len(), pts.len()), (315, 315, 315));
    assert_eq!(pts[0], grid.bounds.min);
    assert_eq!(pts[314], grid.bounds.max);
    assert_eq!(pts[1], grid.point(1, 0, 0));
    assert_eq!(pts[9], grid.point(0, 1, 0));
    for (i, p) in pts.iter().enumerate() {
        assert_eq!(occ[i], mesh.contains(*p));
        assert_eq!(sd[i], mesh.signed_distance(*p).unwrap().distance);
        assert_eq!(wn[i], mesh.winding_number(*p));
    }
    assert!(occ.iter().any(|&b| b) && occ.iter().any(|&b| !b));
    let none = GridConfig::new(grid.bounds, [4, 0, 4]);
    assert!(mesh.occupancy_grid(&none).is_empty());
}

/// Signed-distance grids walk each row from sample to sample, bounding each search by the
/// last distance and carrying the side over on closed meshes: dense rows on closed and
/// open meshes give exactly the single-point distances and signs.
#[test]
fn dense_signed_distance_grids_match_single_points() {
    let mut meshes = closed_meshes();
    meshes.extend(open_meshes());
    let mut carried = 0usize;
    for m in &meshes {
        let mesh = m.mesh();
        let grid = GridConfig {
            resolution: [48, 5, 4],
            ..GridConfig::around(&mesh, 1, 0.15)
        };
        let sd = mesh.signed_distance_grid(&grid);
        let pts = grid.points();
        assert_eq!(sd.len(), pts.len());
        let step = (grid.bounds.max.x - grid.bounds.min.x) / 47.0;
        for (i, p) in pts.iter().enumerate() {
            let single = mesh.signed_distance(*p).unwrap().distance;
            assert_eq!(sd[i], single, "{} sample {i} at {p:?}", m.name);
            carried += usize::from(i % 48 > 0 && sd[i - 1].abs() > step);
        }
        assert!(
            sd.iter().any(|&d| d < 0.0) || m.name.contains("plane"),
            "{}",
            m.name
        );
    }
    // Most samples lie farther than a step from the surface: the carried side is exercised.
    assert!(carried > 1000, "{carried}");
}

/// The mesh with every triangle on its own three vertices, as an STL file stores it.
fn unwelded(m: &TestMesh) -> TestMesh {
    TestMesh {
        name: format!("{}_unwelded", m.name),
        positions: (0..m.triangles.len()).flat_map(|i| m.tri(i)).collect(),
        triangles: (0..m.triangles.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect(),
    }
}

/// On closed meshes the winding number off the surface is an integer, counted exactly along
/// one axis ray. Lattice points aligned with the vertices send those rays exactly through
/// edges and vertices (a box's grid lines, a bipyramid's apex and rim), where each crossing
/// must count once: every answer equals the f64 oracle rounded, as an exact integer. Meshes
/// whose corners share no index are closed once welded by position, and count the same.
#[test]
fn lattice_points_count_exactly_on_closed_meshes() {
    // An octahedron: the bipyramid's rim snapped to the axes (cos and sin of multiples of
    // 90 degrees are off zero by 1e-16 in floating point).
    let mut octahedron = bipyramid(4);
    for p in &mut octahedron.positions {
        *p = p.map(|c| if c.abs() < 1e-6 { 0.0 } else { c });
    }
    let mut meshes = vec![subdivided_box(1), subdivided_box(4), octahedron];
    meshes.push(unwelded(&meshes[1]));
    let mut exact = 0usize;
    for m in &meshes {
        let mesh = m.mesh();
        for i in -10..=10 {
            for j in -10..=10 {
                for k in -10..=10 {
                    let p = Point3::new(i as f32, j as f32, k as f32) / 8.0;
                    let c = mesh.contains(p);
                    if oracle_distance(m, &p) == 0.0 {
                        assert!(c, "{} {p:?} on the surface", m.name);
                        continue;
                    }
                    let ow = oracle_winding(m, &p);
                    assert!((ow - ow.round()).abs() < 1e-9, "{} {p:?}: {ow}", m.name);
                    let w = mesh.winding_number(p);
                    assert_eq!(f64::from(w), ow.round(), "{} at {p:?}", m.name);
                    assert_eq!(c, ow.round() >= 1.0, "{} at {p:?}", m.name);
                    let s = mesh.signed_distance(p).unwrap();
                    assert_eq!(s.winding_number, w);
                    assert_eq!(s.distance < 0.0, c, "{} at {p:?}", m.name);
                    exact += 1;
                }
            }
        }
    }
    assert!(exact > 30_000, "{exact}");
}

/// Points at distance 0 from the surface are inside, and at signed distance 0, also where
/// no f64 triple product with their triangle is exactly zero: here points on a triangle's
/// edge along the diagonal x = y = z (found by the `solid` fuzz target, as part of a soup).
#[test]
fn points_at_distance_zero_are_inside() {
    let tri = TestMesh {
        name: "triangle".into(),
        positions: vec![
            Point3::new(-2.0, -2.0, -2.0),
            Point3::new(2.0, 2.0, 2.0),
            Point3::new(-1.5, 1.0, -2.0),
        ],
        triangles: vec![[0, 1, 2]],
    };
    let mesh = tri.mesh();
    let mut on_edge = 0;
    for k in -999..1000 {
        let x = k as f32 * 2e-3;
        let p = Point3::new(x, x, x);
        if oracle_distance(&tri, &p) != 0.0 {
            continue;
        }
        on_edge += 1;
        assert!(mesh.contains(p), "{p:?}");
        let s = mesh.signed_distance(p).unwrap();
        assert!(s.distance == 0.0 && s.inside(), "{p:?}");
    }
    assert!(on_edge > 1900, "{on_edge}");
}
