//! The agents: E-UC³RL (oracle-efficient, counterfactual bonus), the exact
//! version-space agent, and the greedy plug-in baseline. All implement
//! [`Agent`], so the confidence rule (counterfactual bonus vs version space)
//! is swappable in [`crate::regret::run_regret`]; a different bonus or epoch
//! rule (should the paper's exact form differ from the spec's
//! reconstruction) is a new [`Agent`], with [`crate::planner`] and
//! [`crate::oracle`] reused. The bonus constant C and the widths β_F, β_P
//! are parameters ([`EUc3rlParams`], [`VersionSpaceParams`]).

use crate::class::{DynamicsClass, RewardClass};
use crate::cmdp::{LayeredSpace, Policy, Trajectory};
use crate::error::{Error, Result, check_delta, mismatch};
use crate::oracle::{Dataset, LeastSquaresOracle, LogLossOracle};
use crate::planner::{occupancy_unchecked as occupancy, plan_layered_unchecked as plan_layered};
use ndarray::{Array2, Array3, Array4, s};
use std::collections::HashMap;

/// An online CMDP learner: sees the context, commits to a policy for the
/// episode, then observes the trajectory.
pub trait Agent {
    /// A short name for reports.
    fn name(&self) -> &str;
    /// The policy π_t(c) for this episode's context c.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for c ≥ C; oracle errors.
    fn act(&mut self, context: usize) -> Result<Policy>;
    /// Records the episode's data.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for indices out of range;
    /// [`Error::Unrealizable`] when the data eliminate a whole class.
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()>;
}

fn check_context(c: usize, nc: usize) -> Result<()> {
    if c < nc {
        Ok(())
    } else {
        Err(mismatch("context", format!("< {nc}"), c))
    }
}

/// Parameters of [`EUc3rl`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EUc3rlParams {
    /// Confidence level δ ∈ (0, 1). Default 0.05.
    pub delta: f64,
    /// The constant C in β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)). Default 1
    /// (the paper's constant is not public; reconstructed).
    pub beta_scale: f64,
}

impl Default for EUc3rlParams {
    fn default() -> Self {
        EUc3rlParams {
            delta: 0.05,
            beta_scale: 1.0,
        }
    }
}

