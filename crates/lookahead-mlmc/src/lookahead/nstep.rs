//! The n-step look-ahead as one recursion over stages.
//!
//! A stage is valued at a point `x` under a model (a GP and an incumbent):
//!
//! - the last stage is MC q-EI of the batch `x` on fixed normals (analytic
//!   EI when there are none);
//! - a look-ahead stage is
//!   `EI(x) + (1/N) Σᵢ mean_b max_{x'} childᵢ_b(x' | fantasy i at x)`, the
//!   children being stages one step shorter, each maximised by multi-start
//!   L-BFGS over its own box from raw candidates scored by a cheap proxy.
//!
//! The two-step look-ahead is a look-ahead stage over last stages, the
//! three-step one a look-ahead stage over look-ahead stages over last
//! stages; any depth is the same recursion. Fantasies
//! `y = μ(x) + √(σ²(x) + η)·z` are posterior-predictive draws (noise
//! included) and the incumbent becomes `max(f*, y)` (BoTorch `make_best_f`).
//! Gradients are envelope gradients: central differences of the stage value
//! with every maximiser below it held fixed ([`Stage::fixed`]).

use crate::acq::{ei, ei_at, q_ei_slice};
use crate::error::{Error, Result};
use crate::gp::ExactGp;
use crate::optim::{
    Bounds, LbfgsConfig, LocalOptimum, Objective, best_of, fd_gradient, maximize_multistart, top_k,
};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use std::cell::RefCell;

/// One fantasy model at `x`: `y = μ(x) + √(σ²(x) + η) z`, incumbent `max(f*, y)`.
fn fantasy(gp: &ExactGp, x: &[f64], z: f64, best_f: f64) -> Option<(ExactGp, f64)> {
    let (mu, var) = gp.post(x);
    let y = mu + (var + gp.noise()).sqrt() * z;
    Some((gp.fantasize_slice(x, y)?, best_f.max(y)))
}

/// How the children of a look-ahead stage are maximised: L-BFGS over
/// `bounds` from the `restarts` raw candidates with the largest proxy
/// value (plus any hints).
#[derive(Debug, Clone)]
pub(crate) struct Search<'a> {
    /// The box of a child's point (`q·d` for a batch of `q` points).
    pub bounds: Bounds,
    /// Raw candidates of a child's point.
    pub raw: &'a [Vec<f64>],
    /// Restarts picked from `raw`.
    pub restarts: usize,
    /// L-BFGS settings.
    pub lbfgs: LbfgsConfig,
}

/// One stage of an n-step look-ahead.
pub(crate) enum Stage<'a> {
    /// MC q-EI of a batch of `q` points on the normals `z` (`M × q`, flat);
    /// analytic EI when `z` is empty.
    Last {
        /// Batch size.
        q: usize,
        /// Base normals.
        z: Vec<f64>,
    },
    /// A look-ahead stage over shorter stages.
    Lookahead(Lookahead<'a>),
}

/// A fantasy of a look-ahead stage: its normal and the child stages of its
/// blocks (one block, or the even and odd halves of an antithetic split).
pub(crate) struct Fantasy<'a> {
    /// The fantasy normal `z`.
    pub z: f64,
    /// Child stages, one per block.
    pub blocks: Vec<Stage<'a>>,
}

/// `EI(x) + (1/N) Σᵢ mean_b max_{x'} childᵢ_b(x')`.
pub(crate) struct Lookahead<'a> {
    /// The fantasies at `x`.
    pub fantasies: Vec<Fantasy<'a>>,
    /// How the children are maximised.
    pub search: Search<'a>,
}

/// The maximisers below a stage at one point, per fantasy, per block: the
/// child's maximiser and the maximisers below it (empty below a last stage).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Below(pub Vec<Vec<(Vec<f64>, Below)>>);

