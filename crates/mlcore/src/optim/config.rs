//! Settings of the minimiser.

use super::bounds::{Bounds, sigmoid};
use crate::error::{Error, Result};

/// Stopping rule on the loss change between iterations: stop when
/// `|ℓₖ₋₁ − ℓₖ| ≤ abs + rel·|ℓₖ|`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StageTol {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance.
    pub rel: f64,
}

/// An early stop on the loss history: end a run when each of the last
/// `window` loss changes (iteration to iteration) is below `delta` (the
/// diffusion-tempering scripts' "ours+" callback,
/// `all(abs.(diff(losses))[end-2:end] .< 0.1)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyStop {
    /// Consecutive changes looked at.
    pub window: usize,
    /// Loss change below which the run ends.
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
    /// Three changes below `0.1`.
    fn default() -> Self {
        EarlyStop {
            window: 3,
            delta: 0.1,
        }
    }
}

/// How [`minimize`](super::minimize) keeps `x` in its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BoxMethod {
    /// `x = lower + (upper − lower)·σ(u)` and argmin's unconstrained L-BFGS
    /// on `u` (line search [`Lbfgs::line_search`], steps capped at
    /// [`Lbfgs::max_step`]); restart rounds as [`Lbfgs::rounds`] says.
    #[default]
    Logistic,
    /// Optim.jl's `Fminbox(LBFGS(linesearch = BackTracking()))`: `x`
    /// rescaled linearly to `[0, 1]`, a log barrier whose weight shrinks by
    /// `10⁻³` per outer round, L-BFGS preconditioned by the barrier's
    /// Hessian, cubic backtracking from the unit step (see
    /// [`barrier`](super::barrier)). Here `rounds` caps the outer rounds,
    /// `round_tol` is the outer loss tolerance, `tol`/`patience`/`grad_tol`/
    /// `max_iters`/`early_stop` apply to each inner L-BFGS run, and
    /// `line_search`, `max_step`, `cost_tol` and `logistic` are not used.
    Barrier,
}

/// The line search of [`BoxMethod::Logistic`] (argmin's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineSearch {
    /// Backtracking from the (capped) L-BFGS step until Armijo's condition
    /// holds (`c₁ = 10⁻⁴`, step halved each time).
    #[default]
    Backtracking,
    /// More–Thuente (strong Wolfe conditions, argmin's defaults).
    MoreThuente,
}

/// How the gradient is pulled back through `x = lower + w·σ(u)`. Both give
/// `∂f/∂uᵢ = gᵢ·wᵢ·σ(uᵢ)(1 − σ(uᵢ))`; they differ in rounding and in how a
/// non-finite gradient is treated, and each is the one arithmetic that a
/// paper crate's recorded results were produced with (so both are kept, bit
/// for bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pullback {
    /// `x` clamped into the box; `gᵢ·(wᵢ·σ(1 − σ))` with the Jacobian
    /// ([`Bounds::logistic`]) formed first; a gradient with any
    /// non-finite coordinate (or a failed one) becomes zero as a whole.
    #[default]
    Jacobian,
    /// `x` not clamped (it may exceed a bound by an ulp when `σ` rounds to
    /// 1); `((gᵢ·wᵢ)·σ)·(1 − σ)` coordinate by coordinate; each non-finite
    /// coordinate becomes zero (a failed gradient as a whole).
    Chained,
}

/// The logistic map's conventions ([`BoxMethod::Logistic`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Logistic {
    /// A start is moved at least this fraction of the width inside the box
    /// before the logit (`0 < clip < 1/2`).
    pub clip: f64,
    /// The cost argmin sees where the objective fails, is not finite, or
    /// [`Lbfgs::max_evals`] is spent: `+∞` suits backtracking; a large
    /// finite value (`1e300`) keeps More–Thuente's interpolation finite.
    pub fail_value: f64,
    /// Gradient pull-back convention.
    pub pullback: Pullback,
}

