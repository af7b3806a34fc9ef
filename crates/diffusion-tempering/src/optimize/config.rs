//! The crate's L-BFGS settings and the estimators' restart rounds; the
//! optimiser they configure is [`mlcore::optim`].

use super::bounds::NUDGE;
use crate::error::Result;
use mlcore::check;
use mlcore::optim::{self, BoxMethod, EarlyStop, LineSearch, Logistic, Pullback, StageTol};

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
    pub(crate) fn check(&self) -> Result<()> {
        for (name, n) in [
            ("patience", self.patience),
            ("memory", self.memory),
            ("rounds", self.rounds),
        ] {
            check::at_least(n, 1, name, "an integer >= 1")?;
        }
        check::non_negative(self.round_tol.abs, "round_tol")?;
        check::non_negative(self.round_tol.rel, "round_tol")?;
        check::non_negative(self.grad_tol, "grad_tol")?;
        check::non_negative(self.tol.abs, "tol.abs")?;
        check::non_negative(self.tol.rel, "tol.rel")?;
        check::positive(self.max_step, "max_step")?;
        check::require(
            self.max_iters >= 1,
            "max_iters",
            self.max_iters as f64,
            "an integer >= 1",
        )?;
        if let Some(e) = self.early_stop {
            check::require(
                e.window >= 1 && e.delta.is_finite() && e.delta >= 0.0,
                "early_stop.delta",
                e.delta,
                "window >= 1 and delta >= 0",
            )?;
        }
        Ok(())
    }
}

impl LbfgsConfig {
    /// These settings for [`mlcore::optim`]: argmin's backtracking search
    /// capped at `max_step`, the logistic map of [`crate::Bounds`] (starts
    /// nudged in by [`NUDGE`], failed losses `+∞`,
    /// [`Pullback::Jacobian`]).
    pub(crate) fn core(&self) -> optim::Lbfgs {
        optim::Lbfgs {
            memory: self.memory,
            max_iters: self.max_iters,
            grad_tol: self.grad_tol,
            cost_tol: 0.0,
            tol: Some(self.tol),
            patience: self.patience,
            early_stop: self.early_stop,
            box_method: self.box_method,
            line_search: LineSearch::Backtracking,
            max_step: self.max_step,
            rounds: self.rounds,
            round_tol: self.round_tol,
            max_evals: None,
            logistic: Logistic {
                clip: NUDGE,
                fail_value: f64::INFINITY,
                pullback: Pullback::Jacobian,
            },
        }
    }
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
/// [`ROUND_REL_TOL`]`·|ℓ|`.
/// [`TemperedFit::official`](crate::TemperedFit::official) runs the
/// `Fminbox` itself ([`BoxMethod::Barrier`]).
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
