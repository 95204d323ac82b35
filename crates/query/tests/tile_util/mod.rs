//! Shared support for the coherent-batch tests (`mesh_coherent`, `scene_coherent`): a test
//! camera that renders 4 x 4 tiles of rays, the frames both take around a box, invalid and
//! edge rays put into tiles, scattered and interrupted batches, and the ray-for-ray
//! comparison of `closest_hit_coherent` against `closest_hit` on a `Mesh` or a `Scene`.
#![allow(dead_code)]

use std::fmt::Debug;
use std::iter::Cycle;
use std::slice::Chunks;

use parry3d::shape::FeatureId;
use raypick_primitives::{Aabb, Cull, Isometry3, Point3, Ray, Vector3};
use raypick_query::scene::{HitGeometry, Scene, SceneError, SceneHit, SceneQuery, SharedShape};
use raypick_query::{Hit, Mesh, MeshError, RayQuery};
use raypick_test_support::Rng;

/// Rays per packet and tile (`raypick_bvh::wide::PACKET_RAYS`).
pub const TILE: usize = 16;
/// Rays per parallel chunk of a batch (`par::CHUNK`).
pub const CHUNK: usize = 256;

// ---- answers and their comparison ----

/// What answers a batch of rays both coherently and one ray at a time: a [`Mesh`] asked
/// with a [`RayQuery`], a [`Scene`] asked with a [`SceneQuery`].
pub trait Coherent<Q> {
    type Hit: Clone + PartialEq + Debug;
    type Error: PartialEq + Debug;
    /// A value no query returns: a slot the call leaves unwritten fails the comparison.
    fn sentinel() -> Option<Self::Hit>;
    /// The error of a batch of `inputs` rays into `outputs` slots.
    fn length_mismatch(inputs: usize, outputs: usize) -> Self::Error;
    /// `closest_hit_coherent`.
    fn coherent_into(
        &self,
        rays: &[Ray],
        q: &Q,
        out: &mut [Option<Self::Hit>],
    ) -> Result<(), Self::Error>;
    /// `closest_hit`.
    fn single(&self, ray: &Ray, q: &Q) -> Option<Self::Hit>;
}

impl Coherent<RayQuery> for Mesh {
    type Hit = Hit;
    type Error = MeshError;

    fn sentinel() -> Option<Hit> {
        Some(Hit {
            t: -12345.0,
            triangle: u32::MAX - 7,
            u: 0.25,
            v: 0.5,
            point: Point3::new(1.0, 2.0, 3.0),
            normal: Vector3::x_axis(),
            front_face: true,
        })
    }

    fn length_mismatch(inputs: usize, outputs: usize) -> MeshError {
        MeshError::BatchLengthMismatch { inputs, outputs }
    }

    fn coherent_into(
        &self,
        rays: &[Ray],
        q: &RayQuery,
        out: &mut [Option<Hit>],
    ) -> Result<(), MeshError> {
        self.closest_hit_coherent(rays, q, out)
    }

    fn single(&self, ray: &Ray, q: &RayQuery) -> Option<Hit> {
        self.closest_hit(ray, q)
    }
}

impl<'a> Coherent<SceneQuery<'a>> for Scene {
    type Hit = SceneHit;
    type Error = SceneError;

    fn sentinel() -> Option<SceneHit> {
        let mut s = Scene::new();
        let id = s
            .add_shape(SharedShape::ball(1.0), &Isometry3::identity())
            .unwrap();
        Some(SceneHit {
            instance: id,
            geometry: HitGeometry::Shape {
                feature: FeatureId::Face(u32::MAX - 7),
            },
            t: -12345.0,
            point: Point3::new(1.0, 2.0, 3.0),
            normal: Vector3::x_axis(),
            front_face: true,
            user_data: 0xDEAD_BEEF,
        })
    }

    fn length_mismatch(inputs: usize, outputs: usize) -> SceneError {
        SceneError::BatchLengthMismatch { inputs, outputs }
    }

    fn coherent_into(
        &self,
        rays: &[Ray],
        q: &SceneQuery<'a>,
        out: &mut [Option<SceneHit>],
    ) -> Result<(), SceneError> {
        self.closest_hit_coherent(rays, q, out)
    }

    fn single(&self, ray: &Ray, q: &SceneQuery<'a>) -> Option<SceneHit> {
        self.closest_hit(ray, q)
    }
}

