//! The SIMD node tests (x86_64 only): the robust slab test of every child box of a node at
//! once, SSE for 4 slots (twice for 8), AVX2 for 8, for plain and compact nodes, and the
//! AVX2 ranks of the entered children.
//!
//! Each kernel performs exactly the scalar kernel's operations (`traverse::Scalar`), lane by
//! lane and in the same order, so results are bit-identical: `max_ps(x, acc)` is
//! `if x > acc { x } else { acc }` (a NaN `x`, from a ray lying in a face plane, loses, as in
//! the scalar code), `min_ps` likewise, and `cmple` (ordered) is false on NaN.

use std::arch::x86_64::*;

use raypick_primitives::simd::CpuPath;

use super::layout::sealed::Internal;
use super::packet::{packet_with_kernel, BoxPacket, PacketKernel, PacketVisitor, PACKET_RAYS};
use super::traverse::Kernel;
use super::{CompactNode8, WideNode};
use crate::BoxRay;

/// The slab test of one ray against the child boxes of a node, lane-wise, written once for
/// the four kernels below: `$planes` gives axis `$a`'s near and far plane vectors (loaded
/// from f32 rows, or dequantized from bytes), the rest is the same per width. Evaluates to
/// the `(near, far)` entry and exit vectors; a lane is entered when `near <= far`.
macro_rules! slab_axes {
    ($r:ident, $t_min:ident, $t_max:ident, $pad_neg:ident,
     [$set1:ident, $sub:ident, $mul:ident, $max:ident, $min:ident],
     |$a:ident| $planes:expr) => {{
        let mut near = $set1($t_min);
        let mut far = $set1($t_max);
        for $a in 0..3 {
            let o = $set1($r.o[$a]);
            let inv = $set1($r.inv[$a]);
            let (np, fp) = $planes;
            let tn = $mul($sub(np, o), inv);
            // The exit padding is folded into the inverse (see `BoxRay::inv_up`).
            let d = $sub(fp, o);
            let up = $mul(d, $set1($r.inv_up[$a]));
            let tf = if $pad_neg {
                $max(up, $mul(d, $set1($r.inv_down[$a])))
            } else {
                up
            };
            near = $max(tn, near);
            far = $min(tf, far);
        }
        (near, far)
    }};
}

/// Four slots `off .. off + 4` of `node` with SSE (baseline on x86_64); writes their entry
/// distances to `dist[off..off + 4]` and returns their hit mask (bits 0..4).
#[target_feature(enable = "sse")]
#[inline]
fn sse_lanes<const N: usize, const PAD_NEG: bool>(
    node: &WideNode<N>,
    off: usize,
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
    dist: &mut [f32; N],
) -> u32 {
    let b = &node.bounds;
    let (near, far) = slab_axes!(
        r,
        t_min,
        t_max,
        PAD_NEG,
        [_mm_set1_ps, _mm_sub_ps, _mm_mul_ps, _mm_max_ps, _mm_min_ps],
        |a| {
            let np = &b[r.near_row(a)][off..off + 4];
            let fp = &b[r.far_row(a)][off..off + 4];
            // SAFETY: both slices hold 4 f32s; `loadu` has no alignment requirement.
            unsafe { (_mm_loadu_ps(np.as_ptr()), _mm_loadu_ps(fp.as_ptr())) }
        }
    );
    let out = &mut dist[off..off + 4];
    // SAFETY: `out` holds 4 f32s; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), near) };
    _mm_movemask_ps(_mm_cmple_ps(near, far)) as u32
}

