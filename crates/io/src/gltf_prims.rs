//! glTF primitive modes into raypick's elements: triangle lists, strips and fans into
//! triangles; line lists, strips and loops into segments; points into points.

use gltf::mesh::Mode;

/// What one primitive holds, as indices into its own vertices.
pub(crate) enum Elements {
    Triangles(Vec<[u32; 3]>),
    Segments(Vec<[u32; 2]>),
    Points(Vec<u32>),
}

/// The elements of a primitive of `mode` whose vertices are taken in `order` (its indices,
/// or `0..count` without them). Incomplete trailing elements are dropped (the caller warns).
/// Strips alternate their winding as the spec says, so every triangle faces the same way.
pub(crate) fn assemble(mode: Mode, order: &[u32]) -> Elements {
    let n = order.len();
    match mode {
        Mode::Triangles => {
            Elements::Triangles(order.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
        }
        Mode::TriangleStrip => Elements::Triangles(
            (0..n.saturating_sub(2))
                .map(|i| {
                    if i % 2 == 0 {
                        [order[i], order[i + 1], order[i + 2]]
                    } else {
                        [order[i + 1], order[i], order[i + 2]]
                    }
                })
                .collect(),
        ),
        Mode::TriangleFan => Elements::Triangles(
            (1..n.saturating_sub(1))
                .map(|i| [order[0], order[i], order[i + 1]])
                .collect(),
        ),
        Mode::Lines => Elements::Segments(order.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
        Mode::LineStrip | Mode::LineLoop => {
            let mut s: Vec<[u32; 2]> = order.windows(2).map(|w| [w[0], w[1]]).collect();
            if mode == Mode::LineLoop && n > 2 {
                s.push([order[n - 1], order[0]]);
            }
            Elements::Segments(s)
        }
        Mode::Points => Elements::Points(order.to_vec()),
    }
}

/// True when `count` vertices leave an incomplete element at the end in `mode`.
pub(crate) fn has_remainder(mode: Mode, count: usize) -> bool {
    match mode {
        Mode::Triangles => !count.is_multiple_of(3),
        Mode::Lines => !count.is_multiple_of(2),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tris(e: Elements) -> Vec<[u32; 3]> {
        match e {
            Elements::Triangles(t) => t,
            _ => panic!("not triangles"),
        }
    }

    fn segs(e: Elements) -> Vec<[u32; 2]> {
        match e {
            Elements::Segments(s) => s,
            _ => panic!("not segments"),
        }
    }

    #[test]
    fn every_mode_assembles_as_the_spec_says() {
        let o = [0, 1, 2, 3, 4];
        assert_eq!(tris(assemble(Mode::Triangles, &o)), vec![[0, 1, 2]]);
        assert_eq!(
            tris(assemble(Mode::TriangleStrip, &o)),
            vec![[0, 1, 2], [2, 1, 3], [2, 3, 4]]
        );
        assert_eq!(
            tris(assemble(Mode::TriangleFan, &o)),
            vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]]
        );
        assert_eq!(segs(assemble(Mode::Lines, &o)), vec![[0, 1], [2, 3]]);
        assert_eq!(
            segs(assemble(Mode::LineStrip, &o)),
            vec![[0, 1], [1, 2], [2, 3], [3, 4]]
        );
        assert_eq!(
            segs(assemble(Mode::LineLoop, &o)),
            vec![[0, 1], [1, 2], [2, 3], [3, 4], [4, 0]]
        );
        assert!(matches!(assemble(Mode::Points, &o), Elements::Points(p) if p == o));
        for mode in [
            Mode::TriangleStrip,
            Mode::TriangleFan,
            Mode::LineStrip,
            Mode::LineLoop,
        ] {
            let e = assemble(mode, &[7]);
            assert!(match e {
                Elements::Triangles(t) => t.is_empty(),
                Elements::Segments(s) => s.is_empty(),
                Elements::Points(_) => false,
            });
        }
        assert!(has_remainder(Mode::Triangles, 4) && has_remainder(Mode::Lines, 3));
        assert!(!has_remainder(Mode::TriangleStrip, 4));
    }
}
