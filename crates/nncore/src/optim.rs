//! Optimisers and learning-rate schedules of the training loop.
//!
//! AdamW is candle-nn's [`candle_nn::AdamW`] (decoupled weight decay,
//! Loshchilov & Hutter, 2019, Algorithm 2, with the schedule multiplier
//! folded into the learning rate: `θ ← θ·(1 − η_t λ) − η_t·m̂/(√v̂ + ε)`, the
//! form PyTorch's `AdamW` uses). candle-nn's SGD has no momentum, so
//! [`SgdMomentum`] implements PyTorch's heavy-ball SGD here.

use crate::error::{Error, Result};
use candle_core::backprop::GradStore;
use candle_core::{Tensor, Var};
use candle_nn::Optimizer as _;

/// Which optimiser, with its hyper-parameters (the learning rate is the
/// training configuration's, scaled by its schedule).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptimizerKind {
    /// candle-nn's AdamW. Defaults (PyTorch's): `β₁ = 0.9`, `β₂ = 0.999`,
    /// `ε = 1e-8`, `λ = 0.01`.
    AdamW {
        /// First-moment decay `β₁ ∈ [0, 1)`.
        beta1: f64,
        /// Second-moment decay `β₂ ∈ [0, 1)`.
        beta2: f64,
        /// `ε > 0` added to `√v̂`.
        eps: f64,
        /// Decoupled weight decay `λ ≥ 0`.
        weight_decay: f64,
    },
    /// SGD with momentum ([`SgdMomentum`]).
    Sgd {
        /// Momentum `μ ∈ [0, 1)` (0: plain SGD).
        momentum: f64,
        /// L2 weight decay `λ ≥ 0`, added to the gradient.
        weight_decay: f64,
        /// Nesterov momentum.
        nesterov: bool,
    },
}

impl Default for OptimizerKind {
    fn default() -> Self {
        OptimizerKind::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
        }
    }
}

fn in_unit(value: f64, name: &'static str) -> Result<()> {
    if (0.0..1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected: "in [0, 1)",
        })
    }
}

fn non_negative(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value,
            expected: "a finite value ≥ 0",
        })
    }
}

impl OptimizerKind {
    /// Checks the hyper-parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first one out of range.
    pub fn check(&self) -> Result<()> {
        match *self {
            OptimizerKind::AdamW {
                beta1,
                beta2,
                eps,
                weight_decay,
            } => {
                in_unit(beta1, "beta1")?;
                in_unit(beta2, "beta2")?;
                if !(eps.is_finite() && eps > 0.0) {
                    return Err(Error::InvalidParameter {
                        name: "eps",
                        value: eps,
                        expected: "a finite value > 0",
                    });
                }
                non_negative(weight_decay, "weight decay")
            }
            OptimizerKind::Sgd {
                momentum,
                weight_decay,
                ..
            } => {
                in_unit(momentum, "momentum")?;
                non_negative(weight_decay, "weight decay")
            }
        }
    }

    /// The optimiser over `vars` at learning rate `lr`.
    ///
    /// # Errors
    /// As [`check`](Self::check); [`Error::Candle`].
    pub fn build(&self, vars: Vec<Var>, lr: f64) -> Result<Optimizer> {
        self.check()?;
        Ok(match *self {
            OptimizerKind::AdamW {
                beta1,
                beta2,
                eps,
                weight_decay,
            } => Optimizer::AdamW(candle_nn::AdamW::new(
                vars,
                candle_nn::ParamsAdamW {
                    lr,
                    beta1,
                    beta2,
                    eps,
                    weight_decay,
                },
            )?),
            OptimizerKind::Sgd {
                momentum,
                weight_decay,
                nesterov,
            } => Optimizer::Sgd(SgdMomentum::new(
                vars,
                SgdParams {
                    lr,
                    momentum,
                    weight_decay,
                    nesterov,
                },
            )?),
        })
    }
}

/// A built optimiser: one of the two kinds.
#[derive(Debug)]
pub enum Optimizer {
    /// candle-nn's AdamW.
    AdamW(candle_nn::AdamW),
    /// SGD with momentum.
    Sgd(SgdMomentum),
}

impl Optimizer {
    /// One update of every variable that has a gradient in `grads`.
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn step(&mut self, grads: &GradStore) -> Result<()> {
        match self {
            Optimizer::AdamW(o) => o.step(grads)?,
            Optimizer::Sgd(o) => o.step(grads)?,
        }
        Ok(())
    }

