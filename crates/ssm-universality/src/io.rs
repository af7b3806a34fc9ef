//! Readers for real sequences: the sktime/aeon `.ts` format of the UCR/UEA
//! archive and single-column CSV series. Malformed text is an
//! [`Error::Parse`] with its 1-based line number.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2};

/// A classification problem read from a `.ts` file.
#[derive(Debug, Clone, PartialEq)]
pub struct TsData {
    /// `@problemName` (empty if absent).
    pub problem_name: String,
    /// The class labels declared by `@classLabel true …`, in order.
    pub class_labels: Vec<String>,
    /// One `length × channels` array per instance (lengths may differ).
    pub series: Vec<Array2<f64>>,
    /// The class of each instance, as an index into `class_labels`.
    pub labels: Vec<usize>,
}

impl TsData {
    /// The number of channels (`@dimensions`, or the first instance's).
    pub fn channels(&self) -> usize {
        self.series.first().map_or(0, |s| s.ncols())
    }
}

fn perr(line: usize, reason: impl Into<String>) -> Error {
    Error::Parse {
        line,
        reason: reason.into(),
    }
}

fn parse_bool(v: Option<&str>, line: usize, tag: &str) -> Result<bool> {
    match v.map(str::to_ascii_lowercase).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => Err(perr(line, format!("{tag} needs true or false"))),
    }
}

fn parse_usize(v: Option<&str>, line: usize, tag: &str) -> Result<usize> {
    v.and_then(|s| s.parse().ok())
        .ok_or_else(|| perr(line, format!("{tag} needs a non-negative integer")))
}

