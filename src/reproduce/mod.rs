//! The registered paper reproductions, one module per paper crate.
//!
//! To add one: write `src/reproduce/<crate>.rs` with a unit struct that
//! implements [`Reproduction`], declare the
//! module here, and push it in [`registry`] (keep the list sorted by id).

use crate::runner::Reproduction;

pub mod cmdp_eluder;
pub mod conformal_sets;
pub mod coreset;
pub mod deep_fusion;
pub mod diffusion_tempering;
pub mod fair_lottery;
pub mod fair_memory;
pub mod lookahead_mlmc;
pub mod matrix_completion;
pub mod max_reward_rl;
pub mod nncore;
pub mod partial_equivariance;
pub mod perceptanon;
pub mod ricci_causal;
pub mod rule_following;
pub mod spikelm;
pub mod ssm_universality;
pub mod svgp_ksvd;
pub mod vint_pose;
pub mod wl_transformer;

/// Every registered reproduction, sorted by crate name.
pub fn registry() -> Vec<Box<dyn Reproduction>> {
    vec![
        Box::new(cmdp_eluder::CmdpEluder),
        Box::new(conformal_sets::ConformalSets),
        Box::new(coreset::CoresetDistortion),
        Box::new(deep_fusion::DeepFusion),
        Box::new(diffusion_tempering::DiffusionTempering),
        Box::new(fair_lottery::FairLottery),
        Box::new(fair_memory::FairMemory),
        Box::new(lookahead_mlmc::LookaheadMlmc),
        Box::new(matrix_completion::MatrixCompletion),
        Box::new(max_reward_rl::MaxRewardRl),
        Box::new(nncore::Nncore),
        Box::new(partial_equivariance::PartialEquivariance),
        Box::new(perceptanon::PerceptAnon),
        Box::new(ricci_causal::RicciCausal),
        Box::new(rule_following::RuleFollowing),
        Box::new(spikelm::SpikeLmRepro),
        Box::new(ssm_universality::SsmUniversality),
        Box::new(svgp_ksvd::SvgpKsvd),
        Box::new(vint_pose::VintPose),
        Box::new(wl_transformer::WlTransformer),
    ]
}
