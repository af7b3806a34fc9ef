//! The crate's error type.

/// Everything that can go wrong in this crate; each variant names the offending value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `T = 0` time steps.
    #[error("the number of time steps T must be at least 1")]
    ZeroTimeSteps,
    /// An amplitude `α_t ≤ 0` or not finite (0-based time step `t`).
    #[error("amplitude α at time step {t} is not a finite positive number")]
    NonPositiveAlpha {
        /// The 0-based time step.
        t: usize,
    },
    /// A membrane decay outside `[0, 1]` or not finite.
    #[error("decay {0} is outside [0, 1]")]
    DecayOutOfRange(f32),
    /// Shapes that do not fit together.
    #[error("shape mismatch in {what}: expected {expected}, got {got}")]
    ShapeMismatch {
        /// Which input.
        what: &'static str,
        /// What was expected.
        expected: String,
        /// What was given.
        got: String,
    },
    /// A NaN or infinite value in an input.
    #[error("non-finite value in {0}")]
    NonFinite(&'static str),
    /// A hyper-parameter out of its range (`k ≤ 0`, a masking probability outside (0, 1), …).
    #[error("parameter `{name}` = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// Empty input where data was required (an empty corpus, no rows, …).
    #[error("empty input: {0}")]
    Empty(&'static str),
    /// A character outside the vocabulary.
    #[error("character {0:?} is not in the vocabulary")]
    UnknownChar(char),
    /// A token id outside the vocabulary.
    #[error("token id {id} is outside the vocabulary of {vocab}")]
    TokenOutOfRange {
        /// The id.
        id: u32,
        /// The vocabulary size.
        vocab: usize,
    },
    /// A value of a spike matrix that is not one of `{−α, 0, α}`.
    #[error("value {value} at index {index} is not a spike in {{−α, 0, α}} with α = {alpha}")]
    NotASpike {
        /// Flat index.
        index: usize,
        /// The value.
        value: f32,
        /// The amplitude.
        alpha: f32,
    },
    /// The amplitudes of a neuron whose policy sets them from data have not been set yet.
    #[error(
        "the amplitudes α have not been initialised: call `initialize` (or `forward_init`) first"
    )]
    Uninitialized,
    /// Malformed serialised state.
    #[error("cannot parse the serialised state: {0}")]
    Parse(String),
    /// An error of the shared core (allocation limits, statistics).
    #[error(transparent)]
    Core(#[from] mlcore::Error),
    /// An error of the neural core (training loop).
    #[error(transparent)]
    Nn(#[from] nncore::Error),
    /// An error of candle.
    #[error(transparent)]
    Candle(#[from] candle_core::Error),
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
