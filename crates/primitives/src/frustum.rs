//! View frusta: six planes taken from a view-projection matrix.

use crate::{GeometryError, Plane, Point3, Real, Unit, Vector3};
use nalgebra::Matrix4;

/// The clip-space depth range of a projection matrix.
///
/// x and y always run over `-w..=w`. This picks the z range and which end is the near plane:
///
/// | variant        | clip-space z   | near plane | used by                         |
/// |----------------|----------------|------------|---------------------------------|
/// | `NegOneToOne`  | `-w <= z <= w` | `z = -w`   | OpenGL (default)                |
/// | `ZeroToOne`    | `0 <= z <= w`  | `z = 0`    | Vulkan, wgpu, D3D, Metal        |
/// | `OneToZero`    | `0 <= z <= w`  | `z = w`    | reversed-Z on a 0..1 depth range |
///
/// Reversed-Z keeps the same six half-spaces as `ZeroToOne`; only the names of the near and
/// far planes swap, which matters for [`Frustum::near`] and [`Frustum::far`]. A reversed-Z
/// projection with an infinite far plane is supported: that plane lies at infinity.
///
/// The default is `ZeroToOne`, the convention of wgpu and Vulkan. nalgebra's
/// `Perspective3` and `Orthographic3` produce `NegOneToOne` matrices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DepthRange {
    /// OpenGL: near at -1, far at +1.
    NegOneToOne,
    /// Vulkan, wgpu, Direct3D, Metal: near at 0, far at 1.
    #[default]
    ZeroToOne,
    /// Reversed-Z: near at 1, far at 0.
    OneToZero,
}

/// A convex view volume bounded by six planes with outward normals.
///
/// The planes are, in order: left, right, bottom, top, near, far (see [`Frustum::LEFT`] and
/// friends). A plane at infinity (the far plane of an infinite projection) has offset
/// `+inf`: every finite point is inside it. The eight corners are kept when they are finite,
/// for the exact separating-axis tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    planes: [Plane; 6],
    corners: Option<[Point3<Real>; 8]>,
    hull: Option<Hull>,
}

impl Frustum {
    /// Index of the left plane in [`Frustum::planes`].
    pub const LEFT: usize = 0;
    /// Index of the right plane.
    pub const RIGHT: usize = 1;
    /// Index of the bottom plane.
    pub const BOTTOM: usize = 2;
    /// Index of the top plane.
    pub const TOP: usize = 3;
    /// Index of the near plane.
    pub const NEAR: usize = 4;
    /// Index of the far plane.
    pub const FAR: usize = 5;

    /// A frustum from six planes with outward normals, in the order left, right, bottom, top,
    /// near, far. The corners are computed by intersecting plane triples (in f64); they are
    /// `None` when some triple has no single finite intersection point. A far plane at
    /// infinity (offset `+inf`) is understood: the frustum is then the near face swept along
    /// its four side edges, and the exact tests still use that shape.
    #[must_use]
    pub fn from_planes(planes: [Plane; 6]) -> Self {
        let hull = Hull::of(&planes);
        let corners = match &hull {
            Some(h) if h.n_rays == 0 => {
                let c = h.verts.map(|v| Point3::from(v.cast::<Real>()));
                c.iter()
                    .all(|p| p.iter().all(|x| x.is_finite()))
                    .then_some(c)
            }
            _ => None,
        };
        Self {
            planes,
            corners,
            hull,
        }
    }

