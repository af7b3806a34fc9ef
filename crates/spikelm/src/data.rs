//! The vendored real texts: twelve Shakespeare plays (the char-LM corpus)
//! and four categories of the BSD `fortunes` quotations (a 4-way
//! sequence-classification task), read through [`mlcore::data::Dataset`],
//! which checks every file's SHA-256 on load.
//!
//! In a checkout of the repository the folders are
//! `mlcore::data::workspace_data_dir().join("shakespeare")` and `…("fortunes")`
//! (`data/shakespeare/SOURCE.md` and `data/fortunes/SOURCE.md` give origin,
//! version and licence: texts CC BY 2.5 by the Open Knowledge Foundation, and
//! the BSD-style fortune-mod licence).
//!
//! ```
//! use mlcore::data::{Dataset, workspace_data_dir};
//! # fn main() -> spikelm::Result<()> {
//! let ds = Dataset::open(workspace_data_dir().join("shakespeare"))?;
//! let plays = spikelm::data::shakespeare(&ds, &["macbeth"])?;
//! assert!(plays[0].1.starts_with("MACBETH"));
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use mlcore::data::Dataset;

/// The twelve vendored plays (file stems without `_gut.txt.gz`), in the order of `data/shakespeare/SOURCE.md`.
pub const PLAYS: [&str; 12] = [
    "hamlet",
    "lear",
    "othello",
    "romeo_and_juliet",
    "julius_caesar",
    "macbeth",
    "tempest",
    "midsummer_nights_dream",
    "merchant_of_venice",
    "twelfth_night",
    "as_you_like_it",
    "much_ado_about_nothing",
];

/// The four vendored `fortunes` categories; a quotation's label is its index here.
pub const FORTUNE_CATEGORIES: [&str; 4] = ["computers", "people", "politics", "science"];

/// The texts of the named plays (`(name, text)` in the order asked), each
/// verified by SHA-256 and decompressed. O(total size).
///
/// # Errors
/// [`Error::Empty`] for no names; [`Error::InvalidParameter`] for a name
/// not in [`PLAYS`]; [`Error::Core`] for a missing or altered file.
pub fn shakespeare(ds: &Dataset, names: &[&str]) -> Result<Vec<(String, String)>> {
    if names.is_empty() {
        return Err(Error::Empty("play names"));
    }
    names
        .iter()
        .map(|&name| {
            if !PLAYS.contains(&name) {
                return Err(Error::InvalidParameter {
                    name: "play",
                    value: name.to_string(),
                    expected: "one of spikelm::data::PLAYS",
                });
            }
            let text = ds.read_to_string(&format!("{name}_gut.txt.gz"))?;
            Ok((name.to_string(), text))
        })
        .collect()
}

/// Splits a fortune file into its quotations: items separated by lines
/// holding only `%`; backspace overstrikes (`c\u{8}`) are removed together
/// with the character they strike over, other control characters except
/// the line break become spaces, and each item is trimmed; empty items are
/// dropped. O(|text|).
pub fn split_fortunes(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut flush = |cur: &mut String| {
        let t = cur.trim();
        if !t.is_empty() {
            items.push(t.to_string());
        }
        cur.clear();
    };
    for line in text.lines() {
        if line == "%" {
            flush(&mut cur);
            continue;
        }
        for c in line.chars() {
            if c == '\u{8}' {
                cur.pop();
            } else if c.is_control() {
                cur.push(' ');
            } else {
                cur.push(c);
            }
        }
        cur.push('\n');
    }
    flush(&mut cur);
    items
}

/// The quotations of the four categories with their labels (index into
/// [`FORTUNE_CATEGORIES`]), category by category in file order. O(total size).
///
/// # Errors
/// [`Error::Core`] for a missing or altered file.
pub fn fortunes(ds: &Dataset) -> Result<Vec<(String, usize)>> {
    let mut out = Vec::new();
    for (label, cat) in FORTUNE_CATEGORIES.iter().enumerate() {
        let text = ds.read_to_string(&format!("{cat}.gz"))?;
        out.extend(split_fortunes(&text).into_iter().map(|q| (q, label)));
    }
    Ok(out)
}
