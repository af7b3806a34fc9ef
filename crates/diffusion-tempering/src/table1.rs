//! Table 1 of the paper as code: its systems with their setups and the
//! paper's convergence rates, the three estimators with the official
//! optimiser, and one row's multi-start comparison over the same starts.
//!
//! Protocol (the official scripts): data simulated from the true parameters
//! with σ² = 0.1 at every point of the solver grid (dt = 0.01), starts drawn
//! uniformly from the prior box after the data, every estimator run from
//! every start; a start *converged* when the estimate's relative parameter
//! RMSE is below 5 % ([`metrics::converged`]). Optimiser: Optim.jl's
//! `Fminbox(LBFGS(BackTracking()))` ([`TemperedFit::official`],
//! [`L2Fit::official`], learned κ² with [`LbfgsConfig::fminbox`]); the
//! tempering schedule `10²⁰ → 1` in 21 stages.

use crate::data::Grid;
use crate::error::Result;
use crate::filter::FilterConfig;
use crate::metrics;
use crate::model::OdeModel;
use crate::models::{HodgkinHuxley, LotkaVolterra, Pendulum, TwoCompartmentHodgkinHuxley};
use crate::optimize::{
    Bounds, FitReport, L2Fit, LbfgsConfig, LearnedDiffusionFit, Schedule, TemperedFit, fit_many,
};
use crate::rk::L2Form;
use crate::synthetic::Synthetic;
use mlcore::sampling::seeded;

/// The observation noise variance of every setup.
pub const NOISE_VAR: f64 = 0.1;
/// Convergence: relative parameter RMSE below 5 %.
pub const TOL: f64 = 0.05;

/// A row of Table 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// Pendulum, length `l`.
    Pendulum,
    /// Lotka–Volterra, `(α, β)`.
    LotkaVolterra2,
    /// Lotka–Volterra, `(α, β, γ, δ)`.
    LotkaVolterra4,
    /// One-compartment Hodgkin–Huxley with the first 1, 2 or 3 of
    /// `(g_Na, g_K, g_leak)` fitted.
    HodgkinHuxley(usize),
    /// Two-compartment Hodgkin–Huxley with 4 or 6 conductances fitted.
    TwoCompartment(usize),
}

/// The paper's Table 1 values of a row: convergence rates of RK (L2),
/// Fenrir with learned κ², and tempering, over 100 starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperRates {
    /// "RK": L2 on a classical solution.
    pub rk: f64,
    /// "Fenrir": learned κ².
    pub fenrir: f64,
    /// Diffusion tempering.
    pub tempering: f64,
}

impl System {
    /// The rows this crate models (the reduced Pospischil row, 0.00 for
    /// every method in the paper, is not modelled).
    pub const ALL: [System; 8] = [
        System::Pendulum,
        System::LotkaVolterra2,
        System::LotkaVolterra4,
        System::HodgkinHuxley(1),
        System::HodgkinHuxley(2),
        System::HodgkinHuxley(3),
        System::TwoCompartment(4),
        System::TwoCompartment(6),
    ];

    /// A short name.
    pub fn name(&self) -> String {
        match self {
            System::Pendulum => "pendulum".into(),
            System::LotkaVolterra2 => "LV (α, β)".into(),
            System::LotkaVolterra4 => "LV (α, β, γ, δ)".into(),
            System::HodgkinHuxley(n) => format!("HH 1-comp, {n} conductance(s)"),
            System::TwoCompartment(n) => format!("HH 2-comp, {n} conductances"),
        }
    }

