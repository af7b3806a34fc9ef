//! One training loop for any loss closure.
//!
//! [`fit`] runs `epochs` passes over `n` examples: each epoch shuffles
//! `0..n` with the caller's RNG ([`crate::data::shuffled_indices`]), cuts the
//! order into mini-batches ([`crate::data::batches`]) and, for each batch,
//! sets the scheduled learning rate, evaluates the user's loss closure on the
//! batch's indices, stops with [`Error::NonFiniteLoss`] (naming the step) if
//! the loss is NaN or infinite, back-propagates, clips the global gradient
//! norm, and takes one optimiser step on the trainable parameters of the
//! [`ParamSet`]. After each epoch an optional validation closure is called,
//! the epoch is recorded in the [`History`], and early stopping may end the
//! run (restoring the best parameters if asked).
//!
//! Determinism: the only randomness is the caller's RNG (batch order) and
//! whatever the closure draws from it; candle's CPU kernels are
//! deterministic for a given thread count, and the matrix products split
//! their work across threads by output blocks, so the losses are bit for bit
//! the same across thread counts as well (tested in `tests/determinism.rs`).

use crate::data::{LastBatch, batches, shuffled_indices};
use crate::error::{Error, Result};
use crate::optim::{OptimizerKind, Schedule};
use crate::params::ParamSet;
use candle_core::{DType, Tensor};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::Rng;
use std::io::IsTerminal;
use std::time::Instant;

/// Early stopping on the monitored loss (the validation loss when a
/// validation closure is given, else the epoch's mean training loss).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyStopping {
    /// Stop after this many consecutive epochs without improvement (≥ 1).
    pub patience: usize,
    /// An improvement must lower the best loss by more than this (≥ 0).
    pub min_delta: f64,
    /// Put the parameters of the best epoch back at the end.
    pub restore_best: bool,
}

/// Hyper-parameters of [`fit`]; `Default` is AdamW at `η = 1e-3`, batch 32,
/// 10 epochs, constant rate, no clipping, no early stopping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Passes over the data (≥ 1).
    pub epochs: usize,
    /// Mini-batch size (≥ 1).
    pub batch_size: usize,
    /// The last, smaller batch of an epoch.
    pub last_batch: LastBatch,
    /// Base learning rate `η > 0`.
    pub learning_rate: f64,
    /// The optimiser.
    pub optimizer: OptimizerKind,
    /// The learning-rate schedule over all steps.
    pub schedule: Schedule,
    /// Clip the global gradient norm `‖g‖₂ = √(Σ_params Σ g²)` to this value
    /// (PyTorch's `clip_grad_norm_`: `g ← g·c/(‖g‖ + 1e-6)` when `‖g‖ > c`).
    pub clip_norm: Option<f64>,
    /// Early stopping.
    pub early_stopping: Option<EarlyStopping>,
    /// Show a progress bar (only ever drawn when stderr is a terminal).
    pub progress: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            epochs: 10,
            batch_size: 32,
            last_batch: LastBatch::Keep,
            learning_rate: 1e-3,
            optimizer: OptimizerKind::default(),
            schedule: Schedule::Constant,
            clip_norm: None,
            early_stopping: None,
            progress: true,
        }
    }
}

impl TrainConfig {
    /// Checks every hyper-parameter.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first one out of range.
    pub fn check(&self) -> Result<()> {
        let bad = |name, value: f64, expected| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        if self.epochs == 0 {
            return bad("epochs", 0.0, "at least 1");
        }
        if self.batch_size == 0 {
            return bad("batch size", 0.0, "at least 1");
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad("learning rate", self.learning_rate, "a finite value > 0");
        }
        if let Some(c) = self.clip_norm
            && !(c.is_finite() && c > 0.0)
        {
            return bad("clip norm", c, "a finite value > 0");
        }
        if let Some(es) = self.early_stopping {
            if es.patience == 0 {
                return bad("patience", 0.0, "at least 1");
            }
            if !(es.min_delta.is_finite() && es.min_delta >= 0.0) {
                return bad("min delta", es.min_delta, "a finite value ≥ 0");
            }
        }
        self.optimizer.check()?;
        self.schedule.check()
    }
}

/// What happened in one epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochRecord {
    /// 0-based epoch.
    pub epoch: usize,
    /// Mean of the batch losses.
    pub train_loss: f64,
    /// The validation loss after the epoch, if a closure was given.
    pub val_loss: Option<f64>,
    /// Mean global gradient norm before clipping.
    pub grad_norm: f64,
    /// The learning rate of the epoch's last step.
    pub learning_rate: f64,
    /// Optimiser steps in the epoch.
    pub steps: usize,
    /// Wall-clock seconds of the epoch.
    pub seconds: f64,
}

/// The record of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct History {
    /// One record per epoch run.
    pub epochs: Vec<EpochRecord>,
    /// The loss of every optimiser step, in order.
    pub step_losses: Vec<f64>,
    /// The 0-based epoch with the lowest monitored loss (with early stopping).
    pub best_epoch: Option<usize>,
    /// Whether early stopping ended the run before `epochs`.
    pub stopped_early: bool,
}

/// A validation closure: returns the validation loss after an epoch.
pub type Validate<'a> = &'a mut dyn FnMut() -> candle_core::Result<f64>;

fn scalar(t: &Tensor) -> Result<f64> {
    Ok(t.to_dtype(DType::F64)?.to_scalar::<f64>()?)
}

