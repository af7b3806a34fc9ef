//! Multi-step look-ahead values (two-step 1+q₂-EI, three-step 1+1+1-EI) as
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
//!
//! One n-step recursion (`nstep.rs`) serves every depth: a stage is either
//! the last one (q-EI or EI) or `EI + E[max of a stage one step shorter]`.
//! The files, by idea:
//!
//! | file | what |
//! |---|---|
//! | `config.rs` | solver budget [`SaaConfig`], last-stage value [`InnerValue`], fine/coarse split [`InnerSplit`] |
//! | `nstep.rs` | the n-step recursion over stages, fantasies, envelope gradients, the SAA engine |
//! | `two_step.rs`, `three_step.rs` | the two depths the paper uses: base samples, SAA problems, solutions |
//! | `depth.rs` | what the MLMC estimators need from a depth (draw a level, build its problem) |
//! | `sampler.rs` | MLMC level samplers of the value at a fixed point |
//! | `argmax.rs` | nested-MC and MLMC maximisers, matching rules |

mod argmax;
mod config;
mod depth;
mod nstep;
mod sampler;
mod three_step;
mod two_step;

pub use argmax::{
    ArgmaxLevel, Matching, MlmcArgmax, MlmcLookahead, maximize_three_step, maximize_two_step,
    mlmc_three_step_argmax, mlmc_two_step_argmax,
};
pub use config::{InnerSplit, InnerValue, SaaConfig};
pub use sampler::{ThreeStepValueSampler, TwoStepValueSampler};
pub use three_step::{
    ThreeStepSaa, ThreeStepSamples, ThreeStepSolution, draw_three_step_samples, three_step_value,
};
pub use two_step::{TwoStepSaa, TwoStepSamples, TwoStepSolution};
