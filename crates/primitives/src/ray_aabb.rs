//! Ray against axis-aligned box: the slab method.
//!
//! Near and far planes are chosen per axis by the sign bit of the inverse direction, and the
//! running interval is updated with comparisons that a NaN loses. That makes every direction
//! component work, including +0, -0 and subnormals: a ray parallel to a slab and outside it
//! gets an infinite entry (miss); a ray lying exactly in a face plane gets `0 * inf = NaN`
//! for that plane, which is ignored, so it hits (boxes are closed).

use crate::{Aabb, Ray, Real};

/// `1 + 2 * gamma(3)` with `gamma(n) = n eps / (1 - n eps)` (Ize 2013, PBRT): scaling the exit
/// distance by it makes the box test conservative against the rounding of the slab arithmetic.
pub const ROBUST_EXIT_SCALE: Real =
    1.0 + 2.0 * (3.0 * (Real::EPSILON * 0.5)) / (1.0 - 3.0 * (Real::EPSILON * 0.5));

/// A ray prepared for many box tests: origin, inverse direction and per-axis sign.
///
/// Build it once per ray ([`RayAabbPrecomp::new`]) and call [`RayAabbPrecomp::intersect`] or
/// [`RayAabbPrecomp::intersect_robust`] per box. `valid` is false when the origin or direction
/// holds a NaN or an infinity, or the direction is zero; such a ray hits nothing.
#[derive(Clone, Copy, Debug)]
pub struct RayAabbPrecomp {
    /// Ray origin.
    pub origin: [Real; 3],
    /// `1 / dir` per axis (±inf for a ±0 component).
    pub inv_dir: [Real; 3],
    /// True where the direction's sign bit is set (so the far plane is `min`).
    pub neg: [bool; 3],
    /// False for rays that can hit nothing (non-finite or zero direction).
    pub valid: bool,
}

impl RayAabbPrecomp {
    /// Prepares `ray` for box tests.
    #[inline]
    #[must_use]
    pub fn new(ray: &Ray) -> Self {
        let o = [ray.origin.x, ray.origin.y, ray.origin.z];
        let d = [ray.dir.x, ray.dir.y, ray.dir.z];
        let inv_dir = [1.0 / d[0], 1.0 / d[1], 1.0 / d[2]];
        let neg = [
            d[0].is_sign_negative(),
            d[1].is_sign_negative(),
            d[2].is_sign_negative(),
        ];
        let valid = ray.is_valid();
        Self {
            origin: o,
            inv_dir,
            neg,
            valid,
        }
    }

    /// The ray's parameter interval inside `aabb`, clipped to `[t_min, t_max]`, or `None`.
    ///
    /// Exact slab arithmetic (not padded). A NaN in the box, the ray or the bounds never hits.
    #[inline]
    #[must_use]
    pub fn intersect(&self, aabb: &Aabb, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
        self.slabs(aabb, t_min, t_max, 1.0)
    }

    /// Like [`RayAabbPrecomp::intersect`], but each slab's exit distance is padded outwards
    /// by the relative amount [`ROBUST_EXIT_SCALE`] (Ize 2013), so that rounding never drops a
    /// box the ray touches (also for negative exits when `t_min < 0`). Used by BVH traversal.
    #[inline]
    #[must_use]
    pub fn intersect_robust(&self, aabb: &Aabb, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
        self.slabs(aabb, t_min, t_max, ROBUST_EXIT_SCALE)
    }

    #[inline(always)]
    fn slabs(
        &self,
        aabb: &Aabb,
        t_min: Real,
        t_max: Real,
        exit_scale: Real,
    ) -> Option<(Real, Real)> {
        let lo = [aabb.min.x, aabb.min.y, aabb.min.z];
        let hi = [aabb.max.x, aabb.max.y, aabb.max.z];
        let mut near = t_min;
        let mut far = t_max;
        for a in 0..3 {
            let (n, f) = if self.neg[a] {
                (hi[a], lo[a])
            } else {
                (lo[a], hi[a])
            };
            let inv = self.inv_dir[a];
            let tn = (n - self.origin[a]) * inv;
            // Pad the exit outwards, i.e. towards +inf: scale up a positive exit, scale down the
            // magnitude of a negative one (possible when t_min < 0). The scale is folded into
            // the inverse direction: `(f - o) * (inv * s)` has the same four roundings as
            // `((f - o) * inv) * s`, so the same bound holds, with one multiply fewer after the
            // subtraction (the wide kernels' dependency chain). The larger of the two is the
            // padded exit for either sign.
            let d = f - self.origin[a];
            let up = d * (inv * exit_scale);
            let down = d * (inv * (1.0 / exit_scale));
            let tf = if up > down { up } else { down };
            // NaN (0 * inf: the ray lies in this face plane) loses both comparisons.
            if tn > near {
                near = tn;
            }
            if tf < far {
                far = tf;
            }
        }
        // A NaN box coordinate is not caught above when it meets an infinite inv_dir; check.
        if self.valid && near <= far && !aabb.is_empty() {
            Some((near, far))
        } else {
            None
        }
    }
}

/// Ray against box: the interval `(t_enter, t_exit)` of `ray` inside `aabb`, clipped to
/// `[t_min, t_max]`, or `None` on a miss.
///
/// When the origin is inside the box, `t_enter` is `t_min` (0 for the usual query), as the
/// "hit and distance" contract asks. Boxes are closed: a ray grazing a face, edge or corner, or
/// lying in a face plane, hits. A NaN anywhere (ray, box or bounds), an infinite origin, or a
/// zero direction never hits. Direction components of +0, -0 and subnormal size work.
///
/// ```
/// use raypick_primitives::{ray_aabb, Aabb, Point3, Ray, Vector3};
/// let b = Aabb::new(Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 1.0, 1.0));
/// let inside = Ray::new(Point3::new(0.5, 0.5, 0.5), Vector3::new(0.0, 0.0, 1.0));
/// assert_eq!(ray_aabb(&inside, &b, 0.0, 10.0), Some((0.0, 0.5)));
/// let away = Ray::new(Point3::new(0.5, 0.5, 2.0), Vector3::new(0.0, 0.0, 1.0));
/// assert_eq!(ray_aabb(&away, &b, 0.0, 10.0), None);
/// ```
#[must_use]
pub fn ray_aabb(ray: &Ray, aabb: &Aabb, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
    RayAabbPrecomp::new(ray).intersect(aabb, t_min, t_max)
}

/// The conservative variant of [`ray_aabb()`] for BVH traversal: the exit distance is padded by
/// a few ulps (Ize 2013), so a box the ray touches is never rejected through rounding. It may
/// accept a box the ray misses by a few ulps.
#[must_use]
pub fn ray_aabb_robust(ray: &Ray, aabb: &Aabb, t_min: Real, t_max: Real) -> Option<(Real, Real)> {
    RayAabbPrecomp::new(ray).intersect_robust(aabb, t_min, t_max)
}
