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
        // `&` rather than `&&`: no branch per component on every query.
        o.x.is_finite()
            & o.y.is_finite()
            & o.z.is_finite()
            & d.x.is_finite()
            & d.y.is_finite()
            & d.z.is_finite()
            & (d.x != 0.0 || d.y != 0.0 || d.z != 0.0)
    }
}