    /// The frustum of a view-projection matrix (Gribb and Hartmann): a world point `p` is
    /// inside when `m * (p, 1)` lies in the clip volume of `depth`.
    ///
    /// Works for perspective and orthographic projections, reversed-Z and infinite far planes
    /// (that plane goes to infinity, offset `+inf`). A plane whose normal comes out zero with
    /// the volume on its outer side gets offset `-inf` (everything is outside). A singular or
    /// non-finite matrix gives planes with NaN or infinite fields, on which the `frustum_*`
    /// kernels answer [`crate::Classification::Intersecting`]; see
    /// [`Frustum::try_from_view_projection`].
    ///
    /// ```
    /// use raypick_primitives::{frustum_sphere, Classification, DepthRange, Frustum, Point3,
    ///     Sphere};
    /// use nalgebra::{Matrix4, Perspective3};
    /// // Camera at the origin looking down -z, OpenGL conventions.
    /// let proj = Perspective3::new(1.0, 1.0, 0.1, 100.0).to_homogeneous();
    /// let f = Frustum::from_view_projection(&proj, DepthRange::NegOneToOne);
    /// let ahead = Sphere::new(Point3::new(0.0, 0.0, -10.0), 1.0);
    /// let behind = Sphere::new(Point3::new(0.0, 0.0, 10.0), 1.0);
    /// assert_eq!(frustum_sphere(&f, &ahead), Classification::Inside);
    /// assert_eq!(frustum_sphere(&f, &behind), Classification::Outside);
    /// ```
    #[must_use]
    pub fn from_view_projection(m: &Matrix4<Real>, depth: DepthRange) -> Self {
        let m = m.cast::<f64>();
        let r = |i: usize| m.row(i).transpose();
        let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
        // Each row combination (a, b, c, d) is a half-space a x + b y + c z + d >= 0.
        let z_lo = match depth {
            DepthRange::NegOneToOne => r3 + r2,
            DepthRange::ZeroToOne | DepthRange::OneToZero => r2,
        };
        let z_hi = r3 - r2;
        let (near, far) = match depth {
            DepthRange::OneToZero => (z_hi, z_lo),
            _ => (z_lo, z_hi),
        };
        let planes = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, near, far].map(|h| {
            let n = nalgebra::Vector3::new(h.x, h.y, h.z);
            let len = n.norm();
            if len > 0.0 && len.is_finite() {
                let u = -n / len;
                Plane::new(
                    Unit::new_unchecked(Vector3::new(u.x as Real, u.y as Real, u.z as Real)),
                    (h.w / len) as Real,
                )
            } else {
                // No direction: the half-space is everything (d >= 0) or nothing.
                let offset = if h.w >= 0.0 {
                    Real::INFINITY
                } else if h.w < 0.0 {
                    Real::NEG_INFINITY
                } else {
                    Real::NAN
                };
                let normal = if len == 0.0 {
                    Vector3::z()
                } else {
                    Vector3::repeat(Real::NAN)
                };
                Plane::new(Unit::new_unchecked(normal), offset)
            }
        });
        Self::from_planes(planes)
    }

    /// Checked [`Frustum::from_view_projection`].
    ///
    /// # Errors
    /// [`GeometryError::NonFiniteMatrix`] naming the first NaN or infinite entry, or
    /// [`GeometryError::SingularMatrix`] when the determinant (in f64) is zero.
    pub fn try_from_view_projection(
        m: &Matrix4<Real>,
        depth: DepthRange,
    ) -> Result<Self, GeometryError> {
        for row in 0..4 {
            for column in 0..4 {
                if !m[(row, column)].is_finite() {
                    return Err(GeometryError::NonFiniteMatrix { row, column });
                }
            }
        }
        let det = m.cast::<f64>().determinant();
        if !(det != 0.0 && det.is_finite()) {
            return Err(GeometryError::SingularMatrix);
        }
        Ok(Self::from_view_projection(m, depth))
    }

    /// The six planes: left, right, bottom, top, near, far.
    #[must_use]
    pub fn planes(&self) -> &[Plane; 6] {
        &self.planes
    }

    /// The near plane.
    #[must_use]
    pub fn near(&self) -> &Plane {
        &self.planes[Self::NEAR]
    }

    /// The far plane (offset `+inf` for an infinite projection).
    #[must_use]
    pub fn far(&self) -> &Plane {
        &self.planes[Self::FAR]
    }

    /// The eight corners, or `None` when one is not finite (an infinite far plane, a
    /// degenerate frustum). Corner `i` lies on the left (`i & 1 == 0`) or right plane, the
    /// bottom (`i & 2 == 0`) or top plane, and the near (`i & 4 == 0`) or far plane.
    #[must_use]
    pub fn corners(&self) -> Option<&[Point3<Real>; 8]> {
        self.corners.as_ref()
    }

    /// True when `p` is inside or on all six planes. False for NaN.
    #[must_use]
    pub fn contains_point(&self, p: &Point3<Real>) -> bool {
        self.planes.iter().all(|pl| pl.signed_distance(p) <= 0.0)
    }
}

type V64 = nalgebra::Vector3<f64>;

