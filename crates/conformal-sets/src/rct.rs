//! Statistics of the randomised controlled trial (the paper's §5).
//!
//! The trial is between-subjects: each participant saw one arm (`control`,
//! `topk`, `conformal`, or an ablation) and answered a fixed set of questions;
//! the outcome is the number answered correctly (and the time taken). The
//! paper compares arms with two-sample tests. This module provides them with
//! the semantics of the Python peers, so that a table computed here matches
//! one computed with scipy:
//!
//! | item | peer |
//! |---|---|
//! | [`welch_t`], [`student_t`] | `scipy.stats.ttest_ind(equal_var=False / True)` |
//! | [`mann_whitney_u`] | `scipy.stats.mannwhitneyu` (scipy 1.17) |
//! | [`cohens_d`], [`hedges_g`] | `pingouin.compute_effsize(eftype="cohen" / "hedges")` |
//! | [`anova_oneway`] | `scipy.stats.f_oneway` |
//! | [`power`], [`n_per_arm`] | `statsmodels.stats.power.TTestIndPower` |
//! | [`noncentral_t_cdf`], [`noncentral_t_sf`] | `scipy.stats.nct.cdf / sf` |
//! | [`bootstrap_ci`] | `scipy.stats.bootstrap(method="percentile")` (own resampling stream) |
//! | [`read_results_csv`], [`compare_arms`] | the official `data/<task>/results.csv` files |
//!
//! Distribution functions are built on `statrs`'s special functions: the
//! regularised incomplete beta `I_x(a, b)` (Student t, F, and the
//! non-central t, which `statrs` lacks, as its exact Poisson-mixture series —
//! see [`noncentral_t_cdf`]) and the regularised incomplete gamma `Q(a, x)`
//! (the normal tail `Φ(−z) = ½ Q(½, z²/2)`). They are called so that the
//! argument of each continued fraction is exact: `statrs` 0.19's
//! `StudentsT::cdf`/`sf` lose about `ε·ν/t²` of relative accuracy (they form
//! `1 − ν/(ν+t²)` themselves) and its `erfc` is accurate to only ~1e-10,
//! which would show at the 1e-10 level at which these functions match scipy.
//! Beyond that, the log-gamma prefactors inside `statrs`'s incomplete beta
//! and gamma functions cost about `ν·1e-16` relative for large ν.
//!
//! Deliberate deviations from scipy, each documented at the item: inputs with
//! NaN or infinities are rejected (scipy propagates NaN); a statistic that
//! would divide by a zero variance is an error (scipy returns `±inf` or NaN);
//! samples too small for a variance are an error (scipy returns NaN).
//!
//! ```
//! use conformal_sets::rct::{welch_t, mann_whitney_u, cohens_d, Alternative, MwuMethod};
//! use ndarray::array;
//!
//! let conformal = array![41.0, 44.0, 39.0, 42.0, 40.0, 43.0];
//! let top_k = array![37.0, 40.0, 35.0, 41.0, 36.0, 38.0];
//! let t = welch_t(conformal.view(), top_k.view(), Alternative::Greater)?;
//! let u = mann_whitney_u(conformal.view(), top_k.view(), Alternative::Greater, MwuMethod::Auto, true)?;
//! let d = cohens_d(conformal.view(), top_k.view())?;
//! assert!(t.p_value < 0.01 && u.p_value < 0.05 && d > 1.0);
//! # Ok::<(), conformal_sets::Error>(())
//! ```

use std::path::Path;

use ndarray::{Array1, ArrayView1};
use rand::{Rng, RngExt};
use statrs::distribution::{Continuous, StudentsT};
use statrs::function::beta::beta_reg;
use statrs::function::gamma::{gamma_lr, ln_gamma};

use crate::error::{Error, Result};

// ---------------------------------------------------------------------------
// Common pieces
// ---------------------------------------------------------------------------

/// The alternative hypothesis of a two-sample comparison of `x` (first
/// sample) with `y` (second sample).
///
/// The names and meanings are scipy's `alternative="two-sided" | "greater" |
/// "less"` (statsmodels' power functions call the one-sided ones `"larger"`
/// and `"smaller"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Alternative {
    /// H₁: the locations of `x` and `y` differ, in either direction.
    #[default]
    TwoSided,
    /// H₁: the location of `x` (the first sample) is larger than that of `y`.
    /// The paper's one-sided test "conformal > top-k" is `Greater` with the
    /// conformal arm first.
    Greater,
    /// H₁: the location of `x` is smaller than that of `y`.
    Less,
}

/// Checks a sample: non-empty, finite, at least `min` observations.
fn check_sample(x: &ArrayView1<'_, f64>, what: &'static str, min: usize) -> Result<()> {
    if x.is_empty() {
        return Err(Error::EmptyInput { what });
    }
    if let Some(index) = x.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what, index });
    }
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
fn check_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(Error::AlphaOutOfRange { alpha })
    }
}

/// Sample size, mean and unbiased variance (two passes; exactly 0 for a
/// constant sample). The sample must be validated and hold ≥ 2 values.
struct Moments {
    n: f64,
    mean: f64,
    var: f64,
}

fn moments(x: &ArrayView1<'_, f64>) -> Moments {
    let n = x.len() as f64;
    let mean = x.sum() / n;
    let first = x[0];
    let var = if x.iter().all(|&v| v == first) {
        0.0
    } else {
        x.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)
    };
    Moments { n, mean, var }
}

/// The zero-variance error.
fn zero_variance(what: &'static str) -> Error {
    Error::Core(mlcore::Error::ZeroVariance { what })
}

/// Standard normal lower tail `Φ(z)`: the workspace's one implementation,
/// [`mlcore::special::norm_cdf`], accurate to a few ulps in both tails
/// (`statrs` 0.19's `erfc`, and so its `Normal::cdf`, is accurate to only
/// ~1e-10 relative, which would show in the Mann–Whitney p-values and the
/// non-central t).
use mlcore::special::norm_cdf as normal_cdf;

/// The standard Student t distribution with `df` degrees of freedom.
fn students_t(df: f64) -> Result<StudentsT> {
    StudentsT::new(0.0, 1.0, df).map_err(|_| Error::InvalidParameter {
        name: "df",
        value: df,
        expected: "a finite value > 0",
    })
}

/// `(I_x(a, b), I_y(b, a))` for `x + y = 1`, both given precisely.
///
/// `statrs`'s `beta_reg(a, b, x)` evaluates its continued fraction at `x`
/// when `x < (a+1)/(a+b+2)` and otherwise at `1 − x`, which it forms itself;
/// when `x` is close to 1 (Student t with large ν) that subtraction loses
/// about `ν·ε` of relative accuracy. Here the continued fraction always gets
/// the precise argument on its side, and the other value is the complement.
fn beta_pair(a: f64, b: f64, x: f64, y: f64) -> (f64, f64) {
    if x < (a + 1.0) / (a + b + 2.0) {
        let p = beta_reg(a, b, x);
        (p, 1.0 - p)
    } else {
        let q = beta_reg(b, a, y);
        (1.0 - q, q)
    }
}

