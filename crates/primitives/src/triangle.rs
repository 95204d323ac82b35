//! Triangles.

use crate::{Aabb, Point3, Real, Unit, Vector3};

/// A triangle by its three corners. The front face is the one from which the corners
/// appear counter-clockwise, so the geometric normal is `(b - a) x (c - a)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// First corner.
    pub a: Point3<Real>,
    /// Second corner.
    pub b: Point3<Real>,
    /// Third corner.
    pub c: Point3<Real>,
}

impl Triangle {
    /// A triangle from its corners.
    #[must_use]
    pub fn new(a: Point3<Real>, b: Point3<Real>, c: Point3<Real>) -> Self {
        Self { a, b, c }
    }

    /// The corners as an array.
    #[must_use]
    pub fn vertices(&self) -> [Point3<Real>; 3] {
        [self.a, self.b, self.c]
    }

    /// The unnormalized normal `(b - a) x (c - a)`; its length is twice the area.
    #[must_use]
    pub fn scaled_normal(&self) -> Vector3<Real> {
        (self.b - self.a).cross(&(self.c - self.a))
    }

    /// [`Triangle::scaled_normal`] in f64: the corner differences are exact there, so a
    /// component is zero only when it is exactly zero (no f32 rounding or underflow); it can
    /// be infinite or NaN only for non-finite corners.
    #[inline]
    #[must_use]
    pub fn scaled_normal_f64(&self) -> Vector3<f64> {
        let d = |p: &Point3<Real>, q: &Point3<Real>| {
            Vector3::new(
                f64::from(p.x) - f64::from(q.x),
                f64::from(p.y) - f64::from(q.y),
                f64::from(p.z) - f64::from(q.z),
            )
        };
        let (e1, e2) = (d(&self.b, &self.a), d(&self.c, &self.a));
        Vector3::new(
            e1.y * e2.z - e1.z * e2.y,
            e1.z * e2.x - e1.x * e2.z,
            e1.x * e2.y - e1.y * e2.x,
        )
    }

    /// The unit normal, or `None` for a degenerate (zero-area or non-finite) triangle.
    #[must_use]
    pub fn normal(&self) -> Option<Unit<Vector3<Real>>> {
        let n = self.scaled_normal();
        let len = n.norm();
        if len > 0.0 && len.is_finite() {
            return Some(Unit::new_unchecked(n / len));
        }
        // The f32 length overflowed or underflowed (huge or tiny but non-degenerate
        // triangles): normalize in f64, where it cannot for finite f32 corners.
        let n = self.scaled_normal_f64();
        let len = n.norm();
        if !(len > 0.0 && len.is_finite()) {
            return None;
        }
        let u = n / len;
        Some(Unit::new_unchecked(Vector3::new(
            u.x as Real,
            u.y as Real,
            u.z as Real,
        )))
    }

    /// The area (0 for a degenerate triangle).
    #[must_use]
    pub fn area(&self) -> Real {
        self.scaled_normal().norm() * 0.5
    }

    /// True when the triangle has exactly zero area (its corners are collinear or coincide),
    /// decided in f64 so that rounding cannot hide it.
    #[must_use]
    pub fn is_degenerate(&self) -> bool {
        let n = self.scaled_normal_f64();
        !n.iter().any(|c| *c != 0.0 && c.is_finite()) || n.iter().any(|c| !c.is_finite())
    }

    /// The point with barycentric coordinates `(u, v)`: `(1 - u - v) a + u b + v c`.
    #[must_use]
    pub fn point_at(&self, u: Real, v: Real) -> Point3<Real> {
        Point3::from(self.a.coords * (1.0 - u - v) + self.b.coords * u + self.c.coords * v)
    }

    /// The bounding box of the three corners.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::from_point(self.a).grow(&self.b).grow(&self.c)
    }
}
