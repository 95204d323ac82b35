//! Merging the hits of one surface crossing for `all_hits` (see [`Mesh::all_hits`] for the
//! rule).
//!
//! While the query runs, a pending [`Hit`] carries its leaf slot in `triangle` and
//! bookkeeping in `point` (x: the kernel's zero-weight mask, y: 1 once its group is settled,
//! z: 1 when merged away); the caller fills the real fields afterwards. This keeps the
//! merge free of allocation, in the caller's vector only.

use raypick_primitives::{Point3, Real, Vector3};

use super::triangle_kernel::{RawHit, TriangleRay, ZERO_A, ZERO_B, ZERO_C};
use super::{Hit, Mesh};

/// A hit as collected during traversal, before merging.
pub(super) fn pending(pos: usize, h: &RawHit) -> Hit {
    Hit {
        t: h.t,
        triangle: pos as u32,
        u: h.u,
        v: h.v,
        point: Point3::new(Real::from(h.zero), 0.0, 0.0),
        normal: Vector3::z_axis(),
        front_face: h.front_face,
    }
}

fn zero(h: &Hit) -> u8 {
    h.point.x as u8
}
fn settled(h: &Hit) -> bool {
    h.point.y != 0.0
}
fn removed(h: &Hit) -> bool {
    h.point.z != 0.0
}

/// Bit pattern of a position, with -0 and +0 made equal.
fn key(p: &Point3<Real>) -> [u32; 3] {
    [
        (p.x + 0.0).to_bits(),
        (p.y + 0.0).to_bits(),
        (p.z + 0.0).to_bits(),
    ]
}

/// The mesh feature a boundary hit lies on.
#[derive(Clone, Copy, PartialEq)]
enum Feature {
    /// A vertex, by position.
    Vertex([u32; 3]),
    /// An edge, by its end positions in canonical order.
    Edge([u32; 3], [u32; 3]),
}

/// What one hit contributes to its group.
#[derive(Clone, Copy)]
struct Part {
    feature: Feature,
    /// Edge: the triangle's winding runs from the canonical first end to the second.
    forward: bool,
    /// Vertex: the other two corners in winding order.
    wedge: [Point3<Real>; 2],
}

fn part(mesh: &Mesh, h: &Hit) -> Option<Part> {
    let [a, b, c] = mesh.tris.get(h.triangle as usize);
    let vertex = |v: Point3<Real>, p, q| Part {
        feature: Feature::Vertex(key(&v)),
        forward: true,
        wedge: [p, q],
    };
    let edge = |p: Point3<Real>, q: Point3<Real>| {
        let (kp, kq) = (key(&p), key(&q));
        Part {
            feature: if kp < kq {
                Feature::Edge(kp, kq)
            } else {
                Feature::Edge(kq, kp)
            },
            forward: kp < kq,
            wedge: [p, q],
        }
    };
    match zero(h) {
        m if m == ZERO_A | ZERO_B => Some(vertex(c, a, b)),
        m if m == ZERO_B | ZERO_C => Some(vertex(a, b, c)),
        m if m == ZERO_A | ZERO_C => Some(vertex(b, c, a)),
        ZERO_A => Some(edge(b, c)),
        ZERO_B => Some(edge(c, a)),
        ZERO_C => Some(edge(a, b)),
        _ => None,
    }
}

fn sign(front: bool) -> i64 {
    if front {
        1
    } else {
        -1
    }
}

fn cross(p: [Real; 2], q: [Real; 2]) -> f64 {
    // Exact sign: f32 products are exact in f64.
    f64::from(p[0]) * f64::from(q[1]) - f64::from(p[1]) * f64::from(q[0])
}

/// The unsettled boundary hits from `i` on that lie on `feature`.
fn group<'a>(
    mesh: &'a Mesh,
    hits: &'a [Hit],
    i: usize,
    feature: Feature,
) -> impl Iterator<Item = (usize, Part)> + 'a {
    (i..hits.len()).filter_map(move |j| {
        let h = &hits[j];
        if zero(h) == 0 || settled(h) {
            return None;
        }
        let p = part(mesh, h)?;
        (p.feature == feature).then_some((j, p))
    })
}