/// Student t survival function `P(T_ν > t) = ½ I_{ν/(ν+t²)}(ν/2, ½)` for
/// `t ≥ 0` (and `1 −` that for `t < 0`), with `statrs`'s `I_x` through
/// [`beta_pair`]. `statrs::distribution::StudentsT::sf` forms
/// `1 − ν/(ν+t²)` itself and so loses about `ε·ν/t²` of relative accuracy
/// (1e-9 at ν = 229, t = 0.003); this does not.
fn t_sf(t: f64, df: f64) -> f64 {
    let r = t * t / df;
    // h = ν/(ν + t²) and x = t²/(ν + t²), without forming 1 − h.
    let h = 1.0 / (1.0 + r);
    let x = 1.0 / (1.0 + 1.0 / r);
    let tail = 0.5 * beta_pair(0.5 * df, 0.5, h, x).0;
    if t >= 0.0 { tail } else { 1.0 - tail }
}

/// The p-value of a t statistic with `df` degrees of freedom.
fn t_p_value(t: f64, df: f64, alt: Alternative) -> Result<f64> {
    if !(df > 0.0 && df.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "df",
            value: df,
            expected: "a finite value > 0",
        });
    }
    Ok(match alt {
        Alternative::Greater => t_sf(t, df),
        Alternative::Less => t_sf(-t, df),
        Alternative::TwoSided => (2.0 * t_sf(t.abs(), df)).min(1.0),
    })
}

// ---------------------------------------------------------------------------
// t-tests
// ---------------------------------------------------------------------------

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
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
/// (fewer than 2 values in a sample), and `Error::Core(ZeroVariance)` when both
/// samples are constant (scipy returns `±inf` or NaN there).
pub fn welch_t(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>, alt: Alternative) -> Result<TTest> {
    check_sample(&x, "x", 2)?;
    check_sample(&y, "y", 2)?;
    let (mx, my) = (moments(&x), moments(&y));
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
    let (mx, my) = (moments(&x), moments(&y));
    let df = mx.n + my.n - 2.0;
    let pooled = ((mx.n - 1.0) * mx.var + (my.n - 1.0) * my.var) / df;
    if pooled <= 0.0 {
        return Err(zero_variance("x and y (both samples are constant)"));
    }
    let std_error = (pooled * (1.0 / mx.n + 1.0 / my.n)).sqrt();
    t_test(mx.mean - my.mean, std_error, df, alt)
}

// ---------------------------------------------------------------------------
// Mann–Whitney U
// ---------------------------------------------------------------------------

/// How [`mann_whitney_u`] computes its p-value (scipy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MwuMethod {
    /// scipy's `"auto"`: [`Exact`](MwuMethod::Exact) when one sample has at
    /// most 8 values and there are no ties, [`Asymptotic`](MwuMethod::Asymptotic)
    /// otherwise.
    #[default]
    Auto,
    /// The exact null distribution of U (all `C(nₓ+n_y, nₓ)` rank
    /// arrangements equally likely). Not corrected for ties.
    Exact,
    /// The normal approximation with the tie-corrected variance and an
    /// optional continuity correction.
    Asymptotic,
}

/// The result of [`mann_whitney_u`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// `U` of the first sample: `Uₓ = Rₓ − nₓ(nₓ+1)/2`, with `Rₓ` the sum of
    /// the (mid-)ranks of `x` in the pooled sample (scipy's `statistic`).
    pub statistic: f64,
    /// The p-value under the chosen [`Alternative`].
    pub p_value: f64,
    /// The method actually used (never [`MwuMethod::Auto`]).
    pub method: MwuMethod,
    /// The standardised statistic of the normal approximation (for the `U`
    /// the p-value is computed from: `Uₓ` for Greater, `U_y` for Less,
    /// `max(Uₓ, U_y)` for TwoSided, so `p = f·Φ(−z)`); `None` for the exact
    /// method.
    pub z: Option<f64>,
    /// Whether the pooled sample has tied values.
    pub ties: bool,
}

/// Mid-ranks (1-based, ties get the average rank) of `v`, and the sizes of
/// the groups of tied values. O(n log n).
fn average_ranks(v: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let n = v.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; n];
    let mut tie_sizes = Vec::new();
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && v[idx[j]] == v[idx[i]] {
            j += 1;
        }
        // Positions i..j (0-based) hold ranks i+1..=j; their mean is (i+1+j)/2.
        let r = (i + 1 + j) as f64 / 2.0;
        for &k in &idx[i..j] {
            ranks[k] = r;
        }
        tie_sizes.push(j - i);
        i = j;
    }
    (ranks, tie_sizes)
}

/// The null probabilities `P(U = u)`, `u = 0..=max_u`, of the Mann–Whitney U
/// for sample sizes `n1`, `n2` without ties.
///
/// The counts are the coefficients of the Gaussian binomial
/// `[n1+n2 choose m]_q = ∏_{i=1..m} (1 − q^{n+i}) / (1 − q^i)` with
/// `m = min(n1, n2)`, `n = max(n1, n2)`. Each factor is a causal recurrence
/// (multiply by `1 − q^{n+i}`, then divide by `1 − q^i` by a strided running
/// sum), and dividing by `(n+i)/i` after factor `i` keeps the coefficients
/// normalised, so nothing overflows. O(m·max_u) time, O(max_u) memory.
fn mwu_null_pmf(n1: usize, n2: usize, max_u: usize) -> Vec<f64> {
    let (m, n) = (n1.min(n2), n1.max(n2));
    let mut p = vec![0.0; max_u + 1];
    p[0] = 1.0;
    for i in 1..=m {
        let shift = n + i;
        if shift <= max_u {
            for u in (shift..=max_u).rev() {
                p[u] -= p[u - shift];
            }
        }
        for u in i..=max_u {
            p[u] += p[u - i];
        }
        let scale = i as f64 / (n + i) as f64;
        for v in p.iter_mut() {
            *v *= scale;
        }
    }
    p
}

/// `P(U ≥ k)` under the exact null, as scipy's `_MWU.sf`: by symmetry
/// `P(U ≤ n1·n2 − k)` when `k ≥ n1·n2 − k`, else `1 − P(U ≤ k) + P(U = k)`.
fn mwu_exact_sf(n1: usize, n2: usize, k: usize) -> f64 {
    let total = n1 * n2;
    let kc = total - k;
    if k < kc {
        let pmf = mwu_null_pmf(n1, n2, k);
        let cdf: f64 = pmf.iter().sum();
        1.0 - cdf + pmf[k]
    } else {
        mwu_null_pmf(n1, n2, kc).iter().sum()
    }
}

