//! The error type of every `nncore` entry point.

/// Everything that can go wrong in `nncore` on user input or during training.
///
/// Each variant names the offending argument or value, so that a paper crate
/// wrapping it (`#[from] nncore::Error`) still tells its user what was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument is empty where at least one element is needed.
    #[error("{what} is empty")]
    Empty {
        /// The empty argument.
        what: &'static str,
    },
    /// An argument contains NaN or an infinity.
    #[error("{what} contains a non-finite value at flat index {index}")]
    NonFinite {
        /// The argument with the non-finite entry.
        what: &'static str,
        /// Position of the first offending entry, in row-major order.
        index: usize,
    },
    /// Two arguments whose lengths or shapes must agree do not.
    #[error("{what}: expected {expected}, got {got}")]
    ShapeMismatch {
        /// What was compared.
        what: &'static str,
        /// The size that was expected.
        expected: usize,
        /// The size that was given.
        got: usize,
    },
    /// A class label is not below the number of classes.
    #[error("label {label} at index {index} is out of range for {classes} classes")]
    LabelOutOfRange {
        /// Position of the offending label.
        index: usize,
        /// The label.
        label: usize,
        /// The number of classes.
        classes: usize,
    },
    /// A row of probabilities has a negative entry or does not sum to one
    /// within [`PROBABILITY_ROW_TOL`](crate::metrics::PROBABILITY_ROW_TOL).
    #[error("row {row} is not a probability vector (sum {sum}, smallest entry {min})")]
    NotAProbability {
        /// The offending row.
        row: usize,
        /// Its sum.
        sum: f64,
        /// Its smallest entry.
        min: f64,
    },
    /// A scalar parameter is outside its valid range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value that was given.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A metric is undefined for this input (for example an AUROC when every
    /// label belongs to one class).
    #[error("{metric} is undefined: {reason}")]
    Undefined {
        /// The metric.
        metric: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The training loss (or the validation loss) became NaN or infinite.
    #[error("the {which} loss is {loss} at optimiser step {step} (epoch {epoch})")]
    NonFiniteLoss {
        /// `"training"` or `"validation"`.
        which: &'static str,
        /// The 0-based optimiser step whose loss was not finite (for a
        /// validation loss: the number of steps taken so far).
        step: usize,
        /// The 0-based epoch.
        epoch: usize,
        /// The loss value.
        loss: f64,
    },
    /// A gradient became NaN or infinite (the loss was finite).
    #[error("the gradient norm is {norm} at optimiser step {step} (epoch {epoch})")]
    NonFiniteGradient {
        /// The 0-based optimiser step.
        step: usize,
        /// The 0-based epoch.
        epoch: usize,
        /// The global gradient norm.
        norm: f64,
    },
    /// A parameter name given twice, or not found.
    #[error("parameter `{name}`: {reason}")]
    Parameter {
        /// The parameter's name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A data file that does not parse.
    #[error("{file}, line {line}: {reason}")]
    Parse {
        /// The file.
        file: String,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An error of the shared core (including a missing or altered vendored
    /// file, named with its expected SHA-256, and sizes too large to allocate).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
    /// An error raised by candle (shapes of the user's model, for example).
    #[error("candle: {0}")]
    Candle(#[from] candle_core::Error),
}

/// `Result` with [`Error`] as the error type.
pub type Result<T> = std::result::Result<T, Error>;
