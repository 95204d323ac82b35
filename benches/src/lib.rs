//! Workloads and peer adapters for raypick's benchmarks.
