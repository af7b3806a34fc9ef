//! Boxes and multi-start L-BFGS with a sigmoid box transform, on
//! [`mlcore::optim`].
//!
//! The paper maximises every acquisition with BoTorch's `optimize_acqf`
//! (L-BFGS-B, `num_restarts = 20`, `raw_samples = 256`). Here each restart runs
//! argmin's L-BFGS (More–Thuente line search) on unconstrained `u ∈ ℝᵈ`, with
//! `x = lo + (hi − lo)·σ(u)`, `σ(u) = 1/(1 + e^{−u})`: the box is enforced by
//! the transform instead of by projection (a documented deviation from
//! L-BFGS-B; optima on the boundary are approached by L-BFGS, then reached by
//! snapping coordinates within [`SNAP`] of a bound onto it when that does not
//! lower the value). The minimiser is the workspace's one,
//! [`mlcore::optim::minimize_logit`] on `−f` with
//! [`LineSearch::MoreThuente`], failed values at `1e300` and the
//! [`Pullback::Chained`] arithmetic this crate's results were recorded
//! with; this module keeps the crate's box, objective trait (maximised,
//! finite-difference gradients by default), settings and restart policy.

use crate::error::{Error, Result, check_finite};
use mlcore::optim::{self, BoxMethod, LineSearch, Logistic, Pullback, StageTol};
use ndarray::ArrayView1;
use rand::Rng;

/// A box `∏ₖ [lowerₖ, upperₖ]` with `lowerₖ < upperₖ`, all finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    core: optim::Bounds,
}

impl Bounds {
    /// The box `∏ₖ [lowerₖ, upperₖ]`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] if the lengths differ, [`Error::InvalidBatchSize`]
    /// for an empty box, [`Error::InvalidBounds`] where `lowerₖ ≥ upperₖ` or a bound is not finite.
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self> {
        if lower.len() != upper.len() {
            return Err(Error::DimensionMismatch {
                what: "upper bounds",
                expected: lower.len(),
                got: upper.len(),
            });
        }
        if lower.is_empty() {
            return Err(Error::InvalidBatchSize { what: "dimension" });
        }
        for (k, (&l, &u)) in lower.iter().zip(&upper).enumerate() {
            if !(l.is_finite() && u.is_finite() && l < u) {
                return Err(Error::InvalidBounds {
                    dim: k,
                    lower: l,
                    upper: u,
                });
            }
        }
        Ok(Bounds {
            core: optim::Bounds::new(lower, upper)?,
        })
    }

    /// The same box from ndarray views.
    ///
    /// # Errors
    /// As [`Bounds::new`].
    pub fn from_views(lower: ArrayView1<'_, f64>, upper: ArrayView1<'_, f64>) -> Result<Self> {
        Self::new(lower.to_vec(), upper.to_vec())
    }

    /// The unit cube `[0, 1]ᵈ`.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] for `d = 0`.
    pub fn unit(d: usize) -> Result<Self> {
        Self::new(vec![0.0; d], vec![1.0; d])
    }

    /// The same box repeated `times` times (the box of a batch of `times` points).
    pub fn repeat(&self, times: usize) -> Bounds {
        Bounds {
            core: self.core.repeat(times),
        }
    }

    /// The dimension `d`.
    pub fn dim(&self) -> usize {
        self.core.dim()
    }

    /// Lower bounds.
    pub fn lower(&self) -> &[f64] {
        self.core.lower()
    }

    /// Upper bounds.
    pub fn upper(&self) -> &[f64] {
        self.core.upper()
    }

    /// The same box as [`mlcore::optim::Bounds`] (what the optimiser takes).
    pub fn as_core(&self) -> &optim::Bounds {
        &self.core
    }

    /// A point drawn uniformly from the box.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        self.core.sample(rng)
    }

    /// `x` clamped into the box.
    pub fn clamp(&self, x: &[f64]) -> Vec<f64> {
        self.core.clamp(x)
    }

    /// [`Bounds::check_point`], and that `x` lies in the box.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`],
    /// [`Error::InvalidParameter`] for a coordinate outside its bounds.
    pub fn check_in_box(&self, what: &'static str, x: &[f64]) -> Result<()> {
        self.check_point(what, x)?;
        for ((&v, &l), &u) in x.iter().zip(self.lower()).zip(self.upper()) {
            if !(l..=u).contains(&v) {
                return Err(Error::InvalidParameter {
                    name: what,
                    value: v,
                    expected: "a coordinate within the box's bounds",
                });
            }
        }
        Ok(())
    }

    /// Checks that `x` has dimension `d` and finite entries.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn check_point(&self, what: &'static str, x: &[f64]) -> Result<()> {
        if x.len() != self.dim() {
            return Err(Error::DimensionMismatch {
                what,
                expected: self.dim(),
                got: x.len(),
            });
        }
        check_finite(what, x)
    }
}

