//! The crate's error type.

/// Everything that can go wrong on user input in `max-reward-rl`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The discount γ must lie in (0, 1).
    #[error("discount gamma = {gamma} is outside (0, 1)")]
    InvalidDiscount {
        /// The `γ` given.
        gamma: f64,
    },
    /// Max-reward RL needs rewards ≥ 0 (after the declared `reward_shift`).
    #[error(
        "reward {reward} of (state {state}, action {action}) is negative after the shift {shift}; declare a reward_shift >= {needed}"
    )]
    NegativeReward {
        /// The state.
        state: usize,
        /// The action.
        action: usize,
        /// The shifted reward r + shift.
        reward: f64,
        /// The shift in force.
        shift: f64,
        /// The smallest shift that would make this reward non-negative.
        needed: f64,
    },
    /// The exact y-lattice would exceed the stated limit.
    #[error("the exact y-lattice needs {needed} levels, above the limit {limit}")]
    YGridTooLarge {
        /// Levels needed (an upper bound when astronomically large).
        needed: f64,
        /// The limit in force.
        limit: usize,
    },
    /// A value (reward, shift, Q value, return, …) is NaN or infinite.
    #[error("{what} is not finite ({value}) at index {index}")]
    NonFinite {
        /// What holds the non-finite number.
        what: &'static str,
        /// Its (flat) position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Arguments of mismatched lengths or shapes.
    #[error("{what} has {got}, expected {expected}")]
    ShapeMismatch {
        /// The argument.
        what: &'static str,
        /// What was expected.
        expected: String,
        /// What was given.
        got: String,
    },
    /// A rollout segment has a termination before its last step.
    #[error("step {step} of a {len}-step segment terminates; split rollouts at episode ends")]
    TerminationInsideSegment {
        /// The terminating step.
        step: usize,
        /// The segment length.
        len: usize,
    },
    /// An index argument is out of range.
    #[error("{what} index {index} is out of range (length {len})")]
    IndexOutOfRange {
        /// What is indexed.
        what: &'static str,
        /// The index given.
        index: usize,
        /// The number of valid indices.
        len: usize,
    },
    /// A grid-world description is invalid.
    #[error("invalid grid world: {reason}")]
    InvalidGrid {
        /// What is wrong.
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
    /// An error of the underlying finite MDP (not stochastic, empty action
    /// set, state out of range, non-convergence, …).
    #[error(transparent)]
    Mdp(#[from] tabular_mdp::Error),
    /// A size check of the shared core failed (an array that would overflow
    /// `usize` or exceed the allocation cap).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn check_gamma(gamma: f64) -> Result<()> {
    if gamma > 0.0 && gamma < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidDiscount { gamma })
    }
}

pub(crate) fn check_index(what: &'static str, index: usize, len: usize) -> Result<()> {
    if index < len {
        Ok(())
    } else {
        Err(Error::IndexOutOfRange { what, index, len })
    }
}

pub(crate) fn check_finite(value: f64, what: &'static str, index: usize) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFinite { what, index, value })
    }
}