/// Four slots `off .. off + 4` of a compact node with SSE2: each plane is dequantized as
/// the scalar `origin + q * step` (bytes widened to i32 and converted: exact; the product is
/// exact, so multiply-then-add rounds once, as the scalar code), then tested as
/// [`sse_lanes`] does.
#[target_feature(enable = "sse2")]
#[inline]
fn sse_lanes_compact<const PAD_NEG: bool>(
    node: &CompactNode8,
    off: usize,
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
    dist: &mut [f32; 8],
) -> u32 {
    let zero = _mm_setzero_si128();
    let plane = |row: &[u8; 8], a: usize| {
        let mut bytes = [0u8; 4];
        bytes.copy_from_slice(&row[off & 4..(off & 4) + 4]);
        let v = _mm_cvtsi32_si128(i32::from_le_bytes(bytes));
        let v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(v, zero), zero);
        let q = _mm_cvtepi32_ps(v);
        _mm_add_ps(
            _mm_set1_ps(node.origin[a]),
            _mm_mul_ps(q, _mm_set1_ps(node.step[a])),
        )
    };
    let (near, far) = slab_axes!(
        r,
        t_min,
        t_max,
        PAD_NEG,
        [_mm_set1_ps, _mm_sub_ps, _mm_mul_ps, _mm_max_ps, _mm_min_ps],
        |a| (
            plane(&node.q[r.near_row(a)], a),
            plane(&node.q[r.far_row(a)], a)
        )
    );
    let out = &mut dist[off & 4..(off & 4) + 4];
    // SAFETY: `out` holds 4 f32s; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), near) };
    _mm_movemask_ps(_mm_cmple_ps(near, far)) as u32
}

/// The node tests of an 8-wide layout on SSE and AVX2, which the SIMD kernels below run:
/// the traversal loops are generic over the layout, and each layout brings its tests.
pub trait SimdNode: Internal<8> {
    /// [`Kernel::test`] with SSE (part of the x86_64 baseline).
    fn test_sse<const PAD_NEG: bool>(&self, r: &BoxRay, t_min: f32, t_max: f32) -> (u32, [f32; 8]);

    /// [`Kernel::test`] with AVX2 and FMA, which `avx2` proves the CPU has.
    fn test_avx2<const PAD_NEG: bool>(
        &self,
        avx2: Avx2,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]);

    /// The packet node test ([`PacketKernel::test`]) with AVX2 and FMA, which `avx2`
    /// proves the CPU has.
    fn test_packet_avx2(
        &self,
        avx2: Avx2,
        p: &BoxPacket,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]);
}

/// The packet test of a node's 8 slots, lane-wise, written once for both layouts:
/// `$planes` gives axis `$a`'s near and far plane vectors. The same operations in the same
/// order as `ScalarPacket`.
macro_rules! packet_axes {
    ($p:ident, $t_min:ident, $t_max:ident, |$a:ident| $planes:expr) => {{
        let mut near = _mm256_set1_ps($t_min);
        let mut far = _mm256_set1_ps($t_max);
        for $a in 0..3 {
            let (np, fp) = $planes;
            let lo = _mm256_set1_ps($p.inv_lo($a));
            let hi = _mm256_set1_ps($p.inv_hi($a));
            let dn = _mm256_sub_ps(np, _mm256_set1_ps($p.o_near($a)));
            let tn = _mm256_min_ps(_mm256_mul_ps(dn, lo), _mm256_mul_ps(dn, hi));
            let df = _mm256_sub_ps(fp, _mm256_set1_ps($p.o_far($a)));
            let tf = _mm256_max_ps(_mm256_mul_ps(df, lo), _mm256_mul_ps(df, hi));
            near = _mm256_max_ps(tn, near);
            far = _mm256_min_ps(tf, far);
        }
        let ok = _mm256_cmp_ps::<_CMP_LE_OQ>(near, far);
        let mut dist = [0.0f32; 8];
        // SAFETY: `dist` holds 8 f32s; `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_ps(dist.as_mut_ptr(), near) };
        let m = _mm256_movemask_ps(ok) as u32;
        (m, dist)
    }};
}

/// [`SimdNode::test_packet_avx2`] on a plain node.
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_packet8(node: &WideNode<8>, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
    let b = &node.bounds;
    packet_axes!(p, t_min, t_max, |a| {
        let np: &[f32; 8] = &b[p.near_row(a)];
        let fp: &[f32; 8] = &b[p.far_row(a)];
        // SAFETY: both rows hold 8 f32s; `loadu` has no alignment requirement.
        unsafe { (_mm256_loadu_ps(np.as_ptr()), _mm256_loadu_ps(fp.as_ptr())) }
    })
}