impl Below {
    /// The children's maximisers, per fantasy, per block (the hints that
    /// couple the fine and coarse problems of an MLMC level).
    pub fn points(&self) -> Vec<Vec<Vec<f64>>> {
        self.0
            .iter()
            .map(|f| f.iter().map(|(x, _)| x.clone()).collect())
            .collect()
    }

    /// Maximisers without anything below them (children that are last stages).
    pub fn leaves(points: &[Vec<Vec<f64>>]) -> Below {
        Below(
            points
                .iter()
                .map(|f| f.iter().map(|x| (x.clone(), Below::default())).collect())
                .collect(),
        )
    }
}

/// A look-ahead stage solved at one point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Solved {
    /// `EI(x)`.
    pub ei: f64,
    /// Per-fantasy values `mean_b max childᵢ_b` (averaged over blocks).
    pub stage_values: Vec<f64>,
    /// The maximisers found.
    pub below: Below,
}

impl Solved {
    /// `EI(x) + (1/N) Σᵢ stage_values[i]`.
    pub fn value(&self) -> f64 {
        self.ei + self.stage_values.iter().sum::<f64>() / self.stage_values.len() as f64
    }
}

impl Stage<'_> {
    /// The score of a raw candidate when picking restarts: the value of a
    /// last stage, one-step EI for a look-ahead stage.
    fn proxy(&self, gp: &ExactGp, best: f64, x: &[f64]) -> f64 {
        match self {
            Stage::Last { .. } => self.fixed(gp, best, x, &Below::default()),
            Stage::Lookahead(_) => ei_at(gp, x, best),
        }
    }

    /// The stage value at `x` with every problem below it solved, and the
    /// maximisers found.
    fn solve(&self, gp: &ExactGp, best: f64, x: &[f64]) -> Result<(f64, Below)> {
        match self {
            Stage::Last { .. } => {
                Ok((self.fixed(gp, best, x, &Below::default()), Below::default()))
            }
            Stage::Lookahead(l) => {
                let s = l.solve(gp, best, x, &[])?;
                Ok((s.value(), s.below))
            }
        }
    }

    /// The stage value at `x` with the maximisers below it held fixed;
    /// `−∞` when a fantasy fails or `below` does not fit.
    fn fixed(&self, gp: &ExactGp, best: f64, x: &[f64], below: &Below) -> f64 {
        match self {
            Stage::Last { q, z } => {
                if z.is_empty() {
                    ei_at(gp, x, best)
                } else {
                    q_ei_slice(gp, x, *q, best, z)
                }
            }
            Stage::Lookahead(l) => l.fixed(gp, best, x, below),
        }
    }
}

impl Lookahead<'_> {
    /// Solves every child problem at `x`: `hints[i]` are extra restarts of
    /// every block of fantasy `i` (`hints` may be empty or shorter than `N`).
    ///
    /// # Errors
    /// [`Error::NotPositiveDefinite`] when a fantasy duplicates a noise-free
    /// input (or a child's best value is not finite), and solver errors.
    pub fn solve(
        &self,
        gp: &ExactGp,
        best: f64,
        x: &[f64],
        hints: &[Vec<Vec<f64>>],
    ) -> Result<Solved> {
        let (mu, var) = gp.post(x);
        let e = ei(mu, var.sqrt(), best);
        let n = self.fantasies.len();
        let mut stage_values = Vec::with_capacity(n);
        let mut below = Vec::with_capacity(n);
        for (i, f) in self.fantasies.iter().enumerate() {
            let (gi, bi) =
                fantasy(gp, x, f.z, best).ok_or(Error::NotPositiveDefinite { what: "fantasy" })?;
            let mut v = 0.0;
            let mut xs = Vec::with_capacity(f.blocks.len());
            for child in &f.blocks {
                let (o, b) = self.search.maximize(child, &gi, bi, hints.get(i))?;
                v += o.value;
                xs.push((o.x, b));
            }
            stage_values.push(v / f.blocks.len() as f64);
            below.push(xs);
        }
        Ok(Solved {
            ei: e,
            stage_values,
            below: Below(below),
        })
    }

    /// The stage value at `x` with the maximisers below it held fixed
    /// (its gradient in `x` is the envelope gradient); `−∞` when a fantasy
    /// fails or `below` has not one entry per fantasy.
    pub fn fixed(&self, gp: &ExactGp, best: f64, x: &[f64], below: &Below) -> f64 {
        if below.0.len() != self.fantasies.len() {
            return f64::NEG_INFINITY;
        }
        let (mu, var) = gp.post(x);
        let e = ei(mu, var.sqrt(), best);
        let mut tot = 0.0;
        for (f, fb) in self.fantasies.iter().zip(&below.0) {
            let Some((gi, bi)) = fantasy(gp, x, f.z, best) else {
                return f64::NEG_INFINITY;
            };
            let mut v = 0.0;
            for (child, (xb, cb)) in f.blocks.iter().zip(fb) {
                v += child.fixed(&gi, bi, xb, cb);
            }
            tot += v / f.blocks.len() as f64;
        }
        e + tot / self.fantasies.len() as f64
    }
}

