//! Box-constrained L-BFGS (argmin), the tempering schedule, and the three
//! estimators: diffusion tempering, Fenrir with learned diffusion, and the
//! L2 loss on an RK solution.

use crate::error::{Error, Result};
use crate::likelihood::FenrirLikelihood;
use crate::model::OdeModel;
use crate::rk::L2Loss;
use argmin::core::{
    CostFunction, Executor, Gradient, IterState, KV, Problem, Solver, State, TerminationReason,
    TerminationStatus,
};
use argmin::solver::linesearch::condition::ArmijoCondition;
use argmin::solver::linesearch::{BacktrackingLineSearch, LineSearch};
use argmin::solver::quasinewton::LBFGS;
use rand::{Rng, RngExt};

use rayon::prelude::*;
use std::cell::Cell;

/// A box `lo ≤ θ ≤ hi` (the support of the uniform prior on θ).
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    lo: Vec<f64>,
    hi: Vec<f64>,
}

/// How far (as a fraction of the box width) a start on or near a bound is
/// moved inside, as in the official scripts.
pub const NUDGE: f64 = 1e-4;

impl Bounds {
    /// The box `[lo, hi]`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for different lengths,
    /// [`Error::ParamOutOfBounds`] unless `lo < hi` (finite) in every
    /// coordinate, [`Error::EmptyData`] for an empty box.
    pub fn new(lo: Vec<f64>, hi: Vec<f64>) -> Result<Self> {
        if lo.len() != hi.len() {
            return Err(Error::DimensionMismatch {
                what: "length of upper bounds vs lower bounds",
                expected: lo.len(),
                got: hi.len(),
            });
        }
        if lo.is_empty() {
            return Err(Error::EmptyData);
        }
        for i in 0..lo.len() {
            if !(lo[i].is_finite() && hi[i].is_finite() && lo[i] < hi[i]) {
                return Err(Error::ParamOutOfBounds {
                    index: i,
                    value: hi[i],
                    lo: lo[i],
                    hi: hi[i],
                });
            }
        }
        Ok(Bounds { lo, hi })
    }
    /// Lower bounds.
    pub fn lo(&self) -> &[f64] {
        &self.lo
    }
    /// Upper bounds.
    pub fn hi(&self) -> &[f64] {
        &self.hi
    }
    /// Number of coordinates.
    pub fn len(&self) -> usize {
        self.lo.len()
    }
    /// Never true for a constructed box.
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Fails with [`Error::ParamOutOfBounds`] / [`Error::DimensionMismatch`]
    /// unless `θ` lies in the box.
    pub fn check(&self, theta: &[f64]) -> Result<()> {
        if theta.len() != self.len() {
            return Err(Error::DimensionMismatch {
                what: "number of parameters vs bounds",
                expected: self.len(),
                got: theta.len(),
            });
        }
        for (i, &v) in theta.iter().enumerate() {
            if !(v >= self.lo[i] && v <= self.hi[i]) {
                return Err(Error::ParamOutOfBounds {
                    index: i,
                    value: v,
                    lo: self.lo[i],
                    hi: self.hi[i],
                });
            }
        }
        Ok(())
    }

