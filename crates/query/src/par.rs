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
        groups(rays, out, group, &single, &packet)
    });
}

/// One task of [`fill_groups`]: its rays in groups of `group`.
fn groups<T>(
    rays: &[Ray],
    out: &mut [T],
    group: usize,
    single: &impl Fn(&Ray) -> T,
    packet: &impl Fn(&[Ray], &mut [T]) -> bool,
) {
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
}

/// About this many rays per task of [`fill_tiled`]: whole bands of tiles, at least one.
const TILED_CHUNK: usize = 1024;

/// [`fill_groups`] for the rays of an image, rows of `width` rays after each other (see
/// `image_rows`): in parallel over bands of [`TILE`](crate::image_rows::TILE) rows, each
/// band's rays gathered in tile order ([`tile_order`](crate::image_rows::tile_order)) into
/// a buffer its thread keeps, answered in groups, and the answers put back in place. The
/// caller has checked that the lengths agree.
pub(crate) fn fill_tiled<T: Send + Copy + Default>(
    rays: &[Ray],
    out: &mut [T],
    width: usize,
    group: usize,
    single: impl Fn(&Ray) -> T + Sync,
    packet: impl Fn(&[Ray], &mut [T]) -> bool + Sync,
) {
    use crate::image_rows::{tile_order, TILE};
    let band = TILE * width.max(1);
    let chunk = (TILED_CHUNK / band).max(1) * band;
    rays.par_chunks(chunk)
        .zip(out.par_chunks_mut(chunk))
        .for_each_init(
            || (Vec::new(), Vec::new(), Vec::new()),
            |(order, tiled, answers): &mut (Vec<u32>, Vec<Ray>, Vec<T>), (rays, out)| {
                tile_order(rays.len(), width, order);
                tiled.clear();
                tiled.extend(order.iter().map(|&i| rays[i as usize]));
                answers.clear();
                answers.resize(rays.len(), T::default());
                groups(tiled, answers, group, &single, &packet);
                for (&i, &a) in order.iter().zip(answers.iter()) {
                    out[i as usize] = a;
                }
            },
        );
}

/// A batch answered ray by ray (`single`), or, when its rays are an image's rows
/// ([`batch_width`](crate::image_rows::batch_width)), in tiles of
/// [`PACKET_RAYS`](raypick_bvh::wide::PACKET_RAYS) through `packet` ([`fill_tiled`]). The
/// caller has checked that the lengths agree.
pub(crate) fn fill_rows_or_each<T: Send + Copy + Default>(
    rays: &[Ray],
    out: &mut [T],
    single: impl Fn(&Ray) -> T + Sync,
    packet: impl Fn(&[Ray], &mut [T]) -> bool + Sync,
) {
    match crate::image_rows::batch_width(rays) {
        Some(width) => fill_tiled(
            rays,
            out,
            width,
            raypick_bvh::wide::PACKET_RAYS,
            single,
            packet,
        ),
        None => fill(rays, out, single),
    }
}
