//! Hypothesis tests: the exact binomial test, Fisher's exact test on a 2 × 2
//! table and the Wilcoxon signed-rank test, each giving the p-value of its
//! SciPy counterpart. Re-exported from [`crate::stats`].
//!
//! The binomial and hypergeometric probabilities behind them are computed
//! with Loader's saddle-point formula (relative errors of order 1e-14 for
//! any `n`, with no cancellation between large log-factorials), and tails
//! are summed outward from the requested point, so that small tail
//! probabilities keep their relative accuracy.

use crate::check;
use crate::error::{Error, Result};
use lattice::{Binomial, Hypergeometric, cdf, pmf, sf};
use ndarray::ArrayView1;

/// Which alternative hypothesis a test uses (scipy's `alternative=
/// "two-sided" | "less" | "greater"`; default two-sided). One type for every
/// test in the workspace, the RCT tests of `conformal-sets` included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Alternative {
    /// The parameter differs from its null value, in either direction.
    #[default]
    TwoSided,
    /// The parameter is below its null value (a success probability below
    /// `p`, an odds ratio below 1, `x` tending to fall below `y`).
    Less,
    /// The parameter is above its null value (a success probability above
    /// `p`, an odds ratio above 1, `x` tending to exceed `y`).
    Greater,
}

/// The largest count accepted: every integer up to 2⁵³ is exact in an `f64`.
const MAX_COUNT: u64 = 1 << 53;

/// Checks `1 ≤ n ≤ 2⁵³` and `successes ≤ n`.
pub(crate) fn check_counts(successes: u64, n: u64) -> Result<()> {
    if n == 0 || n > MAX_COUNT {
        return Err(Error::InvalidParameter {
            name: "n",
            value: n as f64,
            expected: "1 <= n <= 2^53",
        });
    }
    if successes > n {
        return Err(Error::InvalidParameter {
            name: "successes",
            value: successes as f64,
            expected: "successes <= n",
        });
    }
    Ok(())
}

/// Binomial and hypergeometric probabilities and tails (crate-internal).
pub(crate) mod lattice {
    use std::f64::consts::PI;

    /// Stirling's error `ln n! − (n + ½) ln n + n − ln √(2π)` for n = 0..=15
    /// (entry 0 unused), correctly rounded (mpmath at 40 digits).
    const SFERR: [f64; 16] = [
        0.0,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ];

