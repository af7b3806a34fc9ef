//! Sampling: the workspace RNG, weighted draws, Gaussian vectors.
//!
//! The workspace convention: every random routine takes `rng: &mut R` with
//! `R: Rng + ?Sized`; examples, tests and the runner seed a [`WorkspaceRng`]
//! through [`seeded`], so that a seed fixes every figure on every machine.

use crate::check;
use crate::error::{Error, Result};
use crate::linalg;
use ndarray::{Array, Array1, Array2, ArrayView1, ArrayView2, ShapeBuilder};
use rand::distr::Distribution;
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Exp1, StandardNormal};

/// The workspace's RNG: ChaCha with 8 rounds, fast and portable (the same
/// stream on every platform and thread count).
pub type WorkspaceRng = rand_chacha::ChaCha8Rng;

/// A [`WorkspaceRng`] seeded from a `u64`.
pub fn seeded(seed: u64) -> WorkspaceRng {
    WorkspaceRng::seed_from_u64(seed)
}

/// Checks weights: finite, non-negative, with a positive finite total.
/// Returns the normalised probabilities `wᵢ / Σ w`.
fn check_weights(weights: &[f64]) -> Result<Vec<f64>> {
    let view = ArrayView1::from(weights);
    check::data(&view, "weights")?;
    if let Some(&w) = weights.iter().find(|&&w| w < 0.0) {
        return Err(Error::InvalidParameter {
            name: "weights",
            value: w,
            expected: "every weight >= 0",
        });
    }
    let total: f64 = weights.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "sum(weights)",
            value: total,
            expected: "a finite value > 0",
        });
    }
    Ok(weights.iter().map(|w| w / total).collect())
}

/// Walker's alias table (Vose's construction): O(n) set-up, O(1) per draw of
/// an index `i` with probability `wᵢ / Σ w`.
#[derive(Debug, Clone, PartialEq)]
pub struct AliasTable {
    /// Probability of keeping the column's own index.
    keep: Vec<f64>,
    /// Index drawn when the column's own index is not kept.
    alias: Vec<usize>,
    /// The normalised probabilities.
    p: Vec<f64>,
}

