//! Writes every workload's mesh and both ray sets as exchange files (see `workloads.md`).
//!
//! ```text
//! cargo run --release -p raypick-benches --bin export -- [--out DIR] [--workloads a,b] [--rays N]
//! ```
//! Defaults: `bench-data/` at the repository root, all workloads, 100,000 rays per set.
//! Files: `<workload>.mesh`, `<workload>_pick.rays`, `<workload>_random.rays`; with `--ply`,
//! also `<workload>.ply` (binary), which the `raypick` command reads (for timing its
//! `render` on the workloads).

use std::path::PathBuf;
use std::process::ExitCode;

use raypick_benches::{
    default_data_dir, mesh_file_name, parse_flags, parse_list, rays_file_name, write_mesh,
    write_rays, RaySet, Workload, RAYS_PER_SET,
};

struct Args {
    out: PathBuf,
    workloads: Vec<Workload>,
    rays: usize,
    ply: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        out: default_data_dir(),
        workloads: Workload::ALL.to_vec(),
        rays: RAYS_PER_SET,
        ply: false,
    };
    parse_flags(|flag, value| {
        match flag {
            "--out" => a.out = PathBuf::from(value()?),
            "--workloads" => a.workloads = parse_list(&value()?, &Workload::ALL, Workload::from_name)?,
            "--rays" => a.rays = value()?.parse().map_err(|e| format!("--rays: {e}"))?,
            "--ply" => a.ply = true,
            "-h" | "--help" => {
                return Err("usage: export [--out DIR] [--workloads bunny,sphere_1m,terrain_1m,soup_100k] [--rays N] [--ply]".into())
            }
            other => return Err(format!("unknown argument `{other}` (try --help)")),
        }
        Ok(())
    })?;
    Ok(a)
}

fn run(a: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    for &w in &a.workloads {
        let mesh = w.mesh().map_err(|e| e.to_string())?;
        let path = a.out.join(mesh_file_name(w));
        let mut buf = Vec::new();
        write_mesh(&mut buf, &mesh).map_err(|e| e.to_string())?;
        std::fs::write(&path, &buf).map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "{}: {} vertices, {} triangles",
            path.display(),
            mesh.positions.len(),
            mesh.triangles.len()
        );
        if a.ply {
            let path = a.out.join(format!("{}.ply", w.name()));
            std::fs::write(&path, ply(&mesh)).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("{}", path.display());
        }
        for s in RaySet::ALL {
            let rays = s.rays(w, &mesh, a.rays);
            let path = a.out.join(rays_file_name(w, s));
            let mut buf = Vec::new();
            write_rays(&mut buf, &rays).map_err(|e| e.to_string())?;
            std::fs::write(&path, &buf).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("{}: {} rays", path.display(), rays.len());
        }
    }
    Ok(())
}

/// `mesh` as a binary little-endian PLY: float positions, faces as lists of three ints.
fn ply(mesh: &raypick_benches::MeshData) -> Vec<u8> {
    let mut out = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\n\
         property float y\nproperty float z\nelement face {}\n\
         property list uchar int vertex_indices\nend_header\n",
        mesh.positions.len(),
        mesh.triangles.len()
    )
    .into_bytes();
    for p in &mesh.positions {
        for c in [p.x, p.y, p.z] {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    for t in &mesh.triangles {
        out.push(3);
        for &i in t {
            out.extend_from_slice(&(i as i32).to_le_bytes());
        }
    }
    out
}

fn main() -> ExitCode {
    match parse_args().and_then(|a| run(&a)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("export: {e}");
            ExitCode::FAILURE
        }
    }
}
