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

/// Root mean squared error `√((1/N) Σ (ŷₑ − yₑ)²)`. O(N).
///
/// # Errors
/// [`Error::ShapeMismatch`] for different lengths, [`Error::EmptyObservations`],
/// [`Error::NonFiniteValue`].
pub fn rmse(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    Ok((pred
        .iter()
        .zip(truth)
        .map(|(p, t)| (p - t) * (p - t))
        .sum::<f64>()
        / pred.len() as f64)
        .sqrt())
}

/// Mean absolute error `(1/N) Σ |ŷₑ − yₑ|`. O(N).
///
/// # Errors
/// As [`rmse`].
pub fn mae(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    Ok(pred
        .iter()
        .zip(truth)
        .map(|(p, t)| (p - t).abs())
        .sum::<f64>()
        / pred.len() as f64)
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
