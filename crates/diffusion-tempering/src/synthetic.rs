//! Synthetic problems: data simulated from known parameters, and the
//! Fenrir likelihood and L2 loss on them (the paper's benchmark setups).

use crate::data::{Grid, Observations};
use crate::error::{Error, Result};
use crate::filter::FilterConfig;
use crate::likelihood::FenrirLikelihood;
use crate::model::OdeModel;
use crate::rk::{L2Loss, RkConfig, dopri5};
use ndarray::Array2;
use rand::Rng;

/// Simulates data `y_k = H_obs x(t_k; θ) + ε_k`, `ε_k ~ N(0, σ²I)`, with the
/// reference solution from [`dopri5`] at `rtol = atol = 10⁻¹²`.
///
/// # Errors
/// As [`Observations::new`], bad θ, or a failed reference solve.
pub fn simulate<M: OdeModel, R: Rng + ?Sized>(
    model: &M,
    theta: &[f64],
    t0: f64,
    times: Vec<f64>,
    proj: Array2<f64>,
    noise_var: f64,
    rng: &mut R,
) -> Result<Observations> {
    crate::filter::check_params(model, theta)?;
    if !(noise_var.is_finite() && noise_var > 0.0) {
        return Err(Error::InvalidNoiseVariance(noise_var));
    }
    if times.is_empty() {
        return Err(Error::EmptyData);
    }
    if proj.ncols() != model.dim() {
        return Err(Error::DimensionMismatch {
            what: "columns of the observation projection vs ODE dimension",
            expected: model.dim(),
            got: proj.ncols(),
        });
    }
    let cfg = RkConfig {
        rtol: 1e-12,
        atol: 1e-12,
        max_steps: 10_000_000,
    };
    let xs = dopri5(model, theta, t0, &times, &cfg)?;
    let sd = noise_var.sqrt();
    let k = proj.nrows();
    let z: Array2<f64> = mlcore::sampling::standard_normal((times.len(), k), rng);
    let mut y = Array2::zeros((times.len(), k));
    for (row, x) in xs.iter().enumerate() {
        for o in 0..k {
            let clean: f64 = (0..x.len()).map(|j| proj[[o, j]] * x[j]).sum();
            y[[row, o]] = clean + sd * z[[row, o]];
        }
    }
    Observations::new(times, y, proj, noise_var)
}

/// A synthetic estimation problem as in the paper's setups: data simulated
/// from `truth` at every point of the solver grid (starting at `t₀ =` the
/// first grid time), the Fenrir likelihood on them, and the L2 loss on the
/// same data.
#[derive(Debug, Clone)]
pub struct Synthetic<M> {
    /// The Fenrir likelihood.
    pub lik: FenrirLikelihood<M>,
    /// The L2 loss on the same data (DP5 at [`RkConfig::default`]).
    pub l2: L2Loss<M>,
}

impl<M: OdeModel + Clone> Synthetic<M> {
    /// Simulates the data (components `observed` of the state, noise
    /// variance `noise_var`) and builds both losses.
    ///
    /// # Errors
    /// As [`simulate`], [`Observations::selector`] and
    /// [`FenrirLikelihood::new`].
    pub fn new<R: Rng + ?Sized>(
        model: M,
        truth: &[f64],
        grid: Grid,
        observed: &[usize],
        noise_var: f64,
        config: FilterConfig,
        rng: &mut R,
    ) -> Result<Self> {
        let proj = Observations::selector(observed, model.dim())?;
        let t0 = grid.times()[0];
        let obs = simulate(
            &model,
            truth,
            t0,
            grid.times().to_vec(),
            proj,
            noise_var,
            rng,
        )?;
        let l2 = L2Loss::new(model.clone(), obs.clone(), t0, RkConfig::default())?;
        let lik = FenrirLikelihood::new(model, obs, grid, config)?;
        Ok(Synthetic { lik, l2 })
    }
}
