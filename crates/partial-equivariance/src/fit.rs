//! MLE / MAP fit of a band-limited likelihood to observed group elements
//! (the toy problem of the paper's likelihood: which degree of symmetry do
//! these transformations have?).
//!
//! Maximises `F(θ) = (1/n) Σ_i ℓ_θ(g_i) − log Z(θ) − (α/2)‖θ‖²` over the
//! non-trivial coefficients (θ(trivial) cancels against log Z and is fixed
//! to 0), with log Z the grid quadrature of the likelihood. F is concave
//! (log Z is convex), so damped Newton with Armijo backtracking converges
//! globally when a maximiser exists: gradient `φ̄_obs − E_w[φ] − αθ`,
//! Hessian `−(Cov_w(φ) + αI)`, `w` the grid softmax. Each iteration
//! O(N·K² + K³).

use crate::error::{Error, Result};
use crate::fourier::{BandLimitedLikelihood, oversampled_resolution};
use crate::group::CompactGroup;
use ndarray::{Array1, Array2, s};

/// Settings of [`fit`].
#[derive(Clone, Debug, PartialEq)]
pub struct FitConfig {
    /// Logit band limit L.
    pub band_limit: usize,
    /// Output band limit L_out ≥ L.
    pub band_limit_out: usize,
    /// Grid resolution (angles); `None` takes [`oversampled_resolution`].
    pub resolution: Option<usize>,
    /// Gaussian prior precision α ≥ 0 on θ (0: MLE).
    pub prior_precision: f64,
    /// Newton iterations at most.
    pub max_iter: usize,
    /// Stop when the gradient norm is below this.
    pub tol: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            band_limit: 4,
            band_limit_out: 4,
            resolution: None,
            prior_precision: 0.0,
            max_iter: 100,
            tol: 1e-9,
        }
    }
}

/// The result of [`fit`].
#[derive(Clone, Debug)]
pub struct Fit<G: CompactGroup> {
    /// The fitted likelihood.
    pub likelihood: BandLimitedLikelihood<G>,
    /// Newton iterations used.
    pub iterations: usize,
    /// Mean log-likelihood `(1/n) Σ log λ(g_i)` at the optimum.
    pub mean_log_likelihood: f64,
    /// Final gradient norm.
    pub grad_norm: f64,
}