/// [`SimdNode::test_packet_avx2`] on a compact node, its planes dequantized as in
/// [`avx2_test8_compact`].
#[target_feature(enable = "avx2,fma")]
#[inline]
fn avx2_packet8_compact(
    node: &CompactNode8,
    p: &BoxPacket,
    t_min: f32,
    t_max: f32,
) -> (u32, [f32; 8]) {
    let plane = |row: &[u8; 8], a: usize| avx2_plane8(node, row, a);
    let (m, dist) = packet_axes!(p, t_min, t_max, |a| (
        plane(&node.q[p.near_row(a)], a),
        plane(&node.q[p.far_row(a)], a)
    ));
    (m & node.used, dist)
}

impl SimdNode for WideNode<8> {
    #[inline(always)]
    fn test_sse<const PAD_NEG: bool>(&self, r: &BoxRay, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        let mut dist = [0.0; 8];
        // SAFETY: SSE is part of the x86_64 baseline.
        let lo = unsafe { sse_lanes::<8, PAD_NEG>(self, 0, r, t_min, t_max, &mut dist) };
        // SAFETY: as above.
        let hi = unsafe { sse_lanes::<8, PAD_NEG>(self, 4, r, t_min, t_max, &mut dist) };
        (lo | (hi << 4), dist)
    }

    #[inline(always)]
    fn test_avx2<const PAD_NEG: bool>(
        &self,
        _: Avx2,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_test8::<PAD_NEG>(self, r, t_min, t_max) }
    }

    #[inline(always)]
    fn test_packet_avx2(&self, _: Avx2, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_packet8(self, p, t_min, t_max) }
    }
}

impl SimdNode for CompactNode8 {
    #[inline(always)]
    fn test_sse<const PAD_NEG: bool>(&self, r: &BoxRay, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        let mut dist = [0.0; 8];
        // SAFETY: SSE2 is part of the x86_64 baseline.
        let lo = unsafe { sse_lanes_compact::<PAD_NEG>(self, 0, r, t_min, t_max, &mut dist) };
        // SAFETY: as above.
        let hi = unsafe { sse_lanes_compact::<PAD_NEG>(self, 4, r, t_min, t_max, &mut dist) };
        ((lo | (hi << 4)) & self.used, dist)
    }

    #[inline(always)]
    fn test_avx2<const PAD_NEG: bool>(
        &self,
        _: Avx2,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 and FMA (see the type's doc).
        unsafe { avx2_test8_compact::<PAD_NEG>(self, r, t_min, t_max) }
    }

    #[inline(always)]
    fn test_packet_avx2(&self, _: Avx2, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 and FMA (see the type's doc).
        unsafe { avx2_packet8_compact(self, p, t_min, t_max) }
    }
}

/// The SSE kernel.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sse;

impl<L: SimdNode> Kernel<8, L> for Sse {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &L,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        node.test_sse::<PAD_NEG>(r, t_min, t_max)
    }
}

/// Eight slots with AVX (256-bit float ops).
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_test8<const PAD_NEG: bool>(
    node: &WideNode<8>,
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
) -> (u32, [f32; 8]) {
    let b = &node.bounds;
    let (near, far) = slab_axes!(
        r,
        t_min,
        t_max,
        PAD_NEG,
        [
            _mm256_set1_ps,
            _mm256_sub_ps,
            _mm256_mul_ps,
            _mm256_max_ps,
            _mm256_min_ps
        ],
        |a| {
            let np: &[f32; 8] = &b[r.near_row(a)];
            let fp: &[f32; 8] = &b[r.far_row(a)];
            // SAFETY: both rows hold 8 f32s; `loadu` has no alignment requirement.
            unsafe { (_mm256_loadu_ps(np.as_ptr()), _mm256_loadu_ps(fp.as_ptr())) }
        }
    );
    let mut dist = [0.0f32; 8];
    // SAFETY: `dist` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dist.as_mut_ptr(), near) };
    let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
    (m, dist)
}

/// The 8 planes of row `row` (of axis `a`) of a compact node, dequantized in one FMA:
/// `origin + q * step` rounded once (the product is exact, so this is the scalar
/// multiply-then-add bit for bit).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn avx2_plane8(node: &CompactNode8, row: &[u8; 8], a: usize) -> __m256 {
    let q = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_set1_epi64x(i64::from_le_bytes(
        *row,
    ))));
    _mm256_fmadd_ps(
        q,
        _mm256_set1_ps(node.step[a]),
        _mm256_set1_ps(node.origin[a]),
    )
}

