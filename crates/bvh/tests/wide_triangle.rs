//! `wide::TriangleBlock`: every lane's answer, on every SIMD path, is bit for bit the answer
//! of `WatertightRay::intersect` on that triangle (hit or miss, t, u, v, face).

use raypick_bvh::wide::{
    intersect_triangles, BlockHits, LaneMasks, SimdPath, TriangleBlock, TriangleBlock4,
    TriangleBlock8, TrianglesRay,
};
use raypick_primitives::{Cull, Point3, Ray, RayTriangleHit, Triangle, Vector3, WatertightRay};

struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn point(&mut self, s: f32) -> Point3<f32> {
        Point3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
    }
}

fn env_cases(default: usize) -> usize {
    if let Some(n) = std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return n.max(1);
    }
    if std::env::var("RAYPICK_LONG").is_ok_and(|v| v == "1") {
        return default * 20;
    }
    default
}

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
                0 => [prev, next, prev],                       // degenerate: repeated vertex
                1 => [prev, next, prev + (next - prev) * 0.5], // degenerate: collinear
                2 => [prev, next, Point3::new(f32::NAN, 0.0, 0.0)],
                3 => {
                    let c = rng.point(1.0);
                    let e = Vector3::new(1e-6, 0.0, 0.0);
                    [c, c + e, c + Vector3::new(0.0, 1e-6, 0.0)]
                }
                _ => [centre, prev, next],
            };
            prev = next;
            t
        })
        .collect()
}

/// A query interval and culling: behind the origin too, a finite window, an empty interval,
/// or the default `0..inf`.
fn query(rng: &mut Rng) -> (f32, f32, Cull) {
    let (t_min, t_max) = match rng.below(5) {
        0 => (-2.0, f32::INFINITY),
        1 => (rng.range(0.0, 1.0), rng.range(0.5, 2.0)),
        2 => (1.0, 0.0),
        _ => (0.0, f32::INFINITY),
    };
    (
        t_min,
        t_max,
        [Cull::None, Cull::Back, Cull::Front][rng.below(3)],
    )
}

