//! Tabular max-Q-learning on augmented states (s, y), and ordinary
//! (sum-reward) Q-learning on the same MDP as the baseline.
//!
//! Max-Q-learning is [`tabular_mdp::q_learning`] on [`AugmentedEnv`] with the
//! target of [`max_reward_target`]:
//! target = terminal ∨ y' saturated ? max(y, r) : γ·max(y', max_{a'} Q(s', y', a')).

use crate::augmented::{AugmentedPolicy, MaxRewardMdp, MaxSolution};
use crate::error::{Error, Result};
use ndarray::Array2;
use rand::Rng;
use tabular_mdp::{
    Environment, MdpEnv, QLearningParams, QTable, Step, q_learning, sum_reward_target,
};

/// An augmented state (s, y index); y index |Y| is the saturated class.
pub type AugState = (usize, usize);

/// The augmented environment: states (s, y) with y a lattice index
/// (|Y| = saturated). Codes: s·(|Y| + 1) + y.
///
/// A step samples (s', r, terminal) from the MDP, pays the *shifted* reward
/// r and moves y to max(y, r)/γ. A step that saturates y (y' ≥ r_max) is
/// reported as terminal: the max-reward return of the episode is then fixed
/// (max(y, r), discounted), exactly as in the reduction
/// [`MaxRewardMdp::export_standard_mdp`]. For learning this ends the episode.
#[derive(Debug, Clone)]
pub struct AugmentedEnv<'a> {
    m: &'a MaxRewardMdp,
    start: usize,
}

impl<'a> AugmentedEnv<'a> {
    /// Episodes start in (start, y = 0).
    ///
    /// # Errors
    /// A state-out-of-range error for `start`.
    pub fn new(m: &'a MaxRewardMdp, start: usize) -> Result<Self> {
        m.mdp().check_state(start)?;
        Ok(AugmentedEnv { m, start })
    }
}

impl Environment for AugmentedEnv<'_> {
    type State = (usize, usize);
    fn n_codes(&self) -> usize {
        self.m.n_states() * (self.m.n_y() + 1)
    }
    fn n_actions(&self) -> usize {
        self.m.n_actions()
    }
    fn encode(&self, state: &(usize, usize)) -> usize {
        state.0 * (self.m.n_y() + 1) + state.1
    }
    fn reset<R: Rng + ?Sized>(&mut self, _rng: &mut R) -> (usize, usize) {
        (self.start, 0)
    }
    fn step<R: Rng + ?Sized>(
        &mut self,
        state: &(usize, usize),
        a: usize,
        rng: &mut R,
    ) -> Step<(usize, usize)> {
        let (s, y) = *state;
        let o = self.m.mdp().sample(s, a, rng);
        let r = o.reward + self.m.reward_shift();
        let lat = self.m.lattice();
        let sat = lat.saturated();
        let yn = if y >= sat {
            sat
        } else {
            lat.reward_index(r)
                .map_or(sat, |ri| lat.next_unchecked(y, ri))
        };
        Step {
            next: (o.next, yn),
            reward: r,
            terminal: o.terminal || yn == sat,
        }
    }
}

/// The max-reward TD target for [`tabular_mdp::q_learning`] on
/// [`AugmentedEnv`]: max(y, r) if the step is terminal (or saturates y),
/// else γ·max(y', max_{a'} Q(s', y', a')).
///
/// Deviation from the official TD3-max code, which uses max(y, r)/γ in the
/// terminal branch: that is inconsistent by a factor 1/γ with the other
/// branch (q = γ·v(s', y') and v(s', y') = y' = max(y, r)/γ at a
/// terminal), so the correct terminal target is max(y, r).
pub fn max_reward_target(
    m: &MaxRewardMdp,
) -> impl FnMut(&AugState, &Step<AugState>, f64) -> f64 + '_ {
    let lat = m.lattice();
    let g = m.gamma();
    move |state, step, max_next| {
        let yv = if state.1 < lat.len() {
            lat.value_unchecked(state.1)
        } else {
            lat.r_max()
        };
        if step.terminal {
            yv.max(step.reward)
        } else {
            g * lat.value_unchecked(step.next.1).max(max_next)
        }
    }
}

