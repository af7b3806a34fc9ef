//! The crate's error type: every public function that takes user data returns
//! [`Result`], never panics on bad input.

use thiserror::Error;

/// What can go wrong in `vint-pose`.
#[derive(Debug, Error)]
pub enum Error {
    /// A point cloud, mesh, error list or other collection is empty.
    #[error("{what} is empty")]
    EmptyCloud {
        /// What was empty.
        what: &'static str,
    },
    /// A value is NaN or infinite.
    #[error("{what} has a non-finite value at index {index}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Flat index of the first offending value.
        index: usize,
    },
    /// A 3×3 matrix is not a rotation: `det` is its determinant and
    /// `orth_err = ‖RᵀR − I‖_F`.
    #[error("not a rotation: det = {det}, ‖RᵀR − I‖_F = {orth_err}")]
    NotARotation {
        /// The determinant.
        det: f64,
        /// The orthogonality error ‖RᵀR − I‖_F.
        orth_err: f64,
    },
    /// A quaternion whose norm is not 1 (within [`crate::se3::UNIT_TOL`]).
    #[error("not a unit quaternion: norm = {norm}")]
    NotAUnitQuaternion {
        /// Its Euclidean norm.
        norm: f64,
    },
    /// A 4×4 homogeneous matrix whose last row is not `[0 0 0 1]`.
    #[error("not a homogeneous transform: last row is {row:?}")]
    NotHomogeneous {
        /// The last row.
        row: [f64; 4],
    },
    /// Two inputs that must have the same length (or shape) do not.
    #[error("{what}: length {got}, expected {expected}")]
    LengthMismatch {
        /// Which input.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length it must have.
        expected: usize,
    },
    /// An array has the wrong shape (e.g. not `n × 3`).
    #[error("{what}: shape {got:?}, expected {expected}")]
    BadShape {
        /// Which input.
        what: &'static str,
        /// Its shape.
        got: Vec<usize>,
        /// The expected shape, in words.
        expected: &'static str,
    },
    /// Fewer than 3 correspondences, collinear points, or zero total weight.
    #[error("degenerate correspondences: {reason}")]
    DegenerateCorrespondences {
        /// Why.
        reason: String,
    },
    /// Camera intrinsics that cannot project (non-positive focal length, …).
    #[error("bad intrinsics: {reason}")]
    BadIntrinsics {
        /// Why.
        reason: String,
    },
    /// A threshold outside its range (e.g. AUC's maximum ≤ 0).
    #[error("bad threshold {name} = {value}: {reason}")]
    BadThreshold {
        /// Its name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must be in.
        reason: &'static str,
    },
    /// Any other hyper-parameter out of range.
    #[error("bad parameter {name} = {value}: {reason}")]
    BadParameter {
        /// Its name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// The range it must be in.
        reason: &'static str,
    },
    /// An index out of range (a face's vertex, a taxel's link, a frame).
    #[error("{what}: index {index} out of range (len {len})")]
    IndexOutOfRange {
        /// Which index.
        what: &'static str,
        /// The index.
        index: usize,
        /// The length indexed into.
        len: usize,
    },
    /// A typed frame chain lacks the transform `to ← from`.
    #[error("frame chain has no transform {to} ← {from}")]
    MissingLink {
        /// The target frame.
        to: &'static str,
        /// The source frame.
        from: &'static str,
    },
    /// An MJCF (or other named) body, joint, site or class that does not exist.
    #[error("no {kind} named {name:?}")]
    UnknownName {
        /// `"body"`, `"joint"`, `"site"`, `"class"`, `"object"`, …
        kind: &'static str,
        /// The name asked for.
        name: String,
    },
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating-system error.
        #[source]
        source: std::io::Error,
    },
    /// A file's content does not follow its format.
    #[error("{file}:{line}: {reason}")]
    Format {
        /// The file (or a name given to an in-memory text).
        file: String,
        /// 1-based line (0 for a binary file or a whole-file problem).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An allocation that would exceed [`mlcore::check::MAX_ALLOC_BYTES`].
    #[error("{what} would need {bytes} bytes, over the limit")]
    TooLarge {
        /// What was to be allocated.
        what: &'static str,
        /// The requested size (saturated).
        bytes: usize,
    },
}

/// `std::result::Result` with this crate's [`enum@Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Checks that `x` is finite.
pub(crate) fn finite(x: f64, what: &'static str) -> Result<()> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFinite { what, index: 0 })
    }
}

/// Checks that `x` is finite and `> 0`.
pub(crate) fn positive(x: f64, name: &'static str) -> Result<()> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(Error::BadParameter {
            name,
            value: x,
            reason: "must be finite and > 0",
        })
    }
}

/// Checks that `n` elements of `elem_bytes` each stay under the allocation limit.
pub(crate) fn alloc(n: usize, elem_bytes: usize, what: &'static str) -> Result<()> {
    match n.checked_mul(elem_bytes) {
        Some(b) if b <= mlcore::check::MAX_ALLOC_BYTES => Ok(()),
        Some(b) => Err(Error::TooLarge { what, bytes: b }),
        None => Err(Error::TooLarge {
            what,
            bytes: usize::MAX,
        }),
    }
}
