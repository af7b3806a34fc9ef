//! The Fenrir data likelihood (Tronarp, Bosch & Hennig 2022) and its
//! parameter gradient by forward-mode dual numbers.

use crate::data::{Grid, Observations};
use crate::error::{Error, Result};
use crate::filter::{
    FilterConfig, Linearization, backward_step, check_kappa2, check_params, forward,
};
use crate::model::{OdeModel, Scalar};
use crate::prior::Iwp;
use crate::sqrt::{Mat, kalman_update};
use num_dual::Dual64;

/// The Fenrir negative log marginal likelihood of noisy data given the ODE
/// filter, `ℓ(θ, κ²) = −log p(y_{1:K} | z_{1:N} = 0, θ, κ²)`.
///
/// Algorithm (exact for linear ODEs): run the square-root ODE filter
/// forward, keeping the backward kernels
/// `X_n | X_{n+1} ~ N(G_n X_{n+1} + b_n, Λ_n)`; then from the last filter
/// marginal go backwards in time: at each data time add
/// `−log N(y_k; C m, C P Cᵀ + σ²I)` with `C = H_obs E₀`, condition on
/// `y_k` (square-root Kalman update) and marginalise through the kernel.
/// The uniform prior on θ adds a constant and is left out.
///
/// Cost of one value: `O(N D³)` (`D = d(q+1)`); the gradient runs one pass
/// in `Dual64` per parameter (EK1 Jacobians in `Dual<Dual64>`).
#[derive(Debug, Clone)]
pub struct FenrirLikelihood<M> {
    model: M,
    config: FilterConfig,
    prior: Iwp,
    grid: Grid,
    obs: Observations,
    data_at: Vec<Option<usize>>,
}

impl<M: OdeModel> FenrirLikelihood<M> {
    /// Binds a model, its data and the solver grid (every data time must be
    /// a grid point).
    ///
    /// # Errors
    /// [`Error::InvalidOrder`]; [`Error::DimensionMismatch`] when `H_obs`
    /// does not have `d` columns; [`Error::TimeNotOnGrid`] for a data time
    /// off the grid.
    pub fn new(model: M, obs: Observations, grid: Grid, config: FilterConfig) -> Result<Self> {
        let prior = config.prior()?;
        if obs.proj().ncols() != model.dim() {
            return Err(Error::DimensionMismatch {
                what: "columns of the observation projection vs ODE dimension",
                expected: model.dim(),
                got: obs.proj().ncols(),
            });
        }
        let mut data_at = vec![None; grid.len()];
        for (k, &t) in obs.times().iter().enumerate() {
            let i = grid.index_of(t).ok_or(Error::TimeNotOnGrid { t })?;
            data_at[i] = Some(k);
        }
        Ok(FenrirLikelihood {
            model,
            config,
            prior,
            grid,
            obs,
            data_at,
        })
    }

    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }
    /// The data.
    pub fn observations(&self) -> &Observations {
        &self.obs
    }
    /// The solver grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    /// The filter settings.
    pub fn config(&self) -> FilterConfig {
        self.config
    }

    fn generic<T: Scalar>(&self, p: &[T], sqrt_k: T) -> Result<T> {
        fenrir_nll_generic(
            &self.model,
            &self.prior,
            self.config.linearization,
            self.grid.times(),
            &self.data_at,
            &self.obs,
            p,
            sqrt_k,
        )
    }

    /// `ℓ(θ, κ²)`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFiniteInput`] for bad θ,
    /// [`Error::InvalidDiffusion`], [`Error::NonFinite`] (naming the step)
    /// when `f` returns NaN/∞.
    ///
    /// Far beyond the tempering schedule's largest κ² (1e20), e.g. at κ²
    /// near `f64::MAX`, the recursion can overflow: that is
    /// [`Error::NonFinite`] at the last grid time, never a NaN or ∞ value.
    pub fn nll(&self, p: &[f64], kappa2: f64) -> Result<f64> {
        check_params(&self.model, p)?;
        check_kappa2(kappa2)?;
        let v = self.generic(p, kappa2.sqrt())?;
        self.finite(&[v]).map(|_| v)
    }

    /// `Ok` when every value is finite, else [`Error::NonFinite`] at the
    /// last grid time.
    fn finite(&self, values: &[f64]) -> Result<()> {
        if values.iter().all(|v| v.is_finite()) {
            return Ok(());
        }
        let times = self.grid.times();
        Err(Error::NonFinite {
            step: times.len().saturating_sub(1),
            t: times.last().copied().unwrap_or(f64::NAN),
        })
    }

    /// `(ℓ, ∇_θ ℓ)` by forward-mode duals (one pass per parameter).
    ///
    /// # Errors
    /// As [`FenrirLikelihood::nll`].
    pub fn nll_grad(&self, p: &[f64], kappa2: f64) -> Result<(f64, Vec<f64>)> {
        check_params(&self.model, p)?;
        check_kappa2(kappa2)?;
        if p.is_empty() {
            let v = self.generic(p, kappa2.sqrt())?;
            return self.finite(&[v]).map(|_| (v, Vec::new()));
        }
        let sk = Dual64::from_re(kappa2.sqrt());
        let mut grad = Vec::with_capacity(p.len());
        let mut value = 0.0;
        for j in 0..p.len() {
            let pd: Vec<Dual64> = p
                .iter()
                .enumerate()
                .map(|(i, &v)| Dual64::new(v, if i == j { 1.0 } else { 0.0 }))
                .collect();
            let l = self.generic(&pd, sk)?;
            value = l.re;
            grad.push(l.eps);
        }
        self.finite(&[value])?;
        self.finite(&grad)?;
        Ok((value, grad))
    }

    /// `(ℓ, ∇_θ ℓ, ∂ℓ/∂ log κ²)`, for learning the diffusion jointly (the
    /// "Fenrir" baseline). One more dual pass than [`Self::nll_grad`].
    ///
    /// # Errors
    /// As [`FenrirLikelihood::nll`].
    pub fn nll_grad_log_kappa2(&self, p: &[f64], kappa2: f64) -> Result<(f64, Vec<f64>, f64)> {
        let (v, g) = self.nll_grad(p, kappa2)?;
        let s = kappa2.sqrt();
        let pd: Vec<Dual64> = p.iter().map(|&v| Dual64::from_re(v)).collect();
        // d√κ²/d log κ² = √κ²/2
        let l = self.generic(&pd, Dual64::new(s, 0.5 * s))?;
        self.finite(&[l.eps])?;
        Ok((v, g, l.eps))
    }
}

