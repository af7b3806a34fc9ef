//! The five math tasks of the paper (§3), with the official ids, question
//! and answer strings.
//!
//! | task | question | answer | grid, id |
//! |---|---|---|---|
//! | [`Task::Addition`] | `"{a}+{b}="` | `a + b` | `a, b ∈ [0, n)`, `id = n·a + b` |
//! | [`Task::ModAddition`] | `"{a}+{b}="` | `(a + b) mod p` (a JSON integer) | `a, b ∈ [0, p)`, `id = p·a + b` |
//! | [`Task::BaseAddition`] | operands in base `β` | `a + b` in base `β` | `a, b ∈ [0, n)` (decimal), `id = n·a + b` |
//! | [`Task::LinearRegression`] | `"({a},{b})="` | `α·a + β·b + γ` | `a, b ∈ [0, n)`, `id = n·a + b` |
//! | [`Task::ChickenRabbit`] | the word problem | `"There are {r} rabbits and {c} chickens."` | heads `h ∈ [0, H)`, legs `2h, 2h+2, …, 4h`; running id `h(h+1)/2 + (legs − 2h)/2` |
//!
//! For chicken & rabbit, a sample's `a` is the number of legs and `b` the
//! number of heads (as in the official files), and its grid coordinates
//! (where holes are cut) are `(legs/2, heads)`.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The paper's grid side (`a, b ∈ [0, 100)`).
pub const PAPER_RANGE: u64 = 100;
/// The paper's modulus for modular addition.
pub const PAPER_MODULUS: u64 = 113;
/// The paper's base for base addition.
pub const PAPER_BASE: u32 = 9;
/// The largest grid side accepted (keeps `n²` samples and every answer well inside `u64`/`i64`).
pub const MAX_RANGE: u64 = 1 << 20;

/// The chicken & rabbit question template (`{legs}`, `{heads}`).
pub const CHICKEN_RABBIT_QUESTION: &str = "Rabbits have 4 legs and 1 head. Chickens have 2 legs and 1 head. There are {legs} legs and {heads} heads on the farm. How many rabbits and chickens are there?";

/// The task names of the official data folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskName {
    /// `addition`.
    Addition,
    /// `mod_addition`.
    ModAddition,
    /// `base_addition`.
    BaseAddition,
    /// `linear_regression`.
    LinearRegression,
    /// `rabbits_and_chickens`.
    RabbitsAndChickens,
}

impl TaskName {
    /// The official folder name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskName::Addition => "addition",
            TaskName::ModAddition => "mod_addition",
            TaskName::BaseAddition => "base_addition",
            TaskName::LinearRegression => "linear_regression",
            TaskName::RabbitsAndChickens => "rabbits_and_chickens",
        }
    }
}

impl fmt::Display for TaskName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TaskName {
    type Err = Error;

    /// Parses an official folder name. `chickens_and_rabbits` (the spelling
    /// the official `extract_answer` tests for, so that every sample of the
    /// task is skipped there) is accepted as the same task: a deliberate fix.
    ///
    /// # Errors
    /// [`Error::UnknownTask`] for any other name.
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "addition" => TaskName::Addition,
            "mod_addition" => TaskName::ModAddition,
            "base_addition" => TaskName::BaseAddition,
            "linear_regression" => TaskName::LinearRegression,
            "rabbits_and_chickens" | "chickens_and_rabbits" => TaskName::RabbitsAndChickens,
            other => return Err(Error::UnknownTask(other.to_string())),
        })
    }
}

/// An answer as the official JSON stores it: a string, or an integer (mod addition).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Answer {
    /// A string answer.
    Text(String),
    /// An integer answer.
    Int(i64),
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Text(s) => f.write_str(s),
            Answer::Int(v) => write!(f, "{v}"),
        }
    }
}

/// One sample: the official record fields.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sample {
    /// The official id.
    pub id: u64,
    /// First operand (legs for chicken & rabbit).
    pub a: u64,
    /// Second operand (heads for chicken & rabbit).
    pub b: u64,
    /// The question string.
    pub question: String,
    /// The answer.
    pub answer: Answer,
}

