//! Properties on random small meshes and rays (proptest), against the brute-force kernel.
//! Coordinates are snapped to a grid of quarter units so that shared vertices, shared
//! edges and rays through them exactly are common. `RAYPICK_PROPTEST_CASES` sets the case
//! count (default 512).

use proptest::prelude::*;
use raypick_primitives::{ray_triangle, Cull, Point3, Ray, Triangle, Vector3};
use raypick_query::{Mesh, RayQuery};

fn cases() -> u32 {
    std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

fn grid_point() -> impl Strategy<Value = Point3<f32>> {
    (-8i32..=8, -8i32..=8, -8i32..=8)
        .prop_map(|(x, y, z)| Point3::new(x as f32 * 0.25, y as f32 * 0.25, z as f32 * 0.25))
}

fn mesh_input() -> impl Strategy<Value = (Vec<Point3<f32>>, Vec<[u32; 3]>)> {
    prop::collection::vec(grid_point(), 3..24).prop_flat_map(|pos| {
        let n = pos.len() as u32;
        (Just(pos), prop::collection::vec([0..n, 0..n, 0..n], 1..40))
    })
}

fn ray_input() -> impl Strategy<Value = Ray> {
    (grid_point(), (-4i32..=4, -4i32..=4, -4i32..=4)).prop_map(|(o, (x, y, z))| {
        Ray::new(
            o + Vector3::new(0.0, 0.0, 3.0),
            Vector3::new(x as f32, y as f32, z as f32),
        )
    })
}

fn cull() -> impl Strategy<Value = Cull> {
    prop_oneof![Just(Cull::None), Just(Cull::Back), Just(Cull::Front)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn ray_queries_match_brute_force(
        (pos, tris) in mesh_input(),
        ray in ray_input(),
        cull in cull(),
        t_max in prop_oneof![Just(f32::INFINITY), 0.0f32..4.0],
    ) {
        let mesh = Mesh::new(pos.clone(), tris.clone()).unwrap();
        let q = RayQuery::new(0.0, t_max).with_cull(cull);
        let mut want: Option<(f32, usize)> = None;
        let mut kernel_hits = 0;
        for (i, t) in tris.iter().enumerate() {
            let tri = Triangle::new(pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]);
            if let Some(h) = ray_triangle(&ray, &tri, 0.0, t_max, cull) {
                kernel_hits += 1;
                if want.is_none_or(|(bt, _)| h.t < bt) {
                    want = Some((h.t, i));
                }
            }
        }
        let got = mesh.closest_hit(&ray, &q);
        prop_assert_eq!(got.map(|h| (h.t, h.triangle as usize)), want);
        prop_assert_eq!(mesh.any_hit(&ray, &q), want.is_some());
        let all = mesh.all_hits(&ray, &q);
        prop_assert!(all.windows(2).all(|w| (w[0].t, w[0].triangle) <= (w[1].t, w[1].triangle)));
        prop_assert!(all.len() <= kernel_hits);
        prop_assert_eq!(all.is_empty(), want.is_none());
        if let (Some(first), Some((t, _))) = (all.first(), want) {
            prop_assert!((first.t - t).abs() <= 1e-5 * t.abs().max(1e-3));
        }
        for h in &all {
            prop_assert!(h.t >= 0.0 && h.t <= t_max);
            prop_assert!((tris.len() as u32) > h.triangle);
        }
        // A batch gives the same answer.
        let mut out = [None];
        mesh.closest_hit_batch(&[ray], &q, &mut out).unwrap();
        prop_assert_eq!(out[0], got);
    }

    #[test]
    fn nearest_point_matches_brute_force(
        (pos, tris) in mesh_input(),
        p in grid_point(),
        max_d in prop_oneof![Just(f32::INFINITY), 0.0f32..2.0],
    ) {
        let mesh = Mesh::new(pos.clone(), tris.clone()).unwrap();
        let mut want: Option<(f32, usize)> = None;
        for (i, t) in tris.iter().enumerate() {
            let tri = Triangle::new(pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]);
            let d2 = raypick_primitives::point_triangle(&p, &tri).unwrap().distance_squared;
            if d2 <= max_d * max_d && want.is_none_or(|(b, _)| d2 < b) {
                want = Some((d2, i));
            }
        }
        let got = mesh.nearest_point(&p, max_d);
        prop_assert_eq!(got.map(|n| (n.distance, n.triangle as usize)), want.map(|(d2, i)| (d2.sqrt(), i)));
    }
}
