//! Two-sample t-tests (Welch and Student).

use super::common::{Alternative, check_sample, moments, zero_variance};
use super::tdist::t_p_value;
use crate::error::Result;
use ndarray::ArrayView1;

/// The result of a two-sample t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TTest {
    /// The t statistic `(x̄ − ȳ) / SE`.
    pub statistic: f64,
    /// Degrees of freedom ν (Welch–Satterthwaite for [`welch_t`], a real
    /// number; `n_x + n_y − 2` for [`student_t`]).
    pub df: f64,
    /// The p-value under the chosen [`Alternative`].
    pub p_value: f64,
    /// The difference of means `x̄ − ȳ`.
    pub mean_difference: f64,
    /// The standard error `SE` of the difference.
    pub std_error: f64,
}

/// Welch's unequal-variance two-sample t-test of `x` against `y`, as
/// `scipy.stats.ttest_ind(x, y, equal_var=False, alternative=…)`.
///
/// With sample variances `s²` (denominator `n − 1`) and `vₓ = s²ₓ/nₓ`,
/// `v_y = s²_y/n_y`:
///
/// ```text
/// t = (x̄ − ȳ) / √(vₓ + v_y)
/// ν = (vₓ + v_y)² / (vₓ²/(nₓ − 1) + v_y²/(n_y − 1))
/// p = P(T_ν ≥ t) (Greater), P(T_ν ≤ t) (Less), 2·P(T_ν ≥ |t|) (TwoSided)
/// ```
///
/// This is the paper's headline test (one-sided, conformal arm first).
/// O(nₓ + n_y).
///
/// # Errors
/// [`Error::EmptyInput`](crate::Error::EmptyInput), [`Error::NonFinite`](crate::Error::NonFinite), [`Error::TooFewObservations`](crate::Error::TooFewObservations)
/// (fewer than 2 values in a sample), and `Error::Core(ZeroVariance)` when both
/// samples are constant (scipy returns `±inf` or NaN there).
pub fn welch_t(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>, alt: Alternative) -> Result<TTest> {
    check_sample(&x, "x", 2)?;
    check_sample(&y, "y", 2)?;
    let (mx, my) = (moments(&x)?, moments(&y)?);
    let vx = mx.var / mx.n;
    let vy = my.var / my.n;
    let se2 = vx + vy;
    if se2 <= 0.0 {
        return Err(zero_variance("x and y (both samples are constant)"));
    }
    let df = se2 * se2 / (vx * vx / (mx.n - 1.0) + vy * vy / (my.n - 1.0));
    t_test(mx.mean - my.mean, se2.sqrt(), df, alt)
}

/// The t-test from the difference of means, its standard error and the degrees of freedom.
fn t_test(mean_difference: f64, std_error: f64, df: f64, alt: Alternative) -> Result<TTest> {
    let statistic = mean_difference / std_error;
    let p_value = t_p_value(statistic, df, alt)?;
    Ok(TTest {
        statistic,
        df,
        p_value,
        mean_difference,
        std_error,
    })
}

/// Student's equal-variance two-sample t-test of `x` against `y`, as
/// `scipy.stats.ttest_ind(x, y, equal_var=True, alternative=…)`.
///
/// ```text
/// s²ₚ = ((nₓ − 1)s²ₓ + (n_y − 1)s²_y) / (nₓ + n_y − 2)
/// t   = (x̄ − ȳ) / √(s²ₚ (1/nₓ + 1/n_y)),   ν = nₓ + n_y − 2
/// ```
///
/// with p-values as in [`welch_t`]. O(nₓ + n_y).
///
/// # Errors
/// As [`welch_t`]. Each sample needs 2 values (scipy returns NaN for a
/// sample of one, whose variance is undefined).
pub fn student_t(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    alt: Alternative,
) -> Result<TTest> {
    check_sample(&x, "x", 2)?;
    check_sample(&y, "y", 2)?;
    let (mx, my) = (moments(&x)?, moments(&y)?);
    let df = mx.n + my.n - 2.0;
    let pooled = ((mx.n - 1.0) * mx.var + (my.n - 1.0) * my.var) / df;
    if pooled <= 0.0 {
        return Err(zero_variance("x and y (both samples are constant)"));
    }
    let std_error = (pooled * (1.0 / mx.n + 1.0 / my.n)).sqrt();
    t_test(mx.mean - my.mean, std_error, df, alt)
}
