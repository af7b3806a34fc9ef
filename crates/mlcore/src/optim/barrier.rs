//! [`BoxMethod::Barrier`](super::BoxMethod::Barrier): a box-constrained
//! L-BFGS that follows Optim.jl's `Fminbox(LBFGS(linesearch =
//! BackTracking()))` step by step — the optimiser the diffusion-tempering
//! scripts run, because OptimizationOptimJL wraps an unconstrained method
//! in `Fminbox` whenever bounds are given. Moved here unchanged from
//! `diffusion-tempering` (its recorded results are pinned bit for bit).
//!
//! The parameters are rescaled linearly to `x ∈ [0, 1]ᵈ` (the official
//! `standardize_loss`), and
//!
//! * **outer loop** (primal log barrier): minimise
//!   `F(x) = ℓ(x) + μ·Σᵢ −ln xᵢ − ln(1 − xᵢ)` (`+∞` outside the open box)
//!   with L-BFGS, then set `μ ← μ·10⁻³` and restart L-BFGS from the result
//!   with an empty memory. The first `μ = 10⁻³·Σ|∂ℓ/∂xᵢ| / Σ(1/xᵢ + 1/(1 − xᵢ))`
//!   at the start. The loop ends when a restart leaves `x` unchanged, when
//!   the projected gradient `x − clamp(x − ∇ℓ, 0, 1)` is below
//!   `grad_tol` (∞-norm), when the loss change of a round meets
//!   `round_tol`, or after `rounds` rounds;
//! * **inner loop** (L-BFGS): search direction by the two-loop recursion
//!   with the barrier's inverse Hessian `Pᵢ = 1/(μ(1/xᵢ² + 1/(1 − xᵢ)²) + 1)`
//!   as the initial matrix (no `sᵀy/yᵀy` scaling); a curvature pair is
//!   stored whatever its sign, as in Optim; an ascent direction is replaced
//!   by `−∇F`. Step `α = 1` first, halved while `F` is not finite, then
//!   Armijo backtracking (`c₁ = 10⁻⁴`) by quadratic, then cubic
//!   interpolation with the new step kept in `[0.1α, 0.5α]`. The inner run
//!   ends when `x` did not move, when `‖∇F‖∞ ≤ grad_tol`, when `|ΔF| ≤
//!   abs + rel·|F|` held in `patience` consecutive iterations (Optim's
//!   `successive_f_tol = 1` means 2; never without `tol`), when the early
//!   stop triggers on the history of `F`, or after `max_iters` iterations.
//!
//! A failed or non-finite loss counts as `+∞`; a failed or non-finite
//! gradient ends the current inner run (at the start: the method returns
//! the start).

use super::bounds::Bounds;
use super::config::Lbfgs;
use super::objective::{LocalFit, Objective};
use std::collections::VecDeque;

/// Optim.jl's `Fminbox` barrier factor: the first `μ` is this times the
/// ratio of loss to barrier gradients, and `μ` shrinks by this factor after
/// each outer round.
pub const MU_FACTOR: f64 = 1e-3;

/// Distance (in the rescaled `[0, 1]` coordinates) below which a start is
/// moved into the box by the same amount (the official
/// `bump_if_near_bounds`).
pub const BUMP: f64 = 1e-4;

const C1: f64 = 1e-4;
const RHO_HI: f64 = 0.5;
const RHO_LO: f64 = 0.1;
const LS_MAX_ITERS: usize = 1000;
/// `−log₂ ε` halvings at most while the trial value is not finite.
const LS_MAX_HALVINGS: usize = 52;

/// The loss in the rescaled coordinates plus the barrier, with counters.
struct Scaled<'a, O: ?Sized> {
    obj: &'a O,
    lo: &'a [f64],
    width: Vec<f64>,
    evals: u64,
    grad_evals: u64,
}

