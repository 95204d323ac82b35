//! A [`Scene`] to bytes and back (the format is in the module above).
//!
//! Shapes are saved by their parameters, as a tag and its values (all f32):
//! 1 ball (radius), 2 cuboid (half extents x, y, z), 3 capsule (segment ends a, b, radius),
//! 4 cylinder (half height, radius), 5 cone (half height, radius), 6 half-space (unit
//! outward normal). Other parry shapes cannot be saved ([`SaveError::UnsupportedShape`]).

use std::sync::Arc;

use nalgebra::{Matrix4, Unit};
use parry3d::shape::{SharedShape, TypedShape};
use raypick_primitives::{Point3, Vector3};

use super::{finish, payload, start, LoadError, Reader, SavedKind};
use crate::scene::shape::shape_world_box;
use crate::scene::transform::InstanceTransform;
use crate::scene::{Geometry, InstanceId, MeshId, MeshSource, Object, Slot};
use crate::{Mesh, Scene};

/// Why a scene could not be saved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// The instance is a parry shape of a kind the format does not hold (only balls,
    /// cuboids, capsules, cylinders, cones and half-spaces are saved).
    #[error("instance {instance:?}: a {kind} shape cannot be saved")]
    UnsupportedShape {
        /// The instance.
        instance: InstanceId,
        /// The parry shape type.
        kind: String,
    },
}

const EMPTY: u32 = 0;
const MESH: u32 = 1;
const SHAPE: u32 = 2;

/// A shape's tag and parameters; `None` for a kind the format does not hold.
fn shape_params(shape: &SharedShape) -> Option<(u32, Vec<f32>)> {
    Some(match shape.as_typed_shape() {
        TypedShape::Ball(b) => (1, vec![b.radius]),
        TypedShape::Cuboid(c) => (2, c.half_extents.iter().copied().collect()),
        TypedShape::Capsule(c) => {
            let (a, b) = (c.segment.a, c.segment.b);
            (3, vec![a.x, a.y, a.z, b.x, b.y, b.z, c.radius])
        }
        TypedShape::Cylinder(c) => (4, vec![c.half_height, c.radius]),
        TypedShape::Cone(c) => (5, vec![c.half_height, c.radius]),
        TypedShape::HalfSpace(h) => (6, h.normal.iter().copied().collect()),
        _ => return None,
    })
}

/// The shape of tag `tag`, reading its parameters.
fn read_shape(r: &mut Reader<'_>, tag: u32) -> Result<SharedShape, String> {
    let count = match tag {
        1 => 1,
        2 | 6 => 3,
        3 => 7,
        4 | 5 => 2,
        _ => return Err(format!("unknown shape tag {tag}")),
    };
    let mut v = [0.0f32; 7];
    for x in v.iter_mut().take(count) {
        *x = r.f32("shape").map_err(|e| e.to_string())?;
    }
    if !v.iter().all(|x| x.is_finite()) {
        return Err("a shape parameter is not finite".into());
    }
    let positive = |xs: &[f32]| xs.iter().all(|&x| x > 0.0);
    let shape = match tag {
        1 if positive(&v[..1]) => SharedShape::ball(v[0]),
        2 if positive(&v[..3]) => SharedShape::cuboid(v[0], v[1], v[2]),
        3 if positive(&v[6..7]) => SharedShape::capsule(
            Point3::new(v[0], v[1], v[2]),
            Point3::new(v[3], v[4], v[5]),
            v[6],
        ),
        4 if positive(&v[..2]) => SharedShape::cylinder(v[0], v[1]),
        5 if positive(&v[..2]) => SharedShape::cone(v[0], v[1]),
        6 => {
            let n = Vector3::new(v[0], v[1], v[2]);
            if (n.norm() - 1.0).abs() > 1e-4 {
                return Err("a half-space normal is not unit length".into());
            }
            // Saved unit: kept as is, so the loaded shape is the saved one bit for bit.
            SharedShape::halfspace(Unit::new_unchecked(n))
        }
        _ => return Err(format!("shape tag {tag}: a size is not positive")),
    };
    Ok(shape)
}

