//! The tempering schedule and the three estimators: diffusion tempering,
//! Fenrir with learned diffusion, and the L2 loss on an RK solution.

use super::bounds::Bounds;
use super::config::LbfgsConfig;
use super::objective::{Core, FenrirAt, FenrirLearnedKappa, Objective, minimize};
use crate::error::{Error, Result};
use crate::likelihood::FenrirLikelihood;
use crate::model::OdeModel;
use crate::rk::L2Loss;
use mlcore::optim::{self, BoxMethod, EarlyStop, LocalFit, StageTol};
use rayon::prelude::*;

/// A diffusion schedule `κ²₀ > κ²₁ > … ` (the tempering stages).
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    kappa2: Vec<f64>,
}

impl Schedule {
    /// The geometric schedule `κ²ᵢ = start · (end/start)^{i/(stages−1)}`,
    /// `i = 0..stages` (the paper's: `10^{20−i}`, `i = 0..=20`).
    ///
    /// # Errors
    /// [`Error::InvalidDiffusion`] for a non-positive/non-finite end point,
    /// [`Error::InvalidParameter`] unless `start > end` and `stages ≥ 2`;
    /// [`Error::Core`] (`TooLarge`) for a stage count beyond the allocation cap.
    pub fn geometric(start: f64, end: f64, stages: usize) -> Result<Self> {
        crate::filter::check_kappa2(start)?;
        crate::filter::check_kappa2(end)?;
        if start <= end {
            return Err(Error::InvalidParameter {
                name: "schedule end",
                value: end,
                expected: "end < start",
            });
        }
        mlcore::check::at_least(stages, 2, "stages", "at least 2")?;
        mlcore::check::alloc_len(&[stages], 8, "tempering schedule (stages)")?;
        let (a, b) = (start.log10(), end.log10());
        let mut kappa2: Vec<f64> = (0..stages)
            .map(|i| 10f64.powf(a + (b - a) * i as f64 / (stages - 1) as f64))
            .collect();
        kappa2[0] = start;
        kappa2[stages - 1] = end;
        Ok(Schedule { kappa2 })
    }

    /// An explicit, strictly decreasing list of diffusions.
    ///
    /// # Errors
    /// [`Error::EmptyData`], [`Error::InvalidDiffusion`],
    /// [`Error::InvalidParameter`] unless strictly decreasing.
    pub fn from_values(kappa2: Vec<f64>) -> Result<Self> {
        if kappa2.is_empty() {
            return Err(Error::EmptyData);
        }
        for (i, &k) in kappa2.iter().enumerate() {
            crate::filter::check_kappa2(k)?;
            if i > 0 && k >= kappa2[i - 1] {
                return Err(Error::InvalidParameter {
                    name: "schedule value",
                    value: k,
                    expected: "strictly decreasing values",
                });
            }
        }
        Ok(Schedule { kappa2 })
    }

    /// The diffusions, stage by stage.
    pub fn kappa2(&self) -> &[f64] {
        &self.kappa2
    }
}

impl Default for Schedule {
    /// `10²⁰ → 1` in 21 stages.
    fn default() -> Self {
        Schedule::geometric(1e20, 1.0, 21).expect("static schedule")
    }
}

/// One tempering stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageReport {
    /// Its diffusion `κ²`.
    pub kappa2: f64,
    /// Loss at the stage's end.
    pub loss: f64,
    /// L-BFGS iterations.
    pub iters: u64,
    /// Parameters at the stage's end.
    pub params: Vec<f64>,
    /// True when the stage failed (loss not finite at its start) and was
    /// skipped, as the official code does on `PosDefException`.
    pub skipped: bool,
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    /// The estimate `θ̂`.
    pub params: Vec<f64>,
    /// Its final loss.
    pub loss: f64,
    /// Total L-BFGS iterations.
    pub iters: u64,
    /// Total loss evaluations (values only, line searches included).
    pub evals: u64,
    /// Total value-and-gradient evaluations.
    pub grad_evals: u64,
    /// Per-stage record (one entry for the baselines).
    pub stages: Vec<StageReport>,
    /// Learned `κ²` (the learned-diffusion baseline only).
    pub kappa2: Option<f64>,
}

impl FitReport {
    /// The report of one L-BFGS run (the baselines): estimate `params`, one
    /// stage at the learned `kappa2` (NaN in the stage record when the loss
    /// has no diffusion).
    fn single_run(params: Vec<f64>, fit: &LocalFit, kappa2: Option<f64>) -> Self {
        FitReport {
            params: params.clone(),
            loss: fit.loss,
            iters: fit.iters,
            evals: fit.evals,
            grad_evals: fit.grad_evals,
            stages: vec![StageReport {
                kappa2: kappa2.unwrap_or(f64::NAN),
                loss: fit.loss,
                iters: fit.iters,
                params,
                skipped: false,
            }],
            kappa2,
        }
    }
}

