//! Wide BVHs (`raypick_bvh::wide`): the collapsed trees validate and keep the binary leaves,
//! every SIMD path visits exactly what the scalar path visits, nothing the robust box test
//! accepts is missed, and closest/any-hit emulations agree with the binary tree.

use std::ops::{ControlFlow, Range};

use raypick_bvh::wide::{Bvh8, CompactBvh8, LeafFn, RayTraversal, RayVisitor, StreamRay, WideBvh};
use raypick_bvh::{BoxRay, BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Aabb, Point3, Ray, RayAabbPrecomp, Vector3};

/// A 4-wide tree: collapsed and validated like the 8-wide one (ray traversal is 8-wide).
type Bvh4 = WideBvh<4>;

/// The traversal `how` on `path`, nearest first or in slot order.
fn how(path: SimdPath, ordered: bool) -> RayTraversal {
    let h = if ordered {
        RayTraversal::nearest_first()
    } else {
        RayTraversal::unordered()
    };
    h.on(path)
}

/// SplitMix64: small, seeded, good enough for test inputs.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn f(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

fn env_cases(default: usize) -> usize {
    if let Ok(v) = std::env::var("RAYPICK_PROPTEST_CASES") {
        if let Ok(n) = v.parse::<usize>() {
            return n.max(1);
        }
    }
    if std::env::var("RAYPICK_LONG").is_ok_and(|v| v == "1") {
        return default * 20;
    }
    default
}

fn presets() -> [(&'static str, BuildConfig); 3] {
    [
        ("fast", BuildConfig::fast()),
        ("balanced", BuildConfig::balanced()),
        ("high_quality", BuildConfig::high_quality()),
    ]
}

/// Box families: random, clustered, identical, flat (zero thickness in z), on a grid (many
/// shared face planes).
fn families(n: usize, seed: u64) -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = Rng(seed);
    let mut random = Vec::with_capacity(n);
    let mut clustered = Vec::with_capacity(n);
    let mut flat = Vec::with_capacity(n);
    let mut grid = Vec::with_capacity(n);
    for i in 0..n {
        let c = Point3::new(
            rng.range(-5.0, 5.0),
            rng.range(-5.0, 5.0),
            rng.range(-5.0, 5.0),
        );
        let h = Vector3::new(
            rng.range(0.0, 0.6),
            rng.range(0.0, 0.6),
            rng.range(0.0, 0.6),
        );
        random.push(Aabb::new(c - h, c + h));
        let k = (i % 3) as f32 * 4.0;
        let c2 = Point3::new(k + rng.range(-0.2, 0.2), rng.range(-0.2, 0.2), k);
        clustered.push(Aabb::new(c2 - h * 0.1, c2 + h * 0.1));
        let mut lo = c - h;
        let mut hi = c + h;
        lo.z = 0.5;
        hi.z = 0.5;
        flat.push(Aabb::new(lo, hi));
        let g = Point3::new((i % 7) as f32, ((i / 7) % 7) as f32, (i / 49) as f32);
        grid.push(Aabb::new(g, g + Vector3::new(1.0, 1.0, 1.0)));
    }
    let identical = vec![Aabb::new(Point3::new(1.0, 2.0, 3.0), Point3::new(2.0, 2.0, 4.0)); n];
    vec![
        ("random", random),
        ("clustered", clustered),
        ("identical", identical),
        ("flat", flat),
        ("grid", grid),
    ]
}

fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=33).collect();
    v.extend([63, 64, 65, 100, 257, 1000]);
    v
}

fn binary_leaves(bvh: &Bvh) -> Vec<Range<usize>> {
    let mut v: Vec<Range<usize>> = bvh.nodes().iter().filter_map(|n| n.leaf_range()).collect();
    v.sort_by_key(|r| r.start);
    v
}

fn check_wide<const N: usize>(bvh: &Bvh, wide: &WideBvh<N>, what: &str) {
    let stats = wide.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(stats.prim_count, bvh.len(), "{what}");
    assert_eq!(wide.len(), bvh.len(), "{what}");
    let mut leaves = wide.leaf_ranges();
    leaves.sort_by_key(|r| r.start);
    assert_eq!(leaves, binary_leaves(bvh), "{what}: leaf ranges differ");
    assert_eq!(stats.leaf_count, leaves.len(), "{what}");
    assert!(
        wide.depth() <= bvh.depth().max(1),
        "{what}: wide deeper than binary"
    );
    if !bvh.is_empty() {
        assert!(stats.mean_children >= 1.0 && stats.mean_children <= N as f64);
        assert!(wide.nodes()[0].child_count() >= 1);
        // Collapsing fills nodes: only nodes whose candidates are all leaves stay short.
        assert_eq!(
            stats.memory_bytes,
            stats.node_count * std::mem::size_of_val(&wide.nodes()[0])
        );
    } else {
        assert!(wide.is_empty());
        assert_eq!(wide.memory_bytes(), 0);
    }
}