/// Eight slots of a compact node with AVX2 and FMA: each plane is dequantized in one FMA,
/// `origin + q * step` rounded once (the product is exact, so this is the scalar
/// multiply-then-add bit for bit), then tested as [`avx2_test8`] does.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn avx2_test8_compact<const PAD_NEG: bool>(
    node: &CompactNode8,
    r: &BoxRay,
    t_min: f32,
    t_max: f32,
) -> (u32, [f32; 8]) {
    let plane = |row: &[u8; 8], a: usize| avx2_plane8(node, row, a);
    let (near, far) = slab_axes!(
        r,
        t_min,
        t_max,
        PAD_NEG,
        [
            _mm256_set1_ps,
            _mm256_sub_ps,
            _mm256_mul_ps,
            _mm256_max_ps,
            _mm256_min_ps
        ],
        |a| (
            plane(&node.q[r.near_row(a)], a),
            plane(&node.q[r.far_row(a)], a)
        )
    );
    let mut dist = [0.0f32; 8];
    // SAFETY: `dist` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dist.as_mut_ptr(), near) };
    let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
    (m & node.used, dist)
}

/// [`Kernel::ranks`] for 8 slots with AVX2, every slot at once: for each slot `j` in turn,
/// the slots `i` it counts against (`dist[j] > dist[i]`, or equal with `j < i`) add one. The
/// slots not in `mask` get a NaN distance first, which no comparison counts: 8 steps of 5
/// instructions, no branch.
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_ranks(dist: &[f32; 8], mask: u32) -> [u32; 8] {
    // SAFETY: `dist` holds 8 f32s; `loadu` has no alignment requirement.
    let d = unsafe { _mm256_loadu_ps(dist.as_ptr()) };
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let entered = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(mask as i32), bit), bit);
    let d = _mm256_blendv_ps(_mm256_set1_ps(f32::NAN), d, _mm256_castsi256_ps(entered));
    let mut dm = [0.0f32; 8];
    // SAFETY: `dm` holds 8 f32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_ps(dm.as_mut_ptr(), d) };
    let mut acc = _mm256_setzero_si256();
    for (j, &dj) in dm.iter().enumerate() {
        let dj = _mm256_set1_ps(dj);
        let farther = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(dj, d));
        let tie = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_EQ_OQ>(dj, d));
        let before = _mm256_cmpgt_epi32(lane, _mm256_set1_epi32(j as i32));
        let counted = _mm256_or_si256(farther, _mm256_and_si256(tie, before));
        // `counted` lanes are -1: subtracting adds one.
        acc = _mm256_sub_epi32(acc, counted);
    }
    let mut out = [0u32; 8];
    // SAFETY: `out` holds 8 u32s; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), acc) };
    out
}

/// The AVX2 kernel. A value is made only inside the AVX2 traversal loops (`traverse_x86`),
/// which run only after AVX2 and FMA were detected.
#[derive(Clone, Copy, Debug)]
pub struct Avx2(pub(super) ());

impl<L: SimdNode> Kernel<8, L> for Avx2 {
    #[inline(always)]
    fn test<const PAD_NEG: bool>(
        self,
        node: &L,
        r: &BoxRay,
        t_min: f32,
        t_max: f32,
    ) -> (u32, [f32; 8]) {
        node.test_avx2::<PAD_NEG>(self, r, t_min, t_max)
    }

    #[inline(always)]
    fn ranks(self, dist: &[f32; 8], mask: u32) -> [u32; 8] {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_ranks(dist, mask) }
    }
}

impl<L: SimdNode> PacketKernel<L> for Avx2 {
    #[inline(always)]
    fn test(self, node: &L, p: &BoxPacket, t_min: f32, t_max: f32) -> (u32, [f32; 8]) {
        node.test_packet_avx2(self, p, t_min, t_max)
    }

