//! The neutral in-memory form every loader produces, before any BVH is built.

use nalgebra::{Matrix4, Vector3};
use raypick_primitives::{Aabb, Point3};
use raypick_query::Mesh;

use crate::error::{Error, ErrorKind};
use crate::Format;

/// One triangle mesh as read from a file, in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedMesh {
    /// The object, group, mesh or file name (never empty; loaders invent `"mesh N"`).
    pub name: String,
    /// Vertex positions, all finite (loaders check).
    pub positions: Vec<Point3<f32>>,
    /// Triangles as indices into `positions`, all in range (loaders check), in file order:
    /// polygons are fan-triangulated in order, glTF primitives are concatenated in order.
    pub triangles: Vec<[u32; 3]>,
    /// Where `positions` are measured from: the file's coordinates are `positions + offset`.
    /// Zero unless the file's coordinates reach [`RECENTRE_FROM`]: then the loader reads them
    /// in f64 and moves them by the centre of their box (rounded to whole units) before
    /// rounding to f32, so that they keep their precision; the instances' transforms include
    /// the offset.
    pub offset: Vector3<f64>,
}

/// Coordinates from which a mesh is re-centred on load ([`LoadedMesh::offset`]): where an
/// f32 steps by about a thousandth.
pub const RECENTRE_FROM: f64 = 1.0e4;

/// `positions` (f64, as read) as f32 positions relative to an offset: zero when every finite
/// coordinate is below [`RECENTRE_FROM`] in magnitude, else the centre of their box rounded
/// to whole units. Non-finite coordinates stay non-finite (the checks report them).
pub(crate) fn recentre(positions: &[Point3<f64>]) -> (Vec<Point3<f32>>, Vector3<f64>) {
    let finite = || positions.iter().filter(|p| p.iter().all(|c| c.is_finite()));
    let far = finite().any(|p| p.iter().any(|c| c.abs() >= RECENTRE_FROM));
    let offset = if far {
        let (lo, hi) = finite().fold(
            (
                Vector3::repeat(f64::INFINITY),
                Vector3::repeat(f64::NEG_INFINITY),
            ),
            |(lo, hi), p| (lo.inf(&p.coords), hi.sup(&p.coords)),
        );
        ((lo + hi) * 0.5).map(f64::round)
    } else {
        Vector3::zeros()
    };
    let local = positions
        .iter()
        .map(|p| Point3::from((p.coords - offset).map(|c| c as f32)))
        .collect();
    (local, offset)
}

impl LoadedMesh {
    /// The box around the positions; [`Aabb::EMPTY`] for no positions.
    pub fn bounds(&self) -> Aabb {
        bounds_of(self.positions.iter().copied())
    }

    /// Checks the invariants documented on the fields: finite positions, indices in range,
    /// counts that fit `u32`.
    pub(crate) fn check(&self, file: &str) -> Result<(), Error> {
        if self.positions.len() > u32::MAX as usize {
            return Err(Error::new(
                file,
                ErrorKind::TooLarge(format!("{} has more than 2^32 vertices", self.name)),
            ));
        }
        if let Some((vertex, p)) = self
            .positions
            .iter()
            .enumerate()
            .find(|(_, p)| !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()))
        {
            return Err(Error::new(
                file,
                ErrorKind::NonFinite {
                    mesh: self.name.clone(),
                    vertex,
                    x: p.x,
                    y: p.y,
                    z: p.z,
                },
            ));
        }
        let n = self.positions.len();
        for (triangle, tri) in self.triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(Error::new(
                    file,
                    ErrorKind::IndexOutOfRange {
                        context: format!("mesh {:?}, triangle {triangle}", self.name),
                        index: i64::from(index),
                        vertex_count: n,
                    },
                ));
            }
        }
        Ok(())
    }
}

/// One placement of a mesh in the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedInstance {
    /// The object or node name (never empty).
    pub name: String,
    /// Index into [`SceneData::meshes`].
    pub mesh: usize,
    /// Object-to-world transform of the mesh's `positions`, rounded to f32: the translation
    /// by the mesh's [`LoadedMesh::offset`] for OBJ, PLY and STL (the identity near the
    /// origin); the node's world matrix (parents applied) for glTF. Always finite and
    /// invertible (loaders check).
    pub transform: Matrix4<f32>,
    /// The same transform in f64, as composed by the loader (glTF node matrices are
    /// multiplied in f64): what [`SceneData::to_scene`] places the instance with.
    pub transform64: Matrix4<f64>,
}

