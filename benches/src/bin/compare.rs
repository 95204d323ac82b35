//! Side-by-side comparison of raypick and its peers on the workloads of `workloads.md`,
//! printed as markdown tables.
//!
//! ```text
//! cargo run --release -p raypick-benches --bin compare -- [options]
//!   --workloads LIST   bunny,sphere_1m,terrain_1m,soup_100k (default: all)
//!   --sets LIST        pick,random (default: both)
//!   --peers LIST       raypick,parry3d,bvh,obvhs,brute (default: every available one)
//!   --rays N           rays per set (default 100000; shrink for a quick run)
//!   --passes N         timed passes, the best is kept (default 5, as embree_bench.py)
//!   --points N         nearest-point queries per workload (default 10000, 0 = skip)
//!   --brute-budget N   triangle tests allowed to brute force per ray set (default 3e7);
//!                      brute force runs on that prefix of the rays, and every other peer is
//!                      checked against it on the same prefix ("vs brute" column)
//!   --no-mt            skip the all-threads runs
//!   --dump DIR         write every peer's closest-hit t per ray to DIR/<workload>_<set>_<peer>.t
//!                      (f32 little-endian, NaN for a miss) to find the rays where rows differ
//!   --data DIR         read meshes and rays from exchange files in DIR instead of generating
//!   --embree FILE      JSON lines of scripts/embree.sh to merge (default:
//!                      bench-data/embree.jsonl when it exists and the ray counts match);
//!                      its "occluded" lines give the Embree rows' any-hit column
//! ```
//! Builds: "1T" on the calling thread, "nT" with the engine's parallel builder where it has
//! one (raypick, the `bvh` crate's `build_par`).
//! Timings are wall clock over all rays of a set; "1T" runs on the calling thread, "nT" over
//! rayon's global pool. The checksum (hits, sum of t in f64) must agree between rows.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use raypick_benches::machine::{cpu_model, load_average, utc_now};
use raypick_benches::{
    default_data_dir, mesh_file_name, parse_flags, parse_list, query_points, rays_file_name,
    read_mesh, read_rays, BenchRay, MeshData, Peer, PeerKind, RaySet, Workload, RAYS_PER_SET,
};

struct Args {
    workloads: Vec<Workload>,
    sets: Vec<RaySet>,
    peers: Vec<PeerKind>,
    rays: usize,
    passes: usize,
    points: usize,
    brute_budget: f64,
    mt: bool,
    data: Option<PathBuf>,
    embree: Option<PathBuf>,
    dump: Option<PathBuf>,
}

const USAGE: &str = "usage: compare [--workloads LIST] [--sets LIST] [--peers LIST] [--rays N] \
[--passes N] [--points N] [--brute-budget N] [--no-mt] [--data DIR] [--embree FILE] [--dump DIR]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        workloads: Workload::ALL.to_vec(),
        sets: RaySet::ALL.to_vec(),
        peers: PeerKind::ALL
            .into_iter()
            .filter(|p| p.available())
            .collect(),
        rays: RAYS_PER_SET,
        passes: 5,
        points: 10_000,
        brute_budget: 3e7,
        mt: true,
        data: None,
        embree: None,
        dump: None,
    };
    parse_flags(|flag, value| {
        match flag {
            "--workloads" => {
                a.workloads = parse_list(&value()?, &Workload::ALL, Workload::from_name)?;
            }
            "--sets" => a.sets = parse_list(&value()?, &RaySet::ALL, RaySet::from_name)?,
            "--peers" => a.peers = parse_list(&value()?, &a.peers, PeerKind::from_name)?,
            "--rays" => a.rays = value()?.parse().map_err(|e| format!("--rays: {e}"))?,
            "--passes" => {
                a.passes = value()?
                    .parse::<usize>()
                    .map_err(|e| format!("--passes: {e}"))?
                    .max(1);
            }
            "--points" => a.points = value()?.parse().map_err(|e| format!("--points: {e}"))?,
            "--brute-budget" => {
                a.brute_budget = value()?
                    .parse()
                    .map_err(|e| format!("--brute-budget: {e}"))?;
            }
            "--no-mt" => a.mt = false,
            "--data" => a.data = Some(PathBuf::from(value()?)),
            "--embree" => a.embree = Some(PathBuf::from(value()?)),
            "--dump" => a.dump = Some(PathBuf::from(value()?)),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
        Ok(())
    })?;
    if let Some(bad) = a.peers.iter().find(|p| !p.available()) {
        return Err(format!("{bad} is not available in this build"));
    }
    Ok(a)
}

