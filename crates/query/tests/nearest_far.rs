//! Nearest points farther than about 1.8e19, where the f32 square of a distance overflows:
//! the nearest triangle is still the nearest (ranked by the f64 squares) and its distance
//! finite, on meshes, through signed distances, and through scenes.

use nalgebra::{Matrix4, Point3};
use raypick_query::{Mesh, Scene, SceneQuery};

/// A small triangle with its first corner at `(x, 0, 0)`, `size` across.
fn tri_at(x: f32, size: f32) -> [Point3<f32>; 3] {
    [
        Point3::new(x, 0.0, 0.0),
        Point3::new(x + size, 0.0, 0.0),
        Point3::new(x, size, 0.0),
    ]
}

fn mesh_of(tris: &[[Point3<f32>; 3]]) -> Mesh {
    let positions = tris.iter().flatten().copied().collect();
    let indices = (0..tris.len() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    Mesh::new(positions, indices).unwrap()
}

/// The nearest of `tris` to `p` and its f64 distance, by brute force over their corners:
/// `p` lies far beyond every triangle along x, so the nearest point of each is within its
/// size of a corner, and the corner's distance within `(size / distance)²` of the
/// triangle's, relatively.
fn brute(p: &Point3<f32>, tris: &[[Point3<f32>; 3]]) -> (usize, f64) {
    let d = |a: &Point3<f32>| {
        let v = [0, 1, 2].map(|k| f64::from(p[k]) - f64::from(a[k]));
        (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
    };
    tris.iter()
        .map(|t| t.iter().map(d).fold(f64::INFINITY, f64::min))
        .enumerate()
        .fold((usize::MAX, f64::INFINITY), |b, (i, x)| {
            if x < b.1 {
                (i, x)
            } else {
                b
            }
        })
}

#[test]
fn the_nearer_of_two_far_triangles_wins() {
    // Both squared distances overflow f32; the first triangle (the one the lowest index
    // would pick) is three times farther.
    let tris = [tri_at(0.0, 1e18), tri_at(1e20, 1e18)];
    let mesh = mesh_of(&tris);
    for x in [1.5e20f32, 2e20, 1e22, 3e30] {
        let p = Point3::new(x, 1e17, 0.0);
        let (want, d) = brute(&p, &tris);
        let near = mesh.nearest_point(&p, f32::INFINITY).unwrap();
        assert_eq!(near.triangle as usize, want, "at {x}");
        assert!(near.distance.is_finite(), "at {x}: {}", near.distance);
        let rel = (f64::from(near.distance) - d).abs() / d;
        assert!(rel < 1e-6, "at {x}: {} against {d}", near.distance);
        // The limit holds in f64 too.
        assert!(
            mesh.nearest_point(&p, (d * 0.999) as f32).is_none(),
            "at {x}"
        );
        assert!(
            mesh.nearest_point(&p, (d * 1.001) as f32).is_some(),
            "at {x}"
        );
        let sd = mesh.signed_distance(p).unwrap();
        assert_eq!(sd.triangle as usize, want);
        assert_eq!(sd.distance, near.distance);
    }
}

#[test]
fn a_unit_mesh_seen_from_afar_has_a_finite_distance() {
    let tris = [tri_at(0.0, 1.0), tri_at(5.0, 1.0)];
    let mesh = mesh_of(&tris);
    for x in [1e19f32, 2e19, 1e25, -1e30, 3e38] {
        let p = Point3::new(x, 0.5, 0.0);
        let near = mesh.nearest_point(&p, f32::INFINITY).unwrap();
        let (_, d) = brute(&p, &tris);
        // Both triangles are within the rounding of `p`'s coordinate of each other.
        let rel = (f64::from(near.distance) - d).abs() / d;
        assert!(rel < 1e-6, "at {x}: {} against {d}", near.distance);
    }
    // Below the overflow the squares are the f32 ones, as documented: both round to the
    // same, and the lower index wins.
    let p = Point3::new(1e18f32, 0.5, 0.0);
    let near = mesh.nearest_point(&p, f32::INFINITY).unwrap();
    assert_eq!(near.triangle, 0);
    assert_eq!(near.distance, 1e18);
}

#[test]
fn scenes_rank_far_instances_by_their_distance() {
    let tris = [tri_at(0.0, 1e18), tri_at(1e20, 1e18)];
    let mut scene = Scene::new();
    let id = scene.add_mesh(mesh_of(&tris));
    let a = scene.add_instance(id, &Matrix4::identity()).unwrap();
    let b = scene
        .add_instance(id, &Matrix4::new_translation(&[2e20, 0.0, 0.0].into()))
        .unwrap();
    scene.update();
    let q = SceneQuery::default();
    for (x, want, tri) in [(1.25e20f32, a, 1), (2.3e20, b, 0), (3.5e20, b, 1)] {
        let p = Point3::new(x, 1e17, 0.0);
        let near = scene.nearest_point(&p, f32::INFINITY, &q).unwrap();
        assert_eq!(near.instance, want, "at {x}");
        assert_eq!(near.triangle_index(), Some(tri), "at {x}");
        assert!(near.distance.is_finite(), "at {x}");
    }
}
