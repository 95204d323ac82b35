//! [`SharedScene`]: picking on some threads while others edit the scene, through immutable
//! snapshots.

use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use super::Scene;

/// A scene that threads query and edit at once: readers take a [`Snapshot`] and query it for
/// as long as they like; writers [`edit`](SharedScene::edit) a copy and publish it whole.
///
/// - A reader never waits for a writer's work: [`SharedScene::snapshot`] holds a lock only
///   to clone an `Arc`, and a snapshot, once taken, never changes.
/// - A writer never waits for readers: it edits a copy of the latest snapshot (meshes and
///   their BVHs are shared, not copied: the copy is the instance records and the top-level
///   tree, O(instances)), brings the copy's top-level tree up to date, and swaps it in.
/// - No reader ever sees a half-applied edit: everything one `edit` call does appears at once,
///   in the next snapshot. Writers are serialized, so no edit is lost.
///
/// Batch edits in one `edit` call: each call copies the instance records once.
///
/// ```
/// use std::sync::Arc;
/// use raypick_query::scene::{Scene, SceneQuery, SharedScene};
/// use raypick_query::Mesh;
/// use raypick_primitives::{Point3, Ray, Vector3};
/// use nalgebra::Matrix4;
///
/// let tri = Mesh::new(
///     vec![Point3::new(0.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)],
///     vec![[0, 1, 2]],
/// )
/// .unwrap();
/// let mut scene = Scene::new();
/// let mesh = scene.add_mesh(tri);
/// let shared = Arc::new(SharedScene::new(scene));
///
/// // A UI thread picks on whatever snapshot is current...
/// let ui = {
///     let shared = Arc::clone(&shared);
///     std::thread::spawn(move || {
///         let snap = shared.snapshot();
///         let ray = Ray::new(Point3::new(0.2, 0.2, 5.0), Vector3::new(0.0, 0.0, -1.0));
///         snap.closest_hit(&ray, &SceneQuery::default()).map(|h| h.t)
///     })
/// };
/// // ...while an edit adds an instance: the pick sees the scene before or after, never between.
/// shared.edit(|s| s.add_instance(mesh, &Matrix4::identity()).map(|_| ())).unwrap();
/// let t = ui.join().unwrap();
/// assert!(t.map_or(true, |t| (t - 5.0).abs() < 1e-5), "{t:?}");
/// assert_eq!(shared.snapshot().len(), 1);
/// ```
#[derive(Debug)]
pub struct SharedScene {
    current: RwLock<Snapshot>,
    writer: Mutex<()>,
}

/// One immutable state of a [`SharedScene`]: a [`Scene`] (dereference it to query) and its
/// version, which counts the edits published before it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    scene: Arc<Scene>,
    version: u64,
}

impl Snapshot {
    /// How many edits were published before this snapshot (0 for the scene given to
    /// [`SharedScene::new`]); later snapshots have larger versions.
    #[must_use]
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The scene, shared.
    #[must_use]
    pub fn scene(&self) -> &Arc<Scene> {
        &self.scene
    }
}

impl Deref for Snapshot {
    type Target = Scene;

    fn deref(&self) -> &Scene {
        &self.scene
    }
}

impl SharedScene {
    /// Shares `scene`, bringing its top-level tree up to date first ([`Scene::update`]).
    #[must_use]
    pub fn new(mut scene: Scene) -> Self {
        scene.update();
        Self {
            current: RwLock::new(Snapshot {
                scene: Arc::new(scene),
                version: 0,
            }),
            writer: Mutex::new(()),
        }
    }

    /// The current snapshot: cheap (an `Arc` clone under a lock held for nothing else), and
    /// unchanged however long it is held.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        // A poisoned lock only means a thread panicked while holding it; the snapshot inside
        // is always a whole one (it is replaced by a single assignment).
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Applies `f` to a copy of the current scene, brings the copy's top-level tree up to
    /// date, and publishes it as the next snapshot; returns what `f` returns.
    ///
    /// Everything `f` does appears at once. If `f` panics, nothing is published. Writers
    /// wait for one another (edits are applied in turn, none lost), never for readers.
    pub fn edit<R>(&self, f: impl FnOnce(&mut Scene) -> R) -> R {
        let _turn = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let base = self.snapshot();
        let mut next = Scene::clone(&base.scene);
        let out = f(&mut next);
        next.update();
        let next = Snapshot {
            scene: Arc::new(next),
            version: base.version + 1,
        };
        let old = {
            let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *current, next)
        };
        // The old scene, if no reader holds it, is freed here, outside the lock.
        drop((old, base));
        out
    }
}
