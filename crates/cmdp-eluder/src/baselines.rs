//! Exploring baselines a reader would accept next to E-UC³RL: ε-greedy and
//! explore-then-commit around the [`GreedyPlugIn`] agent.
//!
//! Both explore with a *uniformly random deterministic policy*: in an
//! exploration episode every state gets an action drawn uniformly from
//! {0, …, A−1}, independently (so every action sequence of the layered MDP
//! has positive probability). Their data go into the same dataset as the
//! greedy episodes, so the plug-in fit uses everything observed.
//!
//! - [`EpsilonGreedy`]: each episode explores with probability ε, else plays
//!   the plug-in policy, refitted on E-UC³RL's doubling schedule (the same
//!   O(log T) oracle budget).
//! - [`ExploreThenCommit`]: explores for the first m episodes, then fits
//!   once and commits to the plug-in policy for every later episode.
//!
//! Neither has a regret guarantee without knowing the gaps: ε and m must
//! be tuned for the horizon, and a tuned value is a best-in-hindsight
//! choice that the comparison must disclose.
//!
//! Each agent draws its exploration from its own seeded generator
//! ([`mlcore::sampling::seeded`]), so a run is reproducible from the seed
//! given at construction, independently of the environment's generator.

use crate::agent::{Agent, GreedyPlugIn, RefitSchedule};
use crate::cmdp::{LayeredSpace, Policy, Trajectory};
use crate::error::{Error, Result};
use crate::oracle::{LeastSquaresOracle, LogLossOracle};
use mlcore::sampling::{WorkspaceRng, seeded};
use rand::RngExt;

/// The plug-in agent on a refit schedule plus a seeded source of uniformly
/// random deterministic policies: what both baselines are made of.
#[derive(Debug, Clone)]
struct Explorer<RO, DO> {
    greedy: GreedyPlugIn<RO, DO>,
    n_states: usize,
    n_actions: usize,
    rng: WorkspaceRng,
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> Explorer<RO, DO> {
    fn new(
        space: LayeredSpace,
        n_contexts: usize,
        n_actions: usize,
        oracles: (RO, DO),
        schedule: RefitSchedule,
        seed: u64,
    ) -> Result<Self> {
        let n_states = space.n_states();
        let greedy = GreedyPlugIn::new(space, n_contexts, n_actions, oracles.0, oracles.1)?
            .with_schedule(schedule);
        Ok(Explorer {
            greedy,
            n_states,
            n_actions,
            rng: seeded(seed),
        })
    }

    /// A uniformly random deterministic policy for `context` (checked like
    /// the plug-in agent's): one action per state, each uniform on
    /// {0, …, A−1}. O(S).
    fn explore(&mut self, context: usize) -> Result<Policy> {
        self.greedy.check_context(context)?;
        let (n_states, n_actions) = (self.n_states, self.n_actions);
        Ok((0..n_states)
            .map(|_| self.rng.random_range(0..n_actions))
            .collect())
    }
}

/// ε-greedy around the plug-in agent (see the module docs).
#[derive(Debug, Clone)]
pub struct EpsilonGreedy<RO, DO> {
    inner: Explorer<RO, DO>,
    epsilon: f64,
    explored: usize,
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> EpsilonGreedy<RO, DO> {
    /// A fresh agent exploring with probability `epsilon` per episode; its
    /// exploration draws come from `seeded(seed)`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for ε ∉ [0, 1] (NaN included);
    /// [`Error::EmptyClass`] for C = 0 or A = 0.
    pub fn new(
        space: LayeredSpace,
        n_contexts: usize,
        n_actions: usize,
        reward_oracle: RO,
        dynamics_oracle: DO,
        epsilon: f64,
        seed: u64,
    ) -> Result<Self> {
        if !(0.0..=1.0).contains(&epsilon) {
            return Err(Error::InvalidParameter {
                name: "epsilon",
                value: epsilon,
                expected: "in [0, 1]",
            });
        }
        let inner = Explorer::new(
            space,
            n_contexts,
            n_actions,
            (reward_oracle, dynamics_oracle),
            RefitSchedule::Doubling,
            seed,
        )?;
        Ok(EpsilonGreedy {
            inner,
            epsilon,
            explored: 0,
        })
    }

    /// Exploration episodes so far.
    pub fn explored(&self) -> usize {
        self.explored
    }

    /// Oracle calls so far (those of the plug-in fits).
    pub fn oracle_calls(&self) -> usize {
        self.inner.greedy.oracle_calls()
    }
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> Agent for EpsilonGreedy<RO, DO> {
    fn name(&self) -> &str {
        "ε-greedy"
    }
    fn act(&mut self, context: usize) -> Result<Policy> {
        if self.inner.rng.random::<f64>() < self.epsilon {
            let policy = self.inner.explore(context)?;
            self.explored += 1;
            Ok(policy)
        } else {
            self.inner.greedy.act(context)
        }
    }
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()> {
        self.inner.greedy.observe(trajectory)
    }
}

/// Explore-then-commit around the plug-in agent (see the module docs).
#[derive(Debug, Clone)]
pub struct ExploreThenCommit<RO, DO> {
    inner: Explorer<RO, DO>,
    explore_episodes: usize,
    episodes: usize,
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> ExploreThenCommit<RO, DO> {
    /// A fresh agent exploring for the first `explore_episodes` episodes
    /// (m = 0 commits to the fit on no data at once); exploration draws
    /// come from `seeded(seed)`.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for C = 0 or A = 0.
    pub fn new(
        space: LayeredSpace,
        n_contexts: usize,
        n_actions: usize,
        reward_oracle: RO,
        dynamics_oracle: DO,
        explore_episodes: usize,
        seed: u64,
    ) -> Result<Self> {
        let inner = Explorer::new(
            space,
            n_contexts,
            n_actions,
            (reward_oracle, dynamics_oracle),
            RefitSchedule::Once,
            seed,
        )?;
        Ok(ExploreThenCommit {
            inner,
            explore_episodes,
            episodes: 0,
        })
    }

    /// Whether the agent has finished exploring.
    pub fn committed(&self) -> bool {
        self.episodes >= self.explore_episodes
    }

    /// Oracle calls so far (2 once committed, 0 before).
    pub fn oracle_calls(&self) -> usize {
        self.inner.greedy.oracle_calls()
    }
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> Agent for ExploreThenCommit<RO, DO> {
    fn name(&self) -> &str {
        "explore-then-commit"
    }
    fn act(&mut self, context: usize) -> Result<Policy> {
        if self.committed() {
            self.inner.greedy.act(context)
        } else {
            self.inner.explore(context)
        }
    }
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()> {
        self.inner.greedy.observe(trajectory)?;
        self.episodes += 1;
        Ok(())
    }
}