/// Fits λ to `observations` by Newton's method (module docs).
///
/// # Errors
/// [`Error::Empty`] (no observations), [`Error::NonFinite`] /
/// [`Error::InvalidElement`] (an observation), [`Error::NegativeWeight`]
/// (α), [`Error::InvalidParameter`] (tol), the band-limit errors of
/// [`BandLimitedLikelihood::new`], [`Error::NotConverged`].
pub fn fit<G: CompactGroup>(
    group: G,
    observations: &[G::Element],
    config: &FitConfig,
) -> Result<Fit<G>> {
    if observations.is_empty() {
        return Err(Error::Empty {
            what: "observations",
        });
    }
    let alpha = config.prior_precision;
    if !(alpha.is_finite() && alpha >= 0.0) {
        return Err(Error::NegativeWeight {
            name: "prior_precision",
            value: alpha,
        });
    }
    if !(config.tol.is_finite() && config.tol > 0.0) {
        return Err(Error::InvalidParameter {
            name: "tol",
            value: config.tol,
            expected: "finite and > 0",
        });
    }
    let (l, l_out) = (config.band_limit, config.band_limit_out);
    let resolution = config
        .resolution
        .unwrap_or_else(|| oversampled_resolution(l_out));
    // Validates band limits and the grid before any work.
    let mut lik = BandLimitedLikelihood::uniform(group.clone(), l, l_out, resolution)?;
    let k = group.feature_len(l);
    let mut obs_mean = Array1::<f64>::zeros(k);
    for g in observations {
        obs_mean += &Array1::from(group.features(g, l)?);
    }
    obs_mean /= observations.len() as f64;
    let grid = group.haar_grid(resolution)?;
    let mut phi = Array2::zeros((grid.len(), k));
    for (i, g) in grid.iter().enumerate() {
        phi.row_mut(i).assign(&Array1::from(group.features(g, l)?));
    }
    let objective = |theta: &Array1<f64>| -> f64 {
        let lg = phi.dot(theta);
        let max = lg.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let log_z = max + lg.mapv(|v| (v - max).exp()).mean().unwrap_or(1.0).ln();
        obs_mean.dot(theta) - log_z - 0.5 * alpha * theta.dot(theta)
    };
    let mut theta = Array1::<f64>::zeros(k);
    let mut f = objective(&theta);
    let mut grad_norm = f64::INFINITY;
    let mut iterations = 0;
    while iterations < config.max_iter {
        let lg = phi.dot(&theta);
        let max = lg.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut w = lg.mapv(|v| (v - max).exp());
        w /= w.sum();
        let mean = phi.t().dot(&w);
        let grad_full = &obs_mean - &mean - &(&theta * alpha);
        let grad = grad_full.slice(s![1..]).to_owned();
        grad_norm = grad.dot(&grad).sqrt();
        if !grad_norm.is_finite() {
            break;
        }
        if grad_norm < config.tol {
            break;
        }
        iterations += 1;
        // Cov_w(φ) on the free coordinates, + αI.
        let free = phi.slice(s![.., 1..]);
        let centred = &free - &mean.slice(s![1..]);
        let weighted = &centred * &w.view().insert_axis(ndarray::Axis(1));
        let mut h = weighted.t().dot(&centred);
        for i in 0..h.nrows() {
            h[[i, i]] += alpha + 1e-14;
        }
        let step = match mlcore::linalg::solve_spd(h.view(), grad.view()) {
            Ok(s) => s,
            Err(_) => break,
        };
        let slope = grad.dot(&step);
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            let mut cand = theta.clone();
            cand.slice_mut(s![1..]).scaled_add(t, &step);
            let fc = objective(&cand);
            if fc.is_finite() && fc >= f + 1e-4 * t * slope {
                theta = cand;
                f = fc;
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    if grad_norm.is_nan() || grad_norm >= config.tol {
        return Err(Error::NotConverged {
            iterations,
            grad_norm,
        });
    }
    lik.set_theta(theta.view())?;
    let mut ll = 0.0;
    for g in observations {
        ll += lik.density(g)?.ln();
    }
    Ok(Fit {
        likelihood: lik,
        iterations,
        mean_log_likelihood: ll / observations.len() as f64,
        grad_norm,
    })
}

/// `n` angles from the von Mises mixture `Σ_c (1/C) vM(μ_c, κ)` (Best &
/// Fisher 1979 rejection sampler, acceptance ≥ 0.66 for every κ), in
/// [0, 2π). O(n) expected.
///
/// # Errors
/// [`Error::Empty`] (no means), [`Error::NonFinite`] (a mean),
/// [`Error::InvalidParameter`] (κ outside [10⁻³, 10⁶]: below, the
/// sampler's constants cancel to 0 in f64; above, they overflow).
pub fn von_mises_mixture(
    means: &[f64],
    kappa: f64,
    n: usize,
    rng: &mut impl rand::Rng,
) -> Result<Vec<f64>> {
    use rand::RngExt;
    if means.is_empty() {
        return Err(Error::Empty { what: "means" });
    }
    crate::error::finite(means.iter().copied(), "means")?;
    if !(1e-3..=1e6).contains(&kappa) {
        return Err(Error::InvalidParameter {
            name: "kappa",
            value: kappa,
            expected: "in [1e-3, 1e6]",
        });
    }
    let tau = 1.0 + (1.0 + 4.0 * kappa * kappa).sqrt();
    let rho = (tau - (2.0 * tau).sqrt()) / (2.0 * kappa);
    let r = (1.0 + rho * rho) / (2.0 * rho);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mu = means[rng.random_range(0..means.len())];
        loop {
            let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
            let z = (std::f64::consts::PI * u1).cos();
            let f = (1.0 + r * z) / (r + z);
            let c = kappa * (r - f);
            if c * (2.0 - c) - u2 > 0.0 || (c / u2).ln() + 1.0 - c >= 0.0 {
                let t = f.clamp(-1.0, 1.0).acos();
                let t = if u3 > 0.5 { t } else { -t };
                out.push((mu + t).rem_euclid(2.0 * std::f64::consts::PI));
                break;
            }
        }
    }
    Ok(out)
}
