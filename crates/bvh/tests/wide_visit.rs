//! Wide-tree traversal with visitors: the leaves announced before their visit, pruning by a
//! lowered `t_max` on every SIMD path, and the interleaved stream against one ray at a time.

mod common;

use std::ops::{ControlFlow, Range};

use common::wide::{bounds, families, how, ray, visits_in};
use raypick_bvh::wide::{Bvh8, CompactBvh8, RayTraversal, RayVisitor, StreamRay};
use raypick_bvh::{BoxRay, BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_test_support::Rng;

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
    let mut rng = Rng::new(29);
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
    let mut rng = Rng::new(31);
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
    let mut rng = Rng::new(77);
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
