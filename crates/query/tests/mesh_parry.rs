//! Cross-check of `closest_hit` against parry3d's `TriMesh` ray cast (a different, not
//! watertight implementation): the same hit or miss and t within 1e-5 relative, except for
//! rays within the tiny band of an edge where the f64 oracle itself calls it ambiguous.
//! `--nocapture` prints the figures; `RAYPICK_LONG=1` casts more rays.

mod mesh_util;

use mesh_util::*;
use parry3d::query::{Ray as PRay, RayCast};
use parry3d::shape::TriMesh;
use raypick_query::RayQuery;

fn cross_check(m: &TestMesh, n: usize, seed: u64) {
    let mesh = m.mesh();
    let parry = TriMesh::new(m.positions.clone(), m.triangles.clone()).unwrap();
    let b = m.bounds();
    let rays: Vec<_> = random_rays(&b, n, seed)
        .into_iter()
        .chain(camera_rays(&b, n, seed + 1))
        .collect();
    let (mut hits, mut agree, mut near_edge, mut mismatch, mut worst) = (0, 0, 0, 0, 0f64);
    for ray in &rays {
        let ours = mesh.closest_hit(ray, &RayQuery::default());
        let theirs = parry.cast_local_ray(&PRay::new(ray.origin, ray.dir), f32::MAX, false);
        hits += usize::from(ours.is_some());
        let ok = match (ours, theirs) {
            (None, None) => true,
            (Some(h), Some(t)) => {
                let r = rel(f64::from(h.t), f64::from(t));
                worst = worst.max(r);
                r <= 1e-5
            }
            _ => false,
        };
        if ok {
            agree += 1;
        } else if oracle_closest(m, ray, 0.0, f32::INFINITY)
            .ambiguous_before
            .is_finite()
        {
            near_edge += 1;
        } else {
            mismatch += 1;
            eprintln!(
                "  parry mismatch {}: {ray:?} ours {ours:?} parry {theirs:?}",
                m.name
            );
        }
    }
    eprintln!(
        "[mesh_parry] {:<20} rays {:>7}  hits {hits:>7}  agree {agree:>7}  near-edge {near_edge}  \
         mismatches {mismatch}  max rel t diff {worst:.1e}",
        m.name,
        rays.len()
    );
    assert_eq!(mismatch, 0);
    assert!(near_edge * 100 <= rays.len());
}

#[test]
fn closest_hit_agrees_with_parry3d() {
    let n = scale(1500, 200_000);
    cross_check(&bunny(), n, 1);
    cross_check(&uv_sphere(40, 60, 0.15), n, 2);
    cross_check(&grid(40, 0.2), n, 3);
    cross_check(&soup(3000, 0.05, 4), n, 4);
}