/// The coherent answers of `rays`, into slots that held [`Coherent::sentinel`].
pub fn coherent<Q, T: Coherent<Q>>(t: &T, rays: &[Ray], q: &Q) -> Vec<Option<T::Hit>> {
    let mut out = vec![T::sentinel(); rays.len()];
    t.coherent_into(rays, q, &mut out).unwrap();
    out
}

/// True when some coherent answer of `rays` differs from the single-ray one.
pub fn differs<Q, T: Coherent<Q>>(t: &T, rays: &[Ray], q: &Q) -> bool {
    let out = coherent(t, rays, q);
    rays.iter().zip(&out).any(|(r, got)| *got != t.single(r, q))
}

/// The smallest subset of `rays` (greedily, one ray removed at a time, order kept) whose
/// coherent answers still differ from the single-ray ones.
pub fn shrink_rays<Q, T: Coherent<Q>>(t: &T, mut rays: Vec<Ray>, q: &Q) -> Vec<Ray> {
    let mut i = 0;
    while i < rays.len() {
        let mut fewer = rays.clone();
        fewer.remove(i);
        if !fewer.is_empty() && differs(t, &fewer, q) {
            rays = fewer;
        } else {
            i += 1;
        }
    }
    rays
}

/// The tile of `rays` that holds ray `i`.
pub fn tile_of(rays: &[Ray], i: usize) -> &[Ray] {
    let start = i / TILE * TILE;
    &rays[start..(start + TILE).min(rays.len())]
}

/// For a ray `i` whose tile alone agrees: whether its chunk of `rays` alone does.
pub fn chunk_alone<Q, T: Coherent<Q>>(t: &T, rays: &[Ray], q: &Q, i: usize) -> String {
    let chunk = i / CHUNK * CHUNK;
    let chunk = &rays[chunk..(chunk + CHUNK).min(rays.len())];
    format!(
        "its tile alone agrees (the tiles before it matter); its chunk of 256 alone {}",
        if differs(t, chunk, q) {
            "disagrees"
        } else {
            "agrees"
        }
    )
}

/// The coherent answers of `rays`, asserting that each equals the single-ray one;
/// `report(i, got, want)` is the failure message for ray `i`.
pub fn check_with<Q, T: Coherent<Q>>(
    t: &T,
    rays: &[Ray],
    q: &Q,
    report: impl Fn(usize, &Option<T::Hit>, &Option<T::Hit>) -> String,
) -> Vec<Option<T::Hit>> {
    let out = coherent(t, rays, q);
    for (i, (ray, got)) in rays.iter().zip(&out).enumerate() {
        let want = t.single(ray, q);
        assert!(*got == want, "{}", report(i, got, &want));
    }
    out
}

/// The answers of `rays` in two calls, cut after `3 * CHUNK + 7` rays (mid-chunk,
/// mid-tile): they must not depend on how a batch is cut into calls.
pub fn cut_in_two<Q, T: Coherent<Q>>(t: &T, rays: &[Ray], q: &Q) -> Vec<Option<T::Hit>> {
    let mut cut = vec![T::sentinel(); rays.len()];
    let at = 3 * CHUNK + 7;
    t.coherent_into(&rays[..at], q, &mut cut[..at]).unwrap();
    t.coherent_into(&rays[at..], q, &mut cut[at..]).unwrap();
    cut
}

/// With `rays` 100 rays: `out` of another length than the rays is an error and stays
/// untouched; equal lengths, empty included, succeed and fill every slot.
pub fn check_length_mismatch<Q: Default, T: Coherent<Q>>(t: &T, rays: &[Ray]) {
    assert_eq!(rays.len(), 100);
    let q = Q::default();
    for (inputs, outputs) in [(100, 99), (100, 101), (100, 0), (0, 3), (17, 16), (16, 17)] {
        let mut out: Vec<Option<T::Hit>> = (0..outputs)
            .map(|i| if i % 2 == 0 { T::sentinel() } else { None })
            .collect();
        let before = out.clone();
        assert_eq!(
            t.coherent_into(&rays[..inputs], &q, &mut out),
            Err(T::length_mismatch(inputs, outputs))
        );
        assert!(
            out == before,
            "{inputs} rays, {outputs} slots: out was written"
        );
    }
    assert_eq!(t.coherent_into(&[], &q, &mut []), Ok(()));
    let mut out = vec![T::sentinel(); 100];
    assert_eq!(t.coherent_into(rays, &q, &mut out), Ok(()));
    assert!(out.iter().all(|h| *h != T::sentinel()));
}