    /// Stirling's error for an integer `n ≥ 1`: the table up to 15, the
    /// asymptotic series `1/(12n) − 1/(360n³) + 1/(1260n⁵) − …` beyond.
    fn stirlerr(n: f64) -> f64 {
        if n <= 15.0 {
            return SFERR[n as usize];
        }
        const S0: f64 = 1.0 / 12.0;
        const S1: f64 = 1.0 / 360.0;
        const S2: f64 = 1.0 / 1260.0;
        const S3: f64 = 1.0 / 1680.0;
        const S4: f64 = 1.0 / 1188.0;
        let nn = n * n;
        if n > 500.0 {
            (S0 - S1 / nn) / n
        } else if n > 80.0 {
            (S0 - (S1 - S2 / nn) / nn) / n
        } else if n > 35.0 {
            (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
        } else {
            (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
        }
    }

    /// `x ln(x/m) + m − x`, by its series when `x ≈ m` (Loader 2000).
    fn bd0(x: f64, m: f64) -> f64 {
        if (x - m).abs() < 0.1 * (x + m) {
            let mut v = (x - m) / (x + m);
            let mut s = (x - m) * v;
            if s.abs() < f64::MIN_POSITIVE {
                return s;
            }
            let mut ej = 2.0 * x * v;
            v *= v;
            for j in 1..1000 {
                ej *= v;
                let s1 = s + ej / f64::from(2 * j + 1);
                if s1 == s {
                    return s1;
                }
                s = s1;
            }
        }
        x * (x / m).ln() + m - x
    }

    /// `ln P(X = x)` for `X ~ Binomial(n, p)`, `q = 1 − p` given separately
    /// (Loader's saddle-point form, R's `dbinom_raw`).
    fn ln_dbinom(x: f64, n: f64, p: f64, q: f64) -> f64 {
        if p == 0.0 {
            return if x == 0.0 { 0.0 } else { f64::NEG_INFINITY };
        }
        if q == 0.0 {
            return if x == n { 0.0 } else { f64::NEG_INFINITY };
        }
        if x < 0.0 || x > n {
            return f64::NEG_INFINITY;
        }
        if x == 0.0 {
            if n == 0.0 {
                return 0.0;
            }
            return if p < 0.1 {
                -bd0(n, n * q) - n * p
            } else {
                n * q.ln()
            };
        }
        if x == n {
            return if q < 0.1 {
                -bd0(n, n * p) - n * q
            } else {
                n * p.ln()
            };
        }
        let lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
        let lf = (2.0 * PI).ln() + x.ln() + (-x / n).ln_1p();
        lc - 0.5 * lf
    }

    /// A log-concave distribution on the integers `lo..=hi`.
    pub(crate) trait Lattice {
        /// `(lo, hi)`.
        fn support(&self) -> (i64, i64);
        /// A mode: the terms do not increase moving away from it.
        fn mode(&self) -> i64;
        /// `ln P(X = j)` for `j` in the support.
        fn ln_pmf(&self, j: i64) -> f64;
        /// `P(X = j + 1) / P(X = j)` for `lo ≤ j < hi`.
        fn ratio_up(&self, j: i64) -> f64;
    }

    /// `Binomial(n, p)`.
    pub(crate) struct Binomial {
        n: i64,
        p: f64,
        q: f64,
    }

    impl Binomial {
        /// `n ≤ 2⁵³`, `p ∈ [0, 1]`, `q = 1 − p` (passed separately so that a
        /// caller who knows `q` more accurately than `1 − p` can say so).
        pub(crate) fn new(n: u64, p: f64, q: f64) -> Self {
            Binomial { n: n as i64, p, q }
        }
    }

    impl Lattice for Binomial {
        fn support(&self) -> (i64, i64) {
            if self.p == 0.0 {
                (0, 0)
            } else if self.q == 0.0 {
                (self.n, self.n)
            } else {
                (0, self.n)
            }
        }
        fn mode(&self) -> i64 {
            (((self.n + 1) as f64 * self.p).floor() as i64).clamp(0, self.n)
        }
        fn ln_pmf(&self, j: i64) -> f64 {
            ln_dbinom(j as f64, self.n as f64, self.p, self.q)
        }
        fn ratio_up(&self, j: i64) -> f64 {
            (self.n - j) as f64 / (j + 1) as f64 * (self.p / self.q)
        }
    }

    /// `Hypergeometric`: successes in `draws` draws without replacement from
    /// `total` items of which `marked` are successes.
    pub(crate) struct Hypergeometric {
        total: i64,
        marked: i64,
        draws: i64,
    }

    impl Hypergeometric {
        /// Needs `marked, draws ≤ total ≤ 2⁵³`.
        pub(crate) fn new(total: u64, marked: u64, draws: u64) -> Self {
            Hypergeometric {
                total: total as i64,
                marked: marked as i64,
                draws: draws as i64,
            }
        }
    }

    impl Lattice for Hypergeometric {
        fn support(&self) -> (i64, i64) {
            (
                (self.draws - (self.total - self.marked)).max(0),
                self.draws.min(self.marked),
            )
        }
        fn mode(&self) -> i64 {
            let m = (self.draws + 1) as f64 * (self.marked + 1) as f64 / (self.total + 2) as f64;
            let (lo, hi) = self.support();
            (m.floor() as i64).clamp(lo, hi)
        }
        fn ln_pmf(&self, x: i64) -> f64 {
            // R's dhyper: a ratio of three binomial probabilities at p = draws / total.
            let (r, b, n) = (
                self.marked as f64,
                (self.total - self.marked) as f64,
                self.draws as f64,
            );
            if n == 0.0 {
                return if x == 0 { 0.0 } else { f64::NEG_INFINITY };
            }
            let x = x as f64;
            let p = n / (r + b);
            let q = (r + b - n) / (r + b);
            ln_dbinom(x, r, p, q) + ln_dbinom(n - x, b, p, q) - ln_dbinom(n, r + b, p, q)
        }
        fn ratio_up(&self, j: i64) -> f64 {
            let (k, m, nn) = (self.marked, self.draws, self.total);
            ((k - j) as f64 * (m - j) as f64) / ((j + 1) as f64 * (nn - k - m + j + 1) as f64)
        }
    }

    /// `P(X = j)` (0 outside the support).
    pub(crate) fn pmf<D: Lattice>(d: &D, j: i64) -> f64 {
        let (lo, hi) = d.support();
        if j < lo || j > hi {
            0.0
        } else {
            d.ln_pmf(j).exp()
        }
    }

    /// `Σ P(X = j)` over `j ≥ start` (`up`) or `j ≤ start`, for a `start` at
    /// or beyond the mode in that direction, so that the terms only shrink.
    ///
    /// Terms follow the ratio recurrence, re-anchored on the exact
    /// probability every 16 steps, and are added with Neumaier's compensated
    /// sum. By log-concavity the terms after one with ratio `r < 1` sum to at
    /// most `term / (1 − r)`: the sum stops once that is below 2⁻⁶⁰ of the total.
    fn tail<D: Lattice>(d: &D, start: i64, up: bool) -> f64 {
        const NEGLIGIBLE: f64 = 1.0 / (1_u64 << 60) as f64;
        let (lo, hi) = d.support();
        let mut j = if up { start.max(lo) } else { start.min(hi) };
        if j < lo || j > hi {
            return 0.0;
        }
        let mut term = d.ln_pmf(j).exp();
        let (mut sum, mut comp) = (0.0_f64, 0.0_f64);
        let mut steps = 0_u32;
        loop {
            let t = sum + term;
            comp += if sum >= term {
                (sum - t) + term
            } else {
                (term - t) + sum
            };
            sum = t;
            if (up && j == hi) || (!up && j == lo) {
                break;
            }
            let r = if up {
                d.ratio_up(j)
            } else {
                1.0 / d.ratio_up(j - 1)
            };
            j += if up { 1 } else { -1 };
            steps += 1;
            term *= r;
            if steps.is_multiple_of(16) || !term.is_finite() {
                term = d.ln_pmf(j).exp();
            }
            if r < 1.0 && term <= NEGLIGIBLE * (1.0 - r) * sum {
                break;
            }
        }
        sum + comp
    }

    /// `P(X ≤ k)`.
    pub(crate) fn cdf<D: Lattice>(d: &D, k: i64) -> f64 {
        let (lo, hi) = d.support();
        let v = if k < lo {
            0.0
        } else if k >= hi {
            1.0
        } else if k <= d.mode() {
            tail(d, k, false)
        } else {
            1.0 - tail(d, k + 1, true)
        };
        v.clamp(0.0, 1.0)
    }

    /// `P(X > k)`.
    pub(crate) fn sf<D: Lattice>(d: &D, k: i64) -> f64 {
        let (lo, hi) = d.support();
        let v = if k < lo {
            1.0
        } else if k >= hi {
            0.0
        } else if k + 1 >= d.mode() {
            tail(d, k + 1, true)
        } else {
            1.0 - tail(d, k, false)
        };
        v.clamp(0.0, 1.0)
    }
}

/// SciPy's `_binary_search_for_binom_tst`: for `a` non-decreasing on
/// `lo..=hi`, the `i` with `a(i) ≤ d < a(i + 1)` (possibly `lo − 1`).
fn binary_search(a: impl Fn(i64) -> f64, d: f64, mut lo: i64, mut hi: i64) -> i64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let v = a(mid);
        if v < d {
            lo = mid + 1;
        } else if v > d {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    if a(lo) <= d { lo } else { lo - 1 }
}

/// The exact binomial test of `H₀: P(success) = p` after `successes` in `n`
/// trials: the p-value of `scipy.stats.binomtest(successes, n, p, alternative)`.
///
/// With `X ~ Binomial(n, p)` and `k = successes`:
/// - `Less`: `P(X ≤ k)`; `Greater`: `P(X ≥ k)`;
/// - `TwoSided`: `Σ P(X = j)` over all `j` with `P(X = j) ≤ P(X = k)·(1 + 10⁻⁷)`
///   (SciPy's rule, found by binary search on the far side of the mode;
///   1 when `k = np`), capped at 1.
///
/// Cost: O(log n) probabilities plus tails summed until negligible, at most
/// O(√(n p (1 − p))) terms each.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `1 ≤ n ≤ 2⁵³`, `successes ≤ n` and `0 ≤ p ≤ 1`.
pub fn binomial_test(successes: u64, n: u64, p: f64, alternative: Alternative) -> Result<f64> {
    check_counts(successes, n)?;
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::InvalidParameter {
            name: "p",
            value: p,
            expected: "in [0, 1]",
        });
    }
    let dist = Binomial::new(n, p, 1.0 - p);
    let (k, n) = (successes as i64, n as i64);
    let pval = match alternative {
        Alternative::Less => cdf(&dist, k),
        Alternative::Greater => sf(&dist, k - 1),
        Alternative::TwoSided => {
            let d = pmf(&dist, k);
            let rerr = 1.0 + 1e-7;
            let np = p * n as f64;
            if k as f64 == np {
                1.0
            } else if (k as f64) < np {
                let ix = binary_search(|j| -pmf(&dist, j), -d * rerr, np.ceil() as i64, n);
                let y = n - ix + i64::from(d * rerr == pmf(&dist, ix));
                cdf(&dist, k) + sf(&dist, n - y)
            } else {
                let ix = binary_search(|j| pmf(&dist, j), d * rerr, 0, np.floor() as i64);
                cdf(&dist, ix) + sf(&dist, k - 1)
            }
        }
    };
    Ok(pval.min(1.0))
}

