//! Reader and writer of the official JSON files.
//!
//! Each file is one array of records `{"id", "question", "a", "b",
//! "answers": [..]}` (scratchpad files add `"gt"`); answers are strings, or
//! integers for modular addition. [`write_json`] writes Python's
//! `json.dump` layout (`", "` and `": "` separators, ASCII escapes) with the
//! official key order, so that a regenerated test set is byte for byte the
//! released file.

use crate::error::{Error, Result};
use crate::task::{Answer, Sample, TaskName};
use serde_json::Value;

/// One record of an official file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The id.
    pub id: u64,
    /// The question string.
    pub question: String,
    /// First operand (absent in some official files).
    pub a: Option<u64>,
    /// Second operand.
    pub b: Option<u64>,
    /// The answers (one in every official file).
    pub answers: Vec<Answer>,
    /// The final answer of a scratchpad record.
    pub gt: Option<String>,
}

impl Record {
    /// A direct-answer record of a sample.
    pub fn from_sample(s: &Sample) -> Record {
        Record {
            id: s.id,
            question: s.question.clone(),
            a: Some(s.a),
            b: Some(s.b),
            answers: vec![s.answer.clone()],
            gt: None,
        }
    }

    /// The sample of a record with both operands and exactly one answer.
    ///
    /// # Errors
    /// [`Error::Parse`] (line 1) naming the id when `a`, `b` or the single answer is missing.
    pub fn to_sample(&self) -> Result<Sample> {
        let bad = |msg: &str| Error::Parse {
            line: 1,
            msg: format!("record {}: {msg}", self.id),
        };
        let (Some(a), Some(b)) = (self.a, self.b) else {
            return Err(bad("no operands `a`, `b`"));
        };
        let [answer] = self.answers.as_slice() else {
            return Err(bad("expected exactly one answer"));
        };
        Ok(Sample {
            id: self.id,
            a,
            b,
            question: self.question.clone(),
            answer: answer.clone(),
        })
    }
}

/// Byte offsets at which each top-level array element starts (a scan that respects strings).
fn element_starts(text: &str) -> Vec<usize> {
    let (mut depth, mut in_str, mut escape) = (0i32, false, false);
    let mut starts = Vec::new();
    for (i, c) in text.char_indices() {
        if in_str {
            if escape {
                escape = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => {
                if depth == 1 {
                    starts.push(i);
                }
                depth += 1;
            }
            '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    starts
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |s| s.bytes().filter(|&b| b == b'\n').count() + 1)
}

fn field_u64(
    obj: &serde_json::Map<String, Value>,
    key: &str,
) -> std::result::Result<Option<u64>, String> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` is not a non-negative integer")),
    }
}

/// Reads an official JSON file (text). O(len).
///
/// # Errors
/// [`Error::Parse`] with the 1-based line for invalid JSON, a top level that
/// is not an array, or a record with a missing or mistyped field; [`Error::Empty`]
/// for an empty array.
pub fn read_json(text: &str) -> Result<Vec<Record>> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::Parse {
        line: e.line().max(1),
        msg: e.to_string(),
    })?;
    let Value::Array(items) = value else {
        return Err(Error::Parse {
            line: 1,
            msg: "the top level is not an array".into(),
        });
    };
    if items.is_empty() {
        return Err(Error::Empty("JSON record array"));
    }
    let starts = element_starts(text);
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let line = starts.get(i).map_or(1, |&o| line_of(text, o));
            let bad = |msg: String| Error::Parse {
                line,
                msg: format!("record {i}: {msg}"),
            };
            let obj = item
                .as_object()
                .ok_or_else(|| bad("not an object".into()))?;
            let id = field_u64(obj, "id")
                .map_err(&bad)?
                .ok_or_else(|| bad("no `id`".into()))?;
            let question = obj
                .get("question")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("no string `question`".into()))?
                .to_string();
            let a = field_u64(obj, "a").map_err(&bad)?;
            let b = field_u64(obj, "b").map_err(&bad)?;
            let answers = obj
                .get("answers")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("no array `answers`".into()))?
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(Answer::Text(s.clone())),
                    Value::Number(n) => n
                        .as_i64()
                        .map(Answer::Int)
                        .ok_or_else(|| bad(format!("answer {n} is not an integer"))),
                    other => Err(bad(format!(
                        "answer {other} is neither a string nor an integer"
                    ))),
                })
                .collect::<Result<Vec<_>>>()?;
            if answers.is_empty() {
                return Err(bad("empty `answers`".into()));
            }
            let gt = match obj.get("gt") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err(bad("`gt` is not a string".into())),
            };
            Ok(Record {
                id,
                question,
                a,
                b,
                answers,
                gt,
            })
        })
        .collect()
}

/// Appends `s` as a JSON string the way Python's `json.dumps` writes it
/// (`ensure_ascii=True`).
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes records in the official layout: Python `json.dump` separators and
/// the official key order (`id, question, a, b, answers[, gt]`; chicken &
/// rabbit: `id, question, answers, a, b`). O(total length).
///
/// # Errors
/// [`Error::Empty`] for no records.
pub fn write_json(records: &[Record], task: TaskName) -> Result<String> {
    if records.is_empty() {
        return Err(Error::Empty("records"));
    }
    let mut out = String::with_capacity(records.len() * 80);
    out.push('[');
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("{{\"id\": {}, \"question\": ", r.id));
        push_str(&mut out, &r.question);
        let operands = |out: &mut String| {
            if let Some(a) = r.a {
                out.push_str(&format!(", \"a\": {a}"));
            }
            if let Some(b) = r.b {
                out.push_str(&format!(", \"b\": {b}"));
            }
        };
        let answers = |out: &mut String| {
            out.push_str(", \"answers\": [");
            for (j, ans) in r.answers.iter().enumerate() {
                if j > 0 {
                    out.push_str(", ");
                }
                match ans {
                    Answer::Text(s) => push_str(out, s),
                    Answer::Int(v) => out.push_str(&v.to_string()),
                }
            }
            out.push(']');
        };
        if task == TaskName::RabbitsAndChickens {
            answers(&mut out);
            operands(&mut out);
        } else {
            operands(&mut out);
            answers(&mut out);
        }
        if let Some(gt) = &r.gt {
            out.push_str(", \"gt\": ");
            push_str(&mut out, gt);
        }
        out.push('}');
    }
    out.push(']');
    Ok(out)
}