impl LoadedInstance {
    /// An instance of mesh `mesh` placed by `transform64` (its f32 form is its rounding).
    pub fn new(name: String, mesh: usize, transform64: Matrix4<f64>) -> Self {
        Self {
            name,
            mesh,
            transform: transform64.cast(),
            transform64,
        }
    }
}

/// A point cloud as read from a file, placed in the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedPoints {
    /// The object, node or file name (never empty).
    pub name: String,
    /// The points, all finite (loaders check), in file order.
    pub positions: Vec<Point3<f32>>,
    /// Object-to-world transform of `positions`, in f64 (a re-centring offset or a glTF
    /// node's world matrix).
    pub transform64: Matrix4<f64>,
}

/// Line segments as read from a file (OBJ `l` polylines, glTF lines, strips and loops),
/// placed in the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedLines {
    /// The object, node or file name (never empty).
    pub name: String,
    /// The segments' end points, all finite (loaders check).
    pub positions: Vec<Point3<f32>>,
    /// Segments as index pairs into `positions`, all in range (loaders check), in file order.
    pub segments: Vec<[u32; 2]>,
    /// Object-to-world transform of `positions`, in f64.
    pub transform64: Matrix4<f64>,
}

/// Everything a file holds that raypick can pick: meshes (shared) and their placements.
///
/// OBJ gives one mesh and one instance per object or group, PLY and STL one of each, glTF
/// one mesh per glTF mesh and one instance per node that uses it. Instances are in load
/// order, the order the CLI reports as `object`.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneData {
    /// The format the file was read as.
    pub format: Format,
    /// The meshes, in file order.
    pub meshes: Vec<LoadedMesh>,
    /// The placements, in load order (glTF: depth-first over the scene's node trees).
    pub instances: Vec<LoadedInstance>,
    /// Point clouds: PLY vertices without faces, OBJ `p` elements, glTF `POINTS` primitives
    /// (one per node that uses the mesh).
    pub points: Vec<LoadedPoints>,
    /// Line segments: OBJ `l` elements, glTF `LINES`, `LINE_STRIP` and `LINE_LOOP`
    /// primitives (one per node that uses the mesh).
    pub lines: Vec<LoadedLines>,
}