/// A task with all its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Decimal addition on `[0, n)²`.
    Addition {
        /// Grid side `n ≥ 1`.
        n: u64,
    },
    /// `(a + b) mod p` on `[0, p)²`.
    ModAddition {
        /// Modulus `p ≥ 2`.
        p: u64,
    },
    /// Addition written in base `β ∈ 2..=10` on `[0, n)²` (operands stored in decimal).
    BaseAddition {
        /// The base `β`.
        base: u32,
        /// Grid side `n ≥ 1`.
        n: u64,
    },
    /// `α·a + β·b + γ` on `[0, n)²` (the paper: `α = 1, β = 2, γ = 3`).
    LinearRegression {
        /// Coefficient of `a`.
        alpha: i64,
        /// Coefficient of `b`.
        beta: i64,
        /// Constant.
        gamma: i64,
        /// Grid side `n ≥ 1`.
        n: u64,
    },
    /// Chicken & rabbit with heads `h ∈ [0, H)`.
    ChickenRabbit {
        /// `H ≥ 1`.
        max_heads: u64,
    },
}

/// `v` written in base `base` (2..=10), most significant digit first. O(log v).
///
/// # Errors
/// [`Error::InvalidBase`].
pub fn to_base(mut v: u64, base: u32) -> Result<String> {
    check_base(base)?;
    let base = u64::from(base);
    let mut digits = Vec::new();
    loop {
        digits.push(b'0' + (v % base) as u8);
        v /= base;
        if v == 0 {
            break;
        }
    }
    digits.reverse();
    Ok(String::from_utf8(digits).unwrap_or_default())
}

/// Reads a base-`base` digit string (most significant first). O(len).
///
/// # Errors
/// [`Error::InvalidBase`]; [`Error::Parse`] for an empty string or a digit
/// `≥ base`; [`Error::Overflow`] beyond `u64`.
pub fn from_base(s: &str, base: u32) -> Result<u64> {
    check_base(base)?;
    if s.is_empty() {
        return Err(Error::Parse {
            line: 1,
            msg: "empty number".into(),
        });
    }
    let mut v: u64 = 0;
    for c in s.chars() {
        let d = c.to_digit(10).filter(|&d| d < base).ok_or(Error::Parse {
            line: 1,
            msg: format!("{c:?} is not a base-{base} digit"),
        })?;
        v = v
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(Error::Overflow("number"))?;
    }
    Ok(v)
}

pub(crate) fn check_base(base: u32) -> Result<()> {
    if (2..=10).contains(&base) {
        Ok(())
    } else {
        Err(Error::InvalidBase(base))
    }
}

fn check_range(n: u64) -> Result<()> {
    if (1..=MAX_RANGE).contains(&n) {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "grid side n",
            value: n.to_string(),
            expected: "1 ≤ n ≤ 2²⁰",
        })
    }
}

impl Task {
    /// The paper's addition task (`[0, 100)²`).
    pub const PAPER_ADDITION: Task = Task::Addition { n: PAPER_RANGE };
    /// The paper's modular addition (`p = 113`).
    pub const PAPER_MOD_ADDITION: Task = Task::ModAddition { p: PAPER_MODULUS };
    /// The paper's base addition (base 9 on `[0, 100)²`).
    pub const PAPER_BASE_ADDITION: Task = Task::BaseAddition {
        base: PAPER_BASE,
        n: PAPER_RANGE,
    };
    /// The paper's linear regression `a + 2b + 3` on `[0, 100)²`.
    pub const PAPER_LINEAR_REGRESSION: Task = Task::LinearRegression {
        alpha: 1,
        beta: 2,
        gamma: 3,
        n: PAPER_RANGE,
    };
    /// The paper's chicken & rabbit (heads `[0, 100)`).
    pub const PAPER_CHICKEN_RABBIT: Task = Task::ChickenRabbit {
        max_heads: PAPER_RANGE,
    };

    /// The paper's instance of a named task.
    pub fn paper(name: TaskName) -> Task {
        match name {
            TaskName::Addition => Task::PAPER_ADDITION,
            TaskName::ModAddition => Task::PAPER_MOD_ADDITION,
            TaskName::BaseAddition => Task::PAPER_BASE_ADDITION,
            TaskName::LinearRegression => Task::PAPER_LINEAR_REGRESSION,
            TaskName::RabbitsAndChickens => Task::PAPER_CHICKEN_RABBIT,
        }
    }

