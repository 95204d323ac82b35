//! Bundles of coherent rays traversed as packets: the bundle goes down the tree together,
//! each node tested once for all of its rays (`WideBvh::traverse_packet`), and each leaf's
//! triangles tested for the rays whose own box test enters the leaf, with the same leaf sinks
//! as the single-ray queries, so the answers are the single-ray ones.

use std::ops::ControlFlow;

use raypick_bvh::wide::{BoxPacket, PacketVisitor, RayVisitor, PACKET_RAYS as PACKET};
use raypick_bvh::BoxRay;
use raypick_primitives::{Ray, Real};
use smallvec::SmallVec;

use super::{traversal, AnyHit, Closest, Hit, LeafSink, Leaves, RayQuery};
use crate::mesh::batch::check;
use crate::mesh::triangle_kernel::{LaneHits, TriangleRay};
use crate::mesh::{with_tree, Mesh, MeshError};
use crate::par;

/// The widest angle, in radians, between the first ray of a packet and another (0.1: about
/// 6 degrees, 4 pixels of a 35-pixel-wide view at 50 degrees), and the farthest an origin
/// may lie from the first one, as a share of the mesh's bounding diagonal: past these, the
/// rays are not a bundle and run one at a time without trying a packet (random pixels of a
/// view spread over tens of degrees).
const BUNDLE_ANGLE: Real = 0.1;
const BUNDLE_ORIGINS: Real = 0.05;

/// Nodes per ray after which a packet is abandoned, its rays finishing one at a time from
/// where they are (their best hits so far kept): a bundle spread too wide for the tree (16
/// random pixels of a view on a mesh of a million triangles) would otherwise visit most of
/// the tree's nodes in its frustum. Tiles of a frame take 0.25-1 per ray.
const ABANDON_AFTER: usize = 6;

/// Nodes per ray past which a packet wasted its work (see [`Members::wasteful`]).
const WASTE_NODES: usize = 3;

/// The packet's leaf visitor: the members' leaf visitors, lane by lane, each run on the
/// leaves its box test enters; keeps the members' bounds in the traversal's lanes.
struct Members<'a, S> {
    members: SmallVec<[Leaves<'a, S, TriangleRay>; PACKET]>,
    /// Nodes the packet tested.
    nodes: usize,
    /// Bit `j`: member `j`'s sink ended its query (any hit: a hit found).
    done: u32,
}

impl<S> Members<'_, S> {
    /// True when the packet tested more than [`WASTE_NODES`] nodes per ray: its rays were
    /// too far apart for the tree, and the union of their paths cost more than the paths
    /// one at a time. Measured on 4 x 4 tiles of a 960 x 540 frame: 0.25-1.0 nodes per ray,
    /// where packets gain 1.2-1.8x; 16 neighbours among 100,000 random pixels of the same
    /// view: 0.3 per ray on the bunny (a gain), 2.1-5.4 on the 1M meshes (a loss).
    fn wasteful(&self) -> bool {
        self.nodes > WASTE_NODES * self.members.len()
    }
}

impl<S: LeafSink> PacketVisitor for Members<'_, S> {
    /// Counts the nodes; abandons the packet past [`ABANDON_AFTER`] nodes per ray.
    #[inline(always)]
    fn node(&mut self, _: usize) -> ControlFlow<()> {
        self.nodes += 1;
        if self.nodes > ABANDON_AFTER * self.members.len() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    #[inline(always)]
    fn leaf(
        &mut self,
        range: std::ops::Range<usize>,
        members: u32,
        bound: &mut [Real; PACKET],
    ) -> ControlFlow<()> {
        let mut bits = members;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(m) = self.members.get_mut(j) {
                let mut t = bound[j];
                if m.leaf(range.clone(), &mut t).is_break() {
                    // The member's query is over (closest-hit sinks never break): no box
                    // test enters anything below -inf, so it takes no further part.
                    bound[j] = Real::NEG_INFINITY;
                    self.done |= 1 << j;
                    if self.done.count_ones() as usize == self.members.len() {
                        return ControlFlow::Break(());
                    }
                } else {
                    bound[j] = m.sink.bound();
                }
            }
        }
        ControlFlow::Continue(())
    }
}

