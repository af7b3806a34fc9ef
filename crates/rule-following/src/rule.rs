//! The rule of digit-wise addition in base `β` (the `sum_digit_by_digit`
//! rule the paper's RFFT prompts recite), its trace, and a verifier that
//! names the first step of a generated trace that breaks the rule.
//!
//! The rule: while either operand has digits, pop the last digits `d₁, d₂`
//! (0 when exhausted), `t = d₁ + d₂ + c`, prepend `t mod β` to the result,
//! `c ← ⌊t/β⌋`; after the loop prepend a remaining carry.
//!
//! The *compact rule* text of a trace, used to train small models, has one
//! line per iteration, `{d₁}+{d₂}+{c}={t}` with `t` written as two base-`β`
//! digits (carry, then digit), and an answer line `={result}`. For 59 + 13:
//!
//! ```text
//! 9+3+0=12
//! 5+1+1=07
//! =72
//! ```

use crate::error::{Error, Result};
use crate::task::check_base;

/// One iteration of the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Digit popped from the first operand (0 when exhausted).
    pub d1: u8,
    /// Digit popped from the second operand (0 when exhausted).
    pub d2: u8,
    /// Carry into the step.
    pub carry_in: u8,
    /// `t = d₁ + d₂ + c`.
    pub total: u8,
    /// `t mod β`, prepended to the result.
    pub digit: u8,
    /// `⌊t/β⌋`.
    pub carry_out: u8,
}

/// The full trace of the rule on two digit strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The base `β`.
    pub base: u32,
    /// First operand's digits, most significant first.
    pub a: Vec<u8>,
    /// Second operand's digits, most significant first.
    pub b: Vec<u8>,
    /// One step per loop iteration (`max(len a, len b)` steps).
    pub steps: Vec<Step>,
    /// The carry left after the loop (0 or 1).
    pub final_carry: u8,
    /// The result digits, most significant first.
    pub result: Vec<u8>,
}

/// Digits of a string in base `base` (each char `0`–`9` below the base).
///
/// # Errors
/// [`Error::InvalidBase`]; [`Error::Parse`] for an empty string or a bad digit.
pub fn digits(s: &str, base: u32) -> Result<Vec<u8>> {
    check_base(base)?;
    if s.is_empty() {
        return Err(Error::Parse {
            line: 1,
            msg: "empty operand".into(),
        });
    }
    s.chars()
        .map(|c| {
            c.to_digit(10)
                .filter(|&d| d < base)
                .map(|d| d as u8)
                .ok_or(Error::Parse {
                    line: 1,
                    msg: format!("{c:?} is not a base-{base} digit"),
                })
        })
        .collect()
}

fn check_digits(d: &[u8], base: u32, what: &'static str) -> Result<()> {
    if d.is_empty() {
        return Err(Error::Empty(what));
    }
    if let Some(&bad) = d.iter().find(|&&x| u32::from(x) >= base) {
        return Err(Error::InvalidParameter {
            name: what,
            value: bad.to_string(),
            expected: "digits below the base",
        });
    }
    Ok(())
}

/// Runs the rule on digit strings `a`, `b` (most significant first) in base
/// `base`. O(max(len a, len b)).
///
/// # Errors
/// [`Error::InvalidBase`]; [`Error::Empty`] for an empty operand;
/// [`Error::InvalidParameter`] for a digit `≥ β`.
pub fn trace(a: &[u8], b: &[u8], base: u32) -> Result<Trace> {
    check_base(base)?;
    check_digits(a, base, "first operand")?;
    check_digits(b, base, "second operand")?;
    let beta = base as u8;
    let (mut ra, mut rb) = (a.to_vec(), b.to_vec());
    let mut carry = 0u8;
    let mut steps = Vec::with_capacity(a.len().max(b.len()));
    let mut result = Vec::with_capacity(steps.capacity() + 1);
    while !ra.is_empty() || !rb.is_empty() {
        let d1 = ra.pop().unwrap_or(0);
        let d2 = rb.pop().unwrap_or(0);
        let total = d1 + d2 + carry;
        let step = Step {
            d1,
            d2,
            carry_in: carry,
            total,
            digit: total % beta,
            carry_out: total / beta,
        };
        result.push(step.digit);
        carry = step.carry_out;
        steps.push(step);
    }
    if carry > 0 {
        result.push(carry);
    }
    result.reverse();
    Ok(Trace {
        base,
        a: a.to_vec(),
        b: b.to_vec(),
        steps,
        final_carry: carry,
        result,
    })
}