// ---- cameras ----

/// A pinhole camera: pixel `(sx, sy)` of the image plane at distance 1 looks along
/// `view + right * sx + up * sy` (not normalized, as a renderer would leave it).
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub eye: Point3<f32>,
    pub view: Vector3<f32>,
    pub right: Vector3<f32>,
    pub up: Vector3<f32>,
}

impl Camera {
    pub fn look_at(eye: Point3<f32>, target: Point3<f32>) -> Self {
        let view = (target - eye).normalize();
        let helper = if view.z.abs() < 0.9 {
            Vector3::z()
        } else {
            Vector3::x()
        };
        let right = view.cross(&helper).normalize();
        let up = right.cross(&view);
        Self {
            eye,
            view,
            right,
            up,
        }
    }

    /// Looking along `sign` times axis `axis`, the image axes exactly the other two unit
    /// axes: the pixels of the centre column and row have an exact zero direction component.
    pub fn along_axis(eye: Point3<f32>, axis: usize, sign: f32) -> Self {
        let e = |a: usize| {
            let mut v = Vector3::zeros();
            v[a % 3] = 1.0;
            v
        };
        Self {
            eye,
            view: e(axis) * sign,
            right: e(axis + 1),
            up: e(axis + 2),
        }
    }

    pub fn ray(&self, sx: f32, sy: f32) -> Ray {
        Ray::new(self.eye, self.view + self.right * sx + self.up * sy)
    }

    /// An `n x n` frame in 4 x 4 tiles (16 consecutive rays per tile, as a renderer hands
    /// them over), pixel `(px, py)` at `((px - centre.0) * pitch, (py - centre.1) * pitch)`.
    pub fn tiles(&self, n: usize, centre: (f32, f32), pitch: f32) -> Vec<Ray> {
        assert!(n.is_multiple_of(4));
        let mut rays = Vec::with_capacity(n * n);
        for ty in (0..n).step_by(4) {
            for tx in (0..n).step_by(4) {
                for j in 0..4 {
                    for i in 0..4 {
                        let sx = ((tx + i) as f32 - centre.0) * pitch;
                        let sy = ((ty + j) as f32 - centre.1) * pitch;
                        rays.push(self.ray(sx, sy));
                    }
                }
            }
        }
        rays
    }

    /// [`Camera::tiles`] of an orthographic camera: parallel rays along `view` whose
    /// origins spread over the image plane through the eye, `pitch` apart.
    pub fn orthographic_tiles(&self, n: usize, centre: (f32, f32), pitch: f32) -> Vec<Ray> {
        self.tiles(n, centre, pitch)
            .into_iter()
            .map(|r| Ray::new(self.eye + (r.dir - self.view), self.view))
            .collect()
    }

    /// [`Camera::tiles`] of a thin lens: each ray starts at a random point of the aperture
    /// (a square of half-side `aperture` around the eye, in the image plane) and passes
    /// through its pixel's point at distance `focus`, as depth of field makes them.
    pub fn lens_tiles(
        &self,
        n: usize,
        centre: (f32, f32),
        pitch: f32,
        (aperture, focus): (f32, f32),
        rng: &mut Rng,
    ) -> Vec<Ray> {
        self.tiles(n, centre, pitch)
            .into_iter()
            .map(|r| {
                let target = self.eye + r.dir * focus;
                let o = self.eye
                    + self.right * rng.range(-aperture, aperture)
                    + self.up * rng.range(-aperture, aperture);
                Ray::new(o, target - o)
            })
            .collect()
    }

    /// `count` rays through random pixels of the frame `tiles(n, centre, pitch)` covers.
    pub fn random_pixels(
        &self,
        count: usize,
        n: usize,
        centre: (f32, f32),
        pitch: f32,
        rng: &mut Rng,
    ) -> Vec<Ray> {
        (0..count)
            .map(|_| {
                let sx = (rng.range(0.0, n as f32) - centre.0) * pitch;
                let sy = (rng.range(0.0, n as f32) - centre.1) * pitch;
                self.ray(sx, sy)
            })
            .collect()
    }
}

// ---- frames around a box ----

/// A named frame of tiles.
pub struct View {
    pub name: String,
    pub rays: Vec<Ray>,
    /// True when the frame is aimed at the box from outside: it must see something.
    pub sees: bool,
}