impl Mesh {
    /// [`Mesh::closest_hit`] for every ray of a coherent batch, such as the pixels of a
    /// render in 4 x 4 tiles (16 consecutive rays per tile) or neighbouring beams of a
    /// sensor: `out[i]` gets ray `i`'s answer, exactly what the single-ray call returns.
    ///
    /// Each group of 16 consecutive rays goes down the tree as one packet: a node is tested
    /// once for the group (interval arithmetic over the rays' origins and inverse
    /// directions, conservative), and a leaf's triangles are tested for the rays whose own
    /// box test enters it. That pays when the group's rays run close together and stop at
    /// about the same depth (measured on tiles of a frame: 1.2-1.5x one ray at a time on the
    /// bunny, the displaced sphere, the CAD part and the architectural model); where they
    /// part (rays over a terrain's horizon), a packet that wasted its work makes the next
    /// groups run one ray at a time for a while. Groups whose directions differ in sign on
    /// an axis, or lie along a coordinate plane, run one ray at a time. Scattered rays gain
    /// nothing here: use [`Mesh::closest_hit_batch`].
    ///
    /// In parallel over chunks of rays; allocates nothing per ray. Errors with
    /// [`MeshError::BatchLengthMismatch`] (touching nothing) when `out` and `rays` differ in
    /// length.
    ///
    /// ```
    /// use raypick_query::{Mesh, RayQuery};
    /// use raypick_primitives::{Point3, Ray, Vector3};
    ///
    /// let mesh = Mesh::new(
    ///     vec![Point3::new(-1.0, -1.0, 0.0), Point3::new(1.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// // A 4 x 4 tile of rays from one eye.
    /// let eye = Point3::new(0.0, 0.0, 2.0);
    /// let rays: Vec<Ray> = (0..16)
    ///     .map(|i| Ray::new(eye, Vector3::new((i % 4) as f32 * 0.01, (i / 4) as f32 * 0.01, -1.0)))
    ///     .collect();
    /// let mut out = vec![None; rays.len()];
    /// mesh.closest_hit_coherent(&rays, &RayQuery::default(), &mut out).unwrap();
    /// for (ray, hit) in rays.iter().zip(&out) {
    ///     assert_eq!(*hit, mesh.closest_hit(ray, &RayQuery::default()));
    /// }
    /// ```
    pub fn closest_hit_coherent(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [Option<Hit>],
    ) -> Result<(), MeshError> {
        check(rays.len(), out.len())?;
        par::fill_groups(
            rays,
            out,
            PACKET,
            |ray| self.closest_hit(ray, query),
            |rays, out| self.closest_hit_packet(rays, query, |_| query.t_max, out),
        );
        Ok(())
    }

    /// [`Mesh::any_hit`] for every ray of a coherent batch, into `out`: exactly what the
    /// single-ray call returns, for occlusion tests of bundled rays (a render's shadow rays
    /// from the pixels of a tile towards a light, the visibility of a frame's pixels).
    ///
    /// Groups of 16 consecutive rays go down the tree as packets, as in
    /// [`Mesh::closest_hit_coherent`] (the same bundle check, and the same fall-back to one
    /// ray at a time where packets waste their work); a ray leaves its packet at its first
    /// hit, and the packet ends when all its rays have. In parallel over chunks of rays;
    /// allocates nothing per ray. Errors with [`MeshError::BatchLengthMismatch`] (touching
    /// nothing) when `out` and `rays` differ in length.
    ///
    /// ```
    /// use raypick_query::{Mesh, RayQuery};
    /// use raypick_primitives::{Point3, Ray, Vector3};
    ///
    /// let mesh = Mesh::new(
    ///     vec![Point3::new(-1.0, -1.0, 0.0), Point3::new(1.0, -1.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
    ///     vec![[0, 1, 2]],
    /// )
    /// .unwrap();
    /// // A 4 x 4 tile of rays from one eye; the last ones pass beside the triangle.
    /// let eye = Point3::new(0.0, 0.0, 2.0);
    /// let rays: Vec<Ray> = (0..16)
    ///     .map(|i| Ray::new(eye, Vector3::new((i % 4) as f32 * 0.2, (i / 4) as f32 * 0.2, -1.0)))
    ///     .collect();
    /// let mut out = vec![false; rays.len()];
    /// mesh.any_hit_coherent(&rays, &RayQuery::default(), &mut out).unwrap();
    /// for (ray, hit) in rays.iter().zip(&out) {
    ///     assert_eq!(*hit, mesh.any_hit(ray, &RayQuery::default()));
    /// }
    /// assert!(out[0] && !out[15]);
    /// ```
    pub fn any_hit_coherent(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        out: &mut [bool],
    ) -> Result<(), MeshError> {
        check(rays.len(), out.len())?;
        par::fill_groups(
            rays,
            out,
            PACKET,
            |ray| self.any_hit(ray, query),
            |rays, out| self.any_hit_packet(rays, query, out),
        );
        Ok(())
    }

    /// True when the rays `index` of `rays` (at least one) run close enough together to be
    /// tried as a packet: within [`BUNDLE_ANGLE`] of the first one's direction, from within
    /// [`BUNDLE_ORIGINS`] of the mesh's diagonal of its origin.
    fn bundled(&self, rays: &[Ray], index: &[usize]) -> bool {
        let Some(first) = index.first().map(|&i| &rays[i]) else {
            return false;
        };
        let cos_min = BUNDLE_ANGLE.cos();
        let reach = BUNDLE_ORIGINS * self.bounds().extents().norm();
        let u = first.dir / first.dir.norm();
        index[1..].iter().all(|&i| {
            let r = &rays[i];
            // `>=` and `<=` are false on NaN: such a bundle is not tried.
            u.dot(&r.dir) >= cos_min * r.dir.norm() && (r.origin - first.origin).norm() <= reach
        })
    }

