//! The `distance --points` contract: points in, one JSON object per point out.
//!
//! Input: one point per line, `x y z`, whitespace-separated, finite; blank lines and lines
//! starting with `#` are skipped (the rules of `pick --rays`). Output, per point in input
//! order:
//! `{"distance":D,"signed_distance":S,"inside":B,"winding_number":W,"nearest":[x,y,z],"object":O,"triangle":K}`
//! where `S` is negative inside, `D = |S|`, `W` is the scene's generalized winding number
//! and `inside` is `Scene::contains`. A file with no triangles gives
//! `{"distance":null,"signed_distance":null,"inside":false,"winding_number":0.0,"nearest":null,"object":null,"triangle":null}`.

use raypick_primitives::{Point3, Real};

use crate::rays::each_number_line;
use crate::world::World;
use crate::CliError;

/// Parses the whole input first, so a malformed line leaves stdout empty.
pub fn parse_points(text: &str, source: &str) -> Result<Vec<Point3<Real>>, CliError> {
    let mut points = Vec::new();
    each_number_line(text, source, &[3], "3 numbers (x y z)", |v, _, bad| {
        // Finite once rounded to f32: 1e300 is too.
        let p = Point3::new(v[0] as Real, v[1] as Real, v[2] as Real);
        if let Some(k) = p.iter().position(|c| !c.is_finite()) {
            return Err(bad(format!("{} must be finite", ["x", "y", "z"][k])));
        }
        points.push(p);
        Ok(())
    })?;
    Ok(points)
}

/// The JSON line for one point (no trailing newline).
pub fn answer(world: &World, p: &Point3<Real>) -> String {
    let scene = world.scene();
    match scene.signed_distance(*p) {
        None => format!(
            "{{\"distance\":null,\"signed_distance\":null,\"inside\":false,\"winding_number\":{},\"nearest\":null,\"object\":null,\"triangle\":null}}",
            num(scene.winding_number(*p))
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
                num(s.distance.abs()),
                num(s.distance),
                s.distance < 0.0 || (s.distance == 0.0 && scene.contains(*p)),
                num(s.winding_number),
                num(s.point.x),
                num(s.point.y),
                num(s.point.z),
                world.object_of(s.instance),
                triangle
            )
        }
    }
}

/// A JSON number in Rust's shortest round-trip form; never NaN or inf.
fn num(v: Real) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_owned()
    }
}
