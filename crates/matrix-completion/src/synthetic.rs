//! Synthetic data: a low-rank latent matrix, an entry-wise (possibly
//! non-linear) link, and uniform or power-law sampling of observed entries.
//!
//! (reconstructed) The spec's reference run: `G = U Vᵀ/√r` with standard normal
//! `U ∈ ℝ^{m×r}`, `V ∈ ℝ^{n×r}` (entries of `G` have unit variance), ratings
//! `y = 1 + 4·sigmoid(1.5·G) + 0.1·ε`, 8 % of entries sampled with power-law
//! popularity.

use crate::data::{Duplicates, Observations};
use crate::error::{Error, Result, check_alloc};
use mlcore::sampling::{sample_without_replacement, standard_normal};
use ndarray::Array2;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt as _};
use rand_distr::StandardNormal;

/// A rank-`r` matrix `G = U Vᵀ / √r` with i.i.d. standard normal `U`, `V`,
/// so that every entry has variance 1. O(m n r).
///
/// # Errors
/// [`Error::InvalidParameter`] when `m`, `n` or `r` is 0; [`Error::TooLarge`]
/// when `m·r`, `n·r` or `m·n` entries overflow or exceed
/// [`mlcore::check::MAX_ALLOC_BYTES`] (checked before allocating).
pub fn low_rank<R: Rng + ?Sized>(m: usize, n: usize, r: usize, rng: &mut R) -> Result<Array2<f64>> {
    for (name, v) in [("m", m), ("n", n), ("r", r)] {
        if v == 0 {
            return Err(Error::InvalidParameter {
                name,
                value: 0.0,
                expected: ">= 1",
            });
        }
    }
    check_alloc(&[m, r], "U (m × r)")?;
    check_alloc(&[n, r], "V (n × r)")?;
    check_alloc(&[m, n], "G (m × n)")?;
    let u: Array2<f64> = standard_normal((m, r), rng);
    let v: Array2<f64> = standard_normal((n, r), rng);
    Ok(u.dot(&v.t()) / (r as f64).sqrt())
}

/// The entry-wise link applied to the latent matrix to make ratings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrueLink {
    /// `y = g` (the linear model is exact).
    Identity,
    /// `y = lo + (hi − lo)·sigmoid(slope·g)`; the spec's reference run uses
    /// `lo = 1, hi = 5, slope = 1.5`.
    Sigmoid {
        /// Lower asymptote.
        lo: f64,
        /// Upper asymptote.
        hi: f64,
        /// Slope inside the sigmoid.
        slope: f64,
    },
}

impl TrueLink {
    /// The spec's non-linear link `1 + 4·sigmoid(1.5 g)`.
    pub const RATINGS: TrueLink = TrueLink::Sigmoid {
        lo: 1.0,
        hi: 5.0,
        slope: 1.5,
    };

    /// `f(g)`.
    pub fn apply(&self, g: f64) -> f64 {
        match *self {
            TrueLink::Identity => g,
            TrueLink::Sigmoid { lo, hi, slope } => lo + (hi - lo) / (1.0 + (-slope * g).exp()),
        }
    }
}

/// How observed entries are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// Every entry equally likely (the paper's uniform regime).
    Uniform,
    /// Power-law popularity: row `i` has weight `(1 + πᵣ(i))^{−α}` and column
    /// `j` weight `(1 + π_c(j))^{−α}` for random permutations `πᵣ, π_c`; entry
    /// `(i, j)` is drawn with probability proportional to the product
    /// (successively, without replacement). The distribution-free regime of
    /// the paper, where the weighted regulariser should help.
    PowerLaw {
        /// The exponent `α ≥ 0` (0 is uniform).
        alpha: f64,
    },
}

