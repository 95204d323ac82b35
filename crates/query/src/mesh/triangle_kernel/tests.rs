//! The SIMD form of the triangle kernel against the scalar watertight test, on every path:
//! a lane reported hit is bit for bit `WatertightRay::intersect`'s hit, a lane neither hit
//! nor undecided is a miss of the scalar test, undecided lanes are what the scalar kernel
//! must decide (and it decides them as `intersect` does), and lanes past the group and the
//! floats after it never leak into the answer.

use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Cull, Point3, Ray, RayTriangleHit, Triangle, Vector3, WatertightRay};
use raypick_test_support::{env_cases, Rng};

use super::{LaneHits, LaneMasks, TriangleRay};

type Tri = [Point3<f32>; 3];

/// Triangles sharing vertices (a fan around a common centre and a strip), plus degenerate,
/// tiny and NaN ones now and then.
fn triangles(rng: &mut Rng, n: usize) -> Vec<Tri> {
    let centre = rng.point(1.0);
    let mut prev = rng.point(1.0);
    (0..n)
        .map(|_| {
            let next = rng.point(1.0);
            let t = match rng.below(12) {
                0 => [prev, next, prev],
                1 => [prev, next, prev + (next - prev) * 0.5],
                2 => [prev, next, Point3::new(f32::NAN, 0.0, 0.0)],
                3 => {
                    let c = rng.point(1.0);
                    [
                        c,
                        c + Vector3::new(1e-6, 0.0, 0.0),
                        c + Vector3::new(0.0, 1e-6, 0.0),
                    ]
                }
                _ => [centre, prev, next],
            };
            prev = next;
            t
        })
        .collect()
}

/// An interval and culling: behind the origin too, a window, an empty interval, or `0..inf`.
fn query(rng: &mut Rng) -> (f32, f32, Cull) {
    let (t_min, t_max) = match rng.below(5) {
        0 => (-2.0, f32::INFINITY),
        1 => (rng.range(0.0, 1.0), rng.range(0.5, 2.0)),
        2 => (1.0, 0.0),
        _ => (0.0, f32::INFINITY),
    };
    let cull = [Cull::None, Cull::Back, Cull::Front][rng.below(3)];
    (t_min, t_max, cull)
}

/// Rays aimed at vertices, edge points (exact zero edge functions) and inner points of the
/// triangles, or anywhere; with ±0 direction components and now and then a bad ray.
fn ray(rng: &mut Rng, tris: &[Tri]) -> Ray {
    let o = rng.point(3.0);
    let t = tris[rng.below(tris.len())];
    let target = match rng.below(5) {
        0 => t[rng.below(3)],
        1 => {
            let (p, q) = (t[rng.below(3)], t[rng.below(3)]);
            p + (q - p) * 0.5
        }
        2 => {
            let (u, v) = (rng.range(0.0, 0.5), rng.range(0.0, 0.5));
            t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v
        }
        _ => rng.point(1.0),
    };
    let mut d = target - o;
    for a in 0..3 {
        if rng.below(10) == 0 {
            d[a] = if rng.below(2) == 0 { 0.0 } else { -0.0 };
        }
    }
    match rng.below(50) {
        0 => d = Vector3::zeros(),
        1 => d.x = f32::NAN,
        2 => d.y = f32::INFINITY,
        _ => {}
    }
    Ray::new(o, d)
}

/// Triangles with integer vertices on a tilted plane: rays through half-integer points along
/// the axes meet edges and vertices exactly.
fn grid() -> Vec<Tri> {
    let mut tris = Vec::new();
    for i in 0..4 {
        for j in 0..4 {
            let (x, y) = (i as f32, j as f32);
            let p = |dx: f32, dy: f32| Point3::new(x + dx, y + dy, x + dx + 2.0 * (y + dy));
            tris.push([p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0)]);
            tris.push([p(0.0, 0.0), p(1.0, 1.0), p(0.0, 1.0)]);
        }
    }
    tris
}

fn bits(h: Option<RayTriangleHit>) -> Option<(u32, u32, u32, bool)> {
    h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits(), h.front_face))
}

/// `chunk[..8]` as rows (row `3 * corner + axis`, lane `i` is triangle `i`), followed by 8
/// floats: `tail`, or with `tail == 1.0` the first triangle's coordinates (a triangle that
/// may hit, which the lanes past the group read and must discard).
fn rows_of(chunk: &[Tri], tail: f32) -> Vec<f32> {
    let n = chunk.len().min(8);
    let mut rows = vec![0.0; 9 * n];
    for (j, t) in chunk[..n].iter().enumerate() {
        for c in 0..3 {
            for a in 0..3 {
                rows[(3 * c + a) * n + j] = t[c][a];
            }
        }
    }
    for i in 0..8 {
        rows.push(if tail == 1.0 && n > 0 {
            chunk[0][i / 3 % 3][i % 3]
        } else {
            tail
        });
    }
    rows
}