    /// Sets the learning rate of the next steps.
    pub fn set_learning_rate(&mut self, lr: f64) {
        match self {
            Optimizer::AdamW(o) => o.set_learning_rate(lr),
            Optimizer::Sgd(o) => o.set_learning_rate(lr),
        }
    }
}

/// Hyper-parameters of [`SgdMomentum`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgdParams {
    /// Learning rate `η`.
    pub lr: f64,
    /// Momentum `μ`.
    pub momentum: f64,
    /// L2 weight decay `λ`.
    pub weight_decay: f64,
    /// Nesterov momentum.
    pub nesterov: bool,
}

/// SGD with (heavy-ball or Nesterov) momentum, PyTorch's `torch.optim.SGD`
/// without dampening: `g ← ∇ + λθ`; `b ← g` on the first step, else
/// `b ← μb + g`; `d ← g + μb` (Nesterov) or `d ← b`; `θ ← θ − η d`.
/// O(numel) per step.
#[derive(Debug)]
pub struct SgdMomentum {
    vars: Vec<(Var, Option<Tensor>)>,
    params: SgdParams,
}

impl candle_nn::Optimizer for SgdMomentum {
    type Config = SgdParams;

    fn new(vars: Vec<Var>, params: SgdParams) -> candle_core::Result<Self> {
        let vars = vars
            .into_iter()
            .filter(|v| v.dtype().is_float())
            .map(|v| (v, None))
            .collect();
        Ok(Self { vars, params })
    }

    fn step(&mut self, grads: &GradStore) -> candle_core::Result<()> {
        let SgdParams {
            lr,
            momentum,
            weight_decay,
            nesterov,
        } = self.params;
        for (var, buf) in &mut self.vars {
            let Some(g) = grads.get(var) else { continue };
            let mut g = g.clone();
            if weight_decay != 0.0 {
                g = (g + (var.as_tensor() * weight_decay)?)?;
            }
            if momentum != 0.0 {
                let b = match buf.take() {
                    None => g.clone(),
                    Some(b) => ((b * momentum)? + &g)?,
                };
                g = if nesterov {
                    (g + (&b * momentum)?)?
                } else {
                    b.clone()
                };
                *buf = Some(b);
            }
            var.set(&(var.as_tensor() - (g * lr)?)?)?;
        }
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.params.lr
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.params.lr = lr;
    }
}

/// How the learning rate moves over the `T` optimiser steps of a run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Schedule {
    /// `η_t = η` throughout.
    #[default]
    Constant,
    /// Linear warm-up then cosine decay (Loshchilov & Hutter, 2017, without
    /// restarts): `η_t = η·(t + 1)/w` for `t < w`, then
    /// `η_t = η_min + (η − η_min)·½(1 + cos(π (t − w)/(T − w)))` with
    /// `η_min = final_fraction·η`.
    WarmupCosine {
        /// Warm-up steps `w` (0: none).
        warmup_steps: usize,
        /// `η_min / η ∈ [0, 1]`.
        final_fraction: f64,
    },
}

impl Schedule {
    /// Checks the schedule.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `final_fraction ∉ [0, 1]`.
    pub fn check(&self) -> Result<()> {
        match *self {
            Schedule::Constant => Ok(()),
            Schedule::WarmupCosine { final_fraction, .. } => {
                if (0.0..=1.0).contains(&final_fraction) {
                    Ok(())
                } else {
                    Err(Error::InvalidParameter {
                        name: "final fraction of the learning rate",
                        value: final_fraction,
                        expected: "in [0, 1]",
                    })
                }
            }
        }
    }

    /// The learning rate at the 0-based step `t` of `total` steps, for base rate `lr`. O(1).
    pub fn learning_rate(&self, lr: f64, t: usize, total: usize) -> f64 {
        match *self {
            Schedule::Constant => lr,
            Schedule::WarmupCosine {
                warmup_steps,
                final_fraction,
            } => {
                if t < warmup_steps {
                    return lr * (t + 1) as f64 / warmup_steps as f64;
                }
                let span = total.saturating_sub(warmup_steps).max(1) as f64;
                let progress = ((t - warmup_steps) as f64 / span).min(1.0);
                let min = final_fraction * lr;
                min + (lr - min) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
            }
        }
    }
}