    /// The unconstrained coordinates `u = logit(s)`, `s = (θ − lo)/(hi − lo)`
    /// clipped to `[10⁻⁴, 1 − 10⁻⁴]`.
    pub fn to_unconstrained(&self, theta: &[f64]) -> Vec<f64> {
        theta
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let s = ((v - self.lo[i]) / (self.hi[i] - self.lo[i])).clamp(NUDGE, 1.0 - NUDGE);
                (s / (1.0 - s)).ln()
            })
            .collect()
    }

    /// `θ = lo + (hi − lo)·σ(u)` and `dθ/du = (hi − lo)·σ(u)(1 − σ(u))`.
    pub fn from_unconstrained(&self, u: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut th = Vec::with_capacity(u.len());
        let mut jac = Vec::with_capacity(u.len());
        for (i, &ui) in u.iter().enumerate() {
            let s = 1.0 / (1.0 + (-ui).exp());
            let w = self.hi[i] - self.lo[i];
            th.push((self.lo[i] + w * s).clamp(self.lo[i], self.hi[i]));
            jac.push(w * s * (1.0 - s));
        }
        (th, jac)
    }

    /// `θ` with every coordinate closer than [`NUDGE`] of the width to a
    /// bound moved inside by that amount (the official
    /// `bump_if_near_bounds`, applied at the start of every tempering
    /// stage).
    pub fn bump(&self, theta: &[f64]) -> Vec<f64> {
        theta
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let w = self.hi[i] - self.lo[i];
                let x = (v - self.lo[i]) / w;
                let x = if x < NUDGE {
                    x + NUDGE
                } else if 1.0 - x < NUDGE {
                    x - NUDGE
                } else {
                    x
                };
                self.lo[i] + w * x
            })
            .collect()
    }

    /// `n` starts drawn uniformly from the box (the paper's prior).
    pub fn sample<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<Vec<f64>> {
        (0..n)
            .map(|_| {
                (0..self.len())
                    .map(|i| self.lo[i] + (self.hi[i] - self.lo[i]) * rng.random::<f64>())
                    .collect()
            })
            .collect()
    }
}

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

/// Stopping rule on the loss change between iterations: stop when
/// `|ℓₖ₋₁ − ℓₖ| ≤ abs + rel·|ℓₖ|`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageTol {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance.
    pub rel: f64,
}

/// The "ours+" early stop: end a stage when each of the last `window`
/// loss changes (iteration to iteration) is below `delta`, as the official
/// callback does (`all(abs.(diff(losses))[end-2:end] .< 0.1)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyStop {
    /// Consecutive changes looked at.
    pub window: usize,
    /// Loss change below which the stage ends.
    pub delta: f64,
}

impl EarlyStop {
    /// Whether the loss history `h` (oldest first) triggers the stop.
    pub fn triggered(&self, h: &[f64]) -> bool {
        h.len() > self.window
            && h[h.len() - 1 - self.window..]
                .windows(2)
                .all(|w| (w[0] - w[1]).abs() < self.delta)
    }
}

impl Default for EarlyStop {
    fn default() -> Self {
        EarlyStop {
            window: 3,
            delta: 0.1,
        }
    }
}

/// Settings of one L-BFGS run (one tempering stage, or a baseline fit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LbfgsConfig {
    /// History length `m`.
    pub memory: usize,
    /// Stop when `‖∇_u ℓ‖ < grad_tol` (in the unconstrained coordinates).
    pub grad_tol: f64,
    /// Stop on a small loss change.
    pub tol: StageTol,
    /// Iteration cap.
    pub max_iters: u64,
    /// Optional "ours+" early stop.
    pub early_stop: Option<EarlyStop>,
    /// How many consecutive iterations must satisfy `tol` before stopping
    /// (1: the first one does; Optim.jl's default `successive_f_tol = 1`
    /// corresponds to 2).
    pub patience: usize,
    /// Longest step (Euclidean norm, unconstrained coordinates) a search
    /// direction may take before backtracking; the first direction of each
    /// run is scaled to this length. Without the cap the first L-BFGS step,
    /// `−∇ℓ` with `‖∇ℓ‖` in the hundreds, saturates the logistic box map and
    /// the fit stops on a bound with a vanishing gradient; without the
    /// scaling a flat stage takes a tiny first step and its loss-change rule
    /// ends it at once.
    pub max_step: f64,
    /// Restart rounds (the outer loop of Optim.jl's `Fminbox`, which the
    /// official scripts run because they pass bounds to
    /// `LBFGS(linesearch=BackTracking())`): when a run stops on `tol`,
    /// L-BFGS is restarted (fresh memory) from where it stopped, until a
    /// round lowers the loss by no more than `round_tol` or `rounds` rounds
    /// ran. `1` is a single run.
    pub rounds: usize,
    /// Loss decrease of a whole round at or below which the restarts end
    /// (`|Δℓ| ≤ abs + rel·|ℓ|`; `Fminbox` uses `0`, i.e. exact
    /// stagnation).
    pub round_tol: StageTol,
    /// How the box is handled (default [`BoxMethod::Logistic`]).
    pub box_method: BoxMethod,
}

