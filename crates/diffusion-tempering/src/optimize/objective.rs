//! The losses the estimators minimise ([`Objective`]) and one L-BFGS run
//! over the box ([`minimize`]).

use super::bounds::Bounds;
use super::config::LbfgsConfig;
use crate::error::{Error, Result};
use crate::likelihood::FenrirLikelihood;
use crate::model::OdeModel;
use crate::rk::L2Loss;
use mlcore::optim::{self, LocalFit};

/// A loss to minimise over a box: value and gradient.
pub trait Objective: Sync {
    /// `ℓ(θ)`.
    ///
    /// # Errors
    /// Whatever the loss reports for `θ`.
    fn value(&self, theta: &[f64]) -> Result<f64>;
    /// `(ℓ(θ), ∇ℓ(θ))`.
    ///
    /// # Errors
    /// Whatever the loss reports for `θ`.
    fn value_grad(&self, theta: &[f64]) -> Result<(f64, Vec<f64>)>;
}

/// The Fenrir loss at a fixed diffusion `κ²`.
#[derive(Debug, Clone, Copy)]
pub struct FenrirAt<'a, M> {
    /// The likelihood.
    pub lik: &'a FenrirLikelihood<M>,
    /// The diffusion `κ²`.
    pub kappa2: f64,
}

impl<M: OdeModel> Objective for FenrirAt<'_, M> {
    fn value(&self, theta: &[f64]) -> Result<f64> {
        self.lik.nll(theta, self.kappa2)
    }
    fn value_grad(&self, theta: &[f64]) -> Result<(f64, Vec<f64>)> {
        self.lik.nll_grad(theta, self.kappa2)
    }
}

impl<M: OdeModel> Objective for L2Loss<M> {
    fn value(&self, theta: &[f64]) -> Result<f64> {
        self.nll(theta)
    }
    fn value_grad(&self, theta: &[f64]) -> Result<(f64, Vec<f64>)> {
        self.nll_grad(theta)
    }
}

/// The Fenrir loss over `(θ, log₁₀ κ²)` (the learned-diffusion baseline).
#[derive(Debug, Clone, Copy)]
pub struct FenrirLearnedKappa<'a, M> {
    /// The likelihood.
    pub lik: &'a FenrirLikelihood<M>,
}

impl<M: OdeModel> Objective for FenrirLearnedKappa<'_, M> {
    fn value(&self, theta: &[f64]) -> Result<f64> {
        let (p, l) = theta.split_at(theta.len().saturating_sub(1));
        self.lik.nll(p, 10f64.powf(l[0]))
    }
    fn value_grad(&self, theta: &[f64]) -> Result<(f64, Vec<f64>)> {
        let (p, l) = theta.split_at(theta.len().saturating_sub(1));
        let (v, mut g, gk) = self.lik.nll_grad_log_kappa2(p, 10f64.powf(l[0]))?;
        g.push(gk * std::f64::consts::LN_10);
        Ok((v, g))
    }
}

/// A crate [`Objective`] seen as an [`mlcore::optim::Objective`] (its
/// gradient is the one of [`Objective::value_grad`]).
pub(crate) struct Core<'a, O: ?Sized>(pub(crate) &'a O);

impl<O: Objective + ?Sized> optim::Objective for Core<'_, O> {
    type Error = Error;
    fn value(&self, x: &[f64]) -> Result<f64> {
        self.0.value(x)
    }
    fn value_grad(&self, x: &[f64]) -> Result<(f64, Vec<f64>)> {
        self.0.value_grad(x)
    }
}

/// Minimises `obj` over `bounds` from `init` with L-BFGS, the box handled
/// as `cfg.box_method` says: [`BoxMethod::Logistic`](super::BoxMethod::Logistic) (argmin's L-BFGS with
/// a backtracking Armijo search in `u = logit((θ − lo)/(hi − lo))`, starts
/// near a bound nudged in by `10⁻⁴` of the width) or
/// [`BoxMethod::Barrier`](super::BoxMethod::Barrier) (Optim.jl's `Fminbox`, as the official scripts).
/// A point where the loss fails (e.g. NaN in the ODE) counts as `+∞` for
/// the line search.
///
/// # Errors
/// [`Error::ParamOutOfBounds`] / [`Error::DimensionMismatch`] for a start
/// outside the box; [`Error::InvalidParameter`] for bad settings;
/// the objective's error at the start (its loss must be finite there).
pub fn minimize<O: Objective>(
    obj: &O,
    bounds: &Bounds,
    init: &[f64],
    cfg: &LbfgsConfig,
) -> Result<LocalFit> {
    cfg.check()?;
    bounds.check(init)?;
    optim::minimize(&Core(obj), bounds.as_core(), init, &cfg.core())
}