#[test]
fn wide_trees_validate_and_keep_the_binary_leaves() {
    for n in sizes() {
        for (fam, boxes) in families(n, 100 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let what = format!("{fam} n={n} {name}");
                check_wide(&bvh, &Bvh4::from_bvh(&bvh), &format!("{what} bvh4"));
                check_wide(&bvh, &Bvh8::from_bvh(&bvh), &format!("{what} bvh8"));
            }
        }
    }
}

#[test]
fn collapse_fills_nodes() {
    // A large random tree with small leaves: interior wide nodes should be nearly full.
    let boxes = families(4000, 9).remove(0).1;
    let mut cfg = BuildConfig::balanced();
    cfg.max_leaf_size = 2;
    cfg.intersection_cost = 1.0;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let s4 = Bvh4::from_bvh(&bvh).validate().unwrap();
    let s8 = Bvh8::from_bvh(&bvh).validate().unwrap();
    eprintln!("binary depth {}: bvh4 {s4:?}, bvh8 {s8:?}", bvh.depth());
    assert!(
        s4.mean_children > 3.0,
        "bvh4 mean children {}",
        s4.mean_children
    );
    assert!(
        s8.mean_children > 5.0,
        "bvh8 mean children {}",
        s8.mean_children
    );
    let binary_bytes = std::mem::size_of_val(bvh.nodes());
    assert!(s4.memory_bytes < binary_bytes && s8.memory_bytes < binary_bytes);
    assert!(s8.depth < s4.depth && s4.depth < bvh.depth());
}

