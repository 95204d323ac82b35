//! The load error: which file, which line (when there is one), and what went wrong.

use std::fmt;

/// A load failure, naming the file, the line where one exists, and the problem.
///
/// `Display` gives one sentence such as
/// `model.obj, line 12: face refers to vertex 9 but only 8 vertices exist`.
#[derive(Debug)]
pub struct Error {
    /// The file name, or the name given to an in-memory load.
    pub file: String,
    /// The 1-based line of a text file where the problem was found, when known.
    pub line: Option<usize>,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl Error {
    pub(crate) fn new(file: &str, kind: ErrorKind) -> Self {
        Error {
            file: file.to_owned(),
            line: None,
            kind,
        }
    }

    pub(crate) fn at_line(file: &str, line: usize, kind: ErrorKind) -> Self {
        Error {
            file: file.to_owned(),
            line: Some(line),
            kind,
        }
    }

    /// True when the input is at fault (every kind but [`ErrorKind::Internal`]); the CLI maps
    /// this to exit code 2 and the rest to 1.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self.kind, ErrorKind::Internal(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {}: {}", self.file, line, self.kind),
            None => write!(f, "{}: {}", self.file, self.kind),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// The problems a load can report. Each message is a lowercase sentence fragment.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The extension (or the bytes) name no supported format.
    #[error("unknown format {0:?}; expected .obj, .gltf, .glb, .ply, .stl or .rpk")]
    UnknownFormat(String),
    /// The file does not follow its format's syntax; the text is the parser's message.
    #[error("{0}")]
    Syntax(String),
    /// The file ends before the data its header or structure promises.
    #[error("truncated file: {0}")]
    Truncated(String),
    /// A header declares more items than the bytes of the file could possibly hold. Reported
    /// before anything is allocated for them.
    #[error("the header declares {declared} {what}, but the file can hold at most {fits}")]
    CountTooLarge {
        /// What is counted ("vertex elements", "triangles", ...).
        what: String,
        /// The declared count.
        declared: u64,
        /// An upper bound of how many fit in the bytes that follow.
        fits: u64,
    },
    /// A face or primitive refers to a vertex that does not exist.
    #[error("{context} refers to vertex {index}, but only {vertex_count} vertices exist")]
    IndexOutOfRange {
        /// Where: `mesh "name", triangle 3` or `a face`.
        context: String,
        /// The offending index as written in the file.
        index: i64,
        /// How many vertices exist.
        vertex_count: usize,
    },
    /// A position coordinate is NaN or infinite.
    #[error("{mesh}: vertex {vertex} has a non-finite coordinate ({x}, {y}, {z})")]
    NonFinite {
        /// The mesh's name.
        mesh: String,
        /// The vertex index within its mesh.
        vertex: usize,
        /// The coordinates as read.
        x: f32,
        /// The coordinates as read.
        y: f32,
        /// The coordinates as read.
        z: f32,
    },
    /// The glTF node hierarchy loops back on itself.
    #[error("the node hierarchy has a cycle through node {node}")]
    NodeCycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A glTF node is the child of several nodes (glTF requires a strict tree).
    #[error("node {node} has more than one parent")]
    SharedNode {
        /// The node with several parents.
        node: usize,
    },
    /// A glTF node's transform is not finite or not invertible.
    #[error("node {node} has a non-finite or singular transform")]
    BadTransform {
        /// The node.
        node: usize,
    },
    /// A glTF buffer's data is missing (no BIN chunk, no such file, or an external file in an
    /// in-memory load).
    #[error("buffer {buffer} is missing: {reason}")]
    MissingBuffer {
        /// The buffer index.
        buffer: usize,
        /// Why it could not be found.
        reason: String,
    },
    /// Valid in the format but not supported by raypick (sparse glTF accessors, compressed
    /// meshes, ...).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// More vertices or triangles than a `u32` index can address.
    #[error("too large: {0}")]
    TooLarge(String),
    /// A saved mesh or scene (`.rpk`) failed its checks: corrupted, truncated, from another
    /// version, or not a saved file at all.
    #[error("not a valid saved mesh or scene: {0}")]
    Saved(#[from] raypick_query::persist::LoadError),
    /// Building the mesh or scene from the loaded data failed.
    #[error("cannot build the mesh or scene: {0}")]
    Build(String),
    /// A parser panicked (a bug in the parser, caught so the caller gets an error instead).
    #[error("internal error: {0}")]
    Internal(String),
}
