//! raypick-io: filled by a later issue.
