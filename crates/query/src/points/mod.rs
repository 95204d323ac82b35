//! Point sets and segment sets: point clouds, polylines and line lists with their own BVH,
//! pickable under the mouse with a tolerance in pixels ([`pick`]) and queryable in world
//! space around a ray ([`ray`]).
//!
//! The BVH is built through `raypick-bvh`, which sees only one box per point or segment.
//!
//! ```
//! use raypick_query::points::{PointSet, PickConfig};
//! use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};
//! use raypick_primitives::{Point3, Vector3};
//!
//! let cloud = PointSet::new(vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0)]).unwrap();
//! let camera = Camera::look_at(
//!     Point3::new(0.0, 0.0, 5.0), Point3::origin(), Vector3::y(),
//!     Projection::perspective(60f32.to_radians(), 1.0, 0.1, 100.0), ClipConvention::OPENGL,
//! ).unwrap();
//! let viewport = Viewport::new(800.0, 800.0);
//! // The cursor 3 px off the projection of the origin: within a 5 px tolerance.
//! let hit = cloud.pick(&camera, &viewport, 403.0, 400.0, &PickConfig::default(), None).unwrap();
//! assert_eq!(hit.index, 0);
//! assert!((hit.pixel_distance - 3.0).abs() < 1e-3);
//! ```

mod marquee;
pub(crate) mod nearest;
pub mod pick;
pub mod ray;

use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::{Aabb, Point3, Real};

pub use nearest::NearestPrim;
pub use pick::{Occluder, PickConfig, PickKind, PrimPick};
pub use ray::RayNear;

/// Why a point set or segment set could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PointsError {
    /// A position has a NaN or infinite coordinate.
    #[error("point {0} has a non-finite coordinate")]
    NonFinite(usize),
    /// A segment refers to a point that does not exist.
    #[error("segment {segment} refers to point {index}, but there are {count} points")]
    IndexOutOfRange {
        /// The segment.
        segment: usize,
        /// The bad index.
        index: u32,
        /// The number of points.
        count: usize,
    },
    /// More primitives than a `u32` index can name.
    #[error("too many primitives: {0}")]
    TooMany(usize),
    /// The BVH build failed.
    #[error("bvh: {0}")]
    Bvh(String),
}

fn check_points(points: &[Point3<Real>]) -> Result<(), PointsError> {
    if points.len() > u32::MAX as usize {
        return Err(PointsError::TooMany(points.len()));
    }
    match points.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        Some(i) => Err(PointsError::NonFinite(i)),
        None => Ok(()),
    }
}

fn build(boxes: &[Aabb]) -> Result<Bvh, PointsError> {
    if boxes.is_empty() {
        return Ok(Bvh::default());
    }
    Bvh::build(boxes, &BuildConfig::morton()).map_err(|e| PointsError::Bvh(e.to_string()))
}

/// A point cloud with its BVH. An empty set is valid and never hit.
#[derive(Clone, Debug)]
pub struct PointSet {
    pub(crate) points: Vec<Point3<Real>>,
    pub(crate) bvh: Bvh,
}

impl PointSet {
    /// Builds the set and its BVH.
    ///
    /// # Errors
    /// [`PointsError::NonFinite`] naming the first non-finite point.
    pub fn new(points: Vec<Point3<Real>>) -> Result<Self, PointsError> {
        check_points(&points)?;
        let boxes: Vec<Aabb> = points.iter().map(|p| Aabb::from_point(*p)).collect();
        let bvh = build(&boxes)?;
        Ok(Self { points, bvh })
    }

    /// The points, in the order given.
    #[must_use]
    pub fn points(&self) -> &[Point3<Real>] {
        &self.points
    }

    /// The BVH (over one degenerate box per point).
    #[must_use]
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }
}

/// Segments between indexed points (a line list; a polyline is a line list whose segments
/// share ends, see [`SegmentSet::polyline`]). A segment with both ends equal is a valid,
/// degenerate segment that behaves like a point.
#[derive(Clone, Debug)]
pub struct SegmentSet {
    pub(crate) points: Vec<Point3<Real>>,
    pub(crate) segments: Vec<[u32; 2]>,
    pub(crate) bvh: Bvh,
}

impl SegmentSet {
    /// Builds the set and its BVH.
    ///
    /// # Errors
    /// A non-finite point or a segment index out of range, naming the element.
    pub fn new(points: Vec<Point3<Real>>, segments: Vec<[u32; 2]>) -> Result<Self, PointsError> {
        check_points(&points)?;
        if segments.len() > u32::MAX as usize {
            return Err(PointsError::TooMany(segments.len()));
        }
        for (s, seg) in segments.iter().enumerate() {
            for &index in seg {
                if index as usize >= points.len() {
                    return Err(PointsError::IndexOutOfRange {
                        segment: s,
                        index,
                        count: points.len(),
                    });
                }
            }
        }
        let boxes: Vec<Aabb> = segments
            .iter()
            .map(|s| Aabb::from_point(points[s[0] as usize]).grow(&points[s[1] as usize]))
            .collect();
        let bvh = build(&boxes)?;
        Ok(Self {
            points,
            segments,
            bvh,
        })
    }

    /// A polyline through `points` in order (`closed` adds the segment from last to first).
    ///
    /// # Errors
    /// As [`SegmentSet::new`].
    pub fn polyline(points: Vec<Point3<Real>>, closed: bool) -> Result<Self, PointsError> {
        let n = points.len() as u32;
        let mut segs: Vec<[u32; 2]> = (1..n).map(|i| [i - 1, i]).collect();
        if closed && n > 2 {
            segs.push([n - 1, 0]);
        }
        Self::new(points, segs)
    }

    /// The points the segments index.
    #[must_use]
    pub fn points(&self) -> &[Point3<Real>] {
        &self.points
    }

    /// The segments as pairs of point indices.
    #[must_use]
    pub fn segments(&self) -> &[[u32; 2]] {
        &self.segments
    }

    /// The ends of segment `i`, or `None` when out of range.
    #[must_use]
    pub fn segment(&self, i: usize) -> Option<[Point3<Real>; 2]> {
        let s = self.segments.get(i)?;
        Some([self.points[s[0] as usize], self.points[s[1] as usize]])
    }

    /// The BVH (over one box per segment).
    #[must_use]
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }
}