/// The Mann–Whitney U test (Wilcoxon rank-sum test) of `x` against `y`, as
/// `scipy.stats.mannwhitneyu(x, y, use_continuity=continuity,
/// alternative=…, method=…)` in scipy 1.17.
///
/// The statistic is `Uₓ = Rₓ − nₓ(nₓ+1)/2` (mid-ranks for ties), and
/// `U_y = nₓn_y − Uₓ`. The p-value is `f·P(U ≥ U*)` with `U* = Uₓ, f = 1`
/// (Greater), `U* = U_y, f = 1` (Less), `U* = max(Uₓ, U_y), f = 2`
/// (TwoSided), clipped to 1:
///
/// * **Exact**: `P(U ≥ U*)` under the exact null law of U, whose counts are
///   the coefficients of the Gaussian binomial `[N choose nₓ]_q`, computed
///   by a normalised product recurrence that cannot overflow (scipy switches
///   from exact integers to floats when they exceed 2⁶⁴; the two agree to
///   ~1e-15 where scipy is exact). Like scipy, the exact method ignores
///   ties, and a non-integer `U*` (possible only with ties) is truncated to
///   an integer, as scipy's cast to `int64` does.
/// * **Asymptotic**: `z = (U* − nₓn_y/2 − c) / σ` with `c = ½` when
///   `continuity` is true (scipy's default) and 0 otherwise, and the
///   tie-corrected
///   `σ² = nₓn_y/12 · ((N + 1) − Σₖ(tₖ³ − tₖ)/(N(N − 1)))`, `N = nₓ + n_y`,
///   `tₖ` the sizes of the groups of tied values; `P(U ≥ U*) ≈ Φ(−z)`.
/// * **Auto** (scipy's `"auto"`): exact when `min(nₓ, n_y) ≤ 8` and there
///   are no ties, asymptotic otherwise.
///
/// `continuity` only affects the asymptotic method; pass `true` for scipy's
/// default.
///
/// Complexity: O(N log N) for the ranks; the exact method adds
/// O(min(nₓ, n_y) · min(U*, nₓn_y − U*)) time (at most 5·10⁸ steps for
/// 1000 × 1000) and O(min(U*, nₓn_y − U*)) memory.
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`]; `Error::Core(ZeroVariance)`
/// for the asymptotic method when every pooled value is tied (σ = 0; scipy
/// returns 1 with the continuity correction and NaN without).
pub fn mann_whitney_u(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    alt: Alternative,
    method: MwuMethod,
    continuity: bool,
) -> Result<MannWhitney> {
    check_sample(&x, "x", 1)?;
    check_sample(&y, "y", 1)?;
    let (n1, n2) = (x.len(), y.len());
    let pooled: Vec<f64> = x.iter().chain(y.iter()).copied().collect();
    let (ranks, tie_sizes) = average_ranks(&pooled);
    let ties = tie_sizes.iter().any(|&t| t > 1);
    let (f1, f2) = (n1 as f64, n2 as f64);
    let r1: f64 = ranks[..n1].iter().sum();
    let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
    let u2 = f1 * f2 - u1;
    let (u, factor) = match alt {
        Alternative::Greater => (u1, 1.0),
        Alternative::Less => (u2, 1.0),
        Alternative::TwoSided => (u1.max(u2), 2.0),
    };
    let method = match method {
        MwuMethod::Auto => {
            if (n1 > 8 && n2 > 8) || ties {
                MwuMethod::Asymptotic
            } else {
                MwuMethod::Exact
            }
        }
        m => m,
    };
    let (p, z) = match method {
        MwuMethod::Exact => {
            // U* ∈ [0, n1·n2]; truncation as scipy's `np.asarray(U, np.int64)`.
            let k = (u.max(0.0).floor() as usize).min(n1 * n2);
            (mwu_exact_sf(n1, n2, k), None)
        }
        _ => {
            let n = f1 + f2;
            let tie_term: f64 = tie_sizes
                .iter()
                .map(|&t| {
                    let t = t as f64;
                    t * t * t - t
                })
                .sum();
            let sigma = (f1 * f2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
            if sigma.is_nan() || sigma <= 0.0 {
                return Err(zero_variance("x and y pooled (every value is tied)"));
            }
            let mut numerator = u - f1 * f2 / 2.0;
            if continuity {
                numerator -= 0.5;
            }
            let z = numerator / sigma;
            (normal_cdf(-z), Some(z))
        }
    };
    Ok(MannWhitney {
        statistic: u1,
        p_value: (p * factor).clamp(0.0, 1.0),
        method,
        z,
        ties,
    })
}

// ---------------------------------------------------------------------------
// Effect sizes
// ---------------------------------------------------------------------------

/// Pooled standard deviation with `n − 1` denominators; validates both samples.
fn pooled_sd(x: &ArrayView1<'_, f64>, y: &ArrayView1<'_, f64>) -> Result<(f64, Moments, Moments)> {
    check_sample(x, "x", 2)?;
    check_sample(y, "y", 2)?;
    let (mx, my) = (moments(x), moments(y));
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
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
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

// ---------------------------------------------------------------------------
// Bootstrap
// ---------------------------------------------------------------------------

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
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(Error::InvalidParameter {
            name: "confidence",
            value: confidence,
            expected: "in (0, 1)",
        });
    }
    if n_resamples < 2 {
        return Err(Error::InvalidParameter {
            name: "n_resamples",
            value: n_resamples as f64,
            expected: "at least 2 (1000 or more in practice)",
        });
    }
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
    let nb = reps.len() as f64;
    let mean = reps.iter().sum::<f64>() / nb;
    let std_error = (reps.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / (nb - 1.0)).sqrt();
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

// ---------------------------------------------------------------------------
// One-way ANOVA
// ---------------------------------------------------------------------------

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
    /// Within-group sum of squares `SS_w = Σᵢ Σⱼ (xᵢⱼ − x̄ᵢ)²`.
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
    let grand = groups.iter().map(|g| g.sum()).sum::<f64>() / big_n;
    let mut ss_between = 0.0;
    let mut ss_within = 0.0;
    for g in groups {
        let n = g.len() as f64;
        let m = g.sum() / n;
        ss_between += n * (m - grand) * (m - grand);
        let first = g[0];
        if !g.iter().all(|&v| v == first) {
            ss_within += g.iter().map(|&v| (v - m) * (v - m)).sum::<f64>();
        }
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
        ss_between,
        ss_within,
    })
}

// ---------------------------------------------------------------------------
// Non-central t
// ---------------------------------------------------------------------------

/// The four sums of the Poisson-mixture series of the non-central t, for
/// `λ = δ²/2`, `b = ν/2`, `x = t²/(t² + ν)`, `y = 1 − x`:
/// `a = Σⱼ Pⱼ I_x(j+½, b)`, `b = √λ Σⱼ Qⱼ I_x(j+1, b)`, and `ac`, `bc`
/// the same with `I_y(b, ·)` (the complements `1 − I_x`), where
/// `Pⱼ = e^{−λ} λʲ/j!` and `Qⱼ = e^{−λ} λʲ/Γ(j + 3/2)`.
struct NctSums {
    a: f64,
    b: f64,
    ac: f64,
    bc: f64,
}

/// Evaluates [`NctSums`] from the Poisson mode outwards (Benton &
/// Krishnamoorthy 2003), with the incomplete beta functions advanced by the
/// exact recurrences `I_x(a+1, b) = I_x(a, b) − G(a)`,
/// `G(a) = xᵃ yᵇ Γ(a+b)/(Γ(a+1)Γ(b))`, `G(a+1) = G(a)·x(a+b)/(a+1)`.
/// Stops when a bound on the remaining Poisson mass is below 1e-17 of every
/// sum.
fn nct_series(ln_x: f64, ln_y: f64, half_df: f64, lambda: f64) -> Result<NctSums> {
    const TOL: f64 = 1e-17;
    const MAX_TERMS: usize = 1_000_000;
    let x = ln_x.exp();
    let y = ln_y.exp();
    let b = half_df;
    let k = lambda.floor();
    let sqrt_l = lambda.sqrt();
    let (pk, qk) = if lambda == 0.0 {
        (1.0, (-ln_gamma(1.5)).exp())
    } else {
        let base = -lambda + k * lambda.ln();
        (
            (base - ln_gamma(k + 1.0)).exp(),
            (base - ln_gamma(k + 1.5)).exp(),
        )
    };
    let a0 = k + 0.5;
    let c0 = k + 1.0;
    let g =
        |a: f64| (a * ln_x + b * ln_y + ln_gamma(a + b) - ln_gamma(a + 1.0) - ln_gamma(b)).exp();
    let (ia0, iac0) = beta_pair(a0, b, x, y);
    let (ic0, icc0) = beta_pair(c0, b, x, y);
    let ga0 = g(a0);
    let gc0 = g(c0);

    let mut sa = pk * ia0;
    let mut sb = qk * ic0;
    let mut sac = pk * iac0;
    let mut sbc = qk * icc0;

    // Forward: j = k+1, k+2, …
    let (mut p, mut q) = (pk, qk);
    let (mut ia, mut iac, mut ic, mut icc) = (ia0, iac0, ic0, icc0);
    let (mut ga, mut gc) = (ga0, gc0);
    let mut j = k;
    let mut terms = 0;
    loop {
        ia = (ia - ga).max(0.0);
        iac = (iac + ga).min(1.0);
        ga *= x * (j + 0.5 + b) / (j + 1.5);
        ic = (ic - gc).max(0.0);
        icc = (icc + gc).min(1.0);
        gc *= x * (j + 1.0 + b) / (j + 2.0);
        j += 1.0;
        p *= lambda / j;
        q *= lambda / (j + 0.5);
        sa += p * ia;
        sb += q * ic;
        sac += p * iac;
        sbc += q * icc;
        terms += 1;
        if j > lambda {
            // Tail of Σ_{j' > j} Pⱼ' and √λ Σ Qⱼ' (geometric bounds, ratios < 1).
            let rp = lambda / (j + 1.0);
            let rq = lambda / (j + 1.5);
            let tail = p * rp / (1.0 - rp) + sqrt_l * q * rq / (1.0 - rq);
            let direct_ok = tail * ia.max(ic) <= TOL * (sa + sqrt_l * sb) || tail == 0.0;
            let comp_ok = tail <= TOL * (sac + sqrt_l * sbc) || tail == 0.0;
            if (direct_ok && comp_ok) || tail < 1e-300 {
                break;
            }
        }
        if terms > MAX_TERMS || !(p.is_finite() && q.is_finite()) {
            return Err(Error::Core(mlcore::Error::NoConvergence {
                algorithm: "non-central t series",
            }));
        }
    }

    // Backward: j = k−1, …, 0.
    let (mut p, mut q) = (pk, qk);
    let (mut ia, mut iac, mut ic, mut icc) = (ia0, iac0, ic0, icc0);
    let (mut ga, mut gc) = (ga0, gc0);
    let mut j = k;
    while j > 0.0 {
        ga *= (j + 0.5) / (x * (j - 0.5 + b));
        ia = (ia + ga).min(1.0);
        iac = (iac - ga).max(0.0);
        gc *= (j + 1.0) / (x * (j + b));
        ic = (ic + gc).min(1.0);
        icc = (icc - gc).max(0.0);
        p *= j / lambda;
        q *= (j + 0.5) / lambda;
        j -= 1.0;
        sa += p * ia;
        sb += q * ic;
        sac += p * iac;
        sbc += q * icc;
        // Head of Σ_{j' < j} Pⱼ' and √λ Σ Qⱼ' (geometric bounds: the ratios
        // j/λ and (j + ½)/λ going down must be < 1).
        let rp = j / lambda;
        let rq = (j + 0.5) / lambda;
        let head = if rq < 1.0 {
            p * rp / (1.0 - rp) + sqrt_l * q * rq / (1.0 - rq)
        } else {
            f64::INFINITY
        };
        let direct_ok = head <= TOL * (sa + sqrt_l * sb);
        let comp_ok = head * iac.max(icc) <= TOL * (sac + sqrt_l * sbc);
        if (direct_ok && comp_ok) || head < 1e-300 || !ga.is_finite() || !gc.is_finite() {
            break;
        }
    }
    Ok(NctSums {
        a: sa,
        b: sqrt_l * sb,
        ac: sac,
        bc: sqrt_l * sbc,
    })
}

/// Nodes (the non-negative half) of the 15-point Kronrod rule on [−1, 1];
/// the odd-indexed ones with the last are the 7-point Gauss nodes (QUADPACK
/// `qk15`).
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
/// Kronrod weights for [`XGK`].
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_18,
    0.140_653_259_715_525_92,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_83,
];
/// Gauss weights for the nodes `XGK[1], XGK[3], XGK[5], XGK[7]`.
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

/// The 15-point Gauss–Kronrod estimate of `∫ₐᵇ f` and its error estimate,
/// QUADPACK's `σ·min(1, (200·|K₁₅ − G₇|/σ)^{3/2})` with `σ` the Kronrod
/// estimate of `∫ |f − mean f|`.
fn gauss_kronrod<F: Fn(f64) -> f64>(f: &F, a: f64, b: f64) -> (f64, f64) {
    let (center, half) = (0.5 * (a + b), 0.5 * (b - a));
    let fc = f(center);
    let mut values = [(0.0, 0.0); 7];
    let mut kronrod = WGK[7] * fc;
    let mut gauss = WG[3] * fc;
    for (i, v) in values.iter_mut().enumerate() {
        let dx = half * XGK[i];
        *v = (f(center - dx), f(center + dx));
        let pair = v.0 + v.1;
        kronrod += WGK[i] * pair;
        if i % 2 == 1 {
            gauss += WG[i / 2] * pair;
        }
    }
    let mean = 0.5 * kronrod;
    let mut spread = WGK[7] * (fc - mean).abs();
    for (i, v) in values.iter().enumerate() {
        spread += WGK[i] * ((v.0 - mean).abs() + (v.1 - mean).abs());
    }
    let spread = spread * half.abs();
    let raw = ((kronrod - gauss) * half).abs();
    let error = if spread > 0.0 && raw > 0.0 {
        spread * (200.0 * raw / spread).powf(1.5).min(1.0)
    } else {
        raw
    };
    (kronrod * half, error)
}

/// Globally adaptive Gauss–Kronrod quadrature of a non-negative `f` on
/// `[a, b]`: bisects the interval with the largest error estimate until the
/// summed estimate is below `rtol` of the integral (at most 1000 intervals;
/// then an estimate within `10⁴·rtol` is still accepted).
fn integrate_nonneg<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, rtol: f64) -> Result<f64> {
    let mut parts = vec![(a, b, gauss_kronrod(&f, a, b))];
    loop {
        let total: f64 = parts.iter().map(|p| p.2.0).sum();
        let error: f64 = parts.iter().map(|p| p.2.1).sum();
        if error <= rtol * total || error < 1e-300 {
            return Ok(total);
        }
        if parts.len() >= 1000 {
            return if error <= 1e4 * rtol * total {
                Ok(total)
            } else {
                Err(Error::Core(mlcore::Error::NoConvergence {
                    algorithm: "non-central t tail quadrature",
                }))
            };
        }
        let worst = parts
            .iter()
            .enumerate()
            .max_by(|x, y| x.1.2.1.total_cmp(&y.1.2.1))
            .map_or(0, |(i, _)| i);
        let (lo, hi, _) = parts.swap_remove(worst);
        let mid = 0.5 * (lo + hi);
        parts.push((lo, mid, gauss_kronrod(&f, lo, mid)));
        parts.push((mid, hi, gauss_kronrod(&f, mid, hi)));
    }
}

/// `P(T ≤ −s)` for `T ~ t′(ν, δ)`, `δ > 0`, `s > 0`: the tail on the side
/// opposite to δ. With `T = (Z + δ)/W`, `W = √(V/ν)`, and `u = −(Z + δ)`,
///
/// ```text
/// P(T ≤ −s) = ∫₀^∞ φ(δ + u) · P(ν/2, ν u²/(2s²)) du
/// ```
///
/// (`P` the regularised lower incomplete gamma function of `statrs`, the
/// χ²_ν cdf at `ν u²/s²`), a positive integrand: adaptive Gauss–Kronrod on
/// `u = r/(1 − r)`, `r ∈ [0, 1)`, gives the tail to `max(1e-14, ν·1e-16)`
/// relative however small it is, where the series is a difference of sums.
fn nct_opposite_tail(s: f64, df: f64, delta: f64) -> Result<f64> {
    let half_df = 0.5 * df;
    let scale = df / (2.0 * s * s);
    let integrand = |r: f64| {
        let u = r / (1.0 - r);
        let jac = 1.0 / ((1.0 - r) * (1.0 - r));
        let phi = mlcore::special::norm_pdf(delta + u);
        if phi == 0.0 || !jac.is_finite() {
            return 0.0;
        }
        let arg = scale * u * u;
        let chi = if arg <= 0.0 {
            0.0
        } else if arg.is_infinite() {
            1.0
        } else {
            gamma_lr(half_df, arg)
        };
        phi * chi * jac
    };
    // The integrand is only as accurate as `statrs`'s `P(a, x)`, whose
    // log-gamma prefactor costs about a·1e-16 for large a = ν/2: ask for no
    // more than that, so the quadrature is not chasing rounding noise.
    let rtol = (1e-14f64).max(1e-16 * df);
    integrate_nonneg(integrand, 0.0, 1.0, rtol)
}

