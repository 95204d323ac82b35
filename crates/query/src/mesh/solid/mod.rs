//! Solid queries on a [`Mesh`](super::Mesh): generalized winding number, inside/outside,
//! signed distance, sampled on points (singly or in parallel batches) or on grids.

pub(crate) mod angle;
mod expansion;
mod grid;
mod lanes;
mod pair;
#[cfg(test)]
pub(crate) mod probes;
pub(crate) mod signed;
mod tree;
mod winding;

pub(crate) use angle::solid_angles8;
pub use grid::GridConfig;
pub(crate) use lanes::ExpansionLanes;
pub use pair::MeshDistance;
pub use signed::SignedDistance;
pub(crate) use tree::WindingTree;
pub(crate) use winding::{Winding, COARSE_TOL, FINE_TOL, SIDE_MARGIN};

use rayon::prelude::*;

/// Points per rayon task: large enough to amortize scheduling, small enough to balance.
const CHUNK: usize = 256;

/// `answer(&inputs[i])` for every input, in parallel chunks of [`CHUNK`], in input order.
pub(crate) fn par_map<I: Sync, T: Send>(inputs: &[I], answer: impl Fn(&I) -> T + Sync) -> Vec<T> {
    inputs.par_iter().with_min_len(CHUNK).map(&answer).collect()
}
