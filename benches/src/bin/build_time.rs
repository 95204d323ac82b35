//! `Mesh::new` alone: wall time and this thread's CPU time per build, best and median of
//! several builds, on one rayon thread (or all with `--mt`), for the workloads' meshes from
//! the exchange files in `bench-data/` (written by `compare` or `export`; generated here when
//! missing). Then loading the built mesh saved by `Mesh::to_bytes` (from memory, checks
//! included): its median CPU time on the same thread(s), the saved size, and load / build
//! in CPU time (steadier than wall time on a shared machine).
//!
//! ```text
//! cargo run --release -p raypick-benches --bin build_time -- [--workloads terrain_1m,sphere_1m] [--builds N] [--mt]
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use raypick_benches::{default_data_dir, mesh_file_name, parse_list, read_mesh, Workload};
use raypick_primitives::Point3;
use raypick_query::Mesh;

/// CPU time of the calling thread (Linux; zero elsewhere).
fn thread_cpu() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    Duration::ZERO
}

/// Minor page faults of the process so far (Linux; zero elsewhere).
fn page_faults() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `rusage` is plain data; all-zero is a valid value that the call overwrites.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is a valid, writable rusage; the call only writes it.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0 {
            return ru.ru_minflt as u64;
        }
    }
    0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn run() -> Result<(), String> {
    let mut workloads = vec![Workload::Terrain1m, Workload::Sphere1m];
    let mut builds = 7usize;
    let mut mt = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--workloads" => {
                let list = args.next().ok_or("--workloads needs a list")?;
                workloads = parse_list(&list, &Workload::ALL, Workload::from_name)?;
            }
            "--builds" => {
                builds = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--builds needs a positive count")?;
            }
            "--mt" => mt = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let threads = if mt { 0 } else { 1 };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    println!(
        "| workload | triangles | builds | wall ms best | wall ms median | cpu ms best | cpu ms median | page faults | load cpu ms median | saved MB | load / build (cpu) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for w in workloads {
        let path = default_data_dir().join(mesh_file_name(w));
        let mesh = match std::fs::read(&path) {
            Ok(bytes) => read_mesh(&bytes).map_err(|e| e.to_string())?,
            Err(_) => w.mesh().map_err(|e| e.to_string())?,
        };
        let positions: Vec<Point3<f32>> = mesh.positions.clone();
        let (mut wall, mut cpu, mut faults) = (Vec::new(), Vec::new(), Vec::new());
        let mut saved = Vec::new();
        for _ in 0..builds {
            let (p, t) = (positions.clone(), mesh.triangles.clone());
            let f0 = page_faults();
            let (dw, dc, m) = pool.install(|| {
                let (w0, c0) = (Instant::now(), thread_cpu());
                let m = Mesh::new(p, t);
                (w0.elapsed(), thread_cpu() - c0, m)
            });
            faults.push(page_faults() - f0);
            let m = m.map_err(|e| e.to_string())?;
            saved = m.to_bytes();
            drop(std::hint::black_box(m));
            wall.push(dw);
            cpu.push(dc);
        }
        let mut load = Vec::new();
        for _ in 0..builds {
            let (dc, m) = pool.install(|| {
                let c0 = thread_cpu();
                let m = Mesh::from_bytes(&saved);
                (thread_cpu() - c0, m)
            });
            drop(std::hint::black_box(m.map_err(|e| e.to_string())?));
            load.push(dc);
        }
        wall.sort();
        cpu.sort();
        load.sort();
        println!(
            "| {w} | {} | {builds} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {:.1} | {:.1} | {:.3} |",
            mesh.triangles.len(),
            ms(wall[0]),
            ms(wall[builds / 2]),
            ms(cpu[0]),
            ms(cpu[builds / 2]),
            faults.iter().min().copied().unwrap_or(0),
            ms(load[builds / 2]),
            saved.len() as f64 / 1e6,
            load[builds / 2].as_secs_f64() / cpu[builds / 2].as_secs_f64(),
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("build_time: {e}");
            ExitCode::FAILURE
        }
    }
}