/// What one peer measured on one ray set.
struct Row {
    workload: Workload,
    set: RaySet,
    peer: String,
    rays: usize,
    build_ms: Option<f64>,
    build_nt_ms: Option<f64>,
    bytes_per_tri: Option<f64>,
    closest_1t: Option<f64>,
    closest_nt: Option<f64>,
    any_1t: Option<f64>,
    hits: usize,
    sum_t: f64,
    note: String,
}

fn mrays(n: usize, secs: f64) -> f64 {
    n as f64 / secs / 1e6
}

/// Best wall time over `passes` runs of `f`, and the value of the last run.
fn best_of<T>(passes: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..passes {
        let t0 = Instant::now();
        let v = black_box(f());
        best = best.min(t0.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("passes >= 1"))
}

/// `f()` on a rayon pool of one thread (a batch query's "single thread" figure).
fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread_local! {
        static POOL: Option<rayon::ThreadPool> =
            rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    }
    POOL.with(|p| match p {
        Some(p) => p.install(f),
        None => f(),
    })
}

fn checksum(peer: &dyn Peer, rays: &[BenchRay]) -> (usize, f64) {
    if let Some(sums) = one_thread(|| peer.closest_hits(rays)) {
        return sums;
    }
    rays.iter()
        .filter_map(|r| peer.closest_hit(black_box(r)))
        .fold((0, 0.0), |(h, s), t| (h + 1, s + f64::from(t)))
}

fn checksum_par(peer: &dyn Peer, rays: &[BenchRay]) -> (usize, f64) {
    if let Some(sums) = peer.closest_hits(rays) {
        return sums;
    }
    rays.par_iter()
        .filter_map(|r| peer.closest_hit(black_box(r)))
        .map(|t| (1usize, f64::from(t)))
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn same_hit(a: Option<f32>, b: Option<f32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * b.abs().max(1e-6),
        (None, None) => true,
        _ => false,
    }
}

/// Distances agree to 1e-4 relative plus 1e-6 absolute (f32 rounding near the surface).
fn same_distance(a: Option<f32>, b: Option<f32>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * b.abs() + 1e-6,
        (None, None) => true,
        _ => false,
    }
}

fn load(args: &Args, w: Workload) -> Result<MeshData, String> {
    match &args.data {
        Some(dir) => {
            let p = dir.join(mesh_file_name(w));
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            read_mesh(&bytes).map_err(|e| format!("{}: {e}", p.display()))
        }
        None => w.mesh().map_err(|e| e.to_string()),
    }
}

