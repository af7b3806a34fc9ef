//! # icml24
//!
//! ICML 2024 papers as Rust library crates, each usable on its own. This
//! facade re-exports them so that `icml24::coreset`, `icml24::mlcore`, …
//! work from one dependency; each paper crate sits behind a feature of the
//! same name (all on by default). Depend on a single paper crate directly,
//! or turn default features off and pick, when that is all you need:
//!
//! ```toml
//! [dependencies]
//! icml24 = { version = "0.1", default-features = false, features = ["coreset"] }
//! ```
//!
//! The reproduction runner (`cargo run --release` in the repository) is a
//! separate, unpublished package: depending on this crate pulls in no
//! plotting, progress-bar or JSON code.
//!
//! | crate | feature | what it is |
//! |---|---|---|
//! | [`mlcore`] | always | the shared core: dense linear algebra (faer), sampling, statistics, special functions, data loading |
//! | `tabular_mdp` | `tabular-mdp` | the shared finite-MDP core of the reinforcement-learning crates |
//! | `nncore` | `nncore` | the shared neural-training core on candle: seeded initialisers, data, one training loop, calibration metrics |
//! | `cmdp_eluder` | `cmdp-eluder` | E-UC³RL regret minimisation for contextual MDPs with offline oracles (Levy et al.) |
//! | `conformal_sets` | `conformal-sets` | conformal prediction sets and the trial analysis (Cresswell et al.) |
//! | `coreset` | `coreset` | Lewis weights and coresets for multiple ℓp regression (Woodruff & Yasuda) |
//! | `deep_fusion` | `deep-fusion` | exact fusion of trained MLPs and transformers into wider networks, training after fusion, backward-error analysis (Mazzawi et al.) |
//! | `diffusion_tempering` | `diffusion-tempering` | probabilistic ODE filters and diffusion tempering for ODE parameter estimation (Beck et al.) |
//! | `fair_lottery` | `fair-lottery` | exact randomised allocation with prescribed selection probabilities (Jain et al.) |
//! | `fair_memory` | `fair-memory` | non-Markovian fairness: monitors, memories and FairQCM (Alamdari et al.) |
//! | `lookahead_mlmc` | `lookahead-mlmc` | multilevel Monte Carlo for look-ahead Bayesian optimisation (Yang et al.) |
//! | `matrix_completion` | `matrix-completion` | Schatten-p matrix completion, deep and weighted factorisation, FRMC (Ledent & Alves) |
//! | `max_reward_rl` | `max-reward-rl` | max-reward reinforcement learning (Veviurko et al.) |
//! | `partial_equivariance` | `partial-equivariance` | band-limited Fourier likelihoods over compact groups, KL/alignment regularisers, Wigner–Eckart and λ-relaxed steerable kernel bases (Veefkind & Cesa) |
//! | `perceptanon` | `perceptanon` | rank correlations with human scores, SSIM/PSNR/MSE, image anonymisers and learned anonymity scores (Patwari et al.) |
//! | `ricci_causal` | `ricci-causal` | Ricci curvature, Ricci flow and causal estimation on networks (Farzam et al.) |
//! | `rule_following` | `rule-following` | case-based vs rule-based reasoning: math tasks, leave-square-out splits, rule traces, kNN and a tiny transformer (Hu et al.) |
//! | `spikelm` | `spikelm` | elastic bi-spiking neurons with LSQ straight-through gradients, spiking linear/attention layers, spike-driven masked and causal char LMs, a spike-sparse ±α·W kernel, spike energy (Xing et al.) |
//! | `ssm_universality` | `ssm-universality` | linear diagonal recurrences + MLPs: lossless encodings, Vandermonde conditioning, complex vs real spectra (Orvieto et al.) |
//! | `svgp_ksvd` | `svgp-ksvd` | KEP-SVGP attention: kernel SVD of the asymmetric attention kernel + eigen-pair SVGPs with a diagonal prior (Chen et al.) |
//! | `vint_pose` | `vint-pose` | visuo-tactile in-hand object pose: SE(3), ADD/ADD-S/AUC, ICP with tactile fusion, MJCF hand (Wan et al., VinT-6D) |
//! | `wl_transformer` | `wl-transformer` | the Weisfeiler–Leman hierarchy, tuple tokens, LPE/SPE/RRWP, the (k,s)-GT and the Edge Transformer (Müller & Morris) |
//!
//! ```
//! let z = icml24::mlcore::special::norm_cdf(1.959963984540054);
//! assert!((z - 0.975).abs() < 1e-15);
//! ```
#![deny(missing_docs)]

pub use mlcore;

#[cfg(feature = "cmdp-eluder")]
pub use cmdp_eluder;
#[cfg(feature = "conformal-sets")]
pub use conformal_sets;
#[cfg(feature = "coreset")]
pub use coreset;
#[cfg(feature = "deep-fusion")]
pub use deep_fusion;
#[cfg(feature = "diffusion-tempering")]
pub use diffusion_tempering;
#[cfg(feature = "fair-lottery")]
pub use fair_lottery;
#[cfg(feature = "fair-memory")]
pub use fair_memory;
#[cfg(feature = "lookahead-mlmc")]
pub use lookahead_mlmc;
#[cfg(feature = "matrix-completion")]
pub use matrix_completion;
#[cfg(feature = "max-reward-rl")]
pub use max_reward_rl;
#[cfg(feature = "nncore")]
pub use nncore;
#[cfg(feature = "partial-equivariance")]
pub use partial_equivariance;
#[cfg(feature = "perceptanon")]
pub use perceptanon;
#[cfg(feature = "ricci-causal")]
pub use ricci_causal;
#[cfg(feature = "rule-following")]
pub use rule_following;
#[cfg(feature = "spikelm")]
pub use spikelm;
#[cfg(feature = "ssm-universality")]
pub use ssm_universality;
#[cfg(feature = "svgp-ksvd")]
pub use svgp_ksvd;
#[cfg(feature = "tabular-mdp")]
pub use tabular_mdp;
#[cfg(feature = "vint-pose")]
pub use vint_pose;
#[cfg(feature = "wl-transformer")]
pub use wl_transformer;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