impl Default for Logistic {
    /// `clip = 10⁻⁴`, `fail_value = +∞`, [`Pullback::Jacobian`].
    fn default() -> Self {
        Logistic {
            clip: 1e-4,
            fail_value: f64::INFINITY,
            pullback: Pullback::Jacobian,
        }
    }
}

impl Logistic {
    /// The point of the box at the unconstrained coordinates `u`.
    pub fn to_box(&self, bounds: &Bounds, u: &[f64]) -> Vec<f64> {
        match self.pullback {
            Pullback::Jacobian => bounds.logistic(u).0,
            Pullback::Chained => bounds.logistic_unclamped(u),
        }
    }

    /// The point at `u` and `∂f/∂u` from the gradient `g` at that point
    /// (`None` for a failed gradient), as [`Logistic::pullback`] says.
    pub(crate) fn pull_back(&self, bounds: &Bounds, u: &[f64], g: Option<Vec<f64>>) -> Vec<f64> {
        match self.pullback {
            Pullback::Jacobian => {
                let (_, jac) = bounds.logistic(u);
                match g {
                    Some(g) if g.iter().all(|v| v.is_finite()) => {
                        g.iter().zip(&jac).map(|(a, b)| a * b).collect()
                    }
                    _ => vec![0.0; u.len()],
                }
            }
            Pullback::Chained => {
                let Some(g) = g else {
                    return vec![0.0; u.len()];
                };
                g.iter()
                    .zip(u.iter().zip(bounds.lower().iter().zip(bounds.upper())))
                    .map(|(&g, (&u, (&l, &h)))| {
                        let s = sigmoid(u);
                        let v = g * (h - l) * s * (1.0 - s);
                        if v.is_finite() { v } else { 0.0 }
                    })
                    .collect()
            }
        }
    }
}

/// Settings of one minimisation (both [`BoxMethod`]s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lbfgs {
    /// History length `m`.
    pub memory: usize,
    /// Iteration cap per L-BFGS run.
    pub max_iters: u64,
    /// Stop when the gradient norm falls below this (Euclidean in `u` for
    /// the logistic method, ∞-norm of the barrier problem's gradient for
    /// the barrier method).
    pub grad_tol: f64,
    /// argmin's own rule (logistic method): stop when `|ℓₖ₋₁ − ℓₖ| <
    /// cost_tol`; `0` turns it off.
    pub cost_tol: f64,
    /// Stop on a small loss change `|Δℓ| ≤ abs + rel·|ℓ|` (`None`: never).
    pub tol: Option<StageTol>,
    /// How many consecutive iterations must satisfy `tol` before stopping
    /// (1: the first one does; Optim.jl's `successive_f_tol = 1` is 2).
    pub patience: usize,
    /// Optional early stop on the loss history.
    pub early_stop: Option<EarlyStop>,
    /// How the box is handled.
    pub box_method: BoxMethod,
    /// Line search of the logistic method.
    pub line_search: LineSearch,
    /// Longest step (Euclidean norm in `u`) a search direction may take
    /// before the line search; when finite, the first direction of each
    /// run is scaled to this length (or to the first step given to
    /// [`minimize_logit`](super::minimize_logit)). `+∞`: no cap, no scaling.
    pub max_step: f64,
    /// Restart rounds of the logistic method: when a run stops, L-BFGS is
    /// restarted with a fresh memory from where it stopped, until a round
    /// lowers the loss by no more than `round_tol` or `rounds` rounds ran
    /// (`1`: a single run). For the barrier method, the outer rounds.
    pub rounds: usize,
    /// Loss decrease of a whole round at or below which the rounds end.
    pub round_tol: StageTol,
    /// Cap on objective values per run of the logistic method (line-search
    /// trials included); past it the cost is [`Logistic::fail_value`] and
    /// the gradient zero, so the run ends keeping the best point seen.
    /// Not supported by the barrier method.
    pub max_evals: Option<u64>,
    /// The logistic map's conventions.
    pub logistic: Logistic,
}