/// `(P(T ≤ t), P(T > t))` for `T ~ t′(ν, δ)`, `δ ≥ 0`.
fn nct_nonneg(t: f64, df: f64, delta: f64) -> Result<(f64, f64)> {
    let lambda = 0.5 * delta * delta;
    let phi_neg = normal_cdf(-delta);
    // x = t²/(t²+ν) and y = ν/(t²+ν) in logs, without cancellation or
    // overflow of t².
    let (ln_x, ln_y) = if t.abs() > 1.0 {
        let l1p = (df / (t * t)).ln_1p();
        (-l1p, df.ln() - 2.0 * t.abs().ln() - l1p)
    } else {
        let ln_den = (t * t + df).ln();
        ((t * t).ln() - ln_den, df.ln() - ln_den)
    };
    if t == 0.0 || ln_x < -640.0 {
        // |t| < 1e-139·√ν: the series terms vanish; P(T ≤ t) = Φ(−δ) + O(|t|).
        return Ok((phi_neg, normal_cdf(delta)));
    }
    if t < 0.0 && delta > 0.0 {
        // The tail opposite to δ, which the series gets only as a difference
        // of sums: use the positive integral instead.
        let lo = nct_opposite_tail(-t, df, delta)?.clamp(0.0, 1.0);
        return Ok((lo, 1.0 - lo));
    }
    let s = nct_series(ln_x, ln_y, 0.5 * df, lambda)?;
    if t > 0.0 {
        // Every term is non-negative: accurate in both tails.
        let lo = phi_neg + 0.5 * (s.a + s.b);
        let hi = 0.5 * (s.ac + s.bc);
        Ok((lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0)))
    } else {
        // δ = 0, t < 0: the central t, P(T ≤ t) = ½ I_y(ν/2, ½).
        let lo = (0.5 * s.ac).clamp(0.0, 1.0);
        Ok((lo, 1.0 - lo))
    }
}

