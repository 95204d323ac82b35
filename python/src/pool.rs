//! Where a batch runs: rayon's global pool (all cores) or a dedicated pool of `n` threads.
//!
//! `threads=1` runs on a pool of exactly one thread, so nothing of the query runs elsewhere.
//! Pools are built once per thread count and kept.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The thread count used when a call gives none: 0 means all cores (rayon's global pool).
static DEFAULT_THREADS: AtomicUsize = AtomicUsize::new(0);

static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// Sets the number of threads of every later call that does not name one (0: all cores).
#[pyfunction]
pub fn set_threads(threads: usize) {
    DEFAULT_THREADS.store(threads, Ordering::Relaxed);
}

/// The number of threads calls use by default (0: all cores).
#[pyfunction]
pub fn get_threads() -> usize {
    DEFAULT_THREADS.load(Ordering::Relaxed)
}

fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let p = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("raypick-{i}"))
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    let p = Arc::new(p);
    pools.push((threads, p.clone()));
    Ok(p)
}

/// Runs `f` without the GIL on `threads` threads (`None`: the default of [`set_threads`]).
pub fn run<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    f: impl FnOnce() -> Result<T, String> + Send,
) -> PyResult<T> {
    let threads = threads.unwrap_or_else(get_threads);
    py.detach(|| {
        if threads == 0 {
            f()
        } else {
            pool(threads)?.install(f)
        }
    })
    .map_err(crate::RaypickError::new_err)
}