/// The Fenrir recursion, generic over the scalar (see [`FenrirLikelihood`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fenrir_nll_generic<M: OdeModel, T: Scalar>(
    model: &M,
    prior: &Iwp,
    lin: Linearization,
    times: &[f64],
    data_at: &[Option<usize>],
    obs: &Observations,
    p: &[T],
    sqrt_k: T,
) -> Result<T> {
    let fw = forward(model, prior, lin, times, p, sqrt_k, false)?;
    let d = model.dim();
    let nd = fw.m_last.len();
    let proj = obs.proj();
    let k = proj.nrows();
    let mut c = Mat::zeros(k, nd);
    for o in 0..k {
        for i in 0..d {
            *c.at_mut(o, i) = T::from(proj[[o, i]]);
        }
    }
    let sigma = T::from(obs.noise_var().sqrt());
    let values = obs.values();
    let log2pi = (2.0 * std::f64::consts::PI).ln();
    let mut nll = T::from(0.0);
    let mut m = fw.m_last;
    let mut r = fw.r_last;
    let n = times.len();
    for i in (0..n).rev() {
        if let Some(row) = data_at[i] {
            let e: Vec<T> = (0..k)
                .map(|o| {
                    let mut acc = T::from(values[[row, o]]);
                    for j in 0..d {
                        acc -= m[j] * proj[[o, j]];
                    }
                    acc
                })
                .collect();
            let (hq, ld) = kalman_update(&mut m, &mut r, &c, sigma, &e)
                .ok_or(Error::NotPositiveDefinite { step: i })?;
            nll += hq + ld + 0.5 * k as f64 * log2pi;
        }
        if i > 0 {
            backward_step(&fw.kernels[i - 1], &mut m, &mut r);
        }
    }
    if !nll.re().is_finite() {
        return Err(Error::NonFinite {
            step: 0,
            t: times[0],
        });
    }
    Ok(nll)
}
