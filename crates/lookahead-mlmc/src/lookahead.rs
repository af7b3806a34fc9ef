//! Two-step (1+q₂-EI) and three-step (1+1+1-EI) look-ahead values as
//! sample-average (SAA) problems, their MLMC level samplers, and MLMC
//! applied to the value *and the maximiser* with the paper's matching rules.
//!
//! - Two-step: `α₂(x) = EI(x) + E_{y~p(y(x)|D)}[max_{x'∈X^{q₂}} qEI(x' | D ∪ {(x, y)})]`.
//! - Three-step: `α₃(x) = EI(x) + E_{y₁}[max_{x₁}{EI₁(x₁) + E_{y₂}[max_{x₂} EI₂(x₂)]}]`.
//!
//! Fantasies `y = μ(x) + √(σ²(x) + η)·z` are posterior-predictive draws (noise
//! included) and the incumbent becomes `max(f*, y)` (BoTorch `make_best_f`).
//! The caller owns every base sample (`z`, the inner `M × q₂` normals, the
//! raw restart candidates): fine and coarse problems of one MLMC level share
//! them exactly and nothing shared is mutated (the pitfall of the official
//! code, which mutates sampler `base_samples`).
//!
//! Solver (a documented deviation): BoTorch solves the SAA problem
//! "one-shot", `x` and one `x'` per fantasy jointly by L-BFGS-B. Here the
//! inner problems are solved for each `x` (they are independent given `x`),
//! each by multi-start L-BFGS, and `x` is optimised by L-BFGS on the
//! resulting value `V(x) = EI(x) + (1/N) Σᵢ maxₓ' qEIᵢ(x')`, whose gradient
//! is the envelope-theorem gradient (derivative at fixed inner maximisers,
//! by central differences). At a joint optimum both formulations agree.

use crate::acq::{ei, ei_at, q_ei_slice};
use crate::error::{Error, Result};
use crate::gp::ExactGp;
use crate::mlmc::{
    Allocation, Coupling, LevelSampler, LevelSamples, MlmcConfig, allocate, inner_samples,
};
use crate::optim::{
    Bounds, LbfgsConfig, LocalOptimum, Objective, best_of, fd_gradient, maximize_multistart, top_k,
};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use std::cell::RefCell;

/// Solver settings of the SAA problems. The paper uses BoTorch's
/// `num_restarts = 20`, `raw_samples = 256`; the defaults here are smaller
/// (8 / 64 outer, 3 / 32 inner) because the nested solver needs fewer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SaaConfig {
    /// Raw candidates of `x` scored by one-step EI to pick restarts.
    pub raw_samples: usize,
    /// Restarts of the outer maximisation over `x`.
    pub restarts: usize,
    /// Raw candidates of each inner batch `x'` (shared by all fantasies and levels' fine/coarse problems).
    pub inner_raw_samples: usize,
    /// Restarts of each inner maximisation.
    pub inner_restarts: usize,
    /// L-BFGS settings of the outer maximisation.
    pub lbfgs: LbfgsConfig,
    /// L-BFGS settings of the inner maximisations.
    pub inner_lbfgs: LbfgsConfig,
}

impl Default for SaaConfig {
    fn default() -> Self {
        SaaConfig {
            raw_samples: 64,
            restarts: 8,
            inner_raw_samples: 32,
            inner_restarts: 3,
            lbfgs: LbfgsConfig {
                max_iters: 40,
                ..LbfgsConfig::default()
            },
            inner_lbfgs: LbfgsConfig {
                max_iters: 30,
                ..LbfgsConfig::default()
            },
        }
    }
}

impl SaaConfig {
    fn check(&self) -> Result<()> {
        for (what, v) in [
            ("raw_samples", self.raw_samples),
            ("restarts", self.restarts),
            ("inner_raw_samples", self.inner_raw_samples),
            ("inner_restarts", self.inner_restarts),
        ] {
            if v == 0 {
                return Err(Error::InvalidBatchSize { what });
            }
        }
        Ok(())
    }
}

/// The last-stage value of the two-step look-ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerValue {
    /// Analytic EI (`q₂ = 1`): no inner MC, so every MLMC increment is 0.
    AnalyticEi,
    /// MC q-EI on a batch of `q` points (the paper's default `q₂ = 2`).
    QEi {
        /// Batch size `q₂ ≥ 1`.
        q: usize,
    },
}

impl InnerValue {
    fn q(&self) -> usize {
        match self {
            InnerValue::AnalyticEi => 1,
            InnerValue::QEi { q } => *q,
        }
    }
    fn check(&self) -> Result<()> {
        if self.q() == 0 {
            Err(Error::InvalidBatchSize { what: "q2" })
        } else {
            Ok(())
        }
    }
}

/// How the inner samples of each fantasy are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerSplit {
    /// All `M` samples: the fine problem.
    Full,
    /// Even and odd halves, each maximised, values averaged: the antithetic coarse problem.
    Antithetic,
    /// The first `M/2` samples: the standard coarse problem.
    FirstHalf,
}