/// Fisher's exact test on a 2 × 2 table `[[a, b], [c, d]]` (rows = groups,
/// columns = success / failure): the p-value of
/// `scipy.stats.fisher_exact(table, alternative)`.
///
/// Given the margins, `a` is hypergeometric: `a` successes among the
/// `a + c` successes drawn from `a + b + c + d` items of which `a + b` are
/// in the first group. With odds ratio `θ = (a d) / (b c)`:
/// - `Less` (`θ < 1`): `P(A ≤ a)`; `Greater` (`θ > 1`): `P(A ≥ a)`
///   (computed, as SciPy does, as `P(B ≤ b)` in the second column);
/// - `TwoSided`: `Σ P(A = j)` over the `j` with `P(A = j) ≤ P(A = a)·(1 + 10⁻¹⁴)`,
///   1 when `P(A = a)` equals the probability at the mode `⌊(a+c+1)(a+b+1)/(N+2)⌋`
///   to relative 10⁻¹⁴ (SciPy's rule), capped at 1.
///
/// A table with an empty row or column gives 1 (SciPy's convention). Cost as
/// [`binomial_test`].
///
/// # Errors
/// [`Error::InvalidParameter`] when the total count exceeds 2⁵³.
pub fn fisher_exact(table: [[u64; 2]; 2], alternative: Alternative) -> Result<f64> {
    let [[a, b], [c, d]] = table;
    let total = a
        .checked_add(b)
        .and_then(|s| s.checked_add(c))
        .and_then(|s| s.checked_add(d))
        .filter(|&t| t <= MAX_COUNT)
        .ok_or(Error::InvalidParameter {
            name: "table",
            value: a as f64 + b as f64 + c as f64 + d as f64,
            expected: "a total count <= 2^53",
        })?;
    if a + b == 0 || c + d == 0 || a + c == 0 || b + d == 0 {
        return Ok(1.0);
    }
    let (n1, n) = (a + b, a + c);
    let dist = Hypergeometric::new(total, n1, n);
    let (a, n) = (a as i64, n as i64);
    let pval = match alternative {
        Alternative::Less => cdf(&dist, a),
        Alternative::Greater => cdf(&Hypergeometric::new(total, n1, b + d), b as i64),
        Alternative::TwoSided => {
            let mode = ((n + 1) as u128 * (n1 + 1) as u128) as f64 / (total + 2) as f64;
            let mode = mode as i64;
            let pexact = pmf(&dist, a);
            let pmode = pmf(&dist, mode);
            let eps = 1e-14;
            let gamma = 1.0 + eps;
            if (pexact - pmode).abs() / pexact.max(pmode) <= eps {
                1.0
            } else if a < mode {
                let plower = cdf(&dist, a);
                if pmf(&dist, n) > pexact * gamma {
                    plower
                } else {
                    let guess = binary_search(|j| -pmf(&dist, j), -pexact * gamma, mode, n);
                    plower + sf(&dist, guess)
                }
            } else {
                let pupper = sf(&dist, a - 1);
                if pmf(&dist, 0) > pexact * gamma {
                    pupper
                } else {
                    let guess = binary_search(|j| pmf(&dist, j), pexact * gamma, 0, mode);
                    pupper + cdf(&dist, guess)
                }
            }
        }
    };
    Ok(pval.min(1.0))
}

