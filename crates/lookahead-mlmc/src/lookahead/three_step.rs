//! The three-step (1+1+1-EI) look-ahead as an SAA problem: a look-ahead
//! stage over look-ahead stages over analytic EI (see [`super::nstep`]).

use super::config::{InnerSplit, SaaConfig};
use super::nstep::{
    Below, Fantasy, Lookahead, NStepSaa, Search, Solved, Stage, check_problem, draw_base_samples,
};
use crate::error::{Error, Result, check_finite};
use crate::gp::ExactGp;
use crate::optim::{Bounds, LocalOptimum};
use rand::Rng;

/// The base samples of one three-step SAA problem.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreeStepSamples {
    /// First-stage fantasy normals `zᵢ`, `i < N`.
    pub outer: Vec<f64>,
    /// Second-stage fantasy normals, `N × M` (row-major).
    pub second: Vec<f64>,
    /// Second-stage fantasies per first-stage one `M`.
    pub m: usize,
    /// Raw candidates for the middle and last stages (each `d` long).
    pub raw: Vec<Vec<f64>>,
}

impl ThreeStepSamples {
    /// Draws `N` outer normals, `N × M` second-stage normals and `raw`
    /// uniform candidates of `bounds`.
    pub fn draw<R: Rng + ?Sized>(
        n: usize,
        m: usize,
        bounds: &Bounds,
        raw: usize,
        rng: &mut R,
    ) -> Self {
        let (outer, second, raw) = draw_three_step_samples(n, m, bounds, raw, rng);
        ThreeStepSamples {
            outer,
            second,
            m,
            raw,
        }
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
    draw_base_samples(n, m, bounds, raw, rng)
}

/// The solution of a three-step SAA problem at one `x`.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreeStepSolution {
    /// `V₃(x) = EI(x) + (1/N) Σᵢ sᵢ`.
    pub value: f64,
    /// `EI(x)`.
    pub ei: f64,
    /// Stage values `sᵢ` (averaged over blocks for the antithetic split).
    pub stage_values: Vec<f64>,
    /// Middle-stage maximisers `x₁`, per fantasy, per block.
    pub x1: Vec<Vec<Vec<f64>>>,
    /// Last-stage maximisers `x₂`, per fantasy, per block, per second-stage fantasy.
    pub x2: Vec<Vec<Vec<Vec<f64>>>>,
}

impl From<Solved> for ThreeStepSolution {
    fn from(s: Solved) -> Self {
        let x2 = s
            .below
            .0
            .iter()
            .map(|f| {
                f.iter()
                    .map(|(_, mid)| mid.points().into_iter().flatten().collect())
                    .collect()
            })
            .collect();
        ThreeStepSolution {
            value: s.value(),
            ei: s.ei,
            x1: s.below.points(),
            x2,
            stage_values: s.stage_values,
        }
    }
}

/// The three-step (1+1+1-EI) SAA problem
/// `V₃(x) = EI(x) + (1/N) Σᵢ mean_b max_{x₁} [EI₁ᵢ(x₁) + (1/|b|) Σ_{j∈b} max_{x₂} EI₂ᵢⱼ(x₂)]`
/// over fixed base samples: `N` first-stage fantasies at `x`, `M`
/// second-stage fantasies at `x₁` per first-stage one, blocks `b` given by
/// the split (antithetic: the second-stage fantasy models are built per half
/// and the stage values averaged, as in the paper).
///
/// Solver (as for [`super::TwoStepSaa`], a documented deviation from BoTorch's
/// one-shot formulation): the last stage is analytic EI maximised by
/// multi-start L-BFGS; the middle stage by L-BFGS from the raw candidates
/// with the largest `EI₁` (a cheap proxy for the stage value; the
/// official code's initialiser is BoTorch's) plus any hints, with the
/// envelope gradient (derivative at fixed last-stage maximisers); the outer
/// `x` by L-BFGS with the envelope gradient at fixed `x₁`, `x₂`. The values
/// carry the inner solvers' error, so the More–Thuente line search can take
/// many trials: set [`crate::optim::LbfgsConfig::max_evals`] in `cfg.lbfgs` (for example
/// twice `max_iters`) to bound the cost. One evaluation costs
/// `O(N · blocks · restarts · iterations · M · restarts · iterations)` EI evaluations.
pub struct ThreeStepSaa<'a> {
    saa: NStepSaa<'a>,
}

