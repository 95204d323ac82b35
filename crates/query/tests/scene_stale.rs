//! A scene queried after edits without `Scene::update()` answers correctly but warns,
//! once until the next update (a `tracing` warning), instead of passing silently.

use std::io::Write;
use std::sync::{Arc, Mutex};

use raypick_primitives::{Matrix4, Point3, Ray, Vector3};
use raypick_query::scene::{Scene, SceneQuery};
use raypick_query::Mesh;

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn warnings(&self) -> usize {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .matches("Scene::update()")
            .count()
    }
}

#[test]
fn a_stale_scene_warns_once_until_updated() {
    let log = Log::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::WARN)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let tri = Mesh::new(
            vec![
                Point3::new(0.0, 0.0, 0.0),
                Point3::new(1.0, 0.0, 0.0),
                Point3::new(0.0, 1.0, 0.0),
            ],
            vec![[0, 1, 2]],
        )
        .unwrap();
        let mut scene = Scene::new();
        let m = scene.add_mesh(tri);
        let a = scene.add_instance(m, &Matrix4::identity()).unwrap();
        let ray = Ray::new(Point3::new(0.2, 0.2, 1.0), Vector3::new(0.0, 0.0, -1.0));
        let q = SceneQuery::default();
        // Forgotten update: right answers, one warning however many queries.
        assert!(scene.is_stale());
        for _ in 0..3 {
            assert_eq!(scene.closest_hit(&ray, &q).map(|h| h.instance), Some(a));
            assert!(scene.any_hit(&ray, &q));
        }
        assert_eq!(log.warnings(), 1, "one warning while stale");
        // Updated: no more warnings.
        scene.update();
        assert_eq!(scene.closest_hit(&ray, &q).map(|h| h.instance), Some(a));
        assert_eq!(log.warnings(), 1, "no warning once updated");
        // Stale again after a new edit: warned again, once.
        let b = scene
            .add_instance(m, &Matrix4::new_translation(&Vector3::new(0.0, 0.0, 0.5)))
            .unwrap();
        assert_eq!(scene.closest_hit(&ray, &q).map(|h| h.instance), Some(b));
        assert_eq!(scene.closest_hit(&ray, &q).map(|h| h.instance), Some(b));
        assert_eq!(log.warnings(), 2, "warned again after new edits");
    });
}
