//! Bounding volumes of point sets: Aabb::from_points, Aabb::from_sphere, Aabb::transformed,
//! Sphere::from_points (Ritter), Sphere::from_points_minimal (Welzl), Obb::from_points (PCA).

use crate::common::*;
use nalgebra::{Affine3, Matrix4, Rotation3, Translation3, UnitQuaternion};
use proptest::prelude::*;
use raypick_primitives::{Aabb, Obb, Point3, Sphere};

fn in_sphere(s: &Sphere, p: &Point3<f32>) -> bool {
    (w(p) - w(&s.center)).norm() <= s.radius as f64
}

fn in_obb(o: &Obb, p: &Point3<f32>) -> bool {
    let l = o.rotation.matrix().cast::<f64>().transpose() * (w(p) - w(&o.center));
    (0..3).all(|i| l[i].abs() <= o.half_extents[i] as f64 * (1.0 + 1e-6) + 1e-6)
}

#[test]
fn aabb_from_points_all_negative_and_empty() {
    let pts = [
        p3(-5.0, -2.0, -9.0),
        p3(-1.0, -7.0, -3.0),
        p3(-4.0, -3.0, -0.5),
    ];
    let b = Aabb::from_points(&pts);
    assert_eq!(b.min, p3(-5.0, -7.0, -9.0));
    assert_eq!(b.max, p3(-1.0, -2.0, -0.5)); // not FLT_MIN
    assert_eq!(Aabb::from_points(&[]), Aabb::EMPTY);
    assert!(Aabb::from_points(&[]).is_empty());
    let one = Aabb::from_points(&[p3(1.0, 2.0, 3.0)]);
    assert_eq!((one.min, one.max), (p3(1.0, 2.0, 3.0), p3(1.0, 2.0, 3.0)));
    // NaN coordinates are skipped.
    let b = Aabb::from_points(&[p3(f32::NAN, 1.0, 1.0), p3(2.0, 0.0, 3.0)]);
    assert_eq!((b.min, b.max), (p3(2.0, 0.0, 1.0), p3(2.0, 1.0, 3.0)));
}

#[test]
fn aabb_conversions_round_trip() {
    let b = Aabb::from_center_half_extents(p3(1.0, 2.0, 3.0), v3(0.5, 1.0, 2.0));
    assert_eq!((b.min, b.max), (p3(0.5, 1.0, 1.0), p3(1.5, 3.0, 5.0)));
    assert_eq!(
        b.to_center_half_extents(),
        (p3(1.0, 2.0, 3.0), v3(0.5, 1.0, 2.0))
    );
    let m = Aabb::from_min_size(p3(-1.0, 0.0, 2.0), v3(2.0, 4.0, 8.0));
    assert_eq!(m.max, p3(1.0, 4.0, 10.0));
    assert_eq!(m.to_min_size(), (p3(-1.0, 0.0, 2.0), v3(2.0, 4.0, 8.0)));
    assert!(Aabb::from_min_size(p3(0.0, 0.0, 0.0), v3(-1.0, 1.0, 1.0)).is_empty());
    assert!(Aabb::from_center_half_extents(p3(0.0, 0.0, 0.0), v3(1.0, -1.0, 1.0)).is_empty());
}

#[test]
fn aabb_from_sphere_holds_any_rotation() {
    let s = Sphere::new(p3(1.0, -2.0, 3.0), 2.0);
    let b = Aabb::from_sphere(&s);
    assert_eq!((b.min, b.max), (p3(-1.0, -4.0, 1.0), p3(3.0, 0.0, 5.0)));
    // An object inside the sphere, rotated any way about the centre, stays in the box.
    let obj = [v3(1.9, 0.0, 0.0), v3(0.0, -1.2, 1.5), v3(-1.0, 1.0, -1.0)];
    let mut rng = TestRng(3);
    for _ in 0..500 {
        let q = UnitQuaternion::from_euler_angles(
            rng.f32(-3.0, 3.0),
            rng.f32(-3.0, 3.0),
            rng.f32(-3.0, 3.0),
        );
        for v in &obj {
            assert!(b.contains_point(&(s.center + q * v)));
        }
    }
    assert!(Aabb::from_sphere(&Sphere::new(p3(0.0, 0.0, 0.0), -1.0)).is_empty());
}