/// `n x n` frames around a box (centre `c`, half-diagonal `r`), added in turn to `out`.
pub struct Views {
    pub c: Point3<f32>,
    pub r: f32,
    pub n: usize,
    /// The frame's middle pixel coordinate.
    pub mid: f32,
    pub out: Vec<View>,
}

impl Views {
    pub fn new(b: &Aabb, n: usize) -> Self {
        Self {
            c: b.center(),
            r: b.half_extents().norm(),
            n,
            mid: n as f32 / 2.0,
            out: Vec::new(),
        }
    }

    /// The pitch of a frame that spans 1.2 r at the box's centre from `dist`.
    pub fn pitch(&self, dist: f32) -> f32 {
        2.4 * self.r / dist / self.n as f32
    }

    pub fn add(&mut self, name: impl Into<String>, rays: Vec<Ray>, sees: bool) {
        self.out.push(View {
            name: name.into(),
            rays,
            sees,
        });
    }

    /// Oblique and diagonal views (the diagonal ones have every direction in one octant,
    /// so every tile runs as a packet), then the six axis-aligned views: positive, tiles
    /// holding the zero column and row (pixels of exact zero direction components) and
    /// straddling them; negative, tiles straddling the coordinate planes without zeros.
    pub fn around(&mut self) {
        let (c, r, n, mid) = (self.c, self.r, self.n, self.mid);
        for (name, dir, dist) in [
            ("oblique", Vector3::new(0.3, -0.5, 0.8), 3.0),
            ("diagonal", Vector3::new(1.0, 1.0, 1.0), 2.5),
            ("diagonal below", Vector3::new(-0.6, 0.7, -1.0), 2.5),
        ] {
            let cam = Camera::look_at(c + dir.normalize() * (dist * r), c);
            let rays = cam.tiles(n, (mid, mid), self.pitch(dist * r));
            self.add(name, rays, true);
        }
        for axis in 0..3 {
            for sign in [1.0f32, -1.0] {
                let mut view = Vector3::zeros();
                view[axis] = sign;
                let cam = Camera::along_axis(c - view * (3.0 * r), axis, sign);
                let centre = if sign > 0.0 {
                    (mid - 2.0, mid - 2.0)
                } else {
                    (mid - 1.5, mid - 0.5)
                };
                let rays = cam.tiles(n, centre, self.pitch(3.0 * r));
                self.add(format!("axis {axis} sign {sign}"), rays, true);
            }
        }
    }

    /// An orthographic view from `dir` (parallel rays from spread origins: the packets'
    /// origin intervals).
    pub fn orthographic(&mut self, name: &str, dir: Vector3<f32>) {
        let (c, r, n, mid) = (self.c, self.r, self.n, self.mid);
        let cam = Camera::look_at(c + dir.normalize() * (3.0 * r), c);
        let rays = cam.orthographic_tiles(n, (mid, mid), 2.4 * r / n as f32);
        self.add(name, rays, true);
    }

    /// A close-up (pixels 1e-4 apart: neighbouring rays hit the same triangles), a wide
    /// view (about 110 degrees) from inside the box, a grazing view from the side at the
    /// height of the centre, and a view looking away (everything behind every ray).
    pub fn close_inside_grazing_away(&mut self) {
        let (c, r, n, mid) = (self.c, self.r, self.n, self.mid);
        let eye = c + Vector3::new(0.2, 0.9, 0.4).normalize() * (1.3 * r);
        let rays = Camera::look_at(eye, c).tiles(n, (mid, mid), 1e-4);
        self.add("close-up", rays, false);
        let eye = c + Vector3::new(0.05, -0.03, 0.02) * r;
        let target = c + Vector3::new(1.0, 0.2, -0.3) * r;
        let rays = Camera::look_at(eye, target).tiles(n, (mid, mid), 2.8 / n as f32);
        self.add("inside", rays, false);
        let eye = c + Vector3::new(-1.5 * r, -0.2 * r, 0.0);
        let target = c + Vector3::new(r, 0.1 * r, -0.05 * r);
        let rays = Camera::look_at(eye, target).tiles(n, (mid, mid), 0.3 / n as f32);
        self.add("grazing", rays, false);
        let eye = c + Vector3::new(0.4, 0.5, -0.7).normalize() * (2.0 * r);
        let rays = Camera::look_at(eye, eye + (eye - c)).tiles(n, (mid, mid), self.pitch(2.0 * r));
        self.add("away", rays, false);
    }

