//! Inputs on which the `differential` fuzz target (crates/query/fuzz) found `Mesh` and the
//! scalar watertight kernel (`ray_triangle`) disagreeing, or both wrong, kept as plain
//! tests: eight fixed (the mesh now answers as the kernel does; one on a pre-split mesh; one
//! where both reported an overflow as a hit; one where the traversal's order decided between
//! two hits a rounding apart), two grazes within rounding that the target counts apart (the
//! mesh answers as the exact ray does). One more from the `scene` target: a ray whose
//! largest direction component is subnormal, which the box tests followed as no ray and the
//! triangle test as a real one, so that it hit only under an infinite `t_max`.

use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Triangle, Vector3};
use raypick_query::{Mesh, RayQuery};

fn points(p: &[[f32; 3]]) -> Vec<Point3<f32>> {
    p.iter().map(|&[x, y, z]| Point3::new(x, y, z)).collect()
}

/// The kernel's `t` on each triangle, or `None`.
fn kernel_ts(
    positions: &[Point3<f32>],
    triangles: &[[u32; 3]],
    ray: &Ray,
    q: &RayQuery,
) -> Vec<Option<f32>> {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            ray_triangle(ray, &Triangle::new(a, b, c), q.t_min, q.t_max, q.cull).map(|h| h.t)
        })
        .collect()
}

/// A direction whose cross-axis component is below the dominant one by more than f32's range:
/// the kernel's shear `dy / dz` underflows to zero, so it sees the ray run exactly along z
/// through the triangle's corner and reports a hit; the box test now follows the same ray
/// (the component is zero for both), so the mesh reports it too.
#[test]
fn shear_underflow_hit_is_not_pruned() {
    let (a, b, c) = (
        Point3::new(0.0, 0.0, 1.0),
        Point3::new(1.0, 0.0, 1.0),
        Point3::new(0.0, 1.0, 1.0),
    );
    let mesh = Mesh::new(vec![a, b, c], vec![[0, 1, 2]]).unwrap();
    let ray = Ray::new(Point3::origin(), Vector3::new(0.0, -1e-30, 1e20));
    let q = RayQuery::default();
    let kernel = ray_triangle(&ray, &Triangle::new(a, b, c), q.t_min, q.t_max, Cull::None);
    assert_eq!(kernel.map(|h| h.t), Some(1e-20));
    assert_eq!(mesh.closest_hit(&ray, &q).map(|h| h.t), Some(1e-20));
    assert!(mesh.any_hit(&ray, &q));
    assert_eq!(mesh.all_hits(&ray, &q).len(), 1);
}

/// A ray starting 1e-20 off a triangle's plane and moving away from it: the kernel subtracts
/// the origin before the shear, the offset is lost beside the other coordinates (0.5), and it
/// reports a hit at t = 0. The exact ray never touches the triangle, and the mesh's box test,
/// which follows it, says so: a graze within rounding, where the mesh gives the exact answer.
#[test]
fn origin_rounded_onto_a_plane_is_a_graze_the_mesh_answers_exactly() {
    let (a, b, c) = (
        Point3::new(0.0, 0.0, 0.0),
        Point3::new(0.0, 2.0, 0.0),
        Point3::new(0.0, -2.0, -2.0),
    );
    let mesh = Mesh::new(vec![a, b, c], vec![[0, 1, 2]]).unwrap();
    let ray = Ray::new(Point3::new(1e-20, 0.5, 0.0), Vector3::new(1.0, -2.0, -2.0));
    let q = RayQuery::default();
    let kernel = ray_triangle(&ray, &Triangle::new(a, b, c), q.t_min, q.t_max, Cull::None);
    assert_eq!(
        kernel.map(|h| h.t),
        Some(0.0),
        "the kernel rounds onto the plane"
    );
    assert_eq!(mesh.closest_hit(&ray, &q), None);
    assert!(!mesh.any_hit(&ray, &q));
    assert!(mesh.all_hits(&ray, &q).is_empty());
}

