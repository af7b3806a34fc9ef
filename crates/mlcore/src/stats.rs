//! Statistics: running moments and pairwise sums ([`Welford`],
//! [`pairwise_sum`], [`mean`], [`variance`], [`mean_axis`]), quantiles (including the split-conformal
//! one), the empirical CDF, and correlation; and inference: confidence
//! intervals ([`wilson_interval`], [`clopper_pearson_interval`],
//! [`t_interval`], [`bootstrap_interval`], [`paired_bootstrap_interval`])
//! and tests ([`binomial_test`], [`fisher_exact`], [`wilcoxon_signed_rank`]),
//! each reproducing SciPy's numbers.

use crate::check;
use crate::error::{Error, Result};
use ndarray::{Array1, ArrayView1};

pub use crate::moments::*;

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
    Ok(lerp(v[lo], v[hi], h - lo as f64))
}

/// `a + t (b − a)` for `a ≤ b` and `t ∈ [0, 1]`, finite for finite `a`, `b`
/// (the difference may overflow: then `(1 − t) a + t b`). `t = 0` gives `a`.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t == 0.0 {
        return a;
    }
    let d = b - a;
    if d.is_finite() {
        a + t * d
    } else {
        (1.0 - t) * a + t * b
    }
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
        let (a, b) = (v[n / 2 - 1], v[n / 2]);
        let sum = a + b;
        // The sum of two finite values near ±f64::MAX may overflow; halve first then.
        if sum.is_finite() {
            0.5 * sum
        } else {
            0.5 * a + 0.5 * b
        }
    })
}

/// The split-conformal rank `k = ⌈(n+1)(1−α)⌉` for `n` calibration scores.
///
/// May exceed `n`: then no finite threshold has the guarantee, which happens
/// exactly when `n < 1/α − 1`. The product is computed in `f64`, so any `n`
/// up to `usize::MAX` is accepted (a rank beyond `usize::MAX` saturates to
/// it). Before the ceiling, `min(8ε·(n+1), 10⁻³)` is subtracted: that
/// absorbs the rounding of `α`, of `1 − α` and of the product (at most
/// `1.5ε·(n+1)`), so that an exact integer (n = 19, α = 0.1 gives 18) does
/// not round up, and it never lowers a rank whose exact value is not an
/// integer (its fractional part then exceeds the correction). Beyond about
/// 3·10¹² scores the rounding can exceed the correction, and an exact
/// integer rank may come out one too high: the conservative side.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `0 < α < 1`.
pub fn conformal_rank(n: usize, alpha: f64) -> Result<usize> {
    check::open_interval(alpha, 0.0, 1.0, "alpha", "in (0, 1)")?;
    let n1 = n as f64 + 1.0;
    let target = n1 * (1.0 - alpha);
    // `as` saturates at usize::MAX.
    let tol = (8.0 * f64::EPSILON * n1).min(1e-3);
    Ok((target - tol).ceil().max(0.0) as usize)
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

    /// `F̂(x)`, in O(log n); NaN for a NaN `x` (`F̂(±∞)` is 1 and 0).
    pub fn eval(&self, x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
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

/// A sample centred and scaled so that nothing overflows or underflows for
/// any finite input: `d[i] = (xᵢ − x̄) / s` with `max |d[i]| = 1`, where the
/// scale `s = max|xᵢ − x̄|` is kept as `magnitude · spread` (`magnitude =
/// max|xᵢ|`, `spread ∈ (0, 2]`), since the product itself may overflow.
struct Centred {
    d: Vec<f64>,
    mean: f64,
    magnitude: f64,
    spread: f64,
}

/// [`Centred`] of `x` (non-empty, finite), or [`Error::ZeroVariance`] naming
/// `what` when every `xᵢ` is the same.
fn centred(x: ArrayView1<'_, f64>, what: &'static str) -> Result<Centred> {
    let magnitude = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if magnitude == 0.0 {
        return Err(Error::ZeroVariance { what });
    }
    let n = x.len() as f64;
    let xs: Vec<f64> = x.iter().map(|v| v / magnitude).collect();
    // Two-pass mean of values in [−1, 1]: no overflow, and exact for constant data.
    let m0 = xs.iter().sum::<f64>() / n;
    let m = m0 + xs.iter().map(|v| v - m0).sum::<f64>() / n;
    let mut d: Vec<f64> = xs.iter().map(|v| v - m).collect();
    let spread = d.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if spread == 0.0 {
        return Err(Error::ZeroVariance { what });
    }
    d.iter_mut().for_each(|v| *v /= spread);
    Ok(Centred {
        d,
        mean: m * magnitude,
        magnitude,
        spread,
    })
}

/// `(Σ dx·dy, Σ dx², Σ dy²)` of two centred samples.
fn co_moments(cx: &Centred, cy: &Centred) -> (f64, f64, f64) {
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&dx, &dy) in cx.d.iter().zip(&cy.d) {
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxy, sxx, syy)
}

/// Pearson's correlation `r = Σ(xᵢ − x̄)(yᵢ − ȳ) / √(Σ(xᵢ − x̄)² Σ(yᵢ − ȳ)²)`. O(n).
///
/// The deviations are centred and divided by their largest magnitude before
/// any product is formed, so that `r` is accurate for any finite input
/// (`x = [1e200, −1e200, 0]`, `y = [1, 2, 3]` gives −0.5, where the textbook
/// formula overflows to −0).
///
/// # Errors
/// Emptiness, finiteness and length errors, [`Error::ZeroVariance`] for a constant input.
pub fn pearson(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    paired(x, y)?;
    let (cx, cy) = (centred(x, "x")?, centred(y, "y")?);
    let (sxy, sxx, syy) = co_moments(&cx, &cy);
    // sxx, syy ≥ 1 (some |d| is 1): no underflow, no overflow.
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
/// Computed on centred, scaled deviations (as [`pearson`]), so that any
/// finite input whose slope and intercept are within the `f64` range gets
/// them. A constant `y` gives slope 0.
///
/// # Errors
/// Emptiness, finiteness and length errors, [`Error::ZeroVariance`] when all
/// `x` are equal (the slope is undefined), [`Error::Overflow`] when the slope
/// or the intercept exceeds the `f64` range.
pub fn linear_fit(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<(f64, f64)> {
    paired(x, y)?;
    let cx = centred(x, "x")?;
    let Ok(cy) = centred(y, "y") else {
        // A constant y: the fitted line is flat through it.
        return Ok((0.0, y[0]));
    };
    let (sxy, sxx, _) = co_moments(&cx, &cy);
    // slope = (sxy/sxx) · (spread_y/spread_x) · (magnitude_y/magnitude_x);
    // the first two factors are moderate, the last may over- or underflow alone.
    let k = sxy / sxx * (cy.spread / cx.spread);
    let (my, mx) = (cy.magnitude, cx.magnitude);
    let orders = [k * (my / mx), (k * my) / mx, (k / mx) * my];
    let good = |v: &&f64| v.is_finite() && (k == 0.0 || v.abs() >= f64::MIN_POSITIVE);
    let slope = match orders.iter().find(good) {
        Some(&v) => v,
        None => match orders.iter().find(|v| v.is_finite()) {
            Some(&v) => v, // underflows in every order: the slope is (sub)normal-tiny
            None => return Err(Error::Overflow { what: "slope" }),
        },
    };
    // ȳ − slope·x̄ with one rounding (no overflow of the product alone).
    let intercept = (-slope).mul_add(cx.mean, cy.mean);
    if !intercept.is_finite() {
        return Err(Error::Overflow { what: "intercept" });
    }
    Ok((slope, intercept))
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