/// Checks one group on every path; returns (scalar hits, hits on an edge or a vertex).
fn check(chunk: &[Tri], r: &Ray, t_min: f32, t_max: f32, cull: Cull) -> (usize, usize) {
    let wr = WatertightRay::new(r);
    let n = chunk.len().min(8);
    let used = (1u32 << n) - 1;
    let (mut hits, mut edge) = (0, 0);
    for path in SimdPath::available() {
        let tr = TriangleRay::on(path, r);
        assert_eq!(tr.is_scalar(), path == SimdPath::Scalar || !wr.valid);
        for tail in [f32::NAN, 0.0, 1.0] {
            let rows = rows_of(chunk, tail);
            let mut out = LaneHits::default();
            // A slice too short for the 8-lane loads leaves every lane undecided.
            let cut = (8 * n + 7).min(rows.len());
            let short = tr.test_rows(&rows[..cut], n, t_min, t_max, cull, &mut out);
            if wr.valid && n > 0 {
                let all = LaneMasks {
                    undecided: used,
                    ..LaneMasks::default()
                };
                assert_eq!(short, all, "{path:?} short rows");
            }
            let m = tr.test_rows(&rows, n, t_min, t_max, cull, &mut out);
            assert_eq!(m.hit & !used, 0, "{path:?}: a lane past the group hit");
            assert_eq!(m.undecided & !used, 0, "{path:?}: a lane past the group");
            assert_eq!(m.hit & m.undecided, 0, "{path:?}: hit and undecided");
            assert_eq!(m.front & !m.hit, 0, "{path:?}: front set on a miss");
            if !wr.valid {
                assert_eq!(m, LaneMasks::default(), "{path:?}: an invalid ray");
            }
            for (i, t) in chunk[..n].iter().enumerate() {
                let want = wr.intersect(&t[0], &t[1], &t[2], t_min, t_max, cull);
                let degenerate = Triangle::new(t[0], t[1], t[2]).is_degenerate();
                let what = format!(
                    "{path:?} n {n} lane {i} tail {tail}: {t:?} {r:?} [{t_min}, {t_max}] {cull:?}"
                );
                if degenerate {
                    // Not detected by the kernel (the mesh keeps a flag); the scalar test
                    // never hits them.
                    assert!(want.is_none(), "{what}");
                    continue;
                }
                if m.undecided >> i & 1 != 0 {
                    // The scalar kernel decides the lane exactly as the watertight test.
                    let got = tr.intersect(t, t_min, t_max, cull).map(|h| RayTriangleHit {
                        t: h.t,
                        u: h.u,
                        v: h.v,
                        front_face: h.front_face,
                    });
                    assert_eq!(bits(got), bits(want), "{what}: undecided lane");
                } else if m.hit >> i & 1 != 0 {
                    let got = RayTriangleHit {
                        t: out.t[i],
                        u: out.u[i],
                        v: out.v[i],
                        front_face: m.front >> i & 1 != 0,
                    };
                    assert_eq!(bits(Some(got)), bits(want), "{what}");
                } else {
                    assert_eq!(bits(want), None, "{what}: missed");
                }
                if path == SimdPath::Scalar {
                    hits += usize::from(want.is_some());
                    if want.is_some_and(|h| h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0) {
                        edge += 1;
                    }
                }
            }
        }
    }
    (hits, edge)
}

#[test]
fn rows_match_the_scalar_watertight_test_on_every_path() {
    let mut rng = Rng::new(77);
    let tris = triangles(&mut rng, 400);
    let cases = env_cases(4000);
    let (mut hits, mut edge) = (0, 0);
    for case in 0..cases {
        // Groups of 0..=8, some ending at the last triangle.
        let k = rng.below(9);
        let start = if case % 8 == 0 {
            tris.len() - k
        } else {
            rng.below(tris.len() - k + 1)
        };
        let r = ray(&mut rng, &tris);
        let (t_min, t_max, cull) = query(&mut rng);
        let (h, e) = check(&tris[start..start + k], &r, t_min, t_max, cull);
        hits += h;
        edge += e;
    }
    assert!(hits > cases / 8, "hits: {hits}");
    assert!(edge > 10, "edge/vertex hits: {edge}");
}

