//! The point and segment sets of a scene, and their instances, to bytes and back (format
//! version 2, see the module above). Sets are saved once however many instances share
//! them; their trees are rebuilt on load.

use std::sync::Arc;

use nalgebra::Matrix4;
use raypick_primitives::Point3;

use super::{u32s, LoadError, Reader, Writer};
use crate::points::{PointSet, SegmentSet};
use crate::scene::PrimData;
use crate::Scene;

const POINTS: u32 = 1;
const SEGMENTS: u32 = 2;
/// The set index of an empty slot.
const NO_SET: u32 = u32::MAX;

fn same(a: &PrimData, b: &PrimData) -> bool {
    match (a, b) {
        (PrimData::Points(a), PrimData::Points(b)) => Arc::ptr_eq(a, b),
        (PrimData::Segments(a), PrimData::Segments(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// Appends the sets and the set-instance slots of `scene`.
pub(super) fn write(scene: &Scene, w: &mut Writer) {
    let slots: Vec<_> = scene.prim_slots().collect();
    let mut sets: Vec<&PrimData> = Vec::new();
    let index: Vec<u32> = slots
        .iter()
        .map(|(_, o)| match o {
            None => NO_SET,
            Some((data, ..)) => match sets.iter().position(|s| same(s, data)) {
                Some(i) => i as u32,
                None => {
                    sets.push(data);
                    (sets.len() - 1) as u32
                }
            },
        })
        .collect();
    w.u32(sets.len() as u32);
    w.u32(slots.len() as u32);
    for set in &sets {
        let (kind, points, segments) = match set {
            PrimData::Points(s) => (POINTS, s.points(), &[][..]),
            PrimData::Segments(s) => (SEGMENTS, s.points(), s.segments()),
        };
        w.u32(kind);
        w.u64(points.len() as u64);
        w.u64(segments.len() as u64);
        points.iter().flat_map(|p| p.iter()).for_each(|&c| w.f32(c));
        segments.iter().flatten().for_each(|&i| w.u32(i));
    }
    for ((generation, object), set) in slots.iter().zip(index) {
        w.u32(*generation);
        w.u32(set);
        if let Some((_, m, mask, user_data)) = object {
            w.u32(*mask);
            w.u64(*user_data);
            for row in 0..4 {
                for col in 0..4 {
                    w.f64(m[(row, col)]);
                }
            }
        }
    }
}

/// Reads what [`write()`] wrote into `scene`, checking each set (finite points, indices in
/// range) as it is built, and each transform.
pub(super) fn read(scene: &mut Scene, r: &mut Reader<'_>) -> Result<(), LoadError> {
    let set_count = r.u32("point and segment sets")?;
    let slot_count = r.u32("point and segment sets")?;
    // Each set takes at least 20 bytes and each slot 8: bounded by the input first.
    let needed = u64::from(set_count) * 20 + u64::from(slot_count) * 8;
    if needed > r.remaining() as u64 {
        return Err(LoadError::Truncated {
            what: "point and segment sets",
            needed,
            available: r.remaining() as u64,
        });
    }
    let mut sets = Vec::with_capacity(set_count as usize);
    for s in 0..set_count {
        let invalid =
            |what: String| LoadError::Invalid(format!("point or segment set {s}: {what}"));
        let kind = r.u32("set")?;
        let n = r.u64("set")?;
        let m = r.u64("set")?;
        if kind != POINTS && kind != SEGMENTS {
            return Err(invalid(format!("unknown kind {kind}")));
        }
        if kind == POINTS && m != 0 {
            return Err(invalid("a point set with segments".into()));
        }
        let coords: Vec<f32> = u32s(r.take("set points", n, 12)?)
            .map(f32::from_bits)
            .collect();
        let points: Vec<Point3<f32>> = coords
            .chunks_exact(3)
            .map(|c| Point3::new(c[0], c[1], c[2]))
            .collect();
        let data = if kind == POINTS {
            PrimData::Points(Arc::new(
                PointSet::new(points).map_err(|e| invalid(e.to_string()))?,
            ))
        } else {
            let idx: Vec<u32> = u32s(r.take("set segments", m, 8)?).collect();
            let segments = idx.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
            PrimData::Segments(Arc::new(
                SegmentSet::new(points, segments).map_err(|e| invalid(e.to_string()))?,
            ))
        };
        sets.push(data);
    }
    for index in 0..slot_count {
        let invalid =
            |what: String| LoadError::Invalid(format!("point or segment set slot {index}: {what}"));
        let generation = r.u32("set slot")?;
        let set = r.u32("set slot")?;
        if set == NO_SET {
            scene
                .push_prim_slot(generation, None)
                .map_err(|e| invalid(e.to_string()))?;
            continue;
        }
        let data = sets
            .get(set as usize)
            .ok_or_else(|| invalid(format!("set {set} does not exist")))?
            .clone();
        let mask = r.u32("set slot")?;
        let user_data = r.u64("set slot")?;
        let mut m = Matrix4::<f64>::zeros();
        for row in 0..4 {
            for col in 0..4 {
                m[(row, col)] = r.f64("set slot transform")?;
            }
        }
        scene
            .push_prim_slot(generation, Some((data, m, mask, user_data)))
            .map_err(|e| invalid(e.to_string()))?;
    }
    Ok(())
}
