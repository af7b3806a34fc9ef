//! The crate's error type.

/// Everything that can go wrong on user input in `matrix-completion`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The depth `L` of a factorisation must be at least 1.
    #[error("depth L = {depth} is invalid: expected L >= 1")]
    InvalidDepth {
        /// The depth given.
        depth: usize,
    },
    /// The inner width `k` of a factorisation must be at least 1.
    #[error("width k = {width} is invalid: expected k >= 1")]
    InvalidWidth {
        /// The width given.
        width: usize,
    },
    /// The regularisation strength `λ` must be finite and `λ ≥ 0`.
    #[error("lambda = {lambda} is invalid: expected a finite lambda >= 0")]
    InvalidLambda {
        /// The `λ` given.
        lambda: f64,
    },
    /// The learning rate must be finite and positive.
    #[error("learning rate {lr} is invalid: expected a finite lr > 0")]
    InvalidLearningRate {
        /// The learning rate given.
        lr: f64,
    },
    /// The Schatten exponent `p` must be finite and positive.
    #[error("Schatten exponent p = {p} is invalid: expected a finite p > 0")]
    InvalidSchattenP {
        /// The `p` given.
        p: f64,
    },
    /// An observation lies outside the `rows × cols` matrix.
    #[error("entry ({row}, {col}) is outside the {rows} x {cols} matrix")]
    IndexOutOfBounds {
        /// Row index given.
        row: usize,
        /// Column index given.
        col: usize,
        /// Number of rows.
        rows: usize,
        /// Number of columns.
        cols: usize,
    },
    /// An observation set (or a matrix dimension) is empty.
    #[error("{what} is empty")]
    EmptyObservations {
        /// What is empty.
        what: &'static str,
    },
    /// A value is NaN or infinite.
    #[error("{what} has a non-finite value at index {index}")]
    NonFiniteValue {
        /// The input holding it.
        what: &'static str,
        /// Position of the first offending value (entry number, or flat row-major index).
        index: usize,
    },
    /// The same `(row, col)` was observed twice and averaging was not requested.
    #[error("entry ({row}, {col}) is observed more than once (use Duplicates::Average to average)")]
    DuplicateEntry {
        /// Row of the duplicate.
        row: usize,
        /// Column of the duplicate.
        col: usize,
    },
    /// The marginal smoothing `ζ` must lie in `[0, 1]`.
    #[error("smoothing zeta = {zeta} is outside [0, 1]")]
    InvalidSmoothing {
        /// The `ζ` given.
        zeta: f64,
    },
    /// A link function's parameters are invalid.
    #[error("invalid link: {reason}")]
    InvalidLink {
        /// What is wrong, in words.
        reason: String,
    },
    /// Training diverged: the objective became non-finite or exploded.
    #[error("training diverged at epoch {epoch} (objective {loss})")]
    Diverged {
        /// The epoch (0-based) at which it was detected.
        epoch: usize,
        /// The objective value seen.
        loss: f64,
    },
    /// Another scalar parameter is out of range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// Shapes disagree (factors that do not chain, weights of the wrong length).
    #[error("{what} has shape {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument with the wrong shape.
        what: &'static str,
        /// The shape expected.
        expected: String,
        /// The shape given.
        got: String,
    },
    /// Reading a file failed.
    #[error("I/O error on {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// A line of a ratings file could not be parsed.
    #[error("parse error at line {line}: {message}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// An input size whose memory would overflow `usize` or exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`]: checked (`checked_mul`) before
    /// allocating, instead of a capacity-overflow panic or an abort.
    #[error("{what} is too large: {size}")]
    TooLarge {
        /// What would be allocated.
        what: &'static str,
        /// Its size, in words.
        size: String,
    },
    /// An error from the shared core (SVD, sampling).
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn check_lambda(lambda: f64) -> Result<()> {
    if lambda.is_finite() && lambda >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidLambda { lambda })
    }
}

pub(crate) fn check_p(p: f64) -> Result<()> {
    if p.is_finite() && p > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidSchattenP { p })
    }
}

pub(crate) fn check_finite_matrix(
    a: &ndarray::ArrayView2<'_, f64>,
    what: &'static str,
) -> Result<()> {
    Ok(mlcore::check::data(a, what)?)
}

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter; NonFinite and Empty under this
// crate's names) come back as this crate's own, so a caller matches one
// variant whichever layer checked; everything else is Error::Core.
mlcore::impl_from_core_error!(
    Error,
    NonFinite => NonFiniteValue { what, index },
    TooLarge { what, size },
    Empty => EmptyObservations { what },
);

/// Checks that an array of `dims` `f64`s fits (see [`Error::TooLarge`]).
pub(crate) fn check_alloc(dims: &[usize], what: &'static str) -> Result<usize> {
    Ok(mlcore::check::alloc_len(
        dims,
        std::mem::size_of::<f64>(),
        what,
    )?)
}

/// `max |x|` over finite values (0 for none): the scale divided out before
/// squaring or summing extreme values, so that intermediate results stay
/// finite.
pub(crate) fn max_abs<'a>(x: impl IntoIterator<Item = &'a f64>) -> f64 {
    x.into_iter().fold(0.0, |m, v| m.max(v.abs()))
}
