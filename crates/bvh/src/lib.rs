//! raypick-bvh: filled by a later issue.
