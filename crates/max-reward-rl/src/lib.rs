//! # max-reward-rl
//!
//! Max-reward reinforcement learning, after
//!
//! > Grigorii Veviurko, Wendelin Böhmer, Mathijs de Weerdt.
//! > *To the Max: Reinventing Reward in Reinforcement Learning.* ICML 2024
//! > (arXiv 2402.01361). Official code: `veviurko/To-the-Max`.
//!
//! The agent maximises the expected *maximum* discounted reward
//! J(π) = E[max_{t≥0} γ^t r_t] (rewards ≥ 0) instead of the sum. The paper
//! makes this Markov with an auxiliary variable y₀ = 0,
//! y_{t+1} = max(y_t, r_t)/γ: on augmented states (s, y) the value
//! v(s, y) = E[max(y, G_t)] obeys a Bellman-like recursion
//! q(s, a, y) = E[terminal ? max(y, r) : γ·max(y', v(s', y'))] whose
//! operator is a γ-contraction, which is correct in stochastic environments,
//! unlike the earlier operator of Gottipati et al. that swaps max and
//! expectation. For a finite reward set the reachable y values form a
//! finite lattice (plus one saturated class y ≥ r_max), so this crate solves
//! the problem *exactly*: value iteration on (s, y), an exact layered solver
//! (y only grows, so every layer y > 0 is solved by one backward sweep),
//! exact evaluation of augmented policies, and a reduction to a standard
//! discounted MDP that any MDP solver cross-checks. It also provides tabular
//! max-Q-learning, ordinary Q-learning as the baseline, framework-free
//! targets for deep agents (TD3-max, max Monte-Carlo, max-GAE) with the two
//! inconsistencies of the official code fixed, and grid worlds with the
//! paper's sparse, dense and discrete-shortest-path (waypoint) rewards,
//! slippery or not. The finite-MDP machinery is the workspace crate
//! [`tabular_mdp`].
//!
//! | paper | item |
//! |---|---|
//! | §3 objective, max_k γ^k r_k | [`targets::max_discounted_return`] |
//! | §3 auxiliary variable y' = max(y, r)/γ | [`targets::y_update`], exact lattice [`ygrid::YLattice`] |
//! | §3 max-reward Bellman operators (optimal, policy) | [`MaxRewardMdp::bellman_optimal`], [`MaxRewardMdp::bellman_policy`] |
//! | §3 contraction, value iteration on (s, y) | [`MaxRewardMdp::value_iteration`], exact layered [`MaxRewardMdp::solve`] |
//! | §3 policies on the extended state, evaluation | [`AugmentedPolicy`], [`MaxRewardMdp::greedy_policy`], [`MaxRewardMdp::evaluate`] |
//! | reduction to a standard MDP (this crate) | [`MaxRewardMdp::export_standard_mdp`] |
//! | §2 Gottipati et al. baseline and its failure | [`gottipati`], [`envs::stochastic_trap`] |
//! | tabular max-Q-learning vs Q-learning | [`qlearning::max_q_learning`], [`qlearning::sum_q_learning`] |
//! | §4 TD3-max critic target, PPO-max returns, max-GAE | [`targets::td3_max_target`], [`targets::max_mc_returns`], [`targets::max_gae`] |
//! | §5 mazes: sparse, dense, DSP waypoints, slippery | [`envs::GridWorld`], [`envs::GridReward`] |
//!
//! ## Choices and deviations
//!
//! - **Exact y.** y is an index on a finite lattice ([`ygrid::YLattice`]),
//!   never a drifting float; values ≥ r_max form one saturated class with
//!   v = y. The lattice holds the values reachable from y₀ = 0 (r·γ^{−j},
//!   j ≥ 1), not y = r itself.
//! - **One y recursion everywhere** ([`targets::y_update`]); the official
//!   rollouts feed the actor the undiscounted running max instead.
//! - **Terminal targets** pay max(y, r), not max(y, r)/γ as the official
//!   TD3-max code does ([`targets::td3_max_target`],
//!   [`qlearning::max_reward_target`]).
//! - **max-GAE** by an O(n) recursion that also handles a termination at the
//!   end of a segment (the official code asserts none); a termination inside
//!   a segment is a typed error ([`Error::TerminationInsideSegment`]).
//! - **Saturated states.** Once y ≥ r_max every action is optimal; greedy
//!   policies then play their y = 0 action ([`MaxRewardMdp::greedy_policy`]).
//! - **Grid worlds** end the episode at the goal (the paper's maze is a
//!   continuing task); rewards are paid on arrival, every step
//!   ([`envs::GridWorld`]).
//! - **Layered solver** ([`MaxRewardMdp::solve`]): y only grows, so every
//!   layer y > 0 is solved exactly by one backward sweep (Gauss–Seidel value
//!   iteration in topological order) and only the y = 0 layer iterates; the
//!   paper uses function approximation and has no tabular solver.
//!
//! ## Scope
//!
//! The paper's learning experiments train deep agents (TD3-max on
//! PointMaze and the Fetch robotics tasks, PPO-max). Those are **not**
//! reproduced here: no registry ships the environments, and at this scale
//! tabular Q-learning is the honest test of the claim. The runner decides
//! "max-reward learning reaches the goal where sum-reward learning gets
//! stuck" in a continuing slippery DSP maze with both agents at the same γ,
//! exploration schedule, budget and seeds; the deep-agent targets
//! ([`targets`]) are provided and tested against closed forms, not trained.
//!
//! The worked example: in the stochastic trap the max-reward values of the
//! two first actions are 0.700 and 0.675, and Gottipati's operator prefers
//! the wrong one.
//!
//! ```
//! use max_reward_rl::{MaxRewardMdp, MaxRewardParams, envs, gottipati};
//! use tabular_mdp::ViParams;
//!
//! let mdp = envs::stochastic_trap();
//! let m = MaxRewardMdp::new(&mdp, &MaxRewardParams::with_gamma(envs::TRAP_GAMMA))?;
//! let sol = m.solve(&ViParams::default())?;
//! // q*(s0, y = 0, A) = 0.700 and q*(s0, y = 0, B) = 0.675: take A.
//! assert!((sol.q[[0, 0, 0]] - 0.700).abs() < 1e-12);
//! assert!((sol.q[[0, 0, 1]] - 0.675).abs() < 1e-12);
//! assert_eq!(sol.policy.action(0, 0)?, 0);
//! // Gottipati et al.: A = 0.5 < 0.675 = B, the wrong choice.
//! let g = gottipati::gottipati_value_iteration(&m, &ViParams::default())?;
//! assert!((g.q[[0, 0]] - 0.5).abs() < 1e-12);
//! assert_eq!(g.policy[0], 1);
//! // The export to a standard MDP has the same values.
//! let (std_mdp, gamma) = m.export_standard_mdp()?;
//! let vs = tabular_mdp::value_iteration(&std_mdp, gamma, &ViParams::default())?;
//! assert!((vs.v[m.export_index(0, 0)?] - 0.700).abs() < 1e-9);
//! # Ok::<(), max_reward_rl::Error>(())
//! ```
#![deny(missing_docs)]

pub mod augmented;
pub mod envs;
pub mod error;
pub mod gottipati;
pub mod qlearning;
pub mod targets;
pub mod ygrid;

pub use augmented::{AugmentedPolicy, MaxRewardMdp, MaxRewardParams, MaxSolution};
pub use error::{Error, Result};
pub use tabular_mdp;

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
