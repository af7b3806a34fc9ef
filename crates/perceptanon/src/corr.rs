//! Correlation between a metric and human scores: Pearson r, Spearman ρ
//! (average ranks) and Kendall τ (variants a, b, c; τ-b in O(n log n) by
//! Knight's algorithm), their p-values and percentile-bootstrap intervals.
//!
//! The paper correlates predictions with the mean human score using scipy's
//! `pearsonr`, `spearmanr` and `kendalltau` (whose default is τ-b); these
//! functions compute the same quantities (agreement to 1e-12 is tested
//! against values recorded from scipy 1.17).

use ndarray::ArrayView1;
use rand::{Rng, RngExt};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::error::{Error, Result, check_finite};

/// A correlation coefficient with its two-sided p-value under the null of
/// no association.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correlation {
    /// The coefficient, in [−1, 1].
    pub value: f64,
    /// Two-sided p-value (see each function for the reference distribution).
    pub p_value: f64,
}

/// The three classical variants of Kendall's τ (Kendall 1945; Stuart 1953).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KendallVariant {
    /// τ-a = (C − D) / (n(n−1)/2): ignores ties in the denominator.
    A,
    /// τ-b = (C − D) / √((n₀ − n₁)(n₀ − n₂)): tie-corrected; scipy's
    /// `kendalltau` default and the paper's choice.
    B,
    /// τ-c (Stuart) = 2(C − D) / (n² (m − 1)/m) with m = min(#distinct x,
    /// #distinct y): for rectangular contingency tables.
    C,
}

fn check_pair(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>, min_len: usize) -> Result<()> {
    if x.len() != y.len() {
        return Err(Error::SizeMismatch {
            what: "x and y",
            expected: format!("{} values", x.len()),
            found: format!("{} values", y.len()),
        });
    }
    if x.len() < min_len {
        return Err(Error::EmptyInput {
            what: if min_len <= 2 {
                "x and y need at least 2 values"
            } else {
                "x and y need at least 3 values for a p-value"
            },
        });
    }
    check_finite(x.iter(), "x")?;
    check_finite(y.iter(), "y")?;
    Ok(())
}

/// Pearson's r of inputs that passed [`check_pair`], by the workspace's one
/// implementation ([`mlcore::stats::pearson`]: centred and scaled, so finite
/// inputs never overflow); a constant argument is [`Error::ConstantInput`].
fn pearson_value(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
    mlcore::stats::pearson(x, y).map_err(|e| match e {
        mlcore::Error::ZeroVariance { what } => Error::ConstantInput { what },
        other => Error::Mlcore(other),
    })
}

/// Two-sided p-value of a correlation r over n pairs from Student's t with
/// n − 2 degrees of freedom, t = r √((n−2)/(1−r²)) (exact for Pearson under
/// bivariate normality; scipy's choice for Spearman too).
fn t_p_value(r: f64, n: usize) -> f64 {
    if n < 3 {
        return 1.0;
    }
    if r.abs() >= 1.0 {
        return 0.0;
    }
    let dof = (n - 2) as f64;
    let t = r * (dof / ((1.0 - r) * (1.0 + r))).sqrt();
    match StudentsT::new(0.0, 1.0, dof) {
        Ok(dist) => (2.0 * dist.sf(t.abs())).min(1.0),
        Err(_) => f64::NAN,
    }
}

