//! Packet traversal: each member ray is handed every leaf its own single-ray traversal
//! visits (the bundle's node test is conservative), only leaves its own box test enters, and
//! nothing past its lowered bound; bundles that cannot be traversed together are refused.

mod common;

use std::collections::BTreeSet;
use std::ops::{ControlFlow, Range};

use common::wide::{families, visits};
use raypick_bvh::wide::{
    BoxPacket, Bvh8, CompactBvh8, PacketVisitor, RayLayout8, WideBvh, PACKET_RAYS,
};
use raypick_bvh::{BoxRay, BuildConfig, Bvh};
use raypick_primitives::simd::SimdPath;
use raypick_primitives::{Point3, Ray, Vector3};
use raypick_test_support::{rerun_on_every_simd_path, scale, Rng};

/// Records, per member, the leaves it is handed.
struct Handed(Vec<BTreeSet<usize>>);

impl PacketVisitor for Handed {
    fn leaf(
        &mut self,
        range: Range<usize>,
        members: u32,
        _: &mut [f32; PACKET_RAYS],
    ) -> ControlFlow<()> {
        for (j, set) in self.0.iter_mut().enumerate() {
            if members >> j & 1 != 0 {
                assert!(
                    set.insert(range.start),
                    "leaf {range:?} handed twice to {j}"
                );
            }
        }
        assert_eq!(members >> self.0.len(), 0, "a lane past the members");
        ControlFlow::Continue(())
    }
}

/// A bundle of `n` rays around one direction from origins near one point: the directions
/// spread by `spread`, the origins by `jitter`.
fn bundle(rng: &mut Rng, n: usize, spread: f32, jitter: f32) -> Vec<Ray> {
    let o = Point3::new(
        rng.range(-9.0, 9.0),
        rng.range(-9.0, 9.0),
        rng.range(-9.0, 9.0),
    );
    let target = Point3::new(
        rng.range(-2.0, 2.0),
        rng.range(-2.0, 2.0),
        rng.range(-2.0, 2.0),
    );
    let d = target - o;
    (0..n)
        .map(|_| {
            let dj = Vector3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            let oj = Vector3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            Ray::new(o + oj * jitter, d + dj * (spread * d.norm()))
        })
        .collect()
}

fn intervals(rng: &mut Rng, n: usize) -> Vec<(f32, f32)> {
    (0..n)
        .map(|_| match rng.below(6) {
            0 => (rng.range(0.0, 0.5), rng.range(0.5, 1.5)),
            1 => (-2.0, f32::INFINITY),
            2 => (1.0, 0.5),
            _ => (0.0, f32::INFINITY),
        })
        .collect()
}

fn check_tree<L: RayLayout8>(wide: &WideBvh<8, L>, rng: &mut Rng, name: &str) -> (usize, usize) {
    let (mut packets, mut extra) = (0, 0);
    for _ in 0..scale(30, 300) {
        let n = 1 + rng.below(PACKET_RAYS);
        let spread = [1e-3, 3e-2, 0.3][rng.below(3)];
        let jitter = [0.0, 1e-2, 0.5][rng.below(3)];
        let rays = bundle(rng, n, spread, jitter);
        let iv = intervals(rng, n);
        let boxes: Vec<BoxRay> = rays.iter().map(BoxRay::new).collect();
        let Some(p) = BoxPacket::new(boxes.iter().zip(&iv).map(|(b, &(lo, hi))| (b, lo, hi)))
        else {
            // Only a sign disagreement or a zero component refuses a bundle of valid rays.
            let signs = |r: &Ray| [0, 1, 2].map(|a| r.dir[a].is_sign_negative());
            assert!(
                rays.iter()
                    .any(|r| signs(r) != signs(&rays[0]) || r.dir.iter().any(|&c| c == 0.0)),
                "{name}: a bundle of one sign refused"
            );
            continue;
        };
        packets += 1;
        assert_eq!(p.len(), n);
        let mut handed = Handed(vec![BTreeSet::new(); n]);
        wide.traverse_packet(&p, &mut handed);
        for (j, ray) in rays.iter().enumerate() {
            let single: BTreeSet<usize> = visits(wide, SimdPath::best(), ray, iv[j].0, iv[j].1)
                .into_iter()
                .map(|(r, _)| r.start)
                .collect();
            assert!(
                single.is_subset(&handed.0[j]),
                "{name}: member {j} missed leaves {:?}",
                single.difference(&handed.0[j]).collect::<Vec<_>>()
            );
            extra += handed.0[j].len() - single.len();
        }
    }
    (packets, extra)
}

/// Every member gets every leaf its single-ray traversal visits, on both layouts and every
/// box family; bundles of rays that disagree in sign are refused, and so are more than 16.
#[test]
fn packet_members_get_every_leaf_of_their_own_traversal() {
    let mut rng = Rng::new(41);
    let mut total = 0;
    for n in [1usize, 7, 64, 300, 2000] {
        for (name, boxes) in families(n, 17 + n as u64) {
            let bvh = Bvh::build(&boxes, &BuildConfig::default()).unwrap();
            let wide = Bvh8::from_bvh(&bvh);
            let compact = CompactBvh8::from_wide(&wide).unwrap();
            total += check_tree(&wide, &mut rng, name).0;
            total += check_tree(&compact, &mut rng, name).0;
        }
    }
    assert!(total > 500, "too few packets traversed: {total}");
    let r = BoxRay::new(&Ray::new(Point3::origin(), Vector3::new(1.0, 1.0, 1.0)));
    assert!(BoxPacket::new(std::iter::repeat_n((&r, 0.0, 1.0), PACKET_RAYS + 1)).is_none());
    assert!(BoxPacket::new(std::iter::empty()).is_none());
}

/// Records the bounds seen and lowers each member's bound to the leaf's start (a stand-in
/// for a hit there): no member is handed a leaf after its bound fell below the leaf's
/// entry, and the traversal stops on `Break`.
#[test]
fn packet_members_are_pruned_by_their_own_bounds() {
    struct Lower(usize, usize);
    impl PacketVisitor for Lower {
        fn leaf(
            &mut self,
            _: Range<usize>,
            members: u32,
            bound: &mut [f32; PACKET_RAYS],
        ) -> ControlFlow<()> {
            self.0 += 1;
            for (j, b) in bound.iter_mut().enumerate() {
                if members >> j & 1 != 0 {
                    // Nothing is handed to a member whose bound is below its interval.
                    assert!(*b >= 0.0, "member {j} handed a leaf with bound {b}");
                    *b = -1.0;
                }
            }
            if self.0 == self.1 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }
    let mut rng = Rng::new(5);
    let boxes = families(500, 3).remove(0).1;
    let wide = Bvh8::from_bvh(&Bvh::build(&boxes, &BuildConfig::default()).unwrap());
    let mut visited = 0;
    for _ in 0..50 {
        let rays = bundle(&mut rng, PACKET_RAYS, 1e-2, 0.0);
        let boxes: Vec<BoxRay> = rays.iter().map(BoxRay::new).collect();
        let Some(p) = BoxPacket::new(boxes.iter().map(|b| (b, 0.0, f32::INFINITY))) else {
            continue;
        };
        let mut v = Lower(0, 3);
        wide.traverse_packet(&p, &mut v);
        assert!(v.0 <= 3, "visited {} leaves after Break", v.0);
        visited += v.0;
    }
    assert!(visited > 20, "too few leaves: {visited}");
}

#[test]
fn packet_tests_on_every_simd_path() {
    rerun_on_every_simd_path("packet_members", "packet_tests_on_every_simd_path", 2);
}