impl Lookahead<'_> {
    /// Checks that `below` has this stage's shape: one entry per fantasy,
    /// one per block, points of the children's box (finite), and the same
    /// shape recursively below look-ahead children.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn check_below(&self, below: &Below) -> Result<()> {
        if below.0.len() != self.fantasies.len() {
            return Err(Error::DimensionMismatch {
                what: "maximisers per fantasy",
                expected: self.fantasies.len(),
                got: below.0.len(),
            });
        }
        for (f, fb) in self.fantasies.iter().zip(&below.0) {
            if fb.len() != f.blocks.len() {
                return Err(Error::DimensionMismatch {
                    what: "maximisers per block",
                    expected: f.blocks.len(),
                    got: fb.len(),
                });
            }
            for (child, (xb, cb)) in f.blocks.iter().zip(fb) {
                self.search.bounds.check_point("inner maximiser", xb)?;
                match child {
                    Stage::Lookahead(l) => l.check_below(cb)?,
                    Stage::Last { .. } if !cb.0.is_empty() => {
                        return Err(Error::DimensionMismatch {
                            what: "maximisers below a last stage",
                            expected: 0,
                            got: cb.0.len(),
                        });
                    }
                    Stage::Last { .. } => {}
                }
            }
        }
        Ok(())
    }
}

impl Search<'_> {
    /// The best local maximum of `child` under `(gp, best)` and the
    /// maximisers below it.
    fn maximize(
        &self,
        child: &Stage<'_>,
        gp: &ExactGp,
        best: f64,
        hints: Option<&Vec<Vec<f64>>>,
    ) -> Result<(LocalOptimum, Below)> {
        crate::cost::inner_optimisation();
        let obj = StageObjective {
            stage: child,
            gp,
            best,
            last: LastPoint::new(),
        };
        let mut starts = top_k(self.raw, |p| child.proxy(gp, best, p), self.restarts);
        if let Some(h) = hints {
            starts.extend(h.iter().cloned());
        }
        let opts = maximize_multistart(&obj, &self.bounds, &starts, &self.lbfgs)?;
        let o = best_of(&opts).expect("restarts >= 1");
        if !o.value.is_finite() {
            return Err(Error::NotPositiveDefinite { what: "fantasy" });
        }
        let below = match child {
            Stage::Last { .. } => Below::default(),
            Stage::Lookahead(_) => obj.solve(&o.x)?.1,
        };
        Ok((o.clone(), below))
    }
}

/// A stage under a fixed model as an L-BFGS objective (value with its
/// inner problems solved, envelope gradient).
struct StageObjective<'s, 'a> {
    stage: &'s Stage<'a>,
    gp: &'s ExactGp,
    best: f64,
    /// The last solve.
    last: LastPoint<(f64, Below)>,
}

