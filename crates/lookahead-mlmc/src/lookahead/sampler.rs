//! The look-ahead value `αₖ(x₀)` at a fixed point as an MLMC problem:
//! one level sampler for every depth, with a coupled fine/coarse solve.

use super::config::{InnerSplit, InnerValue, SaaConfig};
use super::depth::Depth;
use super::nstep::merge_hints;
use crate::error::{Error, Result};
use crate::gp::ExactGp;
use crate::mlmc::{Coupling, LevelSampler, LevelSamples, inner_samples};
use crate::optim::Bounds;
use rand::Rng;

/// The level sampler of `αₖ(x₀)` shared by both depths: level `ℓ` draws `N`
/// fantasies with `M = 2^ℓ` inner samples each; the fine value uses all of
/// them, the coarse one the coupling's split.
///
/// Coupled solve (this crate's choice, to keep the coupling tight when the
/// inner maximisation is multimodal): the fine and coarse problems are
/// each solved from the raw restarts, then both are re-solved from the same
/// restarts plus the first inner maximisers of both, so a local optimum
/// found by one is available to the other. Identical problems (analytic
/// inner EI) give bit-identical values, so their increments are exactly 0.
struct ValueSampler<'a> {
    gp: &'a ExactGp,
    x0: Vec<f64>,
    bounds: Bounds,
    best_f: f64,
    depth: Depth,
    coupling: Coupling,
    cfg: SaaConfig,
}

impl<'a> ValueSampler<'a> {
    fn new(
        gp: &'a ExactGp,
        x0: &[f64],
        bounds: &Bounds,
        best_f: f64,
        depth: Depth,
        coupling: Coupling,
        cfg: SaaConfig,
    ) -> Result<Self> {
        depth.check(&cfg)?;
        depth.check_point(gp, bounds, x0, best_f)?;
        Ok(ValueSampler {
            gp,
            x0: x0.to_vec(),
            bounds: bounds.clone(),
            best_f,
            depth,
            coupling,
            cfg,
        })
    }

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
        let start = crate::cost::total();
        let s = self.depth.draw(n, m, &self.bounds, &self.cfg, rng);
        let saa = |split| s.saa(self.gp, &self.bounds, self.best_f, split, self.cfg);
        let mut fine_p = saa(InnerSplit::Full)?;
        let fine0 = fine_p.evaluate(&self.x0)?;
        let (fine, coarse) = if with_coarse {
            let mut coarse_p = saa(InnerSplit::coarse(self.coupling))?;
            let coarse0 = coarse_p.evaluate(&self.x0)?;
            let hints = merge_hints(&fine0.below.points(), &coarse0.below.points());
            fine_p.set_hints(hints.clone())?;
            coarse_p.set_hints(hints)?;
            let f = fine_p.evaluate(&self.x0)?;
            let c = coarse_p.evaluate(&self.x0)?;
            (f.stage_values, Some(c.stage_values))
        } else {
            (fine0.stage_values, None)
        };
        // EI(x₀) is the same for the fine and coarse problems.
        let e = fine0.ei;
        let plus_ei = |v: Vec<f64>| v.iter().map(|v| e + v).collect();
        Ok(LevelSamples {
            fine: plus_ei(fine),
            coarse: coarse.map(plus_ei),
            // Everything this call did: every inner sample, inner
            // optimisation and GP solve of the fine and coarse problems.
            cost: (crate::cost::total() - start).units(),
        })
    }
}

/// The two-step value `α₂(x₀)` at a fixed `x₀` as an MLMC problem: level
/// `ℓ` uses `M = 2^ℓ` inner samples per fantasy; `P_ℓ^f = EI(x₀) + max qEI`
/// on all of them, `P_{ℓ−1}^c` the antithetic or standard coarse value. Cost:
/// the measured [`crate::cost::Work::units`] of the call (every inner sample
/// of every q-EI evaluation, every GP solve, of the fine and coarse solves
/// with all their restarts and L-BFGS iterations).
///
/// Coupled solve (this crate's choice, to keep the coupling tight when the
/// inner maximisation is multimodal): the fine and coarse inner problems are
/// each solved from the raw restarts, then both are re-solved from the same
/// restarts plus the maximisers of both, so a local optimum found by one is
/// available to the other. Identical problems (analytic inner EI) give
/// bit-identical values, so their increments are exactly 0.
pub struct TwoStepValueSampler<'a>(ValueSampler<'a>);

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
        ValueSampler::new(gp, x0, bounds, best_f, Depth::Two(inner), coupling, cfg).map(Self)
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
        self.0.sample(level, n, with_coarse, rng)
    }
}

/// The three-step value `α₃(x₀)` at a fixed `x₀` as an MLMC problem: level
/// `ℓ` uses `M = 2^ℓ` second-stage fantasies per first-stage one; the coarse
/// value builds the second-stage fantasies per half (antithetic) or on the
/// first half (standard) and averages the stage values, as in the paper.
/// Cost: the measured [`crate::cost::Work::units`] of the call. Each second-stage
/// fantasy needs an inner maximisation inside the middle one: keep `ℓ` and
/// `N` small. Coupled solve as in [`TwoStepValueSampler`], with the middle
/// maximisers of both problems as extra restarts.
pub struct ThreeStepValueSampler<'a>(ValueSampler<'a>);

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
        ValueSampler::new(gp, x0, bounds, best_f, Depth::Three, coupling, cfg).map(Self)
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
        self.0.sample(level, n, with_coarse, rng)
    }
}