/// Coordinates of 1e34 beside ones of 1 (the fuzz input as found): the kernel puts triangle
/// 2's hit at t = -0, while the exact ray enters its box only at t = 1.04e-34, after
/// triangle 4's hit at 7.2e-35: a graze within rounding (the coordinates span 68 orders of
/// magnitude). The traversal once pruned triangle 2 there and answered triangle 4, the first
/// surface the exact ray reaches; its pruning pad now holds the kernel's rounding at the
/// ray's reach over the mesh, so it answers the lowest kernel `t`, triangle 2, as every
/// traversal order does.
#[test]
fn kernel_t_before_the_exact_box_entry_is_a_graze() {
    let positions = points(&[
        [0.0, -2.0, -2.0],
        [3.85186e-34, -3.2267725e-32, -3.8617119e34],
        [0.0, -0.5, -2.0],
        [0.0, 2.0, 0.0],
        [1.0, -2.0, 1.0],
        [-2.0, -1.5, 0.0],
        [1.0, 7e-6, -1.499999],
        [2.0, -2.0, 1.5],
        [-0.5, -2.0, 2.0],
        [0.5, 0.0, -0.5],
    ]);
    let triangles = vec![
        [2, 8, 2],
        [6, 0, 1],
        [2, 1, 0],
        [2, 1, 7],
        [4, 8, 2],
        [8, 0, 3],
        [8, 0, 0],
        [0, 8, 1],
        [4, 2, 7],
        [1, 1, 0],
        [6, 2, 1],
        [7, 3, 3],
        [5, 1, 1],
        [1, 0, 6],
        [2, 1, 7],
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 5],
    ];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let ray = Ray::new(
        Point3::new(0.0, -1.0, 2.0),
        Vector3::new(3.85186e-34, 1.0, -3.8617119e34),
    );
    let q = RayQuery::default();
    let ts = kernel_ts(&positions, &triangles, &ray, &q);
    assert_eq!((ts[2], ts[4]), (Some(-0.0), Some(7.1931254e-35)));
    let hit = mesh.closest_hit(&ray, &q).unwrap();
    assert_eq!((hit.triangle, hit.t.to_bits()), (2, (-0.0f32).to_bits()));
}

/// A direction component so small (2e-41, subnormal) that its reciprocal overflows in the
/// box test: it counts as zero for the kernel and the box test alike, so both follow the ray
/// along z at x = 0, which passes beside the triangle (it starts at x = 1e-41).
#[test]
fn subnormal_direction_component_counts_as_zero_everywhere() {
    let (a, b, c) = (
        Point3::new(1e-41, 0.0, 1.0),
        Point3::new(1.0, 0.0, 1.0),
        Point3::new(1e-41, 1.0, 1.0),
    );
    let mesh = Mesh::new(vec![a, b, c], vec![[0, 1, 2]]).unwrap();
    let q = RayQuery::default();
    let ray = Ray::new(Point3::new(0.0, 0.25, 0.0), Vector3::new(2e-41, 0.0, 1.0));
    let kernel = ray_triangle(&ray, &Triangle::new(a, b, c), q.t_min, q.t_max, Cull::None);
    assert_eq!(kernel, None);
    assert_eq!(mesh.closest_hit(&ray, &q), None);
    assert!(!mesh.any_hit(&ray, &q));
    // Starting on the triangle's side, the same ray hits, in the kernel and the mesh alike.
    let inside = Ray::new(Point3::new(0.5, 0.25, 0.0), Vector3::new(2e-41, 0.0, 1.0));
    let kernel = ray_triangle(
        &inside,
        &Triangle::new(a, b, c),
        q.t_min,
        q.t_max,
        Cull::None,
    );
    assert_eq!(kernel.map(|h| h.t), Some(1.0));
    assert_eq!(mesh.closest_hit(&inside, &q).map(|h| h.t), Some(1.0));
    assert_eq!(mesh.all_hits(&inside, &q).len(), 1);
}

/// Hits tied at a subnormal `t` (1.1e-44): the closest hit's prune bound padded `t` by a
/// relative 32 ulps, which underflowed to nothing, so a box whose f32 entry rounded a step
/// past `t` was pruned and the tie went to triangle 9; the pad now has a subnormal floor.
#[test]
fn tie_at_subnormal_t_goes_to_lowest_index() {
    let positions = points(&[
        [-1.500039, -1.500039, -1.500038],
        [-0.5, -0.5, -2.0],
        [-2.0, -2.0, -2.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 1.1e-44],
        [-7664949500000000.0, 2.0006452e-38, 2.0006452e-38],
        [-1.500039, -1.500039, -1.500039],
        [1.499961, -1.499982, 1.000102],
        [-2.0, -0.5, -2.0],
    ]);
    let triangles = vec![
        [0, 0, 1],
        [6, 1, 4],
        [5, 0, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 3, 4],
        [4, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
        [7, 4, 0],
        [1, 0, 6],
        [3, 3, 0],
        [3, 0, 6],
        [0, 0, 1],
        [6, 1, 4],
        [5, 0, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 0],
        [0, 0, 2],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 0],
        [6, 0, 0],
        [0, 0, 0],
        [3, 8, 8],
        [8, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 1, 1],
        [1, 1, 4],
        [3, 0, 4],
        [4, 4, 4],
        [4, 4, 4],
        [4, 4, 4],
    ];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let ray = Ray::new(Point3::origin(), Vector3::new(-2.0, -2.0, -1.0));
    let q = RayQuery::default().with_cull(Cull::Front);
    let ts = kernel_ts(&positions, &triangles, &ray, &q);
    let hit: Vec<usize> = (0..ts.len()).filter(|&i| ts[i].is_some()).collect();
    assert_eq!(hit, [2, 9, 15]);
    assert!(hit.iter().all(|&i| ts[i] == Some(1.1e-44)));
    let got = mesh.closest_hit(&ray, &q).unwrap();
    assert_eq!((got.triangle, got.t), (2, 1.1e-44));
}