impl InnerSplit {
    /// The coarse split of a coupling.
    pub fn coarse(c: Coupling) -> Self {
        match c {
            Coupling::Antithetic => InnerSplit::Antithetic,
            Coupling::Standard => InnerSplit::FirstHalf,
        }
    }
}

/// The base samples of one two-step SAA problem.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoStepSamples {
    /// Outer fantasy normals `zᵢ`, `i < N`.
    pub outer: Vec<f64>,
    /// Inner normals, `N × M × q` (row-major); empty for analytic EI.
    pub inner: Vec<f64>,
    /// Inner samples per fantasy `M`.
    pub m: usize,
    /// Raw candidates for the inner batches (each `q·d` long).
    pub inner_raw: Vec<Vec<f64>>,
}

impl TwoStepSamples {
    /// Draws `N` outer normals, `N × M × q` inner normals (none for analytic
    /// EI) and `inner_raw` uniform candidates of `inner_bounds`.
    pub fn draw<R: Rng + ?Sized>(
        n: usize,
        m: usize,
        inner: InnerValue,
        inner_bounds: &Bounds,
        inner_raw: usize,
        rng: &mut R,
    ) -> Self {
        let outer = (0..n).map(|_| rng.sample(StandardNormal)).collect();
        let inner_z = match inner {
            InnerValue::AnalyticEi => Vec::new(),
            InnerValue::QEi { q } => (0..n * m * q).map(|_| rng.sample(StandardNormal)).collect(),
        };
        let inner_raw = (0..inner_raw).map(|_| inner_bounds.sample(rng)).collect();
        TwoStepSamples {
            outer,
            inner: inner_z,
            m,
            inner_raw,
        }
    }
}

/// One fantasy model at `x`: `y = μ(x) + √(σ²(x) + η) z`, incumbent `max(f*, y)`.
fn fantasy(gp: &ExactGp, x: &[f64], z: f64, best_f: f64) -> Option<(ExactGp, f64)> {
    let (mu, var) = gp.post(x);
    let y = mu + (var + gp.noise()).sqrt() * z;
    Some((gp.fantasize_slice(x, y)?, best_f.max(y)))
}

struct InnerProblem<'a> {
    gp: &'a ExactGp,
    best: f64,
    q: usize,
    z: &'a [f64],
}

impl Objective for InnerProblem<'_> {
    fn value(&self, x: &[f64]) -> f64 {
        if self.z.is_empty() {
            ei_at(self.gp, x, self.best)
        } else {
            q_ei_slice(self.gp, x, self.q, self.best, self.z)
        }
    }
}

fn solve_inner(
    p: &InnerProblem<'_>,
    bounds: &Bounds,
    raw: &[Vec<f64>],
    restarts: usize,
    cfg: &LbfgsConfig,
) -> Result<LocalOptimum> {
    let starts = top_k(raw, |x| p.value(x), restarts);
    let opts = maximize_multistart(p, bounds, &starts, cfg)?;
    Ok(best_of(&opts).expect("restarts >= 1").clone())
}

/// The solution of a two-step SAA problem at one `x`.
#[derive(Debug, Clone, PartialEq)]
pub struct TwoStepSolution {
    /// `V(x) = EI(x) + (1/N) Σᵢ vᵢ`.
    pub value: f64,
    /// `EI(x)`.
    pub ei: f64,
    /// Inner values `vᵢ` (averaged over blocks for the antithetic split).
    pub inner_values: Vec<f64>,
    /// Inner maximisers, per fantasy, per block (`q·d` each).
    pub inner_x: Vec<Vec<Vec<f64>>>,
}

/// The two-step SAA problem `V(x) = EI(x) + (1/N) Σᵢ max_{x'} qEIᵢ(x')`
/// over fixed base samples.
pub struct TwoStepSaa<'a> {
    gp: &'a ExactGp,
    bounds: Bounds,
    inner_bounds: Bounds,
    best_f: f64,
    inner: InnerValue,
    samples: &'a TwoStepSamples,
    /// `blocks[i][b]`: the normals of block `b` of fantasy `i` (flat `·×q`).
    blocks: Vec<Vec<Vec<f64>>>,
    cfg: SaaConfig,
    cache: RefCell<Option<(Vec<f64>, TwoStepSolution)>>,
}