/// `(cdf, sf)` of the non-central t after validation.
fn nct_both(t: f64, df: f64, nc: f64) -> Result<(f64, f64)> {
    if t.is_nan() {
        return Err(Error::NonFinite {
            what: "t",
            index: 0,
        });
    }
    if !(df > 0.0 && df.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "df",
            value: df,
            expected: "a finite value > 0",
        });
    }
    if !nc.is_finite() {
        return Err(Error::InvalidParameter {
            name: "nc",
            value: nc,
            expected: "a finite value",
        });
    }
    if t == f64::INFINITY {
        return Ok((1.0, 0.0));
    }
    if t == f64::NEG_INFINITY {
        return Ok((0.0, 1.0));
    }
    if nc >= 0.0 {
        nct_nonneg(t, df, nc)
    } else {
        // T = −T′ with T′ ~ t′(ν, −δ): P(T ≤ t) = P(T′ ≥ −t).
        let (lo, hi) = nct_nonneg(-t, df, -nc)?;
        Ok((hi, lo))
    }
}

/// The cumulative distribution function `P(T ≤ t)` of the non-central t
/// distribution `T = (Z + δ)/√(V/ν)`, `Z ~ N(0, 1)`, `V ~ χ²_ν`, as
/// `scipy.stats.nct.cdf(t, ν, δ)`.
///
/// For `t ≥ 0` it is the exact Poisson mixture of incomplete beta functions
///
/// ```text
/// P(T ≤ t) = Φ(−δ) + ½ Σⱼ [Pⱼ I_x(j + ½, ν/2) + (δ/√2) Qⱼ I_x(j + 1, ν/2)]
/// x = t²/(t² + ν),   Pⱼ = e^{−δ²/2}(δ²/2)ʲ/j!,   Qⱼ = e^{−δ²/2}(δ²/2)ʲ/Γ(j + 3/2)
/// ```
///
/// and the upper tail is the same series in `I_{1−x}(ν/2, ·)`; negative `δ`
/// uses `T(ν, δ) = −T(ν, −δ)`. `I_x` is `statrs`'s regularised incomplete
/// beta at the Poisson mode, carried to the other terms by its exact
/// recurrence (Benton & Krishnamoorthy, 2003); summation stops when a bound
/// on the remaining terms is below 1e-17 of the sum. All terms are
/// non-negative, so both tails keep their relative accuracy.
///
/// On the side opposite to δ (`t < 0 < δ`, or `t > 0 > δ` after
/// reflection) the series would be a difference of sums, accurate only to
/// ~1e-14 absolute; there the tail is the integral of a positive function
///
/// ```text
/// P(T ≤ −s) = ∫₀^∞ φ(δ + u) · P(ν/2, ν u²/(2s²)) du     (δ, s > 0)
/// ```
///
/// (`P` the regularised lower incomplete gamma of `statrs`), by adaptive
/// Gauss–Kronrod quadrature to 1e-14 relative.
///
/// Accuracy: ~1e-13 relative in both tails for ν up to ~10³ — including far
/// tails where `scipy.stats.nct` (Boost) is itself off, e.g.
/// `P(T ≥ 3.43)` at ν = 171.4, δ = −4.54 is 2.42813e-15 (40-digit
/// quadrature), which scipy gives as 2.385e-15. The log-gamma prefactors
/// inside `statrs`'s incomplete beta and gamma functions cost about
/// `ν·ln ν·1e-16` relative beyond that (~1e-10 at ν = 10⁵).
///
/// Complexity: O(δ + 1) series terms (a few dozen for |δ| ≤ 10); the
/// opposite-side integral takes ~15–500 evaluations of `P`.
///
/// # Errors
/// [`Error::NonFinite`] for `t` = NaN (`t = ±∞` gives 1 or 0);
/// [`Error::InvalidParameter`] for `ν` not in (0, ∞) or a non-finite `δ`;
/// `Error::Core(NoConvergence)` if the series needs more than 10⁶ terms or
/// the quadrature more than 1000 intervals (not met in testing).
pub fn noncentral_t_cdf(t: f64, df: f64, nc: f64) -> Result<f64> {
    Ok(nct_both(t, df, nc)?.0)
}

