//! Settings shared by every look-ahead depth: the solver budget of the SAA
//! problems, the last-stage value of the two-step look-ahead, and how the
//! inner samples are split into the fine and coarse problems of an MLMC level.

use crate::error::{Error, Result};
use crate::mlmc::Coupling;
use crate::optim::LbfgsConfig;

/// Solver settings of the SAA problems. The paper uses BoTorch's
/// `num_restarts = 20`, `raw_samples = 256`; the defaults here are smaller
/// (8 / 64 outer, 3 / 32 inner) because the nested solver needs fewer.
///
/// Measured limit (test `brute_force::two_step_inner_values_match_brute_force`):
/// with q₂ = 2 on the spec's 1-D GP, 3 inner restarts from 32 raw batches
/// can stop at a local maximum of an inner q-EI problem (0.1710 against a
/// grid maximum of 0.1922 on one fantasy); 12 restarts from 256 raw batches
/// reach the grid maximum to 1e-6. The inner value is then under-estimated,
/// which biases the look-ahead value down; raise `inner_raw_samples` and
/// `inner_restarts` where the inner problems are multimodal.
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

impl SaaConfig {
    /// A cheaper budget for two-step look-ahead inside a BO loop (the
    /// runner's and the `lookahead_mlmc_bo_compare` example's setting):
    /// 32 raw candidates and 2 restarts of x, 16 raw candidates and 2
    /// restarts of each inner batch, outer L-BFGS capped at 15 iterations and
    /// 40 evaluations per restart, inner L-BFGS at 20 iterations.
    pub fn bo_two_step() -> Self {
        SaaConfig {
            raw_samples: 32,
            restarts: 2,
            inner_raw_samples: 16,
            inner_restarts: 2,
            lbfgs: LbfgsConfig {
                max_iters: 15,
                max_evals: Some(40),
                ..LbfgsConfig::default()
            },
            inner_lbfgs: LbfgsConfig {
                max_iters: 20,
                ..LbfgsConfig::default()
            },
        }
    }

    /// The three-step counterpart of [`SaaConfig::bo_two_step`]: 12 raw
    /// candidates per middle-stage batch, outer L-BFGS capped at 8 iterations
    /// and 16 evaluations per restart, inner L-BFGS at 10 iterations (one
    /// three-step evaluation solves N·(1 + M) nested problems).
    pub fn bo_three_step() -> Self {
        SaaConfig {
            inner_raw_samples: 12,
            lbfgs: LbfgsConfig {
                max_iters: 8,
                max_evals: Some(16),
                ..LbfgsConfig::default()
            },
            inner_lbfgs: LbfgsConfig {
                max_iters: 10,
                ..LbfgsConfig::default()
            },
            ..Self::bo_two_step()
        }
    }
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
    pub(crate) fn check(&self) -> Result<()> {
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
    pub(crate) fn q(&self) -> usize {
        match self {
            InnerValue::AnalyticEi => 1,
            InnerValue::QEi { q } => *q,
        }
    }
    pub(crate) fn check(&self) -> Result<()> {
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

    /// The indices of the `m` inner samples in each block: all of them,
    /// the first half, or the even then the odd ones.
    pub(crate) fn blocks(&self, m: usize) -> Vec<Vec<usize>> {
        match self {
            InnerSplit::Full => vec![(0..m).collect()],
            InnerSplit::FirstHalf => vec![(0..m / 2).collect()],
            InnerSplit::Antithetic => {
                vec![(0..m).step_by(2).collect(), (1..m).step_by(2).collect()]
            }
        }
    }
}