/// The frustum as a convex point set for separating-axis tests, in f64: finite vertices plus,
/// for an infinite far plane, the directions of the four side edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Hull {
    /// Vertices; the first `n_verts` are used (8 when bounded, the 4 near corners when not).
    pub verts: [V64; 8],
    pub n_verts: usize,
    /// Unit directions of the unbounded side edges (`n_rays` is 0 or 4).
    pub rays: [V64; 4],
    pub n_rays: usize,
    /// Edge directions; the first `n_edges` are used (12 bounded, 8 unbounded).
    pub edges: [V64; 12],
    pub n_edges: usize,
    /// Largest vertex coordinate magnitude, for tolerances.
    pub scale: f64,
}

impl Hull {
    fn of(planes: &[Plane; 6]) -> Option<Self> {
        let corner = |i: usize, z: &Plane| {
            intersect3(
                &planes[if i & 1 == 0 { 0 } else { 1 }],
                &planes[if i & 2 == 0 { 2 } else { 3 }],
                z,
            )
        };
        let mut h = Hull {
            verts: [V64::zeros(); 8],
            n_verts: 0,
            rays: [V64::zeros(); 4],
            n_rays: 0,
            edges: [V64::zeros(); 12],
            n_edges: 0,
            scale: 0.0,
        };
        let (near, far) = (&planes[4], &planes[5]);
        if far.offset == Real::INFINITY && far.normal.iter().all(|c| c.is_finite()) {
            let nn = near.normal.into_inner().cast::<f64>();
            for i in 0..4 {
                h.verts[i] = corner(i, near)?;
                let a = planes[if i & 1 == 0 { 0 } else { 1 }].normal.into_inner();
                let b = planes[if i & 2 == 0 { 2 } else { 3 }].normal.into_inner();
                let d = a.cast::<f64>().cross(&b.cast::<f64>());
                // Away from the near plane, into the depth of the frustum.
                let d = if d.dot(&nn) > 0.0 { -d } else { d };
                h.rays[i] = d.try_normalize(1e-12)?;
            }
            h.n_verts = 4;
            h.n_rays = 4;
            for (k, (a, b)) in [(0, 1), (2, 3), (0, 2), (1, 3)].into_iter().enumerate() {
                h.edges[k] = h.verts[b] - h.verts[a];
            }
            h.edges[4..8].copy_from_slice(&h.rays);
            h.n_edges = 8;
        } else {
            for i in 0..8 {
                h.verts[i] = corner(i, &planes[if i & 4 == 0 { 4 } else { 5 }])?;
            }
            h.n_verts = 8;
            let mut k = 0;
            for i in 0..8 {
                for bit in [1, 2, 4] {
                    if i & bit == 0 {
                        h.edges[k] = h.verts[i | bit] - h.verts[i];
                        k += 1;
                    }
                }
            }
            h.n_edges = k;
        }
        h.scale = h.verts[..h.n_verts]
            .iter()
            .flat_map(|v| v.iter())
            .fold(0.0f64, |m, x| m.max(x.abs()));
        Some(h)
    }

    /// The interval of the frustum projected on `axis` (infinite ends for side edges that
    /// run that way).
    pub fn project(&self, axis: &V64) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in &self.verts[..self.n_verts] {
            let d = axis.dot(v);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        for r in &self.rays[..self.n_rays] {
            let d = axis.dot(r);
            if d > 0.0 {
                hi = f64::INFINITY;
            }
            if d < 0.0 {
                lo = f64::NEG_INFINITY;
            }
        }
        (lo, hi)
    }

    /// Slack for "strictly separated": plane offsets and normals are f32, so a gap must
    /// exceed a few f32 ulps of the coordinates involved.
    pub fn tolerance(&self, other_scale: f64, axis_len: f64) -> f64 {
        8.0 * f64::from(Real::EPSILON) * self.scale.max(other_scale) * axis_len
    }
}

impl Frustum {
    pub(crate) fn hull(&self) -> Option<&Hull> {
        self.hull.as_ref()
    }
}

/// The point on three planes, in f64; `None` when they do not meet in one finite point.
fn intersect3(a: &Plane, b: &Plane, c: &Plane) -> Option<V64> {
    let n = |p: &Plane| p.normal.into_inner().cast::<f64>();
    let (n1, n2, n3) = (n(a), n(b), n(c));
    let (d1, d2, d3) = (a.offset as f64, b.offset as f64, c.offset as f64);
    let denom = n1.dot(&n2.cross(&n3));
    if !(denom.abs() > 1e-12) {
        return None;
    }
    let x = (n2.cross(&n3) * d1 + n3.cross(&n1) * d2 + n1.cross(&n2) * d3) / denom;
    x.iter().all(|c| c.is_finite()).then_some(x)
}