    /// The official name of the task.
    pub fn name(&self) -> TaskName {
        match self {
            Task::Addition { .. } => TaskName::Addition,
            Task::ModAddition { .. } => TaskName::ModAddition,
            Task::BaseAddition { .. } => TaskName::BaseAddition,
            Task::LinearRegression { .. } => TaskName::LinearRegression,
            Task::ChickenRabbit { .. } => TaskName::RabbitsAndChickens,
        }
    }

    /// Checks the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidBase`], [`Error::InvalidModulus`], or
    /// [`Error::InvalidParameter`] for a grid side outside `1..=2²⁰`.
    pub fn check(&self) -> Result<()> {
        match *self {
            Task::Addition { n } | Task::LinearRegression { n, .. } => check_range(n),
            Task::ModAddition { p } => {
                if p < 2 {
                    return Err(Error::InvalidModulus(p));
                }
                check_range(p)
            }
            Task::BaseAddition { base, n } => {
                check_base(base)?;
                check_range(n)
            }
            Task::ChickenRabbit { max_heads } => check_range(max_heads),
        }
    }

    /// The side of the square of grid coordinates: `n`, `p`, or for chicken &
    /// rabbit `2H − 1` (legs/2 runs over `[0, 2(H − 1)]`).
    pub fn side(&self) -> u64 {
        match *self {
            Task::Addition { n } | Task::BaseAddition { n, .. } => n,
            Task::LinearRegression { n, .. } => n,
            Task::ModAddition { p } => p,
            Task::ChickenRabbit { max_heads } => max_heads.saturating_mul(2).saturating_sub(1),
        }
    }

    /// Number of samples: `n²`, `p²`, or `H(H + 1)/2`.
    pub fn len(&self) -> u64 {
        match *self {
            Task::ChickenRabbit { max_heads } => {
                max_heads.saturating_mul(max_heads.saturating_add(1)) / 2
            }
            _ => self.side().saturating_mul(self.side()),
        }
    }

    /// Always false for a checked task (every grid has at least one sample).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether grid coordinates `(x, y)` are a sample: inside `[0, side)²`,
    /// and for chicken & rabbit `y < H` and `y ≤ x ≤ 2y` (`x` = legs/2, `y` = heads).
    pub fn contains(&self, x: i64, y: i64) -> bool {
        let side = i64::try_from(self.side()).unwrap_or(i64::MAX);
        if x < 0 || y < 0 || x >= side || y >= side {
            return false;
        }
        match *self {
            Task::ChickenRabbit { max_heads } => {
                (y as u64) < max_heads && y <= x && x <= y.saturating_mul(2)
            }
            _ => true,
        }
    }

    /// The grid coordinates of operands `(a, b)`: `(a, b)`, or `(legs/2, heads)`.
    /// Operands beyond `i64::MAX` saturate (no task has them).
    pub fn coords(&self, a: u64, b: u64) -> (i64, i64) {
        let c = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        match self {
            Task::ChickenRabbit { .. } => (c(a / 2), c(b)),
            _ => (c(a), c(b)),
        }
    }

