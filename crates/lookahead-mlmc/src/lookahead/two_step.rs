//! The two-step (1+q₂-EI) look-ahead as an SAA problem:
//! `V(x) = EI(x) + (1/N) Σᵢ max_{x'} qEIᵢ(x')` over fixed base samples, a
//! look-ahead stage over last stages (see [`super::nstep`]).

use super::config::{InnerSplit, InnerValue, SaaConfig};
use super::nstep::{
    Below, Fantasy, Lookahead, NStepSaa, Search, Solved, Stage, check_problem, draw_base_samples,
};
use crate::error::{Error, Result};
use crate::gp::ExactGp;
use crate::optim::{Bounds, LocalOptimum};
use rand::Rng;

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
        let per_fantasy = match inner {
            InnerValue::AnalyticEi => 0,
            InnerValue::QEi { q } => m * q,
        };
        let (outer, inner, inner_raw) =
            draw_base_samples(n, per_fantasy, inner_bounds, inner_raw, rng);
        TwoStepSamples {
            outer,
            inner,
            m,
            inner_raw,
        }
    }
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

impl From<Solved> for TwoStepSolution {
    fn from(s: Solved) -> Self {
        TwoStepSolution {
            value: s.value(),
            ei: s.ei,
            inner_x: s.below.points(),
            inner_values: s.stage_values,
        }
    }
}

/// The two-step SAA problem `V(x) = EI(x) + (1/N) Σᵢ max_{x'} qEIᵢ(x')`
/// over fixed base samples.
pub struct TwoStepSaa<'a> {
    saa: NStepSaa<'a>,
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
        check_problem(gp, bounds, best_f)?;
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
        let blocks: Vec<Vec<Vec<f64>>> = match inner {
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
                samples
                    .inner
                    .chunks(m * q)
                    .map(|normals| {
                        let rows: Vec<&[f64]> = normals.chunks(q).collect();
                        split
                            .blocks(m)
                            .into_iter()
                            .map(|b| b.iter().flat_map(|&j| rows[j].iter().copied()).collect())
                            .collect()
                    })
                    .collect()
            }
        };
        let root = Lookahead {
            fantasies: samples
                .outer
                .iter()
                .zip(blocks)
                .map(|(&z, bs)| Fantasy {
                    z,
                    blocks: bs.into_iter().map(|z| Stage::Last { q, z }).collect(),
                })
                .collect(),
            search: Search {
                bounds: inner_bounds,
                raw: &samples.inner_raw,
                restarts: cfg.inner_restarts,
                lbfgs: cfg.inner_lbfgs,
            },
        };
        Ok(TwoStepSaa {
            saa: NStepSaa::new(gp, bounds, best_f, root, cfg.lbfgs),
        })
    }

    /// Extra inner restarts used at every `x` by [`TwoStepSaa::evaluate`]
    /// (and so by [`TwoStepSaa::maximize`]): `hints[i]` are inner batches
    /// (`q·d` each) added to the restarts of every block of fantasy `i`, as
    /// in [`TwoStepSaa::evaluate_with_hints`]. Clears the evaluation cache.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad hint.
    pub fn set_hints(&mut self, hints: Vec<Vec<Vec<f64>>>) -> Result<()> {
        self.saa.set_hints(hints)
    }

    /// Solves every inner problem at `x`: cost `N · blocks · (raw + restarts · iterations · (1 + 2q₂d))` q-EI evaluations.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad `x`,
    /// [`Error::InvalidParameter`] for `x` outside the box,
    /// [`Error::NotPositiveDefinite`] when a fantasy duplicates a noise-free input.
    pub fn evaluate(&self, x: &[f64]) -> Result<TwoStepSolution> {
        self.saa.evaluate(x).map(TwoStepSolution::from)
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
        self.saa
            .evaluate_with_hints(x, hints)
            .map(TwoStepSolution::from)
    }

    /// The SAA objective at `x` with the inner batches held fixed
    /// (`inner_x[i][b]`): `EI(x) + (1/N) Σᵢ mean_b qEIᵢ_b(x'ᵢ_b)`. Never above
    /// [`TwoStepSaa::evaluate`]'s value up to the inner solver's accuracy.
    /// O(N · blocks · (n² + M q²)).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x` is not a point of the box or
    /// `inner_x` has not one entry per fantasy and block, each a `q·d`
    /// batch; [`Error::NonFinite`] for a NaN or infinite coordinate.
    pub fn value_with_inner(&self, x: &[f64], inner_x: &[Vec<Vec<f64>>]) -> Result<f64> {
        self.saa
            .value_with_inner_checked(x, &Below::leaves(inner_x))
    }

    /// Maximises `V(x)` from each start (multi-start L-BFGS, envelope
    /// gradient); one local optimum per start.
    ///
    /// # Errors
    /// As [`crate::optim::maximize_multistart`].
    pub fn maximize(&self, starts: &[Vec<f64>]) -> Result<Vec<LocalOptimum>> {
        self.saa.maximize(starts)
    }

    /// The engine behind this problem (for the MLMC estimators).
    pub(crate) fn into_nstep(self) -> NStepSaa<'a> {
        self.saa
    }
}