/// Pearson's r = Σ(xᵢ−x̄)(yᵢ−ȳ) / √(Σ(xᵢ−x̄)² Σ(yᵢ−ȳ)²) with the two-sided
/// p-value from Student's t with n − 2 degrees of freedom (scipy `pearsonr`).
/// O(n).
///
/// # Errors
/// [`Error::SizeMismatch`]; [`Error::EmptyInput`] for n < 2;
/// [`Error::NonFinite`]; [`Error::ConstantInput`] when x or y is constant.
pub fn pearson(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<Correlation> {
    check_pair(x, y, 2)?;
    let value = pearson_value(x, y)?;
    Ok(Correlation {
        value,
        p_value: t_p_value(value, x.len()),
    })
}

/// Average ranks (1-based; tied values share the mean of their positions,
/// scipy's `rankdata(method="average")`), by [`mlcore::stats::ranks`].
/// O(n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`].
pub fn average_ranks(x: ArrayView1<'_, f64>) -> Result<Vec<f64>> {
    if x.is_empty() {
        return Err(Error::EmptyInput { what: "x" });
    }
    check_finite(x.iter(), "x")?;
    Ok(mlcore::stats::ranks(x)?.to_vec())
}

/// Spearman's ρ: Pearson's r of the average ranks, with scipy `spearmanr`'s
/// p-value (Student's t, n − 2 degrees of freedom). O(n log n).
///
/// # Errors
/// As [`pearson`]; [`Error::ConstantInput`] when all ranks of x or y tie.
pub fn spearman(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<Correlation> {
    check_pair(x, y, 2)?;
    let rx = ndarray::Array1::from(average_ranks(x)?);
    let ry = ndarray::Array1::from(average_ranks(y)?);
    let value = pearson_value(rx.view(), ry.view())?;
    Ok(Correlation {
        value,
        p_value: t_p_value(value, x.len()),
    })
}

/// The pair counts behind Kendall's τ, from Knight's O(n log n) algorithm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallCounts {
    /// Number of pairs n₀ = n(n−1)/2.
    pub pairs: u64,
    /// Concordant minus discordant pairs, C − D.
    pub concordance: i64,
    /// Pairs tied in x, n₁ = Σ tᵢ(tᵢ−1)/2 over groups of tied x.
    pub x_ties: u64,
    /// Pairs tied in y, n₂.
    pub y_ties: u64,
    /// Pairs tied in both, n₃.
    pub joint_ties: u64,
    /// Distinct values of x.
    pub x_distinct: usize,
    /// Distinct values of y.
    pub y_distinct: usize,
    /// Σ t(t−1)(2t+5), Σ t(t−1)(t−2), Σ t(t−1) over tie groups of x (for the variance).
    x_tie_sums: [f64; 3],
    /// The same for y.
    y_tie_sums: [f64; 3],
}

fn tie_groups_sorted<T: PartialEq>(v: &[T]) -> (u64, usize, [f64; 3]) {
    tie_groups_by(v, |a, b| a == b)
}

/// [`tie_stats`] of the runs of `v` whose neighbours are `same`.
fn tie_groups_by<T>(v: &[T], same: impl Fn(&T, &T) -> bool) -> (u64, usize, [f64; 3]) {
    let mut sizes = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && same(&v[j], &v[i]) {
            j += 1;
        }
        sizes.push((j - i) as u64);
        i = j;
    }
    tie_stats(&sizes)
}

/// Tied pairs Σ t(t−1)/2, the number of groups, and the variance sums
/// Σ t(t−1)(2t+5), Σ t(t−1)(t−2), Σ t(t−1) over groups of sizes `t`.
fn tie_stats(sizes: &[u64]) -> (u64, usize, [f64; 3]) {
    let (mut pairs, mut sums) = (0u64, [0.0; 3]);
    for &t in sizes {
        pairs += t * (t - 1) / 2;
        let tf = t as f64;
        sums[0] += tf * (tf - 1.0) * (2.0 * tf + 5.0);
        sums[1] += tf * (tf - 1.0) * (tf - 2.0);
        sums[2] += tf * (tf - 1.0);
    }
    (pairs, sizes.len(), sums)
}

