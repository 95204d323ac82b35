//! The error type of the fallible (`try_`) constructors.

use std::fmt;

/// Why a `try_` constructor refused its input. The message names the offending element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// A normal vector was zero (or so small that normalizing it failed).
    ZeroNormal,
    /// The named input (for example `"point b"`, `"normal"`) held a NaN or an infinity.
    NonFinite(&'static str),
    /// The three points given for a plane were collinear or coincident.
    CollinearPoints,
    /// The matrix given for a frustum held a NaN or an infinity (`row`, `column`).
    NonFiniteMatrix {
        /// Row of the first bad entry.
        row: usize,
        /// Column of the first bad entry.
        column: usize,
    },
    /// The matrix given for a frustum was singular (zero determinant).
    SingularMatrix,
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroNormal => write!(f, "the plane normal is zero"),
            Self::NonFinite(what) => write!(f, "{what} is not finite (NaN or infinity)"),
            Self::CollinearPoints => {
                write!(
                    f,
                    "the three plane points a, b, c are collinear or coincide"
                )
            }
            Self::NonFiniteMatrix { row, column } => write!(
                f,
                "view-projection matrix entry ({row}, {column}) is not finite"
            ),
            Self::SingularMatrix => write!(f, "the view-projection matrix is singular"),
        }
    }
}

impl std::error::Error for GeometryError {}