impl StageObjective<'_, '_> {
    /// Stage value and the maximisers below it (cached for the last point).
    fn solve(&self, x: &[f64]) -> Result<(f64, Below)> {
        if let Stage::Last { .. } = self.stage {
            // Nothing to solve below a last stage: no cache needed.
            return self.stage.solve(self.gp, self.best, x);
        }
        if let Some(s) = self.last.get(x) {
            return Ok(s);
        }
        let s = self.stage.solve(self.gp, self.best, x)?;
        self.last.set(x, &s);
        Ok(s)
    }
}

impl Objective for StageObjective<'_, '_> {
    fn value(&self, x: &[f64]) -> f64 {
        self.solve(x).map(|(v, _)| v).unwrap_or(f64::NEG_INFINITY)
    }
    fn gradient(&self, x: &[f64], h: &[f64]) -> Vec<f64> {
        let below = match self.stage {
            // A last stage has nothing below it to hold fixed.
            Stage::Last { .. } => Ok(Below::default()),
            Stage::Lookahead(_) => self.solve(x).map(|(_, b)| b),
        };
        match below {
            Ok(below) => fd_gradient(|p| self.stage.fixed(self.gp, self.best, p, &below), x, h),
            Err(_) => vec![0.0; x.len()],
        }
    }
}

/// The result at the last point evaluated. L-BFGS asks for the value and
/// the gradient at the same point, so one solve serves both.
pub(crate) struct LastPoint<S>(RefCell<Option<(Vec<f64>, S)>>);

impl<S: Clone> LastPoint<S> {
    pub fn new() -> Self {
        LastPoint(RefCell::new(None))
    }
    pub fn get(&self, x: &[f64]) -> Option<S> {
        match self.0.borrow().as_ref() {
            Some((cx, s)) if cx.as_slice() == x => Some(s.clone()),
            _ => None,
        }
    }
    pub fn set(&self, x: &[f64], s: &S) {
        *self.0.borrow_mut() = Some((x.to_vec(), s.clone()));
    }
    pub fn clear(&self) {
        *self.0.borrow_mut() = None;
    }
}

/// The outermost look-ahead stage of an SAA problem over its box, with its
/// hints (extra restarts of the first inner maximisations) and a cache of
/// the last point solved: the engine behind [`super::TwoStepSaa`] and
/// [`super::ThreeStepSaa`].
pub(crate) struct NStepSaa<'a> {
    gp: &'a ExactGp,
    bounds: Bounds,
    best_f: f64,
    root: Lookahead<'a>,
    /// L-BFGS settings of the maximisation over `x`.
    lbfgs: LbfgsConfig,
    hints: Vec<Vec<Vec<f64>>>,
    cache: LastPoint<Solved>,
}

impl<'a> NStepSaa<'a> {
    /// The SAA problem `root` on `gp` over `bounds` (checked by the caller).
    pub fn new(
        gp: &'a ExactGp,
        bounds: &Bounds,
        best_f: f64,
        root: Lookahead<'a>,
        lbfgs: LbfgsConfig,
    ) -> Self {
        NStepSaa {
            gp,
            bounds: bounds.clone(),
            best_f,
            root,
            lbfgs,
            hints: Vec::new(),
            cache: LastPoint::new(),
        }
    }

    fn check_hints(&self, hints: &[Vec<Vec<f64>>]) -> Result<()> {
        for h in hints.iter().flatten() {
            self.root.search.bounds.check_point("hint", h)?;
        }
        Ok(())
    }

    /// Sets the hints used at every `x` and clears the cache.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad hint.
    pub fn set_hints(&mut self, hints: Vec<Vec<Vec<f64>>>) -> Result<()> {
        self.check_hints(&hints)?;
        self.hints = hints;
        self.cache.clear();
        Ok(())
    }

