//! Confidence intervals: Wilson and Clopper–Pearson for a binomial
//! proportion, Student's t for a mean, and seeded percentile bootstraps.
//! Re-exported from [`crate::stats`].

use crate::check;
use crate::error::{Error, Result};
use crate::hypothesis::check_counts;
use crate::hypothesis::lattice::{Binomial, pmf, sf};
use crate::sampling;
use crate::stats::{Welford, quantile};
use ndarray::{Array1, ArrayView1};
use rand::RngExt;
use statrs::function::erf::{erf_inv, erfc_inv};
use statrs::function::gamma::ln_gamma;
use std::f64::consts::{PI, SQRT_2};

/// A two-sided confidence interval.
///
/// ```
/// use mlcore::stats::{self, Alternative};
///
/// // 7 successes in 20 trials: 95 % intervals for the success probability.
/// let wilson = stats::wilson_interval(7, 20, 0.95)?;
/// let exact = stats::clopper_pearson_interval(7, 20, 0.95)?;
/// assert!(wilson.contains(0.35) && exact.contains(0.35));
/// assert!(wilson.width() < exact.width());
/// // Both include ½, and the two-sided binomial test does not reject it.
/// assert!(!exact.excludes(0.5));
/// assert!(stats::binomial_test(7, 20, 0.5, Alternative::TwoSided)? > 0.05);
/// # Ok::<(), mlcore::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Whether `lo ≤ x ≤ hi` (the ends belong to the interval; false for NaN).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Whether `x < lo` or `x > hi`: the interval rules `x` out (false for NaN,
    /// which is neither contained nor excluded).
    pub fn excludes(&self, x: f64) -> bool {
        x < self.lo || x > self.hi
    }

    /// `hi − lo`.
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }
}

fn check_confidence(confidence: f64) -> Result<()> {
    check::open_interval(confidence, 0.0, 1.0, "confidence", "in (0, 1)")
}

/// `z = Φ⁻¹((1 + c)/2) = √2 · erf⁻¹(c) = √2 · erfc⁻¹(1 − c)`: `P(|Z| ≤ z) = c`
/// for a standard normal `Z` (statrs' inverses, both within a few ulps; each
/// used where its argument is formed exactly).
fn normal_two_sided(confidence: f64) -> f64 {
    if confidence <= 0.5 {
        SQRT_2 * erf_inv(confidence)
    } else {
        SQRT_2 * erfc_inv(1.0 - confidence)
    }
}

/// The Wilson score interval for a binomial proportion: the `p` whose score
/// test `|k − np| ≤ z √(n p (1 − p))` accepts, `z = Φ⁻¹((1 + c)/2)`:
///
/// `(2k + z² ± z √(z² + 4k(n − k)/n)) / (2(n + z²))`,
///
/// the same numbers as statsmodels' `proportion_confint(k, n, 1 − c, method="wilson")`
/// and SciPy's `binomtest(k, n).proportion_ci(c, method="wilson")`. The lower
/// end is evaluated as `k² / (n (n + z²) (centre + half-width))`, free of
/// cancellation; it is exactly 0 for `k = 0`, and the upper end exactly 1 for
/// `k = n` (as in SciPy). The interval always contains `k/n`. O(1).
///
/// # Errors
/// [`Error::InvalidParameter`] unless `1 ≤ n ≤ 2⁵³`, `successes ≤ n` and `0 < c < 1`.
pub fn wilson_interval(successes: u64, n: u64, confidence: f64) -> Result<Interval> {
    check_counts(successes, n)?;
    check_confidence(confidence)?;
    let z = normal_two_sided(confidence);
    let z2 = z * z;
    let (k, nf) = (successes as f64, n as f64);
    let denom = 2.0 * (nf + z2);
    let centre = (2.0 * k + z2) / denom;
    let half = z * (4.0 * k * (nf - k) / nf + z2).sqrt() / denom;
    let phat = k / nf;
    let lo = if successes == 0 {
        0.0
    } else {
        (k * k / (nf * (nf + z2) * (centre + half))).min(phat)
    };
    let hi = if successes == n {
        1.0
    } else {
        (centre + half).clamp(phat, 1.0)
    };
    Ok(Interval { lo, hi })
}

