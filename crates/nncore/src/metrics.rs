//! Classification, calibration, selective-prediction, ranking and language-model
//! metrics on plain `ndarray` probabilities (no candle type), in `f64`.
//!
//! `probs` is always `n × K` with rows that are probability vectors (entries
//! in `[0, 1]` summing to one within [`PROBABILITY_ROW_TOL`]) and `labels`
//! has one class index `< K` per row. Ranking metrics take a score per
//! example and a boolean "positive" per example (for example: the score is
//! `1 − max p` and the positives are the misclassified examples, or the
//! score is an out-of-distribution detector's and the positives are the OOD
//! inputs). Conventions follow scikit-learn where it has the metric; each
//! function states its tie rule.

use crate::data::check_labels;
use crate::error::{Error, Result};
use ndarray::{ArrayView1, ArrayView2};

/// Tolerance on `|Σₖ pᵢₖ − 1|` of each row: `1e-6`, loose enough for
/// softmax outputs computed in `f32` and converted to `f64`.
pub const PROBABILITY_ROW_TOL: f64 = 1e-6;

/// The number of equal-width bins of the customary ECE (Guo et al., 2017).
pub const ECE_BINS: usize = 15;

/// Checks `probs` (`n × K`, rows probability vectors) and `labels` (one per row, `< K`). O(nK).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::NotAProbability`],
/// [`Error::ShapeMismatch`], [`Error::LabelOutOfRange`].
pub fn check_probabilities(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<()> {
    if probs.nrows() == 0 || probs.ncols() == 0 {
        return Err(Error::Empty { what: "probs" });
    }
    if let Some(index) = probs.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "probs",
            index,
        });
    }
    for (row, p) in probs.rows().into_iter().enumerate() {
        let sum: f64 = p.sum();
        let min = p.fold(f64::INFINITY, |a, &b| a.min(b));
        if min < 0.0 || (sum - 1.0).abs() > PROBABILITY_ROW_TOL {
            return Err(Error::NotAProbability { row, sum, min });
        }
    }
    if labels.len() != probs.nrows() {
        return Err(Error::ShapeMismatch {
            what: "labels vs rows of probs",
            expected: probs.nrows(),
            got: labels.len(),
        });
    }
    check_labels(labels, probs.ncols())
}

/// The predicted class of each row: the first index of the largest
/// probability (numpy's `argmax` tie rule). O(nK). Unchecked.
fn predictions(probs: ArrayView2<'_, f64>) -> Vec<usize> {
    probs
        .rows()
        .into_iter()
        .map(|p| {
            p.iter()
                .enumerate()
                .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &v)| {
                    if v > bv { (i, v) } else { (bi, bv) }
                })
                .0
        })
        .collect()
}

/// Accuracy `(1/n) Σᵢ 1[argmaxₖ pᵢₖ = yᵢ]`, ties to the first largest class. O(nK).
///
/// # Errors
/// As [`check_probabilities`].
pub fn accuracy(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    check_probabilities(probs, labels)?;
    let hits = predictions(probs)
        .iter()
        .zip(labels)
        .filter(|(p, y)| p == y)
        .count();
    Ok(hits as f64 / labels.len() as f64)
}

/// Mean negative log-likelihood in nats, `−(1/n) Σᵢ ln clip(pᵢ,yᵢ, ε, 1 − ε)`
/// with `ε = f64::EPSILON` (scikit-learn's `log_loss`: a zero probability
/// costs `−ln ε ≈ 36.04` instead of an infinity). O(nK).
///
/// # Errors
/// As [`check_probabilities`].
pub fn nll(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    check_probabilities(probs, labels)?;
    let eps = f64::EPSILON;
    let total: f64 = labels
        .iter()
        .enumerate()
        .map(|(i, &y)| -probs[[i, y]].clamp(eps, 1.0 - eps).ln())
        .sum();
    Ok(total / labels.len() as f64)
}