/// A ray with the awkward cases mixed in: axis-parallel, in the face planes of a box, with
/// ±0 components, and now and then NaN, infinite or zero.
fn ray(rng: &mut Rng, boxes: &[Aabb]) -> Ray {
    let mut o = Point3::new(
        rng.range(-8.0, 8.0),
        rng.range(-8.0, 8.0),
        rng.range(-8.0, 8.0),
    );
    let mut d = Vector3::new(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    if !boxes.is_empty() && rng.below(3) == 0 {
        // Aim at a box, or lie in one of its face planes.
        let b = boxes[rng.below(boxes.len())];
        let target = Point3::new(
            rng.range(b.min.x, b.max.x),
            rng.range(b.min.y, b.max.y),
            rng.range(b.min.z, b.max.z),
        );
        d = target - o;
        if rng.below(2) == 0 {
            let a = rng.below(3);
            let plane = if rng.below(2) == 0 {
                b.min[a]
            } else {
                b.max[a]
            };
            o[a] = plane;
            d[a] = if rng.below(2) == 0 { 0.0 } else { -0.0 };
        }
    }
    for a in 0..3 {
        match rng.below(8) {
            0 => d[a] = 0.0,
            1 => d[a] = -0.0,
            _ => {}
        }
    }
    match rng.below(60) {
        0 => d[rng.below(3)] = f32::NAN,
        1 => o[rng.below(3)] = f32::NAN,
        2 => d[rng.below(3)] = f32::INFINITY,
        3 => d = Vector3::zeros(),
        _ => {}
    }
    Ray::new(o, d)
}

fn bounds(rng: &mut Rng) -> (f32, f32) {
    match rng.below(8) {
        0 => (-3.0, f32::INFINITY),
        1 => (rng.range(0.0, 2.0), rng.range(2.0, 12.0)),
        2 => (f32::NEG_INFINITY, rng.range(-1.0, 3.0)),
        3 => (1.0, 0.5),
        _ => (0.0, f32::INFINITY),
    }
}

type Visit = (Range<usize>, u32);

fn visits<W: Traverse>(wide: &W, path: SimdPath, ray: &Ray, t_min: f32, t_max: f32) -> Vec<Visit> {
    visits_in(wide, path, ray, t_min, t_max, true)
}

fn visits_in<W: Traverse>(
    wide: &W,
    path: SimdPath,
    ray: &Ray,
    t_min: f32,
    t_max: f32,
    ordered: bool,
) -> Vec<Visit> {
    let mut v = Vec::new();
    wide.traverse(path, ray, t_min, t_max, ordered, &mut |range, t| {
        v.push((range, t.to_bits()));
        ControlFlow::Continue(())
    });
    v
}

type Leaf<'a> = &'a mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>;

/// `traverse_ray_visit` on a path, nearest first or in slot order, for both layouts, so one
/// generic test drives them all.
trait Traverse {
    fn traverse(&self, path: SimdPath, ray: &Ray, t0: f32, t1: f32, ordered: bool, f: Leaf<'_>);
}

macro_rules! impl_traverse {
    ($($t:ty),*) => {$(
        impl Traverse for $t {
            fn traverse(
                &self,
                path: SimdPath,
                ray: &Ray,
                t0: f32,
                t1: f32,
                ordered: bool,
                f: Leaf<'_>,
            ) {
                self.traverse_ray_visit(how(path, ordered), &BoxRay::new(ray), t0, t1, &mut LeafFn(f));
            }
        }
    )*};
}
impl_traverse!(Bvh8, CompactBvh8);

fn check_candidates<W: Traverse>(
    bvh: &Bvh,
    wide: &W,
    boxes: &[Aabb],
    ray: &Ray,
    t_min: f32,
    t_max: f32,
    what: &str,
) -> usize {
    let reference = visits(wide, SimdPath::Scalar, ray, t_min, t_max);
    // Unordered: the same leaves (nothing lowers t_max here), in an order of its own that
    // every path shares.
    let unordered = visits_in(wide, SimdPath::Scalar, ray, t_min, t_max, false);
    let sorted = |v: &[Visit]| {
        let mut s: Vec<usize> = v.iter().map(|(r, _)| r.start).collect();
        s.sort_unstable();
        s
    };
    assert_eq!(
        sorted(&unordered),
        sorted(&reference),
        "{what}: unordered traversal visits other leaves for {ray:?} [{t_min}, {t_max}]"
    );
    for path in SimdPath::available() {
        assert_eq!(
            visits(wide, path, ray, t_min, t_max),
            reference,
            "{what}: {path:?} differs from scalar for {ray:?} [{t_min}, {t_max}]"
        );
        assert_eq!(
            visits_in(wide, path, ray, t_min, t_max, false),
            unordered,
            "{what}: unordered {path:?} differs from scalar for {ray:?} [{t_min}, {t_max}]"
        );
    }
    // No leaf twice, and every primitive the robust box test accepts is a candidate.
    let mut seen = vec![false; boxes.len()];
    for (r, _) in &reference {
        for pos in r.clone() {
            assert!(!seen[pos], "{what}: position {pos} visited twice");
            seen[pos] = true;
        }
    }
    let pre = RayAabbPrecomp::new(ray);
    let mut accepted = 0;
    for (pos, &prim) in bvh.prim_indices().iter().enumerate() {
        if pre
            .intersect_robust(&boxes[prim as usize], t_min, t_max)
            .is_some()
        {
            accepted += 1;
            assert!(
                seen[pos],
                "{what}: primitive {prim} accepted by the robust test but not visited, {ray:?} [{t_min}, {t_max}]"
            );
        }
    }
    if !ray.is_valid() || t_min.partial_cmp(&t_max).is_none_or(|o| o.is_gt()) {
        assert!(reference.is_empty(), "{what}: invalid query visited leaves");
    }
    accepted
}

#[test]
fn every_path_visits_what_scalar_visits_and_nothing_is_missed() {
    let rays_per_tree = env_cases(24);
    let mut rng = Rng(7);
    let mut accepted = 0;
    let mut total = 0;
    for n in sizes() {
        for (fam, boxes) in families(n, 500 + n as u64) {
            for (name, cfg) in presets() {
                let bvh = Bvh::build(&boxes, &cfg).unwrap();
                let w8 = Bvh8::from_bvh(&bvh);
                let c8 = CompactBvh8::from_wide(&w8).unwrap();
                c8.validate().unwrap();
                for _ in 0..rays_per_tree {
                    let r = ray(&mut rng, &boxes);
                    let (t0, t1) = bounds(&mut rng);
                    let what = format!("{fam} n={n} {name}");
                    accepted += check_candidates(&bvh, &w8, &boxes, &r, t0, t1, &what);
                    check_candidates(&bvh, &c8, &boxes, &r, t0, t1, &format!("{what} compact"));
                    // The compact boxes contain the plain ones: every leaf the plain tree
                    // visits, the compact one does too.
                    let starts =
                        |v: Vec<Visit>| -> Vec<usize> { v.iter().map(|(r, _)| r.start).collect() };
                    let compact = starts(visits(&c8, SimdPath::Scalar, &r, t0, t1));
                    for s in starts(visits(&w8, SimdPath::Scalar, &r, t0, t1)) {
                        assert!(compact.contains(&s), "{what}: compact misses leaf at {s}");
                    }
                    total += 1;
                }
            }
        }
    }
    // The generator must exercise hits, or the test proves little.
    assert!(
        accepted > total,
        "only {accepted} accepted boxes over {total} rays"
    );
}

/// Closest box entry (exact slab test, ties to the lowest index) over the candidates a
/// traversal reports, lowering `t_max` as a closest-hit query does.
fn closest<T>(boxes: &[Aabb], perm: &[u32], ray: &Ray, traverse: T) -> Option<(u32, f32)>
where
    T: FnOnce(&mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>),
{
    let pre = RayAabbPrecomp::new(ray);
    let mut best: Option<(u32, f32)> = None;
    traverse(&mut |range, t_max| {
        for pos in range {
            let prim = perm[pos];
            if let Some((t, _)) = pre.intersect(&boxes[prim as usize], 0.0, *t_max) {
                if best.is_none_or(|(bp, bt)| t < bt || (t == bt && prim < bp)) {
                    best = Some((prim, t));
                    *t_max = t;
                }
            }
        }
        ControlFlow::Continue(())
    });
    best
}

#[test]
fn closest_and_any_hit_match_the_binary_tree_and_brute_force() {
    let rays = env_cases(3000);
    let mut rng = Rng(11);
    let mut hits = 0;
    for (fam, boxes) in families(3000, 5) {
        let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
        let w8 = Bvh8::from_bvh(&bvh);
        let perm = bvh.prim_indices();
        for _ in 0..rays / 5 {
            let r = ray(&mut rng, &boxes);
            let pre = RayAabbPrecomp::new(&r);
            let mut brute: Option<(u32, f32)> = None;
            for (i, b) in boxes.iter().enumerate() {
                if let Some((t, _)) = pre.intersect(b, 0.0, f32::INFINITY) {
                    if brute.is_none_or(|(_, bt)| t < bt) {
                        brute = Some((i as u32, t));
                    }
                }
            }
            let binary = closest(&boxes, perm, &r, |f| {
                bvh.traverse_ray(&r, 0.0, f32::INFINITY, f)
            });
            assert_eq!(binary, brute, "{fam}: binary vs brute force for {r:?}");
            hits += usize::from(binary.is_some());
            for path in SimdPath::available() {
                let c8 = closest(&boxes, perm, &r, |f| {
                    w8.traverse(path, &r, 0.0, f32::INFINITY, true, f)
                });
                assert_eq!(c8, binary, "{fam}: bvh8 {path:?} vs binary for {r:?}");
                // Any hit: stop at the first accepted box.
                let mut any = false;
                w8.traverse(path, &r, 0.0, f32::INFINITY, true, &mut |range, _| {
                    for pos in range {
                        if pre
                            .intersect(&boxes[perm[pos] as usize], 0.0, f32::INFINITY)
                            .is_some()
                        {
                            any = true;
                            return ControlFlow::Break(());
                        }
                    }
                    ControlFlow::Continue(())
                });
                assert_eq!(any, brute.is_some(), "{fam}: any-hit {path:?} for {r:?}");
            }
        }
    }
    assert!(hits > rays / 10, "only {hits} hits in {rays} rays");
}

#[test]
fn hand_computed_rays() {
    // Ten unit boxes along x, 2 apart: [0,1], [2,3], ... .
    let boxes: Vec<Aabb> = (0..10)
        .map(|i| {
            let x = i as f32 * 2.0;
            Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0))
        })
        .collect();
    let mut cfg = BuildConfig::balanced();
    cfg.max_leaf_size = 1;
    cfg.min_leaf_size = 1;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let w = Bvh8::from_bvh(&bvh);
    let perm = bvh.prim_indices();
    for path in SimdPath::available() {
        let collect = |ray: &Ray, t0: f32, t1: f32| {
            let mut v = Vec::new();
            w.traverse(path, ray, t0, t1, true, &mut |range, _| {
                v.extend(range.map(|p| perm[p]));
                ControlFlow::Continue(())
            });
            v
        };
        // Along the row through the middle: every box, nearest first.
        let along = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::new(1.0, 0.0, 0.0));
        assert_eq!(
            collect(&along, 0.0, f32::INFINITY),
            (0..10).collect::<Vec<u32>>()
        );
        // Backwards from the far end: farthest index first.
        let back = Ray::new(Point3::new(30.0, 0.5, 0.5), Vector3::new(-1.0, -0.0, 0.0));
        assert_eq!(
            collect(&back, 0.0, f32::INFINITY),
            (0..10).rev().collect::<Vec<u32>>()
        );
        // t_max = 4.5 reaches x = 3.5: boxes 0 and 1 (entered at t = 1 and 3).
        assert_eq!(collect(&along, 0.0, 4.5), vec![0, 1]);
        // Lying exactly in the top face plane y = 1 (0 * inf = NaN is ignored): all hit.
        let in_plane = Ray::new(Point3::new(-1.0, 1.0, 0.5), Vector3::new(1.0, 0.0, -0.0));
        assert_eq!(collect(&in_plane, 0.0, f32::INFINITY).len(), 10);
        // Just above it: none.
        let above = Ray::new(Point3::new(-1.0, 1.0001, 0.5), Vector3::new(1.0, 0.0, 0.0));
        assert!(collect(&above, 0.0, f32::INFINITY).is_empty());
        // Straight down into box 3 only.
        let down = Ray::new(Point3::new(6.5, 5.0, 0.5), Vector3::new(0.0, -1.0, 0.0));
        assert_eq!(collect(&down, 0.0, f32::INFINITY), vec![3]);
        // Invalid queries visit nothing.
        let nan = Ray::new(
            Point3::new(-1.0, 0.5, 0.5),
            Vector3::new(1.0, f32::NAN, 0.0),
        );
        let zero = Ray::new(Point3::new(-1.0, 0.5, 0.5), Vector3::zeros());
        assert!(collect(&nan, 0.0, f32::INFINITY).is_empty());
        assert!(collect(&zero, 0.0, f32::INFINITY).is_empty());
        assert!(collect(&along, 2.0, 1.0).is_empty());
        assert!(collect(&along, f32::NAN, 1.0).is_empty());
        // Break stops at once.
        let mut calls = 0;
        w.traverse(path, &along, 0.0, f32::INFINITY, true, &mut |_, _| {
            calls += 1;
            ControlFlow::Break(())
        });
        assert_eq!(calls, 1);
    }
}

