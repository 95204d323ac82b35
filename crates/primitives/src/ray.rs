//! Rays.

use crate::{Point3, Real, Vector3};

/// A half-line `origin + t * dir`.
///
/// The direction need not be unit length and is never normalized by raypick: every `t`
/// reported for this ray is in units of `dir`. A zero or non-finite direction is allowed;
/// the kernels then report no hit rather than panic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Point3<Real>,
    /// The direction, in whatever length the caller chose.
    pub dir: Vector3<Real>,
}

impl Ray {
    /// A ray from `origin` along `dir` (not normalized).
    #[must_use]
    pub fn new(origin: Point3<Real>, dir: Vector3<Real>) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`: `origin + t * dir`.
    #[must_use]
    pub fn at(&self, t: Real) -> Point3<Real> {
        self.origin + self.dir * t
    }

    /// True when the origin and direction are finite and the direction is not zero.
    ///
    /// Kernels accept any ray; this is for callers that want to reject bad input early.
    #[inline]
    #[must_use]
    pub fn is_valid(&self) -> bool {
        let (o, d) = (&self.origin, &self.dir);
        all_finite([o.x, o.y, o.z], [d.x, d.y, d.z]) & ((d.x != 0.0) | (d.y != 0.0) | (d.z != 0.0))
    }
}

/// True when the six components are finite: `x * 0` is ±0 for a finite `x` and NaN for an
/// infinity or a NaN, so one comparison checks them all (a few vector operations, no branch).
#[inline(always)]
pub(crate) fn all_finite(o: [Real; 3], d: [Real; 3]) -> bool {
    let zeros = (o[0] * 0.0 + o[1] * 0.0 + o[2] * 0.0) + (d[0] * 0.0 + d[1] * 0.0 + d[2] * 0.0);
    zeros == 0.0
}