/// The result of [`wilcoxon_signed_rank`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WilcoxonResult {
    /// W⁺: sum of the ranks of the positive differences x − y.
    pub statistic: f64,
    /// The p-value under the chosen alternative.
    pub p_value: f64,
    /// Number of non-zero differences used.
    pub n: usize,
    /// Whether the p-value is exact (permutation distribution) or from the normal approximation.
    pub exact: bool,
}

/// Largest number of non-zero differences for which [`wilcoxon_signed_rank`]
/// enumerates the exact distribution.
const WILCOXON_EXACT_MAX: usize = 25;

/// Paired Wilcoxon signed-rank test on d = x − y; zero differences dropped (SciPy's zero_method="wilcox"),
/// tied |d| get average ranks. Exact p-value for n ≤ 25 (enumerate the sign-flip distribution of the rank sum by
/// dynamic programming over doubled ranks, so it stays exact with ties); normal approximation with tie correction
/// and continuity correction beyond. Greater means x tends to exceed y.
///
/// With `n` non-zero differences and `W⁺ = Σ_{dᵢ > 0} rank(|dᵢ|)`:
/// - exact (`n ≤ 25`): under H₀ each sign is ±1 with probability ½
///   independently, so `P(W⁺ = w) = #{sign patterns with rank sum w} / 2ⁿ`.
///   `Less`: `P(W⁺ ≤ w)`; `Greater`: `P(W⁺ ≥ w)`; `TwoSided`:
///   `min(1, 2 min(P(W⁺ ≤ w), P(W⁺ ≥ w)))`. Without ties this is SciPy's
///   `method="exact"`. O(n³) time, O(n²) memory.
/// - approximate (`n > 25`): `z = (W⁺ − n(n+1)/4 ∓ ½) / σ` with
///   `σ² = (n(n+1)(2n+1) − ½ Σ(t³ − t)) / 24` over tie groups of size `t`, the
///   continuity correction `½` taken towards the mean; `Less`: `Φ(z)`,
///   `Greater`: `1 − Φ(z)`, `TwoSided`: `2(1 − Φ(|z|))`. This is SciPy's
///   `method="asymptotic"` with `correction=True`. O(n log n).
///
/// # Errors
/// Emptiness, finiteness and length errors; [`Error::NonFinite`] when some
/// `xᵢ − yᵢ` overflows; [`Error::Empty`] when every difference is zero.
pub fn wilcoxon_signed_rank(
    x: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    alternative: Alternative,
) -> Result<WilcoxonResult> {
    check::data(&x, "x")?;
    check::data(&y, "y")?;
    check::len(y.len(), x.len(), "y")?;
    let mut d = Vec::with_capacity(x.len());
    for (index, (&a, &b)) in x.iter().zip(y.iter()).enumerate() {
        let di = a - b;
        if !di.is_finite() {
            return Err(Error::NonFinite {
                what: "x - y",
                index,
            });
        }
        if di != 0.0 {
            d.push(di);
        }
    }
    if d.is_empty() {
        return Err(Error::Empty {
            what: "non-zero differences x - y",
        });
    }
    let n = d.len();
    // Doubled average ranks of |d| (integers), and Σ(t³ − t) over tie groups.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_unstable_by(|&i, &j| d[i].abs().total_cmp(&d[j].abs()));
    let mut rank2 = vec![0_u64; n];
    let mut ties = 0.0;
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && d[order[end]].abs() == d[order[start]].abs() {
            end += 1;
        }
        // Ranks start+1 ..= end share the average (start + 1 + end) / 2.
        order[start..end]
            .iter()
            .for_each(|&i| rank2[i] = (start + 1 + end) as u64);
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    let w2: u64 = (0..n).filter(|&i| d[i] > 0.0).map(|i| rank2[i]).sum();
    let statistic = w2 as f64 / 2.0;
    let (p_value, exact) = if n <= WILCOXON_EXACT_MAX {
        (wilcoxon_exact(&rank2, w2 as usize, alternative), true)
    } else {
        (wilcoxon_normal(n, statistic, ties, alternative), false)
    };
    Ok(WilcoxonResult {
        statistic,
        p_value,
        n,
        exact,
    })
}

