//! raypick: BVH-accelerated ray picking over triangle meshes and scenes.
//!
//! The main types are here at the top level, and `use raypick::prelude::*;` brings what a
//! pick needs: the geometry types (`Point3`, `Vector3`, `Matrix4`, `Isometry3`, `Ray`), the
//! [`Mesh`] and the [`Scene`] with their query types, the camera, the loaders, and
//! [`Error`], one error type for all of them. The workspace crates stay reachable as
//! [`primitives`], [`bvh`], [`query`] and [`io`].
//!
//! ```
//! use raypick::prelude::*;
//!
//! let mesh = Mesh::new(
//!     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
//!     vec![[0, 1, 2]],
//! )?;
//! let mut scene = Scene::new();
//! let id = scene.add_mesh(mesh);
//! let instance = scene.add_instance(id, &Matrix4::new_translation(&Vector3::new(0.0, 0.0, -5.0)))?;
//! scene.update();
//! let ray = Ray::new(Point3::new(0.2, 0.2, 0.0), Vector3::new(0.0, 0.0, -1.0));
//! let hit = scene.closest_hit(&ray, &SceneQuery::default()).expect("the triangle is there");
//! assert_eq!(hit.instance, instance); // the id add_instance returned
//! assert!((hit.t - 5.0).abs() < 1e-5); // instances are transformed in f32
//! # Ok::<(), raypick::Error>(())
//! ```

pub use raypick_bvh as bvh;
pub use raypick_io as io;
pub use raypick_primitives as primitives;
pub use raypick_query as query;

pub use raypick_io::{load_mesh, load_scene, read_file, save_scene, BuiltScene, SceneData};
pub use raypick_primitives::{Aabb, Cull, Isometry3, Matrix4, Point3, Ray, Real, Vector3};
pub use raypick_query::camera::{
    Camera, CameraError, ClipConvention, Projection, ScreenRect, Viewport,
};
/// The parry3d shapes [`Scene::add_shape`] takes (`SharedShape::ball(1.0)`, ...).
pub use raypick_query::scene::SharedShape;
pub use raypick_query::scene::{
    HitGeometry, InstanceId, MeshId, Pick, PickError, PickOptions, PrimId, SceneError, SceneHit,
    ScenePrimNear, ScenePrimNearest, ScenePrimPick, SceneQuery, SelectMode, SelectOptions,
    SelectedPrims, Selection, SharedScene, Snapshot,
};
pub use raypick_query::{
    GridConfig, Hit, Mesh, MeshDistance, MeshError, NearestPoint, RayQuery, Scene, SignedDistance,
};

/// What a pick needs, in one import: `use raypick::prelude::*;`.
pub mod prelude {
    pub use crate::{
        load_mesh, load_scene, Aabb, Camera, ClipConvention, Cull, Error, Hit, InstanceId,
        Isometry3, Matrix4, Mesh, MeshId, Pick, PickOptions, Point3, Projection, Ray, RayQuery,
        Real, Scene, SceneHit, SceneQuery, ScreenRect, SelectMode, SelectOptions, SharedScene,
        SharedShape, Vector3, Viewport,
    };
}

/// Any error of the raypick crates, so that code using several of them can use `?` with one
/// error type. Each variant wraps the error of one step, which names the bad input.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Loading a file ([`load_scene`], [`load_mesh`], [`read_file`]).
    Load(raypick_io::Error),
    /// Building a mesh ([`Mesh::new`]).
    Mesh(MeshError),
    /// Editing a scene ([`Scene::add_instance`], ...).
    Scene(SceneError),
    /// Making a camera ([`Camera::look_at`], ...).
    Camera(CameraError),
    /// Picking ([`Scene::pick`]): an invalid viewport or cursor.
    Pick(PickError),
    /// Loading saved bytes ([`Mesh::from_bytes`], [`Scene::from_bytes`]).
    Saved(raypick_query::persist::LoadError),
    /// Saving a scene ([`Scene::to_bytes`]).
    Save(raypick_query::persist::SaveError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Load(e) => e.fmt(f),
            Error::Mesh(e) => e.fmt(f),
            Error::Scene(e) => e.fmt(f),
            Error::Camera(e) => e.fmt(f),
            Error::Pick(e) => e.fmt(f),
            Error::Saved(e) => e.fmt(f),
            Error::Save(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Load(e) => Some(e),
            Error::Mesh(e) => Some(e),
            Error::Scene(e) => Some(e),
            Error::Camera(e) => Some(e),
            Error::Pick(e) => Some(e),
            Error::Saved(e) => Some(e),
            Error::Save(e) => Some(e),
        }
    }
}

macro_rules! from_error {
    ($($variant:ident($t:ty)),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::$variant(e)
            }
        }
    )*};
}
from_error!(
    Load(raypick_io::Error),
    Mesh(MeshError),
    Scene(SceneError),
    Camera(CameraError),
    Pick(PickError),
    Saved(raypick_query::persist::LoadError),
    Save(raypick_query::persist::SaveError)
);
