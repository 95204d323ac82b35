//! [`BoxRay`]: a ray prepared once for many box tests, shared by the binary and the wide
//! traversals.

use raypick_primitives::ray_aabb::ROBUST_EXIT_SCALE;
use raypick_primitives::{Ray, Real, WatertightRay};

/// `1 / ROBUST_EXIT_SCALE`, as `RayAabbPrecomp::intersect_robust` pads negative exits.
pub(crate) const INV_EXIT_SCALE: f32 = 1.0 / ROBUST_EXIT_SCALE;

/// A ray prepared for the robust slab test of
/// [`RayAabbPrecomp::intersect_robust`](raypick_primitives::RayAabbPrecomp::intersect_robust)
/// (Ize 2013): the same f32 divisions and sign bits, with the exit padding folded into the
/// inverse direction. Prepare it once per ray and hand it to the traversals
/// ([`WideBvh::traverse_ray_visit`](crate::wide::WideBvh::traverse_ray_visit)).
///
/// A ray with a NaN or infinite component or a zero direction is kept but marked invalid
/// ([`BoxRay::is_valid`]); traversals visit nothing for it.
///
/// ```
/// use raypick_bvh::BoxRay;
/// use raypick_primitives::{Point3, Ray, Vector3};
///
/// let ok = BoxRay::new(&Ray::new(Point3::origin(), Vector3::x()));
/// assert!(ok.is_valid());
/// let zero = BoxRay::new(&Ray::new(Point3::origin(), Vector3::zeros()));
/// assert!(!zero.is_valid());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct BoxRay {
    pub(crate) o: [f32; 3],
    pub(crate) inv: [f32; 3],
    /// `inv * ROBUST_EXIT_SCALE`: exits are padded by multiplying the slab distance by it
    /// (the same four roundings as padding the product, one multiply fewer per node).
    pub(crate) inv_up: [f32; 3],
    /// `inv * INV_EXIT_SCALE`, for negative exits.
    pub(crate) inv_down: [f32; 3],
    /// Per axis, 1 when the direction's sign bit is set (the near plane is then `max`).
    pub(crate) neg: [usize; 3],
    valid: bool,
}

impl BoxRay {
    /// Prepares `ray` (see the type's doc for invalid rays).
    #[must_use]
    #[inline(always)]
    pub fn new(ray: &Ray) -> Self {
        let (o, d) = (&ray.origin, &ray.dir);
        let d = [d.x, d.y, d.z];
        Self::from_parts([o.x, o.y, o.z], d, d.map(|c| 1.0 / c), ray.is_valid())
    }

    /// The same ray as `w`, the ray prepared for the watertight triangle test, whose validity
    /// is reused rather than checked again (a mesh query prepares both per ray).
    #[must_use]
    #[inline(always)]
    pub fn from_watertight(w: &WatertightRay) -> Self {
        let d = w.dir();
        Self::from_parts(w.origin, d, d.map(|c| 1.0 / c), w.valid)
    }

    /// [`BoxRay::from_watertight`] given `inv`, the reciprocals of `w.dir()` (from
    /// [`WatertightRay::with_reciprocals`]), instead of dividing again.
    #[must_use]
    #[inline(always)]
    pub fn from_watertight_reciprocals(w: &WatertightRay, inv: [f32; 3]) -> Self {
        Self::from_parts(w.origin, w.dir(), inv, w.valid)
    }

    /// The constants of `RayAabbPrecomp::new` from a ray's origin and direction, and whether
    /// the ray is valid.
    #[inline(always)]
    fn from_parts(origin: [f32; 3], dir: [f32; 3], inv: [f32; 3], valid: bool) -> Self {
        Self {
            o: origin,
            inv,
            inv_up: inv.map(|i| i * ROBUST_EXIT_SCALE),
            inv_down: inv.map(|i| i * INV_EXIT_SCALE),
            neg: dir.map(|d| usize::from(d.is_sign_negative())),
            valid,
        }
    }

    /// False when the ray has a NaN or infinite component or a zero direction: it enters no
    /// box.
    #[must_use]
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// True when the direction's sign bit is set on axis `a` (the near plane is `max`).
    #[inline(always)]
    pub(crate) fn negative(&self, a: usize) -> bool {
        self.neg[a % 3] != 0
    }

