//! Statistics: running moments, quantiles (including the split-conformal
//! one), the empirical CDF, and correlation; and inference: confidence
//! intervals ([`wilson_interval`], [`clopper_pearson_interval`],
//! [`t_interval`], [`bootstrap_interval`], [`paired_bootstrap_interval`])
//! and tests ([`binomial_test`], [`fisher_exact`], [`wilcoxon_signed_rank`]),
//! each reproducing SciPy's numbers.

use crate::check;
use crate::error::{Error, Result};
use ndarray::{Array1, ArrayView1};

/// Welford's running mean and variance: one pass, numerically stable, O(1) memory.
///
/// Two accumulators over disjoint data merge exactly ([`Welford::merge`],
/// Chan et al.), which is how parallel runs stay identical to serial ones up
/// to rounding.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one observation.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Folds in another accumulator, as if its observations had been pushed here.
    pub fn merge(&mut self, other: &Welford) {
        if other.n == 0 {
            return;
        }
        let n = self.n + other.n;
        let d = other.mean - self.mean;
        self.mean += d * other.n as f64 / n as f64;
        self.m2 += other.m2 + d * d * (self.n as f64 * other.n as f64 / n as f64);
        self.n = n;
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Sample mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 { f64::NAN } else { self.mean }
    }

    /// Unbiased sample variance `Σ(x − x̄)² / (n − 1)` (NaN for fewer than two observations).
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            f64::NAN
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }

    /// Population variance `Σ(x − x̄)² / n` (NaN when empty).
    pub fn population_variance(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.m2 / self.n as f64
        }
    }

    /// Standard error of the mean, `√(variance / n)`.
    pub fn standard_error(&self) -> f64 {
        (self.variance() / self.n as f64).sqrt()
    }
}

impl Extend<f64> for Welford {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        iter.into_iter().for_each(|x| self.push(x));
    }
}

impl FromIterator<f64> for Welford {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut w = Welford::new();
        w.extend(iter);
        w
    }
}

fn sorted(data: ArrayView1<'_, f64>, what: &'static str) -> Result<Vec<f64>> {
    check::data(&data, what)?;
    let mut v = data.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    Ok(v)
}

/// The `k`-th smallest value (1-based: `k = 1` is the minimum). O(n) expected.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::InvalidParameter`] unless `1 ≤ k ≤ n`.
pub fn order_statistic(data: ArrayView1<'_, f64>, k: usize) -> Result<f64> {
    check::data(&data, "data")?;
    if k == 0 || k > data.len() {
        return Err(Error::InvalidParameter {
            name: "k",
            value: k as f64,
            expected: "1 <= k <= n",
        });
    }
    let mut v = data.to_vec();
    let (_, kth, _) = v.select_nth_unstable_by(k - 1, f64::total_cmp);
    Ok(*kth)
}

/// The `q`-quantile with linear interpolation between order statistics
/// (Hyndman–Fan type 7, numpy's default): position `h = (n − 1) q` (0-based),
/// `x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎)`. O(n log n).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::InvalidParameter`] unless `0 ≤ q ≤ 1`.
pub fn quantile(data: ArrayView1<'_, f64>, q: f64) -> Result<f64> {
    if !(0.0..=1.0).contains(&q) {
        return Err(Error::InvalidParameter {
            name: "q",
            value: q,
            expected: "in [0, 1]",
        });
    }
    let v = sorted(data, "data")?;
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    Ok(v[lo] + (h - lo as f64) * (v[hi] - v[lo]))
}