fn rays_for(args: &Args, w: Workload, s: RaySet, mesh: &MeshData) -> Result<Vec<BenchRay>, String> {
    match &args.data {
        Some(dir) => {
            let p = dir.join(rays_file_name(w, s));
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let mut rays = read_rays(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            rays.truncate(args.rays);
            Ok(rays)
        }
        None => Ok(s.rays(w, mesh, args.rays)),
    }
}

fn embree_rows(args: &Args) -> Vec<Row> {
    let path = args
        .embree
        .clone()
        .unwrap_or_else(|| default_data_dir().join("embree.jsonl"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        if args.embree.is_some() {
            eprintln!("compare: cannot read {}", path.display());
        }
        return Vec::new();
    };
    let mut rows: Vec<Row> = Vec::new();
    // Any-hit lines (`"query": "occluded"`, scripts/embree_bench.py) fill in the any-hit
    // column of their closest-hit row, read first.
    let mut occluded = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            eprintln!("compare: skipping a malformed line of {}", path.display());
            continue;
        };
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("");
        let f = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
        let Some(w) = Workload::from_name(s("mesh").trim_end_matches(".mesh")) else {
            continue;
        };
        let set_name = s("ray_set").trim_end_matches(".rays");
        let Some(set) = RaySet::ALL
            .into_iter()
            .find(|r| set_name == format!("{}_{}", w.name(), r.name()))
        else {
            continue;
        };
        let rays = f("rays").unwrap_or(0.0) as usize;
        if !args.workloads.contains(&w) || !args.sets.contains(&set) || rays != args.rays {
            continue;
        }
        let tris = f("triangles").unwrap_or(0.0);
        if s("query") == "occluded" {
            let hits = f("hits").unwrap_or(0.0) as usize;
            occluded.push((w, set, format!("{} (py)", s("peer")), f("mrays_s"), hits));
            continue;
        }
        rows.push(Row {
            workload: w,
            set,
            peer: format!("{} (py)", s("peer")),
            rays,
            build_ms: f("build_ms"),
            build_nt_ms: None,
            bytes_per_tri: None,
            closest_1t: f("mrays_s"),
            closest_nt: None,
            any_1t: None,
            hits: f("hits").unwrap_or(0.0) as usize,
            sum_t: f("sum_t").unwrap_or(f64::NAN),
            note: if tris > 0.0 {
                format!("threads={}", f("threads").unwrap_or(1.0))
            } else {
                String::new()
            },
        });
    }
    for (w, set, peer, mrays_s, hits) in occluded {
        let Some(r) = rows
            .iter_mut()
            .find(|r| r.workload == w && r.set == set && r.peer == peer)
        else {
            continue;
        };
        r.any_1t = mrays_s;
        // Occluded rays are the rays that hit: a different count is a leak one way or the other.
        if hits != r.hits {
            r.note.push_str(&format!("; any hits {hits}"));
        }
    }
    rows
}

