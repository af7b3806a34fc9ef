//! Prompt/target formats: direct answers, the fine-tuning scratchpad, the
//! in-context-learning scratchpad, the RFFT rule-following text, and the
//! compact rule text for small models; and fitting a text to a token budget
//! with the truncation reported.

use crate::error::{Error, Result};
use crate::rule::{digits, digits_to_string, trace};
use crate::task::{Sample, Task, to_base};

/// The RFFT instruction that opens a rule-following prompt.
pub const RFFT_INSTRUCTION: &str = "Follow the code step by step to answer the question: ";

/// The rule recited in RFFT prompts, as Python source (`β` is substituted).
pub const RFFT_RULE: &str = "def sum_digit_by_digit(num1, num2):
    result = []
    carry = 0
    while num1 or num2:
        digit1 = num1.pop() if num1 else 0
        digit2 = num2.pop() if num2 else 0
        total = digit1 + digit2 + carry
        result.insert(0, total % BASE)
        carry = total // BASE
    if carry:
        result.insert(0, carry)
    return result";

/// A text format of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The question, then the answer.
    Direct,
    /// The fine-tuning scratchpad, one line per step
    /// `"{remaining a}+{remaining b},{partial answer},C:{carry}"`, then the answer.
    Scratchpad {
        /// Reproduce the released base-`β` files: the official generator
        /// counts its lines from the base-`β` digit strings read as decimal
        /// (44 + 44 → 88 → `"107"`, three digits), so some records repeat
        /// their last line. Off: the count comes from the true sum.
        released_line_count: bool,
    },
    /// The scratchpad of the ICL prompts: each step line is followed by a
    /// `# added d1+d2+c=r` line (reconstructed from the paper's description).
    ScratchpadIcl,
    /// Rule-following fine-tuning: the prompt carries the rule as code and
    /// the digit lists; the target recites each code block and states the
    /// variables (paper §5, reconstructed).
    Rfft,
    /// The compact rule text of [`crate::rule`] (one `d+d+c=tt` line per step).
    CompactRule,
}

/// A rendered sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// What the model is given.
    pub prompt: String,
    /// What it must produce.
    pub target: String,
}

/// A text fitted to a token budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// Prompt followed by as much of the target as fits.
    pub text: String,
    /// Characters of the target cut off (0 when it fits).
    pub truncated: usize,
}

impl Rendered {
    /// Length in characters (the tokens of a char-level model) of prompt + target.
    pub fn tokens(&self) -> usize {
        self.prompt.chars().count() + self.target.chars().count()
    }

    /// Prompt + target within `budget` characters, reporting how much of
    /// the target was cut (the official scripts cut at 50 tokens silently).
    ///
    /// # Errors
    /// [`Error::PromptBudget`] for an empty prompt or one longer than the budget.
    pub fn fit(&self, budget: usize) -> Result<Fitted> {
        let len = self.prompt.chars().count();
        if len == 0 || len > budget {
            return Err(Error::PromptBudget { len, budget });
        }
        let room = budget - len;
        let tlen = self.target.chars().count();
        let mut text = self.prompt.clone();
        text.extend(self.target.chars().take(room));
        Ok(Fitted {
            text,
            truncated: tlen.saturating_sub(room),
        })
    }
}

fn operands(task: &Task, s: &Sample) -> Result<(String, String, u32)> {
    match *task {
        Task::Addition { .. } => Ok((s.a.to_string(), s.b.to_string(), 10)),
        Task::BaseAddition { base, .. } => Ok((to_base(s.a, base)?, to_base(s.b, base)?, base)),
        _ => Err(Error::InvalidParameter {
            name: "format",
            value: task.name().to_string(),
            expected: "addition or base addition for the step-by-step formats",
        }),
    }
}

/// The fine-tuning scratchpad of `a + b` written in base `base` (digit
/// strings), with `iterations` lines. O(iterations · len).
fn scratchpad_lines(a: &str, b: &str, base: u32, iterations: usize, icl: bool) -> Result<String> {
    let (mut da, mut db) = (digits(a, base)?, digits(b, base)?);
    let beta = base as u8;
    let mut answer: Vec<u8> = Vec::new();
    let mut c = 0u8;
    let mut lines: Vec<String> = Vec::with_capacity(iterations * 2);
    for _ in 0..iterations {
        lines.push(format!(
            "{}+{},{},C:{c}",
            digits_to_string(&da),
            digits_to_string(&db),
            digits_to_string(&answer)
        ));
        let (x, y) = match (da.pop(), db.pop()) {
            (None, None) => {
                if c > 0 {
                    answer.insert(0, c);
                }
                c = 0;
                continue;
            }
            (x, y) => (x.unwrap_or(0), y.unwrap_or(0)),
        };
        let r = x + y + c;
        if icl {
            lines.push(format!("# added {x}+{y}+{c}={r}"));
        }
        answer.insert(0, r % beta);
        c = r / beta;
    }
    Ok(lines.join("\n"))
}

