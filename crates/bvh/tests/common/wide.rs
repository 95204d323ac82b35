//! Shared helpers of the wide-tree traversal tests: box families, awkward rays, and the
//! leaf visits of a traversal on a given SIMD path, for both node layouts.

use std::ops::{ControlFlow, Range};

use raypick_bvh::wide::{LeafFn, RayLayout8, RayTraversal, WideBvh};
use raypick_bvh::{BoxRay, BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Aabb, Point3, Ray, Vector3};
use raypick_test_support::Rng;

/// A 4-wide tree: collapsed and validated like the 8-wide one (ray traversal is 8-wide).
pub type Bvh4 = WideBvh<4>;

/// The traversal `how` on `path`, nearest first or in slot order.
pub fn how(path: SimdPath, ordered: bool) -> RayTraversal {
    let h = if ordered {
        RayTraversal::nearest_first()
    } else {
        RayTraversal::unordered()
    };
    h.on(path)
}

pub fn presets() -> [(&'static str, BuildConfig); 4] {
    [
        ("fast", BuildConfig::fast()),
        ("balanced", BuildConfig::balanced()),
        ("high_quality", BuildConfig::high_quality()),
        ("morton", BuildConfig::morton()),
    ]
}

/// Box families: random, clustered, identical, flat (zero thickness in z), on a grid (many
/// shared face planes).
pub fn families(n: usize, seed: u64) -> Vec<(&'static str, Vec<Aabb>)> {
    let mut rng = Rng::new(seed);
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

pub fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=33).collect();
    v.extend([63, 64, 65, 100, 257, 1000]);
    v
}

pub fn binary_leaves(bvh: &Bvh) -> Vec<Range<usize>> {
    let mut v: Vec<Range<usize>> = bvh.nodes().iter().filter_map(|n| n.leaf_range()).collect();
    v.sort_by_key(|r| r.start);
    v
}

/// A ray with the awkward cases mixed in: axis-parallel, in the face planes of a box, with
/// ±0 components, and now and then NaN, infinite or zero.
pub fn ray(rng: &mut Rng, boxes: &[Aabb]) -> Ray {
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

pub fn bounds(rng: &mut Rng) -> (f32, f32) {
    match rng.below(8) {
        0 => (-3.0, f32::INFINITY),
        1 => (rng.range(0.0, 2.0), rng.range(2.0, 12.0)),
        2 => (f32::NEG_INFINITY, rng.range(-1.0, 3.0)),
        3 => (1.0, 0.5),
        _ => (0.0, f32::INFINITY),
    }
}

pub type Visit = (Range<usize>, u32);

pub fn visits<W: Traverse>(
    wide: &W,
    path: SimdPath,
    ray: &Ray,
    t_min: f32,
    t_max: f32,
) -> Vec<Visit> {
    visits_in(wide, path, ray, t_min, t_max, true)
}

pub fn visits_in<W: Traverse>(
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

pub type Leaf<'a> = &'a mut dyn FnMut(Range<usize>, &mut f32) -> ControlFlow<()>;

/// `traverse_ray_visit` on a path, nearest first or in slot order, for both layouts, so one
/// generic test drives them all.
pub trait Traverse {
    fn traverse(&self, path: SimdPath, ray: &Ray, t0: f32, t1: f32, ordered: bool, f: Leaf<'_>);
}

impl<L: RayLayout8> Traverse for WideBvh<8, L> {
    fn traverse(&self, path: SimdPath, ray: &Ray, t0: f32, t1: f32, ordered: bool, f: Leaf<'_>) {
        self.traverse_ray_visit(
            how(path, ordered),
            &BoxRay::new(ray),
            t0,
            t1,
            &mut LeafFn(f),
        );
    }
}
