//! raypick-primitives: rays, boxes, planes, spheres, triangles and frusta, with their
//! intersection kernels.
//!
//! Positions are [`Point3<Real>`], directions [`Vector3<Real>`]. A ray's direction is never
//! normalized behind the caller's back: every `t` is in units of the direction as given.
//! A miss is `None`.
//!
//! ```
//! use raypick_primitives::{ray_aabb, Aabb, Point3, Ray, Vector3};
//!
//! let ray = Ray::new(Point3::new(-2.0, 0.5, 0.5), Vector3::new(2.0, 0.0, 0.0));
//! let unit = Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0));
//! let (t_enter, t_exit) = ray_aabb(&ray, &unit, 0.0, f32::INFINITY).unwrap();
//! assert_eq!((t_enter, t_exit), (1.0, 1.5)); // t in units of the direction (length 2)
//! ```

pub mod aabb;
pub mod ray;
pub mod ray_aabb;
pub mod ray_triangle;
pub mod triangle;

pub use aabb::Aabb;
pub use nalgebra::{Point3, Unit, Vector3};
pub use ray::Ray;
pub use ray_aabb::{ray_aabb, ray_aabb_robust, RayAabbPrecomp};
pub use ray_triangle::{ray_triangle, Cull, RayTriangleHit, WatertightRay};
pub use triangle::Triangle;

/// The scalar type of every position, direction and distance.
pub type Real = f32;