/// Draws `n_obs` distinct entries of `truth` under `sampling`, and observes
/// `link(truth_ij) + noise·ε` with `ε ~ N(0, 1)`.
///
/// Efraimidis–Spirakis keys over all `m n` cells: O(m n + N log N) time and
/// O(m n) memory (synthetic data only).
///
/// # Errors
/// [`Error::NonFiniteValue`] in `truth`; [`Error::InvalidParameter`] when
/// `n_obs` is 0 or exceeds `m n`, `noise` is negative or not finite, or
/// `alpha` is negative or not finite; [`Error::TooLarge`] when the `m n`
/// keys would exceed [`mlcore::check::MAX_ALLOC_BYTES`]. A noise level so
/// large that an observation overflows to ±∞ is an [`Error::NonFiniteValue`]
/// (from [`Observations::from_triplets`]).
pub fn sample<R: Rng + ?Sized>(
    truth: &Array2<f64>,
    link: TrueLink,
    sampling: Sampling,
    n_obs: usize,
    noise: f64,
    rng: &mut R,
) -> Result<Observations> {
    crate::error::check_finite_matrix(&truth.view(), "truth")?;
    let (m, n) = truth.dim();
    let cells_len = check_alloc(&[m, n], "sampling keys (m × n)")?;
    if n_obs == 0 || n_obs > cells_len {
        return Err(Error::InvalidParameter {
            name: "n_obs",
            value: n_obs as f64,
            expected: "in [1, rows·cols]",
        });
    }
    if !(noise.is_finite() && noise >= 0.0) {
        return Err(Error::InvalidParameter {
            name: "noise",
            value: noise,
            expected: "finite and >= 0",
        });
    }
    let cells: Vec<usize> = match sampling {
        Sampling::Uniform => {
            let mut all: Vec<usize> = (0..cells_len).collect();
            let (chosen, _) = all.partial_shuffle(rng, n_obs);
            chosen.to_vec()
        }
        Sampling::PowerLaw { alpha } => {
            if !(alpha.is_finite() && alpha >= 0.0) {
                return Err(Error::InvalidParameter {
                    name: "alpha",
                    value: alpha,
                    expected: "finite and >= 0",
                });
            }
            let rw = power_law_weights(m, alpha, rng);
            let cw = power_law_weights(n, alpha, rng);
            let w: Vec<f64> = (0..cells_len).map(|c| rw[c / n] * cw[c % n]).collect();
            sample_without_replacement(&w, n_obs, rng)?
        }
    };
    let trip: Vec<(usize, usize, f64)> = cells
        .into_iter()
        .map(|c| {
            let (i, j) = (c / n, c % n);
            let eps: f64 = rng.sample(StandardNormal);
            (i, j, link.apply(truth[[i, j]]) + noise * eps)
        })
        .collect();
    Observations::from_triplets(m, n, trip, Duplicates::Reject)
}

/// Power-law popularity weights `(1 + π(i))^{−α}` over a random permutation π.
fn power_law_weights<R: Rng + ?Sized>(len: usize, alpha: f64, rng: &mut R) -> Vec<f64> {
    let mut perm: Vec<usize> = (0..len).collect();
    perm.shuffle(rng);
    perm.iter()
        .map(|&r| (1.0 + r as f64).powf(-alpha))
        .collect()
}

/// The number of entries for an observed fraction: `round(frac · m n)`,
/// clamped to `[1, m n]`. O(1).
///
/// # Errors
/// [`Error::InvalidParameter`] when `m` or `n` is 0 or `frac` is not in
/// `[0, 1]`; [`Error::TooLarge`] when `m·n` overflows `usize`.
pub fn count_for_fraction(m: usize, n: usize, frac: f64) -> Result<usize> {
    if m == 0 || n == 0 {
        return Err(Error::InvalidParameter {
            name: "m·n",
            value: 0.0,
            expected: ">= 1",
        });
    }
    mlcore::check::closed_interval(frac, 0.0, 1.0, "frac", "in [0, 1]")?;
    let cells = m.checked_mul(n).ok_or_else(|| Error::TooLarge {
        what: "m·n",
        size: format!("{m} × {n} overflows usize"),
    })?;
    // frac·cells ≤ cells as f64, and the cast saturates: no overflow.
    Ok(((frac * cells as f64).round() as usize).clamp(1, cells))
}