impl EUc3rlParams {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidDelta`] unless 0 < δ < 1; [`Error::InvalidParameter`]
    /// unless C is finite and ≥ 0.
    pub fn check(&self) -> Result<()> {
        check_delta(self.delta)?;
        if !(self.beta_scale.is_finite() && self.beta_scale >= 0.0) {
            return Err(Error::InvalidParameter {
                name: "beta_scale",
                value: self.beta_scale,
                expected: "a finite C >= 0",
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Epoch {
    f: Array3<f64>,
    p: Array4<f64>,
    len: usize,
    policies: HashMap<usize, Policy>,
}

/// E-UC³RL (paper's algorithm; the epoch schedule and bonus are the
/// reconstruction of the spec, see the crate docs).
///
/// - Doubling epochs: epoch 0 is episode 0, epoch m ≥ 1 covers episodes
///   [2^{m−1}, 2^m). At each epoch start both oracles are refitted on all
///   data: 2·⌈log₂ T⌉ + 2 oracle calls in T episodes.
/// - Counterfactual counts for the episode's context c:
///   N_m(c, s, a) = Σ_{j<m} |epoch j| · q_j(s, a | c), where q_j is the
///   occupancy of epoch j's policy map at c, π_j(c), under P̂_m(c). The
///   policy maps are deterministic functions of the stored (f̂_j, P̂_j), so
///   π_j(c) is recomputed (and cached) for contexts not seen in epoch j.
/// - Bonus b_m = min{1, √(β/(1 + N_m))}, β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)).
/// - Optimistic DP: Q_h = min{H − h, f̂_m + (1 + H)·b_m + P̂_m·V_{h+1}}; play greedy.
///
/// Cost per episode: one plan per (epoch, context) pair not yet cached plus
/// m occupancy passes, O(m·S·A·S) — independent of |ℱ| and |𝒫| — and the
/// amortised oracle calls.
#[derive(Debug, Clone)]
pub struct EUc3rl<RO, DO> {
    space: LayeredSpace,
    n_contexts: usize,
    n_actions: usize,
    reward_oracle: RO,
    dynamics_oracle: DO,
    beta: f64,
    data: Dataset,
    epochs: Vec<Epoch>,
    episodes: usize,
    oracle_calls: usize,
    eliminated: Vec<Error>,
}

/// First episode of epoch m: 0 for m = 0, else 2^(m−1) (saturating at
/// `usize::MAX` for m > 64, an epoch no run reaches).
pub fn epoch_start(m: usize) -> usize {
    match m {
        0 => 0,
        _ => u32::try_from(m - 1)
            .ok()
            .and_then(|k| 1usize.checked_shl(k))
            .unwrap_or(usize::MAX),
    }
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> EUc3rl<RO, DO> {
    /// A fresh agent.
    ///
    /// # Errors
    /// [`Error::InvalidDelta`], [`Error::InvalidParameter`] from
    /// [`EUc3rlParams::check`]; [`Error::EmptyClass`] for C = 0 or A = 0.
    pub fn new(
        space: LayeredSpace,
        n_contexts: usize,
        n_actions: usize,
        reward_oracle: RO,
        dynamics_oracle: DO,
        params: EUc3rlParams,
    ) -> Result<Self> {
        params.check()?;
        if n_contexts == 0 {
            return Err(Error::EmptyClass {
                what: "context set",
            });
        }
        if n_actions == 0 {
            return Err(Error::EmptyClass { what: "action set" });
        }
        let ld = params.delta.ln();
        let h = space.horizon() as f64;
        let beta = params.beta_scale
            * ((reward_oracle.log_cardinality() - ld)
                + h * (dynamics_oracle.log_cardinality() - ld));
        let ns = space.n_states();
        Ok(EUc3rl {
            data: Dataset::new(n_contexts, ns, n_actions)?,
            space,
            n_contexts,
            n_actions,
            reward_oracle,
            dynamics_oracle,
            beta,
            epochs: Vec::new(),
            episodes: 0,
            oracle_calls: 0,
            eliminated: Vec::new(),
        })
    }

    /// β = C·(ln(|ℱ|/δ) + H·ln(|𝒫|/δ)).
    pub fn beta(&self) -> f64 {
        self.beta
    }
    /// Number of oracle calls so far (2 per epoch).
    pub fn oracle_calls(&self) -> usize {
        self.oracle_calls
    }
    /// Number of epochs started.
    pub fn n_epochs(&self) -> usize {
        self.epochs.len()
    }
    /// Log-zero eliminations reported by the log-loss oracle at the latest refit.
    pub fn eliminated(&self) -> &[Error] {
        &self.eliminated
    }
    /// The data seen so far.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    fn refit(&mut self) -> Result<()> {
        let m = self.epochs.len();
        let f = self.reward_oracle.fit(&self.data)?;
        let p = self.dynamics_oracle.fit(&self.data)?;
        self.oracle_calls += 2;
        self.eliminated = p.eliminated;
        let ns = self.space.n_states();
        if f.table.dim() != (self.n_contexts, ns, self.n_actions)
            || p.table.dim() != (self.n_contexts, ns, self.n_actions, ns)
        {
            return Err(mismatch(
                "oracle output",
                format!("{} × {ns} × {}", self.n_contexts, self.n_actions),
                format!("{:?} and {:?}", f.table.dim(), p.table.dim()),
            ));
        }
        self.epochs.push(Epoch {
            f: f.table,
            p: p.table,
            len: epoch_start(m + 1) - epoch_start(m),
            policies: HashMap::new(),
        });
        Ok(())
    }

    /// N_j(c, ·, ·) = Σ_{i<j} |epoch i|·q_i(·,·|c) under P̂_j(c) (policies of
    /// earlier epochs at c must be cached).
    fn counts(&self, j: usize, c: usize) -> Array2<f64> {
        let p = self.epochs[j].p.slice(s![c, .., .., ..]);
        let mut n = Array2::<f64>::zeros((self.space.n_states(), self.n_actions));
        for i in 0..j {
            let pi = &self.epochs[i].policies[&c];
            n.scaled_add(self.epochs[i].len as f64, &occupancy(&self.space, p, pi));
        }
        n
    }

    /// The bonus (1 + H)·b_j(c, s, a) added to f̂ in epoch j at context c.
    fn bonus(&self, j: usize, c: usize) -> Array2<f64> {
        let h1 = 1.0 + self.space.horizon() as f64;
        self.counts(j, c)
            .mapv(|n| h1 * (self.beta / (1.0 + n)).sqrt().min(1.0))
    }

    fn policy_for(&mut self, j: usize, c: usize) -> Policy {
        for i in 0..=j {
            if self.epochs[i].policies.contains_key(&c) {
                continue;
            }
            let b = self.bonus(i, c);
            let e = &self.epochs[i];
            let plan = plan_layered(
                &self.space,
                e.f.slice(s![c, .., ..]),
                e.p.slice(s![c, .., .., ..]),
                Some(b.view()),
                true,
            );
            self.epochs[i].policies.insert(c, plan.policy);
        }
        self.epochs[j].policies[&c].clone()
    }

    /// The counterfactual counts N_m(c, s, a) of the current epoch m at
    /// context c (for diagnostics).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for c ≥ C; [`Error::EmptyClass`] before
    /// the first episode.
    pub fn counterfactual_counts(&mut self, c: usize) -> Result<Array2<f64>> {
        check_context(c, self.n_contexts)?;
        let m = self
            .epochs
            .len()
            .checked_sub(1)
            .ok_or(Error::EmptyClass { what: "epoch list" })?;
        if m > 0 {
            self.policy_for(m - 1, c);
        }
        Ok(self.counts(m, c))
    }
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> Agent for EUc3rl<RO, DO> {
    fn name(&self) -> &str {
        "E-UC³RL"
    }
    fn act(&mut self, context: usize) -> Result<Policy> {
        check_context(context, self.n_contexts)?;
        if self.episodes == epoch_start(self.epochs.len()) {
            self.refit()?;
        }
        let m = self.epochs.len() - 1;
        Ok(self.policy_for(m, context))
    }
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()> {
        self.data.push_trajectory(trajectory)?;
        self.episodes += 1;
        Ok(())
    }
}

/// Parameters of [`VersionSpaceAgent`]: δ and the confidence widths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VersionSpaceParams {
    /// Confidence level δ ∈ (0, 1). Default 0.05.
    pub delta: f64,
    /// Override of β_F (default ½·ln(|ℱ|/δ)).
    pub beta_f: Option<f64>,
    /// Override of β_P (default ln(|𝒫|/δ)).
    pub beta_p: Option<f64>,
}

impl Default for VersionSpaceParams {
    fn default() -> Self {
        VersionSpaceParams {
            delta: 0.05,
            beta_f: None,
            beta_p: None,
        }
    }
}

/// The spec's confidence widths: β_F = ½·ln(|ℱ|/δ) (rewards in [0, 1]:
/// exp(2(L_sq(f*) − L_sq(f))) is a supermartingale by Hoeffding's lemma,
/// then Ville's inequality and a union bound; reconstructed) and
/// β_P = ln(|𝒫|/δ) (the likelihood ratio Π P/P* is a mean-one martingale;
/// Ville plus a union bound). Both hold for all t simultaneously w.p. ≥ 1 − δ each.
///
/// # Errors
/// [`Error::InvalidDelta`]; [`Error::EmptyClass`] for an empty class size.
pub fn confidence_widths(n_f: usize, n_p: usize, delta: f64) -> Result<(f64, f64)> {
    check_delta(delta)?;
    if n_f == 0 || n_p == 0 {
        return Err(Error::EmptyClass {
            what: "function class",
        });
    }
    Ok((0.5 * (n_f as f64 / delta).ln(), (n_p as f64 / delta).ln()))
}

/// The exact version-space agent (reference; enumerative).
///
/// ℱ_t = {f : L_sq(f) ≤ min L_sq + β_F}, 𝒫_t = {P : L_log(P) ≤ min L_log + β_P}
/// (models with a log-zero are eliminated and reported in
/// [`VersionSpaceAgent::eliminated`]); plays the greedy policy of
/// argmax_{(f, P) ∈ ℱ_t × 𝒫_t} max_π V^π_{f,P}(c) (ties → lowest (f, P) in
/// f-major order). Cost per episode: |ℱ_t|·|𝒫_t| layered plans, plus
/// O((|ℱ| + |𝒫|)·H) loss updates.
#[derive(Debug, Clone)]
pub struct VersionSpaceAgent {
    rewards: RewardClass,
    dynamics: DynamicsClass,
    beta_f: f64,
    beta_p: f64,
    sq: Vec<f64>,
    log: Vec<f64>,
    eliminated: Vec<Error>,
    last_value: f64,
}

impl VersionSpaceAgent {
    /// A fresh agent.
    ///
    /// # Errors
    /// [`Error::InvalidDelta`]; [`Error::InvalidParameter`] for a negative or
    /// non-finite β override; [`Error::DimensionMismatch`] when ℱ and 𝒫 have
    /// different (C, S, A).
    pub fn new(
        rewards: RewardClass,
        dynamics: DynamicsClass,
        params: VersionSpaceParams,
    ) -> Result<Self> {
        let (bf, bp) = confidence_widths(rewards.len(), dynamics.len(), params.delta)?;
        let beta_f = params.beta_f.unwrap_or(bf);
        let beta_p = params.beta_p.unwrap_or(bp);
        for (name, v) in [("beta_f", beta_f), ("beta_p", beta_p)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::InvalidParameter {
                    name,
                    value: v,
                    expected: "a finite width >= 0",
                });
            }
        }
        let d = dynamics.models()[0].dim();
        if rewards.dims() != (d.0, d.1, d.2) {
            return Err(mismatch(
                "reward class dims",
                format!("{:?}", (d.0, d.1, d.2)),
                format!("{:?}", rewards.dims()),
            ));
        }
        Ok(VersionSpaceAgent {
            sq: vec![0.0; rewards.len()],
            log: vec![0.0; dynamics.len()],
            rewards,
            dynamics,
            beta_f,
            beta_p,
            eliminated: Vec::new(),
            last_value: f64::NAN,
        })
    }

    /// (β_F, β_P).
    pub fn widths(&self) -> (f64, f64) {
        (self.beta_f, self.beta_p)
    }
    /// Current squared losses L_sq(f) of every f ∈ ℱ.
    pub fn squared_losses(&self) -> &[f64] {
        &self.sq
    }
    /// Current log losses (+∞ for eliminated models).
    pub fn log_losses(&self) -> &[f64] {
        &self.log
    }
    /// ℱ_t (indices).
    pub fn reward_set(&self) -> Vec<usize> {
        let min = self.sq.iter().cloned().fold(f64::INFINITY, f64::min);
        (0..self.sq.len())
            .filter(|&k| self.sq[k] <= min + self.beta_f)
            .collect()
    }
    /// 𝒫_t (indices; eliminated models never belong).
    pub fn dynamics_set(&self) -> Vec<usize> {
        let min = self.log.iter().cloned().fold(f64::INFINITY, f64::min);
        (0..self.log.len())
            .filter(|&k| self.log[k].is_finite() && self.log[k] <= min + self.beta_p)
            .collect()
    }
    /// Every log-zero event so far ([`Error::LogZero`], one per eliminated model).
    pub fn eliminated(&self) -> &[Error] {
        &self.eliminated
    }
    /// The optimistic value max_{f ∈ ℱ_t, P ∈ 𝒫_t} V*_{f,P}(c) of the last
    /// [`Agent::act`] call.
    pub fn last_optimistic_value(&self) -> f64 {
        self.last_value
    }
}

impl Agent for VersionSpaceAgent {
    fn name(&self) -> &str {
        "version space"
    }
    fn act(&mut self, context: usize) -> Result<Policy> {
        check_context(context, self.dynamics.n_contexts())?;
        let fs = self.reward_set();
        let ps = self.dynamics_set();
        let mut best: Option<(f64, Policy)> = None;
        for &f in &fs {
            let r = self.rewards.models()[f].slice(s![context, .., ..]);
            for &p in &ps {
                let plan = plan_layered(
                    self.dynamics.space(),
                    r,
                    self.dynamics.models()[p].slice(s![context, .., .., ..]),
                    None,
                    false,
                );
                if best.as_ref().is_none_or(|(v, _)| plan.v[0] > *v) {
                    best = Some((plan.v[0], plan.policy));
                }
            }
        }
        let (v, pi) = best.ok_or(Error::Unrealizable { what: "dynamics" })?;
        self.last_value = v;
        Ok(pi)
    }
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()> {
        let c = trajectory.context;
        check_context(c, self.dynamics.n_contexts())?;
        let ns = self.dynamics.space().n_states();
        let na = self.dynamics.n_actions();
        for st in &trajectory.steps {
            if st.state >= ns || st.action >= na || st.next.is_some_and(|x| x >= ns) {
                return Err(mismatch(
                    "step indices",
                    format!("s < {ns}, a < {na}"),
                    format!("{st:?}"),
                ));
            }
            for (k, l) in self.sq.iter_mut().enumerate() {
                let d = self.rewards.models()[k][[c, st.state, st.action]] - st.reward;
                *l += d * d;
            }
            if let Some(s2) = st.next {
                for (k, l) in self.log.iter_mut().enumerate() {
                    if !l.is_finite() {
                        continue;
                    }
                    let p = self.dynamics.models()[k][[c, st.state, st.action, s2]];
                    if p > 0.0 {
                        *l -= p.ln();
                    } else {
                        *l = f64::INFINITY;
                        self.eliminated.push(Error::LogZero {
                            model: k,
                            context: c,
                            state: st.state,
                            action: st.action,
                            next: s2,
                        });
                    }
                }
            }
        }
        if self.log.iter().all(|l| !l.is_finite()) {
            return Err(Error::Unrealizable { what: "dynamics" });
        }
        Ok(())
    }
}

/// When [`GreedyPlugIn`] refits its oracles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefitSchedule {
    /// Before every episode (2 oracle calls per episode).
    EveryEpisode,
    /// At the starts of E-UC³RL's doubling epochs (episodes 0, 1, 2, 4, 8,
    /// …): the same oracle budget as E-UC³RL.
    Doubling,
    /// Once, at the first episode played, and never again: the commit phase
    /// of explore-then-commit ([`crate::baselines::ExploreThenCommit`]).
    Once,
}

/// Greedy plug-in baseline: refits both oracles on all data on its
/// [`RefitSchedule`] (default: before every episode) and plays the optimal
/// policy of (f̂, P̂) with no bonus (no exploration). 2 oracle calls per
/// refit and one plan per episode.
#[derive(Debug, Clone)]
pub struct GreedyPlugIn<RO, DO> {
    space: LayeredSpace,
    n_contexts: usize,
    reward_oracle: RO,
    dynamics_oracle: DO,
    data: Dataset,
    model: Option<(Array3<f64>, Array4<f64>)>,
    schedule: RefitSchedule,
    episodes: usize,
    fits: usize,
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> GreedyPlugIn<RO, DO> {
    /// A fresh agent.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for C = 0 or A = 0.
    pub fn new(
        space: LayeredSpace,
        n_contexts: usize,
        n_actions: usize,
        reward_oracle: RO,
        dynamics_oracle: DO,
    ) -> Result<Self> {
        if n_contexts == 0 || n_actions == 0 {
            return Err(Error::EmptyClass {
                what: "context or action set",
            });
        }
        Ok(GreedyPlugIn {
            data: Dataset::new(n_contexts, space.n_states(), n_actions)?,
            space,
            n_contexts,
            reward_oracle,
            dynamics_oracle,
            model: None,
            schedule: RefitSchedule::EveryEpisode,
            episodes: 0,
            fits: 0,
        })
    }

    /// Refit only at the starts of E-UC³RL's doubling epochs (episodes
    /// 0, 1, 2, 4, 8, …): the same oracle budget as E-UC³RL, for long runs.
    pub fn with_doubling_refits(mut self) -> Self {
        self.schedule = RefitSchedule::Doubling;
        self
    }

    /// The agent with refits on `schedule`.
    pub fn with_schedule(mut self, schedule: RefitSchedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// Number of oracle calls so far.
    pub fn oracle_calls(&self) -> usize {
        2 * self.fits
    }

    /// [`Error::DimensionMismatch`] unless `context` < C.
    pub(crate) fn check_context(&self, context: usize) -> Result<()> {
        check_context(context, self.n_contexts)
    }
}

impl<RO: LeastSquaresOracle, DO: LogLossOracle> Agent for GreedyPlugIn<RO, DO> {
    fn name(&self) -> &str {
        "greedy plug-in"
    }
    fn act(&mut self, context: usize) -> Result<Policy> {
        check_context(context, self.n_contexts)?;
        // `>=`, not `==`: a wrapper may play the episode at which an epoch
        // starts itself (exploration), and the refit is then due at the next
        // greedy episode.
        let due = match self.schedule {
            RefitSchedule::EveryEpisode | RefitSchedule::Once => self.model.is_none(),
            RefitSchedule::Doubling => self.episodes >= epoch_start(self.fits),
        };
        if due || self.model.is_none() {
            let f = self.reward_oracle.fit(&self.data)?.table;
            let p = self.dynamics_oracle.fit(&self.data)?.table;
            self.model = Some((f, p));
            self.fits += 1;
        }
        let (f, p) = self
            .model
            .as_ref()
            .ok_or(Error::EmptyClass { what: "model" })?;
        if f.dim().0 <= context || p.dim().0 <= context {
            return Err(mismatch(
                "oracle output contexts",
                self.n_contexts,
                f.dim().0.min(p.dim().0),
            ));
        }
        Ok(plan_layered(
            &self.space,
            f.slice(s![context, .., ..]),
            p.slice(s![context, .., .., ..]),
            None,
            false,
        )
        .policy)
    }
    fn observe(&mut self, trajectory: &Trajectory) -> Result<()> {
        self.data.push_trajectory(trajectory)?;
        self.episodes += 1;
        if self.schedule == RefitSchedule::EveryEpisode {
            self.model = None;
        }
        Ok(())
    }
}
