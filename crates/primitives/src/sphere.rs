//! Spheres, and bounding spheres of point sets (Ritter's approximation and Welzl's exact
//! minimal sphere).

use crate::vec64::{cross, dot, sub, P64};
use crate::{Point3, Real};

/// A closed ball: every point within `radius` of `center`.
///
/// A radius of 0 is a point; a negative or NaN radius is an empty sphere that overlaps
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// The centre.
    pub center: Point3<Real>,
    /// The radius (>= 0 for a non-empty sphere).
    pub radius: Real,
}

impl Sphere {
    /// A sphere from its centre and radius, taken as given.
    #[must_use]
    pub const fn new(center: Point3<Real>, radius: Real) -> Self {
        Self { center, radius }
    }

    /// True when `p` lies inside or on the sphere. False for NaN anywhere.
    #[must_use]
    pub fn contains_point(&self, p: &Point3<Real>) -> bool {
        (p - self.center).norm_squared() <= self.radius * self.radius && self.radius >= 0.0
    }

    /// True when `radius < 0` or a component is NaN.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.radius >= 0.0 && self.center.iter().all(|c| !c.is_nan()))
    }

    /// Ritter's bounding sphere (1990): fast, not minimal (typically 5-20 % larger).
    ///
    /// Starts from the sphere over two far-apart points (the point farthest from the first
    /// point, and the one farthest from that), then grows it over every point outside.
    /// Computed in f64; the radius is then recomputed from the f32 centre and rounded up, so
    /// every point is inside the returned sphere. Non-finite points are ignored; `None` when
    /// no finite point is given. See also [`Sphere::from_points_minimal`].
    #[must_use]
    pub fn from_points(points: &[Point3<Real>]) -> Option<Self> {
        let pts = finite_f64(points);
        let first = *pts.first()?;
        let y = farthest(&pts, first);
        let z = farthest(&pts, y);
        let mut c = mid(y, z);
        let mut r2 = dist2(y, z) * 0.25;
        let mut r = r2.sqrt();
        for p in &pts {
            let d2 = dist2(*p, c);
            if d2 > r2 {
                let d = d2.sqrt();
                let new_r = 0.5 * (r + d);
                // Move the centre towards p so that the old sphere stays inside.
                let k = (new_r - r) / d;
                c = [
                    c[0] + (p[0] - c[0]) * k,
                    c[1] + (p[1] - c[1]) * k,
                    c[2] + (p[2] - c[2]) * k,
                ];
                r = new_r;
                r2 = r * r;
            }
        }
        Some(enclose(&pts, c))
    }

    /// The minimal bounding sphere (Welzl 1991, in the move-free iterative form with bounded
    /// recursion), in expected linear time.
    ///
    /// The points are shuffled with a fixed-seed generator, so the result is deterministic.
    /// Recursion depth is at most 4 whatever the input size. Computed in f64 with a relative
    /// tolerance of about 1e-12 for "on the sphere"; the radius is then recomputed from the
    /// f32 centre and rounded up, so every point is inside. Degenerate supports (collinear or
    /// coplanar points) are handled. Non-finite points are ignored; `None` when no finite
    /// point is given. See also [`Sphere::from_points`] (faster, larger).
    ///
    /// ```
    /// use raypick_primitives::{Point3, Sphere};
    /// // An obtuse triangle: the minimal sphere is spanned by its long edge.
    /// let pts = [Point3::new(-2.0, 0.0, 0.0), Point3::new(2.0, 0.0, 0.0), Point3::new(0.0, 0.5, 0.0)];
    /// let s = Sphere::from_points_minimal(&pts).unwrap();
    /// assert_eq!((s.center, s.radius), (Point3::origin(), 2.0));
    /// assert!(Sphere::from_points(&pts).unwrap().radius >= s.radius);
    /// ```
    #[must_use]
    pub fn from_points_minimal(points: &[Point3<Real>]) -> Option<Self> {
        let mut pts = finite_f64(points);
        if pts.is_empty() {
            return None;
        }
        shuffle(&mut pts);
        let scale = pts
            .iter()
            .flat_map(|p| p.iter())
            .fold(0.0f64, |m, c| m.max(c.abs()))
            .max(f64::MIN_POSITIVE);
        let ball = welzl(&pts, pts.len(), &mut Vec::with_capacity(4), scale);
        Some(enclose(&pts, ball.c))
    }
}

fn finite_f64(points: &[Point3<Real>]) -> Vec<P64> {
    points
        .iter()
        .filter(|p| p.iter().all(|c| c.is_finite()))
        .map(|p| [f64::from(p.x), f64::from(p.y), f64::from(p.z)])
        .collect()
}

fn dist2(a: P64, b: P64) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

fn mid(a: P64, b: P64) -> P64 {
    [
        0.5 * (a[0] + b[0]),
        0.5 * (a[1] + b[1]),
        0.5 * (a[2] + b[2]),
    ]
}

fn farthest(pts: &[P64], from: P64) -> P64 {
    let mut best = from;
    let mut best_d = -1.0;
    for p in pts {
        let d = dist2(*p, from);
        if d > best_d {
            best_d = d;
            best = *p;
        }
    }
    best
}

/// Rounds the centre to f32 and picks the smallest f32 radius that holds every point
/// (checked in f64).
fn enclose(pts: &[P64], c: P64) -> Sphere {
    let cf = Point3::new(c[0] as Real, c[1] as Real, c[2] as Real);
    let c64 = [f64::from(cf.x), f64::from(cf.y), f64::from(cf.z)];
    let r = pts
        .iter()
        .map(|p| dist2(*p, c64))
        .fold(0.0f64, f64::max)
        .sqrt();
    let mut rf = r as Real;
    if f64::from(rf) < r {
        rf = rf.next_up();
    }
    Sphere::new(cf, rf)
}