    /// The oblique frame with its directions scaled by each of `lens` (the same rays, `t`
    /// scaled).
    pub fn scaled_directions(&mut self, lens: [f32; 2]) {
        let (c, r, n, mid) = (self.c, self.r, self.n, self.mid);
        let cam = Camera::look_at(c + Vector3::new(0.3, -0.5, 0.8).normalize() * (3.0 * r), c);
        for len in lens {
            let rays = cam.tiles(n, (mid, mid), self.pitch(3.0 * r));
            self.add(
                format!("directions x{len}"),
                rays.iter()
                    .map(|ray| Ray::new(ray.origin, ray.dir * len))
                    .collect(),
                true,
            );
        }
    }
}

/// `n x n` frames around the box of centre `c` and half-diagonal `r`: "outside" (looking
/// at `c` from distance `d`), "inside" (the eye at `c + inside`, looking towards `c + x`,
/// about 100 degrees wide) and "away" (from distance `d`, looking away from `c`), in that
/// order.
pub fn outside_inside_away(
    c: Point3<f32>,
    r: f32,
    d: f32,
    inside: Vector3<f32>,
    n: usize,
) -> Vec<(&'static str, Vec<Ray>)> {
    let mid = n as f32 / 2.0;
    let outside = Camera::look_at(c + Vector3::new(0.5, -0.4, 0.75).normalize() * d, c);
    let inside = Camera::look_at(c + inside, c + Vector3::x());
    let away_eye = c + Vector3::new(-0.3, 0.8, 0.4).normalize() * d;
    let away = Camera::look_at(away_eye, away_eye + (away_eye - c));
    vec![
        (
            "outside",
            outside.tiles(n, (mid, mid), 2.4 * r / d / n as f32),
        ),
        ("inside", inside.tiles(n, (mid - 1.0, mid), 2.5 / n as f32)),
        ("away", away.tiles(n, (mid, mid), 2.4 * r / d / n as f32)),
    ]
}

/// The mesh queries the coherent tests ask, for a mesh `d` away from the camera, each with
/// true when it must find nothing: the whole ray, intervals ending before, around and
/// after the mesh, behind the origin, a point, reversed, NaN, the widest floats, and the
/// two culls.
pub fn interval_queries(d: f32) -> Vec<(RayQuery, bool)> {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    vec![
        (RayQuery::default(), false),
        (RayQuery::new(0.0, d), false),
        (RayQuery::new(0.0, 0.5 * d), false),
        (RayQuery::new(d, inf), false),
        (RayQuery::new(0.9 * d, 1.1 * d), false),
        (RayQuery::new(0.3, 0.3), false),
        (RayQuery::new(-inf, inf), false),
        (RayQuery::new(-2.0 * d, 0.0), false),
        (RayQuery::new(-d, 0.25), false),
        (RayQuery::new(-0.5 * d, -0.1), false),
        (RayQuery::new(f32::MIN, f32::MAX), false),
        (RayQuery::new(inf, inf), false),
        (RayQuery::new(-inf, -inf), false),
        (RayQuery::new(2.0, 1.0), true),
        (RayQuery::new(d, d * (1.0 - 1e-3)), true),
        (RayQuery::new(0.0, -0.0), false),
        (RayQuery::new(nan, inf), true),
        (RayQuery::new(0.0, nan), true),
        (RayQuery::new(nan, nan), true),
        (RayQuery::new(-inf, nan), true),
        (RayQuery::new(nan, -1.0), true),
        (RayQuery::default().with_cull(Cull::Front), false),
        (RayQuery::default().with_cull(Cull::Back), false),
        (RayQuery::new(0.0, d).with_cull(Cull::Back), false),
        (RayQuery::new(d, inf).with_cull(Cull::Front), false),
        (RayQuery::new(-inf, inf).with_cull(Cull::Front), false),
        (RayQuery::new(-inf, inf).with_cull(Cull::Back), false),
        (RayQuery::new(-d, 0.0).with_cull(Cull::Back), false),
    ]
}

// ---- scattered and interrupted batches ----

