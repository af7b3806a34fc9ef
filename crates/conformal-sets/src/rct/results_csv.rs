//! The trial's results files: one participant per row.

use crate::error::{Error, Result};
use std::path::Path;

/// One participant's row of a trial results file
/// (`participant_id, experiment, num_correct, time, Age, Sex`).
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// The participant's identifier (kept as text).
    pub participant_id: String,
    /// The arm the participant was randomised to (`control`, `topk`,
    /// `conformal`, `conformal-large`, `topk-vitb32`, `conformal-vitb32`).
    pub experiment: String,
    /// Number of questions answered correctly.
    pub num_correct: u32,
    /// Time taken, in seconds.
    pub time: f64,
    /// Age in years; `None` when empty or withheld.
    pub age: Option<u32>,
    /// Sex as recorded; `None` when empty or withheld.
    pub sex: Option<String>,
}

/// An outcome recorded per participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Outcome {
    /// `num_correct`, the trial's primary outcome.
    #[default]
    NumCorrect,
    /// `time`, the response time in seconds.
    Time,
}

impl Participant {
    /// The value of `outcome` for this participant, as `f64`.
    pub fn outcome(&self, outcome: Outcome) -> f64 {
        match outcome {
            Outcome::NumCorrect => f64::from(self.num_correct),
            Outcome::Time => self.time,
        }
    }
}

/// Placeholders that the recruiting platform (Prolific) writes in place of
/// demographic data that is no longer available; read as missing.
const WITHHELD: [&str; 3] = [
    "DATA_EXPIRED",
    "CONSENT_REVOKED",
    "CONSENT_REVOKED_OR_EXPIRED",
];

/// Splits one CSV record (RFC 4180 quoting within the line: `"a,b"` and
/// `""` for a literal quote).
fn split_record(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => in_quotes = false,
                _ => field.push(c),
            }
        } else {
            match c {
                ',' => {
                    fields.push(finish_field(&field, was_quoted));
                    field.clear();
                    was_quoted = false;
                }
                '"' if field.trim().is_empty() && !was_quoted => {
                    field.clear();
                    in_quotes = true;
                    was_quoted = true;
                }
                _ => field.push(c),
            }
        }
    }
    if in_quotes {
        return Err("unterminated quoted field".to_string());
    }
    fields.push(finish_field(&field, was_quoted));
    Ok(fields)
}

fn finish_field(field: &str, quoted: bool) -> String {
    if quoted {
        field.to_string()
    } else {
        field.trim().to_string()
    }
}

