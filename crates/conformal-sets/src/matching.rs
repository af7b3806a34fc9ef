//! Equal-coverage fixed-size sets, the paper's key control (§4): top-`k`
//! sets and conformal sets with the same empirical coverage.

use crate::calibrate::{
    Calibrated, QuantileRule, SplitConformal, check_alpha, check_labels, check_probabilities, rows,
};
use crate::error::{Error, Result};
use crate::score::{PredictionSet, Raps, top_k};
use ndarray::ArrayView2;
use rand::Rng;

fn check_k(k: usize, classes: usize) -> Result<()> {
    if (1..=classes).contains(&k) {
        Ok(())
    } else {
        Err(Error::InvalidK { k, classes })
    }
}

/// Top-`k` sets for a batch. O(m K log K).
///
/// # Errors
/// As [`check_probabilities`]; [`Error::InvalidK`] unless `1 ≤ k ≤ K`.
pub fn top_k_sets(probs: ArrayView2<'_, f64>, k: usize) -> Result<Vec<PredictionSet>> {
    check_probabilities(probs)?;
    check_k(k, probs.ncols())?;
    let probs = probs.as_standard_layout();
    Ok(rows(&probs).map(|p| top_k(p, k)).collect())
}

/// Empirical top-`k` accuracy `ĉ_k = #{i : o(yᵢ) ≤ k} / n` (ties broken by label). O(nK).
///
/// # Errors
/// As [`top_k_sets`] and [`check_labels`].
pub fn top_k_coverage(probs: ArrayView2<'_, f64>, labels: &[usize], k: usize) -> Result<f64> {
    check_k(k, probs.ncols())?;
    Ok(top_k_coverages(probs, labels)?[k - 1])
}

/// `ĉ_k` for every `k = 1..=K` at once (entry `k − 1`), from the true labels' ranks. O(nK).
///
/// # Errors
/// As [`check_probabilities`] and [`check_labels`].
pub fn top_k_coverages(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<Vec<f64>> {
    check_probabilities(probs)?;
    check_labels(probs, labels)?;
    let classes = probs.ncols();
    let probs = probs.as_standard_layout();
    let mut hist = vec![0usize; classes];
    for (p, &y) in rows(&probs).zip(labels) {
        hist[true_rank(p, y) - 1] += 1;
    }
    let n = labels.len() as f64;
    let mut acc = 0;
    Ok(hist
        .into_iter()
        .map(|c| {
            acc += c;
            acc as f64 / n
        })
        .collect())
}

/// 1-based rank of `y` in `p` (ties by label).
pub(crate) fn true_rank(p: &[f64], y: usize) -> usize {
    1 + p
        .iter()
        .enumerate()
        .filter(|&(j, &pj)| pj > p[y] || (pj == p[y] && j < y))
        .count()
}

/// The matched level `α = 1 − ĉ_k`: the paper's default control fixes `k`
/// (3 in the trial), measures top-`k` coverage on the calibration set, and
/// calibrates the conformal sets at this α.
///
/// # Errors
/// As [`top_k_coverage`]; [`Error::AlphaOutOfRange`] when `ĉ_k` is 0 or 1
/// (no conformal level matches).
pub fn alpha_matching_top_k(probs: ArrayView2<'_, f64>, labels: &[usize], k: usize) -> Result<f64> {
    let alpha = 1.0 - top_k_coverage(probs, labels, k)?;
    check_alpha(alpha)?;
    Ok(alpha)
}

/// The reverse matching: the smallest `k` whose calibration top-`k` accuracy
/// reaches `1 − α` (`ĉ_k ≥ 1 − α`). Since `k` is an integer, the coverages
/// match only approximately; report both.
///
/// # Errors
/// As [`top_k_coverages`], [`Error::AlphaOutOfRange`].
pub fn smallest_k_for_alpha(
    probs: ArrayView2<'_, f64>,
    labels: &[usize],
    alpha: f64,
) -> Result<usize> {
    check_alpha(alpha)?;
    let cov = top_k_coverages(probs, labels)?;
    // ĉ_K = 1 ≥ 1 − α always, so a k exists; the tolerance absorbs rounding of counts/n.
    Ok(cov
        .iter()
        .position(|&c| c >= 1.0 - alpha - 1e-12)
        .map_or(cov.len(), |i| i + 1))
}

/// The trial's pipeline in one call: `α = 1 − ĉ_k` on the calibration data,
/// then RAPS calibrated at that α on the same data.
///
/// # Errors
/// As [`alpha_matching_top_k`], [`Raps::check`] and [`SplitConformal::calibrate`].
pub fn equal_coverage_raps<R: Rng + ?Sized>(
    probs: ArrayView2<'_, f64>,
    labels: &[usize],
    k: usize,
    raps: Raps,
    rule: QuantileRule,
    rng: &mut R,
) -> Result<Calibrated<Raps>> {
    raps.check()?;
    let alpha = alpha_matching_top_k(probs, labels, k)?;
    SplitConformal::new(raps, alpha, rule)?.calibrate(probs, labels, rng)
}