/// The RFFT target: recite each block of the rule, then state the variables.
fn rfft_target(a: &str, b: &str, base: u32) -> Result<String> {
    let t = trace(&digits(a, base)?, &digits(b, base)?, base)?;
    let list = |d: &[u8]| {
        let v: Vec<String> = d.iter().map(u8::to_string).collect();
        format!("[{}]", v.join(", "))
    };
    let (mut n1, mut n2) = (t.a.clone(), t.b.clone());
    let mut result: Vec<u8> = Vec::new();
    let mut out = String::new();
    out.push_str("1. Initialize Result and Carry\n```python\nresult = []\ncarry = 0\n```\nresult=[], carry=0\n");
    for s in &t.steps {
        out.push_str(&format!(
            "2.1 check the stop criterion\n```python\nwhile num1 or num2:\n```\nbool(num1)={}, bool(num2)={}, enter the loop\n",
            if n1.is_empty() { "False" } else { "True" },
            if n2.is_empty() { "False" } else { "True" }
        ));
        n1.pop();
        n2.pop();
        result.insert(0, s.digit);
        out.push_str(&format!(
            "2.2 one iteration\n```python\ndigit1 = num1.pop() if num1 else 0\ndigit2 = num2.pop() if num2 else 0\ntotal = digit1 + digit2 + carry\nresult.insert(0, total % {base})\ncarry = total // {base}\n```\nnum1={}, num2={}, digit1={}, digit2={}\ntotal=digit1+digit2+carry={}+{}+{}={}\nresult.insert(0,total%{base})\nresult={}\ncarry={}//{base}={}\n2.3 back to the start of the loop\n",
            list(&n1), list(&n2), s.d1, s.d2, s.d1, s.d2, s.carry_in, s.total, list(&result), s.total, s.carry_out
        ));
    }
    out.push_str("2.1 check the stop criterion\n```python\nwhile num1 or num2:\n```\nbool(num1)=False, bool(num2)=False, exit the loop\n");
    out.push_str(&format!(
        "3. Check Remaining Carry\n```python\nif carry:\n    result.insert(0, carry)\n```\ncarry={}, result={}\n4. Return Result\n```python\nreturn result\n```\nresult={}\nThe answer is {}.",
        t.final_carry,
        list(&t.result),
        list(&t.result),
        t.answer()
    ));
    Ok(out)
}

impl Format {
    /// Renders a sample of `task`. Cost linear in the output length.
    ///
    /// # Errors
    /// [`Task::verify`]'s errors for a sample that is not the task's;
    /// [`Error::InvalidParameter`] for a step-by-step format on a task other
    /// than (base) addition.
    pub fn render(&self, task: &Task, s: &Sample) -> Result<Rendered> {
        task.verify(s)?;
        if *self == Format::Direct {
            return Ok(Rendered {
                prompt: s.question.clone(),
                target: s.answer.to_string(),
            });
        }
        let (a, b, base) = operands(task, s)?;
        let sum = to_base(s.a + s.b, base)?;
        let target = match *self {
            Format::Direct => s.answer.to_string(),
            Format::Scratchpad {
                released_line_count,
            } => {
                let count_of = if released_line_count && base != 10 {
                    let as_dec = |t: &str| t.parse::<u64>().map_err(|_| Error::Overflow("operand"));
                    let v = as_dec(&a)?
                        .checked_add(as_dec(&b)?)
                        .ok_or(Error::Overflow("operand"))?;
                    to_base(v, base)?
                } else {
                    sum.clone()
                };
                let lines = scratchpad_lines(&a, &b, base, count_of.len() + 1, false)?;
                format!("{lines}\n{sum}")
            }
            Format::ScratchpadIcl => {
                let lines = scratchpad_lines(&a, &b, base, sum.len() + 1, true)?;
                format!("{lines}\n{sum}")
            }
            Format::Rfft => rfft_target(&a, &b, base)?,
            Format::CompactRule => {
                trace(&digits(&a, base)?, &digits(&b, base)?, base)?.compact_text()
            }
        };
        let prompt = match self {
            Format::Rfft => {
                let list = |t: &str| -> Result<String> {
                    let v: Vec<String> = digits(t, base)?.iter().map(u8::to_string).collect();
                    Ok(format!("[{}]", v.join(", ")))
                };
                format!(
                    "{RFFT_INSTRUCTION}{}\n{}\nnum1={}\nnum2={}\n",
                    s.question,
                    RFFT_RULE.replace("BASE", &base.to_string()),
                    list(&a)?,
                    list(&b)?
                )
            }
            _ => s.question.clone(),
        };
        Ok(Rendered { prompt, target })
    }
}
