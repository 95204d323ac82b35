//! Watertightness: closed meshes shot from outside at every vertex, every edge midpoint and
//! random points on edges, including rays that pass through them exactly (axis-aligned
//! rays through vertices; dyadic rays on a dyadic box). Every ray must hit at the target
//! (0 leaks) and `all_hits` must report an even number of crossings without duplicates:
//! exactly 2 (front then back) on convex meshes. `--nocapture` prints the figures;
//! `RAYPICK_LONG=1` shoots more random edge points.

mod mesh_util;

use std::collections::BTreeSet;

use mesh_util::*;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_query::mesh::NodeLayout;
use raypick_query::{Hit, Mesh, RayQuery};

#[derive(Default, Debug)]
struct Figures {
    /// Failures printed so far (capped so a regression does not flood the log).
    printed: usize,
    rays: usize,
    leaks: usize,
    wrong_t: usize,
    odd: usize,
    not_two: usize,
    duplicates: usize,
    exact_feature: usize,
}

struct Shooter<'a> {
    m: &'a TestMesh,
    mesh: Mesh,
    /// The same mesh with compact nodes: it must answer exactly as `mesh`.
    compact: Mesh,
    convex: bool,
    /// For a non-convex mesh: true when a point lies outside the solid.
    outside: Option<fn(&Point3<f32>) -> bool>,
    topo: Topology,
    fig: Figures,
    all: Vec<Hit>,
}

/// Prints a failing ray, at most 20 per mesh.
macro_rules! note {
    ($s:expr, $($arg:tt)*) => {
        if $s.fig.printed < 20 {
            $s.fig.printed += 1;
            eprintln!($($arg)*);
        }
    };
}

impl<'a> Shooter<'a> {
    fn new(m: &'a TestMesh, convex: bool, outside: Option<fn(&Point3<f32>) -> bool>) -> Self {
        let topo = Topology::new(m);
        Self {
            m,
            mesh: m.mesh(),
            compact: {
                let mut c = m.mesh();
                c.set_node_layout(NodeLayout::Compact).unwrap();
                c
            },
            convex,
            outside,
            topo,
            fig: Figures::default(),
            all: Vec::new(),
        }
    }

    /// Shoots `ray`, aimed at a surface point at parameter `t_target`.
    fn shoot(&mut self, ray: Ray, t_target: f64) {
        if self.outside.is_some_and(|out| !out(&ray.origin)) {
            return;
        }
        self.fig.rays += 1;
        let q = RayQuery::default();
        let hit = self.mesh.closest_hit(&ray, &q);
        // The compact node layout answers exactly as the plain one, grazing rays included.
        assert_eq!(self.compact.closest_hit(&ray, &q), hit, "compact: {ray:?}");
        assert_eq!(
            self.compact.any_hit(&ray, &q),
            hit.is_some(),
            "compact: {ray:?}"
        );
        assert_eq!(
            self.compact.all_hits(&ray, &q),
            self.mesh.all_hits(&ray, &q),
            "compact: {ray:?}"
        );
        let Some(h) = hit else {
            self.fig.leaks += 1;
            note!(self, "  LEAK {}: {ray:?}", self.m.name);
            return;
        };
        assert!(self.mesh.any_hit(&ray, &q));
        let t = f64::from(h.t);
        let ok_t = if self.convex {
            rel(t, t_target) <= 1e-4
        } else {
            t <= t_target * (1.0 + 1e-4)
        };
        if !ok_t {
            self.fig.wrong_t += 1;
            note!(
                self,
                "  wrong t {}: {ray:?} got {t} want {t_target}",
                self.m.name
            );
        }
        let on_vertex = (h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0) as usize;
        self.fig.exact_feature += on_vertex;
        self.mesh.all_hits_into(&ray, &q, &mut self.all);
        let all = &self.all;
        if !all.len().is_multiple_of(2) {
            self.fig.odd += 1;
            note!(self, "  odd {}: {ray:?} {all:?}", self.m.name);
        }
        if self.convex && (all.len() != 2 || !all[0].front_face || all[1].front_face) {
            self.fig.not_two += 1;
            note!(self, "  not 2 {}: {ray:?} {all:?}", self.m.name);
        }
        // A duplicate: two hits at the same point with the same facing.
        for w in all.windows(2) {
            if rel(f64::from(w[0].t), f64::from(w[1].t)) <= 1e-5
                && w[0].front_face == w[1].front_face
            {
                self.fig.duplicates += 1;
                note!(self, "  duplicate {}: {ray:?} {all:?}", self.m.name);
            }
        }
    }

