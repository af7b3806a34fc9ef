//! The Mann–Whitney U test (exact and normal-approximation p-values).

use super::common::{Alternative, check_sample, normal_cdf, zero_variance};
use crate::error::Result;
use ndarray::ArrayView1;

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
/// [`Error::EmptyInput`](crate::Error::EmptyInput), [`Error::NonFinite`](crate::Error::NonFinite); `Error::Core(ZeroVariance)`
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