/// A direction component near f32::MAX (-1.69e38, whose reciprocal is subnormal) from an
/// origin on a vertex: six triangles hit at t = 0 or -0, and the closest hit answered
/// triangle 18 instead of the lowest index, 16 (the fuzz input as found). The cross
/// components now shear to zero for the box test too, and the prune pad has a subnormal
/// floor: the tie goes to 16.
#[test]
fn tie_at_zero_with_huge_direction_goes_to_lowest_index() {
    let positions = points(&[
        [-2.0, -2.0, -2.0],
        [6.018531e-36, -1.7018559e-30, 1.806676e-34],
        [6.64634e-33, 6.2113195e-33, -3.3895835e38],
        [-0.5, -0.5, -0.5],
        [2.0, 1.0, -1.5],
        [-1.5, -1.5, -1.5],
        [1.0, 1.5, 1.5],
    ]);
    let triangles = vec![
        [6, 6, 6],
        [6, 6, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
        [4, 0, 4],
        [0, 0, 0],
        [0, 1, 1],
        [0, 3, 3],
        [4, 0, 1],
        [4, 0, 4],
        [0, 3, 6],
        [0, 6, 3],
        [4, 5, 1],
        [4, 0, 4],
        [0, 5, 1],
        [0, 6, 1],
        [0, 3, 3],
        [4, 0, 4],
        [0, 4, 0],
        [3, 6, 0],
    ];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let ray = Ray::new(
        Point3::new(-1.5, -1.5, -1.5),
        Vector3::new(0.5, 0.5, -1.6947918e38),
    );
    let q = RayQuery::new(0.0, 0.5);
    let ts = kernel_ts(&positions, &triangles, &ray, &q);
    let hit: Vec<usize> = (0..ts.len()).filter(|&i| ts[i].is_some()).collect();
    assert_eq!(hit, [16, 18, 19, 20, 23, 27]);
    assert_eq!(ts[16], Some(0.0));
    let got = mesh.closest_hit(&ray, &q).unwrap();
    assert_eq!((got.triangle, got.t), (16, 0.0));
}

/// Three hits tied at t = 0 (the origin on the surface): the prune bound at 0 was 0, and the
/// tie went to triangle 4 instead of the lowest index, 2 (the fuzz input as found); the pad's
/// subnormal floor keeps the boxes entered at t = 0.
#[test]
fn tie_at_zero_goes_to_lowest_index() {
    let positions = points(&[
        [1.0, 2.0, -2.0],
        [2.0, 2.0, 0.0],
        [-1.0, -1.0, 0.0],
        [-1.5, -0.5, 2.0],
        [-2.0, 2.0, -2.0],
        [1.0, -2.0, 1.0],
        [1.83328e-12, -1.0449375e37, 1.2982298e-13],
        [-8.323711e-36, 6.9537975e-10, 6.2536615e-36],
        [-1.5, -2.0, -0.5],
        [2.3706472e-38, 1.3681484e-13, 201084940.0],
    ]);
    let triangles = vec![
        [4, 3, 4],
        [4, 4, 4],
        [7, 6, 1],
        [0, 6, 2],
        [0, 1, 2],
        [7, 2, 8],
        [2, 2, 2],
        [1, 1, 4],
        [3, 3, 8],
        [2, 8, 2],
        [8, 0, 1],
        [2, 1, 0],
        [0, 3, 3],
    ];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let ray = Ray::new(
        Point3::new(3.946e-42, 0.0, 0.0),
        Vector3::new(137438950000.0, 6.211317e-33, 138689280000.0),
    );
    let q = RayQuery::default();
    let ts = kernel_ts(&positions, &triangles, &ray, &q);
    let hit: Vec<usize> = (0..ts.len()).filter(|&i| ts[i].is_some()).collect();
    assert_eq!(hit, [2, 4, 11]);
    assert!(hit.iter().all(|&i| ts[i] == Some(0.0)));
    let got = mesh.closest_hit(&ray, &q).unwrap();
    assert_eq!((got.triangle, got.t), (2, 0.0));
}

/// A ray from a point within rounding of a triangle's edge (at `t = -0`), where a pre-split
/// cut at the grid plane 0 crosses that edge: the kernel takes the hit, and the parts' boxes
/// once ended too close to the cut's crossing to let the ray reach the leaf. They are now
/// grown by the kernel's rounding, and the pre-split mesh answers as the unsplit one.
#[test]
fn presplit_piece_boxes_hold_hits_within_rounding_of_an_edge() {
    let positions = points(&[
        [-2.0, -2.0, 1.5],
        [-1.5, 2.0, -2.0],
        [0.0, 0.0, 0.0],
        [2.0, 2.0, 2.0],
        [-1.5, -1.5, -1.5],
        [-0.5, 0.0, -1.0],
        [0.5, -1.0, -1.5],
        [-1.5, -1.5, 1.5],
        [-2.0, -1.5, 0.0],
        [-1.5, -1.0, 0.5],
    ]);
    let triangles = vec![
        [1, 3, 0],
        [0, 2, 2],
        [8, 1, 3],
        [4, 0, 2],
        [6, 6, 0],
        [3, 2, 2],
        [0, 1, 3],
        [0, 0, 8],
        [2, 8, 1],
        [3, 0, 0],
        [2, 2, 8],
        [1, 3, 0],
        [0, 2, 6],
        [6, 0, 3],
        [4, 2, 8],
        [2, 8, 1],
        [3, 0, 0],
        [2, 2, 0],
        [1, 3, 0],
        [2, 6, 6],
        [0, 3, 4],
        [3, 8, 2],
        [8, 1, 3],
    ];
    let ray = Ray::new(
        Point3::new(-1.4579875e-27, 4.405762e-16, -6.5695346e-24),
        Vector3::new(-2.0, 0.0, 0.0),
    );
    let q = RayQuery::default();
    let config = raypick_bvh::BuildConfig {
        presplit: 0.25,
        ..Default::default()
    };
    let split = Mesh::with_config(positions.clone(), triangles.clone(), &config).unwrap();
    assert!(split.has_split_triangles());
    let plain = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let kernel = kernel_ts(&positions, &triangles, &ray, &q);
    assert_eq!(kernel[20].map(f32::to_bits), Some((-0.0f32).to_bits()));
    let hit = split
        .closest_hit(&ray, &q)
        .expect("the kernel's hit at t = -0");
    assert_eq!((hit.triangle, hit.t.to_bits()), (20, (-0.0f32).to_bits()));
    assert_eq!(split.closest_hit(&ray, &q), plain.closest_hit(&ray, &q));
    assert_eq!(split.all_hits(&ray, &q), plain.all_hits(&ray, &q));
}

/// A ray from 1e21 away along the plane of a sliver (found by the target's coherent
/// packets): the kernel's `t` overflowed to infinity, with `u` NaN and `v` infinite, and
/// both the kernel and the mesh reported that as a hit within `[0, inf]`. An infinite `t`
/// is no hit now, in the scalar kernel and the SIMD lanes alike.
#[test]
fn infinite_t_from_an_overflow_is_no_hit() {
    let positions = points(&[
        [1.54e-43, 0.0, 0.0],
        [0.0, 0.0, 3.170_589_8e-26],
        [0.0, -2.0, 0.5],
    ]);
    let triangles = vec![
        [0, 2, 2],
        [1, 2, 1],
        [2, 2, 2],
        [2, 2, 0],
        [2, 0, 1],
        [2, 0, 2],
        [2, 2, 2],
    ];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let ray = Ray::new(
        Point3::new(0.0, 0.0, 1.044_006_45e21),
        Vector3::new(0.0, -1.0, -1.044_006_45e21),
    );
    let q = RayQuery::default();
    assert!(kernel_ts(&positions, &triangles, &ray, &q)
        .iter()
        .all(Option::is_none));
    assert_eq!(mesh.closest_hit(&ray, &q), None);
    assert!(!mesh.any_hit(&ray, &q));
    assert!(mesh.all_hits(&ray, &q).is_empty());
    let mut out = vec![None; 16];
    mesh.closest_hit_coherent(&[ray; 16], &q, &mut out).unwrap();
    assert!(out.iter().all(Option::is_none));
}

/// A hit 1e-3 of the mesh's reach from the ray's origin, on two coplanar triangles (found by
/// the target's coherent packets, which met them in the other order): the kernel's `t` strays
/// from the plane's distance by a few roundings of the triangles' depths along the ray,
/// 5e-5 of `t` here, and the one rounding below was in a box entered past the other's hit,
/// beyond the purely relative pruning pad. The pad now holds a few hundred roundings of the
/// ray's reach over the mesh, and every traversal finds the lower `t`.
#[test]
fn closest_hit_near_the_origin_is_the_lowest_kernel_t() {
    let positions = points(&[
        [-0.5, -0.5, 1.0],
        [-0.5, 2.0, -2.0],
        [-1.0, 0.5, -0.5],
        [-0.5, -0.5, -1.5],
        [-0.5, 0.5, -0.5],
    ]);
    let triangles = vec![
        [3, 1, 1],
        [1, 3, 0],
        [0, 3, 3],
        [3, 1, 0],
        [1, 3, 0],
        [0, 3, 4],
        [4, 4, 4],
        [4, 4, 4],
    ];
    let ray = Ray::new(
        Point3::new(-0.49775, -0.50075, -0.498875),
        Vector3::new(-2.001, 1.9995, 2.003),
    );
    let q = RayQuery {
        t_min: -4.0,
        ..RayQuery::default()
    };
    let kernel = kernel_ts(&positions, &triangles, &ray, &q);
    let (lowest, t) = kernel
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    // The two planes' hits differ in their fifth digit: the test can tell them apart.
    assert_eq!(lowest, 5);
    assert!(kernel[1].unwrap() > t);
    let config = raypick_bvh::BuildConfig {
        presplit: 0.25,
        ..Default::default()
    };
    let plain = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let split = Mesh::with_config(positions.clone(), triangles.clone(), &config).unwrap();
    let mut compact = plain.clone();
    compact
        .set_node_layout(raypick_query::mesh::NodeLayout::Compact)
        .unwrap();
    for mesh in [&plain, &split, &compact] {
        let hit = mesh.closest_hit(&ray, &q).unwrap();
        assert_eq!((hit.triangle, hit.t), (5, t));
        let rays = vec![ray; 16];
        let mut coherent = vec![None; 16];
        mesh.closest_hit_coherent(&rays, &q, &mut coherent).unwrap();
        assert!(coherent.iter().all(|h| *h == Some(hit)));
    }
}

/// A subnormal dominant direction component is a zero direction for every query and every
/// interval (it used to hit at `t` of about 1e38 under `t_max = inf` only, the box tests
/// taking the component as zero and the triangle test not), and the smallest normal one
/// hits under every interval that holds its `t`.
#[test]
fn a_subnormal_direction_hits_nothing_whatever_the_interval() {
    let positions = points(&[[1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [1.0, -1.0, 1.0]]);
    let triangles = vec![[0, 1, 2]];
    let mesh = Mesh::new(positions.clone(), triangles.clone()).unwrap();
    let origin = Point3::new(0.5, -0.25, -0.25);
    for d in [1e-38f32, 7.6e-39, 3e-39, 1e-45] {
        let ray = Ray::new(origin, Vector3::new(d, 0.0, 0.0));
        for t_max in [f32::INFINITY, 3e38, 6e37] {
            let q = RayQuery::new(0.0, t_max);
            assert!(mesh.closest_hit(&ray, &q).is_none(), "{d:e} {t_max:e}");
            assert!(!mesh.any_hit(&ray, &q), "{d:e} {t_max:e}");
            assert!(mesh.all_hits(&ray, &q).is_empty(), "{d:e} {t_max:e}");
            assert_eq!(kernel_ts(&positions, &triangles, &ray, &q), vec![None]);
        }
    }
    let d = f32::MIN_POSITIVE;
    let ray = Ray::new(origin, Vector3::new(d, 0.0, 0.0));
    for t_max in [f32::INFINITY, 3e38, 0.6 / d] {
        let q = RayQuery::new(0.0, t_max);
        let hit = mesh.closest_hit(&ray, &q).expect("a normal direction hits");
        assert!((hit.t * d - 0.5).abs() < 1e-6, "{}", hit.t);
        assert!(mesh.any_hit(&ray, &q));
        assert_eq!(mesh.all_hits(&ray, &q).len(), 1);
    }
}