/// Perplexity `exp(NLL)` of next-token probabilities, with [`nll`]'s clipping. O(nK).
///
/// # Errors
/// As [`check_probabilities`].
pub fn perplexity(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    Ok(nll(probs, labels)?.exp())
}

/// Bits per character `NLL / ln 2` of next-character probabilities, with [`nll`]'s clipping. O(nK).
///
/// # Errors
/// As [`check_probabilities`].
pub fn bits_per_character(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    Ok(nll(probs, labels)? / std::f64::consts::LN_2)
}

/// Multi-class Brier score (Brier, 1950): `(1/n) Σᵢ Σₖ (pᵢₖ − 1[yᵢ = k])²`,
/// in `[0, 2]`. For two classes this is twice the binary `mean (p₁ − y)²`;
/// it equals scikit-learn's `brier_score_loss(y, probs, labels=range(K),
/// scale_by_half=False)`. O(nK).
///
/// # Errors
/// As [`check_probabilities`].
pub fn brier(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    check_probabilities(probs, labels)?;
    let total: f64 = probs
        .rows()
        .into_iter()
        .zip(labels)
        .map(|(p, &y)| {
            p.iter()
                .enumerate()
                .map(|(k, &v)| {
                    let t = if k == y { v - 1.0 } else { v };
                    t * t
                })
                .sum::<f64>()
        })
        .sum();
    Ok(total / labels.len() as f64)
}

/// One bin of a reliability diagram.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationBin {
    /// Lower edge (exclusive, except the first bin's `0` which is inclusive).
    pub lower: f64,
    /// Upper edge (inclusive).
    pub upper: f64,
    /// The number of examples whose confidence falls in the bin.
    pub count: usize,
    /// Their mean confidence, `None` for an empty bin.
    pub confidence: Option<f64>,
    /// Their accuracy, `None` for an empty bin.
    pub accuracy: Option<f64>,
}

/// Expected calibration error with its bin table, from [`ece`].
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// `ECE = Σ_b (n_b / n)·|acc_b − conf_b|` over non-empty bins.
    pub ece: f64,
    /// The bins, in increasing order of confidence.
    pub bins: Vec<CalibrationBin>,
}

/// Expected calibration error with `bins` equal-width confidence bins
/// (Naeini et al., 2015; Guo et al., 2017; customary `bins = 15`,
/// [`ECE_BINS`]). The confidence is `max_k pᵢₖ` and an example is correct
/// when its first argmax equals its label. Edges are numpy's
/// `linspace(0, 1, bins + 1)`: `e_b = b·(1/bins)`, the last edge exactly 1;
/// bin `b` holds the confidences `c` with `e_b < c ≤ e_{b+1}`, and bin 0 also
/// `c = 0`. `ECE = Σ_b (n_b/n)·|acc_b − conf_b|`; empty bins contribute 0.
/// O(nK + bins).
///
/// # Errors
/// As [`check_probabilities`]; [`Error::InvalidParameter`] for `bins = 0`.
pub fn ece(probs: ArrayView2<'_, f64>, labels: &[usize], bins: usize) -> Result<Calibration> {
    check_probabilities(probs, labels)?;
    if bins == 0 || bins > 1 << 24 {
        return Err(Error::InvalidParameter {
            name: "bins",
            value: bins as f64,
            expected: "between 1 and 2^24",
        });
    }
    let step = 1.0 / bins as f64;
    let edge = |b: usize| if b == bins { 1.0 } else { b as f64 * step };
    let mut count = vec![0usize; bins];
    let mut conf_sum = vec![0.0; bins];
    let mut hit_sum = vec![0.0; bins];
    for ((p, &y), pred) in probs.rows().into_iter().zip(labels).zip(predictions(probs)) {
        let c = p[pred];
        // First guess from c·bins, then step to the bin whose edges hold c.
        let mut b = ((c * bins as f64).ceil() as usize).clamp(1, bins) - 1;
        while b > 0 && c <= edge(b) {
            b -= 1;
        }
        while b + 1 < bins && c > edge(b + 1) {
            b += 1;
        }
        count[b] += 1;
        conf_sum[b] += c;
        hit_sum[b] += if pred == y { 1.0 } else { 0.0 };
    }
    let n = labels.len() as f64;
    let mut total = 0.0;
    let table = (0..bins)
        .map(|b| {
            let (confidence, accuracy) = if count[b] == 0 {
                (None, None)
            } else {
                let m = count[b] as f64;
                let (conf, acc) = (conf_sum[b] / m, hit_sum[b] / m);
                total += m / n * (acc - conf).abs();
                (Some(conf), Some(acc))
            };
            CalibrationBin {
                lower: edge(b),
                upper: edge(b + 1),
                count: count[b],
                confidence,
                accuracy,
            }
        })
        .collect();
    Ok(Calibration {
        ece: total,
        bins: table,
    })
}

