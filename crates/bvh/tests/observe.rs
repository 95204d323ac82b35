//! The build's tracing span carries the primitive count and phase timings.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use common::*;
use raypick_bvh::{BuildConfig, Bvh};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata};

/// Records `span name: field=value` lines.
#[derive(Clone, Default)]
struct Recorder {
    lines: Arc<Mutex<Vec<String>>>,
    next: Arc<AtomicU64>,
}

struct Fields(Vec<String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push(format!("{}={:?}", field.name(), value));
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut f = Fields(Vec::new());
        span.record(&mut f);
        let mut lines = self.lines.lock().unwrap();
        for field in f.0 {
            lines.push(format!("{}: {field}", span.metadata().name()));
        }
        Id::from_u64(self.next.fetch_add(1, Ordering::Relaxed) + 1)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        let mut f = Fields(Vec::new());
        values.record(&mut f);
        let mut lines = self.lines.lock().unwrap();
        for field in f.0 {
            lines.push(format!("record: {field}"));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut f = Fields(Vec::new());
        event.record(&mut f);
        self.lines
            .lock()
            .unwrap()
            .push(format!("event: {}", f.0.join(" ")));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn build_span_has_count_and_timings() {
    let mut rng = Rng::new(1);
    let boxes = random_boxes(&mut rng, 1234, 10.0, 0.5);
    let rec = Recorder::default();
    tracing::subscriber::with_default(rec.clone(), || {
        Bvh::build(&boxes, &BuildConfig::high_quality()).unwrap();
    });
    let lines = rec.lines.lock().unwrap().join("\n");
    assert!(lines.contains("bvh_build: prims=1234"), "{lines}");
    for field in [
        "check_ms=",
        "build_ms=",
        "optimize_ms=",
        "nodes=",
        "depth=",
        "sah=",
    ] {
        assert!(
            lines.contains(&format!("record: {field}")),
            "{field} missing in\n{lines}"
        );
    }
    assert!(lines.contains("event: message=bvh built"), "{lines}");
}
