//! The crate's error type.

/// Everything that can go wrong on user input in `ssm-universality`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input sequence (or another required collection) is empty.
    #[error("{what} is empty")]
    EmptySequence {
        /// What was empty.
        what: &'static str,
    },
    /// A shape does not match what the model or another argument implies.
    #[error("{what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// What was measured.
        what: &'static str,
        /// The size required.
        expected: usize,
        /// The size given.
        got: usize,
    },
    /// The LRU ring needs `0 ≤ r_min ≤ r_max ≤ 1` (finite).
    #[error("invalid ring: r_min = {r_min}, r_max = {r_max} (need 0 <= r_min <= r_max <= 1)")]
    InvalidRing {
        /// The `r_min` given.
        r_min: f64,
        /// The `r_max` given.
        r_max: f64,
    },
    /// An eigenvalue outside the closed unit disk in stable mode (or any
    /// `|λ| > 1` with the normalisation `γ = √(1 − |λ|²)`, which is then not real).
    #[error("eigenvalue {i} has modulus {modulus} > 1 (unstable recurrence)")]
    UnstableEigenvalue {
        /// Index of the eigenvalue.
        i: usize,
        /// Its modulus `|λᵢ|`.
        modulus: f64,
    },
    /// Two equal eigenvalues reading the same channel: the Vandermonde
    /// matrix loses rank and the encoding is not injective.
    #[error("eigenvalues {i} and {j} coincide: the encoding is not injective")]
    DuplicateEigenvalues {
        /// First index.
        i: usize,
        /// Second index.
        j: usize,
    },
    /// Fewer independent state coordinates than unknowns: the input cannot
    /// be recovered exactly (use the compressed mode to see which lags can).
    #[error("underdetermined: rank {states} of the state map < {needed} unknowns")]
    Underdetermined {
        /// Numerical rank of the state map (or the number of states).
        states: usize,
        /// Unknowns to recover (`k·M`).
        needed: usize,
    },
    /// A NaN or an infinity in user input.
    #[error("{what} contains a NaN or an infinite value")]
    NonFinite {
        /// The offending argument.
        what: &'static str,
    },
    /// The relative singular-value cut-off must be finite and in (0, 1).
    #[error("rcond = {rcond} is invalid: expected a finite value in (0, 1)")]
    InvalidRcond {
        /// The value given.
        rcond: f64,
    },
    /// A width (number of random features, hidden units) of zero.
    #[error("{what} must be at least 1")]
    ZeroWidth {
        /// Which width.
        what: &'static str,
    },
    /// The ridge penalty must be finite and `≥ 0`.
    #[error("ridge = {ridge} is invalid: expected a finite value >= 0")]
    NegativeRidge {
        /// The value given.
        ridge: f64,
    },
    /// Any other hyper-parameter out of its range.
    #[error("parameter {name} = {value} is out of range: {expected}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The accepted range, in words.
        expected: &'static str,
    },
    /// An index (lag, step, column) outside its range.
    #[error("{what} = {index} is out of range 0..{len}")]
    IndexOutOfRange {
        /// What was indexed.
        what: &'static str,
        /// The index given.
        index: usize,
        /// The exclusive upper bound.
        len: usize,
    },
    /// Malformed `.ts` or CSV text, with the 1-based line number.
    #[error("line {line}: {reason}")]
    Parse {
        /// 1-based line number in the input text.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// The training loss of [`crate::readout::trained::TrainedMlp`] became
    /// NaN or infinite (feature `candle`; `nncore`'s `NonFiniteLoss`): the
    /// learning rate is too large for the data. The parameters are those
    /// before the failing step.
    #[cfg(feature = "candle")]
    #[error("the training loss is {loss} at optimiser step {step} (epoch {epoch})")]
    NonFiniteLoss {
        /// The 0-based optimiser step whose loss was not finite.
        step: usize,
        /// The 0-based epoch.
        epoch: usize,
        /// The loss value.
        loss: f64,
    },
    /// Any other error of the training backend (feature `candle`): an
    /// invalid training configuration, a non-finite gradient or a candle
    /// error, with `nncore`'s message (kept as text so that this error type
    /// stays `Clone + PartialEq`).
    #[cfg(feature = "candle")]
    #[error("training: {reason}")]
    Training {
        /// `nncore`'s message.
        reason: String,
    },
    /// An error from the shared core (linear algebra, allocation limits, data).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