/// A function to maximise on a box.
pub trait Objective {
    /// `f(x)`.
    fn value(&self, x: &[f64]) -> f64;

    /// `∇f(x)`; by default central differences with per-coordinate steps `h`,
    /// `∂ₖf ≈ (f(x + hₖeₖ) − f(x − hₖeₖ)) / 2hₖ` (2d evaluations).
    fn gradient(&self, x: &[f64], h: &[f64]) -> Vec<f64> {
        fd_gradient(|p| self.value(p), x, h)
    }
}

/// Central-difference gradient of `f` at `x` with steps `h` (2d evaluations).
pub fn fd_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], h: &[f64]) -> Vec<f64> {
    let mut p = x.to_vec();
    (0..x.len())
        .map(|k| {
            p[k] = x[k] + h[k];
            let fp = f(&p);
            p[k] = x[k] - h[k];
            let fm = f(&p);
            p[k] = x[k];
            (fp - fm) / (2.0 * h[k])
        })
        .collect()
}

/// Settings of one L-BFGS run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LbfgsConfig {
    /// History length `m` of L-BFGS.
    pub memory: usize,
    /// Iteration cap per restart.
    pub max_iters: u64,
    /// Stop when ‖∇‖ (in the transformed variables) falls below this.
    pub tol_grad: f64,
    /// Stop when the objective changes by less than this.
    pub tol_cost: f64,
    /// Relative finite-difference step: `hₖ = fd_step·(upperₖ − lowerₖ)`.
    pub fd_step: f64,
    /// Cap on objective values per restart (line-search trials included),
    /// `None` for no cap. Past the cap the restart stops and keeps the best
    /// point seen: useful when one value is expensive and noisy (the
    /// three-step stage values, whose inner solves make the line search
    /// take many trials).
    pub max_evals: Option<usize>,
}

impl Default for LbfgsConfig {
    /// `m = 7`, 60 iterations, `tol_grad = 1e-9`, `tol_cost = 1e-12`, `fd_step = 1e-6`, no value cap.
    fn default() -> Self {
        LbfgsConfig {
            memory: 7,
            max_iters: 60,
            tol_grad: 1e-9,
            tol_cost: 1e-12,
            fd_step: 1e-6,
            max_evals: None,
        }
    }
}

/// One restart's result.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptimum {
    /// The local maximiser (inside the box).
    pub x: Vec<f64>,
    /// `f(x)`.
    pub value: f64,
}

impl LbfgsConfig {
    /// These settings for [`mlcore::optim`] (see the module docs).
    fn core(&self) -> optim::Lbfgs {
        optim::Lbfgs {
            memory: self.memory,
            max_iters: self.max_iters,
            grad_tol: self.tol_grad,
            cost_tol: self.tol_cost,
            tol: None,
            patience: 1,
            early_stop: None,
            box_method: BoxMethod::Logistic,
            line_search: LineSearch::MoreThuente,
            max_step: f64::INFINITY,
            rounds: 1,
            round_tol: StageTol { abs: 0.0, rel: 0.0 },
            max_evals: self.max_evals.map(|m| m as u64),
            logistic: Logistic {
                clip: 1e-6,
                fail_value: 1e300,
                pullback: Pullback::Chained,
            },
        }
    }
}

/// `−f` (to be minimised) with the gradient of [`Objective::gradient`] at
/// finite-difference steps `steps`; never fails.
struct Negated<'a, O: ?Sized> {
    obj: &'a O,
    steps: Vec<f64>,
}

impl<O: Objective + ?Sized> optim::Objective for Negated<'_, O> {
    type Error = mlcore::Error;
    fn value(&self, x: &[f64]) -> mlcore::Result<f64> {
        Ok(-self.obj.value(x))
    }
    fn value_grad(&self, x: &[f64]) -> mlcore::Result<(f64, Vec<f64>)> {
        Ok((-self.obj.value(x), self.gradient(x)?))
    }
    fn gradient(&self, x: &[f64]) -> mlcore::Result<Vec<f64>> {
        Ok(self
            .obj
            .gradient(x, &self.steps)
            .iter()
            .map(|g| -g)
            .collect())
    }
}

/// Relative distance to a bound below which [`maximize_multistart`] tries the
/// point snapped onto the bound.
pub const SNAP: f64 = 1e-3;

