//! The crate's error type.

/// Everything that can go wrong on user input in `conformal-sets`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The miscoverage level α must lie in (0, 1).
    #[error("alpha = {alpha} is outside (0, 1)")]
    AlphaOutOfRange {
        /// The α given.
        alpha: f64,
    },
    /// Too few calibration points for level α: the rank `⌈(n+1)(1−α)⌉` exceeds `n`.
    #[error("{n} calibration points are too few for alpha = {alpha}: at least {min_n} are needed")]
    TooFewCalibration {
        /// Calibration points given.
        n: usize,
        /// The α asked for.
        alpha: f64,
        /// The smallest `n` that works at this α.
        min_n: usize,
    },
    /// A row of the probability matrix is not a probability vector
    /// (a negative or non-finite entry, or a sum more than 1e-6 away from 1).
    #[error("row {row} is not a probability vector (sum {sum})")]
    NotAProbability {
        /// Index of the offending row.
        row: usize,
        /// Its sum.
        sum: f64,
    },
    /// A label is not one of the `classes` columns.
    #[error("label {label} at position {index} is out of range for {classes} classes")]
    LabelOutOfRange {
        /// Position of the label.
        index: usize,
        /// The label.
        label: usize,
        /// Number of classes.
        classes: usize,
    },
    /// Two inputs that must agree in size do not.
    #[error("{what}: expected {expected}, got {got}")]
    ShapeMismatch {
        /// What disagrees.
        what: &'static str,
        /// The size expected.
        expected: usize,
        /// The size given.
        got: usize,
    },
    /// A set size `k` outside `1..=K`.
    #[error("k = {k} is invalid for {classes} classes")]
    InvalidK {
        /// The `k` given.
        k: usize,
        /// Number of classes `K`.
        classes: usize,
    },
    /// A softmax temperature must be positive and finite.
    #[error("temperature {temperature} is not positive and finite")]
    NonPositiveTemperature {
        /// The temperature given.
        temperature: f64,
    },
    /// The RAPS penalty λ must be non-negative and finite.
    #[error("lambda = {lambda} is negative or not finite")]
    NegativeLambda {
        /// The λ given.
        lambda: f64,
    },
    /// An input that needs at least one element is empty.
    #[error("{what} is empty")]
    EmptyInput {
        /// The empty input.
        what: &'static str,
    },
    /// An input holds NaN or an infinity.
    #[error("{what} has a non-finite value at index {index}")]
    NonFinite {
        /// The input.
        what: &'static str,
        /// Position of the first offending value.
        index: usize,
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
    /// A results file could not be read or parsed.
    #[error("{path}: {message}")]
    Data {
        /// The file.
        path: String,
        /// What is wrong (with the line number where there is one).
        message: String,
    },
    /// A sample has fewer observations than the statistic needs (for example
    /// one observation, where a sample variance needs two).
    #[error("{what} has {n} observations; at least {min} are needed")]
    TooFewObservations {
        /// The sample.
        what: &'static str,
        /// Observations given.
        n: usize,
        /// Observations needed.
        min: usize,
    },
    /// No participant of a trial's results belongs to the arm asked for.
    #[error("no participant is in arm {arm:?} (arms present: {available})")]
    UnknownArm {
        /// The arm asked for.
        arm: String,
        /// The arms present, comma-separated.
        available: String,
    },
    /// An error from the shared core.
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter, NonFinite, and Empty as
// EmptyInput) come back as this crate's own, so a caller matches one variant
// whichever layer checked; everything else is Error::Core.
mlcore::impl_from_core_error!(
    Error,
    NonFinite { what, index },
    Empty => EmptyInput { what },
);
