//! The `raypick` command: `demo`, `info`, `pick`, `distance`, `render`, `bench` and `build`
//! over OBJ, glTF/GLB, PLY and STL files, and over meshes and scenes saved by `build`
//! (`.rpk`, loaded without rebuilding their BVHs).
//!
//! Errors are one sentence on stderr; the exit code is 2 for bad input (a file, an option or
//! a ray line) and 1 for an internal failure. `RUST_LOG=debug` turns on tracing output.

mod bench;
mod distance;
mod pick;
mod progress;
mod rays;
mod render;
mod view;
mod world;

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use rayon::prelude::*;
use raypick_io::{Format, SceneData};
use raypick_primitives::{Point3, Real};
use raypick_query::scene::PrimData;
use raypick_query::RayQuery;

use crate::progress::Progress;
use crate::view::{camera_for, CameraSpec, Size};
use crate::world::World;

/// The Stanford bunny (low-resolution reconstruction), embedded so `demo` needs no files.
const BUNNY_OBJ: &[u8] = include_bytes!("../../../assets/bunny.obj");

/// BVH-accelerated ray picking over triangle meshes.
#[derive(Parser, Debug)]
#[command(name = "raypick", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Pick the centre pixel of the embedded bunny and render the picture (no files needed).
    Demo {
        /// Where to write the picture.
        #[arg(short, long, default_value = "raypick-demo.png")]
        output: PathBuf,
        /// Image size W,H in pixels.
        #[arg(long, default_value = "800,600")]
        size: Size,
    },
    /// Print a file's triangles, meshes, instances, bounds, BVH statistics, build time and memory.
    Info {
        /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
        file: PathBuf,
    },
    /// Pick through a pixel of a camera, or along rays read from a file or stdin.
    Pick(pick::PickArgs),
    /// Signed distance, inside/outside and winding number of points read from a file or
    /// stdin, one JSON line per point.
    Distance {
        /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
        file: PathBuf,
        /// Read points "x y z", one per line, from this file ("-" for stdin).
        #[arg(long)]
        points: String,
    },
    /// Render one ray per pixel to a PNG, shaded by normal or as a traversal-cost heatmap.
    Render {
        /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
        file: PathBuf,
        /// The PNG to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Image size W,H in pixels.
        #[arg(long, default_value = "800,600")]
        size: Size,
        /// Camera: "eye=x,y,z;target=x,y,z;up=x,y,z;fov=deg", any part may be left out
        /// (the default camera frames the scene).
        #[arg(long, default_value = "")]
        camera: CameraSpec,
        /// Colour each pixel by the BVH nodes its closest-hit traversal visits.
        #[arg(long)]
        heatmap: bool,
    },
    /// Build the BVHs of a file once and save them (`.rpk`), for every command to load
    /// without rebuilding; prints one JSON line.
    Build {
        /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
        file: PathBuf,
        /// The saved file to write (by convention `.rpk`).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Measure the build time and closest-hit / any-hit rays per second.
    Bench {
        /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
        file: PathBuf,
        /// A fast, rough run (for tests and smoke checks).
        #[arg(long)]
        quick: bool,
    },
}

/// A failure: bad input (exit 2) or an internal error (exit 1). The text is one sentence.
#[derive(Debug)]
pub enum CliError {
    /// The input is at fault: a file, an option or a ray line (exit code 2).
    BadInput(String),
    /// raypick itself failed (exit code 1).
    Internal(String),
}

impl From<raypick_io::Error> for CliError {
    fn from(e: raypick_io::Error) -> Self {
        if e.is_bad_input() {
            CliError::BadInput(e.to_string())
        } else {
            CliError::Internal(e.to_string())
        }
    }
}

fn main() -> ExitCode {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind as K;
            if matches!(
                e.kind(),
                K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // clap's message, kept to its first line: one sentence, like every other error.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("raypick: error: {first} (see raypick --help)");
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Demo { output, size } => demo(&output, size),
        Command::Info { file } => info(&file),
        Command::Pick(args) => pick::pick(&args),
        Command::Distance { file, points } => distance_cmd(&file, &points),
        Command::Render {
            file,
            output,
            size,
            camera,
            heatmap,
        } => render_cmd(&file, &output, size, &camera, heatmap),
        Command::Bench { file, quick } => bench_cmd(&file, quick),
        Command::Build { file, output } => build_cmd(&file, &output),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::BadInput(msg)) => {
            eprintln!("raypick: error: {msg}");
            ExitCode::from(2)
        }
        Err(CliError::Internal(msg)) => {
            eprintln!("raypick: internal error: {msg}");
            ExitCode::from(1)
        }
    }
}

/// Reads and builds, with a progress spinner for slow files.
fn load(path: &Path) -> Result<World, CliError> {
    if Format::from_path(path) == Some(Format::Saved) {
        let _p = Progress::new(&format!("loading {}", path.display()), None);
        return World::from_saved(path);
    }
    let loaded = {
        let _p = Progress::new(&format!("loading {}", path.display()), None);
        raypick_io::read_file(path)?
    };
    build(loaded, &path.display().to_string())
}