#[test]
fn aabb_transformed_hand_cases() {
    let unit = Aabb::new(p3(0.0, 0.0, 0.0), p3(1.0, 1.0, 1.0));
    let rot = Rotation3::from_axis_angle(&nalgebra::Vector3::z_axis(), std::f32::consts::FRAC_PI_4);
    let t: Affine3<f32> = nalgebra::convert(Translation3::new(10.0, 0.0, 0.0) * rot);
    let b = unit.transformed(&t);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert!((b.min - p3(10.0 - s, 0.0, 0.0)).norm() < 1e-6, "{b:?}");
    assert!((b.max - p3(10.0 + s, 2.0 * s, 1.0)).norm() < 1e-6, "{b:?}");
    // Scale with a mirror.
    let m = Matrix4::new_nonuniform_scaling(&v3(-2.0, 3.0, 1.0));
    let b = unit.transformed_by_matrix(&m);
    assert_eq!((b.min, b.max), (p3(-2.0, 0.0, 0.0), p3(0.0, 3.0, 1.0)));
    assert_eq!(Aabb::EMPTY.transformed_by_matrix(&m), Aabb::EMPTY);
}

#[test]
fn sphere_from_points_hand_cases() {
    assert_eq!(Sphere::from_points(&[]), None);
    assert_eq!(Sphere::from_points_minimal(&[]), None);
    assert_eq!(Sphere::from_points_minimal(&[p3(f32::NAN, 0.0, 0.0)]), None);
    let one = Sphere::from_points_minimal(&[p3(1.0, 2.0, 3.0)]).unwrap();
    assert_eq!((one.center, one.radius), (p3(1.0, 2.0, 3.0), 0.0));
    let two = Sphere::from_points_minimal(&[p3(-1.0, 0.0, 0.0), p3(3.0, 0.0, 0.0)]).unwrap();
    assert_eq!((two.center, two.radius), (p3(1.0, 0.0, 0.0), 2.0));
    // Equilateral triangle in the plane: circumradius 1.
    let tri: Vec<_> = (0..3)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / 3.0;
            p3(a.cos(), a.sin(), 5.0)
        })
        .collect();
    let s = Sphere::from_points_minimal(&tri).unwrap();
    assert!((s.radius - 1.0).abs() < 1e-6 && (s.center - p3(0.0, 0.0, 5.0)).norm() < 1e-6);
    // Obtuse triangle: the minimal sphere is the long edge's diameter sphere.
    let obtuse = [p3(-2.0, 0.0, 0.0), p3(2.0, 0.0, 0.0), p3(0.0, 0.5, 0.0)];
    let s = Sphere::from_points_minimal(&obtuse).unwrap();
    assert!(
        (s.radius - 2.0).abs() < 1e-6 && s.center.coords.norm() < 1e-6,
        "{s:?}"
    );
    // Regular tetrahedron corners of the cube: circumradius sqrt(3).
    let tet = [
        p3(1.0, 1.0, 1.0),
        p3(1.0, -1.0, -1.0),
        p3(-1.0, 1.0, -1.0),
        p3(-1.0, -1.0, 1.0),
    ];
    let s = Sphere::from_points_minimal(&tet).unwrap();
    assert!((s.radius - 3f32.sqrt()).abs() < 1e-6, "{s:?}");
    // Ritter on the cube corners is at least as large as the minimal sphere.
    let cube: Vec<_> = (0..8)
        .map(|i| p3((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
        .collect();
    let (r, m) = (
        Sphere::from_points(&cube).unwrap(),
        Sphere::from_points_minimal(&cube).unwrap(),
    );
    assert!((m.radius - 3f32.sqrt() / 2.0).abs() < 1e-6);
    assert!(r.radius >= m.radius);
}

#[test]
fn sphere_from_points_degenerate_sets() {
    // Collinear, coplanar and duplicated points.
    let line: Vec<_> = (0..50).map(|i| p3(i as f32, 2.0 * i as f32, 0.0)).collect();
    let s = Sphere::from_points_minimal(&line).unwrap();
    let half = (49.0f32 * 49.0 * 5.0).sqrt() / 2.0;
    assert!((s.radius - half).abs() < 1e-3, "{s:?}");
    let mut rng = TestRng(11);
    let plane: Vec<_> = (0..200)
        .map(|_| p3(rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0), 0.0))
        .collect();
    let s = Sphere::from_points_minimal(&plane).unwrap();
    assert!(plane.iter().all(|p| in_sphere(&s, p)));
    assert!(s.center.z.abs() < 1e-4 && s.radius <= 2f32.sqrt());
    // A lattice: many collinear, coplanar and cospherical subsets at once.
    let lattice: Vec<_> = (0..216)
        .map(|i| p3((i % 6) as f32, ((i / 6) % 6) as f32, (i / 36) as f32))
        .collect();
    let s = Sphere::from_points_minimal(&lattice).unwrap();
    assert!((s.radius - 2.5 * 3f32.sqrt()).abs() < 1e-5, "{s:?}");
    assert!((s.center - p3(2.5, 2.5, 2.5)).norm() < 1e-5);
    let o = Obb::from_points(&lattice).unwrap();
    assert!(lattice.iter().all(|p| in_obb(&o, p)));
    // Points on a circle (cocircular, coplanar).
    let circle: Vec<_> = (0..360)
        .map(|i| {
            let a = (i as f32).to_radians();
            p3(3.0 * a.cos(), 3.0 * a.sin(), 1.0)
        })
        .collect();
    let s = Sphere::from_points_minimal(&circle).unwrap();
    assert!((s.radius - 3.0).abs() < 1e-5 && (s.center - p3(0.0, 0.0, 1.0)).norm() < 1e-5);
    let dup = vec![p3(1.0, 1.0, 1.0); 100];
    assert_eq!(Sphere::from_points_minimal(&dup).unwrap().radius, 0.0);
    // Cospherical points (all on the unit sphere) are the hard case for tolerances.
    let on: Vec<_> = (0..500)
        .map(|_| {
            let v = v3(rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0), rng.f32(-1.0, 1.0));
            Point3::from(v.normalize())
        })
        .collect();
    let s = Sphere::from_points_minimal(&on).unwrap();
    assert!(on.iter().all(|p| in_sphere(&s, p)));
    assert!(s.radius <= 1.0 + 1e-5, "{s:?}");
}

