//! `raypick pick`: through a pixel of a camera, or along rays read from a file or stdin.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use rayon::prelude::*;
use raypick_primitives::{Cull, Real};
use raypick_query::RayQuery;

use crate::view::{camera_for, CameraSpec, Pixel, Size};
use crate::{load, rays, CliError};

#[derive(Args, Debug)]
pub struct PickArgs {
    /// An .obj, .gltf, .glb, .ply, .stl or .rpk file.
    file: PathBuf,
    /// Pick through this pixel (column X, row Y from the top left; the ray goes through the
    /// pixel's centre at X+0.5, Y+0.5).
    #[arg(long, conflicts_with = "rays", required_unless_present = "rays")]
    pixel: Option<Pixel>,
    /// Read rays "ox oy oz dx dy dz" (optionally then "tmax"), one per line, from this file
    /// ("-" for stdin).
    #[arg(long)]
    rays: Option<String>,
    /// Image size W,H for --pixel.
    #[arg(long, default_value = "800,600")]
    size: Size,
    /// Camera for --pixel: "eye=x,y,z;target=x,y,z;up=x,y,z;fov=deg", parts optional.
    #[arg(long, default_value = "")]
    camera: CameraSpec,
    /// With --pixel: also snap to the nearest mesh vertex and edge within this many pixels
    /// on screen (CAD-style), reported as "snap_vertex" and "snap_edge".
    #[arg(long, conflicts_with_all = ["all", "any"])]
    snap: Option<Real>,
    /// With --pixel: pick a point or line segment of the file whose projection lies within
    /// this many pixels of the pixel's centre, if one is in front of the surfaces (it then
    /// wins over the surface behind it).
    #[arg(long, default_value_t = 5.0)]
    radius_px: Real,
    /// Report every surface crossing, sorted by t.
    #[arg(long, conflicts_with = "any")]
    all: bool,
    /// Report only whether anything is hit.
    #[arg(long)]
    any: bool,
    /// Ignore back faces, front faces, or neither.
    #[arg(long, value_enum, default_value_t = CullArg::None)]
    cull: CullArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CullArg {
    None,
    Back,
    Front,
}

impl From<CullArg> for Cull {
    fn from(c: CullArg) -> Cull {
        match c {
            CullArg::None => Cull::None,
            CullArg::Back => Cull::Back,
            CullArg::Front => Cull::Front,
        }
    }
}

pub fn pick(args: &PickArgs) -> Result<(), CliError> {
    if args.snap.is_some() && args.rays.is_some() {
        return Err(CliError::BadInput(
            "--snap works with --pixel, not --rays".into(),
        ));
    }
    let mode = if args.all {
        rays::Mode::All
    } else if args.any {
        rays::Mode::Any
    } else {
        rays::Mode::Closest
    };
    let base = RayQuery {
        cull: args.cull.into(),
        ..RayQuery::default()
    };
    // Read the rays before the (possibly slow) load, so a bad line fails fast.
    let input = match &args.rays {
        Some(src) => {
            let (text, name) = if src == "-" {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|e| CliError::BadInput(format!("cannot read rays from stdin: {e}")))?;
                (s, "stdin".to_owned())
            } else {
                let s = std::fs::read_to_string(src)
                    .map_err(|e| CliError::BadInput(format!("cannot read rays from {src}: {e}")))?;
                (s, src.clone())
            };
            Some(rays::parse_rays(&text, &name)?)
        }
        None => None,
    };
    let world = load(&args.file)?;
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    let write_err = |e: std::io::Error| CliError::Internal(format!("cannot write to stdout: {e}"));
    match input {
        Some(input) => {
            let lines: Vec<String> = input
                .par_iter()
                .map(|r| rays::answer(&world, r, mode, &base))
                .collect();
            for line in lines {
                writeln!(out, "{line}").map_err(write_err)?;
            }
        }
        None => {
            let Some(pixel) = args.pixel else {
                return Err(CliError::BadInput("give --pixel X,Y or --rays PATH".into()));
            };
            let camera = camera_for(&world.bounds(), args.size, &args.camera)?;
            // The camera's f64 ray, on the scene's f64 path (exact far from the origin).
            let (px, py) = (f64::from(pixel.x) + 0.5, f64::from(pixel.y) + 0.5);
            let (o, d) = camera
                .ray_from_pixel_f64(px, py, &args.size.viewport())
                .ok_or_else(|| {
                    CliError::BadInput(format!(
                        "no camera ray through pixel {},{}",
                        pixel.x, pixel.y
                    ))
                })?;
            // A point or line within the tolerance, not hidden, wins over the surface.
            let prim = if mode == rays::Mode::Closest {
                if !(args.radius_px.is_finite() && args.radius_px >= 0.0) {
                    return Err(CliError::BadInput(format!(
                        "--radius-px must be a number of pixels >= 0, got {}",
                        args.radius_px
                    )));
                }
                world.pick_prims(
                    &camera,
                    &args.size.viewport(),
                    f64::from(pixel.x) + 0.5,
                    f64::from(pixel.y) + 0.5,
                    f64::from(args.radius_px),
                )
            } else {
                None
            };
            let line = match (prim, args.snap) {
                (Some((set, p)), _) => rays::prim_answer(set, &p),
                (None, snap) => match snap {
                    Some(radius) => {
                        if !(radius.is_finite() && radius >= 0.0) {
                            return Err(CliError::BadInput(format!(
                                "--snap must be a number of pixels >= 0, got {radius}"
                            )));
                        }
                        let pick = world
                            .pick_snap(
                                &camera,
                                &args.size.viewport(),
                                pixel.x + 0.5,
                                pixel.y + 0.5,
                                radius,
                                &base,
                            )
                            .map_err(|e| CliError::BadInput(e.to_string()))?;
                        rays::snap_answer(&world, pick.as_ref())
                    }
                    None => {
                        let r = rays::InputRay {
                            ray: raypick_primitives::Ray64::new(o, d),
                            t_max: Real::INFINITY,
                        };
                        rays::answer(&world, &r, mode, &base)
                    }
                },
            };
            writeln!(out, "{line}").map_err(write_err)?;
        }
    }
    out.flush().map_err(write_err)
}