fn run(args: &Args) -> Result<String, String> {
    let started = (utc_now(), load_average());
    let mut rows: Vec<Row> = Vec::new();
    let mut nearest = String::new();
    for &w in &args.workloads {
        let mesh = load(args, w)?;
        let ntris = mesh.triangles.len();
        eprintln!("{w}: {ntris} triangles");
        let sets: Vec<(RaySet, Vec<BenchRay>)> = args
            .sets
            .iter()
            .map(|&s| rays_for(args, w, s, &mesh).map(|r| (s, r)))
            .collect::<Result<_, _>>()?;
        // The brute-force prefix of every set: the reference the other rows are checked on.
        let brute = raypick_benches::peers::BrutePeer::new(&mesh);
        let prefix = ((args.brute_budget / ntris.max(1) as f64) as usize).max(1);
        let reference: Vec<Vec<Option<f32>>> = sets
            .iter()
            .map(|(_, rays)| {
                rays[..prefix.min(rays.len())]
                    .par_iter()
                    .map(|r| brute.closest_hit(r))
                    .collect()
            })
            .collect();
        let points = query_points(&mesh, args.points, 0x9017);
        let near_ref: Vec<Option<f32>> = points[..points.len().min(prefix)]
            .par_iter()
            .map(|p| brute.nearest_point(p))
            .collect();
        for &kind in &args.peers {
            let repeats = if ntris < 200_000 { 3 } else { 1 };
            let (build_s, peer) = best_of(repeats, || kind.build(&mesh));
            let peer = peer.map_err(|e| e.to_string())?;
            let peer: &dyn Peer = peer.as_ref();
            eprintln!("  {kind}: built in {:.1} ms", build_s * 1e3);
            let build_nt_ms = if args.mt {
                let (s, built) = best_of(repeats, || kind.build_parallel(&mesh).map(|r| r.is_ok()));
                built.filter(|&ok| ok).map(|_| s * 1e3)
            } else {
                None
            };
            let bytes_per_tri = peer.memory_bytes().map(|b| b as f64 / ntris.max(1) as f64);
            for ((set, all_rays), reference) in sets.iter().zip(&reference) {
                let rays = if kind == PeerKind::Brute {
                    &all_rays[..reference.len()]
                } else {
                    &all_rays[..]
                };
                // Warm-up, then timed passes.
                black_box(checksum(peer, &rays[..rays.len().min(1000)]));
                let (t1, (hits, sum_t)) = best_of(args.passes, || checksum(peer, rays));
                let closest_nt = args.mt.then(|| {
                    let (tn, sums) = best_of(args.passes, || checksum_par(peer, rays));
                    assert_eq!(sums.0, hits, "{kind}: parallel hit count differs");
                    mrays(rays.len(), tn)
                });
                let (ta, any_hits) = best_of(args.passes, || {
                    one_thread(|| peer.any_hits(rays)).unwrap_or_else(|| {
                        rays.iter().filter(|r| peer.any_hit(black_box(r))).count()
                    })
                });
                let mismatches = reference
                    .iter()
                    .zip(rays)
                    .filter(|(e, r)| !same_hit(peer.closest_hit(r), **e))
                    .count();
                if let Some(dir) = &args.dump {
                    let path = dir.join(format!("{w}_{set}_{kind}.t"));
                    let bytes: Vec<u8> = rays
                        .iter()
                        .flat_map(|r| peer.closest_hit(r).unwrap_or(f32::NAN).to_le_bytes())
                        .collect();
                    std::fs::create_dir_all(dir)
                        .and_then(|()| std::fs::write(&path, bytes))
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                }
                let mut note = format!("vs brute {mismatches}/{}", reference.len());
                if any_hits != hits {
                    let _ = write!(note, "; any-hit count {any_hits} != {hits}");
                }
                if kind == PeerKind::Parry {
                    note.push_str("; any = cast");
                }
                eprintln!(
                    "    {set}: {:.3} Mrays/s, {hits} hits, {note}",
                    mrays(rays.len(), t1)
                );
                rows.push(Row {
                    workload: w,
                    set: *set,
                    peer: kind.name().to_string(),
                    rays: rays.len(),
                    build_ms: Some(build_s * 1e3),
                    build_nt_ms,
                    bytes_per_tri,
                    closest_1t: Some(mrays(rays.len(), t1)),
                    closest_nt,
                    any_1t: peer.has_any_hit().then(|| mrays(rays.len(), ta)),
                    hits,
                    sum_t,
                    note,
                });
            }
            if peer.has_nearest_point() && !points.is_empty() {
                let pts = if kind == PeerKind::Brute {
                    &points[..points.len().min(prefix)]
                } else {
                    &points[..]
                };
                let (tq, sum) = best_of(args.passes, || {
                    pts.iter()
                        .filter_map(|p| peer.nearest_point(black_box(p)))
                        .map(f64::from)
                        .sum::<f64>()
                });
                let bad = near_ref
                    .iter()
                    .zip(pts)
                    .filter(|(e, p)| !same_distance(peer.nearest_point(p), **e))
                    .count();
                let _ = writeln!(
                    nearest,
                    "| {w} | {kind} | {} | {:.4} | {sum:.6} | {bad}/{} |",
                    pts.len(),
                    pts.len() as f64 / tq / 1e6,
                    near_ref.len()
                );
            }
        }
    }
    rows.extend(embree_rows(args));
    rows.sort_by_key(|r| {
        (
            Workload::ALL.iter().position(|w| *w == r.workload),
            RaySet::ALL.iter().position(|s| *s == r.set),
        )
    });

    // Closest-hit 1T throughput relative to Embree's robust mode on the same set, when merged.
    let embree_robust = |r: &Row| {
        rows.iter()
            .find(|e| {
                e.workload == r.workload && e.set == r.set && e.peer.starts_with("embree-robust")
            })
            .and_then(|e| e.closest_1t)
    };
    // Small throughputs (brute force) keep three significant digits.
    let opt = |v: Option<f64>, prec: usize| {
        v.map_or_else(
            || "-".to_string(),
            |v| {
                if v != 0.0 && v.abs() < 0.01 {
                    format!("{v:.2e}")
                } else {
                    format!("{v:.prec$}")
                }
            },
        )
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| workload | rays | peer | n rays | build ms 1T | build ms nT | bytes/tri | closest Mrays/s 1T | closest Mrays/s nT | any Mrays/s 1T | 1T vs Embree robust | hits | sum t | notes |"
    );
    let _ = writeln!(
        out,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.4} | {} |",
            r.workload,
            r.set,
            r.peer,
            r.rays,
            opt(r.build_ms, 1),
            opt(r.build_nt_ms, 1),
            opt(r.bytes_per_tri, 1),
            opt(r.closest_1t, 3),
            opt(r.closest_nt, 3),
            opt(r.any_1t, 3),
            opt(r.closest_1t.zip(embree_robust(r)).map(|(a, e)| a / e), 2),
            r.hits,
            r.sum_t,
            r.note
        );
    }
    // raypick (one ray at a time, and batched) against every other row, closest hit and
    // any hit, one thread.
    let ours = |r: &&Row| r.peer.starts_with("raypick");
    let others: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in rows
            .iter()
            .filter(|r| !r.peer.starts_with("raypick") && r.peer != "brute")
        {
            if !v.contains(&r.peer) {
                v.push(r.peer.clone());
            }
        }
        v
    };
    if rows.iter().any(|r| ours(&r)) && !others.is_empty() {
        let _ = writeln!(
            out,
            "\nraypick / peer, closest hit 1T (any hit 1T in brackets):\n\n| workload | rays | raypick | {} |\n|---|---|---|{}",
            others.join(" | "),
            "---:|".repeat(others.len())
        );
        for r in rows.iter().filter(ours) {
            let cells: Vec<String> = others
                .iter()
                .map(|name| {
                    let Some(o) = rows
                        .iter()
                        .find(|o| o.workload == r.workload && o.set == r.set && &o.peer == name)
                    else {
                        return "-".to_string();
                    };
                    let c = r.closest_1t.zip(o.closest_1t).map(|(a, b)| a / b);
                    let a = r.any_1t.zip(o.any_1t).map(|(a, b)| a / b);
                    match a {
                        Some(a) => format!("{} ({a:.2})", opt(c, 2)),
                        None => opt(c, 2),
                    }
                })
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                r.workload,
                r.set,
                r.peer,
                cells.join(" | ")
            );
        }
    }
    if !nearest.is_empty() {
        let _ = writeln!(
            out,
            "\nNearest point (points uniform in the box grown by 10%):\n\n| workload | peer | points | Mqueries/s 1T | sum of distances | vs brute |\n|---|---|---:|---:|---:|---:|\n{nearest}"
        );
    }
    let _ = writeln!(
        out,
        "\n{} threads in the nT columns; brute force runs on a prefix of each set (n rays).\n\
         Machine: {}, {} logical CPUs. Run {} (load average {}) to {} (load average {}).",
        rayon::current_num_threads(),
        cpu_model(),
        std::thread::available_parallelism().map_or(0, usize::from),
        started.0,
        started.1,
        utc_now(),
        load_average()
    );
    Ok(out)
}

fn main() -> ExitCode {
    match parse_args().and_then(|a| run(&a)) {
        Ok(table) => {
            print!("{table}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compare: {e}");
            ExitCode::FAILURE
        }
    }
}