/// A `u64` whose unsigned order is the numeric order of finite `v`, with
/// `−0` and `+0` equal (so they tie, as `==` and scipy have it).
fn order_key(v: f64) -> u64 {
    let bits = (v + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// Merge sort of `v` counting exchanges (inversions), O(n log n): runs of
/// 16 by insertion sort (whose shifts are the inversions inside a run), then
/// bottom-up merges without data-dependent branches (the comparison picks
/// the element and the count by selection, so random data costs no branch
/// mispredictions).
pub(crate) fn merge_sort_swaps(v: &mut [u64]) -> u64 {
    const RUN: usize = 16;
    let n = v.len();
    let mut swaps = 0u64;
    for run in v.chunks_mut(RUN) {
        for i in 1..run.len() {
            let x = run[i];
            let mut j = i;
            while j > 0 && run[j - 1] > x {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = x;
            swaps += (i - j) as u64;
        }
    }
    let mut buf = vec![0u64; n];
    let mut width = RUN;
    let mut src_is_v = true;
    while width < n {
        {
            let (src, dst): (&[u64], &mut [u64]) = if src_is_v {
                (&*v, &mut buf[..])
            } else {
                (&buf[..], &mut *v)
            };
            let mut start = 0;
            while start < n {
                let mid = (start + width).min(n);
                let end = (start + 2 * width).min(n);
                let (mut i, mut j, mut k) = (start, mid, start);
                while i < mid && j < end {
                    let (a, b) = (src[i], src[j]);
                    let take_b = b < a;
                    dst[k] = if take_b { b } else { a };
                    swaps += if take_b { (mid - i) as u64 } else { 0 };
                    j += usize::from(take_b);
                    i += usize::from(!take_b);
                    k += 1;
                }
                dst[k..k + (mid - i)].copy_from_slice(&src[i..mid]);
                k += mid - i;
                dst[k..k + (end - j)].copy_from_slice(&src[j..end]);
                start = end;
            }
        }
        src_is_v = !src_is_v;
        width *= 2;
    }
    if !src_is_v {
        v.copy_from_slice(&buf);
    }
    swaps
}

/// Knight's (1966) algorithm: order the pairs by (x, y), count ties in x
/// and joint ties, count the exchanges a sort of y would make, and the ties
/// in y. C − D = n₀ − n₁ − n₂ + n₃ − 2·exchanges. Here the orders come from
/// two stable radix sorts of order keys (y to dense ranks, then by x; at most
/// 6 passes each) and the exchanges from a Fenwick tree over the m distinct
/// y ranks: O(n + n log m) time (a merge count, O(n log n), when m > 2¹⁶),
/// O(n) memory. −0 and +0 tie.
///
/// # Errors
/// [`Error::SizeMismatch`], [`Error::EmptyInput`] (n < 2), [`Error::NonFinite`],
/// [`Error::TooLarge`] for n ≥ 2³².
pub fn kendall_counts(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<KendallCounts> {
    check_pair(x, y, 2)?;
    let n = x.len();
    let Ok(n32) = u32::try_from(n) else {
        return Err(Error::TooLarge {
            what: format!("Kendall's τ of {n} pairs (at most 2³² − 1: unit indices are u32)"),
        });
    };
    // Dense ranks of y: radix-sort the units by y's order key.
    let mut keys: Vec<u64> = y.iter().map(|&v| order_key(v)).collect();
    let mut units: Vec<u32> = (0..n32).collect();
    crate::rank::radix_sort(&mut keys, &mut units);
    let mut ranks = vec![0u32; n];
    let mut y_sizes = Vec::new();
    let mut group = 0u64;
    let mut r = 0u32;
    for i in 0..n {
        if i > 0 && keys[i] != keys[i - 1] {
            y_sizes.push(group);
            group = 0;
            r += 1;
        }
        group += 1;
        ranks[i] = r;
    }
    y_sizes.push(group);
    let m = r as usize + 1;
    // In y order, stably radix-sorted by x: the pairs ordered by (x, y).
    let mut kx: Vec<u64> = match x.as_slice() {
        Some(xs) => units.iter().map(|&u| order_key(xs[u as usize])).collect(),
        None => units.iter().map(|&u| order_key(x[u as usize])).collect(),
    };
    drop((keys, units));
    crate::rank::radix_sort(&mut kx, &mut ranks);
    let (x_ties, x_distinct, x_tie_sums) = tie_groups_sorted(&kx);
    let mut joint_ties = 0u64;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && kx[j] == kx[i] && ranks[j] == ranks[i] {
            j += 1;
        }
        let t = (j - i) as u64;
        joint_ties += t * (t - 1) / 2;
        i = j;
    }
    let swaps = if m <= 1 << 16 {
        crate::rank::inversions(ranks.iter().copied(), m)
    } else {
        let mut wide: Vec<u64> = ranks.iter().map(|&r| u64::from(r)).collect();
        merge_sort_swaps(&mut wide)
    };
    let (y_ties, y_distinct, y_tie_sums) = tie_stats(&y_sizes);
    let pairs = (n as u64) * (n as u64 - 1) / 2;
    let concordance =
        pairs as i64 - x_ties as i64 - y_ties as i64 + joint_ties as i64 - 2 * swaps as i64;
    Ok(KendallCounts {
        pairs,
        concordance,
        x_ties,
        y_ties,
        joint_ties,
        x_distinct,
        y_distinct,
        x_tie_sums,
        y_tie_sums,
    })
}

/// Kendall's τ in the chosen [`variant`](KendallVariant) with the two-sided
/// asymptotic p-value of scipy's `kendalltau(method="asymptotic")`:
/// z = (C − D)/√var with the tie-corrected variance
/// var = (m(2n+5) − Σₓ t(t−1)(2t+5) − Σ_y u(u−1)(2u+5))/18 + 2·n₁·n₂/m
///     + Σₓ t(t−1)(t−2) · Σ_y u(u−1)(u−2) / (9m(n−2)), m = n(n−1)
/// (Kendall 1970, eq. 4.4), over tie groups of sizes t (x) and u (y), and
/// p = 2·Φ̄(|z|).
/// The p-value tests C − D = 0 and is the same for all three variants.
/// O(n log n).
///
/// # Errors
/// As [`kendall_counts`]; [`Error::ConstantInput`] when x or y has a single
/// distinct value (τ-b and τ-c undefined; τ-a is then 0 but its p-value is
/// not, so all variants refuse).
pub fn kendall(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    variant: KendallVariant,
) -> Result<Correlation> {
    let c = kendall_counts(x, y)?;
    if c.x_distinct < 2 {
        return Err(Error::ConstantInput { what: "x" });
    }
    if c.y_distinct < 2 {
        return Err(Error::ConstantInput { what: "y" });
    }
    let n = x.len() as f64;
    let s = c.concordance as f64;
    let value = match variant {
        KendallVariant::A => s / c.pairs as f64,
        KendallVariant::B => {
            s / (((c.pairs - c.x_ties) as f64).sqrt() * ((c.pairs - c.y_ties) as f64).sqrt())
        }
        KendallVariant::C => {
            let m = c.x_distinct.min(c.y_distinct) as f64;
            2.0 * s / (n * n * (m - 1.0) / m)
        }
    }
    .clamp(-1.0, 1.0);
    Ok(Correlation {
        value,
        p_value: kendall_p_value(&c, x.len()),
    })
}

fn kendall_p_value(c: &KendallCounts, n: usize) -> f64 {
    let nf = n as f64;
    let m = nf * (nf - 1.0);
    let [xt0, xt1, xt2] = c.x_tie_sums;
    let [yt0, yt1, yt2] = c.y_tie_sums;
    let mut var = (m * (2.0 * nf + 5.0) - xt0 - yt0) / 18.0 + 2.0 * (xt2 / 2.0) * (yt2 / 2.0) / m;
    if n > 2 {
        var += xt1 * yt1 / (9.0 * m * (nf - 2.0));
    }
    if var <= 0.0 {
        return 1.0;
    }
    let z = c.concordance as f64 / var.sqrt();
    (2.0 * mlcore::special::norm_sf(z.abs())).min(1.0)
}

/// Kendall's τ-b (the paper's and scipy's default). See [`kendall`].
///
/// # Errors
/// As [`kendall`].
pub fn kendall_tau_b(x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<Correlation> {
    kendall(x, y, KendallVariant::B)
}

/// Brute-force τ over all n(n−1)/2 pairs, O(n²): the reference for the
/// O(n log n) algorithm (exposed for tests and for users who want to audit
/// a value).
///
/// # Errors
/// As [`kendall`].
pub fn kendall_brute_force(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    variant: KendallVariant,
) -> Result<f64> {
    let c = kendall_counts(x, y)?;
    if c.x_distinct < 2 {
        return Err(Error::ConstantInput { what: "x" });
    }
    if c.y_distinct < 2 {
        return Err(Error::ConstantInput { what: "y" });
    }
    let n = x.len();
    let (mut s, mut tx, mut ty) = (0i64, 0u64, 0u64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = (x[i] - x[j]).signum() * f64::from(u8::from(x[i] != x[j]));
            let dy = (y[i] - y[j]).signum() * f64::from(u8::from(y[i] != y[j]));
            s += (dx * dy) as i64;
            tx += u64::from(x[i] == x[j]);
            ty += u64::from(y[i] == y[j]);
        }
    }
    let n0 = (n * (n - 1) / 2) as f64;
    let s = s as f64;
    Ok(match variant {
        KendallVariant::A => s / n0,
        KendallVariant::B => s / ((n0 - tx as f64) * (n0 - ty as f64)).sqrt(),
        KendallVariant::C => {
            let m = c.x_distinct.min(c.y_distinct) as f64;
            2.0 * s / ((n * n) as f64 * (m - 1.0) / m)
        }
    })
}

/// Which coefficient a [`bootstrap_ci`] resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Coefficient {
    /// [`pearson`].
    Pearson,
    /// [`spearman`].
    Spearman,
    /// [`kendall`] in the given variant.
    Kendall(KendallVariant),
}

impl Coefficient {
    /// The coefficient of (x, y).
    ///
    /// # Errors
    /// As the underlying function.
    pub fn compute(self, x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
        Ok(match self {
            Self::Pearson => pearson(x, y)?.value,
            Self::Spearman => spearman(x, y)?.value,
            Self::Kendall(v) => kendall(x, y, v)?.value,
        })
    }
}

/// A percentile-bootstrap confidence interval of a coefficient: `resamples`
/// resamples of the n pairs drawn with replacement (pairs kept together);
/// resamples in which x or y is constant are skipped and counted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BootstrapInterval {
    /// The coefficient on the full sample.
    pub estimate: f64,
    /// Lower end: the (1 − c)/2 quantile of the resampled coefficients.
    pub lo: f64,
    /// Upper end: the (1 + c)/2 quantile.
    pub hi: f64,
    /// Resamples that were constant in x or y and therefore skipped.
    pub skipped: usize,
}

/// Percentile bootstrap CI (Efron 1979) of `coefficient` at confidence
/// `confidence` ∈ (0, 1): quantiles by linear interpolation between order
/// statistics (numpy's default). O(resamples · n log n).
///
/// # Errors
/// As [`Coefficient::compute`] on the full sample; [`Error::InvalidParameter`]
/// for `confidence ∉ (0, 1)`, `resamples = 0`, or when more than half the
/// resamples are degenerate (constant).
pub fn bootstrap_ci(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    coefficient: Coefficient,
    resamples: usize,
    confidence: f64,
    rng: &mut impl Rng,
) -> Result<BootstrapInterval> {
    let estimate = coefficient.compute(x, y)?;
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(Error::InvalidParameter {
            name: "confidence",
            value: confidence,
            expected: "a value in (0, 1)",
        });
    }
    if resamples == 0 {
        return Err(Error::InvalidParameter {
            name: "resamples",
            value: 0.0,
            expected: "at least 1",
        });
    }
    crate::error::alloc_len(&[resamples], 8, "bootstrap resamples")?;
    let n = x.len();
    let mut xs = ndarray::Array1::zeros(n);
    let mut ys = ndarray::Array1::zeros(n);
    let mut values = Vec::with_capacity(resamples);
    let mut skipped = 0;
    for _ in 0..resamples {
        for k in 0..n {
            let i = rng.random_range(0..n);
            xs[k] = x[i];
            ys[k] = y[i];
        }
        match coefficient.compute(xs.view(), ys.view()) {
            Ok(v) => values.push(v),
            Err(Error::ConstantInput { .. }) => skipped += 1,
            Err(e) => return Err(e),
        }
    }
    if values.len() * 2 < resamples {
        return Err(Error::InvalidParameter {
            name: "degenerate bootstrap resamples",
            value: skipped as f64,
            expected: "fewer than half of the resamples constant in x or y",
        });
    }
    let values = ndarray::Array1::from(values);
    let lo = mlcore::stats::quantile(values.view(), (1.0 - confidence) / 2.0)?;
    let hi = mlcore::stats::quantile(values.view(), (1.0 + confidence) / 2.0)?;
    Ok(BootstrapInterval {
        estimate,
        lo,
        hi,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;

    /// −0 and +0 tie (as `==` and scipy have it), also inside a group of
    /// tied x whose y values differ: Knight's counts equal the O(n²) pair
    /// loop for every variant.
    #[test]
    fn signed_zeros_tie_like_the_pair_loop() {
        let x = Array1::from(vec![0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0, 2.0]);
        let y = Array1::from(vec![3.0, 1.0, -0.0, 2.0, 0.0, 5.0, 4.0, -0.0]);
        for variant in [KendallVariant::A, KendallVariant::B, KendallVariant::C] {
            let fast = kendall(x.view(), y.view(), variant).unwrap().value;
            let slow = kendall_brute_force(x.view(), y.view(), variant).unwrap();
            assert!((fast - slow).abs() < 1e-15, "{variant:?}: {fast} vs {slow}");
        }
    }

    /// The merge count of exchanges equals the number of inverted pairs
    /// (brute force) on runs shorter and longer than the insertion-sort run,
    /// with ties.
    #[test]
    fn merge_sort_swaps_counts_inversions() {
        let mut s = 7u64;
        for n in [0usize, 1, 2, 15, 16, 17, 33, 100, 257] {
            let v: Vec<u64> = (0..n)
                .map(|_| {
                    s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (s >> 33) % 13
                })
                .collect();
            let brute = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| v[i] > v[j])
                .count() as u64;
            let mut sorted = v.clone();
            assert_eq!(merge_sort_swaps(&mut sorted), brute, "n = {n}");
            assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