    #[inline(always)]
    fn members(self, node: &L, i: usize, p: &BoxPacket, bound: &[f32; PACKET_RAYS]) -> u32 {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_members(node, i, p, bound) }
    }

    #[inline(always)]
    fn ranks(self, dist: &[f32; 8], mask: u32) -> [u32; 8] {
        // SAFETY: an `Avx2` value proves the CPU has AVX2 (see the type's doc).
        unsafe { avx2_ranks(dist, mask) }
    }
}

/// [`BoxPacket::members_scalar`] with AVX2, 8 members per pass: the same operations lane
/// by lane.
#[target_feature(enable = "avx2")]
#[inline]
fn avx2_members<L: Internal<8>>(
    node: &L,
    i: usize,
    p: &BoxPacket,
    bound: &[f32; PACKET_RAYS],
) -> u32 {
    let planes = [0, 1, 2].map(|a| (node.plane(p.near_row(a), i), node.plane(p.far_row(a), i)));
    let load = |row: &[f32; PACKET_RAYS], h: usize| {
        let half = &row[8 * (h & 1)..8 * (h & 1) + 8];
        // SAFETY: `half` holds 8 f32s; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_ps(half.as_ptr()) }
    };
    let mut mask = 0u32;
    for h in 0..p.n.div_ceil(8) {
        let mut near = load(&p.t_min, h);
        let mut far = load(bound, h);
        for (a, &(np, fp)) in planes.iter().enumerate() {
            let o = load(&p.o[a], h);
            let tn = _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(np), o), load(&p.inv[a], h));
            let d = _mm256_sub_ps(_mm256_set1_ps(fp), o);
            let tf = _mm256_max_ps(
                _mm256_mul_ps(d, load(&p.inv_up[a], h)),
                _mm256_mul_ps(d, load(&p.inv_down[a], h)),
            );
            near = _mm256_max_ps(tn, near);
            far = _mm256_min_ps(tf, far);
        }
        let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
        mask |= m << (8 * h);
    }
    mask & p.lanes()
}

/// The packet loop compiled with AVX2 and FMA enabled, so that the kernels inline into it.
#[target_feature(enable = "avx2,fma")]
fn packet8_avx2<L: SimdNode, V: PacketVisitor>(nodes: &[L], p: &BoxPacket, visitor: &mut V) {
    packet_with_kernel(Avx2(()), nodes, p, visitor);
}

/// The packet loop on the AVX2 kernels compiled with AVX-512 enabled (`SimdPath::Avx512`).
#[target_feature(enable = "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq")]
fn packet8_avx512<L: SimdNode, V: PacketVisitor>(nodes: &[L], p: &BoxPacket, visitor: &mut V) {
    packet_with_kernel(Avx2(()), nodes, p, visitor);
}