impl AliasTable {
    /// Builds the table from non-negative weights (not necessarily normalised).
    ///
    /// # Errors
    /// [`Error::Empty`], [`Error::NonFinite`], [`Error::InvalidParameter`] for
    /// a negative weight, a zero total, or a total that overflows `f64`
    /// (rescale such weights first).
    pub fn new(weights: &[f64]) -> Result<Self> {
        let p = check_weights(weights)?;
        let n = weights.len();
        let mut keep: Vec<f64> = p.iter().map(|q| q * n as f64).collect();
        let mut alias: Vec<usize> = (0..n).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| keep[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            alias[s] = l;
            keep[l] -= 1.0 - keep[s];
            if keep[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left is 1 up to rounding.
        for i in small.into_iter().chain(large) {
            keep[i] = 1.0;
        }
        Ok(AliasTable { keep, alias, p })
    }

    /// Number of categories.
    pub fn len(&self) -> usize {
        self.p.len()
    }

    /// Always `false`: a table has at least one category.
    pub fn is_empty(&self) -> bool {
        self.p.is_empty()
    }

    /// The normalised probabilities `wᵢ / Σ w`.
    pub fn probabilities(&self) -> &[f64] {
        &self.p
    }

    /// The probability of each index implied by the table itself:
    /// `(keepᵢ + Σ_{j : alias(j) = i} (1 − keepⱼ)) / n`. Equal to
    /// [`AliasTable::probabilities`] up to rounding; a check of the construction.
    pub fn implied_probabilities(&self) -> Vec<f64> {
        let n = self.keep.len() as f64;
        let mut q: Vec<f64> = self.keep.iter().map(|k| k / n).collect();
        for (j, &a) in self.alias.iter().enumerate() {
            q[a] += (1.0 - self.keep[j]) / n;
        }
        q
    }
}

impl Distribution<usize> for AliasTable {
    /// One draw in O(1): a uniform column, then a biased coin.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let i = rng.random_range(0..self.keep.len());
        if rng.random::<f64>() < self.keep[i] {
            i
        } else {
            self.alias[i]
        }
    }
}

/// `k` distinct indices drawn without replacement, each successive draw
/// proportional to the weights of the indices not yet drawn.
///
/// Efraimidis–Spirakis exponential keys: index `i` gets `Eᵢ / wᵢ` with
/// `Eᵢ ~ Exp(1)`, and the `k` smallest keys, in increasing order, are the
/// successive draws. O(n + k log k). Zero-weight indices are never drawn.
/// Keys that overflow to `+∞` or underflow to 0 (weights near the ends of the
/// `f64` range) are ordered by `ln Eᵢ − ln wᵢ` among themselves.
///
/// # Errors
/// As [`AliasTable::new`], and [`Error::InvalidParameter`] when `k` exceeds
/// the number of positive weights.
pub fn sample_without_replacement<R: Rng + ?Sized>(
    weights: &[f64],
    k: usize,
    rng: &mut R,
) -> Result<Vec<usize>> {
    check_weights(weights)?;
    let mut keys: Vec<(f64, f64, usize)> = weights
        .iter()
        .enumerate()
        .filter(|&(_, &w)| w > 0.0)
        .map(|(i, &w)| {
            let e: f64 = rng.sample(Exp1);
            let key = e / w;
            let log_key = if key == 0.0 || key.is_infinite() {
                e.ln() - w.ln()
            } else {
                0.0
            };
            (key, log_key, i)
        })
        .collect();
    if k > keys.len() {
        return Err(Error::InvalidParameter {
            name: "k",
            value: k as f64,
            expected: "at most the number of positive weights",
        });
    }
    if k == 0 {
        return Ok(Vec::new());
    }
    let order = |a: &(f64, f64, usize), b: &(f64, f64, usize)| {
        a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1))
    };
    keys.select_nth_unstable_by(k - 1, order);
    keys.truncate(k);
    keys.sort_unstable_by(order);
    Ok(keys.into_iter().map(|(_, _, i)| i).collect())
}

/// An array of independent standard normal draws, of any shape
/// (`standard_normal(5, rng)`, `standard_normal((3, 4), rng)`).
///
/// # Panics
/// Like every `ndarray` constructor, when the element count overflows
/// `isize` (and the process aborts when the allocation fails). For a shape
/// that comes from user input, use [`try_standard_normal`].
pub fn standard_normal<Sh, R>(shape: Sh, rng: &mut R) -> Array<f64, Sh::Dim>
where
    Sh: ShapeBuilder,
    R: Rng + ?Sized,
{
    Array::from_shape_simple_fn(shape, || rng.sample(StandardNormal))
}

/// [`standard_normal`] with the size checked first: the same draws, in the
/// same order, or an error instead of a panic or an out-of-memory abort.
///
/// # Errors
/// [`Error::TooLarge`] when the element count overflows `usize`, exceeds
/// [`check::MAX_ALLOC_BYTES`], or cannot be allocated.
pub fn try_standard_normal<Sh, R>(shape: Sh, rng: &mut R) -> Result<Array<f64, Sh::Dim>>
where
    Sh: ShapeBuilder,
    R: Rng + ?Sized,
{
    let shape = shape.into_shape_with_order();
    let len = check::alloc_len(
        ndarray::Dimension::slice(shape.raw_dim()),
        size_of::<f64>(),
        "shape",
    )?;
    let mut v = check::try_filled(len, 0.0, "shape")?;
    v.iter_mut().for_each(|x| *x = rng.sample(StandardNormal));
    Array::from_shape_vec(shape, v).map_err(|e| Error::TooLarge {
        what: "shape",
        size: e.to_string(),
    })
}

