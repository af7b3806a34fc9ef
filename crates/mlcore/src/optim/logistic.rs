//! [`BoxMethod::Logistic`](super::BoxMethod::Logistic): argmin's L-BFGS on
//! the unconstrained coordinates `u` of `x = lower + (upper − lower)·σ(u)`,
//! with a capped line search, the loss-change and early-stop rules, an
//! optional cap on values, and restart rounds.

use super::bounds::Bounds;
use super::config::{EarlyStop, Lbfgs, LineSearch as Search, StageTol};
use super::objective::{LocalFit, Objective};
use crate::error::Error;
use argmin::core::{
    CostFunction, Executor, Gradient, IterState, KV, Problem, Solver, State, TerminationReason,
    TerminationStatus,
};
use argmin::solver::linesearch::condition::ArmijoCondition;
use argmin::solver::linesearch::{BacktrackingLineSearch, LineSearch, MoreThuenteLineSearch};
use argmin::solver::quasinewton::LBFGS;
use std::cell::Cell;

/// The objective seen through the logistic map, with counters and the cap
/// on values.
struct Transformed<'a, O: ?Sized> {
    obj: &'a O,
    bounds: &'a Bounds,
    cfg: &'a Lbfgs,
    cap: u64,
    evals: Cell<u64>,
    grads: Cell<u64>,
}

impl<O: Objective + ?Sized> CostFunction for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        let fail = self.cfg.logistic.fail_value;
        if self.evals.get() >= self.cap {
            return Ok(fail);
        }
        self.evals.set(self.evals.get() + 1);
        let x = self.cfg.logistic.to_box(self.bounds, u);
        Ok(match self.obj.value(&x) {
            Ok(v) if v.is_finite() => v,
            _ => fail,
        })
    }
}

impl<O: Objective + ?Sized> Gradient for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        if self.evals.get() >= self.cap {
            return Ok(vec![0.0; u.len()]);
        }
        self.grads.set(self.grads.get() + 1);
        let x = self.cfg.logistic.to_box(self.bounds, u);
        let g = self.obj.gradient(&x).ok();
        Ok(self.cfg.logistic.pull_back(self.bounds, u, g))
    }
}

type St = IterState<Vec<f64>, Vec<f64>, (), (), (), f64>;