/// A small xorshift generator with a fixed seed: the shuffle must be deterministic.
fn shuffle(pts: &mut [P64]) {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..pts.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let j = (s % (i as u64 + 1)) as usize;
        pts.swap(i, j);
    }
}

#[derive(Clone, Copy, Debug)]
struct Ball {
    c: P64,
    r2: f64,
}

impl Ball {
    const EMPTY: Ball = Ball {
        c: [0.0; 3],
        r2: -1.0,
    };

    fn contains(&self, p: P64, scale: f64) -> bool {
        // Relative tolerance: a point on the sphere must not restart the search by rounding.
        let tol = 1e-12 * (self.r2.max(0.0) + scale * scale);
        dist2(p, self.c) <= self.r2 + tol
    }
}

/// Welzl's recursion with the point loop made iterative: `support` grows by one point per
/// level, so the depth is at most 4.
fn welzl(pts: &[P64], n: usize, support: &mut Vec<P64>, scale: f64) -> Ball {
    let mut ball = ball_on(support);
    if support.len() == 4 {
        return ball;
    }
    for i in 0..n {
        if !ball.contains(pts[i], scale) {
            support.push(pts[i]);
            ball = welzl(pts, i, support, scale);
            support.pop();
        }
    }
    ball
}

/// The smallest ball with every support point on its boundary; when the support is
/// degenerate (collinear or coplanar), the smallest ball containing the support.
fn ball_on(s: &[P64]) -> Ball {
    match s.len() {
        0 => Ball::EMPTY,
        1 => Ball { c: s[0], r2: 0.0 },
        2 => two(s[0], s[1]),
        3 => three(s[0], s[1], s[2]).unwrap_or_else(|| min_ball_brute(s)),
        _ => four(s[0], s[1], s[2], s[3]).unwrap_or_else(|| min_ball_brute(s)),
    }
}

fn two(a: P64, b: P64) -> Ball {
    Ball {
        c: mid(a, b),
        r2: dist2(a, b) * 0.25,
    }
}

/// Circumcircle of a triangle, in its plane. `None` when collinear.
fn three(a: P64, b: P64, c: P64) -> Option<Ball> {
    let ab = sub(b, a);
    let ac = sub(c, a);
    let n = cross(ab, ac);
    let nn = dot(n, n);
    if !(nn > 1e-24 * dot(ab, ab) * dot(ac, ac)) {
        return None;
    }
    // Circumcentre offset from a: ((|ac|^2 n x ab) + (|ab|^2 ac x n)) / (2 |n|^2).
    let t1 = cross(n, ab);
    let t2 = cross(ac, n);
    let (l1, l2) = (dot(ac, ac), dot(ab, ab));
    let k = 0.5 / nn;
    let o = [
        (l1 * t1[0] + l2 * t2[0]) * k,
        (l1 * t1[1] + l2 * t2[1]) * k,
        (l1 * t1[2] + l2 * t2[2]) * k,
    ];
    let c0 = [a[0] + o[0], a[1] + o[1], a[2] + o[2]];
    let r2 = [a, b, c].iter().map(|p| dist2(*p, c0)).fold(0.0, f64::max);
    r2.is_finite().then_some(Ball { c: c0, r2 })
}

/// Circumsphere of a tetrahedron. `None` when the points are (nearly) coplanar.
fn four(a: P64, b: P64, c: P64, d: P64) -> Option<Ball> {
    let (u, v, w) = (sub(b, a), sub(c, a), sub(d, a));
    let det = dot(u, cross(v, w));
    let scale = (dot(u, u) * dot(v, v) * dot(w, w)).sqrt();
    if !(det.abs() > 1e-12 * scale) {
        return None;
    }
    let (lu, lv, lw) = (dot(u, u), dot(v, v), dot(w, w));
    let (vw, wu, uv) = (cross(v, w), cross(w, u), cross(u, v));
    let k = 0.5 / det;
    let o = [
        (lu * vw[0] + lv * wu[0] + lw * uv[0]) * k,
        (lu * vw[1] + lv * wu[1] + lw * uv[1]) * k,
        (lu * vw[2] + lv * wu[2] + lw * uv[2]) * k,
    ];
    let c0 = [a[0] + o[0], a[1] + o[1], a[2] + o[2]];
    let r2 = [a, b, c, d]
        .iter()
        .map(|p| dist2(*p, c0))
        .fold(0.0, f64::max);
    r2.is_finite().then_some(Ball { c: c0, r2 })
}

/// The smallest ball containing up to four points, by trying every pair and triple.
fn min_ball_brute(s: &[P64]) -> Ball {
    let holds = |b: &Ball| {
        s.iter()
            .all(|p| dist2(*p, b.c) <= b.r2 * (1.0 + 1e-12) + 1e-300)
    };
    let mut best: Option<Ball> = None;
    let mut consider = |b: Ball| {
        if holds(&b) && best.is_none_or(|x| b.r2 < x.r2) {
            best = Some(b);
        }
    };
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            consider(two(s[i], s[j]));
            for k in j + 1..s.len() {
                if let Some(b) = three(s[i], s[j], s[k]) {
                    consider(b);
                }
            }
        }
    }
    best.unwrap_or_else(|| {
        // Unreachable in practice: the widest pair's ball, grown to hold everything.
        let c = s
            .iter()
            .fold([0.0; 3], |m, p| [m[0] + p[0], m[1] + p[1], m[2] + p[2]]);
        let n = s.len().max(1) as f64;
        let c = [c[0] / n, c[1] / n, c[2] / n];
        let r2 = s.iter().map(|p| dist2(*p, c)).fold(0.0, f64::max);
        Ball { c, r2 }
    })
}