/// The sample median: the middle order statistic for odd `n`, the mean of
/// the two middle ones for even `n` (numpy's `median`; the same value as
/// `quantile(data, 0.5)`). O(n log n).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`].
pub fn median(data: ArrayView1<'_, f64>) -> Result<f64> {
    let v = sorted(data, "data")?;
    let n = v.len();
    Ok(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// The split-conformal rank `k = ⌈(n+1)(1−α)⌉` for `n` calibration scores.
///
/// May exceed `n`: then no finite threshold has the guarantee, which happens
/// exactly when `n < 1/α − 1`. The product is computed with a relative
/// tolerance of 1e-9 before the ceiling, so that an exact integer (n = 19,
/// α = 0.1 gives 18) does not round up through floating-point error.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `0 < α < 1`.
pub fn conformal_rank(n: usize, alpha: f64) -> Result<usize> {
    check::open_interval(alpha, 0.0, 1.0, "alpha", "in (0, 1)")?;
    let target = (n + 1) as f64 * (1.0 - alpha);
    Ok((target - 1e-9 * target.max(1.0)).ceil().max(0.0) as usize)
}

/// The split-conformal threshold: the `⌈(n+1)(1−α)⌉`-th smallest of `n`
/// calibration scores ([`conformal_rank`]), or `+∞` when that rank exceeds
/// `n` (too few scores for level `α`: the prediction set must then be everything).
///
/// With exchangeable scores, a fresh score `s` satisfies
/// `P(s ≤ q̂) ≥ 1 − α` (Vovk et al. 2005; Angelopoulos & Bates 2021, Thm. 1). O(n).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::InvalidParameter`] unless `0 < α < 1`.
pub fn conformal_quantile(scores: ArrayView1<'_, f64>, alpha: f64) -> Result<f64> {
    let k = conformal_rank(scores.len(), alpha)?;
    check::data(&scores, "scores")?;
    if k > scores.len() {
        Ok(f64::INFINITY)
    } else {
        order_statistic(scores, k.max(1))
    }
}

/// The empirical CDF `F̂(x) = #{i : xᵢ ≤ x} / n` of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    /// Sorts a copy of the sample. O(n log n).
    ///
    /// # Errors
    /// [`Error::Empty`], [`Error::NonFinite`].
    pub fn new(data: ArrayView1<'_, f64>) -> Result<Self> {
        Ok(Ecdf {
            sorted: sorted(data, "data")?,
        })
    }

    /// `F̂(x)`, in O(log n).
    pub fn eval(&self, x: f64) -> f64 {
        self.sorted.partition_point(|&v| v <= x) as f64 / self.sorted.len() as f64
    }

    /// The sorted sample (the jump points of `F̂`).
    pub fn sorted_sample(&self) -> &[f64] {
        &self.sorted
    }
}

fn paired(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<()> {
    check::data(&x, "x")?;
    check::data(&y, "y")?;
    check::len(y.len(), x.len(), "y")
}

/// Pearson's correlation `r = Σ(xᵢ − x̄)(yᵢ − ȳ) / √(Σ(xᵢ − x̄)² Σ(yᵢ − ȳ)²)`. O(n).
///
/// # Errors
/// Emptiness, finiteness and length errors, [`Error::ZeroVariance`] for a constant input.
pub fn pearson(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    paired(x, y)?;
    let (mx, my) = (x.mean().unwrap_or(0.0), y.mean().unwrap_or(0.0));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y.iter()) {
        let (dx, dy) = (a - mx, b - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 {
        return Err(Error::ZeroVariance { what: "x" });
    }
    if syy == 0.0 {
        return Err(Error::ZeroVariance { what: "y" });
    }
    Ok((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

/// Ranks `1..=n` of the values, ties sharing their average rank (scipy's `rankdata`). O(n log n).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`].
pub fn ranks(x: ArrayView1<'_, f64>) -> Result<Array1<f64>> {
    check::data(&x, "x")?;
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_unstable_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = Array1::zeros(x.len());
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]] == x[order[start]] {
            end += 1;
        }
        let avg = (start + end + 1) as f64 / 2.0;
        order[start..end].iter().for_each(|&i| r[i] = avg);
        start = end;
    }
    Ok(r)
}

/// Spearman's rank correlation: Pearson's `r` of the (tie-averaged) ranks. O(n log n).
///
/// # Errors
/// As [`pearson`].
pub fn spearman(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    paired(x, y)?;
    pearson(ranks(x)?.view(), ranks(y)?.view())
}

/// Ordinary least-squares line `y ≈ slope·x + intercept`:
/// `slope = Σ(xᵢ − x̄)(yᵢ − ȳ) / Σ(xᵢ − x̄)²`, `intercept = ȳ − slope·x̄`. O(n).
///
/// # Errors
/// Emptiness, finiteness and length errors, [`Error::ZeroVariance`] when all
/// `x` are equal (the slope is undefined).
pub fn linear_fit(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<(f64, f64)> {
    paired(x, y)?;
    let (mx, my) = (x.mean().unwrap_or(0.0), y.mean().unwrap_or(0.0));
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (&a, &b) in x.iter().zip(y.iter()) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
    }
    if sxx == 0.0 {
        return Err(Error::ZeroVariance { what: "x" });
    }
    let slope = sxy / sxx;
    Ok((slope, my - slope * mx))
}

/// The exponent k of a power law `y ∝ xᵏ` fitted to the points `(x, y)`: the
/// least-squares slope of `ln y` on `ln x` ([`linear_fit`]). This is how growth
/// rates (cost against tolerance, regret against horizon) are read off a
/// log–log plot. O(n).
///
/// # Errors
/// [`Error::InvalidParameter`] for a non-positive `x` or `y` (its logarithm is
/// undefined), and the errors of [`linear_fit`].
pub fn power_law_exponent(points: &[(f64, f64)]) -> Result<f64> {
    let mut lx = Array1::zeros(points.len());
    let mut ly = Array1::zeros(points.len());
    for (i, &(x, y)) in points.iter().enumerate() {
        check::positive(x, "x")?;
        check::positive(y, "y")?;
        lx[i] = x.ln();
        ly[i] = y.ln();
    }
    Ok(linear_fit(lx.view(), ly.view())?.0)
}

pub use crate::hypothesis::*;
pub use crate::intervals::*;