    /// The row of a wide node's bounds (`min_x, min_y, min_z, max_x, max_y, max_z`) holding
    /// axis `a`'s near plane (min, or max when the direction is negative). Written so the
    /// compiler sees it is below 6: no bounds check.
    #[inline(always)]
    pub(crate) fn near_row(&self, a: usize) -> usize {
        near_row(&self.neg, a)
    }

    /// The row of axis `a`'s far plane.
    #[inline(always)]
    pub(crate) fn far_row(&self, a: usize) -> usize {
        far_row(&self.neg, a)
    }

    /// Entry distance into the box `[min, max]` within `[t_min, t_max]`, or `None`: the
    /// arithmetic of `RayAabbPrecomp::intersect_robust` (NaN, from a ray in a face plane,
    /// loses every comparison; the exit padded outwards for either sign). The box is assumed
    /// non-empty (tree nodes are).
    #[inline(always)]
    pub(crate) fn enter(
        &self,
        min: &[f32; 3],
        max: &[f32; 3],
        t_min: Real,
        t_max: Real,
    ) -> Option<Real> {
        let mut near = t_min;
        let mut far = t_max;
        for a in 0..3 {
            let (lo, hi) = if self.negative(a) {
                (max[a], min[a])
            } else {
                (min[a], max[a])
            };
            let tn = (lo - self.o[a]) * self.inv[a];
            let d = hi - self.o[a];
            let (up, down) = (d * self.inv_up[a], d * self.inv_down[a]);
            let tf = if up > down { up } else { down };
            if tn > near {
                near = tn;
            }
            if tf < far {
                far = tf;
            }
        }
        if near <= far {
            Some(near)
        } else {
            None
        }
    }
}

/// The row of a wide node's bounds (`min_x, min_y, min_z, max_x, max_y, max_z`) holding axis
/// `a`'s near plane for directions of signs `neg` (1: negative, the near plane is then
/// `max`). Written so the compiler sees it is below 6: no bounds check.
#[inline(always)]
pub(crate) fn near_row(neg: &[usize; 3], a: usize) -> usize {
    3 * (neg[a] & 1) + a % 3
}

/// The row of axis `a`'s far plane (see [`near_row`]).
#[inline(always)]
pub(crate) fn far_row(neg: &[usize; 3], a: usize) -> usize {
    3 * ((neg[a] ^ 1) & 1) + a % 3
}

#[cfg(test)]
mod tests {
    use raypick_primitives::{Point3, Ray, Vector3, WatertightRay};

    use super::BoxRay;

    fn bits(b: &BoxRay) -> Vec<u32> {
        [b.o, b.inv, b.inv_up, b.inv_down]
            .iter()
            .flatten()
            .map(|x| x.to_bits())
            .chain(b.neg.iter().map(|&n| n as u32))
            .chain([u32::from(b.valid)])
            .collect()
    }

    /// The reciprocals `with_reciprocals` hands over give the box test the same constants,
    /// bit for bit, as dividing the watertight ray's direction again, on the components it
    /// zeroes (subnormal, or beyond f32's range below the dominant one), signed zeros, and
    /// invalid rays.
    #[test]
    fn reciprocals_match_dividing_again() {
        let tiny = f32::MIN_POSITIVE;
        let comps = [
            1.0,
            -2.5,
            0.0,
            -0.0,
            tiny,
            -tiny * 0.5,
            1e-30,
            -3e-39,
            7e30,
            f32::INFINITY,
            f32::NAN,
            f32::MAX,
        ];
        let mut n = 0;
        for &x in &comps {
            for &y in &comps {
                for &z in &comps {
                    let ray = Ray::new(Point3::new(0.5, -1.0, 2.0), Vector3::new(x, y, z));
                    let (w, inv) = WatertightRay::with_reciprocals(&ray);
                    assert_eq!(
                        w.dir().map(f32::to_bits),
                        WatertightRay::new(&ray).dir().map(f32::to_bits)
                    );
                    let again = BoxRay::from_watertight(&w);
                    let given = BoxRay::from_watertight_reciprocals(&w, inv);
                    assert_eq!(bits(&again), bits(&given), "direction {x} {y} {z}");
                    n += usize::from(w.valid);
                }
            }
        }
        assert!(n > 100, "{n} valid rays");
    }
}