impl<'a> TwoStepSaa<'a> {
    /// The SAA problem on `gp` over `bounds`, incumbent `best_f`, with the
    /// given inner value, base samples and split.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `bounds` and the GP disagree or the
    /// samples have the wrong sizes; [`Error::InvalidBatchSize`] for `q₂ = 0`,
    /// `N = 0`, `M < 2` with a split, or a zero solver count; [`Error::NonFinite`] for `best_f`.
    pub fn new(
        gp: &'a ExactGp,
        bounds: &Bounds,
        best_f: f64,
        inner: InnerValue,
        samples: &'a TwoStepSamples,
        split: InnerSplit,
        cfg: SaaConfig,
    ) -> Result<Self> {
        inner.check()?;
        cfg.check()?;
        if bounds.dim() != gp.dim() {
            return Err(Error::DimensionMismatch {
                what: "bounds",
                expected: gp.dim(),
                got: bounds.dim(),
            });
        }
        if !best_f.is_finite() {
            return Err(Error::NonFinite { what: "best_f" });
        }
        let n = samples.outer.len();
        if n == 0 {
            return Err(Error::InvalidBatchSize { what: "N" });
        }
        let q = inner.q();
        let inner_bounds = bounds.repeat(q);
        if samples.inner_raw.is_empty() {
            return Err(Error::InvalidBatchSize {
                what: "inner raw samples",
            });
        }
        for r in &samples.inner_raw {
            inner_bounds.check_point("inner raw sample", r)?;
        }
        let m = samples.m;
        let blocks = match inner {
            InnerValue::AnalyticEi => vec![vec![Vec::new()]; n],
            InnerValue::QEi { q } => {
                if m == 0 || (split != InnerSplit::Full && m < 2) {
                    return Err(Error::InvalidBatchSize { what: "M" });
                }
                if samples.inner.len() != n * m * q {
                    return Err(Error::DimensionMismatch {
                        what: "inner samples",
                        expected: n * m * q,
                        got: samples.inner.len(),
                    });
                }
                (0..n)
                    .map(|i| {
                        let rows: Vec<&[f64]> = samples.inner[i * m * q..(i + 1) * m * q]
                            .chunks(q)
                            .collect();
                        let pick = |f: &dyn Fn(usize) -> bool| -> Vec<f64> {
                            rows.iter()
                                .enumerate()
                                .filter(|(j, _)| f(*j))
                                .flat_map(|(_, r)| r.iter().copied())
                                .collect()
                        };
                        match split {
                            InnerSplit::Full => vec![pick(&|_| true)],
                            InnerSplit::FirstHalf => vec![pick(&|j| j < m / 2)],
                            InnerSplit::Antithetic => {
                                vec![pick(&|j| j % 2 == 0), pick(&|j| j % 2 == 1)]
                            }
                        }
                    })
                    .collect()
            }
        };
        Ok(TwoStepSaa {
            gp,
            bounds: bounds.clone(),
            inner_bounds,
            best_f,
            inner,
            samples,
            blocks,
            cfg,
            cache: RefCell::new(None),
        })
    }

    /// Solves every inner problem at `x`: cost `N · blocks · (raw + restarts · iterations · (1 + 2q₂d))` q-EI evaluations.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad `x`,
    /// [`Error::NotPositiveDefinite`] when a fantasy duplicates a noise-free input.
    pub fn evaluate(&self, x: &[f64]) -> Result<TwoStepSolution> {
        if let Some((cx, sol)) = self.cache.borrow().as_ref()
            && cx.as_slice() == x
        {
            return Ok(sol.clone());
        }
        let sol = self.evaluate_with_hints(x, &[])?;
        *self.cache.borrow_mut() = Some((x.to_vec(), sol.clone()));
        Ok(sol)
    }

    /// [`TwoStepSaa::evaluate`] with extra restarts: `hints[i]` are inner
    /// batches (`q·d` each) added to the restarts of every block of fantasy
    /// `i` (typically the maximisers of the coupled fine or coarse problem,
    /// so that both problems of an MLMC level find the same local optima;
    /// an inner value is then never below the hint's value). `hints` may be
    /// empty or shorter than `N`.
    ///
    /// # Errors
    /// As [`TwoStepSaa::evaluate`], and [`Error::DimensionMismatch`] for a hint of the wrong length.
    pub fn evaluate_with_hints(
        &self,
        x: &[f64],
        hints: &[Vec<Vec<f64>>],
    ) -> Result<TwoStepSolution> {
        self.bounds.check_point("x", x)?;
        for h in hints.iter().flatten() {
            self.inner_bounds.check_point("hint", h)?;
        }
        let (mu, var) = self.gp.post(x);
        let e = ei(mu, var.sqrt(), self.best_f);
        let q = self.inner.q();
        let mut inner_values = Vec::with_capacity(self.blocks.len());
        let mut inner_x = Vec::with_capacity(self.blocks.len());
        for (i, blocks) in self.blocks.iter().enumerate() {
            let (gpi, besti) = fantasy(self.gp, x, self.samples.outer[i], self.best_f)
                .ok_or(Error::NotPositiveDefinite { what: "fantasy" })?;
            let mut v = 0.0;
            let mut xs = Vec::with_capacity(blocks.len());
            for z in blocks {
                let p = InnerProblem {
                    gp: &gpi,
                    best: besti,
                    q,
                    z,
                };
                let mut starts = top_k(
                    &self.samples.inner_raw,
                    |x| p.value(x),
                    self.cfg.inner_restarts,
                );
                if let Some(h) = hints.get(i) {
                    starts.extend(h.iter().cloned());
                }
                let opts =
                    maximize_multistart(&p, &self.inner_bounds, &starts, &self.cfg.inner_lbfgs)?;
                let o = best_of(&opts).expect("restarts >= 1");
                v += o.value;
                xs.push(o.x.clone());
            }
            inner_values.push(v / blocks.len() as f64);
            inner_x.push(xs);
        }
        let value = e + inner_values.iter().sum::<f64>() / inner_values.len() as f64;
        Ok(TwoStepSolution {
            value,
            ei: e,
            inner_values,
            inner_x,
        })
    }

