//! # tabular-mdp
//!
//! Finite Markov decision processes for the workspace's reinforcement-learning
//! crates (`max-reward-rl`, and the contextual-MDP and non-Markovian-fairness
//! crates): one validated representation, value iteration, finite-horizon
//! dynamic programming with bonuses, and ε-greedy Q-learning. Textbook
//! material (Puterman 1994; Sutton & Barto 2018); no paper of its own.
//!
//! ## Design
//!
//! - **Sparse stochastic outcomes.** A [`FiniteMdp`] stores, for every pair
//!   (s, a), a list of [`Outcome`]s `(next, prob, reward, terminal)` in one
//!   flat array with offsets. Rewards may depend on the outcome (not only on
//!   (s, a)), which max-reward RL needs, and a `terminal` outcome ends the
//!   episode after its reward (no bootstrap), which goal-reaching tasks need.
//!   Every state has the same number A ≥ 1 of actions (tables are S × A
//!   arrays; a user with fewer actions in some state adds duplicates).
//! - **Validated once.** [`FiniteMdp::new`] checks everything (non-empty
//!   action sets, next states in range, probabilities in [0, 1] summing to 1
//!   within 1e-9, finite rewards) and returns a typed [`Error`]; solvers then
//!   only check their own parameters.
//! - **Hostile input.** No entry point panics or returns NaN/∞ on finite
//!   input: tables are sized with `checked_mul` against [`MAX_TABLE_BYTES`]
//!   and allocated fallibly ([`Error::TooLarge`]), and a value that leaves
//!   the `f64` range (rewards near `f64::MAX`) is an [`Error::Overflow`].
//! - **Infinite horizon** ([`solve`]): the Bellman operator, value iteration
//!   with a stopping rule that bounds the distance to V*, policy evaluation,
//!   greedy policies with ties broken by the lowest action index (so results
//!   are deterministic).
//! - **Finite horizon** ([`horizon`]): backward induction
//!   Q_h = min{cap(h), r + bonus(h, s, a) + P·V_{h+1}} with a caller-supplied
//!   bonus and cap, which is the optimistic layered DP of UCBVI-style and
//!   contextual-MDP algorithms (one `FiniteMdp` per context: the plug-in
//!   model P̂(c), f̂(c)); plain DP and exact evaluation of non-stationary
//!   policies are special cases. A layered (loop-free) MDP is a `FiniteMdp`
//!   whose states are the union of the layers.
//! - **Q-learning** ([`qlearning`]): generic over an [`Environment`] whose
//!   states can be anything with an `encode` into table rows (augmented
//!   states (s, y) or (s, m) of the max-reward and memory crates), and over
//!   the TD target (a closure: the sum-reward target is
//!   [`sum_reward_target`], max-reward crates pass theirs). ε-greedy with the
//!   caller's seeded `rng`; α constant or 1/n(s,a)^ω.
//!
//! | topic | item |
//! |---|---|
//! | MDP, outcomes, validation | [`FiniteMdp`], [`Outcome`], [`Error`] |
//! | Bellman operator, Q from V | [`bellman_optimal`], [`q_from_v`] |
//! | value iteration, policy evaluation | [`value_iteration`], [`policy_evaluation`], [`ViParams`] |
//! | finite-horizon DP with bonus and cap | [`finite_horizon`], [`finite_horizon_plain`], [`evaluate_finite_horizon`] |
//! | ε-greedy Q-learning | [`q_learning`], [`QLearningParams`], [`StepSize`], [`epsilon_greedy`], [`Environment`], [`MdpEnv`] |
//!
//! ```
//! use tabular_mdp::{FiniteMdp, Outcome, ViParams, value_iteration, finite_horizon_plain};
//!
//! // Two states; in state 0, action 0 stays (reward 1), action 1 moves to
//! // the absorbing state 1 with reward 5 and ends the episode.
//! let mdp = FiniteMdp::new(vec![
//!     vec![vec![Outcome::new(0, 1.0, 1.0)], vec![Outcome::terminal(1, 1.0, 5.0)]],
//!     vec![vec![Outcome::new(1, 1.0, 0.0)], vec![Outcome::new(1, 1.0, 0.0)]],
//! ])?;
//! // γ = 0.9: staying forever is worth 1/(1 − 0.9) = 10 > 5.
//! let sol = value_iteration(&mdp, 0.9, &ViParams::default())?;
//! assert!((sol.v[0] - 10.0).abs() < 1e-9);
//! assert_eq!(sol.policy[0], 0);
//! // With 3 steps and no discount: stay twice, leave last (1 + 1 + 5 = 7).
//! let fh = finite_horizon_plain(&mdp, 3, 1.0)?;
//! assert_eq!((fh.policy[[0, 0]], fh.policy[[1, 0]], fh.policy[[2, 0]]), (0, 0, 1));
//! assert_eq!(fh.v[[0, 0]], 7.0);
//! # Ok::<(), tabular_mdp::Error>(())
//! ```
#![deny(missing_docs)]

pub mod error;
pub mod horizon;
pub mod mdp;
pub mod qlearning;
pub mod solve;

pub use error::{Error, Result};
pub use horizon::{
    HorizonSolution, MAX_TABLE_BYTES, evaluate_finite_horizon, finite_horizon, finite_horizon_plain,
};
pub use mdp::{FiniteMdp, Outcome, STOCHASTIC_TOL};
pub use qlearning::{
    Environment, MdpEnv, QLearningParams, QTable, Step, StepSize, epsilon_greedy, q_learning,
    sum_reward_target,
};
pub use solve::{
    ValueSolution, ViParams, argmax_first, bellman_optimal, greedy_policy, policy_evaluation,
    q_from_v, value_iteration,
};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