fn check_scores(scores: ArrayView1<'_, f64>, flags: &[bool], what: &'static str) -> Result<()> {
    if scores.is_empty() {
        return Err(Error::Empty { what: "scores" });
    }
    if let Some(index) = scores.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite {
            what: "scores",
            index,
        });
    }
    if flags.len() != scores.len() {
        return Err(Error::ShapeMismatch {
            what,
            expected: scores.len(),
            got: flags.len(),
        });
    }
    Ok(())
}

/// Groups of tied scores in decreasing score order: `(positives, size)` per group. O(n log n).
fn tie_groups(scores: ArrayView1<'_, f64>, flags: &[bool]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_unstable_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut last = f64::NAN;
    for &i in &order {
        if scores[i] != last {
            groups.push((0, 0));
            last = scores[i];
        }
        let g = groups.last_mut().expect("pushed above");
        g.0 += usize::from(flags[i]);
        g.1 += 1;
    }
    groups
}

/// Area under the risk–coverage curve of selective prediction (Geifman et
/// al., 2019), with its optimum and the excess E-AURC, from [`aurc`].
#[derive(Debug, Clone, PartialEq)]
pub struct Aurc {
    /// `AURC = (1/n) Σ_{k=1..n} E_k / k`, `E_k` the (expected) errors among the `k` most confident.
    pub aurc: f64,
    /// The AURC of the ideal ranking (all correct examples first): `(1/n) Σ_k max(0, k − (n − E))/k`.
    pub optimal: f64,
    /// `E-AURC = AURC − optimal ≥ 0`.
    pub e_aurc: f64,
}

/// AURC and E-AURC of `confidence` for the examples' correctness (Geifman,
/// Uziel & El-Yaniv, 2019). Examples are accepted in decreasing confidence;
/// the selective risk at coverage `k/n` is `E_k / k` with `E_k` the errors
/// among the first `k`, and `AURC = (1/n) Σ_{k=1..n} E_k/k`. Tied confidences
/// have no order: `E_k` inside a tie group is the expectation over a uniformly
/// random order of the group, `E_before + j·e_g/s_g` for the `j`-th of a group
/// of `s_g` with `e_g` errors (the result does not depend on how ties are
/// listed). The optimum uses the exact discrete ideal ranking, not the
/// continuous approximation `r + (1 − r) ln(1 − r)` of the paper. O(n log n).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`] for a non-finite confidence,
/// [`Error::ShapeMismatch`] when `correct` has another length.
pub fn aurc(confidence: ArrayView1<'_, f64>, correct: &[bool]) -> Result<Aurc> {
    check_scores(confidence, correct, "correct vs confidences")?;
    let errors: Vec<bool> = correct.iter().map(|c| !c).collect();
    let groups = tie_groups(confidence, &errors);
    let n = correct.len();
    let (mut k, mut before, mut sum) = (0usize, 0.0, 0.0);
    for (e, s) in groups {
        let rate = e as f64 / s as f64;
        for j in 1..=s {
            sum += (before + j as f64 * rate) / (k + j) as f64;
        }
        k += s;
        before += e as f64;
    }
    let n_err = errors.iter().filter(|&&e| e).count();
    let optimal = (1..=n)
        .map(|k| (k.saturating_sub(n - n_err)) as f64 / k as f64)
        .sum::<f64>()
        / n as f64;
    let aurc = sum / n as f64;
    Ok(Aurc {
        aurc,
        optimal,
        e_aurc: aurc - optimal,
    })
}