    /// The SAA objective at `x` with the inner batches held fixed
    /// (`inner_x[i][b]`): `EI(x) + (1/N) Σᵢ mean_b qEIᵢ_b(x'ᵢ_b)`. Never above
    /// [`TwoStepSaa::evaluate`]'s value up to the inner solver's accuracy.
    /// O(N · blocks · (n² + M q²)).
    pub fn value_with_inner(&self, x: &[f64], inner_x: &[Vec<Vec<f64>>]) -> f64 {
        let (mu, var) = self.gp.post(x);
        let e = ei(mu, var.sqrt(), self.best_f);
        let q = self.inner.q();
        let mut tot = 0.0;
        for (i, blocks) in self.blocks.iter().enumerate() {
            let Some((gpi, besti)) = fantasy(self.gp, x, self.samples.outer[i], self.best_f) else {
                return f64::NEG_INFINITY;
            };
            let mut v = 0.0;
            for (z, xb) in blocks.iter().zip(&inner_x[i]) {
                let p = InnerProblem {
                    gp: &gpi,
                    best: besti,
                    q,
                    z,
                };
                v += p.value(xb);
            }
            tot += v / blocks.len() as f64;
        }
        e + tot / self.blocks.len() as f64
    }

    /// Maximises `V(x)` from each start (multi-start L-BFGS, envelope
    /// gradient); one local optimum per start.
    ///
    /// # Errors
    /// As [`maximize_multistart`].
    pub fn maximize(&self, starts: &[Vec<f64>]) -> Result<Vec<LocalOptimum>> {
        maximize_multistart(
            &OuterObjective { saa: self },
            &self.bounds,
            starts,
            &self.cfg.lbfgs,
        )
    }
}

struct OuterObjective<'s, 'a> {
    saa: &'s TwoStepSaa<'a>,
}

impl Objective for OuterObjective<'_, '_> {
    fn value(&self, x: &[f64]) -> f64 {
        self.saa
            .evaluate(x)
            .map(|s| s.value)
            .unwrap_or(f64::NEG_INFINITY)
    }
    fn gradient(&self, x: &[f64], h: &[f64]) -> Vec<f64> {
        match self.saa.evaluate(x) {
            Ok(sol) => fd_gradient(|p| self.saa.value_with_inner(p, &sol.inner_x), x, h),
            Err(_) => vec![0.0; x.len()],
        }
    }
}

/// The two-step value `α₂(x₀)` at a fixed `x₀` as an MLMC problem: level
/// `ℓ` uses `M = 2^ℓ` inner samples per fantasy; `P_ℓ^f = EI(x₀) + max qEI`
/// on all of them, `P_{ℓ−1}^c` the antithetic or standard coarse value. Cost
/// unit: inner samples (`N·2^ℓ` per call; `N` for analytic EI).
///
/// Coupled solve (this crate's choice, to keep the coupling tight when the
/// inner maximisation is multimodal): the fine and coarse inner problems are
/// each solved from the raw restarts, then both are re-solved from the same
/// restarts plus the maximisers of both, so a local optimum found by one is
/// available to the other. Identical problems (analytic inner EI) give
/// bit-identical values, so their increments are exactly 0.
pub struct TwoStepValueSampler<'a> {
    gp: &'a ExactGp,
    x0: Vec<f64>,
    bounds: Bounds,
    best_f: f64,
    inner: InnerValue,
    coupling: Coupling,
    cfg: SaaConfig,
}

impl<'a> TwoStepValueSampler<'a> {
    /// The sampler of `α₂(x₀)` on `gp` (incumbent `best_f`, inner problems on `bounds`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`], [`Error::InvalidBatchSize`].
    pub fn new(
        gp: &'a ExactGp,
        x0: &[f64],
        bounds: &Bounds,
        best_f: f64,
        inner: InnerValue,
        coupling: Coupling,
        cfg: SaaConfig,
    ) -> Result<Self> {
        inner.check()?;
        cfg.check()?;
        if bounds.dim() != gp.dim() {
            return Err(Error::DimensionMismatch {
                what: "bounds",
                expected: gp.dim(),
                got: bounds.dim(),
            });
        }
        bounds.check_point("x0", x0)?;
        if !best_f.is_finite() {
            return Err(Error::NonFinite { what: "best_f" });
        }
        Ok(TwoStepValueSampler {
            gp,
            x0: x0.to_vec(),
            bounds: bounds.clone(),
            best_f,
            inner,
            coupling,
            cfg,
        })
    }
}