/// Rays aimed at vertices, edge points (exact zero edge functions) and random points of the
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
            let (p, q) = (t[rng.below(3)], t[rng.below(3)]);
            p + (q - p) * rng.range(0.0, 1.0)
        }
        3 => {
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

fn bits(h: Option<RayTriangleHit>) -> Option<(u32, u32, u32, bool)> {
    h.map(|h| (h.t.to_bits(), h.u.to_bits(), h.v.to_bits(), h.front_face))
}

fn check<const N: usize>(rng: &mut Rng, tris: &[Tri], cases: usize) -> (usize, usize) {
    let mut hits = 0;
    let mut scalar_fallbacks = 0;
    for _ in 0..cases {
        let k = rng.below(N + 1);
        let start = rng.below(tris.len() - N);
        let chunk = &tris[start..start + k];
        let block = TriangleBlock::<N>::new(chunk).unwrap();
        assert_eq!(block.len(), k);
        let r = ray(rng, tris);
        let wr = WatertightRay::new(&r);
        let (t_min, t_max, cull) = query(rng);
        for path in SimdPath::available() {
            let got = block.intersect_with(path, &wr, t_min, t_max, cull);
            for (i, t) in chunk.iter().enumerate() {
                let want = wr.intersect(&t[0], &t[1], &t[2], t_min, t_max, cull);
                assert_eq!(
                    bits(got.hit(i)),
                    bits(want),
                    "{path:?} N={N} lane {i}: {t:?} {r:?} [{t_min}, {t_max}] {cull:?}"
                );
                hits += usize::from(want.is_some());
                if want.is_some_and(|h| h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0) {
                    scalar_fallbacks += 1;
                }
            }
            for i in chunk.len()..N {
                assert!(got.hit(i).is_none(), "unused lane {i} hit");
            }
            // closest(): the smallest t, lowest lane on ties.
            let want_closest = (0..chunk.len())
                .filter_map(|i| {
                    let t = &chunk[i];
                    wr.intersect(&t[0], &t[1], &t[2], t_min, t_max, cull)
                        .map(|h| (i, h))
                })
                .fold(None::<(usize, RayTriangleHit)>, |best, (i, h)| match best {
                    Some((_, b)) if b.t <= h.t => best,
                    _ => Some((i, h)),
                });
            assert_eq!(got.closest().map(|(i, _)| i), want_closest.map(|(i, _)| i));
        }
    }
    (hits, scalar_fallbacks)
}

#[test]
fn every_lane_matches_the_scalar_watertight_test() {
    let mut rng = Rng(21);
    let tris = triangles(&mut rng, 400);
    let cases = env_cases(4000);
    let (h4, z4) = check::<4>(&mut rng, &tris, cases);
    let (h8, z8) = check::<8>(&mut rng, &tris, cases);
    // The inputs must produce hits, and hits on edges and vertices.
    assert!(h4 > cases / 4 && h8 > cases / 4, "hits: {h4}, {h8}");
    assert!(z4 > 20 && z8 > 20, "edge/vertex hits: {z4}, {z8}");
}

#[test]
fn hand_computed_block() {
    let o = Point3::origin();
    let x = Point3::new(1.0, 0.0, 0.0);
    let y = Point3::new(0.0, 1.0, 0.0);
    let tris = [
        [o, x, y], // z = 0, counter-clockwise from +z
        [
            o + Vector3::z() * 2.0,
            y + Vector3::z() * 2.0,
            x + Vector3::z() * 2.0,
        ], // z = 2, facing -z
        [o, x, x], // degenerate
    ];
    let block = TriangleBlock4::new(&tris).unwrap();
    assert!(TriangleBlock4::new(&[tris[0]; 5]).is_none());
    assert_eq!(block.triangle(1), Some(tris[1]));
    assert_eq!(block.triangle(3), None);
    let down = WatertightRay::new(&Ray::new(
        Point3::new(0.25, 0.25, 4.0),
        Vector3::new(0.0, 0.0, -2.0),
    ));
    for path in SimdPath::available() {
        let h = block.intersect_with(path, &down, 0.0, f32::INFINITY, Cull::None);
        assert_eq!(h.mask, 0b011, "{path:?}");
        assert_eq!((h.t[0], h.u[0], h.v[0]), (2.0, 0.25, 0.25));
        assert_eq!(h.t[1], 1.0);
        assert!(h.hit(0).unwrap().front_face);
        assert!(!h.hit(1).unwrap().front_face);
        assert_eq!(h.closest().map(|(i, _)| i), Some(1));
        // t_max 1.5 leaves only the upper one; culling back faces drops it.
        let h = block.intersect_with(path, &down, 0.0, 1.5, Cull::Back);
        assert_eq!(h.mask, 0);
        // Through the shared-style vertex at the origin: still a hit (edge functions 0).
        let at_vertex = WatertightRay::new(&Ray::new(
            Point3::new(0.0, 0.0, 1.0),
            Vector3::new(0.0, 0.0, -1.0),
        ));
        let h = block.intersect_with(path, &at_vertex, 0.0, f32::INFINITY, Cull::None);
        assert_eq!(h.mask & 1, 1, "{path:?}: vertex hit lost");
        assert_eq!(h.t[0], 1.0);
    }
    let empty = TriangleBlock8::new(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(
        empty.intersect(&down, 0.0, f32::INFINITY, Cull::None).mask,
        0
    );
}

/// A 4 x 4 grid of integer-vertex triangles on the tilted plane z = x + 2y (vertices exact).
fn grid() -> Vec<Tri> {
    let mut tris: Vec<Tri> = Vec::new();
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

/// A triangle and a ray for which one f32 edge function rounds to exactly 0 but is negative
/// in f64: a miss. Seen down the -z axis (the shear swaps x and y), edge a-b passes 2^-24
/// beside the ray, and its f32 edge function rounds to 0 (a product tie rounds to even); the
/// other two are positive. Taking the f32 zero at face value would report a hit.
fn f64_decided_edge() -> (Tri, WatertightRay) {
    let e = |k: i32| 2f32.powi(k);
    let a = Point3::new(1.0 + e(-12), 1.0, 0.0);
    let b = Point3::new(-(1.0 + e(-11)), -(1.0 + e(-12)), 0.0);
    let c = Point3::new(1.0, -1.0, 0.0);
    let r = WatertightRay::new(&Ray::new(
        Point3::new(0.0, 0.0, 10.0),
        Vector3::new(0.0, 0.0, -1.0),
    ));
    ([a, b, c], r)
}

/// A grid of integer-vertex triangles hit by rays through half-integer points along simple
/// directions: edge functions come out exactly zero, so the scalar fallback lanes run.
fn check_grid<const N: usize>(cases: usize) -> usize {
    let tris = grid();
    let mut rng = Rng(5);
    let dirs = [
        Vector3::new(0.0, 0.0, -1.0),
        Vector3::new(0.0, -0.0, 1.0),
        Vector3::new(-0.0, 0.0, -4.0),
    ];
    let mut edge_hits = 0;
    for _ in 0..cases {
        let start = rng.below(tris.len() - N + 1);
        let chunk = &tris[start..start + N];
        let block = TriangleBlock::<N>::new(chunk).unwrap();
        let (x, y) = (rng.below(9) as f32 * 0.5, rng.below(9) as f32 * 0.5);
        let d = dirs[rng.below(dirs.len())];
        let r = Ray::new(Point3::new(x, y, 0.0) - d * 20.0, d);
        let wr = WatertightRay::new(&r);
        for path in SimdPath::available() {
            let got = block.intersect_with(path, &wr, 0.0, f32::INFINITY, Cull::None);
            for (i, t) in chunk.iter().enumerate() {
                let want = wr.intersect(&t[0], &t[1], &t[2], 0.0, f32::INFINITY, Cull::None);
                assert_eq!(
                    bits(got.hit(i)),
                    bits(want),
                    "{path:?} N={N} lane {i}: {t:?} {r:?}"
                );
                if want.is_some_and(|h| h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0) {
                    edge_hits += 1;
                }
            }
        }
    }
    edge_hits
}

#[test]
fn edge_and_vertex_hits_match_through_the_scalar_fallback() {
    let cases = env_cases(1500);
    let e4 = check_grid::<4>(cases);
    let e8 = check_grid::<8>(cases);
    assert!(e4 > cases / 10 && e8 > cases / 10, "edge hits: {e4}, {e8}");
}

#[test]
fn an_edge_function_rounding_to_zero_is_decided_in_f64() {
    let ([a, b, c], r) = f64_decided_edge();
    assert_eq!(
        r.intersect(&a, &b, &c, 0.0, f32::INFINITY, Cull::None),
        None
    );
    let block = TriangleBlock8::new(&[[c, c, c], [a, b, c], [a, b, c]]).unwrap();
    for path in SimdPath::available() {
        let h = block.intersect_with(path, &r, 0.0, f32::INFINITY, Cull::None);
        assert_eq!(h.mask, 0, "{path:?}");
    }
}

/// `intersect_triangles` on `chunk`, lane by lane against the scalar test, on every path.
/// Degenerate triangles are exempt (the function does not detect them; the scalar test
/// never hits them). Returns (hits, hits on an edge or a vertex).
fn check_in_place(
    chunk: &[Tri],
    wr: &WatertightRay,
    t_min: f32,
    t_max: f32,
    cull: Cull,
) -> (usize, usize) {
    let (mut hits, mut edge) = (0, 0);
    for path in SimdPath::available() {
        let got = intersect_triangles(path, chunk, wr, t_min, t_max, cull);
        for (i, t) in chunk.iter().enumerate().take(8) {
            let want = wr.intersect(&t[0], &t[1], &t[2], t_min, t_max, cull);
            if Triangle::new(t[0], t[1], t[2]).is_degenerate() {
                assert!(want.is_none());
                continue;
            }
            assert_eq!(
                bits(got.hit(i)),
                bits(want),
                "{path:?} len {} lane {i}: {t:?} {wr:?} [{t_min}, {t_max}] {cull:?}",
                chunk.len()
            );
            hits += usize::from(want.is_some());
            if want.is_some_and(|h| h.u == 0.0 || h.v == 0.0 || h.u + h.v == 1.0) {
                edge += 1;
            }
        }
        let used = (1u32 << chunk.len().min(8)) - 1;
        assert_eq!(got.mask & !used, 0, "{path:?}: a lane past the slice hit");
        assert_eq!(got.front & !got.mask, 0, "{path:?}: front set on a miss");
        for tail in [f32::NAN, 0.0, 1.0] {
            check_rows(path, chunk, wr, t_min, t_max, cull, tail);
        }
    }
    // `TrianglesRay::best` is `new` on `SimdPath::best()`, without the detection.
    let (fast, slow) = (
        TrianglesRay::best(wr),
        TrianglesRay::new(SimdPath::best(), wr),
    );
    assert_eq!(fast.path(), slow.path());
    let (mut a, mut b) = (BlockHits::default(), BlockHits::default());
    let (ma, mb) = (
        fast.test(chunk, t_min, t_max, cull, &mut a),
        slow.test(chunk, t_min, t_max, cull, &mut b),
    );
    assert_eq!(ma, mb, "best() vs new(best)");
    for i in (0..8).filter(|i| ma.hit >> i & 1 != 0) {
        assert_eq!((a.t[i], a.u[i], a.v[i]), (b.t[i], b.u[i], b.v[i]));
    }
    (hits, edge)
}

/// `chunk[..8]` as the rows `TrianglesRay::test_rows` reads (row `3 * corner + axis`, lane
/// `i` is triangle `i`), followed by 8 floats: `tail`, or with `tail == 1.0` the first
/// triangle's coordinates (a triangle that may hit, which the lanes past the group read and
/// must discard).
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

/// `TrianglesRay::test_rows` on `chunk` laid out in rows answers as `test` on the triangles
/// in place, lane for lane and bit for bit, whatever follows the group; with a slice shorter
/// than `8n + 8` floats, every lane is left undecided.
fn check_rows(
    path: SimdPath,
    chunk: &[Tri],
    wr: &WatertightRay,
    t0: f32,
    t1: f32,
    c: Cull,
    tail: f32,
) {
    let tr = TrianglesRay::new(path, wr);
    let n = chunk.len().min(8);
    let mut want_out = BlockHits::<8>::default();
    let want = tr.test(chunk, t0, t1, c, &mut want_out);
    let used = (1u32 << n) - 1;
    let rows = rows_of(chunk, tail);
    let mut out = BlockHits::<8>::default();
    let cut = (8 * n + 7).min(rows.len());
    let short = tr.test_rows(&rows[..cut], n, t0, t1, c, &mut out);
    if wr.valid && n > 0 {
        let all = LaneMasks {
            undecided: used,
            ..LaneMasks::default()
        };
        assert_eq!(short, all, "{path:?} short");
    }
    let got = tr.test_rows(&rows, n, t0, t1, c, &mut out);
    assert_eq!(got, want, "{path:?} {wr:?} n {n} tail {tail}");
    for i in 0..8 {
        if got.hit & (1 << i) != 0 {
            let lane = |o: &BlockHits<8>| (o.t[i].to_bits(), o.u[i].to_bits(), o.v[i].to_bits());
            assert_eq!(lane(&out), lane(&want_out), "{path:?} lane {i}");
        }
    }
}

#[test]
fn triangles_read_in_place_match_the_scalar_watertight_test() {
    let mut rng = Rng(77);
    let tris = triangles(&mut rng, 400);
    let cases = env_cases(6000);
    let (mut hits, mut edge) = (0, 0);
    for case in 0..cases {
        // Lengths 0..=9 (the 9th is ignored), some windows ending at the last triangle.
        let k = rng.below(10);
        let start = if case % 8 == 0 {
            tris.len() - k
        } else {
            rng.below(tris.len() - k + 1)
        };
        let chunk = &tris[start..start + k];
        let r = ray(&mut rng, &tris);
        let wr = WatertightRay::new(&r);
        let (t_min, t_max, cull) = query(&mut rng);
        let (h, e) = check_in_place(chunk, &wr, t_min, t_max, cull);
        hits += h;
        edge += e;
    }
    assert!(hits > cases / 4, "hits: {hits}");
    assert!(edge > 20, "edge/vertex hits: {edge}");
}

#[test]
fn triangles_read_in_place_on_edges_and_vertices() {
    let tris = grid();
    let mut rng = Rng(9);
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
        edge += check_in_place(
            &tris[start..start + k],
            &WatertightRay::new(&r),
            0.0,
            f32::INFINITY,
            Cull::None,
        )
        .1;
    }
    assert!(edge > cases / 10, "edge hits: {edge}");
    // The f32 edge function that rounds to 0 but is negative in f64: a miss in place too.
    let ([a, b, c], r) = f64_decided_edge();
    for path in SimdPath::available() {
        let h = intersect_triangles(path, &[[a, b, c]; 6], &r, 0.0, f32::INFINITY, Cull::None);
        assert_eq!(h.mask, 0, "{path:?}");
    }
}