impl<O: Objective + ?Sized> Scaled<'_, O> {
    fn theta(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(self.lo.iter().zip(&self.width))
            .map(|(&xi, (&l, &w))| (l + w * xi).clamp(l, l + w))
            .collect()
    }

    /// `ℓ(x)`; a failed or non-finite loss counts as `+∞`.
    fn raw_value(&mut self, x: &[f64]) -> f64 {
        self.evals += 1;
        match self.obj.value(&self.theta(x)) {
            Ok(v) if v.is_finite() => v,
            _ => f64::INFINITY,
        }
    }

    /// `(ℓ(x), ∇ℓ(x))`, `None` when either is not finite.
    fn raw_value_grad(&mut self, x: &[f64]) -> Option<(f64, Vec<f64>)> {
        self.grad_evals += 1;
        match self.obj.value_grad(&self.theta(x)) {
            Ok((v, g)) if v.is_finite() && g.iter().all(|gi| gi.is_finite()) => {
                Some((v, g.iter().zip(&self.width).map(|(gi, w)| gi * w).collect()))
            }
            _ => None,
        }
    }
}

/// `Σ −ln xᵢ − ln(1 − xᵢ)`, `+∞` outside the open box.
fn barrier(x: &[f64]) -> f64 {
    let mut b = 0.0;
    for &xi in x {
        if !(xi > 0.0 && xi < 1.0) {
            return f64::INFINITY;
        }
        b -= xi.ln() + (1.0 - xi).ln();
    }
    b
}

fn barrier_grad(x: &[f64]) -> Vec<f64> {
    x.iter().map(|&xi| -1.0 / xi + 1.0 / (1.0 - xi)).collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0, |m, v| m.max(v.abs()))
}

/// The point where the inner loop stands: total value and gradient, and
/// the raw loss and gradient at the same `x`.
struct Point {
    x: Vec<f64>,
    f_total: f64,
    g_total: Vec<f64>,
    f_raw: f64,
    g_raw: Vec<f64>,
}

impl Point {
    /// Sets the total value and gradient for barrier weight `mu` (the
    /// loss part is kept).
    fn reweight(&mut self, mu: f64) {
        let gb = barrier_grad(&self.x);
        self.f_total = self.f_raw + mu * barrier(&self.x);
        self.g_total = self
            .g_raw
            .iter()
            .zip(&gb)
            .map(|(g, b)| g + mu * b)
            .collect();
    }
}

fn evaluate<O: Objective + ?Sized>(s: &mut Scaled<'_, O>, x: Vec<f64>, mu: f64) -> Option<Point> {
    if !barrier(&x).is_finite() {
        return None;
    }
    let (f_raw, g_raw) = s.raw_value_grad(&x)?;
    let mut pt = Point {
        x,
        f_total: f_raw,
        g_total: Vec::new(),
        f_raw,
        g_raw,
    };
    pt.reweight(mu);
    Some(pt)
}

/// `F(x + α·d)` for the line search.
fn total_at<O: Objective + ?Sized>(
    s: &mut Scaled<'_, O>,
    x: &[f64],
    d: &[f64],
    alpha: f64,
    mu: f64,
) -> f64 {
    let y: Vec<f64> = x.iter().zip(d).map(|(a, b)| a + alpha * b).collect();
    let b = barrier(&y);
    if !b.is_finite() {
        return f64::INFINITY;
    }
    s.raw_value(&y) + mu * b
}

/// LineSearches.jl's `BackTracking(order = 3)` from `α = 1`: returns the
/// accepted step, or `None` when the Armijo condition failed
/// [`LS_MAX_ITERS`] times.
fn backtrack<O: Objective + ?Sized>(
    s: &mut Scaled<'_, O>,
    x: &[f64],
    d: &[f64],
    phi0: f64,
    dphi0: f64,
    mu: f64,
) -> Option<f64> {
    let (mut a1, mut a2) = (1.0, 1.0);
    let mut phi_prev = phi0;
    let mut phi = total_at(s, x, d, a1, mu);
    let mut halvings = 0;
    while !phi.is_finite() && halvings < LS_MAX_HALVINGS {
        halvings += 1;
        a1 = a2;
        a2 = a1 / 2.0;
        phi = total_at(s, x, d, a2, mu);
    }
    let mut it = 0;
    while phi > phi0 + C1 * a2 * dphi0 {
        it += 1;
        if it > LS_MAX_ITERS {
            return None;
        }
        let trial = if it == 1 {
            -(dphi0 * a2 * a2) / (2.0 * (phi - phi0 - dphi0 * a2))
        } else {
            let div = 1.0 / (a1 * a1 * a2 * a2 * (a2 - a1));
            let r1 = phi - phi0 - dphi0 * a2;
            let r0 = phi_prev - phi0 - dphi0 * a1;
            let a = (a1 * a1 * r1 - a2 * a2 * r0) * div;
            let b = (-a1 * a1 * a1 * r1 + a2 * a2 * a2 * r0) * div;
            if a.abs() <= f64::EPSILON {
                dphi0 / (2.0 * b)
            } else {
                let disc = (b * b - 3.0 * a * dphi0).max(0.0);
                (-b + disc.sqrt()) / (3.0 * a)
            }
        };
        a1 = a2;
        // NaN-ignoring min/max, as NaNMath's.
        let capped = if trial.is_nan() {
            a2 * RHO_HI
        } else {
            trial.min(a2 * RHO_HI)
        };
        a2 = capped.max(a2 * RHO_LO);
        phi_prev = phi;
        phi = total_at(s, x, d, a2, mu);
    }
    Some(a2)
}

