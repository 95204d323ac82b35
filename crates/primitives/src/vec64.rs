//! Points and vectors as `[f64; 3]`, with the few operations the f64 kernels (point to
//! triangle, triangle to triangle, the enclosing sphere) compute in: plain arrays keep those
//! kernels free of nalgebra's generic machinery in their inner loops.

pub(crate) type P64 = [f64; 3];

pub(crate) fn sub(a: P64, b: P64) -> P64 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn dot(a: P64, b: P64) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: P64, b: P64) -> P64 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