/// The survival function `P(T > t)` of the non-central t distribution, as
/// `scipy.stats.nct.sf(t, ν, δ)`; computed directly (not as `1 − cdf`), see
/// [`noncentral_t_cdf`] for the series and its accuracy.
///
/// # Errors
/// As [`noncentral_t_cdf`].
pub fn noncentral_t_sf(t: f64, df: f64, nc: f64) -> Result<f64> {
    Ok(nct_both(t, df, nc)?.1)
}

// ---------------------------------------------------------------------------
// Power and sample size
// ---------------------------------------------------------------------------

/// Upper critical value `c = t_{1−p, ν}` with `P(T_ν > c) = p`, `p ∈ (0, 1)`.
///
/// A safeguarded Newton iteration on the Student t `sf` ([`t_sf`]; bisection
/// whenever a step leaves the bracket), started from the Cornish–Fisher
/// expansion `c₀ = z + (z³ + z)/(4ν) + (5z⁵ + 16z³ + 3z)/(96ν²)` around the
/// normal quantile `z`. (`statrs`'s own `inverse_cdf` loops without end for
/// ν in the millions, so it is not used.) Converges to a few ulps in a
/// handful of steps.
fn t_upper_critical(p: f64, df: f64) -> Result<f64> {
    let dist = students_t(df)?;
    let z = mlcore::special::norm_isf(p);
    let (z2, nu) = (z * z, df);
    let mut c =
        z + (z2 * z + z) / (4.0 * nu) + ((5.0 * z2 + 16.0) * z2 * z + 3.0 * z) / (96.0 * nu * nu);
    if !c.is_finite() {
        c = z;
    }
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for _ in 0..200 {
        let f = t_sf(c, df) - p;
        if f == 0.0 {
            return Ok(c);
        }
        if f > 0.0 {
            lo = c;
        } else {
            hi = c;
        }
        let mut next = c + f / dist.pdf(c);
        if !(next.is_finite() && next > lo && next < hi) {
            next = match (lo.is_finite(), hi.is_finite()) {
                (true, true) => 0.5 * (lo + hi),
                (true, false) => lo + 2.0 * lo.abs().max(1.0),
                _ => hi - 2.0 * hi.abs().max(1.0),
            };
        }
        if (next - c).abs() <= 4.0 * f64::EPSILON * c.abs().max(1.0) || next == lo || next == hi {
            return Ok(next);
        }
        c = next;
    }
    Ok(c)
}

/// Power of the two-sample t-test for a real per-arm size `n > 1`.
fn power_real(d: f64, n: f64, alpha: f64, alt: Alternative) -> Result<f64> {
    let df = 2.0 * n - 2.0;
    let nc = d * (n / 2.0).sqrt();
    Ok(match alt {
        Alternative::Greater => noncentral_t_sf(t_upper_critical(alpha, df)?, df, nc)?,
        Alternative::Less => noncentral_t_cdf(-t_upper_critical(alpha, df)?, df, nc)?,
        Alternative::TwoSided => {
            let c = t_upper_critical(alpha / 2.0, df)?;
            noncentral_t_sf(c, df, nc)? + noncentral_t_cdf(-c, df, nc)?
        }
    })
}

/// Checks the effect size of the power functions.
fn check_effect(d: f64) -> Result<()> {
    if d.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "d",
            value: d,
            expected: "a finite standardised effect size",
        })
    }
}

/// Power of the two-sided or one-sided two-sample Student t-test with `n`
/// participants per arm at standardised effect `d = (μₓ − μ_y)/σ` and level
/// α, as `statsmodels.stats.power.TTestIndPower().power(d, n, α,
/// alternative=…)` (ratio 1; Greater is statsmodels' `"larger"`).
///
/// With `ν = 2n − 2` and non-centrality `δ = d·√(n/2)`, and `T′ ~ t′(ν, δ)`:
///
/// ```text
/// Greater:  P(T′ > t_{1−α, ν})
/// Less:     P(T′ < −t_{1−α, ν})
/// TwoSided: P(T′ > t_{1−α/2, ν}) + P(T′ < −t_{1−α/2, ν})
/// ```
///
/// using [`noncentral_t_sf`] / [`noncentral_t_cdf`]. The power of the
/// wrong-signed one-sided test (e.g. Greater with `d < 0`) is returned as
/// is (below α). O(|δ| + 1) series terms, plus a short quadrature for the
/// tail opposite to δ (TwoSided, or a wrong-signed one-sided test): well
/// under a millisecond for ν ≤ 10⁵. Accuracy ~1e-13 relative, degrading as
/// `ν·1e-16` for very large trials (see [`noncentral_t_cdf`]).
///
/// # Errors
/// [`Error::InvalidParameter`] for a non-finite `d`;
/// [`Error::TooFewObservations`] for `n < 2`; [`Error::AlphaOutOfRange`].
pub fn power(d: f64, n: usize, alpha: f64, alt: Alternative) -> Result<f64> {
    check_effect(d)?;
    check_alpha(alpha)?;
    if n < 2 {
        return Err(Error::TooFewObservations {
            what: "n per arm",
            n,
            min: 2,
        });
    }
    power_real(d, n as f64, alpha, alt)
}

/// The per-arm sample size that a two-sample t-test needs (see [`n_per_arm`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleSize {
    /// The smallest whole number of participants per arm whose power is at
    /// least the target.
    pub n_per_arm: usize,
    /// The real solution `n*` of `power(d, n*, α) = target`, what
    /// `TTestIndPower().solve_power(…)` returns (2.0 if 2 per arm already
    /// suffice).
    pub n_exact: f64,
    /// The power at `n_per_arm`.
    pub achieved_power: f64,
}