fn digit_char(d: u8) -> char {
    char::from(b'0' + d)
}

/// Digits as a string (`[7, 2]` → `"72"`).
pub fn digits_to_string(d: &[u8]) -> String {
    d.iter().map(|&x| digit_char(x)).collect()
}

impl Trace {
    /// The result as a string.
    pub fn answer(&self) -> String {
        digits_to_string(&self.result)
    }

    /// The compact rule text (module docs). O(steps).
    pub fn compact_text(&self) -> String {
        let beta = self.base as u8;
        let mut out = String::with_capacity(self.steps.len() * 9 + self.result.len() + 1);
        for s in &self.steps {
            out.push(digit_char(s.d1));
            out.push('+');
            out.push(digit_char(s.d2));
            out.push('+');
            out.push(digit_char(s.carry_in));
            out.push('=');
            out.push(digit_char(s.total / beta));
            out.push(digit_char(s.total % beta));
            out.push('\n');
        }
        out.push('=');
        out.push_str(&self.answer());
        out
    }
}

/// What [`verify_compact`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The 0-based index of the first line that breaks the rule (the answer
    /// line is step `max(len a, len b)`; a missing or extra line counts at
    /// its position); `None` for a valid trace.
    pub first_bad_step: Option<usize>,
    /// Why that step is wrong.
    pub reason: Option<String>,
    /// The answer the trace states, if its answer line parses.
    pub stated_answer: Option<String>,
}

impl Verdict {
    /// Whether the trace follows the rule throughout.
    pub fn is_valid(&self) -> bool {
        self.first_bad_step.is_none()
    }
}

fn bad(step: usize, reason: String, stated: Option<String>) -> Verdict {
    Verdict {
        first_bad_step: Some(step),
        reason: Some(reason),
        stated_answer: stated,
    }
}

/// Checks a compact rule text for the problem `a + b` in base `base`, line
/// by line against the rule's state (remaining digits, carry, result so
/// far): each step must pop the right digits, carry the previous carry,
/// and add correctly; the answer line must state the accumulated result.
/// A step is judged by the state the rule reaches from the question, so a
/// corruption is flagged at the line where it is. O(len text).
///
/// # Errors
/// As [`trace`] for the problem (the text itself never errors: a malformed
/// line is a bad step).
pub fn verify_compact(a: &[u8], b: &[u8], base: u32, text: &str) -> Result<Verdict> {
    let truth = trace(a, b, base)?;
    let beta = base as u8;
    let lines: Vec<&str> = text.split('\n').collect();
    let n = truth.steps.len();
    let stated = lines
        .last()
        .and_then(|l| l.strip_prefix('='))
        .filter(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string);
    let mut result: Vec<u8> = Vec::with_capacity(n + 1);
    for (i, expect) in truth.steps.iter().enumerate() {
        let Some(line) = lines.get(i) else {
            return Ok(bad(i, format!("missing step {i}"), stated));
        };
        let c: Vec<char> = line.chars().collect();
        let parsed = (c.len() == 8 && c[1] == '+' && c[3] == '+' && c[5] == '=')
            .then(|| {
                let d = |k: usize| c[k].to_digit(10).filter(|&v| v < base).map(|v| v as u8);
                Some((d(0)?, d(2)?, d(4)?, d(6)?, d(7)?))
            })
            .flatten();
        let Some((d1, d2, cin, hi, lo)) = parsed else {
            return Ok(bad(i, format!("line {line:?} is not `d+d+c=tt`"), stated));
        };
        if d1 != expect.d1 || d2 != expect.d2 {
            return Ok(bad(
                i,
                format!(
                    "pops {d1} and {d2}, the rule pops {} and {}",
                    expect.d1, expect.d2
                ),
                stated,
            ));
        }
        if cin != expect.carry_in {
            return Ok(bad(
                i,
                format!(
                    "carry in {cin}, the previous step carried {}",
                    expect.carry_in
                ),
                stated,
            ));
        }
        let total = d1 + d2 + cin;
        if hi != total / beta || lo != total % beta {
            return Ok(bad(
                i,
                format!(
                    "{d1}+{d2}+{cin} is written {hi}{lo}, it is {}{} in base {base}",
                    total / beta,
                    total % beta
                ),
                stated,
            ));
        }
        result.push(lo);
    }
    if truth.final_carry > 0 {
        result.push(truth.final_carry);
    }
    result.reverse();
    let want = format!("={}", digits_to_string(&result));
    match lines.get(n) {
        None => return Ok(bad(n, "missing answer line".into(), stated)),
        Some(&l) if l != want => {
            return Ok(bad(
                n,
                format!("answer line {l:?}, the steps give {want:?}"),
                stated,
            ));
        }
        Some(_) => {}
    }
    if lines.len() > n + 1 {
        return Ok(bad(n + 1, "text after the answer line".into(), stated));
    }
    Ok(Verdict {
        first_bad_step: None,
        reason: None,
        stated_answer: stated,
    })
}

