//! Rays in f64 world coordinates (survey, map and planet coordinates).

use nalgebra::{Point3, Vector3};

use crate::Ray;

/// A half-line `origin + t * dir` in f64, for scenes placed far from the origin.
///
/// At 10^7 an f32 steps by 1, so a world ray there cannot be held in f32 without moving it.
/// The scene's f64 entry points take the ray into each instance's local frame in f64 and
/// round it to f32 only there, where coordinates are small. Like [`Ray`], the direction is
/// never normalized and a zero or non-finite one finds nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray64 {
    /// Where the ray starts.
    pub origin: Point3<f64>,
    /// The direction, in whatever length the caller chose.
    pub dir: Vector3<f64>,
}

impl Ray64 {
    /// A ray from `origin` along `dir` (not normalized).
    #[must_use]
    pub fn new(origin: Point3<f64>, dir: Vector3<f64>) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`: `origin + t * dir`.
    #[must_use]
    pub fn at(&self, t: f64) -> Point3<f64> {
        self.origin + self.dir * t
    }

    /// True when the origin and direction are finite and the direction is not zero.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.origin
            .iter()
            .chain(self.dir.iter())
            .all(|c| c.is_finite())
            && self.dir.iter().any(|&c| c != 0.0)
    }

    /// This ray rounded to f32 (exact for rays near the origin).
    #[must_use]
    pub fn to_f32(&self) -> Ray {
        Ray::new(self.origin.cast(), self.dir.cast())
    }
}

impl From<Ray> for Ray64 {
    /// The f32 ray widened (exactly) to f64.
    fn from(r: Ray) -> Self {
        Self::new(r.origin.cast(), r.dir.cast())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_and_rounding() {
        let r = Ray64::new(
            Point3::new(5e6 + 0.25, 0.0, 0.0),
            Vector3::new(0.0, 0.0, -2.0),
        );
        assert!(r.is_valid());
        assert_eq!(r.at(1.5), Point3::new(5e6 + 0.25, 0.0, -3.0));
        // f32 cannot hold 5e6 + 0.25: the rounding moves the origin.
        assert_eq!(r.to_f32().origin.x, 5e6);
        assert!(!Ray64::new(Point3::origin(), Vector3::zeros()).is_valid());
        assert!(!Ray64::new(Point3::new(f64::NAN, 0.0, 0.0), Vector3::x()).is_valid());
        let f = Ray::new(Point3::new(1.5, 2.0, 3.0), Vector3::new(0.1, 0.0, 1.0));
        assert_eq!(Ray64::from(f).to_f32(), f);
    }
}