impl<'a> ThreeStepSaa<'a> {
    /// The three-step SAA problem on `gp` over `bounds`, incumbent `best_f`,
    /// with the given base samples and split.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `bounds` and the GP disagree or the
    /// samples have the wrong sizes; [`Error::InvalidBatchSize`] for `N = 0`,
    /// `M = 0`, `M < 2` with a split, no raw candidates, or a zero solver
    /// count; [`Error::NonFinite`] for `best_f`.
    pub fn new(
        gp: &'a ExactGp,
        bounds: &Bounds,
        best_f: f64,
        samples: &'a ThreeStepSamples,
        split: InnerSplit,
        cfg: SaaConfig,
    ) -> Result<Self> {
        cfg.check()?;
        check_problem(gp, bounds, best_f)?;
        let n = samples.outer.len();
        if n == 0 {
            return Err(Error::InvalidBatchSize { what: "N" });
        }
        if samples.raw.is_empty() {
            return Err(Error::InvalidBatchSize {
                what: "raw samples",
            });
        }
        let m = samples.m;
        if m == 0 || (split != InnerSplit::Full && m < 2) {
            return Err(Error::InvalidBatchSize { what: "M" });
        }
        if samples.second.len() != n * m {
            return Err(Error::DimensionMismatch {
                what: "second-stage samples",
                expected: n * m,
                got: samples.second.len(),
            });
        }
        check_finite("outer samples", &samples.outer)?;
        check_finite("second-stage samples", &samples.second)?;
        for r in &samples.raw {
            bounds.check_point("raw sample", r)?;
        }
        // The middle stage: EI₁(x₁) + mean over its second-stage fantasies
        // of max analytic EI₂.
        let middle = |zs: &[f64]| {
            Stage::Lookahead(Lookahead {
                fantasies: zs
                    .iter()
                    .map(|&z| Fantasy {
                        z,
                        blocks: vec![Stage::Last {
                            q: 1,
                            z: Vec::new(),
                        }],
                    })
                    .collect(),
                search: Search {
                    bounds: bounds.clone(),
                    raw: &samples.raw,
                    restarts: cfg.inner_restarts,
                    lbfgs: cfg.inner_lbfgs,
                },
            })
        };
        let root = Lookahead {
            fantasies: samples
                .outer
                .iter()
                .zip(samples.second.chunks(m))
                .map(|(&z, zs)| Fantasy {
                    z,
                    blocks: split
                        .blocks(m)
                        .iter()
                        .map(|b| middle(&b.iter().map(|&j| zs[j]).collect::<Vec<_>>()))
                        .collect(),
                })
                .collect(),
            search: Search {
                bounds: bounds.clone(),
                raw: &samples.raw,
                restarts: cfg.inner_restarts,
                lbfgs: cfg.lbfgs,
            },
        };
        Ok(ThreeStepSaa {
            saa: NStepSaa::new(gp, bounds, best_f, root, cfg.lbfgs),
        })
    }

    /// Extra middle-stage restarts used at every `x`: `hints[i]` are points
    /// `x₁` added to the restarts of every block of fantasy `i` (for example
    /// the middle maximisers of the coupled fine or coarse problem of an MLMC
    /// level). Clears the evaluation cache.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad hint.
    pub fn set_hints(&mut self, hints: Vec<Vec<Vec<f64>>>) -> Result<()> {
        self.saa.set_hints(hints)
    }

    /// Solves every middle and last-stage problem at `x` (cached for the
    /// last `x`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] / [`Error::NonFinite`] for a bad `x`,
    /// [`Error::NotPositiveDefinite`] when a fantasy duplicates a noise-free input.
    pub fn evaluate(&self, x: &[f64]) -> Result<ThreeStepSolution> {
        self.saa.evaluate(x).map(ThreeStepSolution::from)
    }

    /// The SAA objective at `x` with the middle and last-stage maximisers
    /// held fixed: `EI(x) + (1/N) Σᵢ mean_b [EI₁ᵢ(x₁ᵢ_b) + (1/|b|) Σⱼ EI₂ᵢⱼ(x₂ᵢ_bⱼ)]`.
    /// Never above [`ThreeStepSaa::evaluate`]'s value up to the solvers'
    /// accuracy; its gradient in `x` is the envelope gradient.
    /// O(N · blocks · M · n²).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x`, `x1` or `x2` do not fit the
    /// problem's shape (one `x1` per fantasy and block, one `x2` per
    /// second-stage fantasy of that block); [`Error::NonFinite`].
    pub fn value_with_inner(
        &self,
        x: &[f64],
        x1: &[Vec<Vec<f64>>],
        x2: &[Vec<Vec<Vec<f64>>>],
    ) -> Result<f64> {
        if x1.len() != x2.len() {
            return Err(Error::DimensionMismatch {
                what: "x2 (one entry per fantasy)",
                expected: x1.len(),
                got: x2.len(),
            });
        }
        for (a, b) in x1.iter().zip(x2) {
            if a.len() != b.len() {
                return Err(Error::DimensionMismatch {
                    what: "x2 (one entry per block)",
                    expected: a.len(),
                    got: b.len(),
                });
            }
        }
        let below = Below(
            x1.iter()
                .zip(x2)
                .map(|(a, b)| {
                    a.iter()
                        .zip(b)
                        .map(|(p, last)| {
                            let per_fantasy: Vec<Vec<Vec<f64>>> =
                                last.iter().map(|x| vec![x.clone()]).collect();
                            (p.clone(), Below::leaves(&per_fantasy))
                        })
                        .collect()
                })
                .collect(),
        );
        self.saa.value_with_inner_checked(x, &below)
    }

    /// Maximises `V₃(x)` from each start (multi-start L-BFGS, envelope
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

/// The three-step (1+1+1-EI) SAA value at `x` (see [`ThreeStepSaa`]), with
/// `N` first-stage fantasies (`outer`), `M` second-stage fantasies per
/// first-stage one (`second`, `N × M`) and raw candidates `raw`.
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
    let n = outer.len();
    if n == 0 {
        return Err(Error::InvalidBatchSize { what: "N" });
    }
    if !second.len().is_multiple_of(n) || second.is_empty() {
        return Err(Error::DimensionMismatch {
            what: "second-stage samples",
            expected: n * (second.len() / n).max(1),
            got: second.len(),
        });
    }
    let s = ThreeStepSamples {
        outer: outer.to_vec(),
        second: second.to_vec(),
        m: second.len() / n,
        raw: raw.to_vec(),
    };
    let p = ThreeStepSaa::new(gp, bounds, best_f, &s, split, *cfg)?;
    let sol = p.evaluate(x)?;
    Ok((sol.value, sol.stage_values))
}