    /// Solves the problem at `x` with the stored hints (cached for the last `x`).
    ///
    /// # Errors
    /// As [`NStepSaa::evaluate_with_hints`].
    pub fn evaluate(&self, x: &[f64]) -> Result<Solved> {
        if let Some(sol) = self.cache.get(x) {
            return Ok(sol);
        }
        self.bounds.check_in_box("x", x)?;
        let sol = self.root.solve(self.gp, self.best_f, x, &self.hints)?;
        self.cache.set(x, &sol);
        Ok(sol)
    }

    /// Solves the problem at `x` with the given hints instead of the stored ones.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad `x` or
    /// hint, [`Error::NotPositiveDefinite`] when a fantasy duplicates a
    /// noise-free input, and solver errors.
    pub fn evaluate_with_hints(&self, x: &[f64], hints: &[Vec<Vec<f64>>]) -> Result<Solved> {
        self.bounds.check_in_box("x", x)?;
        self.check_hints(hints)?;
        self.root.solve(self.gp, self.best_f, x, hints)
    }

    /// The SAA objective at `x` with the maximisers below it held fixed.
    pub fn value_with_inner(&self, x: &[f64], below: &Below) -> f64 {
        self.root.fixed(self.gp, self.best_f, x, below)
    }

    /// [`NStepSaa::value_with_inner`] after checking `x` and the shape of `below`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn value_with_inner_checked(&self, x: &[f64], below: &Below) -> Result<f64> {
        self.bounds.check_in_box("x", x)?;
        self.root.check_below(below)?;
        Ok(self.value_with_inner(x, below))
    }

    /// Maximises the value from each start (multi-start L-BFGS, envelope
    /// gradient); one local optimum per start.
    ///
    /// # Errors
    /// As [`maximize_multistart`].
    pub fn maximize(&self, starts: &[Vec<f64>]) -> Result<Vec<LocalOptimum>> {
        maximize_multistart(
            &RootObjective { saa: self },
            &self.bounds,
            starts,
            &self.lbfgs,
        )
    }
}

struct RootObjective<'s, 'a> {
    saa: &'s NStepSaa<'a>,
}

impl Objective for RootObjective<'_, '_> {
    fn value(&self, x: &[f64]) -> f64 {
        self.saa
            .evaluate(x)
            .map(|s| s.value())
            .unwrap_or(f64::NEG_INFINITY)
    }
    fn gradient(&self, x: &[f64], h: &[f64]) -> Vec<f64> {
        match self.saa.evaluate(x) {
            Ok(sol) => fd_gradient(|p| self.saa.value_with_inner(p, &sol.below), x, h),
            Err(_) => vec![0.0; x.len()],
        }
    }
}

/// Restarts of the maximisation over `x`: the `restarts` best of
/// `raw_samples` uniform points of `bounds` by one-step EI (a cheap proxy
/// for BoTorch's initialiser).
pub(crate) fn ei_restarts<R: Rng + ?Sized>(
    gp: &ExactGp,
    bounds: &Bounds,
    best_f: f64,
    raw_samples: usize,
    restarts: usize,
    rng: &mut R,
) -> Vec<Vec<f64>> {
    let raw: Vec<Vec<f64>> = (0..raw_samples).map(|_| bounds.sample(rng)).collect();
    top_k(&raw, |x| ei_at(gp, x, best_f), restarts)
}

/// Checks that `bounds` is a box of the GP's input space.
///
/// # Errors
/// [`Error::DimensionMismatch`].
pub(crate) fn check_bounds(gp: &ExactGp, bounds: &Bounds) -> Result<()> {
    if bounds.dim() != gp.dim() {
        return Err(Error::DimensionMismatch {
            what: "bounds",
            expected: gp.dim(),
            got: bounds.dim(),
        });
    }
    Ok(())
}