impl LevelSampler for TwoStepValueSampler<'_> {
    fn sample<R: Rng + ?Sized>(
        &mut self,
        level: u32,
        n: usize,
        with_coarse: bool,
        rng: &mut R,
    ) -> Result<LevelSamples> {
        let m = inner_samples(level)?;
        if n == 0 {
            return Err(Error::InvalidBatchSize { what: "n" });
        }
        let ib = self.bounds.repeat(self.inner.q());
        let s = TwoStepSamples::draw(n, m, self.inner, &ib, self.cfg.inner_raw_samples, rng);
        let fine_p = TwoStepSaa::new(
            self.gp,
            &self.bounds,
            self.best_f,
            self.inner,
            &s,
            InnerSplit::Full,
            self.cfg,
        )?;
        let fine0 = fine_p.evaluate(&self.x0)?;
        let (fine, coarse) = if with_coarse {
            // Coupled solve: both problems are solved once from the raw
            // restarts, then re-solved from the same restarts plus the
            // maximisers of both (`hints`), so that they see the same local
            // optima; identical problems (analytic inner value) give
            // bit-identical solutions.
            let coarse_p = TwoStepSaa::new(
                self.gp,
                &self.bounds,
                self.best_f,
                self.inner,
                &s,
                InnerSplit::coarse(self.coupling),
                self.cfg,
            )?;
            let coarse0 = coarse_p.evaluate(&self.x0)?;
            let hints: Vec<Vec<Vec<f64>>> = fine0
                .inner_x
                .iter()
                .zip(&coarse0.inner_x)
                .map(|(f, c)| f.iter().chain(c).cloned().collect())
                .collect();
            let f = fine_p.evaluate_with_hints(&self.x0, &hints)?;
            let c = coarse_p.evaluate_with_hints(&self.x0, &hints)?;
            (f, Some(c.inner_values.iter().map(|v| c.ei + v).collect()))
        } else {
            (fine0, None)
        };
        let f: Vec<f64> = fine.inner_values.iter().map(|v| fine.ei + v).collect();
        let per = match self.inner {
            InnerValue::AnalyticEi => 1.0,
            InnerValue::QEi { .. } => m as f64,
        };
        Ok(LevelSamples {
            fine: f,
            coarse,
            cost: n as f64 * per,
        })
    }
}

/// How local maximisers of the fine and coarse problems are paired across
/// levels (the official code's rules; their exact form is reconstructed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// Coarse: the best coarse candidate; fine: the fine candidate nearest to it.
    Point,
    /// Coarse: the candidate nearest to the previous level's matched fine
    /// point; fine: the candidate nearest to that coarse point.
    Forward,
    /// Fine: the best fine candidate; coarse: the candidate nearest to it.
    Backward,
}

/// Settings of [`mlmc_two_step_argmax`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MlmcLookahead {
    /// Rates and constants of the allocation (paper defaults).
    pub mlmc: MlmcConfig,
    /// Coupling of the coarse problems (paper: antithetic).
    pub coupling: Coupling,
    /// Matching rule of the maximisers (paper default: forward).
    pub matching: Matching,
    /// The last-stage value (paper: q-EI with `q₂ = 2`).
    pub inner: InnerValue,
    /// Solver settings.
    pub saa: SaaConfig,
}

impl Default for MlmcLookahead {
    fn default() -> Self {
        MlmcLookahead {
            mlmc: MlmcConfig::default(),
            coupling: Coupling::Antithetic,
            matching: Matching::Forward,
            inner: InnerValue::QEi { q: 2 },
            saa: SaaConfig::default(),
        }
    }
}

/// One level of [`mlmc_two_step_argmax`].
#[derive(Debug, Clone, PartialEq)]
pub struct ArgmaxLevel {
    /// Level `ℓ` (`M = 2^ℓ` inner samples).
    pub level: u32,
    /// Outer samples `N_ℓ`.
    pub n: usize,
    /// Matched fine maximiser and its value.
    pub fine: LocalOptimum,
    /// Matched coarse maximiser and its value (none at the first level).
    pub coarse: Option<LocalOptimum>,
    /// `‖x_fine − x_coarse‖` (0 at the first level).
    pub matched_distance: f64,
}

/// The MLMC maximiser and value of the two-step look-ahead.
#[derive(Debug, Clone, PartialEq)]
pub struct MlmcArgmax {
    /// `x̂ = Σ_ℓ Δx_ℓ`, clamped into the box.
    pub x: Vec<f64>,
    /// `Σ_ℓ Δx_ℓ` before clamping.
    pub x_unclamped: Vec<f64>,
    /// `α̂ = Σ_ℓ Δα_ℓ`.
    pub value: f64,
    /// The allocation used.
    pub allocation: Allocation,
    /// Per-level matched solutions.
    pub levels: Vec<ArgmaxLevel>,
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn nearest<'o>(c: &'o [LocalOptimum], to: &[f64]) -> &'o LocalOptimum {
    c.iter()
        .fold(None, |acc: Option<&LocalOptimum>, o| match acc {
            Some(a) if dist(&a.x, to) <= dist(&o.x, to) => Some(a),
            _ => Some(o),
        })
        .expect("non-empty")
}