/// The L-BFGS memory: pairs `(sₖ, yₖ, 1/sₖᵀyₖ)`, newest last.
struct Memory {
    pairs: VecDeque<(Vec<f64>, Vec<f64>, f64)>,
    cap: usize,
}

impl Memory {
    /// `−H·g` by the two-loop recursion with `H₀ = diag(p)`.
    fn direction(&self, g: &[f64], p: &[f64]) -> Vec<f64> {
        let mut q = g.to_vec();
        let mut alphas = Vec::with_capacity(self.pairs.len());
        for (s, y, rho) in self.pairs.iter().rev() {
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(y) {
                *qi -= a * yi;
            }
            alphas.push(a);
        }
        let mut r: Vec<f64> = q.iter().zip(p).map(|(a, b)| a * b).collect();
        for ((s, y, rho), a) in self.pairs.iter().zip(alphas.iter().rev()) {
            let beta = rho * dot(y, &r);
            for (ri, si) in r.iter_mut().zip(s) {
                *ri += si * (a - beta);
            }
        }
        r.iter_mut().for_each(|v| *v = -*v);
        r
    }
}

/// Why an inner run ended.
enum InnerEnd {
    Converged,
    Stuck,
    EarlyStop,
}

/// Minimises `obj` over `bounds` from `theta0` as Optim.jl's `Fminbox`
/// does (see the module docs); `cfg.max_step` is not used (Optim has no
/// step cap). The settings are not checked here.
pub(crate) fn minimize_barrier<O: Objective + ?Sized>(
    obj: &O,
    bounds: &Bounds,
    theta0: &[f64],
    cfg: &Lbfgs,
    history: &mut Vec<f64>,
) -> Result<LocalFit, O::Error> {
    let width: Vec<f64> = bounds
        .lower()
        .iter()
        .zip(bounds.upper())
        .map(|(l, h)| h - l)
        .collect();
    let mut s = Scaled {
        obj,
        lo: bounds.lower(),
        width,
        evals: 0,
        grad_evals: 0,
    };
    // Optim moves a start that lies exactly on a bound 1 % inside.
    let x0: Vec<f64> = theta0
        .iter()
        .zip(bounds.lower().iter().zip(&s.width))
        .map(|(&t, (&l, &w))| {
            let x = (t - l) / w;
            if x <= 0.0 {
                0.01
            } else if x >= 1.0 {
                0.99
            } else {
                x
            }
        })
        .collect();
    let theta_start = s.theta(&x0);
    let v0 = obj.value(&theta_start)?;
    let Some(mut pt) = evaluate(&mut s, x0, 0.0) else {
        // No finite gradient at the start: nothing to do.
        return Ok(LocalFit {
            params: theta_start,
            loss: v0,
            iters: 0,
            evals: s.evals,
            grad_evals: s.grad_evals,
        });
    };
    let gb_abs: f64 = pt.x.iter().map(|&xi| 1.0 / xi + 1.0 / (1.0 - xi)).sum();
    let mut mu = if gb_abs > 0.0 {
        MU_FACTOR * pt.g_raw.iter().map(|g| g.abs()).sum::<f64>() / gb_abs
    } else {
        0.0
    };
    let mut iters = 0u64;
    for _round in 0..cfg.rounds {
        let f_raw0 = pt.f_raw;
        let x_old = pt.x.clone();
        // Only the barrier weight moved since the last round.
        pt.reweight(mu);
        let (end, n) = inner(&mut s, &mut pt, mu, cfg, history);
        iters += n;
        mu *= MU_FACTOR;
        if matches!(end, InnerEnd::EarlyStop | InnerEnd::Stuck) {
            break;
        }
        let proj: Vec<f64> =
            pt.x.iter()
                .zip(&pt.g_raw)
                .map(|(&x, &g)| x - (x - g).clamp(0.0, 1.0))
                .collect();
        let x_same = pt.x == x_old;
        let df = (pt.f_total - f_raw0).abs();
        let f_same = df <= cfg.round_tol.abs || df <= cfg.round_tol.rel * pt.f_total.abs();
        if x_same || f_same || max_abs(&proj) <= cfg.grad_tol {
            break;
        }
    }
    Ok(LocalFit {
        params: s.theta(&pt.x),
        loss: pt.f_raw,
        iters,
        evals: s.evals,
        grad_evals: s.grad_evals,
    })
}