/// Diffusion tempering: L-BFGS on the Fenrir loss stage by stage along a
/// decreasing `κ²` schedule, each stage warm-started at the previous
/// stage's estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct TemperedFit {
    /// The diffusion schedule (default `10²⁰ → 1`, 21 stages).
    pub schedule: Schedule,
    /// L-BFGS settings of the intermediate stages (default: abs/rel
    /// `10⁻⁶/10⁻³` per run, restarted in rounds until the stage has
    /// converged; see [`ROUNDS`](crate::optimize::ROUNDS)).
    pub stage: LbfgsConfig,
    /// L-BFGS settings of the last stage (default: abs/rel `10⁻⁹/10⁻⁶`,
    /// with restart rounds).
    pub last: LbfgsConfig,
}

impl Default for TemperedFit {
    fn default() -> Self {
        TemperedFit {
            schedule: Schedule::default(),
            stage: LbfgsConfig {
                tol: StageTol {
                    abs: 1e-6,
                    rel: 1e-3,
                },
                ..LbfgsConfig::default()
            }
            .with_rounds(),
            last: LbfgsConfig::default().with_rounds(),
        }
    }
}

impl TemperedFit {
    /// The official scripts' optimiser: [`LbfgsConfig::fminbox`] with
    /// `reltol` `10⁻³` at the intermediate stages and `10⁻⁶` at the last,
    /// the default schedule `10²⁰ → 1`.
    pub fn official() -> Self {
        TemperedFit {
            schedule: Schedule::default(),
            stage: LbfgsConfig::fminbox(1e-3),
            last: LbfgsConfig::fminbox(1e-6),
        }
    }

    /// "ours+": intermediate tolerances `10⁻¹` and the early stop (three
    /// consecutive loss changes `< 0.1`) in every stage but the last, which
    /// keeps `10⁻⁹/10⁻⁶` (as the official `low_tol` scripts).
    pub fn plus() -> Self {
        TemperedFit {
            schedule: Schedule::default(),
            stage: LbfgsConfig {
                tol: StageTol { abs: 0.1, rel: 0.1 },
                early_stop: Some(EarlyStop::default()),
                ..LbfgsConfig::default()
            },
            last: LbfgsConfig::default(),
        }
    }

    /// "ours+" with the official optimiser: [`LbfgsConfig::fminbox`] with
    /// `reltol = 10⁻¹` and the early stop at the intermediate stages,
    /// `10⁻⁶` and no early stop at the last.
    pub fn plus_official() -> Self {
        TemperedFit {
            schedule: Schedule::default(),
            stage: LbfgsConfig {
                early_stop: Some(EarlyStop::default()),
                ..LbfgsConfig::fminbox(1e-1)
            },
            last: LbfgsConfig::fminbox(1e-6),
        }
    }

    /// Runs the stages from `init` (inside `bounds`).
    ///
    /// The first L-BFGS step of the first stage has length `max_step`
    /// (unconstrained coordinates); a later stage's first step has the
    /// length the previous stage moved (clamped to `[10⁻³, max_step]`), since
    /// the minimiser shifts little between neighbouring diffusions — a choice
    /// where the paper is silent that saves most line-search evaluations.
    ///
    /// # Errors
    /// [`Error::ParamOutOfBounds`] / [`Error::DimensionMismatch`] for a bad
    /// start, [`Error::InvalidParameter`] for bad settings, the
    /// likelihood's error when even the last stage cannot be evaluated.
    pub fn run<M: OdeModel>(
        &self,
        lik: &FenrirLikelihood<M>,
        bounds: &Bounds,
        init: &[f64],
    ) -> Result<FitReport> {
        self.stage.check()?;
        self.last.check()?;
        bounds.check(init)?;
        let mut theta = init.to_vec();
        let mut stages = Vec::new();
        let mut iters = 0;
        let (mut evals, mut grad_evals) = (0, 0);
        let ks = self.schedule.kappa2();
        let mut last_err = None;
        let mut first_step = self.stage.max_step;
        for (i, &k) in ks.iter().enumerate() {
            let cfg = if i + 1 == ks.len() {
                &self.last
            } else {
                &self.stage
            };
            let obj = FenrirAt { lik, kappa2: k };
            // Each stage starts inside the box by at least `NUDGE` of its
            // width, as the official `bump_if_near_bounds` does.
            let th = bounds.bump(&theta);
            if let Err(e) = obj.value(&th) {
                stages.push(StageReport {
                    kappa2: k,
                    loss: f64::NAN,
                    iters: 0,
                    params: th,
                    skipped: true,
                });
                last_err = Some(e);
                continue;
            }
            last_err = None;
            let fit = match cfg.box_method {
                BoxMethod::Logistic => {
                    let u = bounds.to_unconstrained(&th);
                    let (fit, u_new) = optim::minimize_logit(
                        &Core(&obj),
                        bounds.as_core(),
                        u.clone(),
                        &cfg.core(),
                        Some(first_step),
                    )?;
                    first_step = optim::warm_step(&u, &u_new, cfg.max_step);
                    fit
                }
                BoxMethod::Barrier => {
                    optim::minimize(&Core(&obj), bounds.as_core(), &th, &cfg.core())?
                }
            };
            iters += fit.iters;
            evals += fit.evals + 1;
            grad_evals += fit.grad_evals;
            theta.clone_from(&fit.params);
            stages.push(StageReport {
                kappa2: k,
                loss: fit.loss,
                iters: fit.iters,
                params: fit.params,
                skipped: false,
            });
        }
        if let Some(e) = last_err {
            return Err(e);
        }
        let last = stages.last().ok_or(Error::EmptyData)?;
        Ok(FitReport {
            params: last.params.clone(),
            loss: last.loss,
            iters,
            evals,
            grad_evals,
            stages,
            kappa2: None,
        })
    }
}

