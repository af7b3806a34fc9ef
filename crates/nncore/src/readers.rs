//! Readers of the vendored data sets (`data/<name>/`, verified by
//! [`mlcore::data::Dataset`] on every read: a missing or altered file is an
//! error naming the file and its expected SHA-256).
//!
//! PNG images are not read here yet: no data set in `data/` is an image file
//! today, and the `image` crate is left out until one is.

use crate::data::ClassificationData;
use crate::error::{Error, Result};
use mlcore::data::Dataset;
use ndarray::Array2;

/// The file of the digits data set inside `data/digits/`.
pub const DIGITS_FILE: &str = "digits.csv.gz";

/// Parses a headerless CSV of integer rows `x₁,…,x_d,label` (the layout of
/// scikit-learn's `digits.csv.gz`) into features and labels; `file` names
/// the source in errors. Labels must be `< classes`. O(n·d).
///
/// # Errors
/// [`Error::Parse`] naming the line for a non-numeric field or a row whose
/// length differs from the first one's; [`Error::Empty`] for no rows;
/// [`Error::LabelOutOfRange`] for a label `≥ classes`.
pub fn labelled_csv(text: &str, file: &str, classes: usize) -> Result<ClassificationData> {
    let mut values = Vec::new();
    let mut labels = Vec::new();
    let mut width = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let parse_error = |reason: String| Error::Parse {
            file: file.to_string(),
            line: i + 1,
            reason,
        };
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 2 {
            return Err(parse_error("fewer than two fields".into()));
        }
        if *width.get_or_insert(fields.len()) != fields.len() {
            return Err(parse_error(format!(
                "{} fields, the first row has {}",
                fields.len(),
                width.unwrap_or(0)
            )));
        }
        let (label, features) = fields.split_last().expect("at least two fields");
        for f in features {
            let v: f32 = f
                .trim()
                .parse()
                .map_err(|_| parse_error(format!("`{f}` is not a number")))?;
            if !v.is_finite() {
                return Err(parse_error(format!("`{f}` is not finite")));
            }
            values.push(v);
        }
        let label: usize = label
            .trim()
            .parse()
            .map_err(|_| parse_error(format!("label `{label}` is not a non-negative integer")))?;
        labels.push(label);
    }
    let d = width.ok_or(Error::Empty { what: "CSV rows" })? - 1;
    let x = Array2::from_shape_vec((labels.len(), d), values).map_err(|e| Error::Parse {
        file: file.to_string(),
        line: 0,
        reason: e.to_string(),
    })?;
    ClassificationData::new(x, labels, classes)
}

/// The 1,797 handwritten digits of `data/digits/` (UCI optical-recognition
/// test set as scikit-learn ships it): 64 pixel counts in `0..=16` per
/// 8×8 image, row-major, and a label `0..=9`. Features are returned
/// unscaled; divide by 16 with [`ClassificationData::scaled`] for `[0, 1]`.
///
/// # Errors
/// [`Error::Core`] when `digits.csv.gz` is missing, not listed or altered
/// (naming the file and its expected SHA-256); as [`labelled_csv`].
pub fn digits(dataset: &Dataset) -> Result<ClassificationData> {
    let text = dataset.read_to_string(DIGITS_FILE)?;
    labelled_csv(&text, DIGITS_FILE, 10)
}

/// A character-level corpus: the distinct characters in order of first
/// appearance (`vocab`) and the text as indices into it (`ids`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharCorpus {
    /// The distinct characters, in order of first appearance.
    pub vocab: Vec<char>,
    /// The text, one vocabulary index per character.
    pub ids: Vec<u32>,
}

impl CharCorpus {
    /// Encodes `text` character by character. O(len·log |vocab|).
    ///
    /// # Errors
    /// [`Error::Empty`] for an empty text.
    pub fn from_text(text: &str) -> Result<Self> {
        if text.is_empty() {
            return Err(Error::Empty { what: "text" });
        }
        let mut index = std::collections::BTreeMap::new();
        let mut vocab = Vec::new();
        let ids = text
            .chars()
            .map(|c| {
                *index.entry(c).or_insert_with(|| {
                    vocab.push(c);
                    (vocab.len() - 1) as u32
                })
            })
            .collect();
        Ok(Self { vocab, ids })
    }

    /// Reads `file` of a vendored data set (gzipped text is decompressed
    /// after its SHA-256 is checked) and encodes it with [`from_text`](Self::from_text).
    ///
    /// # Errors
    /// [`Error::Core`] for a missing, unlisted or altered file or invalid
    /// UTF-8; [`Error::Empty`] for an empty text.
    pub fn read(dataset: &Dataset, file: &str) -> Result<Self> {
        Self::from_text(&dataset.read_to_string(file)?)
    }

    /// The text back from indices: the inverse of [`from_text`](Self::from_text).
    ///
    /// # Errors
    /// [`Error::LabelOutOfRange`] for an index outside the vocabulary.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        ids.iter()
            .enumerate()
            .map(|(index, &i)| {
                self.vocab
                    .get(i as usize)
                    .copied()
                    .ok_or(Error::LabelOutOfRange {
                        index,
                        label: i as usize,
                        classes: self.vocab.len(),
                    })
            })
            .collect()
    }
}