/// Trains the trainable parameters of `params` on `n` examples.
///
/// `loss` gets the indices of one mini-batch and returns a scalar loss tensor
/// built from the parameters' variables (so that `backward` reaches them);
/// `validate`, if given, returns a validation loss after each epoch. Cost per
/// step: one forward and backward pass of the closure plus O(#parameters).
///
/// # Errors
/// [`Error::Empty`] for `n = 0` or a set with no trainable parameter;
/// [`TrainConfig::check`]'s errors; [`Error::InvalidParameter`] when
/// [`LastBatch::Drop`] leaves no batch; [`Error::NonFiniteLoss`] with the
/// 0-based step and epoch when a loss is NaN or infinite (the parameters are
/// left as they were before that step); [`Error::NonFiniteGradient`]
/// likewise for the gradient; [`Error::Candle`] from the closures (a loss that
/// is not a scalar, for example).
pub fn fit<R, F>(
    params: &ParamSet,
    n: usize,
    config: &TrainConfig,
    rng: &mut R,
    mut loss: F,
    mut validate: Option<Validate<'_>>,
) -> Result<History>
where
    R: Rng + ?Sized,
    F: FnMut(&[usize]) -> candle_core::Result<Tensor>,
{
    config.check()?;
    if n == 0 {
        return Err(Error::Empty { what: "data set" });
    }
    let vars = params.trainable();
    if vars.is_empty() {
        return Err(Error::Empty {
            what: "trainable parameters",
        });
    }
    let per_epoch = match config.last_batch {
        LastBatch::Keep => n.div_ceil(config.batch_size),
        LastBatch::Drop => n / config.batch_size,
    };
    if per_epoch == 0 {
        return Err(Error::InvalidParameter {
            name: "batch size",
            value: config.batch_size as f64,
            expected: "at most the number of examples when the last batch is dropped",
        });
    }
    let total = per_epoch.saturating_mul(config.epochs);
    let mut opt = config.optimizer.build(vars.clone(), config.learning_rate)?;
    let target = if config.progress && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total as u64), target);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} steps, {elapsed} (ETA {eta}) {msg}")
    {
        bar.set_style(style);
    }
    let mut history = History::default();
    let (mut best, mut since_best, mut best_params) = (f64::INFINITY, 0usize, None);
    let mut step = 0usize;
    for epoch in 0..config.epochs {
        let start = Instant::now();
        let order = shuffled_indices(n, rng);
        let (mut loss_sum, mut norm_sum, mut steps, mut lr) = (0.0, 0.0, 0usize, 0.0);
        for batch in batches(&order, config.batch_size, config.last_batch)? {
            lr = config
                .schedule
                .learning_rate(config.learning_rate, step, total);
            opt.set_learning_rate(lr);
            let l = loss(batch)?;
            let value = scalar(&l)?;
            if !value.is_finite() {
                return Err(Error::NonFiniteLoss {
                    which: "training",
                    step,
                    epoch,
                    loss: value,
                });
            }
            let mut grads = l.backward()?;
            let mut sq = 0.0;
            for v in &vars {
                if let Some(g) = grads.remove(v) {
                    // The gradient of a weight used as `wᵀ` (as in `x·wᵀ`) is a
                    // strided view; one copy makes every optimiser operation
                    // run on contiguous memory (exact: values are unchanged).
                    let g = if g.is_contiguous() {
                        g
                    } else {
                        g.contiguous()?
                    };
                    sq += scalar(&g.sqr()?.sum_all()?)?;
                    grads.insert(v, g);
                }
            }
            let norm = sq.sqrt();
            if !norm.is_finite() {
                return Err(Error::NonFiniteGradient { step, epoch, norm });
            }
            if let Some(c) = config.clip_norm
                && norm > c
            {
                let factor = c / (norm + 1e-6);
                for v in &vars {
                    if let Some(g) = grads.remove(v) {
                        grads.insert(v, (g * factor)?);
                    }
                }
            }
            opt.step(&grads)?;
            history.step_losses.push(value);
            loss_sum += value;
            norm_sum += norm;
            steps += 1;
            step += 1;
            bar.inc(1);
        }
        let train_loss = loss_sum / steps as f64;
        let val_loss = match validate.as_mut() {
            Some(f) => {
                let v = f()?;
                if !v.is_finite() {
                    return Err(Error::NonFiniteLoss {
                        which: "validation",
                        step,
                        epoch,
                        loss: v,
                    });
                }
                Some(v)
            }
            None => None,
        };
        bar.set_message(format!("epoch {epoch}: loss {train_loss:.4}"));
        history.epochs.push(EpochRecord {
            epoch,
            train_loss,
            val_loss,
            grad_norm: norm_sum / steps as f64,
            learning_rate: lr,
            steps,
            seconds: start.elapsed().as_secs_f64(),
        });
        if let Some(es) = config.early_stopping {
            let monitored = val_loss.unwrap_or(train_loss);
            if monitored < best - es.min_delta {
                best = monitored;
                since_best = 0;
                history.best_epoch = Some(epoch);
                if es.restore_best {
                    best_params = Some(params.snapshot()?);
                }
            } else {
                since_best += 1;
                if since_best >= es.patience {
                    history.stopped_early = epoch + 1 < config.epochs;
                    break;
                }
            }
        }
    }
    bar.finish_and_clear();
    if let Some(snapshot) = best_params {
        params.restore(&snapshot)?;
    }
    Ok(history)
}
