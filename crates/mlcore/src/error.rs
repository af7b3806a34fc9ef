//! The error type shared by every `mlcore` entry point.

/// Everything that can go wrong in `mlcore` on user input.
///
/// Each variant names the offending argument (`what` / `name`) so that a
/// paper crate can wrap it (`#[from] mlcore::Error`) and still tell its user
/// which input was bad.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Cholesky factorisation met a non-positive pivot.
    #[error("{what} is not positive definite (largest diagonal jitter tried: {jitter_tried:e})")]
    NotPositiveDefinite {
        /// The argument that was factorised.
        what: &'static str,
        /// The largest absolute jitter added to the diagonal before giving up
        /// (0 when no retry was asked for).
        jitter_tried: f64,
    },
    /// An argument has the wrong shape.
    #[error("{what} has shape {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument with the wrong shape.
        what: &'static str,
        /// The shape that was expected, in words or as `[rows, cols]`.
        expected: String,
        /// The shape that was given.
        got: String,
    },
    /// An argument contains NaN or an infinity.
    #[error("{what} contains a non-finite value at flat index {index}")]
    NonFinite {
        /// The argument with the non-finite entry.
        what: &'static str,
        /// Position of the first offending entry, in logical (row-major) order.
        index: usize,
    },
    /// An argument is empty where at least one element is needed.
    #[error("{what} is empty")]
    Empty {
        /// The empty argument.
        what: &'static str,
    },
    /// An iterative routine did not converge.
    #[error("{algorithm} did not converge")]
    NoConvergence {
        /// The routine that failed.
        algorithm: &'static str,
    },
    /// A scalar parameter is outside its valid range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value that was given.
        value: f64,
        /// The valid range, in words (for example `"in (0, 1)"`).
        expected: &'static str,
    },
    /// A matrix that must be invertible is exactly singular.
    #[error("{what} is singular")]
    Singular {
        /// The singular argument.
        what: &'static str,
    },
    /// A statistic is undefined because an input has zero variance.
    #[error("{what} has zero variance")]
    ZeroVariance {
        /// The constant argument.
        what: &'static str,
    },
    /// A finite input whose exact result lies outside the `f64` range (for
    /// example a solve `T x = b` with a tiny but normal pivot and a huge `b`):
    /// returned instead of an infinite or NaN output.
    #[error("{what} overflows the f64 range for this (finite) input")]
    Overflow {
        /// The result that overflowed.
        what: &'static str,
    },
    /// A size chosen by the caller (a shape, a number of draws) whose element
    /// count overflows `usize`, or whose memory exceeds
    /// [`check::MAX_ALLOC_BYTES`](crate::check::MAX_ALLOC_BYTES) or cannot be
    /// allocated: returned before allocating, instead of a panic or an abort.
    #[error("{what} is too large: {size}")]
    TooLarge {
        /// The argument that sets the size.
        what: &'static str,
        /// The size asked for, in words (element count and bytes, or the
        /// factors whose product overflows).
        size: String,
    },
    /// A vendored data file is missing, unlisted, corrupted or unreadable.
    #[error("data file {path}: {reason}")]
    Data {
        /// The file (or `SHA256SUMS`) concerned.
        path: String,
        /// What is wrong, with the expected SHA-256 where one is known.
        reason: String,
    },
}

/// `Result` with [`Error`] as the error type.
pub type Result<T> = std::result::Result<T, Error>;

/// Implements `From<mlcore::Error>` for a paper crate's `Error`, so that
/// `?` on a shared check ([`check`](crate::check)) gives the caller the
/// crate's own variant wherever the crate has one with the same fields:
/// always `InvalidParameter { name, value, expected }`, plus any variant
/// listed after the type with the fields it takes from the core's variant of
/// the same name (for example `TooLarge { what, size }`, or `NonFinite {
/// what }` for a crate whose `NonFinite` does not carry the index), or under
/// another name with `Core => Own { fields }` (`Empty => EmptyInput { what }`).
/// Every other
/// core error becomes the crate's `Core(mlcore::Error)` variant, which must
/// exist (and must not carry `#[from]`).
///
/// ```
/// #[derive(Debug, PartialEq)]
/// enum Error {
///     InvalidParameter { name: &'static str, value: f64, expected: &'static str },
///     TooLarge { what: &'static str, size: String },
///     NonFinite { what: &'static str },
///     EmptyInput { what: &'static str },
///     Core(mlcore::Error),
/// }
/// mlcore::impl_from_core_error!(
///     Error,
///     TooLarge { what, size },
///     NonFinite { what },
///     Empty => EmptyInput { what },
/// );
///
/// fn check(tol: f64) -> Result<(), Error> {
///     mlcore::check::positive(tol, "tol")?;
///     Ok(())
/// }
/// assert!(matches!(check(-1.0), Err(Error::InvalidParameter { name: "tol", .. })));
/// let nan: Error = mlcore::check::finite_values(&[1.0, f64::NAN], "y").unwrap_err().into();
/// assert_eq!(nan, Error::NonFinite { what: "y" });
/// let e: Error = mlcore::Error::Empty { what: "x" }.into();
/// assert_eq!(e, Error::EmptyInput { what: "x" });
/// let e: Error = mlcore::Error::Singular { what: "a" }.into();
/// assert_eq!(e, Error::Core(mlcore::Error::Singular { what: "a" }));
/// ```
#[macro_export]
macro_rules! impl_from_core_error {
    ($ty:ident $(, $variant:ident $(=> $target:ident)? { $($field:ident),* $(,)? })* $(,)?) => {
        impl ::core::convert::From<$crate::Error> for $ty {
            fn from(e: $crate::Error) -> Self {
                match e {
                    $crate::Error::InvalidParameter {
                        name,
                        value,
                        expected,
                    } => $ty::InvalidParameter {
                        name,
                        value,
                        expected,
                    },
                    $($crate::Error::$variant { $($field,)* .. } => $crate::__core_error_variant!($ty, $variant $(=> $target)?, { $($field),* }),)*
                    e => $ty::Core(e),
                }
            }
        }
    };
}

/// The crate variant [`impl_from_core_error!`] builds: the core's name, or the
/// one given after `=>`.
#[doc(hidden)]
#[macro_export]
macro_rules! __core_error_variant {
    ($ty:ident, $core:ident => $target:ident, { $($field:ident),* }) => {
        $ty::$target { $($field),* }
    };
    ($ty:ident, $core:ident, { $($field:ident),* }) => {
        $ty::$core { $($field),* }
    };
}
