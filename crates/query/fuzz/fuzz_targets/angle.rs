//! The f64 oracles' solid angle, shared by the targets.

use raypick_primitives::Vector3;

/// The signed solid angle of a triangle seen from a point, over 4π (its term of the
/// winding number), from its corners relative to the point (Van Oosterom and Strackee).
pub fn winding_term(a: Vector3<f64>, b: Vector3<f64>, c: Vector3<f64>) -> f64 {
    let det = a.dot(&b.cross(&c));
    let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
    let den = la * lb * lc + a.dot(&b) * lc + b.dot(&c) * la + c.dot(&a) * lb;
    det.atan2(den) / (2.0 * std::f64::consts::PI)
}