/// The number of participants per arm for a two-sample t-test to reach
/// `target_power` at standardised effect `d` and level α: solves
/// `power(d, n, α, alt) = target_power` for real `n ≥ 2` (see [`power`]),
/// as `TTestIndPower().solve_power(effect_size=d, alpha=α, power=…,
/// alternative=…)`, and rounds up.
///
/// For the paper's effects at one-sided α = 0.05 and 80 % power:
/// d = 0.66 gives `n* = 29.09`, so 30 per arm (29 reach 79.9 %); d = 0.43
/// gives `n* = 67.56`, so 68 per arm.
///
/// The power increases with `n` when `d` points the way of the alternative,
/// so bisection on `[2, 2^k]` (doubling until the target is bracketed)
/// finds `n*` to 1e-12 relative (to the accuracy of [`power`] beyond
/// that). About 100 power evaluations: microseconds to a few milliseconds
/// for trial-sized answers, under half a second for 10⁷ per arm.
///
/// # Errors
/// [`Error::InvalidParameter`] for a non-finite `d`, for `d` of the wrong
/// sign (Greater needs `d > 0`, Less `d < 0`, TwoSided `d ≠ 0`), for
/// `target_power ∉ (0, 1)`, or when more than 10⁹ per arm would be needed;
/// [`Error::AlphaOutOfRange`].
pub fn n_per_arm(d: f64, alpha: f64, target_power: f64, alt: Alternative) -> Result<SampleSize> {
    check_effect(d)?;
    check_alpha(alpha)?;
    if !(target_power > 0.0 && target_power < 1.0) {
        return Err(Error::InvalidParameter {
            name: "power",
            value: target_power,
            expected: "in (0, 1)",
        });
    }
    let sign_ok = match alt {
        Alternative::Greater => d > 0.0,
        Alternative::Less => d < 0.0,
        Alternative::TwoSided => d != 0.0,
    };
    if !sign_ok {
        return Err(Error::InvalidParameter {
            name: "d",
            value: d,
            expected: "d > 0 for Greater, d < 0 for Less, d ≠ 0 for TwoSided",
        });
    }
    const MAX_N: f64 = 1e9;
    let mut lo = 2.0;
    let n_exact = if power_real(d, lo, alpha, alt)? >= target_power {
        lo
    } else {
        let mut hi = 4.0;
        while power_real(d, hi, alpha, alt)? < target_power {
            lo = hi;
            hi *= 2.0;
            if hi > 2.0 * MAX_N {
                return Err(Error::InvalidParameter {
                    name: "d",
                    value: d,
                    expected: "an effect that needs at most 1e9 participants per arm",
                });
            }
        }
        while hi - lo > 1e-12 * hi {
            let mid = 0.5 * (lo + hi);
            if power_real(d, mid, alpha, alt)? >= target_power {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    };
    // Whole n: the ceiling, unless rounding put n* just above an integer
    // that already reaches the target.
    let mut n = (n_exact.ceil() as usize).max(2);
    if n > 2 && power_real(d, (n - 1) as f64, alpha, alt)? >= target_power {
        n -= 1;
    }
    let achieved_power = power_real(d, n as f64, alpha, alt)?;
    Ok(SampleSize {
        n_per_arm: n,
        n_exact,
        achieved_power,
    })
}

// ---------------------------------------------------------------------------
// The trial's results files
// ---------------------------------------------------------------------------

/// One participant's row of a trial results file
/// (`participant_id, experiment, num_correct, time, Age, Sex`).
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// The participant's identifier (kept as text).
    pub participant_id: String,
    /// The arm the participant was randomised to (`control`, `topk`,
    /// `conformal`, `conformal-large`, `topk-vitb32`, `conformal-vitb32`).
    pub experiment: String,
    /// Number of questions answered correctly.
    pub num_correct: u32,
    /// Time taken, in seconds.
    pub time: f64,
    /// Age in years; `None` when empty or withheld.
    pub age: Option<u32>,
    /// Sex as recorded; `None` when empty or withheld.
    pub sex: Option<String>,
}

/// An outcome recorded per participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Outcome {
    /// `num_correct`, the trial's primary outcome.
    #[default]
    NumCorrect,
    /// `time`, the response time in seconds.
    Time,
}

impl Participant {
    /// The value of `outcome` for this participant, as `f64`.
    pub fn outcome(&self, outcome: Outcome) -> f64 {
        match outcome {
            Outcome::NumCorrect => f64::from(self.num_correct),
            Outcome::Time => self.time,
        }
    }
}

/// Placeholders that the recruiting platform (Prolific) writes in place of
/// demographic data that is no longer available; read as missing.
const WITHHELD: [&str; 3] = [
    "DATA_EXPIRED",
    "CONSENT_REVOKED",
    "CONSENT_REVOKED_OR_EXPIRED",
];

/// Splits one CSV record (RFC 4180 quoting within the line: `"a,b"` and
/// `""` for a literal quote).
fn split_record(line: &str) -> std::result::Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => in_quotes = false,
                _ => field.push(c),
            }
        } else {
            match c {
                ',' => {
                    fields.push(finish_field(&field, was_quoted));
                    field.clear();
                    was_quoted = false;
                }
                '"' if field.trim().is_empty() && !was_quoted => {
                    field.clear();
                    in_quotes = true;
                    was_quoted = true;
                }
                _ => field.push(c),
            }
        }
    }
    if in_quotes {
        return Err("unterminated quoted field".to_string());
    }
    fields.push(finish_field(&field, was_quoted));
    Ok(fields)
}

fn finish_field(field: &str, quoted: bool) -> String {
    if quoted {
        field.to_string()
    } else {
        field.trim().to_string()
    }
}

/// Parses the text of a trial results file; `source` names it in errors
/// (a path, or e.g. `"<memory>"`).
///
/// The first non-blank line is the header. The columns `participant_id`,
/// `experiment`, `num_correct` and `time` are required, `Age` and `Sex` are
/// optional; names match case-insensitively, in any order, and other
/// columns are ignored. Fields may be double-quoted (RFC 4180, within one
/// line); unquoted fields are trimmed; blank lines, a UTF-8 byte-order mark
/// and CRLF line ends are accepted. An empty `Age` or `Sex`, or the
/// platform's placeholders `DATA_EXPIRED` / `CONSENT_REVOKED`, read as
/// `None` (the official GoEmotions and ObjectNet files have one such `Sex`
/// each). O(size of the text).
///
/// # Errors
/// [`Error::Data`] naming `source` and the line: a missing header or
/// required column, a row with the wrong number of fields, an unparsable
/// `num_correct` (a non-negative integer), `time` (a finite number ≥ 0) or
/// `Age` (a non-negative integer), an empty `participant_id` or
/// `experiment`, or no data rows at all.
pub fn parse_results_csv(text: &str, source: &str) -> Result<Vec<Participant>> {
    let data_err = |line: Option<usize>, message: String| Error::Data {
        path: source.to_string(),
        message: match line {
            Some(l) => format!("line {l}: {message}"),
            None => message,
        },
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let (header_line, header) = lines
        .next()
        .ok_or_else(|| data_err(None, "the file is empty (no header)".to_string()))?;
    let names = split_record(header).map_err(|m| data_err(Some(header_line), m))?;
    let find = |name: &str| {
        names
            .iter()
            .position(|h| h.trim().eq_ignore_ascii_case(name))
    };
    let mut required = [0usize; 4];
    for (slot, name) in
        required
            .iter_mut()
            .zip(["participant_id", "experiment", "num_correct", "time"])
    {
        *slot = find(name).ok_or_else(|| {
            data_err(
                Some(header_line),
                format!("missing column {name:?} in the header"),
            )
        })?;
    }
    let [id_col, arm_col, correct_col, time_col] = required;
    let age_col = find("age");
    let sex_col = find("sex");
    let withheld = |v: &str| v.is_empty() || WITHHELD.contains(&v);

    let mut out = Vec::new();
    for (line_no, line) in lines {
        let fields = split_record(line).map_err(|m| data_err(Some(line_no), m))?;
        if fields.len() != names.len() {
            return Err(data_err(
                Some(line_no),
                format!("expected {} fields, found {}", names.len(), fields.len()),
            ));
        }
        let participant_id = fields[id_col].clone();
        if participant_id.is_empty() {
            return Err(data_err(Some(line_no), "empty participant_id".to_string()));
        }
        let experiment = fields[arm_col].clone();
        if experiment.is_empty() {
            return Err(data_err(Some(line_no), "empty experiment".to_string()));
        }
        let num_correct: u32 = fields[correct_col].parse().map_err(|_| {
            data_err(
                Some(line_no),
                format!(
                    "num_correct {:?} is not a non-negative integer",
                    fields[correct_col]
                ),
            )
        })?;
        let time: f64 = fields[time_col]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                data_err(
                    Some(line_no),
                    format!("time {:?} is not a finite number >= 0", fields[time_col]),
                )
            })?;
        let age = match age_col.map(|c| fields[c].as_str()) {
            None => None,
            Some(v) if withheld(v) => None,
            Some(v) => Some(v.parse::<u32>().map_err(|_| {
                data_err(
                    Some(line_no),
                    format!("Age {v:?} is not a non-negative integer"),
                )
            })?),
        };
        let sex = match sex_col.map(|c| fields[c].as_str()) {
            None => None,
            Some(v) if withheld(v) => None,
            Some(v) => Some(v.to_string()),
        };
        out.push(Participant {
            participant_id,
            experiment,
            num_correct,
            time,
            age,
            sex,
        });
    }
    if out.is_empty() {
        return Err(data_err(None, "no data rows after the header".to_string()));
    }
    Ok(out)
}

