//! Ray queries against brute force: the f32 kernel over every triangle (bit-exact), and a
//! float64 oracle (same hit or miss, t within 1e-5 relative; rays within a tiny band of an
//! edge may differ only in which adjacent triangle). A hit whose ray runs within 0.01 of its
//! triangle's plane (by the cosine) is grazing: its `t` is as ill-conditioned as the angle is
//! small, so it is held to 1e-7 over that cosine instead, and counted apart. `--nocapture`
//! prints the figures; `RAYPICK_LONG=1` runs millions of rays.

mod mesh_util;

use mesh_util::*;
use rayon::prelude::*;
use raypick_primitives::{ray_triangle, Cull, Ray, Triangle, Vector3};
use raypick_query::mesh::NodeLayout;
use raypick_query::{Hit, Mesh, RayQuery};

#[derive(Default, Clone, Copy, Debug)]
struct Stats {
    rays: usize,
    hits: usize,
    exact_mismatch: usize,
    oracle_mismatch: usize,
    near_edge_diff: usize,
    t_err: usize,
    max_rel_t: f64,
    grazing: usize,
    any_mismatch: usize,
    all_first_mismatch: usize,
    all_count_mismatch: usize,
    all_count_checked: usize,
    cull_mismatch: usize,
    closed_interval_mismatch: usize,
}

impl Stats {
    fn add(mut self, o: Stats) -> Stats {
        self.rays += o.rays;
        self.hits += o.hits;
        self.exact_mismatch += o.exact_mismatch;
        self.oracle_mismatch += o.oracle_mismatch;
        self.near_edge_diff += o.near_edge_diff;
        self.t_err += o.t_err;
        self.max_rel_t = self.max_rel_t.max(o.max_rel_t);
        self.grazing += o.grazing;
        self.any_mismatch += o.any_mismatch;
        self.all_first_mismatch += o.all_first_mismatch;
        self.all_count_mismatch += o.all_count_mismatch;
        self.all_count_checked += o.all_count_checked;
        self.cull_mismatch += o.cull_mismatch;
        self.closed_interval_mismatch += o.closed_interval_mismatch;
        self
    }
}

/// The f32 watertight kernel over every triangle; ties to the lowest index.
fn brute_f32(m: &TestMesh, ray: &Ray, q: &RayQuery) -> Option<(f32, usize, f32, f32, bool)> {
    let mut best: Option<(f32, usize, f32, f32, bool)> = None;
    for i in 0..m.triangles.len() {
        let [a, b, c] = m.tri(i);
        if let Some(h) = ray_triangle(ray, &Triangle::new(a, b, c), q.t_min, q.t_max, q.cull) {
            if best.is_none_or(|b| h.t < b.0) {
                best = Some((h.t, i, h.u, h.v, h.front_face));
            }
        }
    }
    best
}

/// The error of a hit distance against the oracle's, relative to the larger of the hit's
/// distance from the origin and the origin's distance from 0: f32 positions are only known to
/// within their own magnitude, so a ray starting far from 0 cannot place a near hit better.
fn t_error(ray: &Ray, t: f64, oracle: f64) -> f64 {
    let len = norm(d64(&ray.dir));
    let scale = (oracle.abs() * len).max(norm(v64(&ray.origin))).max(1e-6);
    (t - oracle).abs() * len / scale
}

