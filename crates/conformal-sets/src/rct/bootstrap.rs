//! Percentile-bootstrap confidence intervals.

use super::common::check_sample;
use crate::error::{Error, Result};
use ndarray::ArrayView1;
use rand::{Rng, RngExt};

/// A percentile-bootstrap confidence interval (see [`bootstrap_ci`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapCi {
    /// The statistic on the original samples, `θ̂ = T(x, y)`.
    pub estimate: f64,
    /// Lower end: the `(1 − c)/2` quantile of the bootstrap replicates.
    pub lower: f64,
    /// Upper end: the `(1 + c)/2` quantile of the bootstrap replicates.
    pub upper: f64,
    /// Standard deviation of the replicates (`n − 1` denominator), the
    /// bootstrap standard error of `θ̂`.
    pub std_error: f64,
    /// Confidence level `c`.
    pub confidence: f64,
    /// Number of bootstrap replicates `B`.
    pub n_resamples: usize,
}

/// Linear-interpolation quantile of a sorted sample (numpy's default,
/// Hyndman–Fan type 7).
fn sorted_quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Two-sample percentile bootstrap confidence interval for a statistic
/// `T(x, y)`, for example the difference of means `|a, b| mean(a) − mean(b)`.
///
/// Each of the `B = n_resamples` replicates draws `nₓ` values from `x` and
/// `n_y` from `y`, independently and with replacement (the arms of a
/// between-subjects trial are resampled separately), and evaluates
/// `θ*_b = T(x*_b, y*_b)`. The interval is
///
/// ```text
/// [ Q((1 − c)/2), Q((1 + c)/2) ]   over θ*₁ … θ*_B
/// ```
///
/// with `Q` numpy's linear-interpolation quantile, as
/// `scipy.stats.bootstrap((x, y), T, method="percentile",
/// confidence_level=c)`. The draws use `rng` (`random_range`), so a fixed
/// seed gives a fixed interval; the stream differs from numpy's, so the
/// interval matches scipy's only up to Monte-Carlo error. Use `B ≥ 1000`
/// (10⁴ for the tails of a 99 % interval).
///
/// Complexity: O(B·(nₓ + n_y + cost of T) + B log B) time, O(B + nₓ + n_y)
/// memory.
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`] (in `x`, `y`, or a replicate
/// or the estimate that `T` returns as non-finite — `index` is the replicate
/// number, `B` for the estimate), [`Error::InvalidParameter`] for
/// `confidence ∉ (0, 1)` or `n_resamples < 2`.
pub fn bootstrap_ci<F, R>(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    mut statistic: F,
    n_resamples: usize,
    confidence: f64,
    rng: &mut R,
) -> Result<BootstrapCi>
where
    F: FnMut(&[f64], &[f64]) -> f64,
    R: Rng + ?Sized,
{
    check_sample(&x, "x", 1)?;
    check_sample(&y, "y", 1)?;
    mlcore::check::open_interval(confidence, 0.0, 1.0, "confidence", "in (0, 1)")?;
    mlcore::check::at_least(
        n_resamples,
        2,
        "n_resamples",
        "at least 2 (1000 or more in practice)",
    )?;
    let xs: Vec<f64> = x.iter().copied().collect();
    let ys: Vec<f64> = y.iter().copied().collect();
    let estimate = statistic(&xs, &ys);
    if !estimate.is_finite() {
        return Err(Error::NonFinite {
            what: "bootstrap statistic on the original samples",
            index: n_resamples,
        });
    }
    let mut bx = vec![0.0; xs.len()];
    let mut by = vec![0.0; ys.len()];
    let mut reps = Vec::with_capacity(n_resamples);
    for b in 0..n_resamples {
        for v in bx.iter_mut() {
            *v = xs[rng.random_range(0..xs.len())];
        }
        for v in by.iter_mut() {
            *v = ys[rng.random_range(0..ys.len())];
        }
        let theta = statistic(&bx, &by);
        if !theta.is_finite() {
            return Err(Error::NonFinite {
                what: "bootstrap replicate of the statistic",
                index: b,
            });
        }
        reps.push(theta);
    }
    let std_error = mlcore::stats::variance(ndarray::ArrayView1::from(&reps[..]), 1)?.sqrt();
    reps.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Ok(BootstrapCi {
        estimate,
        lower: sorted_quantile(&reps, tail),
        upper: sorted_quantile(&reps, 1.0 - tail),
        std_error,
        confidence,
        n_resamples,
    })
}