#[test]
fn simd_path_choice() {
    assert!(SimdPath::Scalar.is_available());
    assert_eq!(SimdPath::available().next(), Some(SimdPath::Scalar));
    let best = SimdPath::best();
    assert!(best.is_available());
    assert_eq!(SimdPath::best(), best, "the choice is cached");
    #[cfg(target_arch = "x86_64")]
    assert!(SimdPath::Sse.is_available());
}

#[test]
fn deep_chain_trees_use_the_large_stack_and_agree() {
    // Boxes growing geometrically along x: SAH peels one off per level, a deep chain.
    let boxes: Vec<Aabb> = (0..60)
        .map(|i| {
            let x = 2.5f32.powi(i);
            Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x * 1.2, 1.0, 1.0))
        })
        .collect();
    let mut cfg = BuildConfig::balanced();
    cfg.min_leaf_size = 1;
    cfg.max_leaf_size = 1;
    let bvh = Bvh::build(&boxes, &cfg).unwrap();
    let w4 = Bvh4::from_bvh(&bvh);
    let w8 = Bvh8::from_bvh(&bvh);
    check_wide(&bvh, &w4, "chain bvh4");
    check_wide(&bvh, &w8, "chain bvh8");
    // Deeper than the small-stack limit (16 levels), so the full-size stack runs too.
    assert!(
        w4.depth() > 16,
        "binary depth {}, bvh4 depth {}",
        bvh.depth(),
        w4.depth()
    );
    let mut rng = Rng(3);
    let far = 2.5f32.powi(61);
    for _ in 0..env_cases(300) {
        let mut r = ray(&mut rng, &boxes);
        if rng.below(2) == 0 {
            // Along the chain, so every level is entered.
            r = Ray::new(
                Point3::new(-1.0, rng.range(0.0, 1.0), rng.range(0.0, 1.0)),
                Vector3::new(far, rng.range(-0.5, 0.5), rng.range(-0.5, 0.5)) / far,
            );
        }
        let (t0, t1) = bounds(&mut rng);
        check_candidates(&bvh, &w8, &boxes, &r, t0, t1, "chain");
    }
}