/// Merges the hits of each crossing through an edge or a vertex; see [`Mesh::all_hits`].
pub(super) fn merge_crossings(mesh: &Mesh, k: &TriangleRay, hits: &mut Vec<Hit>) {
    if hits.iter().filter(|h| zero(h) != 0).count() < 2 {
        return;
    }
    let n = hits.len();
    for i in 0..n {
        if zero(&hits[i]) == 0 || settled(&hits[i]) {
            continue;
        }
        let Some(pi) = part(mesh, &hits[i]) else {
            continue;
        };
        if group(mesh, hits, i, pi.feature).nth(1).is_none() {
            hits[i].point.y = 1.0;
            continue;
        }
        let prim = |j: usize, hits: &[Hit]| mesh.tris.prim(hits[j].triangle as usize);
        // Largest signed coverage around the feature, and the facing that reaches it
        // (None when both facings do).
        let (count, facing) = match pi.feature {
            Feature::Edge(..) => {
                let (mut left, mut right) = (0i64, 0i64);
                for (j, p) in group(mesh, hits, i, pi.feature) {
                    let s = sign(hits[j].front_face);
                    // The third corner lies left of the canonical edge exactly when the
                    // winding runs along it and the face is front (or against it and back).
                    if p.forward == (s > 0) {
                        left += s;
                    } else {
                        right += s;
                    }
                }
                let m = left.abs().max(right.abs());
                let pos = left == m || right == m;
                let neg = left == -m || right == -m;
                (m, (pos != neg).then_some(pos))
            }
            Feature::Vertex(..) => {
                // Each triangle covers the wedge between its two other corners (less than a
                // half turn) as seen along the ray, with its facing's sign; the vertex itself
                // shears to the origin exactly. Probe every wedge boundary.
                let wedge = |j: usize, p: &Part| {
                    let (s, e) = (k.shear_xy(&p.wedge[0]), k.shear_xy(&p.wedge[1]));
                    let (s, e) = if cross(s, e) > 0.0 { (s, e) } else { (e, s) };
                    (s, e, sign(hits[j].front_face))
                };
                let (mut m, mut pos, mut neg) = (0i64, false, false);
                for (j, p) in group(mesh, hits, i, pi.feature) {
                    let (s, e, _) = wedge(j, &p);
                    for probe in [s, e] {
                        let c: i64 = group(mesh, hits, i, pi.feature)
                            .map(|(j2, p2)| {
                                let (s2, e2, sg) = wedge(j2, &p2);
                                if cross(s2, probe) >= 0.0 && cross(probe, e2) > 0.0 {
                                    sg
                                } else {
                                    0
                                }
                            })
                            .sum();
                        if c.abs() > m {
                            (m, pos, neg) = (c.abs(), c > 0, c < 0);
                        } else if c.abs() == m {
                            pos |= c > 0;
                            neg |= c < 0;
                        }
                    }
                }
                (m, (pos != neg).then_some(pos))
            }
        };
        // Keep the lowest-index hit(s) of the winning facing, or one of each for a touch.
        let facing = facing.unwrap_or_else(|| {
            let j = group(mesh, hits, i, pi.feature)
                .map(|(j, _)| j)
                .min_by_key(|&j| prim(j, hits));
            j.is_some_and(|j| hits[j].front_face)
        });
        let picks = if count == 0 {
            [(true, 1), (false, 1)]
        } else {
            [(facing, count), (!facing, 0)]
        };
        for (face, want) in picks {
            for _ in 0..want {
                let next = group(mesh, hits, i, pi.feature)
                    .map(|(j, _)| j)
                    .filter(|&j| hits[j].front_face == face)
                    .min_by_key(|&j| prim(j, hits));
                let Some(j) = next else { break };
                // NaN marks a pick: settled (so the next pick skips it) but not yet final.
                hits[j].point.y = Real::NAN;
            }
        }
        for h in &mut hits[i..] {
            if h.point.y.is_nan() {
                h.point.y = 1.0;
            } else if zero(h) != 0
                && !settled(h)
                && part(mesh, h).is_some_and(|p| p.feature == pi.feature)
            {
                h.point.y = 1.0;
                h.point.z = 1.0;
            }
        }
    }
    hits.retain(|h| !removed(h));
}
