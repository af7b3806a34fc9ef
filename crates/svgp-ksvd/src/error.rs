//! The error type of every `svgp-ksvd` entry point.

/// Everything that can go wrong on user input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The rank `s` exceeds what the data can carry: `s > min(N, p)` for a
    /// kernel SVD of `N` tokens with `p`-dimensional features, or
    /// `rank_multi·s` landmark tokens out of fewer tokens.
    #[error("rank {s} is too large: at most {max}")]
    RankTooLarge {
        /// The requested rank (or landmark count).
        s: usize,
        /// The largest admissible value.
        max: usize,
    },
    /// A singular value `λ_index` that is zero, negative or not finite: the
    /// prior `N(0, Λ²)` needs `Λ` positive definite.
    #[error("singular value {index} is {value}, not a finite positive number")]
    NonPositiveSingularValue {
        /// The 0-based position in `Λ`.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// An argument has the wrong shape.
    #[error("{what} has shape {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument.
        what: &'static str,
        /// The expected shape, e.g. `[16, 8]`.
        expected: String,
        /// The given shape.
        got: String,
    },
    /// A Cholesky factor `L_d` with a non-zero entry above the diagonal or
    /// a diagonal entry that is not positive.
    #[error(
        "{what}[{factor}] is not lower triangular with a positive diagonal (entry ({row}, {col}))"
    )]
    NotLowerTriangular {
        /// The argument.
        what: &'static str,
        /// The output dimension `d` of the offending factor.
        factor: usize,
        /// Row of the offending entry.
        row: usize,
        /// Column of the offending entry.
        col: usize,
    },
    /// An input with no element where at least one is needed.
    #[error("{what} is empty")]
    EmptyInput {
        /// The empty argument.
        what: &'static str,
    },
    /// An input with a NaN or an infinity.
    #[error("{what} contains a non-finite value at flat index {index}")]
    NonFinite {
        /// The argument.
        what: &'static str,
        /// Row-major position of the first offending entry.
        index: usize,
    },
    /// A scalar hyper-parameter out of range (negative `η_ksvd` or `η_kl`,
    /// zero samples, a noise variance ≤ 0, …).
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The given value.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A size product that overflows or exceeds the allocation cap.
    #[error("{what} is too large to allocate")]
    TooLarge {
        /// What would have been allocated.
        what: &'static str,
    },
    /// An error of the shared numerical core (SVD, Cholesky).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
    /// An error of the shared neural core (training loop, metrics).
    #[error(transparent)]
    Nn(#[from] nncore::Error),
    /// An error of candle (tensor shapes, autodiff).
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The first non-finite entry of `values`, as [`Error::NonFinite`].
pub(crate) fn finite<'a>(
    values: impl IntoIterator<Item = &'a f64>,
    what: &'static str,
) -> Result<()> {
    match values.into_iter().position(|v| !v.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// A shape mismatch between `got` and `expected` (as `[a, b]`).
pub(crate) fn shape(what: &'static str, expected: &[usize], got: &[usize]) -> Error {
    Error::ShapeMismatch {
        what,
        expected: format!("{expected:?}"),
        got: format!("{got:?}"),
    }
}

/// Checks `len = Π dims` against the allocation cap (8-byte elements).
pub(crate) fn alloc(dims: &[usize], what: &'static str) -> Result<usize> {
    mlcore::check::alloc_len(dims, 8, what).map_err(|_| Error::TooLarge { what })
}

/// Checks a non-negative finite weight such as `η_ksvd`, `η_kl`.
pub(crate) fn non_negative(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected: "a finite value ≥ 0",
        })
    }
}