/// A line search whose search direction is shortened to `max_step`; the
/// first direction of a run (steepest descent, before L-BFGS has curvature
/// information) is scaled to the length `first` (≤ `max_step`). With
/// `max_step = +∞` and no `first` it passes every direction through
/// unchanged, except a NaN one, which becomes the zero step.
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
        let d = if n.is_nan() {
            // A NaN direction (L-BFGS's scaling `sᵀy/yᵀy` is 0/0 once the
            // gradient vanishes in saturated coordinates) makes every trial
            // point NaN, and backtracking would halve the step forever (the
            // code this was moved from hung there). The zero step is
            // accepted at once; the loss-change rules or `max_iters` then
            // end the run at its best point.
            vec![0.0; d.len()]
        } else if len != n && n > 0.0 {
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
        "capped line search"
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

/// L-BFGS wrapped with the loss-change and early-stop rules.
struct Staged<S> {
    inner: S,
    tol: Option<StageTol>,
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
        if let Some(tol) = self.tol
            && h.len() > p
            && (h.len() - 1 - p..h.len() - 1).all(|i| {
                let (a, b) = (h[i], h[i + 1]);
                (a - b).abs() <= tol.abs + tol.rel * b.abs()
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

/// Runs the logistic method from the unconstrained point `u0` with restart
/// rounds ([`Lbfgs::rounds`]) and returns the fit and the final `u`.
///
/// `first_step` is the length of the first step of the first run (later
/// rounds start with the length the previous round moved, clamped to
/// `[10⁻³, max_step]`); `None` leaves the first direction as L-BFGS makes
/// it. A warm-started sequence of problems (a tempering schedule) passes
/// the distance the previous problem moved. `cfg.box_method` is not
/// looked at; nothing is evaluated before the run.
///
/// # Errors
/// [`Error::InvalidParameter`] for bad settings ([`Lbfgs::check`]) or a
/// `u0` of the wrong length or not finite ([`Error::ShapeMismatch`],
/// [`Error::NonFinite`]); [`Error::NoConvergence`] if argmin itself fails
/// (its line-search failures end a run instead).
pub fn minimize_logit<O>(
    obj: &O,
    bounds: &Bounds,
    u0: Vec<f64>,
    cfg: &Lbfgs,
    first_step: Option<f64>,
) -> std::result::Result<(LocalFit, Vec<f64>), O::Error>
where
    O: Objective + ?Sized,
    O::Error: From<Error>,
{
    cfg.check()?;
    crate::check::len(u0.len(), bounds.dim(), "u0")?;
    if let Some(index) = u0.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "u0", index }.into());
    }
    let (mut fit, mut u) = run_once(obj, bounds, u0, cfg, first_step)?;
    let mut step = first_step;
    for _ in 1..cfg.rounds {
        let s = step.map(|s| s.clamp(1e-3, cfg.max_step));
        let (next, u_next) = run_once(obj, bounds, u.clone(), cfg, s)?;
        let gain = fit.loss - next.loss;
        step = Some(warm_step(&u, &u_next, cfg.max_step));
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

/// The first step of a warm-started run: the distance a run moved from `u`
/// to `u_next` (Euclidean, unconstrained coordinates), clamped to
/// `[10⁻³, max_step]` — the minimiser shifts little between neighbouring
/// problems (a restart round, the next stage of a tempering schedule).
pub fn warm_step(u: &[f64], u_next: &[f64], max_step: f64) -> f64 {
    u_next
        .iter()
        .zip(u)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
        .clamp(1e-3, max_step)
}

fn argmin_failed<E: From<Error>>(_: argmin::core::Error) -> E {
    Error::NoConvergence {
        algorithm: "L-BFGS (argmin)",
    }
    .into()
}

/// One L-BFGS run from `u0` with the configured line search.
fn run_once<O>(
    obj: &O,
    bounds: &Bounds,
    u0: Vec<f64>,
    cfg: &Lbfgs,
    first_step: Option<f64>,
) -> std::result::Result<(LocalFit, Vec<f64>), O::Error>
where
    O: Objective + ?Sized,
    O::Error: From<Error>,
{
    let problem = Transformed {
        obj,
        bounds,
        cfg,
        cap: cfg.max_evals.unwrap_or(u64::MAX),
        evals: Cell::new(0),
        grads: Cell::new(0),
    };
    match cfg.line_search {
        Search::Backtracking => {
            let cond = ArmijoCondition::new(1e-4).map_err(argmin_failed::<O::Error>)?;
            let ls = BacktrackingLineSearch::new(cond)
                .rho(0.5)
                .map_err(argmin_failed::<O::Error>)?;
            let lbfgs = lbfgs::<O::Error, _>(ls, cfg, first_step)?;
            execute(problem, lbfgs, u0)
        }
        Search::MoreThuente => {
            let lbfgs = lbfgs::<O::Error, _>(MoreThuenteLineSearch::new(), cfg, first_step)?;
            execute(problem, lbfgs, u0)
        }
    }
}

type Lbfgs64<L> = LBFGS<Capped<L>, Vec<f64>, Vec<f64>, f64>;

/// argmin's L-BFGS with the capped `line_search` and the configured
/// tolerances.
fn lbfgs<E: From<Error>, L>(
    line_search: L,
    cfg: &Lbfgs,
    first_step: Option<f64>,
) -> std::result::Result<Lbfgs64<L>, E> {
    let ls = Capped {
        inner: line_search,
        max_step: cfg.max_step,
        first: first_step,
    };
    LBFGS::new(ls, cfg.memory)
        .with_tolerance_grad(cfg.grad_tol)
        .map_err(argmin_failed::<E>)?
        .with_tolerance_cost(cfg.cost_tol)
        .map_err(argmin_failed::<E>)
}

/// Runs `lbfgs` wrapped in the loss-change and early-stop rules.
fn execute<'a, O, S>(
    problem: Transformed<'a, O>,
    lbfgs: S,
    u0: Vec<f64>,
) -> std::result::Result<(LocalFit, Vec<f64>), O::Error>
where
    O: Objective + ?Sized,
    O::Error: From<Error>,
    S: Solver<Transformed<'a, O>, St>,
{
    let (cfg, bounds) = (problem.cfg, problem.bounds);
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
        .timer(false)
        .run()
        .map_err(argmin_failed::<O::Error>)?;
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
    Ok((
        LocalFit {
            params: cfg.logistic.to_box(bounds, &u),
            loss: st.get_best_cost(),
            iters: st.get_iter(),
            evals,
            grad_evals,
        },
        u,
    ))
}
