//! The crate's error type.

/// Everything that can go wrong on user input in `fair-memory`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A fairness scheme needs at least one stakeholder.
    #[error("the stakeholder set is empty")]
    NoStakeholders,
    /// A probability (presence, repayment, …) is outside [0, 1] or NaN.
    #[error("probability {what} = {value} is not in [0, 1]")]
    InvalidProbability {
        /// Which probability.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// The memory table has (T + 1)^N codes (counts 0..=T for N
    /// stakeholders); that number must fit in a `usize` (and the binary
    /// encoding needs N·⌈log2(T + 1)⌉ bits).
    #[error(
        "horizon T = {horizon} with {stakeholders} stakeholders needs {bits} bits to encode a memory, more than the {available} available"
    )]
    HorizonTooLargeForEncoding {
        /// The horizon T.
        horizon: usize,
        /// The number N of stakeholders.
        stakeholders: usize,
        /// Bits needed, N·⌈log2(T + 1)⌉.
        bits: u64,
        /// Bits available (`usize::BITS`).
        available: u32,
    },
    /// The memory does not determine the welfare of the history, so the
    /// fairness reward is not Markov on (s, m). Opt in with
    /// `allow_insufficient_memory` to reproduce the official code.
    #[error(
        "memory {memory} is not sufficient for welfare {welfare}: the reward is not a function of (s, m)"
    )]
    MemoryNotSufficient {
        /// The memory's name.
        memory: &'static str,
        /// The welfare's name.
        welfare: &'static str,
    },
    /// Counterfactual memories need the count memory ([`crate::MemoryKind::Full`]):
    /// the counterfactual reward and termination are computed from them.
    #[error("counterfactual updates need the full count memory, not {memory}")]
    CounterfactualNeedsFullMemory {
        /// The memory given.
        memory: &'static str,
    },
    /// A utility, reward, threshold or increment is NaN or infinite.
    #[error("{what} is not finite ({value}) at index {index}")]
    NonFinite {
        /// What holds the value.
        what: &'static str,
        /// Its position.
        index: usize,
        /// The value.
        value: f64,
    },
    /// A utility outside the welfare's domain (NSW needs u > −1 − λ, Gini u ≥ 0).
    #[error(
        "welfare {welfare} is undefined at utility {value} (index {index}): expected {expected}"
    )]
    InvalidUtility {
        /// The welfare.
        welfare: &'static str,
        /// The stakeholder index.
        index: usize,
        /// The utility given.
        value: f64,
        /// The domain, in words.
        expected: &'static str,
    },
    /// The welfare of finite utilities exceeds f64's range (it is computed
    /// scaled first, so only a true value beyond ±f64::MAX gets here).
    #[error("welfare {welfare} of these utilities exceeds f64's range")]
    WelfareOverflow {
        /// The welfare.
        welfare: &'static str,
    },
    /// A vector has the wrong length.
    #[error("{what} has length {got}, expected {expected}")]
    DimensionMismatch {
        /// The argument.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// A memory entry exceeds the horizon (counts are in 0..=T).
    #[error("memory entry {index} = {value} exceeds the cap {cap}")]
    MemoryOutOfRange {
        /// The stakeholder.
        index: usize,
        /// The value.
        value: u32,
        /// The cap T.
        cap: u32,
    },
    /// An action index is out of range.
    #[error("action {action} out of range ({n_actions} actions)")]
    ActionOutOfRange {
        /// The action.
        action: usize,
        /// Number of actions.
        n_actions: usize,
    },
    /// A state index is out of range.
    #[error("state {state} out of range ({n_states} states)")]
    StateOutOfRange {
        /// The state.
        state: usize,
        /// Number of states.
        n_states: usize,
    },
    /// A scalar hyper-parameter is out of range.
    #[error("parameter {name} = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// Its name.
        name: &'static str,
        /// The value.
        value: f64,
        /// The valid range, in words.
        expected: &'static str,
    },
    /// A tabular method would need more table entries than the limit.
    #[error("the table needs {entries} entries, more than the limit {limit}")]
    TableTooLarge {
        /// Entries needed (saturating).
        entries: u128,
        /// The limit.
        limit: u128,
    },
    /// An error of the shared tabular MDP core.
    #[error(transparent)]
    Mdp(tabular_mdp::Error),
    /// Any other failure of a shared [`mlcore::check`] (or other `mlcore`) call.
    #[error(transparent)]
    Core(mlcore::Error),
}

// The shared checks (mlcore::check) fail with mlcore's error: an out of
// range parameter comes back as this crate's InvalidParameter (same fields,
// naming it), so a caller matches one variant whichever layer checked;
// everything else is Error::Core.
mlcore::impl_from_core_error!(Error);

/// As for `mlcore`: an out of range parameter found by `tabular-mdp` (a
/// step size, a tolerance) is this crate's [`Error::InvalidParameter`];
/// everything else is [`Error::Mdp`].
impl From<tabular_mdp::Error> for Error {
    fn from(e: tabular_mdp::Error) -> Self {
        match e {
            tabular_mdp::Error::InvalidParameter {
                name,
                value,
                expected,
            } => Error::InvalidParameter {
                name,
                value,
                expected,
            },
            e => Error::Mdp(e),
        }
    }
}

/// `Result` with the crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Fails with [`Error::NonFinite`] unless `value` is finite.
pub(crate) fn check_finite(value: f64, what: &'static str, index: usize) -> Result<()> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(Error::NonFinite { what, index, value })
    }
}

/// Fails with [`Error::InvalidProbability`] unless `p ∈ [0, 1]`.
pub(crate) fn check_probability(value: f64, what: &'static str) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::InvalidProbability { what, value })
    }
}
