//! Moments of many values: Welford's one-pass mean and variance, pairwise
//! summation, and the two-pass mean and variance built on it. Re-exported from
//! [`crate::stats`]; every mean or variance of many values in the workspace
//! goes through here.

use crate::check;
use crate::error::{Error, Result};
use ndarray::{Array1, ArrayView1, ArrayView2, Axis};

/// Welford's running mean and variance: one pass, numerically stable, O(1) memory.
///
/// Two accumulators over disjoint data merge exactly ([`Welford::merge`],
/// Chan et al.), which is how parallel runs stay identical to serial ones up
/// to rounding.
///
/// Observations are not checked: a NaN or an infinity propagates into the
/// moments. For finite observations the mean is always finite (also when
/// `x − x̄` overflows, as for `±1e308`); the variance is `+∞` exactly when
/// the sum of squared deviations exceeds `f64::MAX`.
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
        if d.is_finite() || !x.is_finite() || !self.mean.is_finite() {
            self.mean += d / self.n as f64;
            self.m2 += d * (x - self.mean);
        } else {
            // x and the mean are finite but x − x̄ overflows: average the
            // other way round; the squared deviation is beyond f64::MAX.
            let n = self.n as f64;
            self.mean = (self.mean - self.mean / n) + x / n;
            self.m2 = f64::INFINITY;
        }
    }

    /// Folds in another accumulator, as if its observations had been pushed here.
    pub fn merge(&mut self, other: &Welford) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            // (Also avoids ∞·0 = NaN below when other's mean squared overflows.)
            *self = *other;
            return;
        }
        let n = self.n + other.n;
        let d = other.mean - self.mean;
        if d.is_finite() || !self.mean.is_finite() || !other.mean.is_finite() {
            let shift = d * other.n as f64 / n as f64;
            // d·n₂ may overflow on its own when |d| is near f64::MAX.
            self.mean += if shift.is_finite() {
                shift
            } else {
                d * (other.n as f64 / n as f64)
            };
            self.m2 += other.m2 + d * d * (self.n as f64 * other.n as f64 / n as f64);
        } else {
            let (a, b) = (self.n as f64 / n as f64, other.n as f64 / n as f64);
            self.mean = self.mean * a + other.mean * b;
            self.m2 = f64::INFINITY;
        }
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

    /// Unbiased sample standard deviation `√variance` (NaN for fewer than two observations).
    pub fn std_dev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// Population standard deviation `√(Σ(x − x̄)² / n)` (NaN when empty).
    pub fn population_std_dev(&self) -> f64 {
        self.population_variance().sqrt()
    }

    /// The sum of squared deviations `Σ(x − x̄)²` (0 when empty), as
    /// accumulated: exactly 0 for a constant sample. A sum of squares in
    /// analysis of variance.
    pub fn sum_squared_deviations(&self) -> f64 {
        self.m2
    }

    /// Standard error of the mean, `√(variance / n)` (NaN for fewer than two observations).
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

/// Below this length [`pairwise_sum`] adds sequentially.
const PAIRWISE_UNROLL: usize = 8;
/// The largest block [`pairwise_sum`] sums with eight interleaved accumulators
/// before splitting in two (numpy's `PW_BLOCKSIZE`).
const PAIRWISE_BLOCK: usize = 128;

