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
//!
//! # Contents
//!
//! Types: [`Ray`], [`Aabb`], [`Sphere`], [`Plane`], [`Obb`], [`Triangle`], [`Frustum`] (with
//! [`DepthRange`]), and the answer of the classification kernels, [`Classification`].
//! Fallible constructors (`try_*`) return [`GeometryError`].
//!
//! Kernels, one module each, named `<op>_<a>_<b>`:
//!
//! - ray and line tests: [`ray_aabb()`] (and [`ray_aabb_robust()`], [`RayAabbPrecomp`] for
//!   BVH traversal), [`line_aabb()`], [`segment_aabb()`], [`ray_obb()`], [`ray_plane()`],
//!   [`ray_sphere()`], [`ray_triangle()`] (watertight, [`WatertightRay`]);
//! - overlap tests: [`aabb_aabb()`], [`aabb_sphere()`], [`sphere_sphere()`], [`obb_obb()`],
//!   [`triangle_aabb()`], [`triangle_obb()`], [`triangle_sphere()`];
//! - classification: [`plane_aabb()`], [`plane_obb()`], [`plane_sphere()`],
//!   [`frustum_aabb()`], [`frustum_obb()`], [`frustum_sphere()`], [`frustum_triangle()`];
//! - closest point: [`point_triangle()`]; closest approach of a ray and a point or a segment
//!   (f64): [`closest_ray_point()`], [`closest_ray_segment()`].
//!
//! Bounding volumes of point sets: [`Aabb::from_points`], [`Aabb::from_sphere`],
//! [`Aabb::transformed`] (Arvo), [`Sphere::from_points`] (Ritter),
//! [`Sphere::from_points_minimal`] (Welzl), [`Obb::from_points`] (PCA).
//!
//! No kernel panics: NaN, infinities, zero directions, empty and degenerate shapes give
//! `None`, `false` or a documented conservative answer.

// `!(x > 0.0)` is how these kernels say "not positive, or NaN": the negation is the point.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod aabb;
pub mod aabb_aabb;
pub mod aabb_sphere;
pub mod classification;
pub mod error;
pub mod frustum;
pub mod frustum_aabb;
pub mod frustum_obb;
pub mod frustum_sphere;
pub mod frustum_triangle;
pub mod line_aabb;
pub mod obb;
pub mod obb_obb;
pub mod plane;
pub mod plane_aabb;
pub mod plane_obb;
pub mod plane_sphere;
pub mod point_triangle;
pub mod ray;
pub mod ray64;
pub mod ray_aabb;
pub mod ray_obb;
pub mod ray_plane;
pub mod ray_segment;
pub mod ray_sphere;
pub mod ray_triangle;
pub mod segment_aabb;
pub mod simd;
pub mod sphere;
pub mod sphere_sphere;
pub mod triangle;
pub mod triangle_aabb;
pub mod triangle_obb;
pub mod triangle_sphere;
pub mod triangle_triangle;
mod vec64;

pub use aabb::Aabb;
pub use aabb_aabb::aabb_aabb;
pub use aabb_sphere::aabb_sphere;
pub use classification::Classification;
pub use error::GeometryError;
pub use frustum::{DepthRange, Frustum};
pub use frustum_aabb::frustum_aabb;
pub use frustum_obb::frustum_obb;
pub use frustum_sphere::frustum_sphere;
pub use frustum_triangle::frustum_triangle;
pub use line_aabb::line_aabb;
pub use nalgebra::{Isometry3, Matrix4, Point3, Unit, Vector3};
pub use obb::Obb;
pub use obb_obb::obb_obb;
pub use plane::Plane;
pub use plane_aabb::plane_aabb;
pub use plane_obb::plane_obb;
pub use plane_sphere::plane_sphere;
pub use point_triangle::{
    point_triangle, point_triangle_f64, point_triangle_lower_bounds, PointTriangleProjection,
};
pub use ray::Ray;
pub use ray64::Ray64;
pub use ray_aabb::{ray_aabb, ray_aabb_robust, RayAabbPrecomp};
pub use ray_obb::ray_obb;
pub use ray_plane::ray_plane;
pub use ray_segment::{closest_ray_point, closest_ray_segment};
pub use ray_sphere::ray_sphere;
pub use ray_triangle::{ray_triangle, Cull, RayTriangleHit, WatertightRay};
pub use segment_aabb::segment_aabb;
pub use sphere::Sphere;
pub use sphere_sphere::sphere_sphere;
pub use triangle::Triangle;
pub use triangle_aabb::triangle_aabb;
pub use triangle_obb::triangle_obb;
pub use triangle_sphere::triangle_sphere;
pub use triangle_triangle::{
    triangle_triangle, triangle_triangle_distance, TriangleTriangleDistance,
};

/// The scalar type of every position, direction and distance.
pub type Real = f32;