/// Runs tabular max-Q-learning on `m` from (start, 0). `monitor(t, &table)`
/// is called as in [`tabular_mdp::q_learning`]. O(steps·A).
///
/// # Errors
/// Bad parameters or start state (see [`tabular_mdp::q_learning`]).
pub fn max_q_learning<R, M>(
    m: &MaxRewardMdp,
    start: usize,
    params: &QLearningParams,
    rng: &mut R,
    monitor: M,
) -> Result<QTable>
where
    R: Rng + ?Sized,
    M: FnMut(usize, &QTable),
{
    let mut env = AugmentedEnv::new(m, start)?;
    Ok(q_learning(
        &mut env,
        params,
        max_reward_target(m),
        rng,
        monitor,
    )?)
}

/// Ordinary sum-reward Q-learning on the MDP of `m` (shifted rewards,
/// discount `gamma`), the baseline. O(steps·A).
///
/// # Errors
/// An invalid `gamma`, bad parameters or start state.
pub fn sum_q_learning<R, M>(
    m: &MaxRewardMdp,
    gamma: f64,
    start: usize,
    params: &QLearningParams,
    rng: &mut R,
    monitor: M,
) -> Result<QTable>
where
    R: Rng + ?Sized,
    M: FnMut(usize, &QTable),
{
    crate::error::check_gamma(gamma)?;
    let mut env = MdpEnv::new(m.mdp(), start)?;
    let shift = m.reward_shift();
    let mut base = sum_reward_target::<usize>(gamma);
    let target = move |s: &usize, st: &Step<usize>, mx: f64| {
        let shifted = Step {
            next: st.next,
            reward: st.reward + shift,
            terminal: st.terminal,
        };
        base(s, &shifted, mx)
    };
    Ok(q_learning(&mut env, params, target, rng, monitor)?)
}

/// The greedy augmented policy of a max-Q table (ties: lowest index;
/// saturated class: the y = 0 action, as in [`MaxRewardMdp::greedy_policy`]).
///
/// # Errors
/// [`Error::ShapeMismatch`] when the table does not match `m`;
/// [`Error::NonFinite`] for a NaN or infinite entry.
pub fn greedy_from_table(m: &MaxRewardMdp, table: &QTable) -> Result<AugmentedPolicy> {
    let (ns, ny) = (m.n_states(), m.n_y());
    if table.q.dim() != (ns * (ny + 1), m.n_actions()) {
        return Err(Error::ShapeMismatch {
            what: "Q table",
            expected: format!("{} × {}", ns * (ny + 1), m.n_actions()),
            got: format!("{:?}", table.q.dim()),
        });
    }
    if let Some((i, &x)) = table.q.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(Error::NonFinite {
            what: "Q table",
            index: i,
            value: x,
        });
    }
    let actions = (0..ns)
        .flat_map(|s| (0..ny).map(move |y| (s, y)))
        .map(|(s, y)| table.greedy(s * (ny + 1) + y))
        .collect();
    let saturated = (0..ns).map(|s| table.greedy(s * (ny + 1))).collect();
    AugmentedPolicy::new(ns, ny, actions, saturated)
}

/// max over (s, y, a) with `mask[[s, y]]` of |Q(s, y, a) − Q*(s, y, a)|:
/// the learning error of a max-Q table on the masked augmented states
/// (e.g. [`MaxRewardMdp::reachable`]).
///
/// # Errors
/// [`Error::ShapeMismatch`] for mismatched shapes.
pub fn q_error(
    m: &MaxRewardMdp,
    table: &QTable,
    exact: &MaxSolution,
    mask: &Array2<bool>,
) -> Result<f64> {
    let (ns, ny, na) = (m.n_states(), m.n_y(), m.n_actions());
    if table.q.dim() != (ns * (ny + 1), na)
        || exact.q.dim() != (ns, ny, na)
        || mask.dim() != (ns, ny)
    {
        return Err(Error::ShapeMismatch {
            what: "Q table, solution or mask",
            expected: format!("S = {ns}, |Y| = {ny}, A = {na}"),
            got: format!("{:?}, {:?}, {:?}", table.q.dim(), exact.q.dim(), mask.dim()),
        });
    }
    let mut err: f64 = 0.0;
    for s in 0..ns {
        for y in 0..ny {
            if mask[[s, y]] {
                for a in 0..na {
                    err = err.max((table.q[[s * (ny + 1) + y, a]] - exact.q[[s, y, a]]).abs());
                }
            }
        }
    }
    Ok(err)
}