    /// [`Mesh::closest_hit`] of every ray `i` of `rays` (at most [`PACKET`]) over
    /// `[query.t_min, t_max(i)]` into `out` (same length), traversed as one packet where
    /// they can be, else one at a time. True when the packet wasted its work
    /// ([`Members::wasteful`]).
    pub(crate) fn closest_hit_packet(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        t_max: impl Fn(usize) -> Real,
        out: &mut [Option<Hit>],
    ) -> bool {
        out.fill(None);
        self.packet(
            rays,
            query,
            t_max,
            true,
            |t_max, bound, k| Closest::new(t_max, bound, k.prune_pad(self)),
            |i, sink| out[i] = sink.best.map(|(h, slot)| self.make_hit(slot, &h)),
        )
    }

    /// [`Mesh::any_hit`] of every ray of `rays` (at most [`PACKET`]) into `out` (same
    /// length), as [`Mesh::closest_hit_packet`] runs them: a member that finds a hit leaves
    /// the packet, and the packet ends when every member has.
    pub(crate) fn any_hit_packet(&self, rays: &[Ray], query: &RayQuery, out: &mut [bool]) -> bool {
        out.fill(false);
        self.packet(
            rays,
            query,
            |_| query.t_max,
            false,
            |t_max, bound, _| AnyHit::new(t_max, bound),
            |i, sink| out[i] = sink.found,
        )
    }

    /// The packet traversal behind both: each valid ray `i` that can reach the mesh gets
    /// the sink `sink(t_max(i), bound, k)` (`bound` the traversal's widened `t_max`, `k` the
    /// prepared ray), the rays go down the tree as one packet where they are a bundle, the
    /// rays a packet leaves unfinished (abandoned, or no packet) run alone in the traversal
    /// order `ordered` from their sinks' bounds, and `finish(i, sink)` takes each answer.
    /// True when the packet wasted its work ([`Members::wasteful`]).
    fn packet<S: LeafSink>(
        &self,
        rays: &[Ray],
        query: &RayQuery,
        t_max: impl Fn(usize) -> Real,
        ordered: bool,
        sink: impl Fn(Real, Real, &TriangleRay) -> S,
        mut finish: impl FnMut(usize, &S),
    ) -> bool {
        // Built in place: a packet's members are about 5 KB, which a move would copy.
        let mut visitor = Members {
            members: SmallVec::new(),
            nodes: 0,
            done: 0,
        };
        let mut index: SmallVec<[usize; PACKET]> = SmallVec::new();
        let mut lo: SmallVec<[Real; PACKET]> = SmallVec::new();
        for (i, ray) in rays.iter().enumerate() {
            if self.reach.misses(ray, query.t_min) {
                continue;
            }
            let k = TriangleRay::new(ray);
            if !k.valid() {
                continue;
            }
            let t_max = t_max(i);
            let (l, h) = k.traversal_range(self, query.t_min, t_max);
            visitor.members.push(Leaves {
                mesh: self,
                k,
                t_min: query.t_min,
                cull: query.cull,
                lanes: LaneHits::default(),
                sink: sink(t_max, h, &k),
            });
            index.push(i);
            lo.push(l);
        }
        // One ray: its own traversal is the cheaper one.
        let packet = if visitor.members.len() > 1 && self.bundled(rays, &index) {
            BoxPacket::new(
                visitor
                    .members
                    .iter()
                    .zip(&lo)
                    .map(|(m, &l)| -> (&BoxRay, Real, Real) { (&m.k.boxes, l, m.sink.bound()) }),
            )
        } else {
            None
        };
        // Without a packet, every ray runs alone, as an abandoned packet's do.
        let alone = match packet {
            Some(p) => {
                with_tree!(&self.wide, t => t.traverse_packet(&p, &mut visitor));
                visitor.nodes > ABANDON_AFTER * visitor.members.len()
            }
            None => true,
        };
        let wasteful = visitor.wasteful();
        let done = visitor.done;
        for (j, ((m, &i), &l)) in visitor.members.iter_mut().zip(&index).zip(&lo).enumerate() {
            if alone && done >> j & 1 == 0 {
                // The ray resumes alone, bounded by its best hit so far: a leaf the packet
                // tested gives the same hits again, none of them better. A finished one (an
                // any hit found) has nothing left to do.
                let (boxes, hi) = (m.k.boxes, m.sink.bound());
                let how = traversal(&m.k, ordered);
                with_tree!(&self.wide, t => t.traverse_ray_visit(how, &boxes, l, hi, m));
            }
            finish(i, &m.sink);
        }
        wasteful
    }
}
