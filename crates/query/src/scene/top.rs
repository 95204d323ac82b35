//! The scene's top-level tree over the objects' world boxes: kept stale by edits, brought
//! up to date by [`Scene::update`] (a rebuild after additions and removals, a refit after
//! moves), and what queries do while it is stale.

use crate::mesh::ray::RootReach;
use std::sync::atomic::{AtomicBool, Ordering};

use raypick_bvh::{BuildConfig, Bvh};
use raypick_primitives::Aabb;

use super::transform::is_finite_box;
use super::Scene;

/// A flag for a warning given once; a clone starts unset.
#[derive(Default)]
pub(super) struct WarnedOnce(AtomicBool);

impl Clone for WarnedOnce {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Scene {
    /// True when edits since the last [`Scene::update`] are not in the top-level tree yet
    /// (queries are then correct but test every object, and the first one logs a `tracing`
    /// warning).
    #[must_use]
    pub fn is_stale(&self) -> bool {
        self.structure_dirty || self.moved_dirty
    }

    /// Brings the top-level tree up to date: a rebuild after objects were added or removed,
    /// otherwise a refit after moves (O(objects), no allocation), otherwise nothing.
    pub fn update(&mut self) {
        *self.warned_stale.0.get_mut() = false;
        if self.structure_dirty {
            self.rebuild();
        } else if self.moved_dirty {
            self.refit();
        }
    }

    fn rebuild(&mut self) {
        self.top_slots.clear();
        self.unbounded.clear();
        self.top_boxes.clear();
        for (i, s) in self.slots.iter().enumerate() {
            let Some(o) = &s.object else { continue };
            if is_finite_box(&o.world_box) {
                self.top_slots.push(i as u32);
                self.top_boxes.push(o.world_box);
            } else if !o.world_box.is_empty() {
                self.unbounded.push(i as u32);
            }
            // An empty box (empty mesh) can never be hit: left out.
        }
        match Bvh::build(&self.top_boxes, &BuildConfig::default()) {
            Ok(bvh) => {
                self.top_leaf = bvh
                    .prim_indices()
                    .iter()
                    .map(|&p| self.top_slots[p as usize])
                    .collect();
                self.top_reach = RootReach::new(&bvh.bounds());
                self.top = Some(bvh);
            }
            Err(_) => {
                // Cannot happen for finite boxes; stay correct by testing everything.
                self.top = None;
                self.top_reach = RootReach::default();
                self.top_leaf.clear();
                self.unbounded.append(&mut self.top_slots);
            }
        }
        self.structure_dirty = false;
        self.moved_dirty = false;
    }

    fn refit(&mut self) {
        let Some(bvh) = &mut self.top else {
            self.rebuild();
            return;
        };
        self.top_boxes.clear();
        self.top_boxes.extend(self.top_slots.iter().map(|&s| {
            self.slots[s as usize]
                .object
                .as_ref()
                .map_or(Aabb::EMPTY, |o| o.world_box)
        }));
        if bvh.refit(&self.top_boxes).is_err() {
            self.rebuild();
            return;
        }
        self.top_reach = RootReach::new(&bvh.bounds());
        self.moved_dirty = false;
    }

    /// The top-level tree's root box, for [`RootReach::misses`]; meaningful only with
    /// [`Scene::fresh_top`].
    pub(crate) fn top_reach(&self) -> &RootReach {
        &self.top_reach
    }

    /// The top-level tree when it is up to date.
    pub(crate) fn fresh_top(&self) -> Option<&Bvh> {
        if self.is_stale() {
            None
        } else {
            self.top.as_ref()
        }
    }

    /// Slots that must be tested on every query: the unbounded objects when the tree is
    /// fresh, otherwise every live slot.
    pub(crate) fn for_each_extra_slot(&self, mut f: impl FnMut(u32) -> std::ops::ControlFlow<()>) {
        if !self.is_stale() {
            for &s in &self.unbounded {
                if f(s).is_break() {
                    return;
                }
            }
        } else {
            self.warn_stale();
            for (i, s) in self.slots.iter().enumerate() {
                if s.object.is_some() && f(i as u32).is_break() {
                    return;
                }
            }
        }
    }

    /// The first query on a stale scene says so (a `tracing` warning, once until the next
    /// [`Scene::update`]): its answers are right, but every object is tested.
    #[cold]
    #[inline(never)]
    fn warn_stale(&self) {
        if !self.warned_stale.0.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                objects = self.live,
                "raypick: a Scene was queried with edits not in its tree; call Scene::update() \
                 after editing (until then every query tests every object)"
            );
        }
    }

    pub(crate) fn top_leaf(&self) -> &[u32] {
        &self.top_leaf
    }
}