/// `Σ xᵢ` by pairwise (cascade) summation, numpy's scheme for `np.sum`:
/// fewer than 8 values are added in order; up to 128 are added into eight
/// interleaved partial sums combined as `((r₀+r₁)+(r₂+r₃))+((r₄+r₅)+(r₆+r₇))`;
/// longer slices are split at a multiple of 8 near the middle and the halves
/// summed recursively.
///
/// The rounding error is at most about `(⌈log₂(n/128)⌉ + 25) ε Σ|xᵢ|`
/// (against `(n − 1) ε Σ|xᵢ|` for the sequential sum), for the same O(n)
/// additions and no allocation. The empty sum is 0; NaN and infinities
/// propagate as in any sum (the function never fails: validate first).
///
/// ```
/// // 1 + 10⁶ × 1e-16 sequentially loses every small term; pairwise keeps them.
/// let mut x = vec![1e-16; 1_000_000];
/// x[0] = 1.0;
/// let s = mlcore::stats::pairwise_sum(&x);
/// assert!((s - (1.0 + 999_999e-16)).abs() < 1e-14); // the small terms add up to ~1e-10
/// assert_eq!(x.iter().fold(0.0, |a, v| a + v), 1.0);
/// ```
pub fn pairwise_sum(x: &[f64]) -> f64 {
    let n = x.len();
    if n < PAIRWISE_UNROLL {
        x.iter().fold(0.0, |s, &v| s + v)
    } else if n <= PAIRWISE_BLOCK {
        let mut r = [0.0; PAIRWISE_UNROLL];
        r.copy_from_slice(&x[..PAIRWISE_UNROLL]);
        let full = n - n % PAIRWISE_UNROLL;
        for chunk in x[PAIRWISE_UNROLL..full].chunks_exact(PAIRWISE_UNROLL) {
            for (acc, &v) in r.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        let mut s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &x[full..] {
            s += v;
        }
        s
    } else {
        let half = n / 2;
        let half = half - half % PAIRWISE_UNROLL;
        pairwise_sum(&x[..half]) + pairwise_sum(&x[half..])
    }
}

/// The mean of finite values, `(1/n) Σ xᵢ` with the sum taken pairwise;
/// when that sum overflows (values near `±f64::MAX`), `Σ (xᵢ/n)` instead,
/// which cannot. Unchecked: the caller has validated a non-empty, finite slice.
fn mean_of_finite(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s = pairwise_sum(x);
    if s.is_finite() {
        s / n
    } else {
        let scaled: Vec<f64> = x.iter().map(|v| v / n).collect();
        pairwise_sum(&scaled)
    }
}

/// The sample mean `x̄ = (1/n) Σ xᵢ`, summed pairwise ([`pairwise_sum`]):
/// error `O(ε log n)` relative to `Σ|xᵢ|/n`, and finite for every finite input
/// (a sum beyond `f64::MAX` is taken over `xᵢ/n` instead). O(n); a view that
/// is not contiguous is copied first.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`].
pub fn mean(data: ArrayView1<'_, f64>) -> Result<f64> {
    check::data(&data, "data")?;
    Ok(match data.as_slice() {
        Some(s) => mean_of_finite(s),
        None => mean_of_finite(&data.to_vec()),
    })
}

/// The sample variance `Σ(xᵢ − x̄)² / (n − ddof)` by two passes, both summed
/// pairwise: numpy's `np.var(x, ddof=ddof)` (population variance for
/// `ddof = 0`, the unbiased one for `ddof = 1`), except that a constant sample
/// gives exactly 0 (numpy may give a rounding residue there, since `x̄` itself
/// is rounded). More accurate than one pass ([`Welford`], which is the choice
/// for streamed or merged data); `+∞` when `Σ(xᵢ − x̄)²` exceeds `f64::MAX`.
/// O(n); a view that is not contiguous is copied first.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::InvalidParameter`] unless
/// `ddof < n`.
pub fn variance(data: ArrayView1<'_, f64>, ddof: usize) -> Result<f64> {
    check::data(&data, "data")?;
    if ddof >= data.len() {
        return Err(Error::InvalidParameter {
            name: "ddof",
            value: ddof as f64,
            expected: "ddof < n (fewer degrees of freedom than observations)",
        });
    }
    let owned;
    let x = match data.as_slice() {
        Some(s) => s,
        None => {
            owned = data.to_vec();
            &owned
        }
    };
    if x.iter().all(|&v| v == x[0]) {
        return Ok(0.0);
    }
    let m = mean_of_finite(x);
    let sq: Vec<f64> = x.iter().map(|&v| (v - m) * (v - m)).collect();
    Ok(pairwise_sum(&sq) / (x.len() - ddof) as f64)
}

/// The mean of each lane of a matrix along `axis` ([`mean`] of every column
/// for `Axis(0)`, of every row for `Axis(1)`): `ndarray`'s `mean_axis`,
/// summed pairwise instead of in order. O(rows · cols).
///
/// # Errors
/// [`Error::Empty`] when the matrix has no element, [`Error::NonFinite`],
/// [`Error::InvalidParameter`] for an axis other than 0 or 1.
pub fn mean_axis(data: ArrayView2<'_, f64>, axis: Axis) -> Result<Array1<f64>> {
    check::data(&data, "data")?;
    if axis.index() > 1 {
        return Err(Error::InvalidParameter {
            name: "axis",
            value: axis.index() as f64,
            expected: "0 or 1",
        });
    }
    Ok(data
        .lanes(axis)
        .into_iter()
        .map(|lane| match lane.as_slice() {
            Some(s) => mean_of_finite(s),
            None => mean_of_finite(&lane.to_vec()),
        })
        .collect())
}