/// Parses the text of a trial results file; `source` names it in errors
/// (a path, or e.g. `"<memory>"`).
///
/// The first non-blank line is the header. The columns `participant_id`,
/// `experiment`, `num_correct` and `time` are required, `Age` and `Sex` are
/// optional; names match case-insensitively, in any order, and other
/// columns are ignored. Fields may be double-quoted (RFC 4180, within one
/// line); unquoted fields are trimmed; blank lines, a UTF-8 byte-order mark
/// and CRLF line ends are accepted. An empty `Age` or `Sex`, or the
/// platform's placeholders `DATA_EXPIRED` / `CONSENT_REVOKED`, read as
/// `None` (the official GoEmotions and ObjectNet files have one such `Sex`
/// each). O(size of the text).
///
/// # Errors
/// [`Error::Data`] naming `source` and the line: a missing header or
/// required column, a row with the wrong number of fields, an unparsable
/// `num_correct` (a non-negative integer), `time` (a finite number ≥ 0) or
/// `Age` (a non-negative integer), an empty `participant_id` or
/// `experiment`, or no data rows at all.
pub fn parse_results_csv(text: &str, source: &str) -> Result<Vec<Participant>> {
    let data_err = |line: Option<usize>, message: String| Error::Data {
        path: source.to_string(),
        message: match line {
            Some(l) => format!("line {l}: {message}"),
            None => message,
        },
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let (header_line, header) = lines
        .next()
        .ok_or_else(|| data_err(None, "the file is empty (no header)".to_string()))?;
    let names = split_record(header).map_err(|m| data_err(Some(header_line), m))?;
    let find = |name: &str| {
        names
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
    };
    let mut required = [0usize; 4];
    for (slot, name) in
        required
            .iter_mut()
            .zip(["participant_id", "experiment", "num_correct", "time"])
    {
        *slot = find(name).ok_or_else(|| {
            data_err(
                Some(header_line),
                format!("missing column {name:?} in the header"),
            )
        })?;
    }
    let [id_col, arm_col, correct_col, time_col] = required;
    let age_col = find("age");
    let sex_col = find("sex");
    let withheld = |v: &str| v.is_empty() || WITHHELD.contains(&v);

    let mut out = Vec::new();
    for (line_no, line) in lines {
        let fields = split_record(line).map_err(|m| data_err(Some(line_no), m))?;
        if fields.len() != names.len() {
            return Err(data_err(
                Some(line_no),
                format!("expected {} fields, found {}", names.len(), fields.len()),
            ));
        }
        let participant_id = fields[id_col].clone();
        if participant_id.is_empty() {
            return Err(data_err(Some(line_no), "empty participant_id".to_string()));
        }
        let experiment = fields[arm_col].clone();
        if experiment.is_empty() {
            return Err(data_err(Some(line_no), "empty experiment".to_string()));
        }
        let num_correct: u32 = fields[correct_col].parse().map_err(|_| {
            data_err(
                Some(line_no),
                format!(
                    "num_correct {:?} is not a non-negative integer",
                    fields[correct_col]
                ),
            )
        })?;
        let time: f64 = fields[time_col]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                data_err(
                    Some(line_no),
                    format!("time {:?} is not a finite number >= 0", fields[time_col]),
                )
            })?;
        let age = match age_col.map(|c| fields[c].as_str()) {
            None => None,
            Some(v) if withheld(v) => None,
            Some(v) => Some(v.parse::<u32>().map_err(|_| {
                data_err(
                    Some(line_no),
                    format!("Age {v:?} is not a non-negative integer"),
                )
            })?),
        };
        let sex = match sex_col.map(|c| fields[c].as_str()) {
            None => None,
            Some(v) if withheld(v) => None,
            Some(v) => Some(v.to_string()),
        };
        out.push(Participant {
            participant_id,
            experiment,
            num_correct,
            time,
            age,
            sex,
        });
    }
    if out.is_empty() {
        return Err(data_err(None, "no data rows after the header".to_string()));
    }
    Ok(out)
}

/// Reads a trial results file (`data/<task>/results.csv` of the official
/// code) with [`parse_results_csv`]. O(file size).
///
/// # Errors
/// [`Error::Data`] naming the path: the file cannot be read (the I/O error's
/// message), is not UTF-8, or does not parse.
pub fn read_results_csv<P: AsRef<Path>>(path: P) -> Result<Vec<Participant>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Data {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse_results_csv(&text, &path.display().to_string())
}

/// Reads one task's results from the vendored trial data set
/// (`data/hitl-conformal-rct/` of the repository, files `<task>.csv.gz`,
/// each checked against its SHA-256 on load) with [`parse_results_csv`].
/// `task` is `"few-nerd"`, `"go-emotions"` or `"object-net"`.
///
/// ```
/// use conformal_sets::rct::{Outcome, arm_outcome, read_trial};
/// use mlcore::data::{Dataset, workspace_data_dir};
/// let ds = Dataset::open(workspace_data_dir().join("hitl-conformal-rct"))?;
/// let p = read_trial(&ds, "few-nerd")?;
/// let conformal = arm_outcome(&p, "conformal", Outcome::NumCorrect)?;
/// assert_eq!(conformal.len(), 50);
/// assert!((conformal.mean().unwrap() - 40.76).abs() < 1e-12);
/// # Ok::<(), conformal_sets::Error>(())
/// ```
///
/// # Errors
/// [`Error::Data`] naming the file and its expected SHA-256 when it is
/// missing, unlisted or altered, or when it does not parse.
pub fn read_trial(dataset: &mlcore::data::Dataset, task: &str) -> Result<Vec<Participant>> {
    let file = format!("{task}.csv.gz");
    let text = dataset.read_to_string(&file).map_err(|e| match e {
        mlcore::Error::Data { path, reason } => Error::Data {
            path,
            message: reason,
        },
        other => Error::Data {
            path: dataset.dir().join(&file).display().to_string(),
            message: other.to_string(),
        },
    })?;
    parse_results_csv(&text, &file)
}
