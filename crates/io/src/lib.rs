//! raypick-io: OBJ, glTF/GLB, PLY and STL files into raypick meshes and scenes.
//!
//! Every loader uses the field's maintained parser (`tobj`, `gltf`, `ply-rs`, `stl_io`) and
//! first produces a [`SceneData`]: plain meshes (positions and triangles in file order) and
//! instances (a mesh and a transform). Loads never panic and never allocate for counts a
//! file cannot hold: every problem is an [`Error`] naming the file, the line where there is
//! one, and the problem.
//!
//! | format | meshes | instances |
//! |---|---|---|
//! | OBJ | one per object or group with faces; polygons fan-triangulated in order | one per mesh, identity |
//! | glTF / GLB | one per glTF mesh, triangle primitives concatenated in order | one per node with a mesh, world transform |
//! | PLY (ASCII, binary LE/BE) | one | one, identity |
//! | STL (ASCII, binary) | one | one, identity |
//! | saved by raypick (`.rpk`) | the saved scene's (or mesh's), BVHs loaded, not rebuilt | the saved instances |
//!
//! ```
//! use raypick_io::{read_bytes, Format};
//!
//! let obj = b"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
//! let scene = read_bytes(obj, Format::Obj, "quad.obj").unwrap();
//! assert_eq!(scene.meshes[0].triangles, vec![[0, 1, 2], [0, 2, 3]]); // fan order
//!
//! let err = read_bytes(b"v 0 0 0\nf 1 2 3\n", Format::Obj, "bad.obj").unwrap_err();
//! assert_eq!(err.to_string(), "bad.obj, line 2: a face refers to vertex 2, but only 1 vertices exist");
//! ```

mod error;
mod gltf_file;
mod gltf_prims;
mod loaded;
mod obj;
mod obj_elements;
mod ply;
mod saved;
mod scene_load;
mod stl;

use std::path::Path;

pub use error::{Error, ErrorKind};
pub use loaded::{LoadedInstance, LoadedLines, LoadedMesh, LoadedPoints, SceneData, RECENTRE_FROM};
pub use nalgebra::Matrix4;
use raypick_query::Mesh;
pub use saved::{load_saved, save_scene};
pub use scene_load::{load_scene, load_scene_from_bytes, BuiltScene};

/// Files larger than this are refused before reading (4 GiB): every supported format
/// addresses vertices with 32-bit indices.
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// A supported file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Wavefront OBJ (text).
    Obj,
    /// glTF 2.0 JSON (`.gltf`), with external or embedded base64 buffers.
    Gltf,
    /// Binary glTF 2.0 (`.glb`).
    Glb,
    /// PLY, ASCII or binary of either endianness.
    Ply,
    /// STL, ASCII or binary.
    Stl,
    /// A mesh or scene saved by raypick with its BVHs built (`.rpk`, see
    /// [`raypick_query::persist`]): loaded without rebuilding.
    Saved,
}

impl Format {
    /// The format named by a path's extension (case-insensitive); `None` for anything else,
    /// including no extension. The content is not looked at.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "obj" => Format::Obj,
            "gltf" => Format::Gltf,
            "glb" => Format::Glb,
            "ply" => Format::Ply,
            "stl" => Format::Stl,
            "rpk" => Format::Saved,
            _ => return None,
        })
    }

    /// The lowercase name (`"obj"`, `"gltf"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Format::Obj => "obj",
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Ply => "ply",
            Format::Stl => "stl",
            Format::Saved => "rpk",
        }
    }
}

/// Reads a file into a [`SceneData`], choosing the format by extension.
///
/// A glTF file's external buffers are read relative to the file's directory. Errors: an
/// unknown extension is [`ErrorKind::UnknownFormat`]; an unreadable file [`ErrorKind::Io`];
/// a file over [`MAX_FILE_BYTES`] [`ErrorKind::TooLarge`]; then whatever the format's reader
/// reports (see [`read_bytes`]).
pub fn read_file(path: impl AsRef<Path>) -> Result<SceneData, Error> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let Some(format) = Format::from_path(path) else {
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_else(|| "(no extension)".to_owned());
        return Err(Error::new(&name, ErrorKind::UnknownFormat(ext)));
    };
    let bytes = read_checked(path, &name)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.clone());
    read_any(&bytes, format, &name, &stem, path.parent())
}

