//! The crate's error type.

/// Everything that can go wrong on user input in `cmdp-eluder`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A function class (or a context set, or an Eluder domain) is empty.
    #[error("the {what} is empty")]
    EmptyClass {
        /// Which collection is empty.
        what: &'static str,
    },
    /// The dynamics are not layered: state `state` (layer `layer`) puts
    /// probability `mass` on `next`, which is not in layer `layer + 1` (or the
    /// last layer has outgoing mass).
    #[error(
        "dynamics are not layered: model {model}, context {context}, state {state} (layer {layer}), \
         action {action} puts mass {mass} on state {next}"
    )]
    NotLayered {
        /// Index of the offending model in its class (0 for a single CMDP).
        model: usize,
        /// The context c.
        context: usize,
        /// The state s.
        state: usize,
        /// The layer of s.
        layer: usize,
        /// The action a.
        action: usize,
        /// The next state s' outside layer h + 1.
        next: usize,
        /// P(s' | c, s, a).
        mass: f64,
    },
    /// The confidence level δ must lie in (0, 1).
    #[error("delta = {delta} is outside (0, 1)")]
    InvalidDelta {
        /// The δ given.
        delta: f64,
    },
    /// A shape disagreement (a table of the wrong shape, vectors of different
    /// lengths, a state or context index out of range).
    #[error("{what}: got {got}, expected {expected}")]
    DimensionMismatch {
        /// The argument with the wrong shape.
        what: &'static str,
        /// What was expected.
        expected: String,
        /// What was given.
        got: String,
    },
    /// The log loss of model `model` is +∞: it gives probability 0 to the
    /// observed transition (c, s, a) → s'. The model is eliminated by every
    /// log-loss rule; this variant reports the event instead of a silent ∞.
    #[error(
        "log loss of dynamics model {model} is infinite: P(s' = {next} | c = {context}, s = {state}, a = {action}) = 0 \
         for an observed transition"
    )]
    LogZero {
        /// Index of the model in its class.
        model: usize,
        /// The context c.
        context: usize,
        /// The state s.
        state: usize,
        /// The action a.
        action: usize,
        /// The observed next state s'.
        next: usize,
    },
    /// Every model of a class was eliminated by the data: the class does not
    /// contain the truth (realizability fails).
    #[error("the {what} class is not realizable: every model was eliminated by the data")]
    Unrealizable {
        /// "reward" or "dynamics".
        what: &'static str,
    },
    /// A probability vector is invalid (negative, NaN, or not summing to 1).
    #[error("{what} is not a probability vector: {detail}")]
    InvalidDistribution {
        /// Which vector.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// A value that must be finite and within a range is not.
    #[error("{name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The admissible range.
        expected: &'static str,
    },
    /// A metric returned a negative, NaN or infinite value.
    #[error(
        "the metric returned {value} between models {model_a} and {model_b} at domain point {point}"
    )]
    InvalidMetric {
        /// First model.
        model_a: usize,
        /// Second model.
        model_b: usize,
        /// Domain point.
        point: usize,
        /// The value returned.
        value: f64,
    },
    /// The brute-force Eluder dimension is limited to small domains.
    #[error("brute-force Eluder dimension supports at most {max} domain points, got {got}")]
    DomainTooLarge {
        /// The limit.
        max: usize,
        /// The domain size given.
        got: usize,
    },
    /// An error of the shared tabular MDP core.
    #[error(transparent)]
    Mdp(#[from] tabular_mdp::Error),
    /// A size check of the shared core failed (a table that would overflow
    /// `usize` or exceed the allocation cap).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn check_delta(delta: f64) -> Result<()> {
    if delta.is_finite() && delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidDelta { delta })
    }
}

pub(crate) fn mismatch(what: &'static str, expected: impl ToString, got: impl ToString) -> Error {
    Error::DimensionMismatch {
        what,
        expected: expected.to_string(),
        got: got.to_string(),
    }
}
