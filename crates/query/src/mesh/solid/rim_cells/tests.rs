//! The side table against the f64 brute-force winding number.

use super::super::tree::TABLE_AFTER;
use crate::Mesh;
use rand::{Rng, SeedableRng};
use raypick_primitives::{Point3, Real};

/// An `n` x `n` heightfield over `[0, 2] x [0, 1]` at height `z0`, with random heights
/// of amplitude `rough` (slivers when large) on smooth hills; normals up.
fn heightfield(
    n: usize,
    z0: Real,
    rough: Real,
    rng: &mut rand_pcg::Pcg64,
) -> (Vec<Point3<Real>>, Vec<[u32; 3]>) {
    let pos: Vec<_> = (0..=n)
        .flat_map(|j| (0..=n).map(move |i| (i, j)))
        .map(|(i, j)| {
            let (x, y) = (2.0 * i as Real / n as Real, j as Real / n as Real);
            let hill = 0.1 * (3.0 * x).sin() * (5.0 * y).cos();
            Point3::new(x, y, z0 + hill + rough * rng.gen_range(-1.0..1.0))
        })
        .collect();
    (pos, super::super::probes::grid_triangles(n))
}

/// The winding number in f64, triangle by triangle.
fn exact(pos: &[Point3<Real>], tris: &[[u32; 3]], p: &Point3<Real>) -> f64 {
    super::super::probes::brute_winding(tris.iter().map(|t| t.map(|i| pos[i as usize])), p)
}

/// Every answer of the table is within its stated error of the exact winding number,
/// and the side it gives is the exact one, on smooth and sliver heightfields at
/// ordinary and offset heights, for points uniform in the box grown by 20%, and within
/// 1e-6 to 1e-2 of the surface on both sides (where the ray is cast from the cell).
/// Both kinds of cell answer, so the assertions could fail.
#[test]
fn table_answers_within_their_stated_error() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x5ee7_ce11);
    let (mut clear, mut cast, mut points) = (0usize, 0usize, 0usize);
    // (cells per side, height, roughness, turned so that the sheet is thin along x,
    // with a hole: an inner rim loop).
    let cases = [
        (24, 0.0, 0.0, false, false),
        (24, 0.0, 0.08, false, false),
        (16, 50.0, 0.01, false, false),
        (24, 0.0, 0.02, true, false),
        (24, 0.0, 0.02, false, true),
        (20, -3.0, 0.05, true, true),
    ];
    for (n, z0, rough, turn, hole) in cases {
        let (mut pos, mut tris) = heightfield(n, z0, rough, &mut rng);
        if turn {
            pos.iter_mut().for_each(|p| *p = Point3::new(p.z, p.x, p.y));
        }
        if hole {
            // The quads of the middle fifth of the sheet taken out.
            let (lo, hi) = (2 * n / 5, 3 * n / 5);
            let keep = |k: usize| {
                let (i, j) = ((k / 2) % n, (k / 2) / n);
                !(lo..hi).contains(&i) || !(lo..hi).contains(&j)
            };
            tris = tris
                .iter()
                .enumerate()
                .filter(|(k, _)| keep(*k))
                .map(|(_, t)| *t)
                .collect();
        }
        let mesh = Mesh::new(pos.clone(), tris.clone()).expect("a valid heightfield");
        let tree = mesh.winding_tree();
        assert!(
            tree.rim_cells(&mesh).is_none(),
            "no table before its decisions"
        );
        // The second count past the threshold builds it.
        tree.note_sides(&mesh, TABLE_AFTER);
        assert!(
            tree.rim_cells(&mesh).is_none(),
            "no table before its decisions"
        );
        tree.note_sides(&mesh, 1);
        let (rim, cells) = tree.rim_cells(&mesh).expect("a sheet with a short rim");
        let b = mesh.bounds();
        let mut sample: Vec<Point3<Real>> = (0..3_000)
            .map(|_| {
                Point3::from(std::array::from_fn(|a| {
                    let (lo, hi) = (b.min[a], b.max[a]);
                    lo + (hi - lo) * rng.gen_range(-0.2f32..1.2)
                }))
            })
            .collect();
        for _ in 0..3_000 {
            let t = tris[rng.gen_range(0..tris.len())].map(|i| pos[i as usize]);
            let mut p = super::super::probes::point_on(&t, &mut rng);
            let off = 10f32.powf(rng.gen_range(-6.0..-2.0));
            let axis = if turn { 0 } else { 2 };
            p[axis] += if rng.gen::<bool>() { off } else { -off };
            sample.push(p);
        }
        for p in sample {
            let Some(w) = cells.side(&mesh, rim, p) else {
                continue;
            };
            let e = exact(&pos, &tris, &p);
            assert!(
                (w.value - e).abs() <= w.tolerance,
                "{p:?}: table {} +- {}, exact {e}",
                w.value,
                w.tolerance
            );
            assert_eq!(w.value >= 0.5, e >= 0.5, "{p:?}");
            assert_eq!(mesh.contains(p), e >= 0.5, "{p:?}");
            if w.untouched {
                clear += 1;
            } else {
                cast += 1;
            }
            points += 1;
        }
    }
    assert!(clear > 3_000 && cast > 500, "{clear} {cast} of {points}");
}

/// `contains` answers the same before and after the mesh builds its table (the table
/// is built by the first batch after `TABLE_AFTER` decisions, single points counting
/// one each), points near the sheet included, and the table then answers most points.
#[test]
fn answers_do_not_change_when_the_table_is_built() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(0x007a_b1e5);
    let (pos, tris) = heightfield(40, 0.0, 0.03, &mut rng);
    let mesh = Mesh::new(pos.clone(), tris.clone()).expect("a valid heightfield");
    let b = mesh.bounds();
    let mut points: Vec<Point3<Real>> = (0..TABLE_AFTER / 2)
        .map(|_| {
            Point3::from(std::array::from_fn(|a| {
                let (lo, hi) = (b.min[a], b.max[a]);
                lo + (hi - lo) * rng.gen_range(-0.2f32..1.2)
            }))
        })
        .collect();
    for p in points.iter_mut().step_by(3) {
        p.z = 0.1 * (3.0 * p.x).sin() * (5.0 * p.y).cos() + rng.gen_range(-0.05..0.05);
    }
    let tree = mesh.winding_tree();
    let before = mesh.contains_points(&points);
    let single: Vec<bool> = points[..1000].iter().map(|p| mesh.contains(*p)).collect();
    assert_eq!(single, before[..1000]);
    let _ = mesh.contains_points(&points);
    assert!(tree.rim_cells(&mesh).is_none(), "no table yet");
    let after = mesh.contains_points(&points);
    let (rim, cells) = tree.rim_cells(&mesh).expect("built by the third batch");
    assert_eq!(before, after);
    let answered = points
        .iter()
        .filter(|p| cells.side(&mesh, rim, **p).is_some())
        .count();
    assert!(
        answered * 2 > points.len(),
        "{answered} of {}",
        points.len()
    );
    let single: Vec<bool> = points[..1000].iter().map(|p| mesh.contains(*p)).collect();
    assert_eq!(single, after[..1000]);
}
