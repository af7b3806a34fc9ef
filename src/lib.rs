//! # icml24
//!
//! ICML 2024 papers as Rust library crates, each usable on its own, plus the
//! runner that reproduces their headline claims (`cargo run --release`).
//!
//! This facade re-exports every crate of the workspace, so that
//! `icml24::mlcore` (and, as they land, `icml24::<paper crate>`) work from one
//! dependency. Depend on a single paper crate directly when that is all you need.
//!
//! | crate | what it is |
//! |---|---|
//! | [`mlcore`] | the shared core: dense linear algebra (faer), sampling, statistics |
//! | [`cmdp_eluder`] | E-UC³RL regret minimisation for contextual MDPs with offline oracles (Levy et al.) |
//! | [`conformal_sets`] | conformal prediction sets and the trial analysis (Cresswell et al.) |
//! | [`coreset`] | Lewis weights and coresets for multiple ℓp regression (Woodruff & Yasuda) |
//! | [`diffusion_tempering`] | probabilistic ODE filters and diffusion tempering for ODE parameter estimation (Beck et al.) |
//! | [`fair_lottery`] | exact randomised allocation with prescribed selection probabilities (Jain et al.) |
//! | [`fair_memory`] | non-Markovian fairness: monitors, memories and FairQCM (Alamdari et al.) |
//! | [`lookahead_mlmc`] | multilevel Monte Carlo for look-ahead Bayesian optimisation (Yang et al.) |
//! | [`matrix_completion`] | Schatten-p matrix completion, deep and weighted factorisation, FRMC (Ledent & Alves) |
//! | [`max_reward_rl`] | max-reward reinforcement learning (Veviurko et al.) |
//! | [`ricci_causal`] | Ricci curvature, Ricci flow and causal estimation on networks (Farzam et al.) |
//! | [`tabular_mdp`] | the shared finite-MDP core of the reinforcement-learning crates |
//!
//! The nineteen papers and their status are listed in the repository's README.
#![deny(missing_docs)]

pub use cmdp_eluder;
pub use conformal_sets;
pub use coreset;
pub use diffusion_tempering;
pub use fair_lottery;
pub use fair_memory;
pub use lookahead_mlmc;
pub use matrix_completion;
pub use max_reward_rl;
pub use mlcore;
pub use ricci_causal;
pub use tabular_mdp;

pub mod reproduce;
pub mod runner;
