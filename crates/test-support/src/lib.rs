//! Shared support for raypick's tests (a dev-dependency of every crate; never shipped):
//! - [`Rng`], the one seeded generator (SplitMix64) for test inputs;
//! - the run-size knobs: [`long`] / [`scale`] (`RAYPICK_LONG=1` for long runs) and
//!   [`env_cases`] (`RAYPICK_PROPTEST_CASES`);
//! - the slow exact f64 oracles: [`ray_tri_f64`] (ray against triangle) and
//!   [`point_tri_dist2_f64`] (point to triangle), over the small f64 vector helpers;
//! - [`rerun_on_every_simd_path`], which reruns a test binary's tests on every SIMD path.
//!
//! Mesh and box generators that need a crate above `primitives` stay beside their tests
//! (`query/tests/mesh_util`, `bvh/tests/common`); see `tests/README.md`.

#![allow(clippy::must_use_candidate)]

use raypick_primitives::{Aabb, Point3, Ray, Vector3};

/// Marks a child process of [`rerun_on_every_simd_path`].
const CHILD: &str = "RAYPICK_TEST_CHILD";

/// True when `RAYPICK_LONG=1`: run millions of rays instead of thousands.
pub fn long() -> bool {
    std::env::var("RAYPICK_LONG").is_ok_and(|v| v == "1")
}

/// `ci` normally, `long_n` with `RAYPICK_LONG=1`.
pub fn scale(ci: usize, long_n: usize) -> usize {
    if long() {
        long_n
    } else {
        ci
    }
}

/// The number of cases of a randomized test: `RAYPICK_PROPTEST_CASES` when set, else
/// `default` (20 times more with `RAYPICK_LONG=1`).
pub fn env_cases(default: usize) -> usize {
    if let Some(n) = std::env::var("RAYPICK_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        return n.max(1);
    }
    if long() {
        return default * 20;
    }
    default
}

/// SplitMix64: small, seeded, good enough for test inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [0, 1), rounded to f32.
    pub fn f32(&mut self) -> f32 {
        self.f64() as f32
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }
    /// Uniform in 0..n (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in the box `b`.
    pub fn point_in(&mut self, b: &Aabb) -> Point3<f32> {
        Point3::new(
            self.range(b.min.x, b.max.x),
            self.range(b.min.y, b.max.y),
            self.range(b.min.z, b.max.z),
        )
    }
    /// Uniform in the cube `[-s, s]^3`.
    pub fn point(&mut self, s: f32) -> Point3<f32> {
        Point3::new(self.range(-s, s), self.range(-s, s), self.range(-s, s))
    }
    /// Uniform on the unit sphere.
    pub fn unit(&mut self) -> Vector3<f32> {
        loop {
            let v = Vector3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let n = v.norm();
            if n > 0.1 && n <= 1.0 {
                return v / n;
            }
        }
    }
}

// ---- f64 oracle ----

/// A point or vector in f64.
pub type V64 = [f64; 3];

/// A point in f64.
pub fn v64(p: &Point3<f32>) -> V64 {
    [f64::from(p.x), f64::from(p.y), f64::from(p.z)]
}
/// A vector in f64.
pub fn d64(v: &Vector3<f32>) -> V64 {
    [f64::from(v.x), f64::from(v.y), f64::from(v.z)]
}
/// `a - b`.
pub fn sub(a: V64, b: V64) -> V64 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
/// `a + b`.
pub fn add(a: V64, b: V64) -> V64 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
/// `a * s`.
pub fn scale3(a: V64, s: f64) -> V64 {
    [a[0] * s, a[1] * s, a[2] * s]
}
/// The dot product.
pub fn dot(a: V64, b: V64) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
/// The cross product.
pub fn cross(a: V64, b: V64) -> V64 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// The length.
pub fn norm(a: V64) -> f64 {
    dot(a, a).sqrt()
}

/// A float64 ray/triangle result, inside or not.
#[derive(Clone, Copy, Debug)]
pub struct OracleHit {
    /// Ray parameter of the plane crossing.
    pub t: f64,
    /// Smallest barycentric weight: >= 0 inside, its size says how close to an edge.
    pub margin: f64,
    /// |cos| of the angle between ray and triangle plane normal (small = grazing).
    pub cos: f64,
    /// Ray direction against the normal.
    pub front: bool,
}

/// Möller–Trumbore in f64, without the inside test (the caller reads `margin`).
pub fn ray_tri_f64(ray: &Ray, tri: &[Point3<f32>; 3]) -> Option<OracleHit> {
    let (o, d) = (v64(&ray.origin), d64(&ray.dir));
    let (a, b, c) = (v64(&tri[0]), v64(&tri[1]), v64(&tri[2]));
    let (e1, e2) = (sub(b, a), sub(c, a));
    let n = cross(e1, e2);
    let p = cross(d, e2);
    let det = dot(e1, p);
    if det == 0.0 || norm(n) == 0.0 {
        return None;
    }
    let inv = 1.0 / det;
    let s = sub(o, a);
    let u = dot(s, p) * inv;
    let q = cross(s, e1);
    let v = dot(d, q) * inv;
    let t = dot(e2, q) * inv;
    let w = 1.0 - u - v;
    Some(OracleHit {
        t,
        margin: u.min(v).min(w),
        cos: (dot(n, d) / (norm(n) * norm(d))).abs(),
        front: dot(n, d) < 0.0,
    })
}

/// Relative difference, guarded near 0.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-6)
}