fn check_ray(m: &TestMesh, mesh: &Mesh, ray: &Ray, q: &RayQuery, all: &mut Vec<Hit>) -> Stats {
    let mut s = Stats {
        rays: 1,
        ..Default::default()
    };
    let got = mesh.closest_hit(ray, q);
    s.hits += usize::from(got.is_some());
    // 1. Bit-exact against the same kernel by brute force.
    let want = brute_f32(m, ray, q);
    let same = match (got, want) {
        (None, None) => true,
        (Some(h), Some(w)) => {
            h.t.to_bits() == w.0.to_bits()
                && h.triangle as usize == w.1
                && h.u == w.2
                && h.v == w.3
                && h.front_face == w.4
        }
        _ => false,
    };
    if !same {
        s.exact_mismatch += 1;
        eprintln!(
            "  exact mismatch {}: {ray:?} got {got:?} want {want:?}",
            m.name
        );
    }
    if let Some(h) = got {
        // The hit is consistent with itself.
        let tri = m.tri(h.triangle as usize);
        let n = Triangle::new(tri[0], tri[1], tri[2]).normal().unwrap();
        assert!((h.normal.into_inner() - n.into_inner()).norm() < 1e-5);
        assert_eq!(h.front_face, n.dot(&ray.dir) < 0.0, "front_face vs normal");
        let p = ray.at(h.t);
        assert!((p - h.point).norm() <= 1e-4 * (1.0 + p.coords.norm()));
    }
    // 2. The float64 oracle.
    if q.cull == Cull::None {
        let o = oracle_closest(m, ray, q.t_min, q.t_max);
        match (got, o.hit) {
            (None, None) => {}
            (Some(h), Some((t, i))) => {
                let r = t_error(ray, f64::from(h.t), t);
                // The cosine between the ray and the hit triangle's normal.
                let tri = m.tri(h.triangle as usize);
                let n = Triangle::new(tri[0], tri[1], tri[2]).normal().unwrap();
                let cos = f64::from(n.dot(&ray.dir).abs() / ray.dir.norm());
                let grazing = cos < 1e-2;
                let allowed = if grazing { 1e-7 / cos } else { 1e-5 };
                if h.triangle as usize == i || r <= allowed {
                    s.grazing += usize::from(grazing);
                    if !grazing {
                        s.max_rel_t = s.max_rel_t.max(r);
                    }
                    if r > allowed {
                        s.t_err += 1;
                        eprintln!(
                            "  t off {}: {ray:?} got {h:?} oracle {t} (relative {r:e}, cosine {cos:e})",
                            m.name
                        );
                    }
                    if h.triangle as usize != i {
                        s.near_edge_diff += 1;
                    }
                } else if o.ambiguous_before <= t.max(f64::from(h.t)) * (1.0 + 1e-5) {
                    s.near_edge_diff += 1;
                } else {
                    s.oracle_mismatch += 1;
                    eprintln!(
                        "  oracle mismatch {}: {ray:?} got {h:?} oracle {t} tri {i}",
                        m.name
                    );
                }
            }
            (Some(h), None) => {
                if o.ambiguous_before <= f64::from(h.t) * (1.0 + 1e-5) + 1e-6 {
                    s.near_edge_diff += 1;
                } else {
                    s.oracle_mismatch += 1;
                    eprintln!(
                        "  oracle mismatch {}: {ray:?} got {h:?} oracle miss",
                        m.name
                    );
                }
            }
            (None, Some((t, i))) => {
                if o.ambiguous_before <= t * (1.0 + 1e-5) {
                    s.near_edge_diff += 1;
                } else {
                    s.oracle_mismatch += 1;
                    eprintln!(
                        "  oracle mismatch {}: {ray:?} got miss, oracle {t} tri {i}",
                        m.name
                    );
                }
            }
        }
    }
    // 3. any_hit agrees with closest_hit.
    if mesh.any_hit(ray, q) != got.is_some() {
        s.any_mismatch += 1;
    }
    // 4. all_hits: sorted, first = closest (up to the merge of one crossing), count = oracle.
    mesh.all_hits_into(ray, q, all);
    assert!(
        all.windows(2).all(|w| w[0].t <= w[1].t),
        "all_hits not sorted"
    );
    match (got, all.first()) {
        (None, None) => {}
        (Some(h), Some(f)) if rel(f64::from(h.t), f64::from(f.t)) <= 1e-5 => {}
        _ => s.all_first_mismatch += 1,
    }
    if q.cull == Cull::None {
        let (hits, ambiguous) = oracle_all(m, ray, q.t_min, q.t_max);
        if !ambiguous {
            s.all_count_checked += 1;
            if hits.len() != all.len() {
                s.all_count_mismatch += 1;
                eprintln!(
                    "  all_hits count {}: {ray:?} got {} oracle {}",
                    m.name,
                    all.len(),
                    hits.len()
                );
            }
        }
    }
    // 5. The interval is closed at the reported `t`: the same query bounded to exactly the
    // hit's `t` (above, or on both sides) finds that hit again, whatever the kernel's scaled
    // range test rounds to.
    if let Some(h) = got {
        for bounded in [
            RayQuery { t_max: h.t, ..*q },
            RayQuery {
                t_min: h.t,
                t_max: h.t,
                ..*q
            },
        ] {
            let again = mesh.closest_hit(ray, &bounded);
            mesh.all_hits_into(ray, &bounded, all);
            let listed = all.iter().any(|a| a.t == h.t);
            if again != Some(h) || !mesh.any_hit(ray, &bounded) || !listed {
                s.closed_interval_mismatch += 1;
                eprintln!(
                    "  closed interval {}: {ray:?} hit {h:?}, bounded to {bounded:?}: {again:?}, listed {listed}",
                    m.name
                );
            }
        }
    }
    // 6. Culling keeps only the matching faces.
    if q.cull != Cull::None {
        if let Some(h) = got {
            if h.front_face != (q.cull == Cull::Back) {
                s.cull_mismatch += 1;
            }
        }
    }
    s
}