#[test]
fn refit_keeps_the_tree_valid_and_complete() {
    let mut rng = Rng(17);
    for n in [0usize, 1, 5, 64, 700] {
        let boxes = families(n, 40 + n as u64).remove(0).1;
        let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
        let mut w4 = Bvh4::from_bvh(&bvh);
        let mut w8 = Bvh8::from_bvh(&bvh);
        // Move every box: shift and scale, so the old boxes no longer contain them.
        let moved: Vec<Aabb> = boxes
            .iter()
            .map(|b| {
                let d = Vector3::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0);
                Aabb::new(b.min + d, b.max + d + Vector3::new(0.3, 0.2, 0.1))
            })
            .collect();
        let perm = bvh.prim_indices();
        w4.refit(perm, &moved).unwrap();
        w8.refit(perm, &moved).unwrap();
        let mut moved_bvh = bvh.clone();
        moved_bvh.refit(&moved).unwrap();
        check_wide(&moved_bvh, &w4, "refit bvh4");
        check_wide(&moved_bvh, &w8, "refit bvh8");
        for _ in 0..env_cases(60) {
            let r = ray(&mut rng, &moved);
            let (t0, t1) = bounds(&mut rng);
            check_candidates(&moved_bvh, &w8, &moved, &r, t0, t1, "refit");
        }
        if n > 0 {
            // Bad input is refused and leaves the tree as it was.
            let before = w8.clone();
            let mut bad = moved.clone();
            bad[n / 2].min.y = f32::NAN;
            assert!(w8.refit(perm, &bad).is_err());
            assert!(w8.refit(perm, &moved[1..]).is_err());
            let mut bad_perm = perm.to_vec();
            bad_perm[0] = n as u32;
            assert!(w8.refit(&bad_perm, &moved).is_err());
            assert_eq!(w8, before);
        }
    }
}