/// How [`minimize`] and the estimators keep `θ` in its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoxMethod {
    /// `θ = lo + (hi − lo)·σ(u)` and argmin's unconstrained L-BFGS on `u`
    /// (backtracking Armijo search, steps capped at
    /// [`LbfgsConfig::max_step`]); restart rounds as
    /// [`LbfgsConfig::rounds`] says.
    #[default]
    Logistic,
    /// Optim.jl's `Fminbox(LBFGS(linesearch = BackTracking()))`, the
    /// optimiser of the official scripts: `θ` rescaled linearly to
    /// `[0, 1]`, a log barrier whose weight shrinks by `10⁻³` per outer
    /// round, L-BFGS preconditioned by the barrier's Hessian, cubic
    /// backtracking from the unit step (see [`crate::fminbox`]). Here
    /// `rounds` caps the outer rounds, `round_tol` is the outer loss
    /// tolerance, `tol`/`patience`/`grad_tol`/`max_iters` apply to each inner
    /// L-BFGS run, and `max_step` is not used.
    Barrier,
}

impl Default for LbfgsConfig {
    /// `m = 10`, `grad_tol = 10⁻⁸`, abs/rel `10⁻⁹/10⁻⁶` (the paper's final
    /// stage), at most 1000 iterations, steps capped at 1 (logit units).
    fn default() -> Self {
        LbfgsConfig {
            memory: 10,
            grad_tol: 1e-8,
            tol: StageTol {
                abs: 1e-9,
                rel: 1e-6,
            },
            max_iters: 1000,
            early_stop: None,
            patience: 1,
            max_step: 1.0,
            rounds: 1,
            round_tol: StageTol { abs: 0.0, rel: 0.0 },
            box_method: BoxMethod::Logistic,
        }
    }
}

impl LbfgsConfig {
    /// The settings the official scripts end up with: Optim.jl 1.7's
    /// `Fminbox` defaults around `LBFGS(linesearch = BackTracking())`
    /// ([`BoxMethod::Barrier`], memory 10, `g_abstol = 10⁻⁸`, at most 1000
    /// inner iterations and 1000 outer rounds, outer tolerances 0) with
    /// `f_reltol = rel` — OptimizationOptimJL maps `reltol` to `f_tol` and
    /// ignores `abstol` — met in 2 consecutive iterations
    /// (`successive_f_tol = 1`).
    pub fn fminbox(rel: f64) -> Self {
        LbfgsConfig {
            memory: 10,
            grad_tol: 1e-8,
            tol: StageTol { abs: 0.0, rel },
            max_iters: 1000,
            early_stop: None,
            patience: 2,
            max_step: 1.0,
            rounds: 1000,
            round_tol: StageTol { abs: 0.0, rel: 0.0 },
            box_method: BoxMethod::Barrier,
        }
    }
}

impl LbfgsConfig {
    fn check(&self) -> Result<()> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        if self.patience == 0 {
            return bad("patience", 0.0, "an integer >= 1");
        }
        if self.memory == 0 {
            return bad("memory", 0.0, "an integer >= 1");
        }
        if self.rounds == 0 {
            return bad("rounds", 0.0, "an integer >= 1");
        }
        if !(self.round_tol.abs.is_finite()
            && self.round_tol.abs >= 0.0
            && self.round_tol.rel.is_finite()
            && self.round_tol.rel >= 0.0)
        {
            return bad("round_tol", self.round_tol.abs, "finite and >= 0");
        }
        if !(self.grad_tol.is_finite() && self.grad_tol >= 0.0) {
            return bad("grad_tol", self.grad_tol, "finite and >= 0");
        }
        if !(self.tol.abs.is_finite() && self.tol.abs >= 0.0) {
            return bad("tol.abs", self.tol.abs, "finite and >= 0");
        }
        if !(self.tol.rel.is_finite() && self.tol.rel >= 0.0) {
            return bad("tol.rel", self.tol.rel, "finite and >= 0");
        }
        if !(self.max_step.is_finite() && self.max_step > 0.0) {
            return bad("max_step", self.max_step, "finite and > 0");
        }
        if self.max_iters == 0 {
            return bad("max_iters", 0.0, "an integer >= 1");
        }
        if let Some(e) = self.early_stop
            && (e.window == 0 || !(e.delta.is_finite() && e.delta >= 0.0))
        {
            return bad("early_stop.delta", e.delta, "window >= 1 and delta >= 0");
        }
        Ok(())
    }
}