/// Checks that the incumbent is finite.
///
/// # Errors
/// [`Error::NonFinite`].
pub(crate) fn check_best_f(best_f: f64) -> Result<()> {
    if !best_f.is_finite() {
        return Err(Error::NonFinite { what: "best_f" });
    }
    Ok(())
}

/// [`check_bounds`] then [`check_best_f`]: the set-up of an SAA problem.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::NonFinite`].
pub(crate) fn check_problem(gp: &ExactGp, bounds: &Bounds, best_f: f64) -> Result<()> {
    check_bounds(gp, bounds)?;
    check_best_f(best_f)
}

/// Draws the base samples of an SAA problem: `N` outer fantasy normals,
/// `N × per_fantasy` inner normals, then `raw` uniform candidates of
/// `raw_bounds` (in this order, from `rng`).
pub(crate) fn draw_base_samples<R: Rng + ?Sized>(
    n: usize,
    per_fantasy: usize,
    raw_bounds: &Bounds,
    raw: usize,
    rng: &mut R,
) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let outer = (0..n).map(|_| rng.sample(StandardNormal)).collect();
    let inner = (0..n * per_fantasy)
        .map(|_| rng.sample(StandardNormal))
        .collect();
    let raw = (0..raw).map(|_| raw_bounds.sample(rng)).collect();
    (outer, inner, raw)
}

/// Per-fantasy union of two hint lists.
pub(crate) fn merge_hints(a: &[Vec<Vec<f64>>], b: &[Vec<Vec<f64>>]) -> Vec<Vec<Vec<f64>>> {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.iter().chain(y).cloned().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// A `depth`-step look-ahead with the fantasy normals `zs[k]` at stage
    /// `k` (one block each) over analytic EI; depth 1 is EI itself.
    fn stage<'a>(depth: usize, zs: &[Vec<f64>], search: &Search<'a>) -> Stage<'a> {
        if depth == 1 {
            return Stage::Last {
                q: 1,
                z: Vec::new(),
            };
        }
        Stage::Lookahead(Lookahead {
            fantasies: zs[0]
                .iter()
                .map(|&z| Fantasy {
                    z,
                    blocks: vec![stage(depth - 1, &zs[1..], search)],
                })
                .collect(),
            search: search.clone(),
        })
    }

    /// The recursion is generic over the depth: two-, three- and four-step
    /// values on shared fantasies are ordered (each stage adds a
    /// non-negative term), up to the solvers' accuracy, and all ≥ EI.
    #[test]
    fn deeper_look_ahead_is_worth_at_least_as_much() {
        let x = array![[0.1], [0.45], [0.9]];
        let y = array![0.2, 0.9, 0.4];
        let k = crate::gp::Kernel::new(crate::gp::KernelKind::Matern52, vec![0.2], 1.0).unwrap();
        let gp = ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap();
        let best = gp.best_observed();
        let bounds = Bounds::unit(1).unwrap();
        let raw: Vec<Vec<f64>> = (0..8).map(|i| vec![(i as f64 + 0.5) / 8.0]).collect();
        let search = Search {
            bounds,
            raw: &raw,
            restarts: 2,
            lbfgs: LbfgsConfig {
                max_iters: 8,
                max_evals: Some(16),
                ..LbfgsConfig::default()
            },
        };
        let zs = vec![vec![-0.7, 0.4], vec![1.1], vec![-0.2]];
        let x0 = [0.3];
        let e = ei_at(&gp, &x0, best);
        let mut prev = e;
        for depth in 2..=4 {
            let (v, below) = stage(depth, &zs, &search).solve(&gp, best, &x0).unwrap();
            assert!(
                v.is_finite() && v >= prev - 1e-6,
                "depth {depth}: {v} < {prev}"
            );
            let again = stage(depth, &zs, &search).fixed(&gp, best, &x0, &below);
            assert!((again - v).abs() < 1e-12, "depth {depth}: {again} vs {v}");
            prev = v;
        }
        assert!(prev > e);
    }
}
