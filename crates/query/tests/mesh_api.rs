//! Hand-computed cases and edge cases of the Mesh API: construction errors, empty and
//! degenerate meshes, hostile rays and intervals, culling, deterministic ties, the all-hits
//! crossing rule, batches and memory.

use raypick_primitives::{Aabb, Cull, Obb, Point3, Ray, Sphere, Vector3};
use raypick_query::{Mesh, MeshError, RayQuery};

fn p(x: f32, y: f32, z: f32) -> Point3<f32> {
    Point3::new(x, y, z)
}

fn down(x: f32, y: f32) -> Ray {
    Ray::new(p(x, y, 5.0), Vector3::new(0.0, 0.0, -1.0))
}

/// The unit square in z = 0 as two triangles sharing the diagonal (0,0)-(1,1).
fn quad() -> Mesh {
    Mesh::new(
        vec![
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(1.0, 1.0, 0.0),
            p(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .unwrap()
}

#[test]
fn construction_errors_name_the_culprit() {
    let pos = vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    let e = Mesh::new(pos.clone(), vec![[0, 1, 2], [0, 1, 7]]).unwrap_err();
    assert_eq!(
        e,
        MeshError::IndexOutOfRange {
            triangle: 1,
            corner: 2,
            index: 7,
            vertex_count: 3
        }
    );
    let msg = e.to_string();
    assert!(msg.contains("triangle 1") && msg.contains('7'), "{msg}");

    let mut bad = pos.clone();
    bad[2].z = f32::INFINITY;
    let e = Mesh::new(bad, vec![[0, 1, 2]]).unwrap_err();
    assert!(
        matches!(e, MeshError::NonFiniteVertex { vertex: 2, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("vertex 2"));
    let mut bad = pos;
    bad[1].x = f32::NAN;
    // Unused vertices are checked too.
    let e = Mesh::new(bad, vec![]).unwrap_err();
    assert!(matches!(e, MeshError::NonFiniteVertex { vertex: 1, .. }));
}

/// Large meshes check their input in parallel chunks; the error still names the first bad
/// triangle and vertex, wherever the chunks split.
#[test]
fn large_construction_errors_name_the_first_culprit() {
    let n = 100_000usize;
    let pos: Vec<_> = (0..n).map(|i| p(i as f32, (i % 7) as f32, 0.0)).collect();
    let tris: Vec<[u32; 3]> = (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
    let mut bad = tris.clone();
    bad[70_001][0] = n as u32 + 5;
    bad[90_000][1] = u32::MAX;
    let e = Mesh::new(pos.clone(), bad).unwrap_err();
    assert_eq!(
        e,
        MeshError::IndexOutOfRange {
            triangle: 70_001,
            corner: 0,
            index: n as u32 + 5,
            vertex_count: n
        }
    );
    let mut bad = pos;
    bad[65_537].y = f32::NAN;
    bad[99_000].z = f32::NEG_INFINITY;
    let e = Mesh::new(bad, tris).unwrap_err();
    assert!(
        matches!(e, MeshError::NonFiniteVertex { vertex: 65_537, .. }),
        "{e:?}"
    );
}

#[test]
fn empty_mesh_is_valid_and_finds_nothing() {
    for mesh in [
        Mesh::new(vec![], vec![]).unwrap(),
        Mesh::new(vec![p(1.0, 2.0, 3.0)], vec![]).unwrap(),
    ] {
        assert!(mesh.is_empty());
        assert_eq!(mesh.len(), 0);
        let q = RayQuery::default();
        assert_eq!(mesh.closest_hit(&down(0.0, 0.0), &q), None);
        assert!(!mesh.any_hit(&down(0.0, 0.0), &q));
        assert!(mesh.all_hits(&down(0.0, 0.0), &q).is_empty());
        assert_eq!(mesh.nearest_point(&p(0.0, 0.0, 0.0), f32::INFINITY), None);
        let big = Aabb::new(p(-9.0, -9.0, -9.0), p(9.0, 9.0, 9.0));
        assert!(mesh.overlap_aabb(&big).is_empty());
        assert!(mesh
            .overlap_sphere(&Sphere::new(p(0.0, 0.0, 0.0), 9.0))
            .is_empty());
        assert!(mesh.overlap_obb(&Obb::from_aabb(&big)).is_empty());
        assert_eq!(mesh.bytes_per_triangle(), 0.0);
        assert_eq!(mesh.bounds(), Aabb::EMPTY);
        let mut out = vec![];
        mesh.closest_hit_batch(&[], &q, &mut out).unwrap();
    }
    let mut m = Mesh::new(vec![p(1.0, 2.0, 3.0)], vec![]).unwrap();
    m.update_positions(&[p(0.0, 0.0, 0.0)]).unwrap();
}

#[test]
fn hit_fields_hand_computed() {
    let mesh = quad();
    // (0.75, 0.25) lies in triangle 0 = (0,0,0) (1,0,0) (1,1,0): weights a 0.25, b 0.5, c 0.25.
    let ray = Ray::new(p(0.75, 0.25, 2.0), Vector3::new(0.0, 0.0, -4.0));
    let h = mesh.closest_hit(&ray, &RayQuery::default()).unwrap();
    assert_eq!(h.t, 0.5);
    assert_eq!(h.triangle, 0);
    assert_eq!((h.u, h.v), (0.5, 0.25));
    assert_eq!(h.point, p(0.75, 0.25, 0.0));
    assert_eq!(h.normal.into_inner(), Vector3::new(0.0, 0.0, 1.0));
    assert!(h.front_face);
    // From below: the back face, same normal.
    let up = Ray::new(p(0.25, 0.75, -1.0), Vector3::new(0.0, 0.0, 1.0));
    let h = mesh.closest_hit(&up, &RayQuery::default()).unwrap();
    assert_eq!((h.t, h.triangle, h.front_face), (1.0, 1, false));
    assert_eq!(h.normal.into_inner(), Vector3::new(0.0, 0.0, 1.0));
}

#[test]
fn intervals_culling_and_hostile_rays() {
    let mesh = quad();
    let r = down(0.3, 0.6);
    let hit = |q: RayQuery| mesh.closest_hit(&r, &q).map(|h| h.t);
    assert_eq!(hit(RayQuery::default()), Some(5.0));
    assert_eq!(hit(RayQuery::new(0.0, 5.0)), Some(5.0)); // closed interval
    assert_eq!(hit(RayQuery::new(5.0, 5.0)), Some(5.0));
    assert_eq!(hit(RayQuery::new(0.0, 4.99)), None);
    assert_eq!(hit(RayQuery::new(5.01, 9.0)), None);
    assert_eq!(hit(RayQuery::new(6.0, 1.0)), None);
    assert_eq!(hit(RayQuery::new(f32::NAN, 9.0)), None);
    assert_eq!(hit(RayQuery::new(0.0, f32::NAN)), None);
    assert_eq!(hit(RayQuery::default().with_cull(Cull::Back)), Some(5.0));
    assert_eq!(hit(RayQuery::default().with_cull(Cull::Front)), None);
    // Behind the origin only with a negative t_min.
    let behind = Ray::new(p(0.3, 0.6, 5.0), Vector3::new(0.0, 0.0, 1.0));
    assert_eq!(mesh.closest_hit(&behind, &RayQuery::default()), None);
    let h = mesh
        .closest_hit(&behind, &RayQuery::new(-10.0, 10.0))
        .unwrap();
    assert_eq!(h.t, -5.0);
    // Hostile rays never hit and never panic.
    let q = RayQuery::default();
    for ray in [
        Ray::new(p(0.3, 0.6, 5.0), Vector3::zeros()),
        Ray::new(p(f32::NAN, 0.6, 5.0), Vector3::new(0.0, 0.0, -1.0)),
        Ray::new(p(0.3, 0.6, f32::INFINITY), Vector3::new(0.0, 0.0, -1.0)),
        Ray::new(p(0.3, 0.6, 5.0), Vector3::new(0.0, f32::NAN, -1.0)),
        Ray::new(p(0.3, 0.6, 5.0), Vector3::new(0.0, 0.0, f32::NEG_INFINITY)),
    ] {
        assert_eq!(mesh.closest_hit(&ray, &q), None, "{ray:?}");
        assert!(!mesh.any_hit(&ray, &q));
        assert!(mesh.all_hits(&ray, &q).is_empty());
    }
    // Direction lengths: t is in units of the direction.
    let long = Ray::new(p(0.3, 0.6, 5.0), Vector3::new(0.0, 0.0, -10.0));
    assert_eq!(mesh.closest_hit(&long, &q).unwrap().t, 0.5);
    let tiny = Ray::new(p(0.3, 0.6, 5.0), Vector3::new(0.0, 0.0, -1e-30));
    assert_eq!(mesh.closest_hit(&tiny, &q).unwrap().t, 5e30);
    // Nearest point with hostile input.
    assert_eq!(mesh.nearest_point(&p(f32::NAN, 0.0, 0.0), 1.0), None);
    assert_eq!(mesh.nearest_point(&p(0.5, 0.5, 1.0), -1.0), None);
    assert_eq!(mesh.nearest_point(&p(0.5, 0.5, 1.0), f32::NAN), None);
    assert_eq!(
        mesh.nearest_point(&p(0.5, 0.5, 1.0), 1.0).unwrap().distance,
        1.0
    );
    assert_eq!(mesh.nearest_point(&p(0.5, 0.5, 1.0), 0.999), None);
    assert_eq!(
        mesh.nearest_point(&p(2.0, 0.5, 0.0), 2.0).unwrap().point,
        p(1.0, 0.5, 0.0)
    );
}

#[test]
fn degenerate_triangles_never_hit_but_are_near() {
    // A collinear triangle, a point triangle, and a normal one far away.
    let mesh = Mesh::new(
        vec![
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(2.0, 0.0, 0.0),
            p(5.0, 5.0, 5.0),
            p(10.0, 0.0, 0.0),
            p(11.0, 0.0, 0.0),
            p(10.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2], [3, 3, 3], [4, 5, 6]],
    )
    .unwrap();
    let q = RayQuery::default();
    // Through the segment and the point, in every direction that meets them.
    for ray in [
        down(1.0, 0.0),
        Ray::new(p(1.0, -1.0, 0.0), Vector3::new(0.0, 1.0, 0.0)),
        Ray::new(p(-1.0, 0.0, 0.0), Vector3::new(1.0, 0.0, 0.0)),
        Ray::new(p(5.0, 5.0, 0.0), Vector3::new(0.0, 0.0, 1.0)),
    ] {
        assert_eq!(mesh.closest_hit(&ray, &q), None, "{ray:?}");
        assert!(mesh.all_hits(&ray, &q).is_empty());
    }
    assert_eq!(mesh.closest_hit(&down(10.2, 0.2), &q).unwrap().triangle, 2);
    let near = mesh
        .nearest_point(&p(1.5, 1.0, 0.0), f32::INFINITY)
        .unwrap();
    assert_eq!((near.triangle, near.distance), (0, 1.0));
    let near = mesh
        .nearest_point(&p(5.0, 5.0, 6.0), f32::INFINITY)
        .unwrap();
    assert_eq!((near.triangle, near.point), (1, p(5.0, 5.0, 5.0)));
    let b = Aabb::new(p(0.5, -0.1, -0.1), p(0.6, 0.1, 0.1));
    assert_eq!(mesh.overlap_aabb(&b), vec![0]);
}

#[test]
fn ties_go_to_the_lowest_index_whatever_the_order() {
    // Five copies of one triangle among other triangles, at several places in the input;
    // and coplanar overlapping triangles. The lowest index containing the point must win.
    let base = [p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)];
    for seed in 0..20u32 {
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        let mut copies = Vec::new();
        for i in 0..40u32 {
            let k = positions.len() as u32;
            if (i * 7 + seed * 3) % 9 == 0 && copies.len() < 5 {
                positions.extend(base);
                copies.push(i);
            } else {
                let x = 2.0 + (i as f32) * 1.5;
                positions.extend([p(x, 0.0, 0.0), p(x + 1.0, 0.0, 0.0), p(x, 1.0, 0.0)]);
            }
            triangles.push([k, k + 1, k + 2]);
        }
        let mesh = Mesh::new(positions, triangles).unwrap();
        let h = mesh
            .closest_hit(&down(0.2, 0.2), &RayQuery::default())
            .unwrap();
        assert_eq!(h.triangle, copies[0], "seed {seed}");
        // all_hits: distinct surfaces at the same t all stay (interior hits).
        let all = mesh.all_hits(&down(0.2, 0.2), &RayQuery::default());
        assert_eq!(all.iter().map(|h| h.triangle).collect::<Vec<_>>(), copies);
        let near = mesh
            .nearest_point(&p(0.2, 0.2, 3.0), f32::INFINITY)
            .unwrap();
        assert_eq!(near.triangle, copies[0]);
    }
    // Coplanar, overlapping, different shapes: index 0 does not contain the point.
    let mesh = Mesh::new(
        vec![
            p(0.0, 0.0, 0.0),
            p(0.1, 0.0, 0.0),
            p(0.0, 0.1, 0.0),
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(-1.0, -1.0, 0.0),
            p(2.0, -1.0, 0.0),
            p(-1.0, 2.0, 0.0),
        ],
        vec![[0, 1, 2], [6, 7, 8], [3, 4, 5]],
    )
    .unwrap();
    assert_eq!(
        mesh.closest_hit(&down(0.3, 0.3), &RayQuery::default())
            .unwrap()
            .triangle,
        1
    );
    assert_eq!(
        mesh.closest_hit(&down(0.01, 0.01), &RayQuery::default())
            .unwrap()
            .triangle,
        0
    );
}

#[test]
fn all_hits_one_per_crossing() {
    let q = RayQuery::default();
    // The shared diagonal of the quad: one crossing.
    let mesh = quad();
    assert_eq!(mesh.all_hits(&down(0.5, 0.5), &q).len(), 1);
    // The quad's corner vertex (0,0) shared by both triangles: one crossing.
    assert_eq!(mesh.all_hits(&down(0.0, 0.0), &q).len(), 1);
    // A fan of 8 triangles around a centre vertex: one crossing through the centre, one
    // through each spoke.
    let mut positions = vec![p(0.0, 0.0, 0.0)];
    for i in 0..8 {
        let a = std::f32::consts::FRAC_PI_4 * i as f32;
        positions.push(p(a.cos() * 2.0, a.sin() * 2.0, 0.0));
    }
    let fan: Vec<[u32; 3]> = (0..8).map(|i| [0, 1 + i, 1 + (i + 1) % 8]).collect();
    let mesh = Mesh::new(positions.clone(), fan.clone()).unwrap();
    let hits = mesh.all_hits(&down(0.0, 0.0), &q);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].triangle, 0); // the lowest index of the group
    assert_eq!(mesh.all_hits(&down(1.0, 0.0), &q).len(), 1); // spoke along +x
                                                             // Two parallel fans: two crossings, even through the centre vertices.
    let mut two = positions.clone();
    two.extend(positions.iter().map(|v| v + Vector3::new(0.0, 0.0, -1.0)));
    let tris: Vec<[u32; 3]> = fan
        .iter()
        .copied()
        .chain(fan.iter().map(|t| t.map(|i| i + 9)))
        .collect();
    let mesh = Mesh::new(two, tris).unwrap();
    let hits = mesh.all_hits(&down(0.0, 0.0), &q);
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!((hits[0].t - 5.0).abs() < 1e-5 && (hits[1].t - 6.0).abs() < 1e-5);
    // A tetrahedron grazed along a silhouette edge: the ray touches without entering; the
    // touch is reported as a front and a back hit at the same point (an even count).
    let tet = Mesh::new(
        vec![
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, 0.0, 1.0),
        ],
        vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
    )
    .unwrap();
    // Graze the edge (1,0,0)-(0,0,1) between the faces y = 0 (seen from the front) and
    // x + y + z = 1 (seen from the back): the ray touches the solid there and stays out.
    let edge_mid = p(0.5, 0.0, 0.5);
    let graze = Ray::new(
        edge_mid + Vector3::new(0.0, -1.0, -1.0),
        Vector3::new(0.0, 1.0, 1.0),
    );
    let hits = tet.all_hits(&graze, &q);
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits.iter().all(|h| (h.t - 1.0).abs() < 1e-6));
    assert_ne!(hits[0].front_face, hits[1].front_face);
    assert_eq!(tet.closest_hit(&graze, &q).map(|h| h.t), Some(1.0));
    // Straight through the tetrahedron's vertex (0,0,1) from above: enter there, leave
    // through the base.
    let hits = tet.all_hits(
        &Ray::new(p(0.0, 0.0, 2.0), Vector3::new(0.0, 0.0, -1.0)),
        &q,
    );
    assert_eq!(hits.len(), 2, "{hits:?}");
}

#[test]
fn batches_match_and_check_lengths() {
    let mesh = quad();
    let rays: Vec<Ray> = (0..1000)
        .map(|i| down((i % 37) as f32 / 30.0 - 0.1, (i % 41) as f32 / 35.0 - 0.1))
        .collect();
    let q = RayQuery::default();
    let mut out = vec![None; rays.len()];
    mesh.closest_hit_batch(&rays, &q, &mut out).unwrap();
    let mut any = vec![false; rays.len()];
    mesh.any_hit_batch(&rays, &q, &mut any).unwrap();
    for (i, r) in rays.iter().enumerate() {
        assert_eq!(out[i], mesh.closest_hit(r, &q));
        assert_eq!(any[i], out[i].is_some());
    }
    assert!(any.iter().any(|&a| a) && any.iter().any(|&a| !a));
    let mut short = vec![None; 3];
    assert_eq!(
        mesh.closest_hit_batch(&rays, &q, &mut short),
        Err(MeshError::BatchLengthMismatch {
            inputs: 1000,
            outputs: 3
        })
    );
    assert!(mesh.any_hit_batch(&rays, &q, &mut [false; 2]).is_err());
}

#[test]
fn memory_is_reported() {
    let n = 64usize;
    let mut positions = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            positions.push(p(i as f32, j as f32, ((i * j) % 7) as f32 * 0.1));
        }
    }
    let mut triangles = Vec::new();
    let v = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    for j in 0..n {
        for i in 0..n {
            triangles.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
            triangles.push([v(i, j), v(i + 1, j + 1), v(i, j + 1)]);
        }
    }
    let mesh = Mesh::new(positions.clone(), triangles).unwrap();
    let per = mesh.bytes_per_triangle();
    // 36 (vertices) + 12 (indices) + 4 (leaf order) + 8-wide nodes.
    assert!((52.0..100.0).contains(&per), "{per}");
    assert_eq!(mesh.memory_bytes() as f64 / mesh.len() as f64, per);
    eprintln!("[mesh_api] bytes per triangle (grid 8192 tris): {per:.1}");
    let mut moved = mesh.clone();
    moved.update_positions(&positions).unwrap();
    // The refit is in place: no buffer.
    assert_eq!(moved.memory_bytes(), mesh.memory_bytes());
}