/// The Clopper–Pearson ("exact") interval for a binomial proportion, with
/// `α = 1 − c`: the lower end solves `P(X ≥ k) = α/2` and the upper end
/// `P(X ≤ k) = α/2` for `X ~ Binomial(n, p)`, i.e. the Beta quantiles
/// `B⁻¹(α/2; k, n − k + 1)` and `B⁻¹(1 − α/2; k + 1, n − k)`; 0 for `k = 0`
/// and 1 for `k = n`. SciPy's `binomtest(k, n).proportion_ci(c, method="exact")`.
///
/// Each end is found by safeguarded Newton iteration on `ln P(·)` as a
/// function of `ln p` (concave there, so the iteration converges from
/// anywhere in the bracket), to a relative accuracy of about 1e-13. The upper
/// end is computed as the complement of the lower end for `n − k` failures,
/// so that both ends keep their relative accuracy near 0 and near 1. Each
/// step costs one binomial tail, O(√(n p (1 − p))) terms at most.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `1 ≤ n ≤ 2⁵³`, `successes ≤ n` and
/// `0 < c < 1`; [`Error::NoConvergence`] should the root finder fail (not
/// observed).
pub fn clopper_pearson_interval(successes: u64, n: u64, confidence: f64) -> Result<Interval> {
    check_counts(successes, n)?;
    check_confidence(confidence)?;
    let tail = (1.0 - confidence) / 2.0;
    let phat = successes as f64 / n as f64;
    let lo = if successes == 0 {
        0.0
    } else {
        ln_lower_limit(successes, n, tail)?.exp().min(phat)
    };
    let hi = if successes == n {
        1.0
    } else {
        // P(X ≤ k; p) = P(n − X ≥ n − k; 1 − p).
        (-ln_lower_limit(n - successes, n, tail)?.exp_m1()).max(phat)
    };
    Ok(Interval { lo, hi })
}

/// `ln p` at the `p ≤ k/n` with `P(X ≥ k) = tail`, `X ~ Binomial(n, p)`, `1 ≤ k ≤ n`, `0 < tail < ½`.
///
/// Newton on `G(u) = ln P(X ≥ k; eᵘ) − ln tail`, `G'(u) = k P(X = k) / P(X ≥ k)`.
/// `G` is concave in `u` (the Beta(k, n − k + 1) density is log-concave in
/// `u = ln p`, hence so is its CDF), so from a point right of the root
/// Newton lands left of it and then climbs monotonically. A bracket guards
/// against underflow far in the tail (bisection, or a doubling search
/// downwards while no lower bound is known).
fn ln_lower_limit(k: u64, n: u64, tail: f64) -> Result<f64> {
    let target = tail.ln();
    let ki = k as i64;
    let eval = |u: f64| {
        let dist = Binomial::new(n, u.exp(), -u.exp_m1());
        let s = sf(&dist, ki - 1);
        (s.ln() - target, k as f64 * pmf(&dist, ki) / s)
    };
    // P(X ≥ k) ≥ ½ at p = k/n (k is then a median), so G > 0 there.
    let (mut below, mut above) = (f64::NEG_INFINITY, (k as f64 / n as f64).ln());
    let mut u = above;
    for _ in 0..200 {
        let (g, slope) = eval(u);
        if g == 0.0 {
            return Ok(u);
        }
        if g > 0.0 {
            above = u;
        } else {
            below = u;
        }
        let newton = u - g / slope;
        // Newton converges quadratically: after a step of relative size
        // 1e-10 the error left is of order 1e-20.
        if (newton - u).abs() <= 1e-10 * u.abs() {
            return Ok(newton.max(below).min(above));
        }
        u = if newton > below && newton < above {
            newton
        } else if below.is_finite() {
            0.5 * (below + above)
        } else {
            above - 1.0 - above.abs()
        };
        if above - below <= 4.0 * f64::EPSILON * u.abs() {
            return Ok(u);
        }
    }
    Err(Error::NoConvergence {
        algorithm: "Clopper-Pearson limit (Newton on ln p)",
    })
}

