//! raypick-query: filled by a later issue.

pub mod camera;