fn build(loaded: SceneData, name: &str) -> Result<World, CliError> {
    let _p = Progress::new("building the BVH", None);
    World::build(loaded, name)
}

fn build_cmd(file: &Path, output: &Path) -> Result<(), CliError> {
    let world = load(file)?;
    let t0 = Instant::now();
    {
        let _p = Progress::new(&format!("saving {}", output.display()), None);
        raypick_io::save_scene(world.scene(), output)?;
    }
    let save_time = t0.elapsed();
    let bytes = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    println!(
        "{}",
        serde_json::json!({
            "input": file.display().to_string(),
            "output": output.display().to_string(),
            "meshes": world.loaded.meshes.len(),
            "objects": world.loaded.instances.len(),
            "triangles": world.triangle_count(),
            "build_ms": world.build_time.as_secs_f64() * 1e3,
            "save_ms": save_time.as_secs_f64() * 1e3,
            "bytes": bytes,
        })
    );
    Ok(())
}

fn fmt_p(p: &Point3<Real>) -> String {
    format!("({:.4}, {:.4}, {:.4})", p.x, p.y, p.z)
}

fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn fmt_rate(per_s: f64) -> String {
    if per_s >= 1e6 {
        format!("{:.2} M", per_s / 1e6)
    } else if per_s >= 1e3 {
        format!("{:.1} k", per_s / 1e3)
    } else {
        format!("{per_s:.0} ")
    }
}

fn save_png(image: &image::RgbImage, path: &Path) -> Result<(), CliError> {
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| match e {
            image::ImageError::IoError(io) => {
                CliError::BadInput(format!("cannot write {}: {io}", path.display()))
            }
            other => CliError::Internal(format!("cannot encode {}: {other}", path.display())),
        })
}

fn demo(output: &Path, size: Size) -> Result<(), CliError> {
    let loaded = raypick_io::read_bytes(BUNNY_OBJ, Format::Obj, "bunny.obj")?;
    let world = build(loaded, "bunny.obj")?;
    println!(
        "raypick demo: the Stanford bunny (embedded), {} triangles",
        world.triangle_count()
    );
    println!("BVH built in {}", fmt_duration(world.build_time));
    let camera = camera_for(&world.bounds(), size, &CameraSpec::default())?;
    let (px, py) = (size.width / 2, size.height / 2);
    let ray = camera
        .ray_from_pixel(px as Real + 0.5, py as Real + 0.5, &size.viewport())
        .ok_or_else(|| CliError::Internal("the camera gave no ray for the centre pixel".into()))?;
    let hit = world.closest_hit(&ray, &RayQuery::default());
    match &hit {
        Some(h) => println!(
            "pick at the centre pixel ({px}, {py}) of {}x{}: triangle {}, t = {:.4}, point {}, normal {}",
            size.width,
            size.height,
            h.triangle,
            h.t,
            fmt_p(&h.point),
            fmt_p(&Point3::from(h.normal.into_inner()))
        ),
        None => println!("pick at the centre pixel ({px}, {py}): no hit"),
    }
    let r = render::render_shaded(&world, &camera, size, hit.map(|h| (h.object, h.triangle)));
    save_rendered(&r, output, size, ", picked triangle in yellow")
}

fn info(file: &Path) -> Result<(), CliError> {
    let world = load(file)?;
    let l = &world.loaded;
    let b = world.bounds();
    println!("file: {} ({})", file.display(), l.format.name());
    println!(
        "triangles: {} in {} instance{} of {} mesh{} ({} distinct triangles)",
        world.triangle_count(),
        l.instances.len(),
        if l.instances.len() == 1 { "" } else { "s" },
        l.meshes.len(),
        if l.meshes.len() == 1 { "" } else { "es" },
        l.mesh_triangle_count()
    );
    // From the scene, which holds them for a source file and for a saved one alike.
    let (mut clouds, mut points, mut sets, mut segments) = (0, 0, 0, 0);
    for (_, data, _) in world.prim_sets() {
        match data {
            PrimData::Points(s) => (clouds, points) = (clouds + 1, points + s.points().len()),
            PrimData::Segments(s) => (sets, segments) = (sets + 1, segments + s.segments().len()),
        }
    }
    if clouds > 0 {
        let s = if clouds == 1 { "" } else { "s" };
        println!("points: {points} in {clouds} point cloud{s}");
    }
    if sets > 0 {
        let s = if sets == 1 { "" } else { "s" };
        println!("segments: {segments} in {sets} line set{s}");
    }
    for (i, inst) in l.instances.iter().enumerate().take(20) {
        let m = &l.meshes[inst.mesh];
        println!(
            "  object {i}: {:?}, mesh {:?}, {} triangles, {} vertices",
            inst.name,
            m.name,
            m.triangles.len(),
            m.positions.len()
        );
    }
    if l.instances.len() > 20 {
        println!("  ... and {} more objects", l.instances.len() - 20);
    }
    if b.is_empty() {
        println!("bounds: empty");
    } else {
        println!("bounds: min {} max {}", fmt_p(&b.min), fmt_p(&b.max));
    }
    let stats = world.mesh_stats();
    let nodes: usize = stats.iter().map(|(s, _)| s.node_count).sum();
    let leaves: usize = stats.iter().map(|(s, _)| s.leaf_count).sum();
    let depth = stats.iter().map(|(s, _)| s.depth).max().unwrap_or(0);
    // SAH costs weighted by triangles: the expected cost of a ray through a random mesh.
    let prims: usize = stats.iter().map(|(s, _)| s.prim_count).sum();
    let sah = stats
        .iter()
        .map(|(s, sah)| sah * s.prim_count as f64)
        .sum::<f64>()
        / prims.max(1) as f64;
    println!(
        "BVH: {nodes} 8-wide nodes ({leaves} leaves) in {} tree{}, depth {depth}, SAH cost {sah:.2}{}",
        stats.len(),
        if stats.len() == 1 { "" } else { "s" },
        if stats.len() > 1 {
            " (triangle-weighted mean)"
        } else {
            ""
        }
    );
    let what = if l.format == Format::Saved {
        "load time (saved BVHs)"
    } else {
        "build time"
    };
    println!("{what}: {}", fmt_duration(world.build_time));
    let bytes = world.memory_bytes();
    println!(
        "memory: {:.1} KiB ({:.1} bytes per triangle)",
        bytes as f64 / 1024.0,
        if world.triangle_count() == 0 {
            0.0
        } else {
            bytes as f64 / world.triangle_count() as f64
        }
    );
    Ok(())
}