/// A [`RayVisitor`] that records its leaf visits and announced (upcoming) leaves, and
/// the leaves whose data address the traversal asks for (answering with addresses that
/// must never be read: null, and one far past any allocation).
struct Recorder(
    Vec<(bool, Range<usize>)>,
    std::cell::RefCell<Vec<Range<usize>>>,
);

impl RayVisitor for Recorder {
    fn leaf(&mut self, range: Range<usize>, _: &mut f32) -> ControlFlow<()> {
        self.0.push((false, range));
        ControlFlow::Continue(())
    }

    fn upcoming(&mut self, range: Range<usize>) {
        self.0.push((true, range));
    }

    fn leaf_data(&self, range: Range<usize>) -> Option<*const u8> {
        let at = if range.start.is_multiple_of(2) {
            std::ptr::null()
        } else {
            usize::MAX.wrapping_sub(4096) as *const u8
        };
        self.1.borrow_mut().push(range);
        Some(at)
    }
}

/// `traverse_ray_visit` with a full visitor visits what it visits with a closure
/// ([`LeafFn`]), in the same order, and announces as `upcoming` only leaves it then visits
/// (nothing lowers `t_max` here), each before its visit, and never the leaf it descends into
/// at once.
#[test]
fn traverse_ray_visit_announces_only_leaves_it_visits_later() {
    let mut rng = Rng(29);
    let mut announced_total = 0;
    for n in [0usize, 1, 2, 9, 64, 700] {
        for (fam, boxes) in families(n, 900 + n as u64) {
            let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
            let w8 = Bvh8::from_bvh(&bvh);
            for _ in 0..40 {
                let r = ray(&mut rng, &boxes);
                let (t0, t1) = bounds(&mut rng);
                for path in SimdPath::available() {
                    for ordered in [true, false] {
                        let how = how(path, ordered);
                        let mut rec = Recorder(Vec::new(), Default::default());
                        w8.traverse_ray_visit(how, &BoxRay::new(&r), t0, t1, &mut rec);
                        let events = rec.0;
                        let visited: Vec<Range<usize>> = events
                            .iter()
                            .filter(|e| !e.0)
                            .map(|e| e.1.clone())
                            .collect();
                        let reference: Vec<Range<usize>> =
                            visits_in(&w8, path, &r, t0, t1, ordered)
                                .into_iter()
                                .map(|v| v.0)
                                .collect();
                        assert_eq!(visited, reference, "{fam} n={n} {how:?}");
                        // The data of exactly the announced leaves is asked for, in order
                        // (pushed nodes are asked too, as empty ranges, and ignored).
                        let announced: Vec<Range<usize>> =
                            events.iter().filter(|e| e.0).map(|e| e.1.clone()).collect();
                        let asked: Vec<Range<usize>> = rec
                            .1
                            .into_inner()
                            .into_iter()
                            .filter(|r| !r.is_empty())
                            .collect();
                        assert_eq!(asked, announced, "{fam} n={n} {how:?}");
                        for (k, (upcoming, range)) in events.iter().enumerate() {
                            if *upcoming {
                                announced_total += 1;
                                assert!(
                                    events[k + 1..].iter().any(|e| !e.0 && e.1 == *range),
                                    "{fam} n={n}: announced {range:?} never visited after"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(announced_total > 0, "no leaf was ever announced");
}

/// Records visits and lowers `t_max` at some leaves (by a rule on the range alone), so that
/// two traversals given the same events must also prune the same way.
struct Lowering(Vec<(bool, Range<usize>, u32)>);

impl RayVisitor for Lowering {
    fn leaf(&mut self, range: Range<usize>, t_max: &mut f32) -> ControlFlow<()> {
        self.0.push((false, range.clone(), t_max.to_bits()));
        if range.start.is_multiple_of(3) {
            *t_max = t_max.min(range.start as f32 * 0.25);
        }
        ControlFlow::Continue(())
    }

    fn upcoming(&mut self, range: Range<usize>) {
        self.0.push((true, range, 0));
    }

    /// Node visits are events too (marked by `u32::MAX`), so that every path and the
    /// stream must report the same nodes in the same order.
    fn node(&mut self, node: usize) {
        self.0.push((true, node..node, u32::MAX));
    }
}

/// Every path gives exactly the scalar path's events (visits, `t_max` at each visit,
/// announced leaves) with a visitor that lowers `t_max`, for both orders and both layouts,
/// and an invalid ray or invalid bounds visit nothing.
#[test]
fn every_path_prunes_as_the_scalar_path() {
    fn check(
        visit: impl Fn(RayTraversal, &BoxRay, f32, f32, &mut Lowering),
        r: &Ray,
        (t0, t1): (f32, f32),
        what: &str,
    ) -> usize {
        let mut seen = 0;
        let br = BoxRay::new(r);
        assert_eq!(br.is_valid(), r.is_valid(), "{what}");
        for ordered in [true, false] {
            let mut reference = Lowering(Vec::new());
            visit(how(SimdPath::Scalar, ordered), &br, t0, t1, &mut reference);
            for path in SimdPath::available() {
                let how = how(path, ordered);
                assert_eq!(how.path(), path, "{what}: an available path is kept");
                let mut got = Lowering(Vec::new());
                visit(how, &br, t0, t1, &mut got);
                assert_eq!(got.0, reference.0, "{what} {path:?} ordered={ordered}");
            }
            let ordered_bounds = t0 <= t1;
            if !r.is_valid() || !ordered_bounds {
                assert!(
                    reference.0.is_empty(),
                    "{what}: an invalid query visits nothing"
                );
            } else if let Some(first) = reference.0.first() {
                assert_eq!(first, &(true, 0..0, u32::MAX), "{what}: the root first");
            }
            seen += reference.0.len();
        }
        seen
    }
    let mut rng = Rng(31);
    let mut seen = 0;
    for n in [0usize, 1, 2, 9, 64, 700] {
        for (fam, boxes) in families(n, 1300 + n as u64) {
            let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
            let w8 = Bvh8::from_bvh(&bvh);
            let c8 = CompactBvh8::from_wide(&w8).unwrap();
            let mut rays: Vec<Ray> = (0..40).map(|_| ray(&mut rng, &boxes)).collect();
            let o = Point3::new(0.5, 0.5, -9.0);
            rays.push(Ray::new(Point3::new(f32::NAN, 0.0, 0.0), Vector3::z()));
            rays.push(Ray::new(o, Vector3::zeros()));
            rays.push(Ray::new(o, Vector3::new(0.0, f32::INFINITY, 1.0)));
            for r in &rays {
                let mut b = bounds(&mut rng);
                if rng.below(20) == 0 {
                    b = (f32::NAN, 1.0);
                }
                let what = format!("{fam} n={n} {r:?} {b:?}");
                seen += check(
                    |how, r, t0, t1, v| w8.traverse_ray_visit(how, r, t0, t1, v),
                    r,
                    b,
                    &format!("{what} plain"),
                );
                seen += check(
                    |how, r, t0, t1, v| c8.traverse_ray_visit(how, r, t0, t1, v),
                    r,
                    b,
                    &format!("{what} compact"),
                );
            }
        }
    }
    assert!(seen > 10_000, "too few events compared: {seen}");
}

/// A ray of a stream: its prepared form, its number, and its events as [`Lowering`]
/// records them, with a stop (`Break`) at some leaves by a rule on the range alone.
struct Streamed {
    ray: BoxRay,
    id: usize,
    stop: bool,
    log: Lowering,
}

impl RayVisitor for Streamed {
    fn leaf(&mut self, range: Range<usize>, t_max: &mut f32) -> ControlFlow<()> {
        let stop = self.stop && range.start % 5 == 2;
        self.log.leaf(range, t_max)?;
        if stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    fn upcoming(&mut self, range: Range<usize>) {
        self.log.upcoming(range);
    }
}

impl StreamRay for Streamed {
    fn ray(&self) -> &BoxRay {
        &self.ray
    }
}

/// `traverse_stream` gives every ray exactly the events of `traverse_ray_visit` (visits,
/// pruning, announced leaves, stops), whatever the number of rays in flight, for both node
/// layouts, every path and both orders; invalid rays and bounds visit nothing, and every
/// ray is handed back once.
#[test]
fn traverse_stream_matches_traverse_ray_visit() {
    fn check(
        stream: impl Fn(
            RayTraversal,
            f32,
            f32,
            &mut dyn FnMut() -> Option<Streamed>,
            &mut dyn FnMut(Streamed),
        ),
        single: impl Fn(RayTraversal, &BoxRay, f32, f32, &mut Streamed),
        rays: &[Ray],
        (t0, t1): (f32, f32),
        what: &str,
    ) -> usize {
        let mut seen = 0;
        for path in SimdPath::available() {
            for ordered in [true, false] {
                for stop in [false, true] {
                    let make = |id: usize| Streamed {
                        ray: BoxRay::new(&rays[id]),
                        id,
                        stop,
                        log: Lowering(Vec::new()),
                    };
                    let mut ids = 0..rays.len();
                    let mut got: Vec<Option<Lowering>> = (0..rays.len()).map(|_| None).collect();
                    stream(
                        how(path, ordered),
                        t0,
                        t1,
                        &mut || ids.next().map(make),
                        &mut |s: Streamed| {
                            assert!(
                                got[s.id].is_none(),
                                "{what}: ray {} handed back twice",
                                s.id
                            );
                            got[s.id] = Some(s.log);
                        },
                    );
                    for (id, log) in got.into_iter().enumerate() {
                        let log =
                            log.unwrap_or_else(|| panic!("{what}: ray {id} never handed back"));
                        let mut one = make(id);
                        single(how(path, ordered), &one.ray.clone(), t0, t1, &mut one);
                        assert_eq!(
                            log.0, one.log.0,
                            "{what} {path:?} ordered={ordered} stop={stop} ray {:?}",
                            rays[id]
                        );
                        let ordered_bounds = t0 <= t1;
                        if !rays[id].is_valid() || !ordered_bounds {
                            assert!(log.0.is_empty(), "{what}: an invalid query visits nothing");
                        }
                        seen += log.0.len();
                    }
                }
            }
        }
        seen
    }
    let mut rng = Rng(77);
    let mut seen = 0;
    for n in [0usize, 1, 2, 9, 64, 700] {
        for (fam, boxes) in families(n, 1700 + n as u64) {
            let bvh = Bvh::build(&boxes, &BuildConfig::balanced()).unwrap();
            let w8 = Bvh8::from_bvh(&bvh);
            let c8 = CompactBvh8::from_wide(&w8).unwrap();
            // 0 to 30 rays: fewer and more than the rays in flight.
            for count in [0usize, 1, 3, 8, 9, 30] {
                let mut rays: Vec<Ray> = (0..count).map(|_| ray(&mut rng, &boxes)).collect();
                if count > 5 {
                    rays[2] = Ray::new(Point3::new(0.5, 0.5, -9.0), Vector3::zeros());
                }
                let mut b = bounds(&mut rng);
                if rng.below(10) == 0 {
                    b = (f32::NAN, 1.0);
                }
                let what = format!("{fam} n={n} count={count} {b:?}");
                seen += check(
                    |h, t0, t1, next, done| w8.traverse_stream(h, t0, t1, next, done),
                    |h, r, t0, t1, v| w8.traverse_ray_visit(h, r, t0, t1, v),
                    &rays,
                    b,
                    &format!("{what} plain"),
                );
                seen += check(
                    |h, t0, t1, next, done| c8.traverse_stream(h, t0, t1, next, done),
                    |h, r, t0, t1, v| c8.traverse_ray_visit(h, r, t0, t1, v),
                    &rays,
                    b,
                    &format!("{what} compact"),
                );
            }
        }
    }
    assert!(seen > 10_000, "too few events compared: {seen}");
}