/// The result of one L-BFGS run.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalFit {
    /// The best θ found.
    pub params: Vec<f64>,
    /// Its loss.
    pub loss: f64,
    /// L-BFGS iterations.
    pub iters: u64,
    /// Loss evaluations (values only).
    pub evals: u64,
    /// Gradient evaluations (value and gradient).
    pub grad_evals: u64,
}

struct Transformed<'a, O> {
    obj: &'a O,
    bounds: &'a Bounds,
    evals: Cell<u64>,
    grads: Cell<u64>,
}

impl<O: Objective> CostFunction for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        self.evals.set(self.evals.get() + 1);
        let (th, _) = self.bounds.from_unconstrained(u);
        Ok(match self.obj.value(&th) {
            Ok(v) if v.is_finite() => v,
            _ => f64::INFINITY,
        })
    }
}

impl<O: Objective> Gradient for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        self.grads.set(self.grads.get() + 1);
        let (th, jac) = self.bounds.from_unconstrained(u);
        Ok(match self.obj.value_grad(&th) {
            Ok((_, g)) if g.iter().all(|v| v.is_finite()) => {
                g.iter().zip(&jac).map(|(a, b)| a * b).collect()
            }
            _ => vec![0.0; u.len()],
        })
    }
}

type St = IterState<Vec<f64>, Vec<f64>, (), (), (), f64>;

/// A line search whose search direction is shortened to `max_step`; the
/// first direction of a run (steepest descent, before L-BFGS has curvature
/// information) is scaled to the length `first` (≤ `max_step`).
#[derive(Clone)]
struct Capped<S> {
    inner: S,
    max_step: f64,
    first: Option<f64>,
}

impl<S: LineSearch<Vec<f64>, f64>> LineSearch<Vec<f64>, f64> for Capped<S> {
    fn search_direction(&mut self, d: Vec<f64>) {
        let n = d.iter().map(|v| v * v).sum::<f64>().sqrt();
        let len = match self.first.take() {
            Some(f) if n > 0.0 => f.min(self.max_step),
            _ => n.min(self.max_step),
        };
        let d = if len != n && n > 0.0 {
            d.iter().map(|v| v * len / n).collect()
        } else {
            d
        };
        self.inner.search_direction(d)
    }
    fn initial_step_length(&mut self, a: f64) -> std::result::Result<(), argmin::core::Error> {
        self.inner.initial_step_length(a)
    }
}

impl<O, S: Solver<O, St>> Solver<O, St> for Capped<S> {
    fn name(&self) -> &str {
        "capped backtracking"
    }
    fn init(
        &mut self,
        problem: &mut Problem<O>,
        state: St,
    ) -> std::result::Result<(St, Option<KV>), argmin::core::Error> {
        self.inner.init(problem, state)
    }
    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        state: St,
    ) -> std::result::Result<(St, Option<KV>), argmin::core::Error> {
        self.inner.next_iter(problem, state)
    }
    fn terminate_internal(&mut self, state: &St) -> TerminationStatus {
        self.inner.terminate_internal(state)
    }
    fn terminate(&mut self, state: &St) -> TerminationStatus {
        self.inner.terminate(state)
    }
}

/// L-BFGS wrapped with the paper's stopping rules.
struct Staged<S> {
    inner: S,
    tol: StageTol,
    early: Option<EarlyStop>,
    patience: usize,
    history: Vec<f64>,
}

