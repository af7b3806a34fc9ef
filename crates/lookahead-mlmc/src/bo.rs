//! A Bayesian-optimisation loop: one-step EI, two-step look-ahead by plain
//! SAA (nested MC), or two- or three-step look-ahead by MLMC.
//!
//! Protocol (paper): uniform initial design, a MAP-refitted GP every
//! iteration, noise 1e-4. Choices where the paper is silent (documented):
//! inputs are mapped to `[0, 1]ᵈ` and targets standardised before each fit
//! (BoTorch 0.9's priors assume unit-scale inputs).

use crate::acq::ei_at;
use crate::cost::Work;
use crate::error::{Error, Result};
use crate::gp::{FitConfig, fit_map};
use crate::lookahead::{
    InnerValue, MlmcLookahead, SaaConfig, maximize_two_step, mlmc_three_step_argmax,
    mlmc_two_step_argmax,
};
use crate::optim::{Bounds, FnObjective, best_of, maximize_multistart, top_k};
use crate::testfns::TestFunction;
use mlcore::stats::Welford;
use ndarray::{Array1, Array2};
use rand::Rng;
use std::time::Instant;

/// The acquisition maximised each iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Acquisition {
    /// One-step analytic EI.
    Ei,
    /// Two-step look-ahead with `N` fantasies and `M` inner samples (plain SAA / nested MC).
    TwoStep {
        /// Last-stage value.
        inner: InnerValue,
        /// Outer fantasies `N`.
        n: usize,
        /// Inner samples `M`.
        m: usize,
    },
    /// Two-step look-ahead by MLMC at RMSE `ε` ([`mlmc_two_step_argmax`]).
    TwoStepMlmc {
        /// Target RMSE `ε`.
        eps: f64,
        /// MLMC settings.
        spec: MlmcLookahead,
    },
    /// Three-step 1+1+1-EI look-ahead by MLMC at RMSE `ε`
    /// ([`mlmc_three_step_argmax`]; paper ε = 0.2).
    ThreeStepMlmc {
        /// Target RMSE `ε`.
        eps: f64,
        /// MLMC settings (`inner` is not used).
        spec: MlmcLookahead,
    },
}

/// Settings of [`run_bo`].
#[derive(Debug, Clone, PartialEq)]
pub struct BoConfig {
    /// Initial uniform points (paper: `2d`).
    pub n_init: usize,
    /// BO iterations (paper: 30).
    pub iterations: usize,
    /// The acquisition.
    pub acquisition: Acquisition,
    /// GP fit.
    pub fit: FitConfig,
    /// Solver settings for EI and the plain two-step SAA.
    pub saa: SaaConfig,
}

impl Default for BoConfig {
    fn default() -> Self {
        BoConfig {
            n_init: 2,
            iterations: 30,
            acquisition: Acquisition::Ei,
            fit: FitConfig::default(),
            saa: SaaConfig::default(),
        }
    }
}

/// The history of a BO run.
#[derive(Debug, Clone, PartialEq)]
pub struct BoTrace {
    /// Evaluated points (original scale).
    pub x: Vec<Vec<f64>>,
    /// Their values.
    pub y: Vec<f64>,
    /// Best value after the initial design and after each iteration.
    pub best: Vec<f64>,
    /// Wall seconds spent on fitting and acquisition per iteration.
    pub seconds: Vec<f64>,
    /// Work counted by [`crate::cost`] for fitting and acquisition per iteration.
    pub work: Vec<Work>,
}

impl BoTrace {
    /// The simple regret `f* − best` after each iteration.
    pub fn regret(&self, optimum: f64) -> Vec<f64> {
        self.best.iter().map(|b| optimum - b).collect()
    }
}

/// Runs BO on `f` (maximisation). Cost per iteration: one MAP fit plus the
/// acquisition's maximisation.
///
/// # Errors
/// [`Error::InvalidBatchSize`] for `n_init = 0`; [`Error::InvalidTolerance`]
/// for a bad MLMC ε; GP and solver errors.
pub fn run_bo<R: Rng + ?Sized>(f: &TestFunction, cfg: &BoConfig, rng: &mut R) -> Result<BoTrace> {
    if cfg.n_init == 0 {
        return Err(Error::InvalidBatchSize { what: "n_init" });
    }
    if let Acquisition::TwoStepMlmc { eps, .. } | Acquisition::ThreeStepMlmc { eps, .. } =
        cfg.acquisition
        && !(eps.is_finite() && eps > 0.0)
    {
        return Err(Error::InvalidTolerance { epsilon: eps });
    }
    let d = f.dim();
    let unit = Bounds::unit(d)?;
    let (lo, hi) = (f.bounds.lower().to_vec(), f.bounds.upper().to_vec());
    let to_x = |u: &[f64]| -> Vec<f64> {
        u.iter()
            .zip(lo.iter().zip(&hi))
            .map(|(u, (l, h))| l + (h - l) * u)
            .collect()
    };
    let mut us: Vec<Vec<f64>> = (0..cfg.n_init).map(|_| unit.sample(rng)).collect();
    let mut ys: Vec<f64> = us.iter().map(|u| f.eval(&to_x(u))).collect::<Result<_>>()?;
    let mut best = vec![ys.iter().copied().fold(f64::NEG_INFINITY, f64::max)];
    let mut seconds = Vec::new();
    let mut work = Vec::new();
    for _ in 0..cfg.iterations {
        let t = Instant::now();
        let w0 = crate::cost::total();
        let n = ys.len();
        let moments: Welford = ys.iter().copied().collect();
        let mean = moments.mean();
        let sd = if n > 1 { moments.std_dev() } else { 1.0 };
        let sd = if sd > 1e-12 { sd } else { 1.0 };
        let xa = Array2::from_shape_vec((n, d), us.concat()).expect("n × d");
        let ya = Array1::from_iter(ys.iter().map(|y| (y - mean) / sd));
        let gp = fit_map(xa.view(), ya.view(), &cfg.fit)?;
        let next = match cfg.acquisition {
            Acquisition::Ei => {
                let bf = gp.best_observed();
                let obj = FnObjective(|u: &[f64]| ei_at(&gp, u, bf));
                let raw: Vec<Vec<f64>> =
                    (0..cfg.saa.raw_samples).map(|_| unit.sample(rng)).collect();
                let starts = top_k(&raw, |u| ei_at(&gp, u, bf), cfg.saa.restarts);
                let opts = maximize_multistart(&obj, &unit, &starts, &cfg.saa.lbfgs)?;
                best_of(&opts).expect("restarts").x.clone()
            }
            Acquisition::TwoStep { inner, n, m } => {
                maximize_two_step(&gp, &unit, n, m, inner, &cfg.saa, rng)?.x
            }
            Acquisition::TwoStepMlmc { eps, spec } => {
                mlmc_two_step_argmax(&gp, &unit, eps, &spec, rng)?.x
            }
            Acquisition::ThreeStepMlmc { eps, spec } => {
                mlmc_three_step_argmax(&gp, &unit, eps, &spec, rng)?.x
            }
        };
        seconds.push(t.elapsed().as_secs_f64());
        work.push(crate::cost::total() - w0);
        let yn = f.eval(&to_x(&next))?;
        us.push(next);
        ys.push(yn);
        best.push(best.last().copied().unwrap_or(yn).max(yn));
    }
    Ok(BoTrace {
        x: us.iter().map(|u| to_x(u)).collect(),
        y: ys,
        best,
        seconds,
        work,
    })
}
