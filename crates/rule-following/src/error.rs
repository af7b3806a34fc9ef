//! The crate's error type.

/// Everything that can go wrong in this crate; each variant names the offending value.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A base outside `2..=10` (digits must be single characters `0`–`9`).
    #[error("base {0} is outside 2..=10")]
    InvalidBase(u32),
    /// A modulus `p < 2`.
    #[error("modulus {0} must be at least 2")]
    InvalidModulus(u64),
    /// A parameter out of its range (an empty operand range, a ratio outside (0, 1), …).
    #[error("parameter `{name}` = {value} is invalid: expected {expected}")]
    InvalidParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value, as text.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// Operands outside the task's grid (or an infeasible chicken & rabbit pair).
    #[error("operands ({a}, {b}) are outside the task's grid: {why}")]
    OutOfGrid {
        /// First operand (legs for chicken & rabbit).
        a: u64,
        /// Second operand (heads for chicken & rabbit).
        b: u64,
        /// Why.
        why: &'static str,
    },
    /// A hole (closed square `[c − h, c + h]²`) that does not lie inside the grid.
    #[error("hole with centre {center:?} and half-side {half} is not inside the grid")]
    HoleOutOfRange {
        /// Centre `(x, y)`.
        center: (i64, i64),
        /// Half-side.
        half: i64,
    },
    /// Two holes that share a grid point.
    #[error("holes {first} and {second} overlap")]
    OverlappingHoles {
        /// Index of the first hole.
        first: usize,
        /// Index of the second hole.
        second: usize,
    },
    /// Rejection sampling could not place `k` holes within the try limit.
    #[error("could not place {k} non-overlapping holes within {tries} tries")]
    CannotPlaceHoles {
        /// Number of holes asked for.
        k: usize,
        /// The try limit.
        tries: usize,
    },
    /// A split that leaves the training or the test set empty.
    #[error("the {which} set of the split is empty")]
    EmptySplit {
        /// `"training"` or `"test"`.
        which: &'static str,
    },
    /// Empty input where data was required.
    #[error("empty input: {0}")]
    Empty(&'static str),
    /// Malformed input text (JSON, a square list, a trace), with the 1-based line.
    #[error("parse error at line {line}: {msg}")]
    Parse {
        /// 1-based line of the input.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A record whose answer is not the task's answer to its question.
    #[error("record {id}: answer {found:?} does not match its question (expected {expected:?})")]
    AnswerMismatch {
        /// The record's id.
        id: u64,
        /// The answer found.
        found: String,
        /// The recomputed answer.
        expected: String,
    },
    /// A task name that is not one of the five.
    #[error(
        "unknown task name {0:?} (known: addition, mod_addition, base_addition, linear_regression, rabbits_and_chickens)"
    )]
    UnknownTask(String),
    /// An empty prompt, or one longer than the model's token budget.
    #[error(
        "prompt of {len} tokens does not fit the budget of {budget} (empty prompts are refused too)"
    )]
    PromptBudget {
        /// The prompt's length in tokens.
        len: usize,
        /// The budget.
        budget: usize,
    },
    /// A character outside the model's vocabulary.
    #[error("character {0:?} is not in the vocabulary")]
    UnknownToken(char),
    /// An arithmetic result that does not fit in `i64`/`u64`.
    #[error("arithmetic overflow in {0}")]
    Overflow(&'static str),
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
