//! The crate's error type.

/// Everything that can go wrong on user input in `coreset`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The exponent `p` must be finite and `p ≥ 1`.
    #[error("p = {p} is invalid: expected a finite p >= 1")]
    InvalidP {
        /// The `p` given.
        p: f64,
    },
    /// The accuracy `ε` must lie in (0, 1).
    #[error("epsilon = {epsilon} is outside (0, 1)")]
    InvalidEpsilon {
        /// The `ε` given.
        epsilon: f64,
    },
    /// The failure probability `δ` must lie in (0, 1).
    #[error("delta = {delta} is outside (0, 1)")]
    InvalidDelta {
        /// The `δ` given.
        delta: f64,
    },
    /// `A` and `B` must have the same number of rows.
    #[error("A has {a_rows} rows but B has {b_rows}")]
    DimensionMismatch {
        /// Rows of `A`.
        a_rows: usize,
        /// Rows of `B`.
        b_rows: usize,
    },
    /// Another shape disagreement (for example `X` not `d × m`, or a weight
    /// vector of the wrong length).
    #[error("{what} has shape {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument with the wrong shape.
        what: &'static str,
        /// The shape expected.
        expected: String,
        /// The shape given.
        got: String,
    },
    /// An input that needs at least one row and one column is empty.
    #[error("{what} is empty")]
    EmptyInput {
        /// The empty input.
        what: &'static str,
    },
    /// A matrix holds NaN or an infinity.
    #[error("{matrix} has a non-finite value at row {row}, column {col}")]
    NonFinite {
        /// The matrix (`"A"`, `"B"`, `"X"`).
        matrix: &'static str,
        /// Row of the first offending entry.
        row: usize,
        /// Column of the first offending entry.
        col: usize,
    },
    /// A matrix that must have at least one non-zero entry is zero (rank 0).
    #[error("{what} is the zero matrix (rank 0)")]
    ZeroMatrix {
        /// The zero matrix.
        what: &'static str,
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
    /// Row weights must be finite and non-negative.
    #[error("weight {value} at index {index} is negative or not finite")]
    InvalidWeights {
        /// Position of the first offending weight.
        index: usize,
        /// The weight.
        value: f64,
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
    /// An array whose size the caller sets (rows, directions × scales,
    /// sample sizes) would not fit: its element count overflows `usize` or
    /// exceeds `mlcore::check::MAX_ALLOC_BYTES`. Returned before allocating.
    #[error("{what} is too large: {size}")]
    TooLarge {
        /// The argument that sets the size.
        what: &'static str,
        /// The size asked for, in words.
        size: String,
    },
    /// A value is finite in exact arithmetic on finite inputs but exceeds
    /// `f64::MAX` (for example `F(X) = Σ |rᵢⱼ|ᵖ` with residuals near `1e200`
    /// at `p = 3`); its natural logarithm, computed with every term scaled by
    /// the largest, is given (see [`crate::regression::ln_cost`]).
    #[error("{what} overflows f64: its natural logarithm is {ln_value}")]
    Overflow {
        /// The quantity.
        what: &'static str,
        /// `ln` of the quantity.
        ln_value: f64,
    },
    /// An error from the shared core.
    #[error(transparent)]
    Core(mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter, ShapeMismatch: same fields,
// naming the argument) come back as this crate's own, so a caller matches
// one variant whichever layer checked; everything else is Error::Core.
mlcore::impl_from_core_error!(
    Error,
    ShapeMismatch {
        what,
        expected,
        got
    },
    TooLarge { what, size }
);
