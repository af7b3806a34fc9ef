//! The paper's success metrics.

use crate::error::{Error, Result};

/// Relative parameter RMSE `√(mean_i ((θ̂ᵢ − θᵢ)/θᵢ)²)`.
///
/// # Errors
/// [`Error::DimensionMismatch`] for different lengths, [`Error::EmptyData`]
/// for none, [`Error::InvalidParameter`] for a zero true value.
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
    let mut s = 0.0;
    for (&e, &t) in estimate.iter().zip(truth) {
        if t == 0.0 || !t.is_finite() {
            return Err(Error::InvalidParameter {
                name: "true parameter",
                value: t,
                expected: "finite and non-zero",
            });
        }
        s += ((e - t) / t).powi(2);
    }
    Ok((s / truth.len() as f64).sqrt())
}

/// Whether a fit converged: relative parameter RMSE `< tol` (the paper's
/// `tol = 0.05`). A non-finite estimate has not converged.
///
/// # Errors
/// As [`rel_param_rmse`].
pub fn converged(estimate: &[f64], truth: &[f64], tol: f64) -> Result<bool> {
    let r = rel_param_rmse(estimate, truth)?;
    Ok(r.is_finite() && r < tol)
}