impl<O, S: Solver<O, St>> Solver<O, St> for Staged<S> {
    fn name(&self) -> &str {
        "L-BFGS (staged)"
    }
    fn init(
        &mut self,
        problem: &mut Problem<O>,
        state: St,
    ) -> std::result::Result<(St, Option<KV>), argmin::core::Error> {
        let (s, kv) = self.inner.init(problem, state)?;
        self.history.push(s.get_cost());
        Ok((s, kv))
    }
    fn next_iter(
        &mut self,
        problem: &mut Problem<O>,
        state: St,
    ) -> std::result::Result<(St, Option<KV>), argmin::core::Error> {
        let (s, kv) = self.inner.next_iter(problem, state)?;
        self.history.push(s.get_cost());
        Ok((s, kv))
    }
    fn terminate(&mut self, state: &St) -> TerminationStatus {
        let st = self.inner.terminate(state);
        if st.terminated() {
            return st;
        }
        let h = &self.history;
        let p = self.patience;
        if h.len() > p
            && (h.len() - 1 - p..h.len() - 1).all(|i| {
                let (a, b) = (h[i], h[i + 1]);
                (a - b).abs() <= self.tol.abs + self.tol.rel * b.abs()
            })
        {
            return TerminationStatus::Terminated(TerminationReason::SolverConverged);
        }
        if let Some(e) = self.early
            && e.triggered(h)
        {
            return TerminationStatus::Terminated(TerminationReason::SolverConverged);
        }
        TerminationStatus::NotTerminated
    }
}

/// Minimises `obj` over `bounds` from `init` with L-BFGS, the box handled
/// as `cfg.box_method` says: [`BoxMethod::Logistic`] (argmin's L-BFGS with
/// a backtracking Armijo search in `u = logit((θ − lo)/(hi − lo))`, starts
/// near a bound nudged in by `10⁻⁴` of the width) or
/// [`BoxMethod::Barrier`] (Optim.jl's `Fminbox`, as the official scripts).
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
    if cfg.box_method == BoxMethod::Barrier {
        return crate::fminbox::minimize_barrier(obj, bounds, init, cfg, &mut Vec::new());
    }
    let u0 = bounds.to_unconstrained(init);
    let (th0, _) = bounds.from_unconstrained(&u0);
    obj.value(&th0)?;
    Ok(minimize_u(obj, bounds, u0, cfg, cfg.max_step)?.0)
}

