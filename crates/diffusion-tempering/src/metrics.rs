//! The paper's success metrics.

use crate::error::{Error, Result};

/// Relative parameter RMSE `√(mean_i ((θ̂ᵢ − θᵢ)/θᵢ)²)`, `O(n)`.
///
/// Summed scaled by the largest relative error, so it overflows only when
/// that error itself exceeds `f64::MAX` (then `+∞`, never NaN).
///
/// # Errors
/// [`Error::DimensionMismatch`] for different lengths, [`Error::EmptyData`]
/// for none, [`Error::NonFiniteInput`] for a NaN/∞ estimate or true value,
/// [`Error::InvalidParameter`] for a zero true value.
pub fn rel_param_rmse(estimate: &[f64], truth: &[f64]) -> Result<f64> {
    if estimate.len() != truth.len() {
        return Err(Error::DimensionMismatch {
            what: "estimate vs true parameters",
            expected: truth.len(),
            got: estimate.len(),
        });
    }
    if truth.is_empty() {
        return Err(Error::EmptyData);
    }
    if let Some(index) = truth.iter().position(|t| !t.is_finite()) {
        return Err(Error::NonFiniteInput {
            what: "true parameters",
            index,
        });
    }
    if let Some(index) = estimate.iter().position(|e| !e.is_finite()) {
        return Err(Error::NonFiniteInput {
            what: "estimate",
            index,
        });
    }
    let mut rel = Vec::with_capacity(truth.len());
    for (&e, &t) in estimate.iter().zip(truth) {
        if t == 0.0 {
            return Err(Error::InvalidParameter {
                name: "true parameter",
                value: t,
                expected: "non-zero",
            });
        }
        // e/t − 1 rather than (e − t)/t: e − t can overflow for finite e, t.
        rel.push((e / t - 1.0).abs());
    }
    let m = rel.iter().fold(0.0f64, |a, &r| a.max(r));
    if m == 0.0 || !m.is_finite() {
        return Ok(m);
    }
    let s: f64 = rel.iter().map(|r| (r / m).powi(2)).sum();
    Ok(m * (s / truth.len() as f64).sqrt())
}

/// Whether a fit converged: relative parameter RMSE `< tol` (the paper's
/// `tol = 0.05`). A non-finite estimate has not converged.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `tol` is finite and `> 0`; otherwise
/// as [`rel_param_rmse`] (except a non-finite estimate, which gives `false`).
pub fn converged(estimate: &[f64], truth: &[f64], tol: f64) -> Result<bool> {
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Error::InvalidParameter {
            name: "tol",
            value: tol,
            expected: "finite and > 0",
        });
    }
    match rel_param_rmse(estimate, truth) {
        Ok(r) => Ok(r < tol),
        Err(Error::NonFiniteInput {
            what: "estimate", ..
        }) => Ok(false),
        Err(e) => Err(e),
    }
}
