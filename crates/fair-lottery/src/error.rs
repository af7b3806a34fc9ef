//! The crate's error type.

/// Everything that can go wrong on user input in `fair-lottery`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An input that needs at least one unit is empty.
    #[error("{what} is empty")]
    EmptyInput {
        /// The empty input.
        what: &'static str,
    },
    /// A claim is negative.
    #[error("claim {value} at index {i} is negative")]
    NegativeClaim {
        /// Index of the first offending claim.
        i: usize,
        /// The claim.
        value: f64,
    },
    /// A claim (or another per-unit value) is NaN or infinite.
    #[error("{what} at index {i} is not finite ({value})")]
    NonFinite {
        /// Which input (`"claims"`, `"pi"`, `"labels"`, ...).
        what: &'static str,
        /// Index of the first offending value.
        i: usize,
        /// The value.
        value: f64,
    },
    /// The number of goods `k` must satisfy `1 ≤ k ≤ n`.
    #[error("k = {k} is invalid for n = {n} units: expected 1 <= k <= n")]
    InvalidK {
        /// The `k` given (or implied by Σπ).
        k: usize,
        /// The number of units.
        n: usize,
    },
    /// Proportional allocation needs at least `k` units with a positive claim.
    #[error("only {positive} units have a positive claim, fewer than k = {k}")]
    TooFewPositiveClaims {
        /// Units with a claim > 0.
        positive: usize,
        /// Slots to fill.
        k: usize,
    },
    /// An inclusion probability lies outside `[0, 1]`.
    #[error("inclusion probability {value} at index {i} is outside [0, 1]")]
    ProbOutOfRange {
        /// Index of the first offending probability.
        i: usize,
        /// The probability.
        value: f64,
    },
    /// Inclusion probabilities of a fixed-size design must sum to an integer `k`.
    #[error("inclusion probabilities sum to {sum}, which is not an integer (tolerance {tol:e})")]
    NonIntegerSum {
        /// `Σ πᵢ`.
        sum: f64,
        /// The tolerance used.
        tol: f64,
    },
    /// A partial-lottery parameter is out of range, or its pool cannot fill its slots.
    #[error("invalid partial lottery (parameter {p}): {reason}")]
    InvalidPartial {
        /// The parameter (`p` of the partial BF lottery, or the randomised fraction).
        p: f64,
        /// What is wrong, in words.
        reason: String,
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
    /// Two inputs that must have the same length do not.
    #[error("{what} has length {got}, expected {expected}")]
    LengthMismatch {
        /// The argument with the wrong length.
        what: &'static str,
        /// The length expected.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// An exact enumeration was asked for a problem too large to enumerate.
    #[error("exact enumeration is limited to n <= {max}, got n = {n}")]
    TooLargeForExact {
        /// Number of units.
        n: usize,
        /// The largest `n` the routine enumerates.
        max: usize,
    },
    /// Sampford's rejective sampler would need too many trials per draw.
    #[error(
        "Sampford rejection would need {expected_trials:.3e} trials per draw on average \
         (limit {limit:.3e}); use ConditionalPoisson or Pipage instead"
    )]
    SampfordTooSlow {
        /// Expected number of trials per accepted draw, `1 / P(accept)`.
        expected_trials: f64,
        /// The configured limit.
        limit: f64,
    },
    /// An iteration stopped at its cap before reaching its tolerance.
    #[error("{algorithm} did not converge in {iterations} iterations (residual {residual:e})")]
    NotConverged {
        /// The iteration.
        algorithm: &'static str,
        /// Iterations run.
        iterations: usize,
        /// The last residual (its meaning is documented at the routine).
        residual: f64,
    },
    /// An error from the shared core.
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
// The shared checks (mlcore::check) fail with mlcore's error: an out of
// range parameter comes back as this crate's InvalidParameter (same fields,
// naming it), so a caller matches one variant whichever layer checked;
// everything else is Error::Core.
mlcore::impl_from_core_error!(Error);

/// Fails with [`Error::LengthMismatch`] unless `got == expected`.
pub(crate) fn check_len(got: usize, expected: usize, what: &'static str) -> Result<()> {
    if got != expected {
        return Err(Error::LengthMismatch {
            what,
            expected,
            got,
        });
    }
    Ok(())
}

/// Fails with [`Error::EmptyInput`] or [`Error::NonFinite`] (index and value
/// of the first offending entry).
pub(crate) fn check_finite(v: &[f64], what: &'static str) -> Result<()> {
    if v.is_empty() {
        return Err(Error::EmptyInput { what });
    }
    match mlcore::check::finite_values(v, what) {
        Err(mlcore::Error::NonFinite { index, .. }) => Err(Error::NonFinite {
            what,
            i: index,
            value: v[index],
        }),
        r => Ok(r?),
    }
}