/// `groups` groups of 16 rays, each group in one octant of directions, from origins
/// spread up to `max_spread * r` around a random point within `2 r` of `c`: they run as
/// packets, and spread wide they waste their work (the next groups run one ray at a time).
pub fn octant_groups(
    rng: &mut Rng,
    c: Point3<f32>,
    r: f32,
    groups: usize,
    max_spread: f32,
) -> Vec<Ray> {
    let mut rays = Vec::with_capacity(groups * TILE);
    for _ in 0..groups {
        let s = Vector3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
        .map(f32::signum);
        let spread = rng.range(0.01, max_spread) * r;
        let o = c + rng.unit() * (2.0 * r * rng.f32());
        for _ in 0..TILE {
            let d = rng.unit().abs().component_mul(&s) + s * 0.05;
            rays.push(Ray::new(o + rng.unit() * spread, d * rng.range(0.5, 2.0)));
        }
    }
    rays
}

/// `count` rays from random points within `2 r` of `c` in random directions of lengths
/// 0.01 to 10.
pub fn wild_rays(rng: &mut Rng, c: Point3<f32>, r: f32, count: usize) -> Vec<Ray> {
    (0..count)
        .map(|_| {
            let o = c + rng.unit() * (2.0 * r * rng.f32());
            Ray::new(o, rng.unit() * rng.range(0.01, 10.0))
        })
        .collect()
}

/// `chunks` chunks of 256 rays: the tiles of `frame` in turn (cycling), but for the
/// packets of each chunk that a pattern of five picks (none; two; the last; the first and
/// one in the middle; thirteen in a row), which take `scattered(p)` instead, `p` the
/// packet's place in its chunk. Returns the rays and the frame's tiles that come next.
pub fn interrupted_tiles<'a>(
    frame: &'a [Ray],
    chunks: usize,
    mut scattered: impl FnMut(usize) -> Vec<Ray>,
) -> (Vec<Ray>, Cycle<Chunks<'a, Ray>>) {
    let mut tiles = frame.chunks(TILE).cycle();
    let mut rays = Vec::with_capacity(chunks * CHUNK);
    for chunk in 0..chunks {
        let pattern: &[usize] = match chunk % 5 {
            0 => &[],
            1 => &[2, 3],
            2 => &[15],
            3 => &[0, 9],
            _ => &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        };
        for p in 0..CHUNK / TILE {
            if pattern.contains(&p) {
                rays.extend(scattered(p));
            } else {
                rays.extend_from_slice(tiles.next().unwrap());
            }
        }
    }
    (rays, tiles)
}

// ---- invalid and edge rays in tiles ----

/// Rays that can hit nothing: NaN or infinite parts, zero directions.
pub fn invalid_rays(o: Point3<f32>) -> Vec<Ray> {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    let d = Vector3::new(-0.3, -0.2, -1.0);
    vec![
        Ray::new(Point3::new(nan, o.y, o.z), d),
        Ray::new(o, Vector3::new(0.1, nan, -1.0)),
        Ray::new(o, Vector3::new(0.0, inf, -1.0)),
        Ray::new(o, Vector3::new(-inf, -0.2, -1.0)),
        Ray::new(Point3::new(o.x, -inf, o.z), d),
        Ray::new(o, Vector3::zeros()),
        Ray::new(o, Vector3::new(-0.0, -0.0, -0.0)),
        Ray::new(Point3::new(nan, nan, nan), Vector3::new(nan, nan, nan)),
        Ray::new(Point3::new(inf, inf, inf), Vector3::new(inf, inf, inf)),
    ]
}

/// Valid rays at the edge of what the packets take: a component that is exactly zero or
/// negative zero, subnormal, or so far below the largest that it counts as zero.
pub fn edge_rays(o: Point3<f32>) -> Vec<Ray> {
    vec![
        Ray::new(o, Vector3::new(-0.0, -0.2, -1.0)),
        Ray::new(o, Vector3::new(0.0, -0.2, -1.0)),
        Ray::new(o, Vector3::new(-1e-40, -0.2, -1.0)),
        Ray::new(o, Vector3::new(-0.3, -1e-39, -1.0)),
        Ray::new(o, Vector3::new(-1e-30, -1e-31, -1e30)),
        Ray::new(o, Vector3::new(-0.3, -0.2, -f32::MIN_POSITIVE)),
    ]
}

/// The tiles of `rays` whose every ray `hits`.
pub fn full_tiles(rays: &[Ray], hits: impl Fn(&Ray) -> bool) -> Vec<usize> {
    (0..rays.len() / TILE)
        .filter(|&t| rays[t * TILE..(t + 1) * TILE].iter().all(&hits))
        .collect()
}

