//! Accuracy metrics on observed entries.

use crate::data::Observations;
use crate::error::{Error, Result};
use crate::model::DeepMf;

fn check(pred: &[f64], truth: &[f64]) -> Result<()> {
    if pred.len() != truth.len() {
        return Err(Error::ShapeMismatch {
            what: "predictions",
            expected: format!("length {}", truth.len()),
            got: format!("length {}", pred.len()),
        });
    }
    if pred.is_empty() {
        return Err(Error::EmptyObservations {
            what: "predictions",
        });
    }
    if let Some(index) = pred.iter().chain(truth).position(|v| !v.is_finite()) {
        return Err(Error::NonFiniteValue {
            what: "predictions or truth",
            index: index % pred.len(),
        });
    }
    Ok(())
}

/// Half-differences `(ŷₑ − yₑ)/2` (finite for any finite inputs, where
/// `ŷₑ − yₑ` itself can overflow) and their largest magnitude.
fn half_diffs(pred: &[f64], truth: &[f64]) -> (Vec<f64>, f64) {
    let d: Vec<f64> = pred
        .iter()
        .zip(truth)
        .map(|(p, t)| 0.5 * p - 0.5 * t)
        .collect();
    let s = crate::error::max_abs(&d);
    (d, s)
}

/// Root mean squared error `√((1/N) Σ (ŷₑ − yₑ)²)`. O(N).
///
/// Scaled first: computed as `2s·√((1/N) Σ (dₑ/s)²)` with `dₑ = (ŷₑ − yₑ)/2`
/// and `s = maxₑ |dₑ|`, so squares never overflow or underflow; the result is
/// `+∞` only when the true RMSE exceeds `f64::MAX` (some `|ŷₑ − yₑ|` above
/// it, e.g. `ŷ = 1e308, y = −1e308`).
///
/// # Errors
/// [`Error::ShapeMismatch`] for different lengths, [`Error::EmptyObservations`],
/// [`Error::NonFiniteValue`].
pub fn rmse(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    let (d, s) = half_diffs(pred, truth);
    if s == 0.0 {
        return Ok(0.0);
    }
    let ms = d.iter().map(|v| (v / s) * (v / s)).sum::<f64>() / d.len() as f64;
    Ok(2.0 * s * ms.sqrt())
}

/// Mean absolute error `(1/N) Σ |ŷₑ − yₑ|`. O(N).
///
/// Scaled first as [`rmse`] (`2s·(1/N) Σ |dₑ|/s`); `+∞` only when the true
/// MAE exceeds `f64::MAX`.
///
/// # Errors
/// As [`rmse`].
pub fn mae(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    let (d, s) = half_diffs(pred, truth);
    if s == 0.0 {
        return Ok(0.0);
    }
    Ok(2.0 * s * (d.iter().map(|v| v.abs() / s).sum::<f64>() / d.len() as f64))
}

/// RMSE and MAE of a model on an observation set, predictions clipped to
/// `clip` when given. O(N k + m k² L).
///
/// # Errors
/// [`Error::ShapeMismatch`] when `obs` does not match the model.
pub fn evaluate(
    model: &DeepMf,
    obs: &Observations,
    clip: Option<(f64, f64)>,
) -> Result<(f64, f64)> {
    let p = model.predict_observed(obs, clip)?;
    Ok((rmse(&p, obs.values())?, mae(&p, obs.values())?))
}