    /// Rays from outside at `x`, whose incident faces are `faces`: along the mean normal
    /// with jitter, and along each axis and dyadic direction that enters (exact passes).
    fn aim(&mut self, x: Point3<f32>, faces: &[usize], rng: &mut Rng, jittered: usize) {
        let n: Vector3<f64> = faces
            .iter()
            .map(|&f| self.topo.normals[f])
            .sum::<Vector3<f64>>()
            .normalize();
        let mut shot = 0;
        let mut tries = 0;
        while shot < jittered && tries < 50 * jittered {
            tries += 1;
            let jit = Vector3::new(rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5) * 0.6;
            let off = (n + jit - n * n.dot(&jit)) * (0.5 + 3.0 * rng.f64());
            let o = Point3::new(
                x.x - (-off.x) as f32,
                x.y - (-off.y) as f32,
                x.z - (-off.z) as f32,
            );
            let d = x - o;
            if d.norm() == 0.0 || !self.topo.enters(d, faces) {
                continue;
            }
            shot += 1;
            self.shoot(Ray::new(o, d), 1.0);
        }
        // Exact passes: a direction with a power-of-two dominant component and small
        // integer others shears `x` to exactly the ray's axis when `o = x - s d` is exact.
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                for (a, b) in [(0.0, 0.0), (1.0, 0.0), (0.0, -1.0), (1.0, 2.0), (-3.0, 1.0)] {
                    let mut d = Vector3::new(0.0f32, 0.0, 0.0);
                    d[axis] = 4.0 * sign;
                    d[(axis + 1) % 3] = a;
                    d[(axis + 2) % 3] = b;
                    if !self.topo.enters(d, faces) {
                        continue;
                    }
                    let o = x - d * 0.5;
                    // Only count it when the origin is exact (then the pass is exact).
                    let t = if o + d * 0.5 == x {
                        0.5
                    } else {
                        f64::from((x - o).norm() / d.norm())
                    };
                    self.shoot(Ray::new(o, d), t);
                }
            }
        }
    }

    fn run(mut self, edge_points: usize, seed: u64) -> Figures {
        let mut rng = Rng::new(seed);
        let m = self.m;
        for v in 0..m.positions.len() {
            let faces = self.topo.vertex_faces[v].clone();
            self.aim(m.positions[v], &faces, &mut rng, 2);
        }
        let edges: BTreeSet<(u32, u32)> = self.topo.edge_faces.keys().copied().collect();
        for &(i, j) in &edges {
            let faces = self.topo.edge_faces[&(i, j)].clone();
            let (p, q) = (m.positions[i as usize], m.positions[j as usize]);
            let mid = Point3::from((p.coords + q.coords) * 0.5);
            self.aim(mid, &faces, &mut rng, 1);
        }
        let edges: Vec<(u32, u32)> = edges.into_iter().collect();
        for _ in 0..edge_points {
            let (i, j) = edges[rng.below(edges.len())];
            let faces = self.topo.edge_faces[&(i, j)].clone();
            let (p, q) = (m.positions[i as usize], m.positions[j as usize]);
            // Not within 1% of an end: there the ray, aimed with the edge's faces only, may
            // pass a silhouette vertex and miss by rounding without any crack (the vertex
            // targets above use the whole ring).
            let x = p + (q - p) * rng.range(0.01, 0.99);
            self.aim(x, &faces, &mut rng, 1);
        }
        let f = self.fig;
        eprintln!(
            "[mesh_watertight] {:<16} tris {:>6}  rays {:>8}  leaks {}  wrong-t {}  odd-counts {}  \
             not-2-on-convex {}  duplicates {}  exact-edge/vertex-hits {}",
            m.name,
            m.triangles.len(),
            f.rays,
            f.leaks,
            f.wrong_t,
            f.odd,
            f.not_two,
            f.duplicates,
            f.exact_feature
        );
        f
    }
}

fn check(f: &Figures) {
    assert_eq!(f.leaks, 0, "{f:?}");
    assert_eq!(f.wrong_t, 0, "{f:?}");
    assert_eq!(f.odd, 0, "{f:?}");
    assert_eq!(f.not_two, 0, "{f:?}");
    assert_eq!(f.duplicates, 0, "{f:?}");
    assert!(
        f.exact_feature > 0,
        "no ray passed exactly through an edge or vertex: {f:?}"
    );
}

#[test]
fn watertight_icospheres() {
    for level in 0..=4 {
        let m = icosphere(level);
        check(&Shooter::new(&m, true, None).run(scale(500, 200_000), 10 + level as u64));
    }
}

#[test]
fn watertight_subdivided_box() {
    let m = subdivided_box(16);
    check(&Shooter::new(&m, true, None).run(scale(2000, 500_000), 20));
}

#[test]
fn watertight_high_valence() {
    let m = bipyramid(512);
    check(&Shooter::new(&m, true, None).run(scale(2000, 500_000), 30));
    let m = uv_sphere(24, 96, 0.0);
    check(&Shooter::new(&m, true, None).run(scale(1000, 200_000), 31));
}

#[test]
fn watertight_torus_even_crossings() {
    let m = torus(48, 32, 1.0, 0.4);
    // Outside the tube with a margin over the facets' sag.
    fn outside(p: &Point3<f32>) -> bool {
        let r = (p.x * p.x + p.y * p.y).sqrt() - 1.0;
        r * r + p.z * p.z > 0.45 * 0.45
    }
    check(&Shooter::new(&m, false, Some(outside)).run(scale(2000, 500_000), 40));
}

#[test]
fn watertight_cad_cylinder() {
    // Long slivers on the side, fans of thin triangles on the caps.
    let m = cad_cylinder(128, 0.3, 3.0);
    check(&Shooter::new(&m, true, None).run(scale(2000, 500_000), 50));
}

/// The tests above run on the fastest SIMD path, chosen once per process; this one reruns
/// them in child processes capped at SSE and at the scalar path (`RAYPICK_SIMD`).
#[test]
fn watertight_on_every_simd_path() {
    rerun_on_every_simd_path("watertight_", "watertight_on_every_simd_path", 6);
}

/// The tests above build with the default preset; this one reruns them with `fast`,
/// `high_quality` and `morton` (`RAYPICK_TEST_PRESET`).
#[test]
fn watertight_on_every_preset() {
    rerun_on_every_preset("watertight_", "watertight_on_every_preset", 6);
}
