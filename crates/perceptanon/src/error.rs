//! The crate's typed errors.

use thiserror::Error;

/// Everything that can go wrong in `perceptanon`; each variant names the
/// offending value.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// Two inputs that must have the same size do not.
    #[error("size mismatch in {what}: expected {expected}, found {found}")]
    SizeMismatch {
        /// Which inputs.
        what: &'static str,
        /// The size required.
        expected: String,
        /// The size given.
        found: String,
    },
    /// A human score outside the 1..=10 scale.
    #[error("score {value} at index {index} is outside the scale [1, 10]")]
    ScoreOutOfRange {
        /// The score.
        value: f64,
        /// Its position in the input.
        index: usize,
    },
    /// A correlation is undefined because one input is constant.
    #[error("correlation undefined: {what} is constant")]
    ConstantInput {
        /// Which input.
        what: &'static str,
    },
    /// An empty input (or one too short for the statistic).
    #[error("empty input: {what}")]
    EmptyInput {
        /// Which input, and the minimum length where it is more than one.
        what: &'static str,
    },
    /// A NaN or infinite value.
    #[error("non-finite value in {what} at index {index}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Flat (row-major) index of the first bad value.
        index: usize,
    },
    /// An SSIM window that is even, too small, or larger than the image.
    #[error("bad SSIM window {win}: {reason}")]
    BadWindow {
        /// The window side.
        win: usize,
        /// Why it is rejected.
        reason: String,
    },
    /// An anonymisation strength outside its stated range.
    #[error("strength {value} of {method} is outside {range}")]
    StrengthOutOfRange {
        /// The anonymiser.
        method: &'static str,
        /// The strength given.
        value: f64,
        /// The allowed range, in words.
        range: &'static str,
    },
    /// A region that is empty or not inside the image.
    #[error(
        "region (top {top}, left {left}, {height}×{width}) is not inside the {image_height}×{image_width} image"
    )]
    RegionOutside {
        /// First row.
        top: usize,
        /// First column.
        left: usize,
        /// Rows.
        height: usize,
        /// Columns.
        width: usize,
        /// Image rows.
        image_height: usize,
        /// Image columns.
        image_width: usize,
    },
    /// A hyper-parameter out of range.
    #[error("parameter {name} = {value} out of range: expected {expected}")]
    InvalidParameter {
        /// Its name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What is accepted.
        expected: &'static str,
    },
    /// A malformed CSV file (1-based line).
    #[error("malformed CSV {file}, line {line}: {reason}")]
    Csv {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A file that does not exist or cannot be read.
    #[error("cannot read {path}: {reason}")]
    MissingFile {
        /// The path.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// An image file that cannot be decoded.
    #[error("cannot decode image {path}: {reason}")]
    Decode {
        /// The path given by the caller.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A request whose allocation would exceed `mlcore::check::MAX_ALLOC_BYTES`.
    #[error("too large: {what}")]
    TooLarge {
        /// What was requested.
        what: String,
    },
    /// A linear system (biharmonic inpainting) that is singular.
    #[error("singular system in {what}")]
    Singular {
        /// Which system.
        what: &'static str,
    },
    /// An error from `mlcore`.
    #[error(transparent)]
    Mlcore(#[from] mlcore::Error),
    /// An error from `nncore` (training).
    #[error(transparent)]
    Nncore(#[from] nncore::Error),
    /// An error from candle.
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
}

/// `Result` with this crate's [`enum@Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// `Error::NonFinite` for the first non-finite value of `values`, if any.
pub(crate) fn check_finite<'a>(
    values: impl IntoIterator<Item = &'a f64>,
    what: &'static str,
) -> Result<()> {
    match values.into_iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// `len` after checking that `dims` multiply to at most
/// `mlcore::check::MAX_ALLOC_BYTES` bytes of `elem_bytes`.
pub(crate) fn alloc_len(dims: &[usize], elem_bytes: usize, what: &'static str) -> Result<usize> {
    mlcore::check::alloc_len(dims, elem_bytes, what).map_err(|e| Error::TooLarge {
        what: e.to_string(),
    })
}