#[test]
fn sphere_from_points_minimal_large_input_no_stack_overflow() {
    // A million points (sorted along x, the worst order for the unshuffled recursion).
    let n = if std::env::var("RAYPICK_LONG").is_ok_and(|v| v == "1") {
        4_000_000
    } else {
        1_000_000
    };
    let mut rng = TestRng(5);
    let mut pts: Vec<_> = (0..n).map(|_| rng.point(100.0)).collect();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x));
    let s = Sphere::from_points_minimal(&pts).unwrap();
    let r = Sphere::from_points(&pts).unwrap();
    assert!(pts.iter().all(|p| in_sphere(&s, p)));
    assert!(s.radius <= r.radius * (1.0 + 1e-6));
}

#[test]
fn obb_from_points_recovers_a_rotated_box() {
    let rot = Rotation3::from_euler_angles(0.4, -0.9, 1.3);
    let c = p3(5.0, -3.0, 2.0);
    let h = v3(3.0, 2.0, 1.0);
    let pts: Vec<_> = (0..8)
        .map(|i| {
            let s = v3(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            );
            c + rot * s
        })
        .collect();
    let o = Obb::from_points(&pts).unwrap();
    assert!(pts.iter().all(|p| in_obb(&o, p)));
    assert!((o.volume() - 48.0).abs() < 1e-2, "{o:?}");
    assert!((o.center - c).norm() < 1e-4);
    // Much tighter than the world box of the same points.
    assert!(o.volume() < 0.5 * Aabb::from_points(&pts).volume());
}

#[test]
fn obb_from_points_degenerate_inputs() {
    assert_eq!(Obb::from_points(&[]), None);
    assert_eq!(Obb::from_points(&[p3(f32::NAN, 0.0, 0.0)]), None);
    let one = Obb::from_points(&[p3(1.0, 2.0, 3.0)]).unwrap();
    assert_eq!(one.center, p3(1.0, 2.0, 3.0));
    assert!(one.half_extents.max() < 1e-6);
    let line: Vec<_> = (0..10).map(|i| p3(i as f32, i as f32, i as f32)).collect();
    let o = Obb::from_points(&line).unwrap();
    assert!(line.iter().all(|p| in_obb(&o, p)));
    assert!(o.volume() < 1e-6, "{o:?}");
    let flat: Vec<_> = (0..30)
        .map(|i| p3((i % 5) as f32, (i / 5) as f32, 7.0))
        .collect();
    let o = Obb::from_points(&flat).unwrap();
    assert!(flat.iter().all(|p| in_obb(&o, p)));
    // The rotation is proper (no mirror).
    assert!((o.rotation.matrix().determinant() - 1.0).abs() < 1e-4);
    let dup = vec![p3(-1.0, 4.0, 2.0); 7];
    assert!(Obb::from_points(&dup).unwrap().half_extents.max() < 1e-6);
}

fn cloud() -> impl Strategy<Value = Vec<Point3<f32>>> {
    prop_oneof![
        proptest::collection::vec(point(), 1..60),
        // Flat clouds (coplanar) and clustered ones.
        proptest::collection::vec((coord(), coord()), 1..40)
            .prop_map(|v| v.into_iter().map(|(x, y)| p3(x, y, 1.5)).collect()),
        proptest::collection::vec(point(), 1..30).prop_map(|v| v
            .into_iter()
            .map(|p| p3(p.x * 1e-3, p.y * 1e-3 + 7.0, p.z))
            .collect()),
    ]
}

