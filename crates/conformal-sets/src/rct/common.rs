//! Pieces shared by the tests: the alternative hypothesis, input checks,
//! sample moments, and the standard normal cdf.

use crate::error::{Error, Result};
use mlcore::stats;
use ndarray::ArrayView1;

/// The alternative hypothesis of a test: `mlcore`'s one type (scipy's
/// names; statsmodels' power functions call the one-sided ones `"larger"`
/// and `"smaller"`). The paper's one-sided test "conformal > top-k" is
/// `Greater` with the conformal arm first.
pub use mlcore::stats::Alternative;

/// Checks a sample: non-empty, finite, at least `min` observations.
pub(super) fn check_sample(x: &ArrayView1<'_, f64>, what: &'static str, min: usize) -> Result<()> {
    mlcore::check::data(x, what)?;
    if x.len() < min {
        return Err(Error::TooFewObservations {
            what,
            n: x.len(),
            min,
        });
    }
    Ok(())
}

/// Checks a significance level α ∈ (0, 1).
pub(super) fn check_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(Error::AlphaOutOfRange { alpha })
    }
}

/// Sample size, mean and unbiased variance ([`mlcore::stats::mean`] and
/// [`mlcore::stats::variance`]: numpy's pairwise two-pass formulas, exactly 0
/// for a constant sample). The sample must be validated and hold ≥ 2 values
/// (an error is then impossible; it would come back as [`Error::Core`]).
pub(super) struct Moments {
    pub(super) n: f64,
    pub(super) mean: f64,
    pub(super) var: f64,
}

pub(super) fn moments(x: &ArrayView1<'_, f64>) -> Result<Moments> {
    Ok(Moments {
        n: x.len() as f64,
        mean: stats::mean(x.view())?,
        var: stats::variance(x.view(), 1)?,
    })
}

/// The zero-variance error.
pub(super) fn zero_variance(what: &'static str) -> Error {
    Error::Core(mlcore::Error::ZeroVariance { what })
}

/// Standard normal lower tail `Φ(z)`: the workspace's one implementation,
/// [`mlcore::special::norm_cdf`], accurate to a few ulps in both tails
/// (`statrs` 0.19's `erfc`, and so its `Normal::cdf`, is accurate to only
/// ~1e-10 relative, which would show in the Mann–Whitney p-values and the
/// non-central t).
pub(super) use mlcore::special::norm_cdf as normal_cdf;
