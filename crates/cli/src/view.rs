//! Image sizes and cameras: the default camera that frames the scene, and `--camera` parsing.

use raypick_primitives::{Aabb, Point3, Real, Vector3};
use raypick_query::camera::{Camera, ClipConvention, Projection, Viewport};

use crate::CliError;

/// `W,H` in pixels, each 1..=16384.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (w, h) = s
            .split_once([',', 'x'])
            .ok_or_else(|| format!("expected W,H (like 800,600), got {s:?}"))?;
        let parse = |v: &str| -> Result<u32, String> {
            let n: u32 = v
                .trim()
                .parse()
                .map_err(|_| format!("expected W,H with whole numbers, got {s:?}"))?;
            if (1..=16384).contains(&n) {
                Ok(n)
            } else {
                Err(format!("image sides must be 1..=16384 pixels, got {n}"))
            }
        };
        Ok(Size {
            width: parse(w)?,
            height: parse(h)?,
        })
    }
}

impl Size {
    pub fn viewport(self) -> Viewport {
        Viewport::new(self.width as Real, self.height as Real)
    }
    pub fn aspect(self) -> Real {
        self.width as Real / self.height as Real
    }
}

/// `X,Y`: a pixel (column, row from the top left); the ray goes through its centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pixel {
    pub x: Real,
    pub y: Real,
}

impl std::str::FromStr for Pixel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (x, y) = s
            .split_once(',')
            .ok_or_else(|| format!("expected X,Y (like 400,300), got {s:?}"))?;
        let parse = |v: &str| -> Result<Real, String> {
            let f: Real = v
                .trim()
                .parse()
                .map_err(|_| format!("expected X,Y numbers, got {s:?}"))?;
            if f.is_finite() {
                Ok(f)
            } else {
                Err(format!("pixel coordinates must be finite, got {s:?}"))
            }
        };
        Ok(Pixel {
            x: parse(x)?,
            y: parse(y)?,
        })
    }
}

/// The `--camera` option: any of `eye=x,y,z`, `target=x,y,z`, `up=x,y,z`, `fov=deg`,
/// separated by `;`. Missing parts come from the default framing camera.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CameraSpec {
    pub eye: Option<Point3<Real>>,
    pub target: Option<Point3<Real>>,
    pub up: Option<Vector3<Real>>,
    pub fov_deg: Option<Real>,
}

impl std::str::FromStr for CameraSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut spec = CameraSpec::default();
        for part in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("camera part {part:?} is not key=value"))?;
            let vec3 = || -> Result<[Real; 3], String> {
                let v: Vec<Real> = value
                    .split(',')
                    .map(|c| c.trim().parse::<Real>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("camera {key} must be x,y,z numbers, got {value:?}"))?;
                match v[..] {
                    [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok([x, y, z]),
                    _ => Err(format!(
                        "camera {key} must be three finite numbers, got {value:?}"
                    )),
                }
            };
            match key.trim() {
                "eye" => spec.eye = Some(Point3::from(vec3()?)),
                "target" => spec.target = Some(Point3::from(vec3()?)),
                "up" => spec.up = Some(Vector3::from(vec3()?)),
                "fov" => {
                    let f: Real = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("camera fov must be degrees, got {value:?}"))?;
                    if !(f > 0.0 && f < 180.0) {
                        return Err(format!("camera fov must be in (0, 180) degrees, got {f}"));
                    }
                    spec.fov_deg = Some(f);
                }
                other => {
                    return Err(format!(
                        "unknown camera part {other:?}; use eye=, target=, up=, fov="
                    ))
                }
            }
        }
        Ok(spec)
    }
}

/// The default vertical field of view.
pub const DEFAULT_FOV_DEG: Real = 40.0;

/// A perspective camera for `size`: `spec`'s parts where given, else one that looks at the
/// centre of `bounds` from the front (+z), a little above and to the right, far enough that
/// the bounding sphere of the box just fits the narrower view angle.
pub fn camera_for(bounds: &Aabb, size: Size, spec: &CameraSpec) -> Result<Camera, CliError> {
    let (center, radius) = if bounds.is_empty() {
        (Point3::origin(), 1.0)
    } else {
        let r = 0.5 * bounds.extents().norm();
        (bounds.center(), if r > 0.0 { r } else { 1.0 })
    };
    let fov_deg = spec.fov_deg.unwrap_or(DEFAULT_FOV_DEG);
    let half_v = fov_deg.to_radians() * 0.5;
    let half_h = (half_v.tan() * size.aspect()).atan();
    // The bounding sphere just fits the narrower of the two view angles.
    let distance = radius / half_v.min(half_h).sin();
    let dir = Vector3::new(0.25, 0.3, 1.0).normalize();
    let target = spec.target.unwrap_or(center);
    let eye = spec.eye.unwrap_or(target + dir * distance);
    let up = spec.up.unwrap_or_else(Vector3::y);
    let dist_to_target = (target - eye).norm();
    // Near and far that contain the bounds as seen from the eye.
    let far_reach = (center - eye).norm() + radius;
    let near = ((dist_to_target - radius) * 0.5)
        .max(far_reach * 1e-4)
        .max(1e-6);
    let far = (far_reach * 2.0).max(near * 2.0);
    Camera::look_at(
        eye,
        target,
        up,
        Projection::perspective(fov_deg.to_radians(), size.aspect(), near, far),
        ClipConvention::OPENGL,
    )
    .map_err(|e| CliError::BadInput(format!("bad camera: {e}")))
}
