//! raypick-query: filled by a later issue.