fn run(m: &TestMesh, rays: &[Ray], label: &str) -> Stats {
    let mesh = m.mesh();
    let mut compact = mesh.clone();
    compact.set_node_layout(NodeLayout::Compact).unwrap();
    let q_default = RayQuery::default();
    let stats = rays
        .par_iter()
        .enumerate()
        .fold(
            || (Stats::default(), Vec::new()),
            |(s, mut all), (i, ray)| {
                // Vary the query: default, clipped interval, culling.
                let q = match i % 5 {
                    0 | 1 => q_default,
                    2 => RayQuery::new(0.1, 0.3 + (i % 7) as f32 * 0.2),
                    3 => q_default.with_cull(Cull::Back),
                    _ => q_default.with_cull(Cull::Front),
                };
                let r = check_ray(m, &mesh, ray, &q, &mut all);
                // The compact node layout answers exactly as the plain one.
                let hit = mesh.closest_hit(ray, &q);
                assert_eq!(compact.closest_hit(ray, &q), hit, "compact: {ray:?}");
                assert_eq!(compact.any_hit(ray, &q), mesh.any_hit(ray, &q), "compact");
                assert_eq!(compact.all_hits(ray, &q), mesh.all_hits(ray, &q), "compact");
                (s.add(r), all)
            },
        )
        .map(|(s, _)| s)
        .reduce(Stats::default, Stats::add);
    // Batches give exactly the single-ray answers.
    let mut batch = vec![None; rays.len()];
    mesh.closest_hit_batch(rays, &q_default, &mut batch)
        .unwrap();
    let mut any = vec![false; rays.len()];
    mesh.any_hit_batch(rays, &q_default, &mut any).unwrap();
    for (i, ray) in rays.iter().enumerate() {
        assert_eq!(batch[i], mesh.closest_hit(ray, &q_default));
        assert_eq!(any[i], mesh.any_hit(ray, &q_default));
    }
    eprintln!(
        "[mesh_rays] {:<22} {:<7} rays {:>8}  hits {:>8}  exact-mismatch {}  oracle-mismatch {}  \
         near-edge-diffs {}  t-off {}  max-rel-t {:.2e}  grazing {}  any-mismatch {}  all-first-mismatch {}  \
         all-count-mismatch {}/{}  cull-mismatch {}",
        m.name,
        label,
        stats.rays,
        stats.hits,
        stats.exact_mismatch,
        stats.oracle_mismatch,
        stats.near_edge_diff,
        stats.t_err,
        stats.max_rel_t,
        stats.grazing,
        stats.any_mismatch,
        stats.all_first_mismatch,
        stats.all_count_mismatch,
        stats.all_count_checked,
        stats.cull_mismatch
    );
    stats
}

fn check_mesh(m: &TestMesh, seed: u64) {
    let b = m.bounds();
    let n = scale(1200, 400_000);
    let mut total = Stats::default();
    total = total.add(run(m, &random_rays(&b, n, seed), "random"));
    total = total.add(run(m, &camera_rays(&b, n, seed + 1), "camera"));
    total = total.add(run(m, &inner_rays(&b, n / 4, seed + 2), "inner"));
    assert_eq!(
        total.exact_mismatch, 0,
        "{}: differs from the brute-force kernel",
        m.name
    );
    assert_eq!(
        total.oracle_mismatch, 0,
        "{}: differs from the f64 oracle",
        m.name
    );
    assert_eq!(total.t_err, 0, "{}: t off by more than allowed", m.name);
    assert_eq!(total.any_mismatch, 0);
    assert_eq!(total.all_first_mismatch, 0);
    assert_eq!(total.all_count_mismatch, 0, "{}: all_hits count", m.name);
    assert_eq!(total.cull_mismatch, 0);
    assert_eq!(
        total.closed_interval_mismatch, 0,
        "{}: a query bounded to a hit's t misses it",
        m.name
    );
    // Near-edge differences are allowed but must stay rare.
    assert!(total.near_edge_diff * 200 <= total.rays, "{total:?}");
    assert!(
        total.hits > total.rays / 10,
        "the rays should hit something: {total:?}"
    );
}