/// Maximises `obj` on `bounds` by L-BFGS from each start; returns one local
/// optimum per start (same order). A restart whose line search fails keeps
/// the best point it had (or its start). Coordinates within [`SNAP`] of a
/// bound are then snapped onto it when that does not lower the value (the
/// sigmoid transform alone never reaches the boundary).
///
/// Cost: per restart at most `max_iters` iterations, each one value and one
/// gradient (2d values by default) of `obj`.
///
/// # Errors
/// [`Error::InvalidBatchSize`] without starts, [`Error::DimensionMismatch`] /
/// [`Error::NonFinite`] for a bad start, [`Error::InvalidParameter`] for a bad
/// `fd_step`, [`Error::Core`] for tolerances [`mlcore::optim::Lbfgs::check`]
/// rejects (negative or NaN).
pub fn maximize_multistart<O: Objective>(
    obj: &O,
    bounds: &Bounds,
    starts: &[Vec<f64>],
    cfg: &LbfgsConfig,
) -> Result<Vec<LocalOptimum>> {
    if starts.is_empty() {
        return Err(Error::InvalidBatchSize { what: "starts" });
    }
    if cfg.memory == 0 {
        return Err(Error::InvalidBatchSize {
            what: "L-BFGS memory",
        });
    }
    mlcore::check::open_interval(cfg.fd_step, 0.0, 0.1, "fd_step", "0 < fd_step < 0.1")?;
    let core = cfg.core();
    if cfg.max_iters > 0 {
        core.check()?;
    }
    let problem = Negated {
        obj,
        steps: bounds
            .as_core()
            .widths()
            .iter()
            .map(|w| w * cfg.fd_step)
            .collect(),
    };
    let mut out = Vec::with_capacity(starts.len());
    for s in starts {
        bounds.check_point("start", s)?;
        let u0 = bounds.as_core().to_logit(s, core.logistic.clip);
        let x0 = core.logistic.to_box(bounds.as_core(), &u0);
        let v0 = obj.value(&x0);
        let mut best = LocalOptimum { x: x0, value: v0 };
        // A run that argmin aborts keeps the start.
        let fit = if cfg.max_iters > 0 {
            optim::minimize_logit(&problem, bounds.as_core(), u0, &core, None).ok()
        } else {
            None
        };
        crate::cost::restart(fit.as_ref().map_or(0, |(f, _)| f.iters));
        if let Some((fit, _)) = fit {
            let v = obj.value(&fit.params);
            if v.is_finite() && (v > best.value || !best.value.is_finite()) {
                best = LocalOptimum {
                    x: fit.params,
                    value: v,
                };
            }
        }
        // Boundary snap: the sigmoid never reaches the box, so a coordinate
        // within `SNAP` (relative) of a bound is moved onto it, kept if the
        // value does not drop (a boundary optimum is then hit exactly, and
        // coupled fine/coarse problems land on the same point).
        let snapped = bounds.as_core().snap(&best.x, SNAP);
        if snapped != best.x {
            let v = obj.value(&snapped);
            if v.is_finite() && v >= best.value {
                best = LocalOptimum {
                    x: snapped,
                    value: v,
                };
            }
        }
        out.push(best);
    }
    Ok(out)
}

impl<O: Objective + ?Sized> Objective for &O {
    fn value(&self, x: &[f64]) -> f64 {
        (**self).value(x)
    }
    fn gradient(&self, x: &[f64], h: &[f64]) -> Vec<f64> {
        (**self).gradient(x, h)
    }
}

/// A closure as an [`Objective`] (finite-difference gradient).
pub struct FnObjective<F: Fn(&[f64]) -> f64>(pub F);

impl<F: Fn(&[f64]) -> f64> Objective for FnObjective<F> {
    fn value(&self, x: &[f64]) -> f64 {
        (self.0)(x)
    }
}

/// The `k` points of `raw` with the largest `score` (ties by index), for restarts.
pub fn top_k(raw: &[Vec<f64>], score: impl Fn(&[f64]) -> f64, k: usize) -> Vec<Vec<f64>> {
    let mut scored: Vec<(f64, usize)> = raw
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = score(p);
            (if s.is_finite() { s } else { f64::NEG_INFINITY }, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .iter()
        .take(k.max(1))
        .map(|&(_, i)| raw[i].clone())
        .collect()
}

/// The best of several local optima (largest value; first on ties).
pub fn best_of(opts: &[LocalOptimum]) -> Option<&LocalOptimum> {
    opts.iter()
        .fold(None, |acc: Option<&LocalOptimum>, o| match acc {
            Some(a) if a.value >= o.value => Some(a),
            _ => Some(o),
        })
}