/// The exact minimal sphere by brute force over pairs, triples and quadruples (small sets).
fn brute_min_radius(pts: &[Point3<f32>]) -> f64 {
    let p: Vec<V64> = pts.iter().map(w).collect();
    let holds = |c: V64, r: f64| p.iter().all(|q| (q - c).norm() <= r * (1.0 + 1e-9) + 1e-9);
    let mut best = f64::INFINITY;
    let n = p.len();
    if n == 1 {
        return 0.0;
    }
    for i in 0..n {
        for j in i + 1..n {
            let c = (p[i] + p[j]) * 0.5;
            let r = (p[i] - c).norm();
            if r < best && holds(c, r) {
                best = r;
            }
            for k in j + 1..n {
                let (ab, ac) = (p[j] - p[i], p[k] - p[i]);
                let nn = ab.cross(&ac);
                if nn.norm_squared() > 1e-18 {
                    let o = (nn.cross(&ab) * ac.norm_squared() + ac.cross(&nn) * ab.norm_squared())
                        / (2.0 * nn.norm_squared());
                    let c = p[i] + o;
                    let r = o.norm();
                    if r < best && holds(c, r) {
                        best = r;
                    }
                }
                for l in k + 1..n {
                    let (u, v, x) = (p[j] - p[i], p[k] - p[i], p[l] - p[i]);
                    let det = u.dot(&v.cross(&x));
                    if det.abs() > 1e-12 {
                        let o = (v.cross(&x) * u.norm_squared()
                            + x.cross(&u) * v.norm_squared()
                            + u.cross(&v) * x.norm_squared())
                            / (2.0 * det);
                        let c = p[i] + o;
                        let r = o.norm();
                        if r < best && holds(c, r) {
                            best = r;
                        }
                    }
                }
            }
        }
    }
    best
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn bounding_volumes_contain_all_points(pts in cloud()) {
        let b = Aabb::from_points(&pts);
        prop_assert!(pts.iter().all(|p| b.contains_point(p)));
        // Tight: each face is touched by a point.
        for i in 0..3 {
            prop_assert!(pts.iter().any(|p| p[i] == b.min[i]) && pts.iter().any(|p| p[i] == b.max[i]));
        }
        let r = Sphere::from_points(&pts).unwrap();
        let m = Sphere::from_points_minimal(&pts).unwrap();
        prop_assert!(pts.iter().all(|p| in_sphere(&r, p)), "ritter {r:?}");
        prop_assert!(pts.iter().all(|p| in_sphere(&m, p)), "welzl {m:?}");
        prop_assert!(m.radius <= r.radius * (1.0 + 1e-6) + 1e-6, "welzl {} > ritter {}", m.radius, r.radius);
        let o = Obb::from_points(&pts).unwrap();
        prop_assert!(pts.iter().all(|p| in_obb(&o, p)), "obb {o:?}");
    }

    /// Welzl's sphere is the minimal one (brute force on small sets).
    #[test]
    fn sphere_from_points_minimal_is_minimal(pts in proptest::collection::vec(point(), 1..9)) {
        let m = Sphere::from_points_minimal(&pts).unwrap();
        let best = brute_min_radius(&pts);
        prop_assert!((m.radius as f64 - best).abs() <= 1e-5 * (1.0 + best), "welzl {} brute {}", m.radius, best);
    }

    /// Arvo's box equals the box of the eight transformed corners.
    #[test]
    fn aabb_transformed_matches_corners(b in aabb(), r in rotation(), t in point(), s in (0.1f32..3.0, -3.0f32..-0.1, 0.1f32..3.0)) {
        let m = Translation3::from(t.coords).to_homogeneous() * r.to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&v3(s.0, s.1, s.2));
        let got = b.transformed_by_matrix(&m);
        let m64 = m.cast::<f64>();
        let (mut lo, mut hi) = (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY));
        for c in aabb_corners64(&b) {
            let q = m64.transform_point(&nalgebra::Point3::from(c)).coords;
            lo = lo.inf(&q);
            hi = hi.sup(&q);
        }
        for i in 0..3 {
            prop_assert!((got.min[i] as f64 - lo[i]).abs() < 1e-4 * (1.0 + lo[i].abs()));
            prop_assert!((got.max[i] as f64 - hi[i]).abs() < 1e-4 * (1.0 + hi[i].abs()));
        }
    }
}