/// The "Fenrir" baseline: `(θ, log₁₀ κ²)` optimised jointly, `κ²`
/// initialised at `10²⁰` and bounded in `[10⁻²⁰, 10⁵⁰]`.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedDiffusionFit {
    /// Initial `κ²`.
    pub kappa2_init: f64,
    /// Bounds of `log₁₀ κ²`.
    pub log10_kappa2_bounds: (f64, f64),
    /// L-BFGS settings.
    pub lbfgs: LbfgsConfig,
}

impl Default for LearnedDiffusionFit {
    fn default() -> Self {
        LearnedDiffusionFit {
            kappa2_init: 1e20,
            log10_kappa2_bounds: (-20.0, 50.0),
            lbfgs: LbfgsConfig::default().with_rounds(),
        }
    }
}

impl LearnedDiffusionFit {
    /// Runs the joint fit from `init`.
    ///
    /// # Errors
    /// As [`TemperedFit::run`]; [`Error::InvalidDiffusion`] for a bad
    /// initial `κ²` or bounds that do not contain it.
    pub fn run<M: OdeModel>(
        &self,
        lik: &FenrirLikelihood<M>,
        bounds: &Bounds,
        init: &[f64],
    ) -> Result<FitReport> {
        crate::filter::check_kappa2(self.kappa2_init)?;
        let l0 = self.kappa2_init.log10();
        let (a, b) = self.log10_kappa2_bounds;
        if !(a < l0 && l0 < b) {
            return Err(Error::InvalidDiffusion(self.kappa2_init));
        }
        bounds.check(init)?;
        let mut lo = bounds.lo().to_vec();
        let mut hi = bounds.hi().to_vec();
        lo.push(a);
        hi.push(b);
        let ext = Bounds::new(lo, hi)?;
        let mut start = init.to_vec();
        start.push(l0);
        let fit = minimize(&FenrirLearnedKappa { lik }, &ext, &start, &self.lbfgs)?;
        let mut p = fit.params.clone();
        let l = p.pop().unwrap_or(l0);
        Ok(FitReport::single_run(p, &fit, Some(10f64.powf(l))))
    }
}

/// The "RK" baseline: L-BFGS on the L2 loss of an adaptive RK solution.
#[derive(Debug, Clone, PartialEq)]
pub struct L2Fit {
    /// L-BFGS settings (default: [`LbfgsConfig::default`] with restart
    /// rounds, as `Fminbox` in the official scripts).
    pub lbfgs: LbfgsConfig,
}

impl Default for L2Fit {
    fn default() -> Self {
        L2Fit {
            lbfgs: LbfgsConfig::default().with_rounds(),
        }
    }
}

impl L2Fit {
    /// The official scripts' optimiser: [`LbfgsConfig::fminbox`] with
    /// `reltol = 10⁻⁶` (their default). Pair it with
    /// [`crate::rk::L2Form::MeanSquared`] for the official loss scale.
    pub fn official() -> Self {
        L2Fit {
            lbfgs: LbfgsConfig::fminbox(1e-6),
        }
    }

    /// Runs the fit from `init`.
    ///
    /// # Errors
    /// As [`minimize`].
    pub fn run<M: OdeModel>(
        &self,
        loss: &L2Loss<M>,
        bounds: &Bounds,
        init: &[f64],
    ) -> Result<FitReport> {
        let fit = minimize(loss, bounds, init, &self.lbfgs)?;
        Ok(FitReport::single_run(fit.params.clone(), &fit, None))
    }
}

/// Runs `fit` from every start on rayon's pool; the results are in start
/// order and identical to a serial run.
pub fn fit_many<F>(inits: &[Vec<f64>], fit: F) -> Vec<Result<FitReport>>
where
    F: Fn(&[f64]) -> Result<FitReport> + Sync,
{
    inits.par_iter().map(|x| fit(x)).collect()
}