/// The multivariate normal `N(μ, Σ)`, sampled as `μ + L z` with `Σ = L Lᵀ` and `z ~ N(0, I)`.
#[derive(Debug, Clone, PartialEq)]
pub struct MultivariateNormal {
    mean: Array1<f64>,
    l: Array2<f64>,
}

impl MultivariateNormal {
    /// From a mean `μ` and a symmetric positive definite covariance `Σ` (lower triangle read). O(d³).
    ///
    /// For a singular covariance, factorise it yourself (for example with
    /// [`linalg::cholesky_jittered`]) and use [`MultivariateNormal::from_cholesky`].
    ///
    /// # Errors
    /// Shape, emptiness and finiteness errors, [`Error::NotPositiveDefinite`].
    pub fn from_covariance(mean: ArrayView1<'_, f64>, cov: ArrayView2<'_, f64>) -> Result<Self> {
        let l = linalg::cholesky(cov)?;
        Self::from_cholesky(mean, l.view())
    }

    /// From a mean `μ` and a lower-triangular factor `L` of the covariance
    /// `Σ = L Lᵀ` (entries above the diagonal are ignored).
    ///
    /// # Errors
    /// Shape, emptiness and finiteness errors; [`Error::Overflow`] when a
    /// draw could overflow: `|μᵢ| + 40 Σⱼ |Lᵢⱼ| > f64::MAX` for some row
    /// (40 standard deviations bounds every `f64` normal draw).
    pub fn from_cholesky(mean: ArrayView1<'_, f64>, l: ArrayView2<'_, f64>) -> Result<Self> {
        check::data(&mean, "mean")?;
        check::square(&l, "l")?;
        check::finite(&l, "l")?;
        check::len(l.nrows(), mean.len(), "l (rows)")?;
        let mut l = l.to_owned();
        for ((i, j), v) in l.indexed_iter_mut() {
            if j > i {
                *v = 0.0;
            }
        }
        let overflows = l.rows().into_iter().zip(mean.iter()).any(|(row, m)| {
            let spread: f64 = row.iter().map(|v| v.abs()).sum();
            !(m.abs() + 40.0 * spread).is_finite()
        });
        if overflows {
            return Err(Error::Overflow {
                what: "a draw (|mean| + 40·row sum of |L|)",
            });
        }
        Ok(MultivariateNormal {
            mean: mean.to_owned(),
            l,
        })
    }

    /// The mean `μ`.
    pub fn mean(&self) -> &Array1<f64> {
        &self.mean
    }

    /// The lower-triangular factor `L` of the covariance.
    pub fn cholesky_factor(&self) -> &Array2<f64> {
        &self.l
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// `n` draws as the rows of an `n × d` matrix. O(n d²).
    ///
    /// # Panics
    /// As [`standard_normal`], when `n · d` overflows; for an `n` from user
    /// input use [`MultivariateNormal::try_sample_n`].
    pub fn sample_n<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Array2<f64> {
        let z = standard_normal((n, self.dim()), rng);
        z.dot(&self.l.t()) + &self.mean
    }

    /// [`MultivariateNormal::sample_n`] with the size checked first (the same draws).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `n · d` overflows, exceeds
    /// [`check::MAX_ALLOC_BYTES`] (twice: the draws and the result), or
    /// cannot be allocated.
    pub fn try_sample_n<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Result<Array2<f64>> {
        check::alloc_len(&[n, self.dim(), 2], size_of::<f64>(), "n")?;
        let z = try_standard_normal((n, self.dim()), rng)?;
        Ok(z.dot(&self.l.t()) + &self.mean)
    }
}

impl Distribution<Array1<f64>> for MultivariateNormal {
    /// One draw, O(d²).
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Array1<f64> {
        let z = standard_normal(self.dim(), rng);
        self.l.dot(&z) + &self.mean
    }
}