    /// The sample at operands `(a, b)` (legs, heads for chicken & rabbit). O(log(a + b)).
    ///
    /// # Errors
    /// [`Task::check`]'s errors; [`Error::OutOfGrid`] when `(a, b)` is not a
    /// sample of the task (outside the grid, odd or infeasible legs).
    pub fn sample(&self, a: u64, b: u64) -> Result<Sample> {
        self.check()?;
        let out = |why| Error::OutOfGrid { a, b, why };
        match *self {
            Task::Addition { n } => {
                if a >= n || b >= n {
                    return Err(out("operand ≥ n"));
                }
                Ok(Sample {
                    id: n * a + b,
                    a,
                    b,
                    question: format!("{a}+{b}="),
                    answer: Answer::Text((a + b).to_string()),
                })
            }
            Task::ModAddition { p } => {
                if a >= p || b >= p {
                    return Err(out("operand ≥ p"));
                }
                Ok(Sample {
                    id: p * a + b,
                    a,
                    b,
                    question: format!("{a}+{b}="),
                    answer: Answer::Int(((a + b) % p) as i64),
                })
            }
            Task::BaseAddition { base, n } => {
                if a >= n || b >= n {
                    return Err(out("operand ≥ n"));
                }
                Ok(Sample {
                    id: n * a + b,
                    a,
                    b,
                    question: format!("{}+{}=", to_base(a, base)?, to_base(b, base)?),
                    answer: Answer::Text(to_base(a + b, base)?),
                })
            }
            Task::LinearRegression {
                alpha,
                beta,
                gamma,
                n,
            } => {
                if a >= n || b >= n {
                    return Err(out("operand ≥ n"));
                }
                let v = alpha
                    .checked_mul(a as i64)
                    .and_then(|x| beta.checked_mul(b as i64).and_then(|y| x.checked_add(y)))
                    .and_then(|x| x.checked_add(gamma))
                    .ok_or(Error::Overflow("α·a + β·b + γ"))?;
                Ok(Sample {
                    id: n * a + b,
                    a,
                    b,
                    question: format!("({a},{b})="),
                    answer: Answer::Text(v.to_string()),
                })
            }
            Task::ChickenRabbit { max_heads } => {
                let (legs, heads) = (a, b);
                if heads >= max_heads {
                    return Err(out("heads ≥ H"));
                }
                if !legs.is_multiple_of(2) || legs < 2 * heads || legs > 4 * heads {
                    return Err(out("legs must be even and in [2·heads, 4·heads]"));
                }
                let rabbits = (legs - 2 * heads) / 2;
                let chickens = (4 * heads - legs) / 2;
                Ok(Sample {
                    id: heads * (heads + 1) / 2 + rabbits,
                    a,
                    b,
                    question: CHICKEN_RABBIT_QUESTION
                        .replace("{legs}", &legs.to_string())
                        .replace("{heads}", &heads.to_string()),
                    answer: Answer::Text(format!(
                        "There are {rabbits} rabbits and {chickens} chickens."
                    )),
                })
            }
        }
    }

    /// The sample at grid coordinates `(x, y)` (for chicken & rabbit, legs = 2x, heads = y).
    ///
    /// # Errors
    /// As [`Task::sample`]; negative coordinates are [`Error::OutOfGrid`].
    pub fn sample_at(&self, x: i64, y: i64) -> Result<Sample> {
        let (xu, yu) = (
            u64::try_from(x).map_err(|_| Error::OutOfGrid {
                a: 0,
                b: 0,
                why: "negative coordinate",
            })?,
            u64::try_from(y).map_err(|_| Error::OutOfGrid {
                a: 0,
                b: 0,
                why: "negative coordinate",
            })?,
        );
        match self {
            Task::ChickenRabbit { .. } => {
                self.sample(xu.checked_mul(2).ok_or(Error::Overflow("legs"))?, yu)
            }
            _ => self.sample(xu, yu),
        }
    }

    /// Every sample in official id order (`a` outer, `b` inner; chicken &
    /// rabbit: heads outer, legs inner). O(len · log n) time and memory.
    ///
    /// # Errors
    /// [`Task::check`]'s errors; [`mlcore::Error`] when the grid would exceed
    /// the allocation limit.
    pub fn grid(&self) -> Result<Vec<Sample>> {
        self.check()?;
        let len = usize::try_from(self.len()).map_err(|_| Error::Overflow("grid size"))?;
        mlcore::check::alloc_len(&[len], std::mem::size_of::<Sample>() + 64, "task grid")?;
        let mut out = Vec::with_capacity(len);
        match *self {
            Task::ChickenRabbit { max_heads } => {
                for heads in 0..max_heads {
                    for legs in (2 * heads..=4 * heads).step_by(2) {
                        out.push(self.sample(legs, heads)?);
                    }
                }
            }
            _ => {
                let n = self.side();
                for a in 0..n {
                    for b in 0..n {
                        out.push(self.sample(a, b)?);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Checks that `sample` is the task's sample at its operands: same id,
    /// question and answer (recomputed). O(log(a + b)).
    ///
    /// # Errors
    /// [`Error::OutOfGrid`] for operands outside the task, [`Error::AnswerMismatch`]
    /// when the id, question or answer differ (naming the record's id).
    pub fn verify(&self, sample: &Sample) -> Result<()> {
        let expected = self.sample(sample.a, sample.b)?;
        if expected.answer != sample.answer {
            return Err(Error::AnswerMismatch {
                id: sample.id,
                found: sample.answer.to_string(),
                expected: expected.answer.to_string(),
            });
        }
        if expected.question != sample.question || expected.id != sample.id {
            return Err(Error::AnswerMismatch {
                id: sample.id,
                found: format!("id {} question {:?}", sample.id, sample.question),
                expected: format!("id {} question {:?}", expected.id, expected.question),
            });
        }
        Ok(())
    }
}
