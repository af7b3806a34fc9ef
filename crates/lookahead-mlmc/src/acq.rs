//! One-step acquisitions: analytic EI and Monte-Carlo q-EI.

use crate::error::{Error, Result, check_finite};
use crate::gp::{ExactGp, chol_psd_small};
use ndarray::{ArrayView1, ArrayView2};

/// Standard normal density `φ(u)` and distribution function `Φ(u)`: the
/// workspace's one implementation, [`mlcore::special`] (accurate to a few
/// ulps in both tails).
pub use mlcore::special::{norm_cdf as normal_cdf, norm_pdf as normal_pdf};

/// Analytic expected improvement of `f ~ N(μ, σ²)` over `best`:
/// `EI = E[(f − best)⁺] = σ·(u Φ(u) + φ(u))`, `u = (μ − best)/σ`;
/// `(μ − best)⁺` when `σ = 0`. O(1). Non-negative, non-decreasing in `μ` and in `σ`.
pub fn ei(mu: f64, sigma: f64, best: f64) -> f64 {
    if sigma <= 0.0 {
        return (mu - best).max(0.0);
    }
    let u = (mu - best) / sigma;
    (sigma * (u * normal_cdf(u) + normal_pdf(u))).max(0.0)
}

pub(crate) fn ei_at(gp: &ExactGp, x: &[f64], best: f64) -> f64 {
    let (m, v) = gp.post(x);
    ei(m, v.sqrt(), best)
}

/// Analytic EI of the GP's latent `f` at `x` over `best` (BoTorch's
/// `ExpectedImprovement`). O(n²).
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::NonFinite`].
pub fn expected_improvement(gp: &ExactGp, x: ArrayView1<'_, f64>, best: f64) -> Result<f64> {
    if !best.is_finite() {
        return Err(Error::NonFinite { what: "best" });
    }
    let (m, v) = gp.posterior(x)?;
    Ok(ei(m, v.sqrt(), best))
}

/// MC q-EI with base samples `z` (`M` rows of `q`, flat):
/// `qEI = (1/M) Σₘ (maxⱼ (μ + L_Σ zₘ)ⱼ − best)⁺`. O(q n² + q³ + M q²).
pub(crate) fn q_ei_slice(gp: &ExactGp, pts: &[f64], q: usize, best: f64, z: &[f64]) -> f64 {
    let (mu, cov) = gp.joint(pts, q);
    q_ei_from_moments(&mu, &cov, q, best, z)
}

pub(crate) fn q_ei_from_moments(mu: &[f64], cov: &[f64], q: usize, best: f64, z: &[f64]) -> f64 {
    let m = z.len() / q;
    crate::cost::inner_samples(m);
    if q == 1 {
        let s = cov[0].max(0.0).sqrt();
        let mut acc = 0.0;
        for &zz in z {
            acc += (mu[0] + s * zz - best).max(0.0);
        }
        return acc / m as f64;
    }
    let l = chol_psd_small(cov, q);
    let mut acc = 0.0;
    for row in z.chunks_exact(q) {
        let mut mx = f64::NEG_INFINITY;
        for a in 0..q {
            let mut f = mu[a];
            for b in 0..=a {
                f += l[a * q + b] * row[b];
            }
            mx = mx.max(f);
        }
        acc += (mx - best).max(0.0);
    }
    acc / m as f64
}

/// Monte-Carlo q-EI of the batch `xs` (`q × d`) over `best` with base samples
/// `base` (`M × q`, standard normal, owned by the caller):
/// `qEI(xs) ≈ (1/M) Σₘ (maxⱼ f⁽ᵐ⁾ⱼ − best)⁺`, `f⁽ᵐ⁾ = μ + L_Σ zₘ`.
/// O(q n² + q³ + M q²).
///
/// # Errors
/// [`Error::InvalidBatchSize`] for `q = 0` or `M = 0`, [`Error::DimensionMismatch`],
/// [`Error::NonFinite`] (also when huge finite inputs overflow the average).
pub fn q_expected_improvement(
    gp: &ExactGp,
    xs: ArrayView2<'_, f64>,
    best: f64,
    base: ArrayView2<'_, f64>,
) -> Result<f64> {
    let (q, d) = xs.dim();
    if q == 0 {
        return Err(Error::InvalidBatchSize { what: "q" });
    }
    if base.nrows() == 0 {
        return Err(Error::InvalidBatchSize { what: "MC samples" });
    }
    if d != gp.dim() {
        return Err(Error::DimensionMismatch {
            what: "columns of xs",
            expected: gp.dim(),
            got: d,
        });
    }
    if base.ncols() != q {
        return Err(Error::DimensionMismatch {
            what: "columns of base",
            expected: q,
            got: base.ncols(),
        });
    }
    if !best.is_finite() {
        return Err(Error::NonFinite { what: "best" });
    }
    let pts: Vec<f64> = xs.iter().copied().collect();
    let z: Vec<f64> = base.iter().copied().collect();
    check_finite("xs", &pts)?;
    check_finite("base", &z)?;
    let v = q_ei_slice(gp, &pts, q, best, &z);
    if !v.is_finite() {
        // Finite but huge base samples or `best` can overflow the average.
        return Err(Error::NonFinite {
            what: "qEI (base samples or best too large: the average overflows)",
        });
    }
    Ok(v)
}