impl SceneData {
    /// One mesh placed once, by the translation that undoes its re-centring: what the
    /// single-mesh formats (PLY, STL) load.
    pub(crate) fn single_mesh(format: Format, name: &str, mesh: LoadedMesh) -> Self {
        let place = Matrix4::new_translation(&mesh.offset);
        Self {
            format,
            instances: vec![LoadedInstance::new(name.to_owned(), 0, place)],
            meshes: vec![mesh],
            points: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// Total triangles over all instances (a shared mesh counts once per instance).
    pub fn instance_triangle_count(&self) -> usize {
        self.instances
            .iter()
            .map(|i| self.meshes[i.mesh].triangles.len())
            .sum()
    }

    /// Total triangles over the distinct meshes (a shared mesh counts once).
    pub fn mesh_triangle_count(&self) -> usize {
        self.meshes.iter().map(|m| m.triangles.len()).sum()
    }

    /// The world-space box of every instance's vertices, points and line ends;
    /// [`Aabb::EMPTY`] when there are none.
    pub fn bounds(&self) -> Aabb {
        let mut b = Aabb::EMPTY;
        let placed = |m: &Matrix4<f64>, p: &[Point3<f32>]| {
            bounds_of(
                p.iter()
                    .map(|p| m.transform_point(&p.cast::<f64>()).cast::<f32>()),
            )
        };
        for c in &self.points {
            b = b.union(&placed(&c.transform64, &c.positions));
        }
        for l in &self.lines {
            b = b.union(&placed(&l.transform64, &l.positions));
        }
        for inst in &self.instances {
            let mesh = &self.meshes[inst.mesh];
            let ib = bounds_of(
                mesh.positions
                    .iter()
                    .map(|p| inst.transform.transform_point(p)),
            );
            b = b.union(&ib);
        }
        b
    }

    /// Every instance's triangles in world space, concatenated into one mesh in instance
    /// order (the vertices of a shared mesh are repeated per instance). Returns, beside it,
    /// the first triangle index of each instance, so that triangle `k` of the result belongs
    /// to the last instance whose start is `<= k`.
    pub fn flatten(&self) -> (LoadedMesh, Vec<usize>) {
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        let mut starts = Vec::with_capacity(self.instances.len());
        for inst in &self.instances {
            let mesh = &self.meshes[inst.mesh];
            let base = positions.len() as u32;
            starts.push(triangles.len());
            positions.extend(
                mesh.positions
                    .iter()
                    .map(|p| inst.transform.transform_point(p)),
            );
            triangles.extend(
                mesh.triangles
                    .iter()
                    .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
            );
        }
        let name = match self.instances.len() {
            1 => self.instances[0].name.clone(),
            _ => "scene".to_owned(),
        };
        (
            LoadedMesh {
                name,
                positions,
                triangles,
                offset: Vector3::zeros(),
            },
            starts,
        )
    }

    /// One [`Mesh`] of the whole scene: the mesh itself when there is one instance with the
    /// identity transform, else [`SceneData::flatten`]. `file` names the source in errors.
    pub fn to_mesh(&self, file: &str) -> Result<Mesh, Error> {
        let built =
            if self.instances.len() == 1 && self.instances[0].transform == Matrix4::identity() {
                let m = &self.meshes[self.instances[0].mesh];
                Mesh::new(m.positions.clone(), m.triangles.clone())
            } else {
                let (m, _) = self.flatten();
                Mesh::new(m.positions, m.triangles)
            };
        built.map_err(|e| Error::new(file, ErrorKind::Build(e.to_string())))
    }

    /// Checks every mesh and instance (see [`LoadedMesh`] and [`LoadedInstance`]), point
    /// cloud and line set.
    pub(crate) fn check(&self, file: &str) -> Result<(), Error> {
        let finite = |name: &str, p: &[Point3<f32>]| match p
            .iter()
            .enumerate()
            .find(|(_, p)| !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()))
        {
            Some((vertex, p)) => Err(Error::new(
                file,
                ErrorKind::NonFinite {
                    mesh: name.to_owned(),
                    vertex,
                    x: p.x,
                    y: p.y,
                    z: p.z,
                },
            )),
            None => Ok(()),
        };
        let placed = |name: &str, m: &Matrix4<f64>| {
            if m.iter().all(|v| v.is_finite() && (*v as f32).is_finite()) {
                Ok(())
            } else {
                Err(Error::new(
                    file,
                    ErrorKind::TooLarge(format!("{name}: coordinates beyond the f32 range")),
                ))
            }
        };
        for p in &self.points {
            finite(&p.name, &p.positions)?;
            placed(&p.name, &p.transform64)?;
        }
        for l in &self.lines {
            finite(&l.name, &l.positions)?;
            placed(&l.name, &l.transform64)?;
            let n = l.positions.len();
            if let Some((k, s)) = l
                .segments
                .iter()
                .enumerate()
                .find(|(_, s)| s.iter().any(|&i| i as usize >= n))
            {
                let index = s.iter().copied().find(|&i| i as usize >= n).unwrap_or(0);
                return Err(Error::new(
                    file,
                    ErrorKind::IndexOutOfRange {
                        context: format!("lines {:?}, segment {k}", l.name),
                        index: i64::from(index),
                        vertex_count: n,
                    },
                ));
            }
        }
        for m in &self.meshes {
            m.check(file)?;
        }
        for inst in &self.instances {
            // A placement beyond f32's range (coordinates near 1e38) cannot be queried.
            if !inst.transform.iter().all(|v| v.is_finite()) {
                return Err(Error::new(
                    file,
                    ErrorKind::TooLarge(format!("{}: coordinates beyond the f32 range", inst.name)),
                ));
            }
            if inst.mesh >= self.meshes.len() {
                return Err(Error::new(
                    file,
                    ErrorKind::Internal(format!("instance {} refers to a missing mesh", inst.name)),
                ));
            }
        }
        Ok(())
    }
}

fn bounds_of(points: impl Iterator<Item = Point3<f32>>) -> Aabb {
    points.fold(Aabb::EMPTY, |b, p| b.grow(&p))
}