/// Reads a trial results file (`data/<task>/results.csv` of the official
/// code) with [`parse_results_csv`]. O(file size).
///
/// # Errors
/// [`Error::Data`] naming the path: the file cannot be read (the I/O error's
/// message), is not UTF-8, or does not parse.
pub fn read_results_csv<P: AsRef<Path>>(path: P) -> Result<Vec<Participant>> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Data {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse_results_csv(&text, &path.display().to_string())
}

/// Reads one task's results from the vendored trial data set
/// (`data/hitl-conformal-rct/` of the repository, files `<task>.csv.gz`,
/// each checked against its SHA-256 on load) with [`parse_results_csv`].
/// `task` is `"few-nerd"`, `"go-emotions"` or `"object-net"`.
///
/// ```
/// use conformal_sets::rct::{Outcome, arm_outcome, read_trial};
/// use mlcore::data::{Dataset, workspace_data_dir};
/// let ds = Dataset::open(workspace_data_dir().join("hitl-conformal-rct"))?;
/// let p = read_trial(&ds, "few-nerd")?;
/// let conformal = arm_outcome(&p, "conformal", Outcome::NumCorrect)?;
/// assert_eq!(conformal.len(), 50);
/// assert!((conformal.mean().unwrap() - 40.76).abs() < 1e-12);
/// # Ok::<(), conformal_sets::Error>(())
/// ```
///
/// # Errors
/// [`Error::Data`] naming the file and its expected SHA-256 when it is
/// missing, unlisted or altered, or when it does not parse.
pub fn read_trial(dataset: &mlcore::data::Dataset, task: &str) -> Result<Vec<Participant>> {
    let file = format!("{task}.csv.gz");
    let text = dataset.read_to_string(&file).map_err(|e| match e {
        mlcore::Error::Data { path, reason } => Error::Data {
            path,
            message: reason,
        },
        other => Error::Data {
            path: dataset.dir().join(&file).display().to_string(),
            message: other.to_string(),
        },
    })?;
    parse_results_csv(&text, &file)
}

/// The participants of one arm (see [`group_by_arm`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ArmGroup<'a> {
    /// The arm's name (`experiment`).
    pub name: &'a str,
    /// Its participants, in file order.
    pub participants: Vec<&'a Participant>,
}

impl ArmGroup<'_> {
    /// The arm's values of `outcome`, in file order.
    pub fn values(&self, outcome: Outcome) -> Array1<f64> {
        self.participants
            .iter()
            .map(|p| p.outcome(outcome))
            .collect()
    }
}

/// Groups participants by arm, arms in order of first appearance. O(n·arms).
///
/// # Errors
/// [`Error::EmptyInput`] for no participants.
pub fn group_by_arm(participants: &[Participant]) -> Result<Vec<ArmGroup<'_>>> {
    if participants.is_empty() {
        return Err(Error::EmptyInput {
            what: "participants",
        });
    }
    let mut groups: Vec<ArmGroup<'_>> = Vec::new();
    for p in participants {
        match groups.iter_mut().find(|g| g.name == p.experiment) {
            Some(g) => g.participants.push(p),
            None => groups.push(ArmGroup {
                name: &p.experiment,
                participants: vec![p],
            }),
        }
    }
    Ok(groups)
}

/// The values of `outcome` for the participants of `arm`, in file order.
/// O(n).
///
/// # Errors
/// [`Error::EmptyInput`] for no participants; [`Error::UnknownArm`] when no
/// participant is in `arm` (the error lists the arms present).
pub fn arm_outcome(
    participants: &[Participant],
    arm: &str,
    outcome: Outcome,
) -> Result<Array1<f64>> {
    let groups = group_by_arm(participants)?;
    match groups.iter().find(|g| g.name == arm) {
        Some(g) => Ok(g.values(outcome)),
        None => Err(Error::UnknownArm {
            arm: arm.to_string(),
            available: groups.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Descriptive statistics of one arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmSummary {
    /// Number of participants.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (`n − 1` denominator).
    pub sd: f64,
    /// Median (mean of the two middle values for even `n`).
    pub median: f64,
}

/// Size, mean, sample standard deviation and median of a sample. O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
/// for a single value (no standard deviation).
pub fn summarize(x: ArrayView1<'_, f64>) -> Result<ArmSummary> {
    check_sample(&x, "x", 2)?;
    let m = moments(&x);
    Ok(ArmSummary {
        n: x.len(),
        mean: m.mean,
        sd: m.var.sqrt(),
        median: mlcore::stats::median(x)?,
    })
}

/// One row of the paper's results table: a treatment arm against a control
/// arm (see [`compare_samples`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmComparison {
    /// The treatment arm (first sample).
    pub treatment: ArmSummary,
    /// The control arm (second sample).
    pub control: ArmSummary,
    /// Difference of means, treatment − control.
    pub difference: f64,
    /// Welch's t-test ([`welch_t`]).
    pub welch: TTest,
    /// The Mann–Whitney U test ([`mann_whitney_u`], `Auto`, continuity
    /// correction: scipy's defaults).
    pub mann_whitney: MannWhitney,
    /// Cohen's d with the pooled sd ([`cohens_d`]).
    pub cohens_d: f64,
    /// The alternative both tests used.
    pub alternative: Alternative,
}

/// Compares a treatment sample with a control sample the way the paper's
/// table does: both arms' mean ± sd (and median), the difference of means,
/// Welch's t-test, the Mann–Whitney U test (scipy defaults: `Auto`,
/// continuity correction) and Cohen's d, all with the treatment first. O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::TooFewObservations`]
/// (`what` is `"treatment"` or `"control"`), and `Error::Core(ZeroVariance)`
/// when both arms are constant.
pub fn compare_samples(
    treatment: ArrayView1<'_, f64>,
    control: ArrayView1<'_, f64>,
    alt: Alternative,
) -> Result<ArmComparison> {
    check_sample(&treatment, "treatment", 2)?;
    check_sample(&control, "control", 2)?;
    let t = summarize(treatment)?;
    let c = summarize(control)?;
    let welch = welch_t(treatment, control, alt)?;
    let mann_whitney = mann_whitney_u(treatment, control, alt, MwuMethod::Auto, true)?;
    let cohens_d = cohens_d(treatment, control)?;
    Ok(ArmComparison {
        treatment: t,
        control: c,
        difference: t.mean - c.mean,
        welch,
        mann_whitney,
        cohens_d,
        alternative: alt,
    })
}

/// One row of the paper's results table from a results file: the arm
/// `treatment` against the arm `control` on `num_correct` (for response
/// times, use [`arm_outcome`] with [`Outcome::Time`] and
/// [`compare_samples`]). The paper's rows are
/// `compare_arms(&p, "conformal", "topk", Alternative::Greater)`. O(n log n).
///
/// # Errors
/// As [`arm_outcome`] and [`compare_samples`].
pub fn compare_arms(
    participants: &[Participant],
    treatment: &str,
    control: &str,
    alt: Alternative,
) -> Result<ArmComparison> {
    let t = arm_outcome(participants, treatment, Outcome::NumCorrect)?;
    let c = arm_outcome(participants, control, Outcome::NumCorrect)?;
    compare_samples(t.view(), c.view(), alt)
}
