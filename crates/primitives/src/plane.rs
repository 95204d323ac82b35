//! Planes: a unit normal and an offset.

use crate::{GeometryError, Point3, Real, Unit, Vector3};

/// The plane `normal . x == offset`, with a unit normal.
///
/// The side the normal points to is the *outside* (positive signed distance); see
/// [`crate::Classification`]. A plane built by a non-`try_` constructor from bad input has NaN
/// components; the kernels then answer conservatively (documented per kernel).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// The unit normal, pointing to the outside.
    pub normal: Unit<Vector3<Real>>,
    /// The signed distance of the plane from the origin along `normal`.
    pub offset: Real,
}

impl Plane {
    /// A plane from a unit normal and an offset (`normal . x == offset`).
    #[must_use]
    pub const fn new(normal: Unit<Vector3<Real>>, offset: Real) -> Self {
        Self { normal, offset }
    }

    /// The plane through `point` with the given unit `normal`.
    ///
    /// A non-finite point gives a non-finite offset. See [`Plane::try_from_point_normal`] for
    /// an unnormalized, checked normal.
    #[must_use]
    pub fn from_point_unit_normal(point: &Point3<Real>, normal: Unit<Vector3<Real>>) -> Self {
        Self {
            normal,
            offset: normal.dot(&point.coords),
        }
    }

    /// The plane through `point` with normal direction `normal` (normalized here).
    ///
    /// A zero or non-finite normal gives a plane of NaNs; see
    /// [`Plane::try_from_point_normal`].
    #[must_use]
    pub fn from_point_normal(point: &Point3<Real>, normal: &Vector3<Real>) -> Self {
        Self::try_from_point_normal(point, normal).unwrap_or_else(|_| Self::nan())
    }

    /// Checked [`Plane::from_point_normal`].
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] for a NaN or infinite point or normal,
    /// [`GeometryError::ZeroNormal`] for a normal too short to normalize.
    pub fn try_from_point_normal(
        point: &Point3<Real>,
        normal: &Vector3<Real>,
    ) -> Result<Self, GeometryError> {
        if !point.iter().all(|c| c.is_finite()) {
            return Err(GeometryError::NonFinite("plane point"));
        }
        if !normal.iter().all(|c| c.is_finite()) {
            return Err(GeometryError::NonFinite("plane normal"));
        }
        let n = normalize_f64(normal).ok_or(GeometryError::ZeroNormal)?;
        Ok(Self::from_point_unit_normal(point, n))
    }

    /// The plane through `a`, `b`, `c`, with normal `(b - a) x (c - a)` (counter-clockwise
    /// corners seen from outside, like [`crate::Triangle`]).
    ///
    /// Collinear, coincident or non-finite points give a plane of NaNs; see
    /// [`Plane::try_from_points`].
    #[must_use]
    pub fn from_points(a: &Point3<Real>, b: &Point3<Real>, c: &Point3<Real>) -> Self {
        Self::try_from_points(a, b, c).unwrap_or_else(|_| Self::nan())
    }

    /// Checked [`Plane::from_points`].
    ///
    /// # Errors
    /// [`GeometryError::NonFinite`] naming the first bad point, or
    /// [`GeometryError::CollinearPoints`].
    pub fn try_from_points(
        a: &Point3<Real>,
        b: &Point3<Real>,
        c: &Point3<Real>,
    ) -> Result<Self, GeometryError> {
        for (p, name) in [(a, "point a"), (b, "point b"), (c, "point c")] {
            if !p.iter().all(|c| c.is_finite()) {
                return Err(GeometryError::NonFinite(name));
            }
        }
        // In f64 so that nearly collinear but distinct points still get a usable normal.
        let w = |p: &Point3<Real>| nalgebra::Vector3::new(p.x as f64, p.y as f64, p.z as f64);
        let n = (w(b) - w(a)).cross(&(w(c) - w(a)));
        let len = n.norm();
        if !(len > 0.0 && len.is_finite()) {
            return Err(GeometryError::CollinearPoints);
        }
        let n = n / len;
        let normal = Unit::new_unchecked(Vector3::new(n.x as Real, n.y as Real, n.z as Real));
        let offset = (n.dot(&w(a)) + n.dot(&w(b)) + n.dot(&w(c))) / 3.0;
        Ok(Self {
            normal,
            offset: offset as Real,
        })
    }

    /// The signed distance of `p`: positive on the outer (normal) side, negative inside.
    /// NaN for NaN input.
    #[must_use]
    pub fn signed_distance(&self, p: &Point3<Real>) -> Real {
        self.normal.dot(&p.coords) - self.offset
    }

    /// The orthogonal projection of `p` onto the plane.
    #[must_use]
    pub fn project_point(&self, p: &Point3<Real>) -> Point3<Real> {
        p - self.normal.into_inner() * self.signed_distance(p)
    }

    /// The same plane with the other side outside.
    #[must_use]
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            offset: -self.offset,
        }
    }

    /// True when the normal and offset are free of NaN (the offset may be infinite for the
    /// far plane of an infinite frustum).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.normal.iter().all(|c| c.is_finite()) && !self.offset.is_nan()
    }

    fn nan() -> Self {
        Self {
            normal: Unit::new_unchecked(Vector3::repeat(Real::NAN)),
            offset: Real::NAN,
        }
    }
}

/// Normalizes in f64, so that tiny (subnormal-squared) normals still work.
pub(crate) fn normalize_f64(v: &Vector3<Real>) -> Option<Unit<Vector3<Real>>> {
    let w = nalgebra::Vector3::new(v.x as f64, v.y as f64, v.z as f64);
    let len = w.norm();
    if !(len > 0.0 && len.is_finite()) {
        return None;
    }
    let n = w / len;
    Some(Unit::new_unchecked(Vector3::new(
        n.x as Real,
        n.y as Real,
        n.z as Real,
    )))
}