    /// Table 1's convergence rates (`None` for a row the paper does not have).
    pub fn paper(&self) -> Option<PaperRates> {
        let r = |rk, fenrir, tempering| {
            Some(PaperRates {
                rk,
                fenrir,
                tempering,
            })
        };
        match self {
            System::Pendulum => r(0.32, 0.99, 1.00),
            System::LotkaVolterra2 => r(0.24, 0.20, 0.77),
            System::LotkaVolterra4 => r(0.24, 0.23, 0.43),
            System::HodgkinHuxley(1) => r(0.57, 0.68, 1.00),
            System::HodgkinHuxley(2) => r(0.72, 0.75, 1.00),
            System::HodgkinHuxley(3) => r(0.03, 0.51, 0.99),
            System::TwoCompartment(4) => r(0.50, 0.68, 1.00),
            System::TwoCompartment(6) => r(0.00, 0.50, 0.88),
            _ => None,
        }
    }

    /// `(t₁, observed state components)` of the official setup (all start
    /// at `t₀ = 0`; data and solver step 0.01).
    pub fn setup(&self) -> (f64, Vec<usize>) {
        match self {
            System::Pendulum => (10.0, vec![0]),
            System::LotkaVolterra2 | System::LotkaVolterra4 => (20.0, vec![0]),
            System::HodgkinHuxley(_) => (100.0, vec![0]),
            System::TwoCompartment(_) => (100.0, vec![0, 4]),
        }
    }
}

/// The three estimators of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimators {
    /// Diffusion tempering.
    pub tempering: TemperedFit,
    /// The L2 baseline on a DP5 solution.
    pub l2: L2Fit,
    /// Scale of the L2 loss.
    pub l2_form: L2Form,
    /// Fenrir with learned κ² (skipped when `None`).
    pub learned: Option<LearnedDiffusionFit>,
}

impl Estimators {
    /// The official scripts' optimiser for all three, the L2 loss on their
    /// mean-squared scale, tempering along `schedule` (the paper's:
    /// [`Schedule::default`]).
    pub fn official(schedule: Schedule, learned: bool) -> Self {
        Estimators {
            tempering: TemperedFit {
                schedule,
                ..TemperedFit::official()
            },
            l2: L2Fit::official(),
            l2_form: L2Form::MeanSquared,
            learned: learned.then(|| LearnedDiffusionFit {
                lbfgs: LbfgsConfig::fminbox(1e-6),
                ..LearnedDiffusionFit::default()
            }),
        }
    }
}

/// One row's outcome: per estimator (tempering, L2, learned κ²) the starts
/// that converged, mean iterations and median relative RMSE.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResult {
    /// Number of starts.
    pub starts: usize,
    /// Converged starts: tempering, L2, learned κ² (0 when not run).
    pub successes: [usize; 3],
    /// Mean L-BFGS iterations, same order (NaN when not run).
    pub iters: [f64; 3],
    /// Median relative parameter RMSE, same order (∞ for a failed fit).
    pub rmse: [f64; 3],
    /// Per start, whether each estimator converged (same order).
    pub converged: Vec<[bool; 3]>,
}

fn summarise(res: &[Result<FitReport>], truth: &[f64]) -> (Vec<bool>, f64, f64) {
    let n = res.len().max(1) as f64;
    let mut conv = Vec::with_capacity(res.len());
    let mut iters = 0.0;
    let mut rmse = Vec::with_capacity(res.len());
    for r in res {
        let e = match r {
            Ok(f) => {
                iters += f.iters as f64;
                metrics::rel_param_rmse(&f.params, truth).unwrap_or(f64::INFINITY)
            }
            Err(_) => f64::INFINITY,
        };
        conv.push(e < TOL);
        rmse.push(e);
    }
    rmse.sort_by(f64::total_cmp);
    let med = rmse.get(rmse.len() / 2).copied().unwrap_or(f64::NAN);
    (conv, iters / n, med)
}

/// How a row's starts are run: on rayon's pool, or one after another
/// (the same results, start by start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parallelism {
    /// [`fit_many`] (rayon).
    Rayon,
    /// A plain loop.
    Serial,
}