#[test]
fn rows_on_edges_and_vertices() {
    let tris = grid();
    let mut rng = Rng::new(9);
    let dirs = [
        Vector3::new(0.0, 0.0, -1.0),
        Vector3::new(0.0, -0.0, 1.0),
        Vector3::new(-0.0, 0.0, -4.0),
        Vector3::new(1.0, 0.0, 0.0),
    ];
    let cases = env_cases(1500);
    let mut edge = 0;
    for _ in 0..cases {
        let k = 1 + rng.below(8);
        let start = rng.below(tris.len() - k + 1);
        let (x, y) = (rng.below(9) as f32 * 0.5, rng.below(9) as f32 * 0.5);
        let d = dirs[rng.below(dirs.len())];
        let r = Ray::new(Point3::new(x, y, x + 2.0 * y) - d * 20.0, d);
        edge += check(&tris[start..start + k], &r, 0.0, f32::INFINITY, Cull::None).1;
    }
    assert!(edge > cases / 10, "edge hits: {edge}");
}

#[test]
fn an_edge_function_rounding_to_zero_is_decided_in_f64() {
    // Down the -z axis, edge a-b passes 2^-24 beside the ray and its f32 edge function
    // rounds to 0; in f64 it is negative: a miss, which the kernel must not report.
    let e = |k: i32| 2f32.powi(k);
    let a = Point3::new(1.0 + e(-12), 1.0, 0.0);
    let b = Point3::new(-(1.0 + e(-11)), -(1.0 + e(-12)), 0.0);
    let c = Point3::new(1.0, -1.0, 0.0);
    let r = Ray::new(Point3::new(0.0, 0.0, 10.0), Vector3::new(0.0, 0.0, -1.0));
    let wr = WatertightRay::new(&r);
    assert!(wr
        .intersect(&a, &b, &c, 0.0, f32::INFINITY, Cull::None)
        .is_none());
    check(&[[a, b, c]; 6], &r, 0.0, f32::INFINITY, Cull::None);
}

/// `check(case, rows, first, rng, paths)` on `env_cases(2000)` groups of 8 consecutive
/// triangles stored as rows (the leaf layout), `first` being the group's first triangle,
/// with every available SIMD path.
#[cfg(target_arch = "x86_64")]
fn for_each_row_group(
    seed: u64,
    mut check: impl FnMut(
        usize,
        &[[f32; 8]; 9],
        &Tri,
        &mut Rng,
        &[Option<raypick_primitives::simd::CpuPath>],
    ),
) {
    use raypick_primitives::simd::CpuPath;
    let mut rng = Rng::new(seed);
    let tris = triangles(&mut rng, 400);
    let paths: Vec<Option<CpuPath>> = SimdPath::available().map(CpuPath::new).collect();
    for case in 0..env_cases(2000) {
        let start = rng.below(tris.len() - 8);
        let rows: [[f32; 8]; 9] =
            std::array::from_fn(|r| std::array::from_fn(|l| tris[start + l][r / 3][r % 3]));
        check(case, &rows, &tris[start], &mut rng, &paths);
    }
}

/// The 8-lane solid angles of the winding number give the same bits and the same doubtful
/// lanes on every path (the AVX2 pass and the plain one), from points near and far, some at
/// a corner.
#[cfg(target_arch = "x86_64")]
#[test]
fn solid_angles_match_on_every_path() {
    for_each_row_group(37, |case, rows, first, rng, paths| {
        let p = if case % 5 == 0 {
            first[0]
        } else {
            rng.point(if case % 2 == 0 { 1.0 } else { 50.0 })
        };
        let want = crate::mesh::solid::solid_angles8([p.x, p.y, p.z], rows);
        for &path in paths {
            let got = super::super::triangle_kernel_x86::solid_angles8(path, [p.x, p.y, p.z], rows);
            assert_eq!(
                (got.0.map(f32::to_bits), got.1),
                (want.0.map(f32::to_bits), want.1),
                "{path:?} at {p:?}"
            );
        }
    });
}

/// The 8-lane point-triangle lower bound gives the same bits on every path (the AVX2 pass
/// and the plain one), on the same triangles and points near and far.
#[cfg(target_arch = "x86_64")]
#[test]
fn lower_bounds_match_on_every_path() {
    for_each_row_group(31, |case, rows, _, rng, paths| {
        let p = rng.point(if case % 2 == 0 { 1.0 } else { 50.0 });
        let want = raypick_primitives::point_triangle_lower_bounds([p.x, p.y, p.z], rows, 60.0);
        for &path in paths {
            let got =
                super::super::triangle_kernel_x86::lower_bounds8(path, [p.x, p.y, p.z], rows, 60.0);
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "{path:?} at {p:?}"
            );
        }
    });
}