/// Runs the packet loop with AVX2 (or AVX-512) when the CPU has it; false, having done
/// nothing, otherwise (the caller then runs the scalar loop).
#[inline(always)]
pub(crate) fn packet8<L: SimdNode, V: PacketVisitor>(
    nodes: &[L],
    p: &BoxPacket,
    visitor: &mut V,
) -> bool {
    match CpuPath::best() {
        Some(cpu) if cpu.avx512() => {
            // SAFETY: a `CpuPath` with `avx512` set is made only when the CPU has AVX2, FMA
            // and the four AVX-512 subsets (`avx512_available`).
            unsafe { packet8_avx512(nodes, p, visitor) };
            true
        }
        Some(cpu) if cpu.avx2() => {
            // SAFETY: a `CpuPath` with `avx2` set is made only when the CPU has AVX2 and
            // FMA (`avx2_available`).
            unsafe { packet8_avx2(nodes, p, visitor) };
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::avx2_ranks;
    use crate::wide::traverse::scalar_ranks;
    use crate::wide::traverse::tests::rank_cases;
    use raypick_primitives::simd::avx2_available;

    #[test]
    fn avx2_ranks_match_the_scalar_ranks() {
        if !avx2_available() {
            return;
        }
        for (dist, mask) in rank_cases(0x2545_f491_4f6c_dd1d, 20_000) {
            // SAFETY: AVX2 was detected above.
            let got = unsafe { avx2_ranks(&dist, mask) };
            let want = scalar_ranks(&dist, mask);
            for i in (0..8).filter(|i| mask >> i & 1 != 0) {
                assert_eq!(got[i], want[i], "slot {i}: {dist:?} {mask:#b}");
            }
        }
    }

    /// The AVX2 packet kernels (the bundle's node test and its members' leaf test) give
    /// the scalar ones' answers bit for bit, on plain and compact nodes.
    #[test]
    fn avx2_packet_kernels_match_the_scalar_ones() {
        use super::{Avx2, BoxPacket, CompactNode8, PacketKernel, WideNode, PACKET_RAYS};
        use crate::wide::packet::ScalarPacket;
        use crate::wide::{Bvh8, CompactBvh8};
        use crate::{BoxRay, BuildConfig, Bvh};
        use raypick_primitives::{Aabb, Point3, Ray, Vector3};
        if !avx2_available() {
            return;
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let boxes: Vec<Aabb> = (0..3000)
            .map(|_| {
                let c = Point3::new(next() * 8.0, next() * 8.0, next() * 8.0);
                let h = Vector3::new(next().abs(), next().abs(), next().abs()) * 0.3;
                Aabb::new(c - h, c + h)
            })
            .collect();
        let wide = Bvh8::from_bvh(&Bvh::build(&boxes, &BuildConfig::default()).unwrap());
        let compact = CompactBvh8::from_wide(&wide).unwrap();
        let avx2 = Avx2(());
        let (mut entered, mut members) = (0usize, 0usize);
        for round in 0..400 {
            let n = 1 + round % PACKET_RAYS;
            let o = Point3::new(next() * 12.0, next() * 12.0, next() * 12.0);
            let d = Vector3::new(next(), next(), next());
            let rays: Vec<BoxRay> = (0..n)
                .map(|_| {
                    let dj = Vector3::new(next(), next(), next()) * 0.02;
                    let oj = Vector3::new(next(), next(), next()) * 0.1;
                    BoxRay::new(&Ray::new(o + oj, d + dj))
                })
                .collect();
            let iv: Vec<(f32, f32)> = (0..n)
                .map(|j| match j % 3 {
                    0 => (0.0, f32::INFINITY),
                    1 => (next().abs(), 4.0 + next() * 3.0),
                    _ => (-1.0, 2.0),
                })
                .collect();
            let Some(p) = BoxPacket::new(rays.iter().zip(&iv).map(|(r, &(a, b))| (r, a, b))) else {
                continue;
            };
            let mut bound = [0.0f32; PACKET_RAYS];
            for (j, b) in bound.iter_mut().enumerate() {
                *b = if j % 2 == 0 {
                    f32::INFINITY
                } else {
                    1.0 + next().abs() * 20.0
                };
            }
            let (t0, t1) = (next().min(0.0), 30.0 * next().abs());
            for node in wide.nodes() {
                let (ms, ds) = ScalarPacket.test(node, &p, t0, t1);
                let (ma, da) = avx2.test(node, &p, t0, t1);
                assert_eq!(ms, ma);
                for i in (0..8).filter(|i| ms >> i & 1 != 0) {
                    assert_eq!(ds[i].to_bits(), da[i].to_bits());
                }
                entered += ms.count_ones() as usize;
                for i in 0..node.child_count() {
                    let s = PacketKernel::<WideNode<8>>::members(ScalarPacket, node, i, &p, &bound);
                    assert_eq!(s, avx2.members(node, i, &p, &bound));
                    members += s.count_ones() as usize;
                }
            }
            for node in compact.nodes() {
                let (ms, ds) = ScalarPacket.test(node, &p, t0, t1);
                let (ma, da) = avx2.test(node, &p, t0, t1);
                assert_eq!(ms, ma);
                for i in (0..8).filter(|i| ms >> i & 1 != 0) {
                    assert_eq!(ds[i].to_bits(), da[i].to_bits());
                }
                for i in 0..node.child_count() {
                    assert_eq!(
                        PacketKernel::<CompactNode8>::members(ScalarPacket, node, i, &p, &bound),
                        avx2.members(node, i, &p, &bound)
                    );
                }
            }
        }
        assert!(
            entered > 1000 && members > 1000,
            "too few entries: {entered}, {members}"
        );
    }
}