/// Runs the compact rule text as a program: parses the steps, checks each
/// against the rule's arithmetic (not against the question), and returns
/// the number it computes, in base `base`. This is the *trace interpreter*:
/// for a valid trace of `a + b` it returns `a + b`. O(len text).
///
/// # Errors
/// [`Error::InvalidBase`]; [`Error::Parse`] with the 1-based line of the
/// first malformed or inconsistent line.
pub fn interpret_compact(text: &str, base: u32) -> Result<u128> {
    check_base(base)?;
    let beta = base as u8;
    let lines: Vec<&str> = text.split('\n').collect();
    let (last, steps) = lines.split_last().ok_or(Error::Empty("trace"))?;
    let mut carry = 0u8;
    let mut result: Vec<u8> = Vec::new();
    for (i, line) in steps.iter().enumerate() {
        let err = |msg: String| Error::Parse { line: i + 1, msg };
        let c: Vec<char> = line.chars().collect();
        if !(c.len() == 8 && c[1] == '+' && c[3] == '+' && c[5] == '=') {
            return Err(err(format!("{line:?} is not `d+d+c=tt`")));
        }
        let d = |k: usize| {
            c[k].to_digit(10)
                .filter(|&v| v < base)
                .map(|v| v as u8)
                .ok_or_else(|| err(format!("{:?} is not a base-{base} digit", c[k])))
        };
        let (d1, d2, cin, hi, lo) = (d(0)?, d(2)?, d(4)?, d(6)?, d(7)?);
        if cin != carry {
            return Err(err(format!("carry {cin} but {carry} was carried")));
        }
        let t = d1 + d2 + cin;
        if hi != t / beta || lo != t % beta {
            return Err(err(format!("{d1}+{d2}+{cin} is not {hi}{lo}")));
        }
        result.push(lo);
        carry = hi;
    }
    if carry > 0 {
        result.push(carry);
    }
    let stated = last.strip_prefix('=').ok_or_else(|| Error::Parse {
        line: lines.len(),
        msg: "the answer line must start with `=`".into(),
    })?;
    result.reverse();
    if steps.is_empty() || stated != digits_to_string(&result) {
        return Err(Error::Parse {
            line: lines.len(),
            msg: format!(
                "answer {stated:?}, the steps give {:?}",
                digits_to_string(&result)
            ),
        });
    }
    let mut v: u128 = 0;
    for &d in &result {
        v = v
            .checked_mul(u128::from(base))
            .and_then(|v| v.checked_add(u128::from(d)))
            .ok_or(Error::Overflow("trace value"))?;
    }
    Ok(v)
}
