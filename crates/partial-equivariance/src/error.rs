//! The crate's error type.

/// Everything that can go wrong on user input in `partial-equivariance`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The grid cannot resolve band limit `l`: an SO(2)/O(2) grid of `grid`
    /// rotation angles resolves frequencies up to ⌊(grid − 1)/2⌋ (aliasing
    /// otherwise); a finite group C_N / D_N has no frequency above ⌊N/2⌋.
    #[error("band limit {l} is too high for a grid of {grid} rotation angles")]
    BandLimitTooHigh {
        /// The band limit asked for (L or L_out).
        l: usize,
        /// Rotation angles in the grid (N for C_N / D_N).
        grid: usize,
    },
    /// A band limit given as a signed integer was negative.
    #[error("band limit {value} is negative")]
    NegativeBandLimit {
        /// The value given.
        value: i64,
    },
    /// The output band limit L_out must be at least the logit band limit L.
    #[error("output band limit L_out = {l_out} is below the logit band limit L = {l}")]
    BandLimitOrder {
        /// The logit band limit L.
        l: usize,
        /// The output band limit L_out.
        l_out: usize,
    },
    /// Two objects live on different groups.
    #[error("group mismatch: {left} vs {right}")]
    GroupMismatch {
        /// The first group.
        left: String,
        /// The second group.
        right: String,
    },
    /// An argument holds NaN or an infinity.
    #[error("{what} contains a non-finite value at index {index}")]
    NonFinite {
        /// The offending argument.
        what: &'static str,
        /// Position of the first offending entry.
        index: usize,
    },
    /// Kernels live on centred k×k grids: k must be odd.
    #[error("kernel size {size} is even (centred grids need an odd size)")]
    EvenKernelSize {
        /// The size given.
        size: usize,
    },
    /// A field type, layer or kernel has zero fields / zero size.
    #[error("{what} is empty (zero fields or zero size)")]
    ZeroFields {
        /// What was empty.
        what: &'static str,
    },
    /// A regulariser weight or prior precision is negative or non-finite.
    #[error("weight {name} = {value} must be finite and non-negative")]
    NegativeWeight {
        /// The weight's name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A set of observations (group elements) is empty.
    #[error("{what} is empty")]
    Empty {
        /// What was empty.
        what: &'static str,
    },
    /// An argument has the wrong shape or length.
    #[error("{what} has shape {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument.
        what: &'static str,
        /// The shape expected.
        expected: String,
        /// The shape given.
        got: String,
    },
    /// The irrep label is not an irrep of the group.
    #[error("{irrep} is not an irrep of {group}")]
    InvalidIrrep {
        /// The label, as `(j, m)`.
        irrep: String,
        /// The group.
        group: String,
    },
    /// A group element does not belong to the group (e.g. a 45° rotation for C_4,
    /// a flip for SO(2)).
    #[error("element (angle {angle}, flip {flip}) is not in {group}")]
    InvalidElement {
        /// Rotation angle of the element.
        angle: f64,
        /// Whether it contains the flip.
        flip: bool,
        /// The group.
        group: String,
    },
    /// The transformation does not map the pixel grid onto itself (only
    /// multiples of 90° and the flips do).
    #[error("element with angle {angle} is not a symmetry of the square pixel grid")]
    NotAGridSymmetry {
        /// Rotation angle of the element.
        angle: f64,
    },
    /// A scalar parameter is out of range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The valid range in words.
        expected: &'static str,
    },
    /// The Newton iteration of the fit did not reach the gradient tolerance
    /// (for the MLE this happens when the maximiser does not exist, e.g. all
    /// observations at one point: use a prior precision > 0).
    #[error("fit did not converge in {iterations} iterations (gradient norm {grad_norm:e})")]
    NotConverged {
        /// Iterations run.
        iterations: usize,
        /// Final gradient norm.
        grad_norm: f64,
    },
    /// An error of the shared core (linear algebra, allocation checks).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// Checks every entry of `v` is finite.
pub(crate) fn finite(v: impl IntoIterator<Item = f64>, what: &'static str) -> Result<()> {
    for (index, x) in v.into_iter().enumerate() {
        if !x.is_finite() {
            return Err(Error::NonFinite { what, index });
        }
    }
    Ok(())
}

/// A band limit given as a signed integer (config files, FFI), checked.
///
/// # Errors
/// [`Error::NegativeBandLimit`] when `value < 0`.
pub fn band_limit(value: i64) -> Result<usize> {
    usize::try_from(value).map_err(|_| Error::NegativeBandLimit { value })
}
