//! The builder's working types: 32-byte primitive references and 4-lane boxes.

// `!(a < b)` is deliberate throughout: NaN must fail the comparison.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use rayon::prelude::*;

use super::{PAR_BIN_MIN, PAR_CHUNK};
use crate::node::half_area;

/// A primitive reference: its box and original index, 32 bytes, moved around by partitions.
/// Four lanes per corner so box updates compile to 4-wide min/max; lane 3 of `min` holds the
/// index's bits, lane 3 of `max` is 0, and lane 3 of every box computed from them is junk that
/// nothing reads.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimRef {
    pub min: [f32; 4],
    pub max: [f32; 4],
}

impl PrimRef {
    #[inline(always)]
    pub(super) fn idx(&self) -> u32 {
        self.min[3].to_bits()
    }

    /// The centre, computed without overflow for huge coordinates; lane 3 is 0. Lane 3 of
    /// `min` (the index's bits, a denormal as a float) never enters the arithmetic: a denormal
    /// operand makes a multiply slow on some CPUs.
    #[inline(always)]
    pub(super) fn centroid(&self) -> [f32; 4] {
        let c = |a: usize| self.min[a] * 0.5 + self.max[a] * 0.5;
        [c(0), c(1), c(2), 0.0]
    }
}

/// The first three lanes.
#[inline(always)]
pub(super) fn xyz(v: &[f32; 4]) -> [f32; 3] {
    [v[0], v[1], v[2]]
}

/// `min` without NaN handling (one instruction): build inputs are checked NaN-free.
#[inline(always)]
pub(super) fn fmin(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}

/// `max` without NaN handling, see [`fmin`].
#[inline(always)]
pub(super) fn fmax(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// A plain box used during the build (lane 3 unused).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Box3 {
    pub min: [f32; 4],
    pub max: [f32; 4],
}

impl Box3 {
    pub const EMPTY: Box3 = Box3 {
        min: [f32::INFINITY; 4],
        max: [f32::NEG_INFINITY; 4],
    };

    #[inline(always)]
    pub(super) fn grow(&mut self, min: &[f32; 4], max: &[f32; 4]) {
        for a in 0..4 {
            self.min[a] = fmin(self.min[a], min[a]);
            self.max[a] = fmax(self.max[a], max[a]);
        }
    }

    #[inline(always)]
    pub(super) fn grow_point(&mut self, p: &[f32; 4]) {
        self.grow(p, p);
    }

    #[inline(always)]
    pub(super) fn union(&self, o: &Box3) -> Box3 {
        let mut b = *self;
        b.grow(&o.min, &o.max);
        b
    }

    #[inline(always)]
    pub(super) fn half_area(&self) -> f32 {
        half_area(&xyz(&self.min), &xyz(&self.max))
    }

    /// Half area without the emptiness check: garbage for an empty box, which the sweep
    /// never uses (a side with no primitive is skipped).
    #[inline(always)]
    pub(super) fn half_area_unchecked(&self) -> f32 {
        let ex = self.max[0] - self.min[0];
        let ey = self.max[1] - self.min[1];
        let ez = self.max[2] - self.min[2];
        ex * ey + ey * ez + ez * ex
    }

    pub(super) fn extent(&self, a: usize) -> f32 {
        self.max[a] - self.min[a]
    }
}

/// Box and centroid box of a slice of primitives.
pub(super) fn bounds_of(prims: &[PrimRef], parallel: bool) -> (Box3, Box3) {
    let seq = |ps: &[PrimRef]| {
        let mut b = Box3::EMPTY;
        let mut c = Box3::EMPTY;
        for p in ps {
            b.grow(&p.min, &p.max);
            c.grow_point(&p.centroid());
        }
        (b, c)
    };
    if parallel && prims.len() >= PAR_BIN_MIN {
        // min/max are exact, so the reduction order does not matter: deterministic.
        prims.par_chunks(PAR_CHUNK).map(seq).reduce(
            || (Box3::EMPTY, Box3::EMPTY),
            |a, b| (a.0.union(&b.0), a.1.union(&b.1)),
        )
    } else {
        seq(prims)
    }
}
