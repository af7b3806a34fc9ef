//! In-distribution, shift and out-of-distribution metrics on top of
//! nncore's ([`nncore::metrics`]): accuracy, NLL, ECE (15 bins), Brier,
//! AURC/E-AURC, and AUROC/AUPR/FPR@95 of a detector score.

use crate::error::Result;
use ndarray::{Array1, ArrayView2};
use nncore::metrics;

/// The calibration and selective-prediction metrics of one prediction set.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Accuracy.
    pub accuracy: f64,
    /// Mean negative log-likelihood (nats).
    pub nll: f64,
    /// ECE with 15 equal-width bins.
    pub ece: f64,
    /// Multi-class Brier score.
    pub brier: f64,
    /// Area under the risk–coverage curve of the max-probability confidence.
    pub aurc: f64,
    /// AURC minus its optimum.
    pub e_aurc: f64,
    /// The reliability diagram: (mean confidence, accuracy, count) per non-empty bin.
    pub reliability: Vec<(f64, f64, usize)>,
}

/// [`Metrics`] of class probabilities `probs` (`n × K`) for `labels`. O(n log n + nK).
///
/// # Errors
/// nncore's ([`nncore::metrics::check_probabilities`]), wrapped in [`crate::Error::Nn`].
pub fn metrics(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<Metrics> {
    let cal = metrics::ece(probs, labels, metrics::ECE_BINS)?;
    let conf = confidence(probs);
    let correct: Vec<bool> = probs
        .rows()
        .into_iter()
        .zip(labels)
        .map(|(p, &y)| {
            let best = p
                .iter()
                .enumerate()
                .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &v)| {
                    if v > bv { (i, v) } else { (bi, bv) }
                });
            best.0 == y
        })
        .collect();
    let aurc = metrics::aurc(conf.view(), &correct)?;
    Ok(Metrics {
        accuracy: metrics::accuracy(probs, labels)?,
        nll: metrics::nll(probs, labels)?,
        ece: cal.ece,
        brier: metrics::brier(probs, labels)?,
        aurc: aurc.aurc,
        e_aurc: aurc.e_aurc,
        reliability: cal
            .bins
            .iter()
            .filter_map(|b| Some((b.confidence?, b.accuracy?, b.count)))
            .collect(),
    })
}

/// The max-probability confidence `maxₖ pᵢₖ` of each row. O(nK).
pub fn confidence(probs: ArrayView2<'_, f64>) -> Array1<f64> {
    probs.map_axis(ndarray::Axis(1), |r| {
        r.fold(f64::NEG_INFINITY, |a, &b| a.max(b))
    })
}

/// Out-of-distribution detection by the max-probability confidence
/// (Hendrycks & Gimpel, 2017): score `1 − max p`, positives the OOD rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OodMetrics {
    /// AUROC.
    pub auroc: f64,
    /// AUPR with OOD as positive.
    pub aupr: f64,
    /// FPR at 95 % TPR.
    pub fpr95: f64,
}

/// [`OodMetrics`] of in-distribution probabilities against OOD ones. O(n log n).
///
/// # Errors
/// nncore's, wrapped in [`crate::Error::Nn`] (empty or non-finite inputs).
pub fn ood(in_probs: ArrayView2<'_, f64>, out_probs: ArrayView2<'_, f64>) -> Result<OodMetrics> {
    let mut scores: Vec<f64> = confidence(in_probs).iter().map(|c| 1.0 - c).collect();
    scores.extend(confidence(out_probs).iter().map(|c| 1.0 - c));
    let positive: Vec<bool> = (0..scores.len()).map(|i| i >= in_probs.nrows()).collect();
    let scores = Array1::from(scores);
    Ok(OodMetrics {
        auroc: metrics::auroc(scores.view(), &positive)?,
        aupr: metrics::aupr(scores.view(), &positive)?,
        fpr95: metrics::fpr_at_95_tpr(scores.view(), &positive)?,
    })
}
