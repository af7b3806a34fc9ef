//! # cmdp-eluder
//!
//! Orin Levy, Asaf Cassel, Alon Cohen, Yishay Mansour. *Eluder-based Regret
//! for Stochastic Contextual MDPs.* ICML 2024 (arXiv 2211.14932).
//!
//! **Method.** Each episode draws a context c ~ 𝒟; the learner must act in a
//! layered MDP whose mean reward f*(c, s, a) and dynamics P*(· | c, s, a)
//! depend on c, knowing only finite, realizable classes ℱ ∋ f* and 𝒫 ∋ P*
//! and having access to *offline* regression oracles (least squares for
//! rewards, log loss for dynamics). E-UC³RL refits the two oracles at the
//! start of doubling epochs (O(log T) oracle calls), measures how much the
//! earlier epochs' policies *would have* visited each (s, a) under the
//! current context (counterfactual occupancy counts), and plays the greedy
//! policy of an optimistic layered DP whose bonus shrinks with those counts.
//! The paper proves R_T = Õ(H³·√(T·|S||A|·d_E(𝒫)·log(|ℱ||𝒫|/δ))), with
//! d_E(𝒫) the Eluder dimension of 𝒫 w.r.t. the Hellinger distance
//! (extended to general bounded metrics).
//!
//! ## What follows the paper and what is reconstructed
//!
//! The paper has no code and the spec could not confirm several details.
//! - **From the paper:** the setting (layered CMDP, i.i.d. contexts,
//!   realizable finite classes, offline least-squares and log-loss
//!   oracles), the regret definition, the use of Hellinger distance and the
//!   generalised Eluder dimension, the structure "oracle refits + optimism
//!   with counterfactual confidence".
//! - **Reconstructed (spec):** the doubling epoch schedule, the bonus
//!   b = min{1, √(β/(1+N))} with β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)) and the
//!   (1 + H) multiplier, the counterfactual count formula
//!   ([`agent::EUc3rl`]); the version-space agent and its widths
//!   β_F = ½ ln(|ℱ|/δ), β_P = ln(|𝒫|/δ) ([`agent::confidence_widths`]);
//!   the exact wording of the generalised Eluder definition
//!   ([`eluder`]); the Hellinger normalisation H² = ½Σ(√p − √q)² ([`metric`]).
//! - **Choices of this crate:** Bernoulli reward noise, the greedy
//!   plug-in baseline, the XOR instance's numbers ([`instances`]).
//!
//! ## Paper → item
//!
//! | paper | item |
//! |---|---|
//! | layered CMDP, context distribution 𝒟 | [`cmdp::TabularCmdp`], [`cmdp::LayeredSpace`], [`cmdp::ContextDist`] |
//! | function classes ℱ, 𝒫 (realizable) | [`class::RewardClass`], [`class::DynamicsClass`] |
//! | offline oracles (LS, log loss) | [`oracle::LeastSquaresOracle`], [`oracle::LogLossOracle`], [`oracle::EnumerationLeastSquares`], [`oracle::EnumerationLogLoss`] |
//! | Hellinger distance, TV | [`metric::hellinger`], [`metric::hellinger_sq`], [`metric::total_variation`] |
//! | generalised Eluder dimension d_E(𝒫, ε) | [`eluder::eluder_dimension`] |
//! | optimistic layered DP, occupancies | [`planner::plan_layered`], [`planner::occupancy`] |
//! | E-UC³RL | [`agent::EUc3rl`], [`agent::EUc3rlParams`] |
//! | version-space confidence sets | [`agent::VersionSpaceAgent`], [`agent::confidence_widths`] |
//! | regret R_T against V*_c (or any comparator) | [`regret::run_regret`], [`regret::run_regret_against`], [`regret::RegretTrace`] |
//! | baselines: greedy plug-in, ε-greedy, explore-then-commit | [`agent::GreedyPlugIn`], [`baselines::EpsilonGreedy`], [`baselines::ExploreThenCommit`] |
//!
//! V*_c and V^π_c come from the shared `tabular-mdp` core (one
//! `FiniteMdp` per context, [`cmdp::to_finite_mdp`]); the agents' inner-loop
//! DP is [`planner::plan_layered`], checked against it in the tests.
//!
//! ## Measured behaviour (runner entry `cmdp-eluder`, XOR instance)
//!
//! The version-space agent stops paying regret after a few dozen episodes
//! (R_4000/R_1000 = 1.0, 0.002× greedy). E-UC³RL at the default C = 1 is
//! still in burn-in at T ≤ 4000 (its bonus (1 + H)·√(β/(1 + N)), β ≈ 19,
//! exceeds the gaps, and each doubling epoch commits to its optimistic
//! policy), so the spec's P6 ratio is not met there (2.8, 1.4× greedy); over
//! T ∈ [2^14, 2^20] its fitted exponent is 0.43 and R_{2^20} is 0.14×
//! greedy. Against baselines that explore ([`baselines`]) it loses at
//! T = 2^16: ε-greedy tuned in hindsight (ε = 0.01) reaches a mean regret of
//! 397 and explore-then-commit (m ≈ 64) about 20, against E-UC³RL's 13,364
//! (20 seeds; the runner's paired Wilcoxon checks report it `not held`). The
//! confidence radius of the default C is built for a worst case this
//! instance does not have. Examples: `cmdp_eluder_regret_curve`, `cmdp_eluder_eluder_table`,
//! `cmdp_eluder_export` (root package).
//!
//! ## Example
//!
//! ```
//! use cmdp_eluder::agent::{Agent, EUc3rl, EUc3rlParams, GreedyPlugIn};
//! use cmdp_eluder::instances::xor_instance;
//! use cmdp_eluder::oracle::{EnumerationLeastSquares, EnumerationLogLoss};
//! use cmdp_eluder::regret::run_regret;
//! use mlcore::sampling::seeded;
//!
//! let inst = xor_instance(10, 8)?;
//! let space = inst.cmdp.space().clone();
//! let mut agent = EUc3rl::new(
//!     space.clone(), 10, 2,
//!     EnumerationLeastSquares::new(inst.rewards.clone()),
//!     EnumerationLogLoss::new(inst.dynamics.clone()),
//!     EUc3rlParams::default(),
//! )?;
//! let trace = run_regret(&inst.cmdp, &mut agent, 300, &mut seeded(1))?;
//! let mut greedy = GreedyPlugIn::new(
//!     space, 10, 2,
//!     EnumerationLeastSquares::new(inst.rewards.clone()),
//!     EnumerationLogLoss::new(inst.dynamics.clone()),
//! )?;
//! let base = run_regret(&inst.cmdp, &mut greedy, 300, &mut seeded(1))?;
//! // log T oracle calls: epochs start at 0, 1, 2, 4, …, 256.
//! assert_eq!(agent.oracle_calls(), 2 * 10);
//! println!("R_300: E-UC3RL {:.1}, greedy {:.1}", trace.at(300), base.at(300));
//! # Ok::<(), cmdp_eluder::Error>(())
//! ```
#![deny(missing_docs)]

pub mod agent;
pub mod baselines;
pub mod class;
pub mod cmdp;
pub mod eluder;
pub mod error;
pub mod instances;
pub mod metric;
pub mod oracle;
pub mod planner;
pub mod regret;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