/// L-BFGS in `u` with restart rounds; returns the fit and the final `u`.
fn minimize_u<O: Objective>(
    obj: &O,
    bounds: &Bounds,
    u0: Vec<f64>,
    cfg: &LbfgsConfig,
    first_step: f64,
) -> Result<(LocalFit, Vec<f64>)> {
    let (mut fit, mut u) = minimize_once(obj, bounds, u0, cfg, first_step)?;
    let mut step = first_step;
    for _ in 1..cfg.rounds {
        step = step.clamp(1e-3, cfg.max_step);
        let (next, u_next) = minimize_once(obj, bounds, u.clone(), cfg, step)?;
        let gain = fit.loss - next.loss;
        step = dist(&u_next, &u).clamp(1e-3, cfg.max_step);
        fit.iters += next.iters;
        fit.evals += next.evals;
        fit.grad_evals += next.grad_evals;
        // A NaN gain (non-finite losses) also ends the rounds.
        let threshold = cfg.round_tol.abs + cfg.round_tol.rel * next.loss.abs();
        let done = gain.partial_cmp(&threshold) != Some(std::cmp::Ordering::Greater);
        if next.loss <= fit.loss {
            fit.loss = next.loss;
            fit.params = next.params;
            u = u_next;
        }
        if done || next.iters == 0 {
            break;
        }
    }
    Ok((fit, u))
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

fn minimize_once<O: Objective>(
    obj: &O,
    bounds: &Bounds,
    u0: Vec<f64>,
    cfg: &LbfgsConfig,
    first_step: f64,
) -> Result<(LocalFit, Vec<f64>)> {
    let problem = Transformed {
        obj,
        bounds,
        evals: Cell::new(0),
        grads: Cell::new(0),
    };
    let cond = ArmijoCondition::new(1e-4).map_err(|e| Error::Optimizer(e.to_string()))?;
    let ls = Capped {
        inner: BacktrackingLineSearch::new(cond)
            .rho(0.5)
            .map_err(|e| Error::Optimizer(e.to_string()))?,
        max_step: cfg.max_step,
        first: Some(first_step),
    };
    let lbfgs = LBFGS::new(ls, cfg.memory)
        .with_tolerance_grad(cfg.grad_tol)
        .map_err(|e| Error::Optimizer(e.to_string()))?
        .with_tolerance_cost(0.0)
        .map_err(|e| Error::Optimizer(e.to_string()))?;
    let solver = Staged {
        inner: lbfgs,
        tol: cfg.tol,
        early: cfg.early_stop,
        patience: cfg.patience,
        history: Vec::new(),
    };
    let res = Executor::new(problem, solver)
        .configure(|s| s.param(u0.clone()).max_iters(cfg.max_iters))
        .ctrlc(false)
        .run()
        .map_err(|e| Error::Optimizer(e.to_string()))?;
    let st = res.state();
    let (evals, grad_evals) = res
        .problem()
        .problem
        .as_ref()
        .map_or((0, 0), |p| (p.evals.get(), p.grads.get()));
    let u = st
        .get_best_param()
        .cloned()
        .or_else(|| st.get_param().cloned())
        .unwrap_or(u0);
    let (th, _) = bounds.from_unconstrained(&u);
    Ok((
        LocalFit {
            params: th,
            loss: st.get_best_cost(),
            iters: st.get_iter(),
            evals,
            grad_evals,
        },
        u,
    ))
}

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
    /// [`Error::InvalidParameter`] unless `start > end` and `stages ≥ 2`.
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
        if stages < 2 {
            return Err(Error::InvalidParameter {
                name: "stages",
                value: stages as f64,
                expected: "at least 2",
            });
        }
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
    /// converged; see [`ROUNDS`]).
    pub stage: LbfgsConfig,
    /// L-BFGS settings of the last stage (default: abs/rel `10⁻⁹/10⁻⁶`,
    /// with restart rounds).
    pub last: LbfgsConfig,
}

/// Restart rounds per L-BFGS fit in the estimators' defaults (see
/// [`LbfgsConfig::rounds`]).
///
/// Deviation, budgeted: the official scripts pass box bounds to
/// `LBFGS(linesearch=BackTracking())`, so OptimizationOptimJL runs Optim.jl's
/// `Fminbox`, whose outer loop restarts L-BFGS until a restart changes
/// nothing at all (outer tolerances 0, at most 1000 restarts); the per-stage
/// `abstol`/`reltol` only end the inner runs (and `abstol` is ignored by
/// OptimizationOptimJL). Each stage is therefore minimised to convergence,
/// not stopped after the first small step. Here at most `ROUNDS` restarts
/// run, and they end once a whole round lowers the loss by at most
/// [`ROUND_REL_TOL`]`·|ℓ|`. [`TemperedFit::official`] runs the `Fminbox`
/// itself ([`BoxMethod::Barrier`]).
pub const ROUNDS: usize = 10;

/// Relative loss decrease of a whole restart round below which the
/// estimators' default restarts end.
pub const ROUND_REL_TOL: f64 = 1e-9;

impl LbfgsConfig {
    /// These settings with the estimators' restart rounds ([`ROUNDS`],
    /// [`ROUND_REL_TOL`]): the stand-in for Optim.jl's `Fminbox` outer loop.
    pub fn with_rounds(self) -> Self {
        LbfgsConfig {
            rounds: ROUNDS,
            round_tol: StageTol {
                abs: 0.0,
                rel: ROUND_REL_TOL,
            },
            ..self
        }
    }
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
                    let (fit, u_new) = minimize_u(&obj, bounds, u.clone(), cfg, first_step)?;
                    first_step = dist(&u_new, &u).clamp(1e-3, cfg.max_step);
                    fit
                }
                BoxMethod::Barrier => {
                    crate::fminbox::minimize_barrier(&obj, bounds, &th, cfg, &mut Vec::new())?
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