/// The bytes of the regular file `path` (at most [`MAX_FILE_BYTES`]); `name` names it in
/// errors.
pub(crate) fn read_checked(path: &Path, name: &str) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::new(name, ErrorKind::Io(e)))?;
    if !meta.is_file() {
        return Err(Error::new(
            name,
            ErrorKind::Io(std::io::Error::other("not a regular file")),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::new(
            name,
            ErrorKind::TooLarge(format!("{} bytes", meta.len())),
        ));
    }
    std::fs::read(path).map_err(|e| Error::new(name, ErrorKind::Io(e)))
}

/// Reads in-memory bytes of the given format; `name` stands for the file in errors and names
/// the mesh of single-mesh formats.
///
/// A glTF whose buffers are external files gives [`ErrorKind::MissingBuffer`] (there is no
/// directory to read them from); embedded base64 buffers and GLB work. Bad input of every
/// kind is an [`Error`], never a panic: syntax errors, truncation, declared counts larger
/// than the bytes, indices out of range, NaN or infinite positions, glTF node cycles and
/// missing buffers.
pub fn read_bytes(bytes: &[u8], format: Format, name: &str) -> Result<SceneData, Error> {
    read_any(bytes, format, name, name, None)
}

fn read_any(
    bytes: &[u8],
    format: Format,
    file: &str,
    mesh_name: &str,
    base: Option<&Path>,
) -> Result<SceneData, Error> {
    // A UTF-8 byte-order mark before a text format's first line (some Windows exporters write
    // one) would hide that line from the parsers. Binary files keep every byte: a binary STL
    // header is free-form, so its mark is dropped only before an ASCII `solid`.
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if matches!(format, Format::Obj | Format::Ply | Format::Gltf) => rest,
        Some(rest) if format == Format::Stl && rest.starts_with(b"solid") => rest,
        _ => bytes,
    };
    let scene = match format {
        Format::Obj => obj::read(bytes, file, mesh_name)?,
        Format::Gltf | Format::Glb => gltf_file::read(bytes, file, base, format)?,
        Format::Ply => ply::read(bytes, file, mesh_name)?,
        Format::Stl => stl::read(bytes, file, mesh_name)?,
        Format::Saved => saved::load(bytes, file)?.0,
    };
    scene.check(file)?;
    tracing::debug!(
        file,
        meshes = scene.meshes.len(),
        instances = scene.instances.len(),
        triangles = scene.instance_triangle_count(),
        "loaded"
    );
    Ok(scene)
}

/// Loads a file as one [`Mesh`] (BVH built with the default configuration).
///
/// For a single-mesh file (PLY, STL, an OBJ with one object, a glTF with one instance) this
/// is that mesh with its triangles in file order, placed by its transform. A file with
/// several instances is flattened: every instance's triangles in world space, instance after
/// instance in load order (see [`SceneData::flatten`]). Errors as in [`read_file`].
///
/// ```no_run
/// let mesh = raypick_io::load_mesh("bunny.obj")?;
/// println!("{} triangles", mesh.len());
/// # Ok::<(), raypick_io::Error>(())
/// ```
pub fn load_mesh(path: impl AsRef<Path>) -> Result<Mesh, Error> {
    let path = path.as_ref();
    if Format::from_path(path) == Some(Format::Saved) {
        let name = path.display().to_string();
        let bytes = read_checked(path, &name)?;
        return saved::load_mesh(&bytes, &name);
    }
    let scene = read_file(path)?;
    scene.to_mesh(&path.display().to_string())
}

/// [`load_mesh`] from in-memory bytes; `name` stands for the file in errors.
///
/// ```
/// use raypick_io::{load_mesh_from_bytes, Format};
///
/// let mesh = load_mesh_from_bytes(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", Format::Obj, "t.obj")?;
/// assert_eq!(mesh.len(), 1);
/// # Ok::<(), raypick_io::Error>(())
/// ```
pub fn load_mesh_from_bytes(bytes: &[u8], format: Format, name: &str) -> Result<Mesh, Error> {
    if format == Format::Saved {
        return saved::load_mesh(bytes, name);
    }
    read_bytes(bytes, format, name)?.to_mesh(name)
}

/// Runs a parser call, turning a panic inside it into [`ErrorKind::Internal`].
///
/// The parsers are not documented to panic, but some do on hostile input (arithmetic on
/// unchecked header fields); the loaders check what they can first and keep this as the
/// last resort. The panic message still goes through the panic hook (stderr by default).
pub(crate) fn guard<T>(file: &str, f: impl FnOnce() -> T) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Error::new(
            file,
            ErrorKind::Internal(format!("the parser panicked: {msg}")),
        )
    })
}
