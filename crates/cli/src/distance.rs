//! The `distance --points` contract: points in, one JSON object per point out.
//!
//! Input: one point per line, `x y z`, whitespace-separated, finite; blank lines and lines
//! starting with `#` are skipped (the rules of `pick --rays`). Output, per point in input
//! order:
//! `{"distance":D,"signed_distance":S,"inside":B,"winding_number":W,"nearest":[x,y,z],"object":O,"triangle":K}`
//! where `S` is negative inside, `D = |S|`, `W` is the scene's generalized winding number
//! and `inside` is `Scene::contains`. Points are read in f64 and measured on the scene's
//! f64 path (`Scene::signed_distance_f64`): each instance gets the point in its own frame
//! before anything is rounded to f32, so files in map or survey coordinates (re-centred
//! when loaded) are measured exactly; `D`, `S` and `nearest` are printed in f64. A file with no triangles gives
//! `{"distance":null,"signed_distance":null,"inside":false,"winding_number":0.0,"nearest":null,"object":null,"triangle":null}`.

use nalgebra::Point3;
use raypick_primitives::Real;

use crate::rays::{each_number_line, num, num64};
use crate::world::World;
use crate::CliError;

/// Parses the whole input first, so a malformed line leaves stdout empty.
pub fn parse_points(text: &str, source: &str) -> Result<Vec<Point3<f64>>, CliError> {
    let mut points = Vec::new();
    each_number_line(text, source, &[3], "3 numbers (x y z)", |v, _, bad| {
        // Finite once rounded to f32 (the scene's boxes are f32): 1e300 is too.
        let p = Point3::new(v[0], v[1], v[2]);
        if let Some(k) = p.iter().position(|c| !(*c as Real).is_finite()) {
            return Err(bad(format!("{} must be finite", ["x", "y", "z"][k])));
        }
        points.push(p);
        Ok(())
    })?;
    Ok(points)
}

/// The JSON line for one point (no trailing newline).
pub fn answer(world: &World, p: &Point3<f64>) -> String {
    let scene = world.scene();
    match scene.signed_distance_f64(*p) {
        None => format!(
            "{{\"distance\":null,\"signed_distance\":null,\"inside\":false,\"winding_number\":{},\"nearest\":null,\"object\":null,\"triangle\":null}}",
            num(scene.winding_number_f64(*p))
        ),
        Some(s) => {
            let triangle = match s.geometry {
                raypick_query::scene::HitGeometry::Triangle { triangle, .. } => {
                    triangle.to_string()
                }
                _ => "null".to_owned(),
            };
            format!(
                "{{\"distance\":{},\"signed_distance\":{},\"inside\":{},\"winding_number\":{},\"nearest\":[{},{},{}],\"object\":{},\"triangle\":{}}}",
                num64(s.distance.abs()),
                num64(s.distance),
                s.distance < 0.0 || (s.distance == 0.0 && scene.contains_f64(*p)),
                num(s.winding_number),
                num64(s.point.x),
                num64(s.point.y),
                num64(s.point.z),
                world.object_of(s.instance),
                triangle
            )
        }
    }
}