/// Runs the row `system`: simulates its data (seed `seed`), draws `starts`
/// starts from the prior box, and runs every estimator of `est` from each
/// (`dt` is the solver and data step; the paper's is 0.01). `progress` is
/// called after each fit. Cost: `starts × (tempering + L2 + learned)` fits,
/// each `O(iterations × N D³)`.
///
/// # Errors
/// As [`Synthetic::new`] and [`Grid::uniform`] (a bad `dt`);
/// [`crate::Error::Core`] (`TooLarge`) when `starts` starts would exceed the
/// allocation cap.
pub fn run_row(
    system: System,
    est: &Estimators,
    dt: f64,
    starts: usize,
    seed: u64,
    par: Parallelism,
    progress: &(dyn Fn() + Sync),
) -> Result<RowResult> {
    match system {
        System::Pendulum => {
            let m = Pendulum::default();
            row(
                system,
                m,
                &Pendulum::TRUE_PARAMS,
                &Pendulum::bounds(),
                est,
                dt,
                starts,
                seed,
                par,
                progress,
            )
        }
        System::LotkaVolterra2 | System::LotkaVolterra4 => {
            let m = if system == System::LotkaVolterra2 {
                LotkaVolterra::two_param()
            } else {
                LotkaVolterra::four_param()
            };
            let (t, b) = (m.true_params(), m.bounds());
            row(system, m, &t, &b, est, dt, starts, seed, par, progress)
        }
        System::HodgkinHuxley(n) => {
            let m = HodgkinHuxley::new(n);
            let (t, b) = (m.true_params(), m.bounds());
            row(system, m, &t, &b, est, dt, starts, seed, par, progress)
        }
        System::TwoCompartment(n) => {
            let m = TwoCompartmentHodgkinHuxley::new(n);
            let (t, b) = (m.true_params(), m.bounds());
            row(system, m, &t, &b, est, dt, starts, seed, par, progress)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn row<M: OdeModel + Clone + Send>(
    system: System,
    model: M,
    truth: &[f64],
    bounds: &Bounds,
    est: &Estimators,
    dt: f64,
    starts: usize,
    seed: u64,
    par: Parallelism,
    progress: &(dyn Fn() + Sync),
) -> Result<RowResult> {
    mlcore::check::alloc_len(&[starts, 3 * truth.len().max(1)], 8, "starts × parameters")?;
    let (t1, observed) = system.setup();
    let mut rng = seeded(seed);
    let Synthetic { lik, l2 } = Synthetic::new(
        model,
        truth,
        Grid::uniform(0.0, t1, dt)?,
        &observed,
        NOISE_VAR,
        FilterConfig::default(),
        &mut rng,
    )?;
    let l2 = l2.with_form(est.l2_form);
    let inits = bounds.sample(starts, &mut rng);
    let many = |f: &(dyn Fn(&[f64]) -> Result<FitReport> + Sync)| -> Vec<Result<FitReport>> {
        let g = |x: &[f64]| {
            let r = f(x);
            progress();
            r
        };
        match par {
            Parallelism::Rayon => fit_many(&inits, g),
            Parallelism::Serial => inits.iter().map(|x| g(x)).collect(),
        }
    };
    let a = summarise(&many(&|x| est.tempering.run(&lik, bounds, x)), truth);
    let b = summarise(&many(&|x| est.l2.run(&l2, bounds, x)), truth);
    let c = match &est.learned {
        Some(fit) => summarise(&many(&|x| fit.run(&lik, bounds, x)), truth),
        None => (vec![false; starts], f64::NAN, f64::NAN),
    };
    let count = |v: &[bool]| v.iter().filter(|&&x| x).count();
    Ok(RowResult {
        starts,
        successes: [count(&a.0), count(&b.0), count(&c.0)],
        iters: [a.1, b.1, c.1],
        rmse: [a.2, b.2, c.2],
        converged: (0..starts).map(|i| [a.0[i], b.0[i], c.0[i]]).collect(),
    })
}
