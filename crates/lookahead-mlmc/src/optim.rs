//! Boxes and multi-start L-BFGS (argmin) with a sigmoid box transform.
//!
//! The paper maximises every acquisition with BoTorch's `optimize_acqf`
//! (L-BFGS-B, `num_restarts = 20`, `raw_samples = 256`). Here each restart runs
//! argmin's L-BFGS (More–Thuente line search) on unconstrained `u ∈ ℝᵈ`, with
//! `x = lo + (hi − lo)·σ(u)`, `σ(u) = 1/(1 + e^{−u})`: the box is enforced by
//! the transform instead of by projection (a documented deviation from
//! L-BFGS-B; optima on the boundary are approached by L-BFGS, then reached by
//! snapping coordinates within [`SNAP`] of a bound onto it when that does not
//! lower the value).

use crate::error::{Error, Result, check_finite};
use argmin::core::{CostFunction, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use ndarray::ArrayView1;
use rand::{Rng, RngExt};

/// A box `∏ₖ [lowerₖ, upperₖ]` with `lowerₖ < upperₖ`, all finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
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
        Ok(Bounds { lower, upper })
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
            lower: self.lower.repeat(times),
            upper: self.upper.repeat(times),
        }
    }

    /// The dimension `d`.
    pub fn dim(&self) -> usize {
        self.lower.len()
    }

    /// Lower bounds.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// Upper bounds.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// A point drawn uniformly from the box.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(&l, &u)| l + (u - l) * rng.random::<f64>())
            .collect()
    }

    /// `x` clamped into the box.
    pub fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .map(|(&v, (&l, &u))| v.clamp(l, u))
            .collect()
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

struct Transformed<'a, O: Objective> {
    obj: &'a O,
    lower: &'a [f64],
    width: Vec<f64>,
    steps: Vec<f64>,
    evals: std::cell::Cell<usize>,
    cap: usize,
}

fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

impl<O: Objective> Transformed<'_, O> {
    fn to_x(&self, u: &[f64]) -> Vec<f64> {
        u.iter()
            .zip(self.lower.iter().zip(&self.width))
            .map(|(&u, (&l, &w))| l + w * sigmoid(u))
            .collect()
    }
    fn to_u(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(self.lower.iter().zip(&self.width))
            .map(|(&x, (&l, &w))| {
                let t = ((x - l) / w).clamp(1e-6, 1.0 - 1e-6);
                (t / (1.0 - t)).ln()
            })
            .collect()
    }
}

fn finite_or_big(v: f64) -> f64 {
    if v.is_finite() { v } else { 1e300 }
}

impl<O: Objective> CostFunction for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> std::result::Result<f64, argmin::core::Error> {
        if self.evals.get() >= self.cap {
            return Ok(1e300);
        }
        self.evals.set(self.evals.get() + 1);
        Ok(finite_or_big(-self.obj.value(&self.to_x(u))))
    }
}

impl<O: Objective> Gradient for Transformed<'_, O> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> std::result::Result<Vec<f64>, argmin::core::Error> {
        if self.evals.get() >= self.cap {
            return Ok(vec![0.0; u.len()]);
        }
        let x = self.to_x(u);
        let g = self.obj.gradient(&x, &self.steps);
        Ok(g.iter()
            .zip(u.iter().zip(&self.width))
            .map(|(&g, (&u, &w))| {
                let s = sigmoid(u);
                let v = -g * w * s * (1.0 - s);
                if v.is_finite() { v } else { 0.0 }
            })
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
/// [`Error::NonFinite`] for a bad start, [`Error::InvalidParameter`] for a bad config.
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
    if !(cfg.fd_step > 0.0 && cfg.fd_step < 0.1) {
        return Err(Error::InvalidParameter {
            name: "fd_step",
            value: cfg.fd_step,
            expected: "0 < fd_step < 0.1",
        });
    }
    let width: Vec<f64> = bounds
        .lower()
        .iter()
        .zip(bounds.upper())
        .map(|(l, u)| u - l)
        .collect();
    let steps = width.iter().map(|w| w * cfg.fd_step).collect();
    let cap = cfg.max_evals.unwrap_or(usize::MAX);
    let problem = Transformed {
        obj,
        lower: bounds.lower(),
        width,
        steps,
        evals: std::cell::Cell::new(0),
        cap,
    };
    let mut out = Vec::with_capacity(starts.len());
    for s in starts {
        bounds.check_point("start", s)?;
        let u0 = problem.to_u(s);
        let x0 = problem.to_x(&u0);
        let v0 = obj.value(&x0);
        let mut best = LocalOptimum { x: x0, value: v0 };
        if cfg.max_iters > 0 {
            let solver = LBFGS::new(MoreThuenteLineSearch::new(), cfg.memory)
                .with_tolerance_grad(cfg.tol_grad)
                .and_then(|s| s.with_tolerance_cost(cfg.tol_cost));
            if let Ok(solver) = solver {
                let run = Transformed {
                    obj,
                    lower: bounds.lower(),
                    width: problem.width.clone(),
                    steps: problem.steps.clone(),
                    evals: std::cell::Cell::new(0),
                    cap,
                };
                let res = Executor::new(run, solver)
                    .configure(|st| st.param(u0).max_iters(cfg.max_iters))
                    .timer(false)
                    .run();
                if let Ok(res) = res
                    && let Some(u) = res.state().get_best_param()
                {
                    let x = problem.to_x(u);
                    let v = obj.value(&x);
                    if v.is_finite() && (v > best.value || !best.value.is_finite()) {
                        best = LocalOptimum { x, value: v };
                    }
                }
            }
        }
        // Boundary snap: the sigmoid never reaches the box, so a coordinate
        // within `SNAP` (relative) of a bound is moved onto it, kept if the
        // value does not drop (a boundary optimum is then hit exactly, and
        // coupled fine/coarse problems land on the same point).
        let snapped: Vec<f64> = best
            .x
            .iter()
            .zip(bounds.lower().iter().zip(bounds.upper()))
            .map(|(&x, (&l, &u))| {
                let t = (x - l) / (u - l);
                if t < SNAP {
                    l
                } else if t > 1.0 - SNAP {
                    u
                } else {
                    x
                }
            })
            .collect();
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
