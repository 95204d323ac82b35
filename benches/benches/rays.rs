//! Closest hit and any hit of raypick and every peer, side by side, on the workloads of
//! `workloads.md` (both ray sets), single thread.
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
use raypick_benches::{parse_list, BenchRay, Peer, PeerKind, RaySet, Workload, RAYS_PER_SET};

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
        for set in RaySet::ALL {
            let all = set.rays(w, &mesh, RAYS_PER_SET);
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

criterion_group!(benches, rays);
criterion_main!(benches);
