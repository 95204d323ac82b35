//! The parallel loop behind every batch query of [`Mesh`](crate::Mesh) and
//! [`Scene`](crate::Scene).

use rayon::prelude::*;

use raypick_primitives::Ray;

/// Rays per rayon task: large enough to amortize scheduling, small enough to balance.
const CHUNK: usize = 256;

/// `out[i] = answer(&rays[i])` for every ray, in parallel chunks; allocates nothing per ray.
/// The caller has checked that the lengths agree (a longer side is left partly untouched).
pub(crate) fn fill<T: Send>(rays: &[Ray], out: &mut [T], answer: impl Fn(&Ray) -> T + Sync) {
    fill_from(rays, out, answer);
}

/// `out[i] = answer(&inputs[i])` for every input, in parallel chunks of [`CHUNK`] (a longer
/// side is left partly untouched).
pub(crate) fn fill_from<I: Sync, T: Send>(
    inputs: &[I],
    out: &mut [T],
    answer: impl Fn(&I) -> T + Sync,
) {
    fill_chunks(inputs, out, |inputs, out| {
        for (input, slot) in inputs.iter().zip(out) {
            *slot = answer(input);
        }
    });
}

/// `answer(inputs, out)` on matching chunks of `inputs` and `out`, in parallel (a longer
/// side's extra chunks are left untouched).
pub(crate) fn fill_chunks<I: Sync, T: Send>(
    inputs: &[I],
    out: &mut [T],
    answer: impl Fn(&[I], &mut [T]) + Sync,
) {
    inputs
        .par_chunks(CHUNK)
        .zip(out.par_chunks_mut(CHUNK))
        .for_each(|(inputs, out)| answer(inputs, out));
}

/// Groups run one ray at a time after a group whose packet wasted its work, before packets
/// are tried again.
const SINGLES_AFTER_WASTE: usize = 8;

/// The coherent batches' loop: in parallel chunks, each group of `group` consecutive rays
/// answered by `packet(rays, out)`, which returns true when its packet wasted its work; the
/// next [`SINGLES_AFTER_WASTE`] groups then take `single(&ray)` ray by ray. The caller has
/// checked that the lengths agree.
pub(crate) fn fill_groups<T: Send>(
    rays: &[Ray],
    out: &mut [T],
    group: usize,
    single: impl Fn(&Ray) -> T + Sync,
    packet: impl Fn(&[Ray], &mut [T]) -> bool + Sync,
) {
    fill_chunks(rays, out, |rays, out| {
        let mut singles = 0usize;
        for (rays, out) in rays.chunks(group).zip(out.chunks_mut(group)) {
            if singles > 0 {
                singles -= 1;
                for (ray, slot) in rays.iter().zip(out) {
                    *slot = single(ray);
                }
            } else if packet(rays, out) {
                singles = SINGLES_AFTER_WASTE;
            }
        }
    });
}
