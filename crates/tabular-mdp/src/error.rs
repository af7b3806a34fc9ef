//! The crate's error type.

/// Everything that can go wrong on user input in `tabular-mdp`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The discount factor must lie in the stated interval (`(0, 1)` for
    /// infinite-horizon problems, `(0, 1]` for finite-horizon ones).
    #[error("discount gamma = {gamma} is outside {expected}")]
    InvalidDiscount {
        /// The `γ` given.
        gamma: f64,
        /// The valid interval, in words.
        expected: &'static str,
    },
    /// An MDP needs at least one state.
    #[error("the MDP has no state")]
    NoStates,
    /// Every state needs at least one action.
    #[error("state {state} has an empty action set")]
    EmptyActions {
        /// The state without actions.
        state: usize,
    },
    /// Every state must have the same number of actions.
    #[error("state {state} has {got} actions, state 0 has {expected}")]
    RaggedActions {
        /// The offending state.
        state: usize,
        /// Actions of state 0.
        expected: usize,
        /// Actions of `state`.
        got: usize,
    },
    /// An action must have at least one outcome.
    #[error("action {action} of state {state} has no outcome")]
    EmptyOutcomes {
        /// The state.
        state: usize,
        /// The action.
        action: usize,
    },
    /// An outcome points to a state that does not exist.
    #[error(
        "outcome of (state {state}, action {action}) goes to state {next}, but there are only {n_states} states"
    )]
    NextStateOutOfRange {
        /// The state.
        state: usize,
        /// The action.
        action: usize,
        /// The next state given.
        next: usize,
        /// Number of states.
        n_states: usize,
    },
    /// An outcome probability is negative, above one or not finite.
    #[error("outcome probability {prob} of (state {state}, action {action}) is not in [0, 1]")]
    InvalidProbability {
        /// The state.
        state: usize,
        /// The action.
        action: usize,
        /// The probability given.
        prob: f64,
    },
    /// The outcome probabilities of a state-action pair do not sum to one
    /// (|Σp − 1| > 1e-9).
    #[error("outcome probabilities of (state {state}, action {action}) sum to {sum}, not 1")]
    NotStochastic {
        /// The state.
        state: usize,
        /// The action.
        action: usize,
        /// The sum of its outcome probabilities.
        sum: f64,
    },
    /// A reward, bonus, value or parameter is NaN or infinite.
    #[error("{what} is not finite ({value}) at index {index}")]
    NonFinite {
        /// What holds the non-finite number.
        what: &'static str,
        /// Its (flat) position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// An argument has the wrong length or shape.
    #[error("{what} has {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument.
        what: &'static str,
        /// What was expected, in words.
        expected: String,
        /// What was given, in words.
        got: String,
    },
    /// A policy or environment names an action that does not exist.
    #[error("action {action} is out of range (the MDP has {n_actions} actions)")]
    ActionOutOfRange {
        /// The action given.
        action: usize,
        /// Number of actions.
        n_actions: usize,
    },
    /// A state index (start state, encoded state) is out of range.
    #[error("state {state} is out of range ({n_states} states)")]
    StateOutOfRange {
        /// The state given.
        state: usize,
        /// Number of states (or state codes).
        n_states: usize,
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
    /// A table the call would allocate is too large: its entry count
    /// overflows `usize`, its memory exceeds
    /// [`MAX_TABLE_BYTES`](crate::horizon::MAX_TABLE_BYTES), or the allocator
    /// refuses it. Returned before allocating, instead of a panic or an abort.
    #[error("{what} is too large: {size}")]
    TooLarge {
        /// The table (and the arguments that size it).
        what: &'static str,
        /// The size asked for, in words: the factors, the entry count and
        /// the bytes, or which product overflows.
        size: String,
    },
    /// A value computed from finite inputs left the `f64` range (rewards
    /// near `f64::MAX`, or a long horizon of large rewards): returned instead
    /// of an infinite or NaN value.
    #[error("{what} overflows the f64 range at index {index}")]
    Overflow {
        /// The quantity (`"V"`, `"Q"`).
        what: &'static str,
        /// The flat index of the first overflowing entry.
        index: usize,
    },
    /// An iteration stopped at its cap before reaching its tolerance.
    #[error(
        "{algorithm} did not converge in {iterations} iterations (sup-norm residual {residual:e})"
    )]
    NotConverged {
        /// The iteration.
        algorithm: &'static str,
        /// Iterations run.
        iterations: usize,
        /// ‖V_k − V_{k−1}‖∞ at the last iteration.
        residual: f64,
    },
    /// Any other failure of a shared [`mlcore::check`] (or other `mlcore`) call.
    #[error(transparent)]
    Core(mlcore::Error),
}

// The shared checks (mlcore::check) fail with mlcore's error: the variants
// this crate shares with it (InvalidParameter, TooLarge, ShapeMismatch: same
// fields, naming the argument) come back as this crate's own, so a caller
// matches one variant whichever layer checked; everything else is Error::Core.
mlcore::impl_from_core_error!(
    Error,
    TooLarge { what, size },
    ShapeMismatch {
        what,
        expected,
        got
    },
);

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Fails with [`Error::InvalidDiscount`] unless `0 < γ < 1`.
pub(crate) fn check_discount_open(gamma: f64) -> Result<()> {
    if gamma > 0.0 && gamma < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidDiscount {
            gamma,
            expected: "(0, 1)",
        })
    }
}

/// Fails with [`Error::InvalidDiscount`] unless `0 < γ ≤ 1`.
pub(crate) fn check_discount_closed(gamma: f64) -> Result<()> {
    if gamma > 0.0 && gamma <= 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidDiscount {
            gamma,
            expected: "(0, 1]",
        })
    }
}

/// Fails with [`Error::NonFinite`] unless `value` is finite.
pub(crate) fn check_finite(value: f64, what: &'static str, index: usize) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFinite { what, index, value })
    }
}