fn distance_cmd(file: &Path, src: &str) -> Result<(), CliError> {
    // Read the points before the (possibly slow) load, so a bad line fails fast.
    let (text, name) = if src == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| CliError::BadInput(format!("cannot read points from stdin: {e}")))?;
        (s, "stdin".to_owned())
    } else {
        let s = std::fs::read_to_string(src)
            .map_err(|e| CliError::BadInput(format!("cannot read points from {src}: {e}")))?;
        (s, src.to_owned())
    };
    let points = distance::parse_points(&text, &name)?;
    let world = load(file)?;
    let lines: Vec<String> = points
        .par_iter()
        .map(|p| distance::answer(&world, p))
        .collect();
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    let write_err = |e: std::io::Error| CliError::Internal(format!("cannot write to stdout: {e}"));
    for line in lines {
        writeln!(out, "{line}").map_err(write_err)?;
    }
    out.flush().map_err(write_err)
}

fn render_cmd(
    file: &Path,
    output: &Path,
    size: Size,
    spec: &CameraSpec,
    heatmap: bool,
) -> Result<(), CliError> {
    let world = load(file)?;
    let camera = camera_for(&world.bounds(), size, spec)?;
    let r = if heatmap {
        world.prepare_heatmap()?;
        render::render_heatmap(&world, &camera, size)
    } else {
        let mut r = render::render_shaded(&world, &camera, size, None);
        render::overlay(&world, &camera, size, &mut r);
        r
    };
    save_rendered(&r, output, size, "")?;
    if let Some((min, mean, max)) = r.cost {
        println!(
            "nodes visited per pixel: min {min}, mean {mean:.1}, max {max} (blue = min, red = max)"
        );
    }
    Ok(())
}

/// Writes the PNG and says what was rendered (`note` goes after the size).
fn save_rendered(
    r: &render::Rendered,
    output: &Path,
    size: Size,
    note: &str,
) -> Result<(), CliError> {
    save_png(&r.image, output)?;
    println!(
        "rendered {} ({}x{}{note}): {} rays in {}, {}rays/s",
        output.display(),
        size.width,
        size.height,
        r.rays,
        fmt_duration(r.elapsed),
        fmt_rate(r.rays_per_second())
    );
    Ok(())
}

fn bench_cmd(file: &Path, quick: bool) -> Result<(), CliError> {
    let t0 = Instant::now();
    let loaded = {
        let _p = Progress::new(&format!("loading {}", file.display()), None);
        raypick_io::read_file(file)?
    };
    let load_time = t0.elapsed();
    let world = build(loaded, &file.display().to_string())?;
    println!(
        "file: {} ({} triangles)",
        file.display(),
        world.triangle_count()
    );
    println!(
        "load: {}, BVH build: {}",
        fmt_duration(load_time),
        fmt_duration(world.build_time)
    );
    let size = Size {
        width: 512,
        height: 512,
    };
    let camera = camera_for(&world.bounds(), size, &CameraSpec::default())?;
    let threads = rayon::current_num_threads();
    let rows = {
        let _p = Progress::new("measuring", None);
        bench::run(&world, &camera, quick)
    };
    println!(
        "{:<11} {:<12} {:>14} {:>18}",
        "rays",
        "query",
        "1 thread",
        format!("{threads} threads")
    );
    for row in rows {
        println!(
            "{:<11} {:<12} {:>14} {:>18}",
            row.rays,
            row.query,
            format!("{}rays/s", fmt_rate(row.one_thread)),
            format!("{}rays/s", fmt_rate(row.all_threads))
        );
    }
    if quick {
        println!("(--quick: small ray sets and short runs; the figures are rough)");
    }
    Ok(())
}
