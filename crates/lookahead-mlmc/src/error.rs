//! The crate's error type.

/// Everything that can go wrong on user input in `lookahead-mlmc`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The target RMSE `ε` must be finite and `ε > 0`.
    #[error("tolerance epsilon = {epsilon} is invalid: expected a finite epsilon > 0")]
    InvalidTolerance {
        /// The `ε` given.
        epsilon: f64,
    },
    /// A rate or constant of the MLMC model (α, β, γ, c_α, c_v, v₀) must be finite and > 0.
    #[error("rate {name} = {value} is invalid: expected a finite value > 0")]
    InvalidRate {
        /// `"alpha"`, `"beta"`, `"gamma"`, `"c_bias"`, `"c_var"` or `"var0"`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A level needs more than `2^max` inner samples.
    #[error("level {level} is too deep: at most {max} (2^{max} inner samples)")]
    LevelTooDeep {
        /// The level asked for.
        level: u32,
        /// The deepest level allowed ([`crate::mlmc::MAX_LEVEL`]).
        max: u32,
    },
    /// A box `[lower, upper]` must have finite `lower < upper` in every coordinate.
    #[error("bounds in dimension {dim} are invalid: lower = {lower}, upper = {upper}")]
    InvalidBounds {
        /// The offending coordinate.
        dim: usize,
        /// Its lower bound.
        lower: f64,
        /// Its upper bound.
        upper: f64,
    },
    /// A batch size (`q`, `q₂`, a number of samples or restarts) must be ≥ 1.
    #[error("{what} = 0 is invalid: expected at least 1")]
    InvalidBatchSize {
        /// The quantity that was zero.
        what: &'static str,
    },
    /// A kernel matrix is singular (for example duplicate inputs with zero noise).
    #[error("the kernel matrix of {what} is not positive definite")]
    NotPositiveDefinite {
        /// The matrix.
        what: &'static str,
    },
    /// A vector or matrix has the wrong size.
    #[error("{what} has size {got}, expected {expected}")]
    DimensionMismatch {
        /// The argument with the wrong size.
        what: &'static str,
        /// The size expected.
        expected: usize,
        /// The size given.
        got: usize,
    },
    /// A GP needs at least one training point.
    #[error("the training set is empty")]
    EmptyTrainingSet,
    /// An input holds NaN or an infinity.
    #[error("{what} holds a non-finite value")]
    NonFinite {
        /// The argument.
        what: &'static str,
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
    /// An error from the shared core.
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn check_finite(what: &'static str, v: &[f64]) -> Result<()> {
    Ok(mlcore::check::finite_values(v, what)?)
}

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter, and NonFinite without the
// index) come back as this crate's own, so a caller matches one variant
// whichever layer checked; everything else is Error::Core.
mlcore::impl_from_core_error!(Error, NonFinite { what });
