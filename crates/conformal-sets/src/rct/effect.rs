//! Effect sizes: Cohen's d and Hedges' g.

use super::common::{Moments, check_sample, moments, zero_variance};
use crate::error::Result;
use ndarray::ArrayView1;

/// Pooled standard deviation with `n − 1` denominators; validates both samples.
fn pooled_sd(x: &ArrayView1<'_, f64>, y: &ArrayView1<'_, f64>) -> Result<(f64, Moments, Moments)> {
    check_sample(x, "x", 2)?;
    check_sample(y, "y", 2)?;
    let (mx, my) = (moments(x)?, moments(y)?);
    let pooled = ((mx.n - 1.0) * mx.var + (my.n - 1.0) * my.var) / (mx.n + my.n - 2.0);
    if pooled <= 0.0 {
        return Err(zero_variance("x and y (both samples are constant)"));
    }
    Ok((pooled.sqrt(), mx, my))
}

/// Cohen's d of `x` against `y` with the pooled standard deviation, as
/// `pingouin.compute_effsize(x, y, eftype="cohen")` (unpaired):
///
/// ```text
/// sₚ = √(((nₓ − 1)s²ₓ + (n_y − 1)s²_y) / (nₓ + n_y − 2)),   d = (x̄ − ȳ) / sₚ
/// ```
///
/// The paper's table reports `d` for conformal − top-k. O(nₓ + n_y).
///
/// # Errors
/// [`Error::EmptyInput`](crate::Error::EmptyInput), [`Error::NonFinite`](crate::Error::NonFinite), [`Error::TooFewObservations`](crate::Error::TooFewObservations)
/// (fewer than 2 values in a sample), `Error::Core(ZeroVariance)` when both
/// samples are constant.
pub fn cohens_d(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    let (sp, mx, my) = pooled_sd(&x, &y)?;
    Ok((mx.mean - my.mean) / sp)
}

/// Hedges' g: Cohen's d with the small-sample bias correction of
/// `pingouin.compute_effsize(x, y, eftype="hedges")`:
///
/// ```text
/// g = d · J,   J = 1 − 3 / (4(nₓ + n_y) − 9)
/// ```
///
/// This `J` is Hedges & Olkin's approximation `1 − 3/(4ν − 1)` (ν = nₓ+n_y−2)
/// to the exact factor `Γ(ν/2) / (√(ν/2) Γ((ν−1)/2))`; the two differ by
/// 1.3 % at nₓ + n_y = 4, 0.1 % at 8 and 0.01 % at 20 (this J is slightly
/// the larger). Since `0 < J < 1`, `|g| < |d|` whenever `d ≠ 0`.
/// O(nₓ + n_y).
///
/// # Errors
/// As [`cohens_d`].
pub fn hedges_g(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    let (sp, mx, my) = pooled_sd(&x, &y)?;
    let d = (mx.mean - my.mean) / sp;
    Ok(d * (1.0 - 3.0 / (4.0 * (mx.n + my.n) - 9.0)))
}