#[test]
fn oracle_soup() {
    check_mesh(&soup(scale(3000, 20_000), 0.05, 11), 100);
}

#[test]
fn oracle_grid() {
    check_mesh(&grid(40, 0.2), 200);
}

#[test]
fn oracle_displaced_sphere() {
    check_mesh(&uv_sphere(40, 60, 0.15), 300);
}

#[test]
fn oracle_bunny() {
    check_mesh(&bunny(), 400);
}

#[test]
fn oracle_icosphere_and_torus() {
    check_mesh(&icosphere(3), 500);
    check_mesh(&torus(40, 24, 1.0, 0.35), 600);
}

/// The families with long thin triangles that stress tree quality: a CAD-like cylinder, a
/// noisy heightfield and architectural walls.
#[test]
fn oracle_thin_triangles() {
    check_mesh(&cad_cylinder(96, 0.3, 2.0), 700);
    check_mesh(&noisy_grid(40, 4.0, 7), 800);
    check_mesh(&walls(48, 9), 900);
}

/// The tests above run on the fastest SIMD path, chosen once per process; this one reruns
/// them in child processes capped at SSE and at the scalar path (`RAYPICK_SIMD`), so the
/// Mesh's in-place triangle kernel and its scalar loop are each checked against brute force.
#[test]
fn oracle_on_every_simd_path() {
    rerun_on_every_simd_path("oracle_", "oracle_on_every_simd_path", 7);
}

/// The tests above build with the default preset; this one reruns them with `fast`,
/// `high_quality` and `morton` (`RAYPICK_TEST_PRESET`).
#[test]
fn oracle_on_every_preset() {
    rerun_on_every_preset("oracle_", "oracle_on_every_preset", 7);
}

/// Batches on a mesh large enough to run as streams (several rays in turns) give exactly the
/// single-ray answers, in both node layouts, for rays of every kind (invalid ones included)
/// and queries that bound, cull or start below zero, whether a chunk runs as a stream or,
/// its rays following each other closely, one ray at a time.
#[test]
fn streamed_batches_match_single_queries() {
    // 2 * 390^2 = 304,200 triangles: above the batches' stream threshold (300,000).
    let tm = grid(390, 0.3);
    let mut mesh = tm.mesh();
    assert!(mesh.len() >= 300_000);
    let b = tm.bounds();
    let mut rays = random_rays(&b, 1500, 91);
    rays.extend(camera_rays(&b, 1500, 92));
    rays.extend(inner_rays(&b, 500, 93));
    spoil_rays(&mut rays, 97, b.center() + Vector3::new(0.0, 0.0, 2.0));
    // A sweep of neighbouring rays, as a render's rows (batches run these one at a time
    // rather than as streams): a fan from above the grid, 0.001 radians apart.
    let eye = b.center() + Vector3::new(0.0, 0.0, b.extents().norm());
    rays.extend((0..2048).map(|i| {
        let a = (i as f32 - 1024.0) * 1e-3;
        Ray::new(eye, Vector3::new(a.sin(), 0.3 * a.cos(), -1.0))
    }));
    let queries = [
        RayQuery::default(),
        RayQuery::new(-0.5, 2.0),
        RayQuery::new(0.1, 1.5).with_cull(Cull::Back),
        RayQuery::default().with_cull(Cull::Front),
    ];
    for layout in [NodeLayout::Compact, NodeLayout::Plain] {
        mesh.set_node_layout(layout).unwrap();
        for q in &queries {
            let mut out = vec![None; rays.len()];
            mesh.closest_hit_batch(&rays, q, &mut out).unwrap();
            let mut any = vec![false; rays.len()];
            mesh.any_hit_batch(&rays, q, &mut any).unwrap();
            let mut hits = 0;
            for (i, r) in rays.iter().enumerate() {
                let one = mesh.closest_hit(r, q);
                assert_eq!(out[i], one, "{layout:?} {q:?} ray {i} {r:?}");
                assert_eq!(any[i], mesh.any_hit(r, q), "{layout:?} {q:?} ray {i} {r:?}");
                hits += usize::from(one.is_some());
            }
            assert!(
                hits > rays.len() / 10 && hits < rays.len(),
                "{layout:?} {q:?}: {hits} hits of {}",
                rays.len()
            );
        }
    }
}