impl Default for Lbfgs {
    /// Logistic method with backtracking: `m = 10`, `grad_tol = 10⁻⁸`,
    /// loss change `10⁻⁹ + 10⁻⁶·|ℓ|`, at most 1000 iterations, steps capped
    /// at 1, one round.
    fn default() -> Self {
        Lbfgs {
            memory: 10,
            max_iters: 1000,
            grad_tol: 1e-8,
            cost_tol: 0.0,
            tol: Some(StageTol {
                abs: 1e-9,
                rel: 1e-6,
            }),
            patience: 1,
            early_stop: None,
            box_method: BoxMethod::Logistic,
            line_search: LineSearch::Backtracking,
            max_step: 1.0,
            rounds: 1,
            round_tol: StageTol { abs: 0.0, rel: 0.0 },
            max_evals: None,
            logistic: Logistic::default(),
        }
    }
}

impl Lbfgs {
    /// Optim.jl 1.7's `Fminbox(LBFGS(linesearch = BackTracking()))` defaults
    /// ([`BoxMethod::Barrier`], memory 10, `g_abstol = 10⁻⁸`, at most 1000
    /// inner iterations and 1000 outer rounds, outer tolerances 0) with
    /// `f_reltol = rel` met in 2 consecutive iterations
    /// (`successive_f_tol = 1`).
    pub fn fminbox(rel: f64) -> Self {
        Lbfgs {
            tol: Some(StageTol { abs: 0.0, rel }),
            patience: 2,
            rounds: 1000,
            box_method: BoxMethod::Barrier,
            ..Lbfgs::default()
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first bad field: counts
    /// (`memory`, `max_iters`, `patience`, `rounds`, `early_stop.window`)
    /// must be ≥ 1, tolerances ≥ 0 and not NaN, `max_step > 0`,
    /// `0 < logistic.clip < 1/2`, `logistic.fail_value` not NaN, and
    /// `max_evals` is only for the logistic method.
    pub fn check(&self) -> Result<()> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        let count = |name, n: u64| {
            if n == 0 {
                bad(name, 0.0, "an integer >= 1")
            } else {
                Ok(())
            }
        };
        count("memory", self.memory as u64)?;
        count("max_iters", self.max_iters)?;
        count("patience", self.patience as u64)?;
        count("rounds", self.rounds as u64)?;
        let non_negative = |name, v: f64| {
            if v >= 0.0 {
                Ok(())
            } else {
                bad(name, v, ">= 0 (not NaN)")
            }
        };
        non_negative("grad_tol", self.grad_tol)?;
        non_negative("cost_tol", self.cost_tol)?;
        if let Some(t) = self.tol {
            non_negative("tol.abs", t.abs)?;
            non_negative("tol.rel", t.rel)?;
        }
        non_negative("round_tol.abs", self.round_tol.abs)?;
        non_negative("round_tol.rel", self.round_tol.rel)?;
        if let Some(e) = self.early_stop {
            count("early_stop.window", e.window as u64)?;
            non_negative("early_stop.delta", e.delta)?;
        }
        if self.max_step.is_nan() || self.max_step <= 0.0 {
            return bad("max_step", self.max_step, "> 0 (+inf: no cap)");
        }
        let c = self.logistic.clip;
        if !(c > 0.0 && c < 0.5) {
            return bad("logistic.clip", c, "in (0, 1/2)");
        }
        if self.logistic.fail_value.is_nan() {
            return bad("logistic.fail_value", f64::NAN, "not NaN");
        }
        if self.box_method == BoxMethod::Barrier
            && let Some(m) = self.max_evals
        {
            return bad(
                "max_evals",
                m as f64,
                "None with BoxMethod::Barrier (only the logistic method caps values)",
            );
        }
        Ok(())
    }
}