/// Exact p-value from the sign-flip distribution of the doubled rank sum `w2`.
fn wilcoxon_exact(rank2: &[u64], w2: usize, alternative: Alternative) -> f64 {
    let total: u64 = rank2.iter().sum();
    // counts[s] = number of sign patterns whose positive doubled ranks sum to s.
    let mut counts = vec![0_u64; total as usize + 1];
    counts[0] = 1;
    let mut reach = 0;
    for &r in rank2 {
        let r = r as usize;
        for s in (0..=reach).rev() {
            counts[s + r] += counts[s];
        }
        reach += r;
    }
    let patterns = (1_u64 << rank2.len()) as f64;
    let le: u64 = counts[..=w2].iter().sum();
    let ge: u64 = counts[w2..].iter().sum();
    match alternative {
        Alternative::Less => le as f64 / patterns,
        Alternative::Greater => ge as f64 / patterns,
        Alternative::TwoSided => (2.0 * le.min(ge) as f64 / patterns).min(1.0),
    }
}

/// Normal-approximation p-value with tie and continuity corrections.
fn wilcoxon_normal(n: usize, w: f64, ties: f64, alternative: Alternative) -> f64 {
    let n = n as f64;
    let mean = n * (n + 1.0) / 4.0;
    let se = ((n * (n + 1.0) * (2.0 * n + 1.0) - ties / 2.0) / 24.0).sqrt();
    let z = (w - mean) / se;
    // Φ̄(z), accurate in the far tail.
    let upper = crate::special::norm_sf;
    match alternative {
        Alternative::Less => upper(-(z + 0.5 / se)),
        Alternative::Greater => upper(z - 0.5 / se),
        Alternative::TwoSided => {
            let sign = if z > 0.0 {
                1.0
            } else if z < 0.0 {
                -1.0
            } else {
                0.0
            };
            (2.0 * upper((z - sign * 0.5 / se).abs())).min(1.0)
        }
    }
}