impl Scene {
    /// The scene saved as bytes: each shared mesh once (as [`Mesh::to_bytes`] saves it),
    /// then every instance slot with its f64 transform, mask and user data, then the point
    /// and segment sets and their instances (the format is in [`crate::persist`]). [`Scene::from_bytes`] loads it: the same instance ids, the same
    /// answers bit for bit.
    ///
    /// # Errors
    /// [`SaveError::UnsupportedShape`] for a shape other than a ball, cuboid, capsule,
    /// cylinder, cone or half-space.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SaveError> {
        let mut w = start();
        let free = self.free.len() as u32;
        w.u32(self.meshes.len() as u32);
        w.u32(self.slots.len() as u32);
        w.u32(free);
        w.u32(0);
        for (mesh, _) in &self.meshes {
            let at = w.out.len();
            w.u64(0);
            mesh.write_payload(&mut w);
            let len = (w.out.len() - at - 8) as u64;
            w.out[at..at + 8].copy_from_slice(&len.to_le_bytes());
        }
        for (index, slot) in self.slots.iter().enumerate() {
            w.u32(slot.generation);
            let Some(obj) = &slot.object else {
                w.u32(EMPTY);
                continue;
            };
            // What follows the transform: the mesh id, or the shape's tag and parameters.
            let (kind, tail) = match &obj.geometry {
                Geometry::Mesh { id, .. } => (MESH, (id.0, Vec::new())),
                Geometry::Shape(s) => {
                    let params = shape_params(s).ok_or_else(|| SaveError::UnsupportedShape {
                        instance: InstanceId {
                            index: index as u32,
                            generation: slot.generation,
                        },
                        kind: format!("{:?}", s.shape_type()),
                    })?;
                    (SHAPE, params)
                }
            };
            w.u32(kind);
            w.u32(obj.mask);
            w.u64(obj.user_data);
            let m = obj.transform.m64;
            for row in 0..4 {
                for col in 0..4 {
                    w.f64(m[(row, col)]);
                }
            }
            w.u32(tail.0);
            tail.1.iter().for_each(|&p| w.f32(p));
        }
        for &f in &self.free {
            w.u32(f);
        }
        if self.has_prims() {
            super::prims::write(self, &mut w);
            return Ok(finish(SavedKind::Scene, 2, w));
        }
        Ok(finish(SavedKind::Scene, 1, w))
    }

    /// Loads a scene saved by [`Scene::to_bytes`], checking every invariant first (see
    /// [`crate::persist`]), and builds its top-level tree (one box per instance; the meshes'
    /// trees are loaded, not rebuilt). Instance and mesh ids are those of the saved scene.
    ///
    /// # Errors
    /// A [`LoadError`] naming what is wrong (and which mesh or slot), for any input that is
    /// not a valid saved scene. Never panics, and allocates no more than the input's length
    /// holds.
    pub fn from_bytes(bytes: &[u8]) -> Result<Scene, LoadError> {
        let (data, version) = payload(bytes, SavedKind::Scene)?;
        let mut r = Reader::new(data);
        let mesh_count = r.u32("scene header")?;
        let slot_count = r.u32("scene header")?;
        let free_count = r.u32("scene header")?;
        if r.u32("scene header")? != 0 {
            return Err(LoadError::Invalid(
                "scene header: reserved field is not 0".into(),
            ));
        }
        // Every mesh takes at least its 8-byte length and every slot 8 bytes: bounded by the
        // input before anything is allocated for them.
        let bound = |count: u32, each: u64, what| {
            let needed = u64::from(count) * each;
            if needed > data.len() as u64 {
                Err(LoadError::Truncated {
                    what,
                    needed,
                    available: data.len() as u64,
                })
            } else {
                Ok(())
            }
        };
        bound(mesh_count, 8, "meshes")?;
        bound(slot_count, 8, "instance slots")?;
        let mut scene = Scene::new();
        for m in 0..mesh_count {
            let len = r.u64("mesh length")?;
            let bytes = r.take("mesh", len, 1)?;
            let mesh = Mesh::read_payload(bytes, Some(m))?;
            let source = Arc::new(MeshSource::from_mesh(&mesh));
            scene.meshes.push((Arc::new(mesh), source));
        }
        for index in 0..slot_count {
            let invalid = |what: String| LoadError::Invalid(format!("slot {index}: {what}"));
            let generation = r.u32("slot")?;
            let kind = r.u32("slot")?;
            if kind == EMPTY {
                scene.slots.push(Slot {
                    generation,
                    object: None,
                });
                continue;
            }
            if kind != MESH && kind != SHAPE {
                return Err(invalid(format!("unknown kind {kind}")));
            }
            let mask = r.u32("slot")?;
            let user_data = r.u64("slot")?;
            let mut m = Matrix4::<f64>::zeros();
            for row in 0..4 {
                for col in 0..4 {
                    m[(row, col)] = r.f64("slot transform")?;
                }
            }
            let transform = InstanceTransform::new_f64(&m).map_err(|e| invalid(e.to_string()))?;
            let (geometry, world_box) = if kind == MESH {
                let id = r.u32("slot")?;
                let (mesh, source) = scene
                    .meshes
                    .get(id as usize)
                    .ok_or_else(|| invalid(format!("mesh {id} does not exist")))?
                    .clone();
                let world_box = transform.box_to_world(&mesh.bounds());
                let id = MeshId(id);
                (Geometry::Mesh { id, mesh, source }, world_box)
            } else {
                let tag = r.u32("slot")?;
                let shape = read_shape(&mut r, tag).map_err(invalid)?;
                if transform.uniform_scale.is_none() {
                    return Err(invalid("a shape under a non-uniform scale".into()));
                }
                let world_box = shape_world_box(&shape, &transform);
                (Geometry::Shape(shape), world_box)
            };
            scene.slots.push(Slot {
                generation,
                object: Some(Object {
                    geometry,
                    transform,
                    mask,
                    user_data,
                    world_box,
                }),
            });
            scene.live += 1;
        }
        let empty = scene.slots.len() - scene.live;
        if free_count as usize != empty {
            return Err(LoadError::Invalid(format!(
                "{free_count} free slots listed, {empty} slots are empty"
            )));
        }
        let mut listed = vec![false; scene.slots.len()];
        for _ in 0..free_count {
            let f = r.u32("free slots")?;
            match (scene.slots.get(f as usize), listed.get_mut(f as usize)) {
                (Some(s), Some(seen)) if s.object.is_none() && !*seen => *seen = true,
                _ => {
                    return Err(LoadError::Invalid(format!(
                        "free slot {f} is out of range, live or listed twice"
                    )))
                }
            }
            scene.free.push(f);
        }
        if version >= 2 {
            super::prims::read(&mut scene, &mut r)?;
        }
        if r.remaining() != 0 {
            return Err(LoadError::TrailingBytes {
                extra: r.remaining() as u64,
            });
        }
        scene.structure_dirty = true;
        scene.update();
        Ok(scene)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::Writer;
    use raypick_primitives::Real;

    #[test]
    fn every_saved_shape_kind_round_trips() {
        let shapes = [
            SharedShape::ball(0.5),
            SharedShape::cuboid(1.0, 2.0, 3.0),
            SharedShape::capsule(
                Point3::new(0.0, -1.0, 0.0),
                Point3::new(0.0, 1.0, 0.5),
                0.25,
            ),
            SharedShape::cylinder(1.5, 0.5),
            SharedShape::cone(1.0, 0.75),
            SharedShape::halfspace(Vector3::<Real>::y_axis()),
        ];
        for s in shapes {
            let (tag, params) = shape_params(&s).unwrap();
            let mut w = Writer::default();
            params.iter().for_each(|&p| w.f32(p));
            let back = read_shape(&mut Reader::new(&w.out), tag).unwrap();
            assert_eq!(shape_params(&back), Some((tag, params)));
        }
        let hull = SharedShape::convex_hull(&[
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(1.0, 0.0, 0.0),
            Point3::new(0.0, 1.0, 0.0),
            Point3::new(0.0, 0.0, 1.0),
        ])
        .unwrap();
        assert!(shape_params(&hull).is_none());
    }
}