/// Closest point on a triangle in f64 by an independent method: the plane projection if
/// inside, else the closest of the three edges. Returns the squared distance.
pub fn point_tri_dist2_f64(p: &Point3<f32>, tri: &[Point3<f32>; 3]) -> f64 {
    point_tri_dist2_64(v64(p), tri.map(|x| v64(&x)))
}

/// [`point_tri_dist2_f64`] of f64 input.
pub fn point_tri_dist2_64(p: V64, [a, b, c]: [V64; 3]) -> f64 {
    let seg = |a: V64, b: V64| {
        let ab = sub(b, a);
        let l = dot(ab, ab);
        let s = if l > 0.0 {
            (dot(sub(p, a), ab) / l).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let q = sub(add(a, scale3(ab, s)), p);
        dot(q, q)
    };
    let mut best = seg(a, b).min(seg(b, c)).min(seg(c, a));
    let n = cross(sub(b, a), sub(c, a));
    let nn = dot(n, n);
    if nn > 0.0 {
        let dist = dot(sub(p, a), n) / nn;
        let q = sub(p, scale3(n, dist));
        // Inside test by the signs of the sub-triangle normals.
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(x, y)| dot(cross(sub(y, x), sub(q, x)), n) >= 0.0);
        if inside {
            let d = sub(q, p);
            best = best.min(dot(d, d));
        }
    }
    best
}

/// The signed solid angle of triangle `t` seen from `p`, over 4π (Van Oosterom and
/// Strackee): its term of the generalized winding number.
pub fn winding_term_64(p: V64, t: [V64; 3]) -> f64 {
    let [a, b, c] = t.map(|x| sub(x, p));
    let det = dot(a, cross(b, c));
    let (la, lb, lc) = (norm(a), norm(b), norm(c));
    let den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    2.0 * det.atan2(den) / (4.0 * std::f64::consts::PI)
}

/// Reruns this test binary's tests matching `filter` (all but the caller, `caller`) in child
/// processes capped at AVX2 (where the CPU has the AVX-512 path, the default then), at SSE and
/// at the scalar path (`RAYPICK_SIMD`; the path is chosen once per process), and checks that
/// `expected` tests passed in each. Returns at once in a child.
#[allow(clippy::missing_panics_doc)]
pub fn rerun_on_every_simd_path(filter: &str, caller: &str, expected: usize) {
    if std::env::var_os(CHILD).is_some() {
        return; // a child: the filtered tests run on their own
    }
    // A pinned environment would make every child run the same path: refuse it loudly
    // rather than report the paths as tested.
    assert!(
        raypick_primitives::simd::SimdPath::pinned().is_none(),
        "{caller}: RAYPICK_SIMD or the `scalar` feature pins the SIMD path; unset it to run \
         the tests on every path"
    );
    let caps: &[&str] = if raypick_primitives::simd::SimdPath::Avx512.is_available() {
        &["avx2", "sse", "scalar"]
    } else {
        &["sse", "scalar"]
    };
    rerun_with("RAYPICK_SIMD", caps, filter, caller, expected);
}

/// Reruns this test binary's tests matching `filter` (all but `caller`) in child processes
/// whose meshes are built with the `fast`, `high_quality` and `morton` presets
/// (`RAYPICK_TEST_PRESET`, read by the tests' mesh builders), and checks that `expected`
/// tests passed in each. Returns at once in a child.
#[allow(clippy::missing_panics_doc)]
pub fn rerun_on_every_preset(filter: &str, caller: &str, expected: usize) {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    rerun_with(
        "RAYPICK_TEST_PRESET",
        &["fast", "high_quality", "morton"],
        filter,
        caller,
        expected,
    );
}

fn rerun_with(var: &str, values: &[&str], filter: &str, caller: &str, expected: usize) {
    for value in values {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([filter, "--skip", caller, "--test-threads", "2"])
            .env(var, value)
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{var}={value}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The filter matched the tests, not nothing.
        assert!(
            stdout.contains(&format!("test result: ok. {expected} passed")),
            "{var}={value}: {stdout}"
        );
    }
}

/// Installs, in the test binary that invokes it, a global allocator that counts this
/// thread's allocations, and defines `allocations(f) -> (count, f())` beside it, to check
/// the "allocates nothing" promises. Invoke it only in the binaries that check them (it
/// replaces the binary's allocator).
#[macro_export]
macro_rules! counting_allocator {
    () => {
        mod counting_alloc {
            use std::alloc::{GlobalAlloc, Layout, System};
            use std::cell::Cell;

            struct Counting;

            thread_local! {
                static ALLOCS: Cell<usize> = const { Cell::new(0) };
            }

            // SAFETY: forwards to the system allocator unchanged; only counts calls on this
            // thread.
            unsafe impl GlobalAlloc for Counting {
                unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                    ALLOCS.with(|a| a.set(a.get() + 1));
                    // SAFETY: same contract as ours.
                    unsafe { System.alloc(layout) }
                }
                unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                    // SAFETY: same contract as ours.
                    unsafe { System.dealloc(ptr, layout) }
                }
                unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                    ALLOCS.with(|a| a.set(a.get() + 1));
                    // SAFETY: same contract as ours.
                    unsafe { System.realloc(ptr, layout, new_size) }
                }
            }

            #[global_allocator]
            static GLOBAL: Counting = Counting;

            /// Runs `f`; returns how many allocations (and reallocations) this thread made in
            /// it, and `f`'s result.
            pub fn allocations<T>(f: impl FnOnce() -> T) -> (usize, T) {
                let before = ALLOCS.with(Cell::get);
                let out = f();
                (ALLOCS.with(Cell::get) - before, out)
            }
        }
        use counting_alloc::allocations;
    };
}