/// A frame of tiles with invalid rays ([`invalid_rays`] from the eye) in some of them.
pub struct Spoiled {
    pub rays: Vec<Ray>,
    /// True for the invalid rays.
    pub spoiled: Vec<bool>,
    /// The one valid ray of a tile otherwise invalid (it then runs on its own).
    pub lone: usize,
}

impl Spoiled {
    /// `clean` (a frame from `eye`) with invalid rays in 22 tiles of `full` (tiles whose
    /// every ray hits): one invalid ray per tile in every lane in turn (16 tiles), then
    /// half a tile invalid, a whole tile, all but one ray, all but two, all but three;
    /// and the [`edge_rays`] (valid) in some lanes of the last tiles.
    pub fn new(clean: &[Ray], full: &[usize], eye: Point3<f32>) -> Self {
        let bad = invalid_rays(eye);
        let edge = edge_rays(eye);
        let tiles = clean.len() / TILE;
        let mut rays = clean.to_vec();
        let mut spoiled = vec![false; rays.len()];
        for (lane, &t) in full[..16].iter().enumerate() {
            rays[t * TILE + lane] = bad[lane % bad.len()];
            spoiled[t * TILE + lane] = true;
        }
        let keeps: [&[usize]; 6] = [
            &[8, 9, 10, 11, 12, 13, 14, 15],
            &[],
            &[5],
            &[3, 12],
            &[0, 15],
            &[1, 6, 11],
        ];
        for (k, keep) in keeps.iter().enumerate() {
            let t = full[16 + k];
            for lane in (0..TILE).filter(|l| !keep.contains(l)) {
                rays[t * TILE + lane] = bad[(k + lane) % bad.len()];
                spoiled[t * TILE + lane] = true;
            }
        }
        let lone = full[18] * TILE + 5;
        for (k, &e) in edge.iter().enumerate() {
            rays[(tiles - 1 - k) * TILE + 5 * k % TILE] = e;
        }
        Self {
            rays,
            spoiled,
            lone,
        }
    }

    /// `out`, the answers of these rays: `None` for the invalid ones, and for each other
    /// ray that `clean` shares, `want` (the answers of `clean`).
    pub fn check_answers<H: PartialEq + Debug>(
        &self,
        what: &str,
        clean: &[Ray],
        out: &[Option<H>],
        want: &[Option<H>],
    ) {
        for (i, ray) in self.rays.iter().enumerate() {
            if self.spoiled[i] {
                assert_eq!(out[i], None, "{what}: invalid ray {i} {ray:?}");
            } else if *ray == clean[i] {
                assert_eq!(out[i], want[i], "{what}: ray {i} beside invalid ones");
            }
        }
    }

    /// Every valid ray of the 22 spoiled tiles hits, the lone one included.
    pub fn check_valid_hit<H>(&self, what: &str, full: &[usize], out: &[Option<H>]) {
        for &t in &full[..22] {
            let tile = t * TILE..(t + 1) * TILE;
            for (i, (spoiled, h)) in tile
                .clone()
                .zip(self.spoiled[tile.clone()].iter().zip(&out[tile]))
            {
                assert!(*spoiled || h.is_some(), "{what}: ray {i}");
            }
        }
        assert!(out[self.lone].is_some(), "{what}: the lone valid ray");
    }
}

/// Four tiles made of invalid and edge rays from `eye` only.
pub fn odd_tiles(eye: Point3<f32>) -> Vec<Ray> {
    let bad = invalid_rays(eye);
    let edge = edge_rays(eye);
    (0..4 * TILE)
        .map(|k| {
            if k % 3 == 0 {
                edge[k % edge.len()]
            } else {
                bad[k % bad.len()]
            }
        })
        .collect()
}

/// `out`, the answers of `clean` with every 7th ray spoiled (`spoil_rays(.., 7, ..)`):
/// `None` there, `want` (the answers of `clean`) elsewhere.
pub fn check_every_7th_spoiled<H: PartialEq + Debug>(
    what: &str,
    spoilt: &[Ray],
    out: &[Option<H>],
    want: &[Option<H>],
) {
    for (i, ray) in spoilt.iter().enumerate() {
        let expect = if i % 7 == 0 { None } else { want[i].as_ref() };
        assert_eq!(out[i].as_ref(), expect, "{what}: ray {i} {ray:?}");
    }
}
