//! Closest hit and any hit of raypick and every peer, side by side, on the workloads of
//! `workloads.md` (both ray sets), single thread; nearest point (raypick and parry3d's
//! `project_point`); and raypick's rayon batch (`closest_hit_batch`, all threads) against its
//! single-thread loop on the same chunk.
//!
//! `cargo bench -p raypick-benches --bench rays` runs every workload;
//! `RAYPICK_BENCH_WORKLOADS=bunny,soup_100k` picks workloads, `RAYPICK_BENCH_PEERS` the peers
//! (default: all but brute force, which only runs on the bunny), `RAYPICK_BENCH_CHUNK` the rays
//! per iteration (default 2,000). Each iteration takes the next chunk of the workload's
//! 100,000 seeded rays, cycling, so that the samples cover the whole set. Criterion's filter
//! selects benchmarks (`closest_hit/sphere_1m_random/raypick`), but every selected workload's
//! structures are still built first.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use raypick_benches::peers::RaypickPeer;
use raypick_benches::{
    parse_list, query_points, BenchRay, Peer, PeerKind, RaySet, Workload, RAYS_PER_SET,
};
use raypick_primitives::Ray;
use raypick_query::{Hit, RayQuery};

fn env_list<T: Copy>(var: &str, all: &[T], parse: impl Fn(&str) -> Option<T>) -> Vec<T> {
    let v = std::env::var(var).unwrap_or_default();
    parse_list(&v, all, parse).unwrap_or_else(|e| panic!("{var}: {e}"))
}

/// Cycles through `rays` one chunk per call.
struct Chunks<'a> {
    rays: &'a [BenchRay],
    chunk: usize,
    at: usize,
}

impl<'a> Chunks<'a> {
    fn next(&mut self) -> &'a [BenchRay] {
        if self.at + self.chunk > self.rays.len() {
            self.at = 0;
        }
        let s = &self.rays[self.at..(self.at + self.chunk).min(self.rays.len())];
        self.at += self.chunk;
        s
    }
}

fn rays(c: &mut Criterion) {
    let workloads = env_list(
        "RAYPICK_BENCH_WORKLOADS",
        &Workload::ALL,
        Workload::from_name,
    );
    let default_peers: Vec<PeerKind> = PeerKind::ALL
        .into_iter()
        .filter(|p| p.available() && *p != PeerKind::Brute)
        .collect();
    let explicit = std::env::var("RAYPICK_BENCH_PEERS").is_ok();
    let peers = if explicit {
        env_list("RAYPICK_BENCH_PEERS", &PeerKind::ALL, PeerKind::from_name)
    } else {
        default_peers
    };
    let chunk: usize = std::env::var("RAYPICK_BENCH_CHUNK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
        .max(1);

    for w in workloads {
        let mesh = w.mesh().expect("workload");
        let mut kinds = peers.clone();
        if !explicit && w == Workload::Bunny {
            kinds.push(PeerKind::Brute);
        }
        let built: Vec<(PeerKind, Box<dyn Peer>)> = kinds
            .iter()
            .map(|&k| (k, k.build(&mesh).expect("peer builds")))
            .collect();
        let points = query_points(&mesh, 10_000, 0x9017);
        let mut g = c.benchmark_group(format!("nearest_point/{w}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for (kind, peer) in built.iter().filter(|(_, p)| p.has_nearest_point()) {
            let n = if *kind == PeerKind::Brute { 10 } else { 200 };
            let mut at = 0;
            g.throughput(Throughput::Elements(n as u64));
            g.bench_function(BenchmarkId::from_parameter(kind.name()), |b| {
                b.iter(|| {
                    if at + n > points.len() {
                        at = 0;
                    }
                    let pts = &points[at..at + n];
                    at += n;
                    pts.iter()
                        .filter_map(|p| peer.nearest_point(black_box(p)))
                        .sum::<f32>()
                });
            });
        }
        g.finish();
        let raypick = peers
            .contains(&PeerKind::Raypick)
            .then(|| RaypickPeer::new(&mesh, true).expect("raypick builds"));

        for set in RaySet::ALL {
            let all = set.rays(w, &mesh, RAYS_PER_SET);
            if let Some(rp) = &raypick {
                batch(c, w, set, rp, &all, chunk * 10);
            }
            // Brute force gets a small chunk: a whole one would take seconds per iteration.
            for (op, any) in [("closest_hit", false), ("any_hit", true)] {
                let mut g = c.benchmark_group(format!("{op}/{w}_{set}"));
                g.sample_size(10)
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2));
                for (kind, peer) in &built {
                    if any && !peer.has_any_hit() {
                        continue;
                    }
                    let n = if *kind == PeerKind::Brute {
                        chunk.min(50)
                    } else {
                        chunk
                    };
                    let mut chunks = Chunks {
                        rays: &all,
                        chunk: n,
                        at: 0,
                    };
                    g.throughput(Throughput::Elements(n as u64));
                    g.bench_function(BenchmarkId::from_parameter(kind.name()), |b| {
                        b.iter(|| {
                            let rays = chunks.next();
                            if any {
                                rays.iter().filter(|r| peer.any_hit(black_box(r))).count()
                            } else {
                                rays.iter()
                                    .filter_map(|r| peer.closest_hit(black_box(r)))
                                    .count()
                            }
                        });
                    });
                }
                g.finish();
            }
        }
    }
}

/// raypick's parallel batch against the single-thread loop over the same rays.
fn batch(
    c: &mut Criterion,
    w: Workload,
    set: RaySet,
    rp: &RaypickPeer,
    all: &[BenchRay],
    n: usize,
) {
    let rays: Vec<Ray> = all.iter().take(n).map(|r| r.ray).collect();
    let q = RayQuery::default();
    let mut out: Vec<Option<Hit>> = vec![None; rays.len()];
    let mut g = c.benchmark_group(format!("closest_hit_batch/{w}_{set}"));
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(rays.len() as u64));
    g.bench_function("raypick_1t_loop", |b| {
        b.iter(|| {
            for (r, o) in rays.iter().zip(out.iter_mut()) {
                *o = rp.mesh().closest_hit(black_box(r), &q);
            }
        });
    });
    g.bench_function(
        format!("raypick_batch_{}t", rayon::current_num_threads()),
        |b| {
            b.iter(|| {
                rp.mesh()
                    .closest_hit_batch(black_box(&rays), &q, &mut out)
                    .expect("same lengths");
            });
        },
    );
    g.finish();
}

criterion_group!(benches, rays);
criterion_main!(benches);
