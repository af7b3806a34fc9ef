//! The correlation report: each metric's Pearson r, Spearman ρ and
//! Kendall τ-b against human scores, per split.

use ndarray::ArrayView1;

use crate::corr::{KendallVariant, kendall, pearson, spearman};
use crate::error::{Error, Result};

/// One metric's row of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelationRow {
    /// The metric.
    pub metric: String,
    /// Pearson r.
    pub pearson: f64,
    /// Spearman ρ.
    pub spearman: f64,
    /// Kendall τ-b.
    pub kendall_b: f64,
    /// Number of samples.
    pub n: usize,
}

/// Correlates each `(name, predictions)` with `labels`. Predictions must be
/// oriented like the labels (a similarity such as SSIM against an anonymity
/// score should be passed as 1 − SSIM, or negated). O(m · n log n).
///
/// # Errors
/// [`Error::EmptyInput`] for no metric; the correlation functions' errors
/// (a constant metric is [`Error::ConstantInput`]).
pub fn correlation_report(
    metrics: &[(&str, &[f64])],
    labels: &[f64],
) -> Result<Vec<CorrelationRow>> {
    if metrics.is_empty() {
        return Err(Error::EmptyInput { what: "metrics" });
    }
    let y = ArrayView1::from(labels);
    metrics
        .iter()
        .map(|(name, pred)| {
            let x = ArrayView1::from(*pred);
            Ok(CorrelationRow {
                metric: (*name).to_string(),
                pearson: pearson(x, y)?.value,
                spearman: spearman(x, y)?.value,
                kendall_b: kendall(x, y, KendallVariant::B)?.value,
                n: labels.len(),
            })
        })
        .collect()
}

/// The report as a Markdown table.
pub fn to_markdown(rows: &[CorrelationRow]) -> String {
    let mut s = String::from(
        "| metric | n | Pearson r | Spearman ρ | Kendall τ-b |\n|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} |\n",
            r.metric, r.n, r.pearson, r.spearman, r.kendall_b
        ));
    }
    s
}