/// One L-BFGS run on the barrier problem at weight `mu`, from `pt` (updated
/// in place); the total loss at its start and after each iteration is
/// appended to `history` (the stage's, for the early stop). Returns why it
/// ended and its iterations.
fn inner<O: Objective + ?Sized>(
    s: &mut Scaled<'_, O>,
    pt: &mut Point,
    mu: f64,
    cfg: &Lbfgs,
    history: &mut Vec<f64>,
) -> (InnerEnd, u64) {
    // Optim's callback sees the start of every inner run too.
    history.push(pt.f_total);
    if max_abs(&pt.g_total) <= cfg.grad_tol {
        return (InnerEnd::Converged, 0);
    }
    let mut mem = Memory {
        pairs: VecDeque::with_capacity(cfg.memory),
        cap: cfg.memory,
    };
    let mut f_conv_run = 0usize;
    let mut it = 0u64;
    while it < cfg.max_iters {
        it += 1;
        let p: Vec<f64> =
            pt.x.iter()
                .map(|&xi| 1.0 / (mu * (1.0 / (xi * xi) + 1.0 / ((1.0 - xi) * (1.0 - xi))) + 1.0))
                .collect();
        let mut d = mem.direction(&pt.g_total, &p);
        let mut dphi0 = dot(&pt.g_total, &d);
        if dphi0.is_nan() || dphi0 >= 0.0 {
            // Optim resets to steepest descent (and the memory index).
            mem.pairs.clear();
            d = pt.g_total.iter().map(|g| -g).collect();
            dphi0 = dot(&pt.g_total, &d);
        }
        let Some(alpha) = backtrack(s, &pt.x, &d, pt.f_total, dphi0, mu) else {
            return (InnerEnd::Stuck, it);
        };
        let x_new: Vec<f64> = pt.x.iter().zip(&d).map(|(a, b)| a + alpha * b).collect();
        let x_same = x_new == pt.x;
        let Some(next) = evaluate(s, x_new, mu) else {
            return (InnerEnd::Stuck, it);
        };
        let df = (next.f_total - pt.f_total).abs();
        let f_conv = cfg
            .tol
            .is_some_and(|t| df <= t.abs || df <= t.rel * next.f_total.abs());
        f_conv_run = if f_conv { f_conv_run + 1 } else { 0 };
        let g_conv = max_abs(&next.g_total) <= cfg.grad_tol;
        let sk: Vec<f64> = next.x.iter().zip(&pt.x).map(|(a, b)| a - b).collect();
        let yk: Vec<f64> = next
            .g_total
            .iter()
            .zip(&pt.g_total)
            .map(|(a, b)| a - b)
            .collect();
        let rho = 1.0 / dot(&sk, &yk);
        if rho.is_finite() {
            if mem.pairs.len() == mem.cap {
                mem.pairs.pop_front();
            }
            mem.pairs.push_back((sk, yk, rho));
        } else {
            mem.pairs.clear();
        }
        *pt = next;
        history.push(pt.f_total);
        if cfg.early_stop.is_some_and(|e| e.triggered(history)) {
            return (InnerEnd::EarlyStop, it);
        }
        if x_same || g_conv || f_conv_run >= cfg.patience {
            return (InnerEnd::Converged, it);
        }
    }
    (InnerEnd::Converged, it)
}
