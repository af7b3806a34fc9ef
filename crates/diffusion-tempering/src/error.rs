//! The crate's error type.

/// Everything that can go wrong on user input in `diffusion-tempering`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The observation noise variance σ² must be finite and positive.
    #[error("noise variance sigma^2 = {0} is invalid: expected a finite value > 0")]
    InvalidNoiseVariance(f64),
    /// The diffusion κ² must be finite and positive.
    #[error("diffusion kappa^2 = {0} is invalid: expected a finite value > 0")]
    InvalidDiffusion(f64),
    /// The order q of the integrated Wiener process prior is out of range.
    #[error("prior order q = {q} is invalid: expected 1 <= q <= {max}")]
    InvalidOrder {
        /// The order given.
        q: usize,
        /// The largest order supported where it was used.
        max: usize,
    },
    /// Times must be finite and strictly increasing.
    #[error("times are not strictly increasing (or not finite) at index {index}")]
    NonMonotoneTimes {
        /// First index `i` with `t[i] <= t[i-1]` or a non-finite `t[i]`.
        index: usize,
    },
    /// A data time does not coincide with a point of the solver grid.
    #[error("data time t = {t} is not a point of the solver grid")]
    TimeNotOnGrid {
        /// The data time.
        t: f64,
    },
    /// Two sizes that must agree do not.
    #[error("{what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// What has the wrong size.
        what: &'static str,
        /// The size expected.
        expected: usize,
        /// The size given.
        got: usize,
    },
    /// The ODE right-hand side (or the solution) became NaN or infinite.
    #[error("the ODE right-hand side returned a non-finite value at step {step} (t = {t})")]
    NonFinite {
        /// Grid step (index of the grid point being computed).
        step: usize,
        /// Time of that grid point.
        t: f64,
    },
    /// A square-root factor lost rank where it must be invertible (only
    /// possible with degenerate input, e.g. a zero observation matrix).
    #[error("a covariance factor is singular at step {step}")]
    NotPositiveDefinite {
        /// Grid step.
        step: usize,
    },
    /// A parameter lies outside its box `[lo, hi]`, or the box is empty.
    #[error("parameter {index} = {value} is outside its bounds [{lo}, {hi}]")]
    ParamOutOfBounds {
        /// Index of the parameter.
        index: usize,
        /// Its value.
        value: f64,
        /// Lower bound.
        lo: f64,
        /// Upper bound.
        hi: f64,
    },
    /// There are no observations.
    #[error("the data set is empty")]
    EmptyData,
    /// A data value, parameter or setting is NaN or infinite.
    #[error("{what} holds a non-finite value at index {index}")]
    NonFiniteInput {
        /// The argument.
        what: &'static str,
        /// Position of the first offending value.
        index: usize,
    },
    /// Another scalar setting is out of range.
    #[error("{name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The setting's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// The optimiser failed for a reason other than the loss itself.
    #[error("optimiser failed: {0}")]
    Optimizer(String),
    /// An error from the shared core.
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter; the core's NonFinite, an
// input's entry, as NonFiniteInput) come back as this crate's own, so a
// caller matches one variant whichever layer checked; everything else is
// Error::Core.
mlcore::impl_from_core_error!(Error, NonFinite => NonFiniteInput { what, index });