/// Maximises the two-step SAA problem with `N` fantasies and `M` inner
/// samples (plain MC): returns the best local optimum over the restarts.
///
/// # Errors
/// As [`TwoStepSaa::new`] and [`TwoStepSaa::maximize`].
pub fn maximize_two_step<R: Rng + ?Sized>(
    gp: &ExactGp,
    bounds: &Bounds,
    n: usize,
    m: usize,
    inner: InnerValue,
    saa: &SaaConfig,
    rng: &mut R,
) -> Result<LocalOptimum> {
    inner.check()?;
    saa.check()?;
    let best_f = gp.best_observed();
    let ib = bounds.repeat(inner.q());
    let s = TwoStepSamples::draw(n, m, inner, &ib, saa.inner_raw_samples, rng);
    let p = TwoStepSaa::new(gp, bounds, best_f, inner, &s, InnerSplit::Full, *saa)?;
    let starts = restarts(gp, bounds, best_f, saa, rng);
    let opts = p.maximize(&starts)?;
    Ok(best_of(&opts).expect("restarts").clone())
}

fn restarts<R: Rng + ?Sized>(
    gp: &ExactGp,
    bounds: &Bounds,
    best_f: f64,
    saa: &SaaConfig,
    rng: &mut R,
) -> Vec<Vec<f64>> {
    let raw: Vec<Vec<f64>> = (0..saa.raw_samples).map(|_| bounds.sample(rng)).collect();
    top_k(&raw, |x| ei_at(gp, x, best_f), saa.restarts)
}

/// MLMC applied to the maximiser and the value of the two-step look-ahead
/// (the paper's estimator): levels and `N_ℓ` from [`allocate`]; at each level
/// the fine SAA problem (`N_ℓ` fantasies, `M = 2^ℓ`) and, above the first,
/// the coarse one (same base samples) are maximised from the same restarts
/// (chosen by one-step EI among `raw_samples` uniform points: a cheap proxy
/// for BoTorch's initialiser); the local optima are paired by the
/// [`Matching`] rule; `x̂ = Σ_ℓ (x_ℓ^f − x_ℓ^c)` and `α̂ = Σ_ℓ (α_ℓ^f − α_ℓ^c)`.
/// The final `x̂` is clamped into the box (the sum may leave it).
///
/// # Errors
/// [`allocate`]'s errors ([`Error::InvalidTolerance`], [`Error::InvalidRate`],
/// [`Error::LevelTooDeep`]), [`TwoStepSaa::new`]'s, and solver errors.
pub fn mlmc_two_step_argmax<R: Rng + ?Sized>(
    gp: &ExactGp,
    bounds: &Bounds,
    eps: f64,
    spec: &MlmcLookahead,
    rng: &mut R,
) -> Result<MlmcArgmax> {
    spec.inner.check()?;
    spec.saa.check()?;
    let alloc = allocate(eps, &spec.mlmc)?;
    let best_f = gp.best_observed();
    let ib = bounds.repeat(spec.inner.q());
    let d = bounds.dim();
    let mut x = vec![0.0; d];
    let mut value = 0.0;
    let mut prev: Option<Vec<f64>> = None;
    let mut levels = Vec::new();
    for (k, (&l, &n)) in alloc.levels.iter().zip(&alloc.n).enumerate() {
        let m = 1usize << l;
        let s = TwoStepSamples::draw(n, m, spec.inner, &ib, spec.saa.inner_raw_samples, rng);
        let starts = restarts(gp, bounds, best_f, &spec.saa, rng);
        let fine_p = TwoStepSaa::new(
            gp,
            bounds,
            best_f,
            spec.inner,
            &s,
            InnerSplit::Full,
            spec.saa,
        )?;
        let fine_c = fine_p.maximize(&starts)?;
        if k == 0 {
            let f = best_of(&fine_c).expect("restarts").clone();
            for (xi, fi) in x.iter_mut().zip(&f.x) {
                *xi += fi;
            }
            value += f.value;
            prev = Some(f.x.clone());
            levels.push(ArgmaxLevel {
                level: l,
                n,
                fine: f,
                coarse: None,
                matched_distance: 0.0,
            });
            continue;
        }
        let coarse_p = TwoStepSaa::new(
            gp,
            bounds,
            best_f,
            spec.inner,
            &s,
            InnerSplit::coarse(spec.coupling),
            spec.saa,
        )?;
        let coarse_c = coarse_p.maximize(&starts)?;
        let (f, c) = match spec.matching {
            Matching::Point => {
                let c = best_of(&coarse_c).expect("restarts").clone();
                (nearest(&fine_c, &c.x).clone(), c)
            }
            Matching::Forward => {
                let target = prev.clone().unwrap_or_else(|| vec![0.0; d]);
                let c = nearest(&coarse_c, &target).clone();
                (nearest(&fine_c, &c.x).clone(), c)
            }
            Matching::Backward => {
                let f = best_of(&fine_c).expect("restarts").clone();
                let c = nearest(&coarse_c, &f.x).clone();
                (f, c)
            }
        };
        for ((xi, fi), ci) in x.iter_mut().zip(&f.x).zip(&c.x) {
            *xi += fi - ci;
        }
        value += f.value - c.value;
        prev = Some(f.x.clone());
        levels.push(ArgmaxLevel {
            level: l,
            n,
            matched_distance: dist(&f.x, &c.x),
            fine: f,
            coarse: Some(c),
        });
    }
    Ok(MlmcArgmax {
        x: bounds.clamp(&x),
        x_unclamped: x,
        value,
        allocation: alloc,
        levels,
    })
}

