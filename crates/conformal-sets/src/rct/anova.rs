//! One-way ANOVA.

use super::common::zero_variance;
use super::tdist::beta_pair;
use crate::error::{Error, Result};
use mlcore::stats::Welford;
use ndarray::ArrayView1;

/// The result of [`anova_oneway`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anova {
    /// The F statistic `(SS_b/(k − 1)) / (SS_w/(N − k))`.
    pub statistic: f64,
    /// Numerator degrees of freedom `k − 1`.
    pub df_between: f64,
    /// Denominator degrees of freedom `N − k`.
    pub df_within: f64,
    /// `P(F_{k−1, N−k} ≥ F)`.
    pub p_value: f64,
    /// Between-group sum of squares `SS_b = Σᵢ nᵢ (x̄ᵢ − x̄)²`.
    pub ss_between: f64,
    /// Within-group sum of squares `SS_w = Σᵢ Σⱼ (xᵢⱼ − x̄ᵢ)²` (like `SS_b`, +∞ when it
    /// exceeds f64 for values near ±f64::MAX; F and p are computed scale-free).
    pub ss_within: f64,
}

/// One-way analysis of variance of `k ≥ 2` independent groups, as
/// `scipy.stats.f_oneway(*groups)` (all arms of a trial at once, e.g.
/// control / top-k / conformal).
///
/// ```text
/// F = (SS_b / (k − 1)) / (SS_w / (N − k)),   p = P(F_{k−1, N−k} ≥ F)
///   = I_{(N−k)/((N−k) + (k−1)F)}((N − k)/2, (k − 1)/2)
/// ```
///
/// The sums of squares are computed about the group means (two passes),
/// which is slightly more accurate than scipy's raw-moment formula; the two
/// agree to ~1e-13 relative on ordinary data. O(N).
///
/// # Errors
/// [`Error::TooFewObservations`] for fewer than 2 groups (`what = "groups"`)
/// or `N − k < 1` (every group a single value); [`Error::EmptyInput`] for an
/// empty group; [`Error::NonFinite`] (`index` counts through the groups in
/// order); `Error::Core(ZeroVariance)` when every group is constant, so
/// `SS_w = 0` (scipy returns `inf` or NaN there).
pub fn anova_oneway(groups: &[ArrayView1<'_, f64>]) -> Result<Anova> {
    if groups.len() < 2 {
        return Err(Error::TooFewObservations {
            what: "groups",
            n: groups.len(),
            min: 2,
        });
    }
    let mut offset = 0;
    for g in groups {
        if g.is_empty() {
            return Err(Error::EmptyInput { what: "a group" });
        }
        if let Some(i) = g.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "groups",
                index: offset + i,
            });
        }
        offset += g.len();
    }
    let big_n = offset as f64;
    let k = groups.len() as f64;
    if offset <= groups.len() {
        return Err(Error::TooFewObservations {
            what: "groups together (N − k, the within-group degrees of freedom)",
            n: offset - groups.len(),
            min: 1,
        });
    }
    // F is scale-invariant: values beyond 1e100 are divided by the largest
    // magnitude first, so that the sums of squares cannot overflow (a
    // hostile-input run found a panic inside statrs at ±f64::MAX); the
    // reported SS are scaled back and may then be +∞.
    let top = groups
        .iter()
        .flat_map(|g| g.iter())
        .fold(0.0f64, |a, v| a.max(v.abs()));
    let scale = if top > 1e100 { top } else { 1.0 };
    // One Welford pass per group; their merge is the grand mean.
    let moments: Vec<Welford> = groups
        .iter()
        .map(|g| g.iter().map(|v| v / scale).collect())
        .collect();
    let mut all = Welford::new();
    moments.iter().for_each(|w| all.merge(w));
    let grand = all.mean();
    let mut ss_between = 0.0;
    let mut ss_within = 0.0;
    for w in &moments {
        let d = w.mean() - grand;
        ss_between += w.count() as f64 * d * d;
        ss_within += w.sum_squared_deviations();
    }
    if ss_within <= 0.0 {
        return Err(zero_variance("every group (SS_w = 0)"));
    }
    let df_between = k - 1.0;
    let df_within = big_n - k;
    let statistic = (ss_between / df_between) / (ss_within / df_within);
    let den = df_within + df_between * statistic;
    let p_value = beta_pair(
        df_within / 2.0,
        df_between / 2.0,
        df_within / den,
        df_between * statistic / den,
    )
    .0;
    Ok(Anova {
        statistic,
        df_between,
        df_within,
        p_value,
        ss_between: ss_between * scale * scale,
        ss_within: ss_within * scale * scale,
    })
}
