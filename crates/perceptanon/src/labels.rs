//! Human anonymity scores (1–10) and the five training targets of the
//! official code, with the direction of the scale as an explicit type.

use crate::error::{Error, Result};

/// Which end of the 1–10 scale means "anonymous". The paper's released
/// code does not say it in the data; a data set states it here, and every
/// comparison with a metric goes through [`ScaleDirection::anonymity`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScaleDirection {
    /// 10 = fully anonymous, 1 = identifiable.
    HigherIsMoreAnonymous,
    /// 1 = fully anonymous, 10 = identifiable.
    HigherIsLessAnonymous,
}

impl ScaleDirection {
    /// The score re-oriented so that higher always means more anonymous:
    /// s for [`HigherIsMoreAnonymous`](Self::HigherIsMoreAnonymous), 11 − s otherwise.
    ///
    /// # Errors
    /// [`Error::ScoreOutOfRange`] for s ∉ [1, 10].
    pub fn anonymity(self, score: f64) -> Result<f64> {
        check_score(score, 0)?;
        Ok(match self {
            Self::HigherIsMoreAnonymous => score,
            Self::HigherIsLessAnonymous => 11.0 - score,
        })
    }
}

/// Checks s ∈ [1, 10] (finite).
///
/// # Errors
/// [`Error::ScoreOutOfRange`] with `index`.
pub fn check_score(score: f64, index: usize) -> Result<()> {
    if (1.0..=10.0).contains(&score) {
        Ok(())
    } else {
        Err(Error::ScoreOutOfRange {
            value: score,
            index,
        })
    }
}

/// The five label granularities of the official training code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LabelScale {
    /// Regression on t = (s − 1)/9 ∈ [0, 1] (sigmoid output, MSE loss).
    Mean,
    /// Ten classes: round(s) − 1 (round half to even, Python's `round`).
    Ten,
    /// Five classes, bins [< 3, < 5, < 7, < 9, ≥ 9].
    Five,
    /// Three classes, bins [< 5, < 8, ≥ 8].
    Three,
    /// Two classes: s > 5 → class 0, otherwise class 1 (the code's order:
    /// class 0 is the high end of the scale).
    Binary,
}

/// A training target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// A regression target in [0, 1].
    Regression(f64),
    /// A class index in `0..classes`.
    Class(usize),
}

impl LabelScale {
    /// All five, in the order above.
    pub const ALL: [LabelScale; 5] = [
        LabelScale::Mean,
        LabelScale::Ten,
        LabelScale::Five,
        LabelScale::Three,
        LabelScale::Binary,
    ];

    /// Output width of a head: 1 for [`Mean`](Self::Mean), else the class count.
    pub fn outputs(self) -> usize {
        match self {
            Self::Mean => 1,
            Self::Ten => 10,
            Self::Five => 5,
            Self::Three => 3,
            Self::Binary => 2,
        }
    }

    /// Short name (the code's `mean`, `labels10`, `labels5`, `labels3`, `binary`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Mean => "mean",
            Self::Ten => "labels10",
            Self::Five => "labels5",
            Self::Three => "labels3",
            Self::Binary => "binary",
        }
    }

    /// The target of score s ∈ [1, 10]. O(1).
    ///
    /// # Errors
    /// [`Error::ScoreOutOfRange`].
    pub fn transform(self, score: f64) -> Result<Target> {
        check_score(score, 0)?;
        let s = score;
        Ok(match self {
            Self::Mean => Target::Regression((s - 1.0) / 9.0),
            Self::Ten => Target::Class((s.round_ties_even() as usize).clamp(1, 10) - 1),
            Self::Five => Target::Class(if s < 3.0 {
                0
            } else if s < 5.0 {
                1
            } else if s < 7.0 {
                2
            } else if s < 9.0 {
                3
            } else {
                4
            }),
            Self::Three => Target::Class(if s < 5.0 {
                0
            } else if s < 8.0 {
                1
            } else {
                2
            }),
            Self::Binary => Target::Class(usize::from(s <= 5.0)),
        })
    }

    /// A score-like value of a prediction, increasing with the score:
    /// 1 + 9t for a regression output t, and for class probabilities the
    /// expected class E(c) (reversed for [`Binary`](Self::Binary), whose
    /// class 0 is the high end), so predictions can be rank-correlated with
    /// scores. O(C).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when `output.len() ≠ self.outputs()`;
    /// [`Error::NonFinite`].
    pub fn score_of(self, output: &[f64]) -> Result<f64> {
        if output.len() != self.outputs() {
            return Err(Error::SizeMismatch {
                what: "head output",
                expected: format!("{} values", self.outputs()),
                found: format!("{} values", output.len()),
            });
        }
        crate::error::check_finite(output, "head output")?;
        Ok(match self {
            Self::Mean => 1.0 + 9.0 * output[0],
            Self::Binary => output[0],
            _ => output.iter().enumerate().map(|(c, p)| c as f64 * p).sum(),
        })
    }
}

/// Class weights w_c = N / N_c of the official weighted cross-entropy
/// (classes absent from `labels` get weight 0). O(N + C).
///
/// # Errors
/// [`Error::EmptyInput`]; [`Error::InvalidParameter`] for a label ≥ `classes`.
pub fn class_weights(labels: &[usize], classes: usize) -> Result<Vec<f64>> {
    if labels.is_empty() {
        return Err(Error::EmptyInput { what: "labels" });
    }
    let mut counts = vec![0usize; classes];
    for &l in labels {
        if l >= classes {
            return Err(Error::InvalidParameter {
                name: "label",
                value: l as f64,
                expected: "a class index below the class count",
            });
        }
        counts[l] += 1;
    }
    let n = labels.len() as f64;
    Ok(counts
        .into_iter()
        .map(|c| if c == 0 { 0.0 } else { n / c as f64 })
        .collect())
}