/// `P(|T| ≤ t)` for Student's t with `ν` degrees of freedom, `t ≥ 0`
/// (Abramowitz & Stegun 26.7.3–4), with `θ = atan(t/√ν)`:
/// - ν odd: `(2/π)(θ + sin θ (cos θ + (2/3) cos³θ + … + (2·4⋯(ν−3))/(1·3⋯(ν−2)) cos^(ν−2)θ))`,
/// - ν even: `sin θ (1 + (1/2) cos²θ + … + (1·3⋯(ν−3))/(2·4⋯(ν−2)) cos^(ν−2)θ)`.
///
/// All terms are positive; O(ν).
fn t_central(t: f64, nu: u64) -> f64 {
    const NEGLIGIBLE: f64 = 1e-17;
    let v = nu as f64;
    let sin = t / (v + t * t).sqrt();
    let cos2 = v / (v + t * t);
    if nu % 2 == 1 {
        let theta = (t / v.sqrt()).atan();
        let mut sum = 0.0;
        if nu > 1 {
            let mut term = cos2.sqrt();
            sum = term;
            for j in 1..(nu - 1) / 2 {
                term *= (2 * j) as f64 / (2 * j + 1) as f64 * cos2;
                sum += term;
                if term <= NEGLIGIBLE * (1.0 - cos2) * sum {
                    break;
                }
            }
        }
        2.0 / PI * (theta + sin * sum)
    } else {
        let (mut term, mut sum) = (1.0, 1.0);
        for j in 1..nu / 2 {
            term *= (2 * j - 1) as f64 / (2 * j) as f64 * cos2;
            sum += term;
            if term <= NEGLIGIBLE * (1.0 - cos2) * sum {
                break;
            }
        }
        sin * sum
    }
}

/// The `t` with `P(|T_ν| ≤ t) = c`, i.e. the `(1 + c)/2` quantile of Student's t.
///
/// For ν ≤ 10⁴: Newton on [`t_central`] from the normal quantile `z` (which
/// is below the root, and `P(|T| ≤ t)` is concave in `t`, so the iteration
/// climbs monotonically). Beyond: the Cornish–Fisher expansion
/// `t = z + g₁/ν + g₂/ν² + g₃/ν³ + g₄/ν⁴` (A&S 26.7.5), whose error is below
/// 1e-16 relative there. The Newton residual `c − P(|T| ≤ t)` is a difference
/// near 1, so for `c` close to 1 the relative accuracy is about `ε / (1 − c)`
/// (2.7e-12 at `c = 1 − 10⁻⁶`, ν = 2).
fn t_two_sided(nu: u64, confidence: f64) -> Result<f64> {
    let z = normal_two_sided(confidence);
    let v = nu as f64;
    if nu > 10_000 {
        let z2 = z * z;
        let g1 = z * (z2 + 1.0) / 4.0;
        let g2 = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
        let g3 = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
        let g4 = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
        return Ok(z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v);
    }
    let ln_k = ln_gamma((v + 1.0) / 2.0) - ln_gamma(v / 2.0) - 0.5 * (v * PI).ln();
    let density = |t: f64| (ln_k - (v + 1.0) / 2.0 * (t * t / v).ln_1p()).exp();
    let mut t = z;
    for _ in 0..2000 {
        let step = (confidence - t_central(t, nu)) / (2.0 * density(t));
        // From the left the steps are positive and shrink quadratically; a
        // step of relative size 1e-10 leaves an error of order 1e-20, and a
        // step ≤ 0 means rounding noise in `c − P(|T| ≤ t)` has been reached.
        if step.is_nan() || step <= 1e-10 * t {
            return Ok(t + step.max(0.0));
        }
        t += step;
    }
    Err(Error::NoConvergence {
        algorithm: "Student t quantile (Newton)",
    })
}