fn counts(flags: &[bool], metric: &'static str, need_negative: bool) -> Result<(usize, usize)> {
    let pos = flags.iter().filter(|&&f| f).count();
    let neg = flags.len() - pos;
    if pos == 0 {
        return Err(Error::Undefined {
            metric,
            reason: "no positive example",
        });
    }
    if neg == 0 && need_negative {
        return Err(Error::Undefined {
            metric,
            reason: "no negative example",
        });
    }
    Ok((pos, neg))
}

/// Area under the ROC curve of `scores` for `positive` (higher score = more
/// positive), by the Mann–Whitney statistic with tie-averaged ranks
/// ([`mlcore::stats::ranks`]): `AUROC = (Σ_{i pos} rᵢ − P(P+1)/2) / (P·N)`;
/// a tie between a positive and a negative counts ½, which equals the
/// trapezoidal area scikit-learn's `roc_auc_score` computes. O(n log n).
///
/// # Errors
/// As [`aurc`]; [`Error::Undefined`] when all examples are of one class.
pub fn auroc(scores: ArrayView1<'_, f64>, positive: &[bool]) -> Result<f64> {
    check_scores(scores, positive, "positive vs scores")?;
    let (p, n) = counts(positive, "AUROC", true)?;
    let ranks = mlcore::stats::ranks(scores)?;
    let r_pos: f64 = ranks
        .iter()
        .zip(positive)
        .filter(|(_, f)| **f)
        .map(|(r, _)| r)
        .sum();
    let (p, n) = (p as f64, n as f64);
    Ok((r_pos - p * (p + 1.0) / 2.0) / (p * n))
}

/// Area under the precision–recall curve as average precision (scikit-learn's
/// `average_precision_score`): with thresholds at the distinct scores in
/// decreasing order, `AP = Σ_t (R_t − R_{t−1})·P_t`, `P_t = TP_t/(TP_t + FP_t)`,
/// `R_t = TP_t/P`, `R_0 = 0`; tied scores enter together. O(n log n).
///
/// # Errors
/// As [`aurc`]; [`Error::Undefined`] when no example is positive.
pub fn aupr(scores: ArrayView1<'_, f64>, positive: &[bool]) -> Result<f64> {
    check_scores(scores, positive, "positive vs scores")?;
    let (p, _) = counts(positive, "AUPR", false)?;
    let (mut tp, mut seen, mut ap, mut prev_recall) = (0usize, 0usize, 0.0, 0.0);
    for (pos, size) in tie_groups(scores, positive) {
        tp += pos;
        seen += size;
        let recall = tp as f64 / p as f64;
        ap += (recall - prev_recall) * (tp as f64 / seen as f64);
        prev_recall = recall;
    }
    Ok(ap)
}

/// False-positive rate at 95 % true-positive rate: over the thresholds `t`
/// at the distinct scores (an example is flagged positive when its score is
/// `≥ t`), the smallest `FPR(t) = FP_t/N` among those with
/// `TPR(t) = TP_t/P ≥ 0.95` — the FPR of the first point of scikit-learn's
/// `roc_curve(…, drop_intermediate=False)` whose TPR reaches 0.95. O(n log n).
///
/// # Errors
/// As [`auroc`].
pub fn fpr_at_95_tpr(scores: ArrayView1<'_, f64>, positive: &[bool]) -> Result<f64> {
    check_scores(scores, positive, "positive vs scores")?;
    let (p, n) = counts(positive, "FPR at 95% TPR", true)?;
    let (mut tp, mut fp) = (0usize, 0usize);
    for (pos, size) in tie_groups(scores, positive) {
        tp += pos;
        fp += size - pos;
        if tp as f64 / p as f64 >= 0.95 {
            return Ok(fp as f64 / n as f64);
        }
    }
    Ok(1.0)
}