/// Parses a `.ts` file (sktime/aeon format): `#` comments, `@` header tags
/// (`@problemName`, `@timeStamps false`, `@missing`, `@univariate`,
/// `@dimensions`, `@equalLength`, `@seriesLength`, `@classLabel true …`),
/// then after `@data` one instance per line: channels separated by `:`, values
/// by `,`, the class label last. O(size of the text).
///
/// # Errors
/// [`Error::Parse`] with the line for: an unknown tag, time stamps (not
/// supported), a missing value `?` or a non-numeric value, a channel count or
/// series length that contradicts the header or the instance's other
/// channels, an undeclared label, no `@classLabel true`, no `@data`, no instance.
pub fn read_ts(text: &str) -> Result<TsData> {
    let mut problem_name = String::new();
    let mut class_labels: Option<Vec<String>> = None;
    let (mut dims, mut series_len, mut equal) = (None, None, None);
    let mut in_data = false;
    let mut series = Vec::new();
    let mut labels = Vec::new();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        last_line = line_no;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !in_data {
            if !line.starts_with('@') {
                return Err(perr(line_no, "expected a @tag or a # comment before @data"));
            }
            let mut parts = line.split_whitespace();
            let tag = parts.next().unwrap_or("").to_ascii_lowercase();
            match tag.as_str() {
                "@problemname" => problem_name = parts.collect::<Vec<_>>().join(" "),
                "@timestamps" => {
                    if parse_bool(parts.next(), line_no, "@timeStamps")? {
                        return Err(perr(line_no, "time-stamped .ts data is not supported"));
                    }
                }
                "@missing" => {
                    parse_bool(parts.next(), line_no, "@missing")?;
                }
                "@univariate" => {
                    if parse_bool(parts.next(), line_no, "@univariate")? {
                        dims = dims.or(Some(1));
                    }
                }
                "@dimensions" | "@dimension" => {
                    dims = Some(parse_usize(parts.next(), line_no, "@dimensions")?)
                }
                "@equallength" => equal = Some(parse_bool(parts.next(), line_no, "@equalLength")?),
                "@serieslength" => {
                    series_len = Some(parse_usize(parts.next(), line_no, "@seriesLength")?)
                }
                "@classlabel" => {
                    if parse_bool(parts.next(), line_no, "@classLabel")? {
                        let l: Vec<String> = parts.map(str::to_string).collect();
                        if l.is_empty() {
                            return Err(perr(line_no, "@classLabel true lists no label"));
                        }
                        class_labels = Some(l);
                    }
                }
                "@data" => {
                    if class_labels.is_none() {
                        return Err(perr(line_no, "@data before @classLabel true <labels>"));
                    }
                    in_data = true;
                }
                other => return Err(perr(line_no, format!("unknown tag {other}"))),
            }
            continue;
        }
        let declared = class_labels
            .as_ref()
            .ok_or_else(|| perr(line_no, "no class labels"))?;
        let fields: Vec<&str> = line.split(':').collect();
        let (label, chans) = fields
            .split_last()
            .filter(|(_, c)| !c.is_empty())
            .ok_or_else(|| {
                perr(
                    line_no,
                    "an instance needs at least one channel and a label",
                )
            })?;
        let label = label.trim();
        let idx = declared
            .iter()
            .position(|c| c == label)
            .ok_or_else(|| perr(line_no, format!("label {label:?} is not declared")))?;
        if let Some(d) = dims
            && d != chans.len()
        {
            return Err(perr(
                line_no,
                format!("{} channels, header says {d}", chans.len()),
            ));
        }
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(chans.len());
        for ch in chans {
            let mut v = Vec::new();
            for tok in ch.split(',') {
                let tok = tok.trim();
                if tok == "?" {
                    return Err(perr(line_no, "missing value '?' is not supported"));
                }
                let x: f64 = tok
                    .parse()
                    .map_err(|_| perr(line_no, format!("{tok:?} is not a number")))?;
                if !x.is_finite() {
                    return Err(perr(line_no, format!("{tok:?} is not finite")));
                }
                v.push(x);
            }
            values.push(v);
        }
        let len = values[0].len();
        if values.iter().any(|v| v.len() != len) {
            return Err(perr(
                line_no,
                "channels of one instance have different lengths",
            ));
        }
        if equal == Some(true)
            && let Some(sl) = series_len
            && sl != len
        {
            return Err(perr(
                line_no,
                format!("series length {len}, header says {sl}"),
            ));
        }
        if let Some(first) = series.first().map(|s: &Array2<f64>| s.ncols())
            && first != values.len()
        {
            return Err(perr(
                line_no,
                format!("{} channels, earlier instances have {first}", values.len()),
            ));
        }
        let c = values.len();
        series.push(Array2::from_shape_fn((len, c), |(t, j)| values[j][t]));
        labels.push(idx);
    }
    if !in_data {
        return Err(perr(last_line.max(1), "no @data section"));
    }
    if series.is_empty() {
        return Err(perr(last_line.max(1), "no instance after @data"));
    }
    Ok(TsData {
        problem_name,
        class_labels: class_labels.unwrap_or_default(),
        series,
        labels,
    })
}

/// Reads the column `column` of a CSV text with a header line (fields
/// separated by `,`, optionally double-quoted, no embedded commas). O(size).
///
/// # Errors
/// [`Error::Parse`] with the line for: an empty text, no such column, a row
/// with fewer fields, a value that is not a finite number; [`Error::EmptySequence`]
/// when there is no data row.
pub fn read_csv_series(text: &str, column: &str) -> Result<Array1<f64>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or_else(|| perr(1, "empty CSV"))?;
    let unquote = |s: &str| s.trim().trim_matches('"').to_string();
    let names: Vec<String> = header.split(',').map(unquote).collect();
    let col = names
        .iter()
        .position(|n| n == column)
        .ok_or_else(|| perr(1, format!("no column {column:?} in header {names:?}")))?;
    let mut out = Vec::new();
    for (i, l) in lines {
        let f: Vec<String> = l.split(',').map(unquote).collect();
        let tok = f.get(col).ok_or_else(|| {
            perr(
                i + 1,
                format!("{} fields, column {column:?} is field {}", f.len(), col + 1),
            )
        })?;
        let x: f64 = tok
            .parse()
            .map_err(|_| perr(i + 1, format!("{tok:?} is not a number")))?;
        if !x.is_finite() {
            return Err(perr(i + 1, format!("{tok:?} is not finite")));
        }
        out.push(x);
    }
    if out.is_empty() {
        return Err(Error::EmptySequence {
            what: "CSV data rows",
        });
    }
    Ok(Array1::from(out))
}