/// The three-step (1+1+1-EI) SAA value at `x`:
/// `EI(x) + (1/N) Σᵢ mean_b max_{x₁} [EI₁ᵢ(x₁) + (1/|b|) Σ_{j∈b} max_{x₂} EI₂ᵢⱼ(x₂)]`,
/// with `N` first-stage fantasies (`outer`), `M` second-stage fantasies per
/// first-stage one (`second`, `N × M`), blocks `b` given by the split
/// (antithetic: the second-stage fantasy models are built per half and the
/// stage values averaged, as in the paper). The middle maximisation uses
/// L-BFGS with the envelope gradient, the last one analytic EI.
/// Cost `O(N · M · restarts² · iterations²)` GP evaluations: keep `N, M` small.
///
/// Returns `(value, per-fantasy stage values)`.
///
/// # Errors
/// [`Error::DimensionMismatch`], [`Error::InvalidBatchSize`] (`N = 0`, `M` too
/// small for the split, no raw samples), [`Error::NotPositiveDefinite`].
#[allow(clippy::too_many_arguments)]
pub fn three_step_value(
    gp: &ExactGp,
    bounds: &Bounds,
    best_f: f64,
    x: &[f64],
    outer: &[f64],
    second: &[f64],
    raw: &[Vec<f64>],
    split: InnerSplit,
    cfg: &SaaConfig,
) -> Result<(f64, Vec<f64>)> {
    cfg.check()?;
    bounds.check_point("x", x)?;
    if bounds.dim() != gp.dim() {
        return Err(Error::DimensionMismatch {
            what: "bounds",
            expected: gp.dim(),
            got: bounds.dim(),
        });
    }
    let n = outer.len();
    if n == 0 || raw.is_empty() {
        return Err(Error::InvalidBatchSize { what: "N" });
    }
    if !second.len().is_multiple_of(n) || second.is_empty() {
        return Err(Error::DimensionMismatch {
            what: "second-stage samples",
            expected: n * (second.len() / n).max(1),
            got: second.len(),
        });
    }
    let m = second.len() / n;
    if split != InnerSplit::Full && m < 2 {
        return Err(Error::InvalidBatchSize { what: "M" });
    }
    for r in raw {
        bounds.check_point("raw sample", r)?;
    }
    let (mu, var) = gp.post(x);
    let e = ei(mu, var.sqrt(), best_f);
    let mut vals = Vec::with_capacity(n);
    for i in 0..n {
        let (g1, b1) = fantasy(gp, x, outer[i], best_f)
            .ok_or(Error::NotPositiveDefinite { what: "fantasy" })?;
        let zs = &second[i * m..(i + 1) * m];
        let blocks: Vec<Vec<f64>> = match split {
            InnerSplit::Full => vec![zs.to_vec()],
            InnerSplit::FirstHalf => vec![zs[..m / 2].to_vec()],
            InnerSplit::Antithetic => vec![
                zs.iter().step_by(2).copied().collect(),
                zs.iter().skip(1).step_by(2).copied().collect(),
            ],
        };
        let mut v = 0.0;
        for b in &blocks {
            let mid = MiddleStage {
                gp: &g1,
                best: b1,
                z: b,
                bounds,
                raw,
                cfg,
            };
            let o = solve_inner_generic(&mid, bounds, raw, cfg.inner_restarts, &cfg.lbfgs)?;
            v += o.value;
        }
        vals.push(v / blocks.len() as f64);
    }
    Ok((e + vals.iter().sum::<f64>() / n as f64, vals))
}

fn solve_inner_generic<O: Objective>(
    p: &O,
    bounds: &Bounds,
    raw: &[Vec<f64>],
    restarts: usize,
    cfg: &LbfgsConfig,
) -> Result<LocalOptimum> {
    let starts = top_k(raw, |x| p.value(x), restarts);
    let opts = maximize_multistart(p, bounds, &starts, cfg)?;
    Ok(best_of(&opts).expect("restarts").clone())
}

struct MiddleStage<'a> {
    gp: &'a ExactGp,
    best: f64,
    z: &'a [f64],
    bounds: &'a Bounds,
    raw: &'a [Vec<f64>],
    cfg: &'a SaaConfig,
}