/// Mean and Student-t confidence interval of the mean (n ≥ 2).
///
/// `x̄ ± t_{n−1} · s/√n`, with `s` the unbiased standard deviation
/// ([`Welford`]) and `t_{n−1}` the `(1 + c)/2` quantile of Student's t with
/// `n − 1` degrees of freedom: `scipy.stats.t.interval(c, n − 1, loc=x̄, scale=s/√n)`.
/// Constant data give the degenerate interval `[x̄, x̄]`. The quantile is
/// found by Newton iteration on the exact (finite-series) t distribution for
/// `n ≤ 10⁴ + 1` and by the Cornish–Fisher expansion beyond, to about 1e-14
/// relative (less for `c` very close to 1: about `10⁻¹⁶ / (1 − c)`). O(n),
/// plus O(min(n, 10⁴)) per Newton step.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`]; [`Error::InvalidParameter`] for a
/// single observation, for `c ∉ (0, 1)`, or when the mean or variance
/// overflows.
pub fn t_interval(data: ArrayView1<'_, f64>, confidence: f64) -> Result<(f64, Interval)> {
    check::data(&data, "data")?;
    check_confidence(confidence)?;
    if data.len() < 2 {
        return Err(Error::InvalidParameter {
            name: "data.len()",
            value: data.len() as f64,
            expected: "at least 2 observations",
        });
    }
    let w: Welford = data.iter().copied().collect();
    let (mean, se) = (w.mean(), w.standard_error());
    if !(mean.is_finite() && se.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "data",
            value: se,
            expected: "values whose mean and variance are finite in f64",
        });
    }
    let half = t_two_sided(data.len() as u64 - 1, confidence)? * se;
    Ok((
        mean,
        Interval {
            lo: mean - half,
            hi: mean + half,
        },
    ))
}

/// Seeded percentile bootstrap interval of `statistic` over resamples with replacement.
///
/// Draws `resamples` samples of size `n` with replacement from `data`
/// (indices uniform, from [`sampling::seeded`]`(seed)`, so a seed fixes the
/// result on every platform), evaluates `statistic` on each, and returns the
/// `(1 − c)/2` and `(1 + c)/2` quantiles of the sorted bootstrap values, by
/// linear interpolation between order statistics (numpy's default,
/// [`quantile`]). O(resamples · (n + cost of `statistic`) + resamples · log resamples).
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`] for the data;
/// [`Error::InvalidParameter`] for `c ∉ (0, 1)` or `resamples = 0`;
/// [`Error::NonFinite`] (`what = "bootstrap statistic"`, `index` = the
/// resample) when `statistic` returns NaN or ±∞.
pub fn bootstrap_interval<F: Fn(&[f64]) -> f64>(
    data: ArrayView1<'_, f64>,
    statistic: F,
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> Result<Interval> {
    check::data(&data, "data")?;
    check_confidence(confidence)?;
    if resamples == 0 {
        return Err(Error::InvalidParameter {
            name: "resamples",
            value: 0.0,
            expected: "at least 1",
        });
    }
    let values = data.to_vec();
    let n = values.len();
    let mut rng = sampling::seeded(seed);
    let mut sample = vec![0.0; n];
    let mut stats = Vec::with_capacity(resamples.min(1 << 20));
    for index in 0..resamples {
        for slot in sample.iter_mut() {
            *slot = values[rng.random_range(0..n)];
        }
        let s = statistic(&sample);
        if !s.is_finite() {
            return Err(Error::NonFinite {
                what: "bootstrap statistic",
                index,
            });
        }
        stats.push(s);
    }
    let stats = Array1::from(stats);
    Ok(Interval {
        lo: quantile(stats.view(), (1.0 - confidence) / 2.0)?,
        hi: quantile(stats.view(), (1.0 + confidence) / 2.0)?,
    })
}

/// Percentile bootstrap interval of the mean of paired differences x − y (convenience wrapper).
///
/// [`bootstrap_interval`] of `dᵢ = xᵢ − yᵢ` with the statistic `Σ dᵢ / n` (summed
/// pairwise, [`crate::stats::pairwise_sum`]):
/// pairs are resampled together, which keeps their correlation.
///
/// # Errors
/// As [`bootstrap_interval`], plus length errors and [`Error::NonFinite`]
/// (`what = "x - y"`) when a difference overflows.
pub fn paired_bootstrap_interval(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    resamples: usize,
    confidence: f64,
    seed: u64,
) -> Result<Interval> {
    check::data(&x, "x")?;
    check::data(&y, "y")?;
    check::len(y.len(), x.len(), "y")?;
    let d = &x - &y;
    check::finite(&d, "x - y")?;
    bootstrap_interval(
        d.view(),
        |s| crate::stats::pairwise_sum(s) / s.len() as f64,
        resamples,
        confidence,
        seed,
    )
}
