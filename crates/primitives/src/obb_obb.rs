//! Oriented box against oriented box overlap: the separating-axis test (Gottschalk 1996,
//! Ericson 4.4.1).

use crate::Obb;
use nalgebra::Matrix3;

/// Added to `|R|` so that nearly parallel edge pairs, whose cross product is almost zero,
/// cannot produce a false separation through rounding (Ericson's epsilon).
const PARALLEL_EPS: f64 = 1e-9;

/// True when the two (closed) oriented boxes share a point.
///
/// Tests the 15 candidate separating axes: the 3 + 3 face normals and the 9 cross products
/// of edge directions, in f64. Nearly parallel edges are handled by padding `|R|` with a
/// small epsilon, which can only make the test more conservative (a gap below about 1e-9
/// times the box size may count as overlap). Touching counts. A negative half-extent
/// (empty box), or a NaN or infinity anywhere, gives `false`.
///
/// ```
/// use raypick_primitives::{obb_obb, Obb, Point3, Vector3};
/// use nalgebra::Rotation3;
/// let a = Obb::new(Point3::origin(), Vector3::new(1.0, 1.0, 1.0), Rotation3::identity());
/// let turned = Rotation3::from_axis_angle(&Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
/// // A cube turned 45 degrees reaches sqrt(2) ~ 1.414 along x.
/// let b = |x: f32| Obb::new(Point3::new(x, 0.0, 0.0), Vector3::new(1.0, 1.0, 1.0), turned);
/// assert!(obb_obb(&a, &b(2.4)));
/// assert!(!obb_obb(&a, &b(2.45)));
/// ```
#[must_use]
pub fn obb_obb(a: &Obb, b: &Obb) -> bool {
    let finite = |o: &Obb| {
        o.center.iter().all(|c| c.is_finite())
            && o.half_extents.iter().all(|h| h.is_finite() && *h >= 0.0)
            && o.rotation.matrix().iter().all(|c| c.is_finite())
    };
    if !finite(a) || !finite(b) {
        return false;
    }
    let ra_m = a.rotation.matrix().cast::<f64>();
    let rb_m = b.rotation.matrix().cast::<f64>();
    let ea = a.half_extents.cast::<f64>();
    let eb = b.half_extents.cast::<f64>();
    // b's axes in a's frame, and the centre offset in a's frame.
    let r: Matrix3<f64> = ra_m.transpose() * rb_m;
    let t = ra_m.transpose() * (b.center.coords.cast::<f64>() - a.center.coords.cast::<f64>());
    let abs_r = r.map(|x| x.abs() + PARALLEL_EPS);

    // a's face normals.
    for i in 0..3 {
        let rb = eb[0] * abs_r[(i, 0)] + eb[1] * abs_r[(i, 1)] + eb[2] * abs_r[(i, 2)];
        if t[i].abs() > ea[i] + rb {
            return false;
        }
    }
    // b's face normals.
    for j in 0..3 {
        let ra = ea[0] * abs_r[(0, j)] + ea[1] * abs_r[(1, j)] + ea[2] * abs_r[(2, j)];
        let d = t[0] * r[(0, j)] + t[1] * r[(1, j)] + t[2] * r[(2, j)];
        if d.abs() > ra + eb[j] {
            return false;
        }
    }
    // Edge cross products: axis a_i x b_j.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = ea[i1] * abs_r[(i2, j)] + ea[i2] * abs_r[(i1, j)];
            let rb = eb[j1] * abs_r[(i, j2)] + eb[j2] * abs_r[(i, j1)];
            let d = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
            if d.abs() > ra + rb {
                return false;
            }
        }
    }
    true
}