impl MiddleStage<'_> {
    /// Stage value and the last-stage maximisers.
    fn solve(&self, x1: &[f64]) -> (f64, Vec<Vec<f64>>) {
        let (mu, var) = self.gp.post(x1);
        let mut v = ei(mu, var.sqrt(), self.best);
        let mut xs = Vec::with_capacity(self.z.len());
        let mut acc = 0.0;
        for &z in self.z {
            let Some((g2, b2)) = fantasy(self.gp, x1, z, self.best) else {
                return (f64::NEG_INFINITY, xs);
            };
            let p = InnerProblem {
                gp: &g2,
                best: b2,
                q: 1,
                z: &[],
            };
            match solve_inner(
                &p,
                self.bounds,
                self.raw,
                self.cfg.inner_restarts,
                &self.cfg.inner_lbfgs,
            ) {
                Ok(o) => {
                    acc += o.value;
                    xs.push(o.x);
                }
                Err(_) => return (f64::NEG_INFINITY, xs),
            }
        }
        v += acc / self.z.len() as f64;
        (v, xs)
    }

    fn fixed(&self, x1: &[f64], x2: &[Vec<f64>]) -> f64 {
        let (mu, var) = self.gp.post(x1);
        let mut v = ei(mu, var.sqrt(), self.best);
        let mut acc = 0.0;
        for (&z, x2j) in self.z.iter().zip(x2) {
            let Some((g2, b2)) = fantasy(self.gp, x1, z, self.best) else {
                return f64::NEG_INFINITY;
            };
            acc += ei_at(&g2, x2j, b2);
        }
        v += acc / self.z.len() as f64;
        v
    }
}

impl Objective for MiddleStage<'_> {
    fn value(&self, x1: &[f64]) -> f64 {
        self.solve(x1).0
    }
    fn gradient(&self, x1: &[f64], h: &[f64]) -> Vec<f64> {
        let (_, xs) = self.solve(x1);
        if xs.len() != self.z.len() {
            return vec![0.0; x1.len()];
        }
        fd_gradient(|p| self.fixed(p, &xs), x1, h)
    }
}

/// Draws the base samples of a three-step problem: `N` outer normals,
/// `N × M` second-stage normals and `raw` uniform candidates.
pub fn draw_three_step_samples<R: Rng + ?Sized>(
    n: usize,
    m: usize,
    bounds: &Bounds,
    raw: usize,
    rng: &mut R,
) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let outer = (0..n).map(|_| rng.sample(StandardNormal)).collect();
    let second = (0..n * m).map(|_| rng.sample(StandardNormal)).collect();
    let raw = (0..raw).map(|_| bounds.sample(rng)).collect();
    (outer, second, raw)
}

/// The three-step value `α₃(x₀)` at a fixed `x₀` as an MLMC problem: level
/// `ℓ` uses `M = 2^ℓ` second-stage fantasies per first-stage one; the coarse
/// value builds the second-stage fantasies per half (antithetic) or on the
/// first half (standard) and averages the stage values, as in the paper.
/// Cost unit: second-stage fantasies (`N·2^ℓ` per call). Each second-stage
/// fantasy needs an inner maximisation inside the middle one: keep `ℓ` and
/// `N` small.
pub struct ThreeStepValueSampler<'a> {
    gp: &'a ExactGp,
    x0: Vec<f64>,
    bounds: Bounds,
    best_f: f64,
    coupling: Coupling,
    cfg: SaaConfig,
}

impl<'a> ThreeStepValueSampler<'a> {
    /// The sampler of `α₃(x₀)` on `gp` (incumbent `best_f`, stages on `bounds`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`], [`Error::InvalidBatchSize`].
    pub fn new(
        gp: &'a ExactGp,
        x0: &[f64],
        bounds: &Bounds,
        best_f: f64,
        coupling: Coupling,
        cfg: SaaConfig,
    ) -> Result<Self> {
        cfg.check()?;
        if bounds.dim() != gp.dim() {
            return Err(Error::DimensionMismatch {
                what: "bounds",
                expected: gp.dim(),
                got: bounds.dim(),
            });
        }
        bounds.check_point("x0", x0)?;
        if !best_f.is_finite() {
            return Err(Error::NonFinite { what: "best_f" });
        }
        Ok(ThreeStepValueSampler {
            gp,
            x0: x0.to_vec(),
            bounds: bounds.clone(),
            best_f,
            coupling,
            cfg,
        })
    }
}

impl LevelSampler for ThreeStepValueSampler<'_> {
    fn sample<R: Rng + ?Sized>(
        &mut self,
        level: u32,
        n: usize,
        with_coarse: bool,
        rng: &mut R,
    ) -> Result<LevelSamples> {
        let m = inner_samples(level)?;
        if n == 0 {
            return Err(Error::InvalidBatchSize { what: "n" });
        }
        let (outer, second, raw) =
            draw_three_step_samples(n, m, &self.bounds, self.cfg.inner_raw_samples, rng);
        let e = {
            let (mu, var) = self.gp.post(&self.x0);
            ei(mu, var.sqrt(), self.best_f)
        };
        let (_, fine) = three_step_value(
            self.gp,
            &self.bounds,
            self.best_f,
            &self.x0,
            &outer,
            &second,
            &raw,
            InnerSplit::Full,
            &self.cfg,
        )?;
        let coarse = if with_coarse {
            let (_, c) = three_step_value(
                self.gp,
                &self.bounds,
                self.best_f,
                &self.x0,
                &outer,
                &second,
                &raw,
                InnerSplit::coarse(self.coupling),
                &self.cfg,
            )?;
            Some(c.iter().map(|v| e + v).collect())
        } else {
            None
        };
        Ok(LevelSamples {
            fine: fine.iter().map(|v| e + v).collect(),
            coarse,
            cost: (n * m) as f64,
        })
    }
}
