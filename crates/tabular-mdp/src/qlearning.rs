//! Tabular ε-greedy Q-learning, generic over the environment's state and its
//! encoding into table rows, and over the TD target.
//!
//! The learner only needs `encode(state) ∈ 0..n_codes`: an augmented state
//! such as (s, y) of max-reward RL or (s, m) of a memory-augmented fairness
//! problem is encoded by its environment, and the target rule (sum-reward
//! r + γ·max Q, or a max-reward rule) is a closure. Everything random goes
//! through the caller's `rng`, so a seed fixes the run.

use crate::error::{Error, Result};
use crate::horizon::{check_table_size, try_array2};
use crate::mdp::FiniteMdp;
use crate::solve::argmax_first;
use mlcore::check;
use ndarray::Array2;
use rand::{Rng, RngExt};

/// What one environment step returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Step<S> {
    /// The next state.
    pub next: S,
    /// The reward paid.
    pub reward: f64,
    /// Whether the episode ended (no bootstrapping from `next`).
    pub terminal: bool,
}

/// An episodic environment with finitely many encoded states and `n_actions` actions.
pub trait Environment {
    /// The environment's own state (e.g. `usize`, `(usize, usize)`).
    type State: Clone;
    /// Number of table rows: `encode` maps into `0..n_codes()`.
    fn n_codes(&self) -> usize;
    /// Number of actions (the same in every state).
    fn n_actions(&self) -> usize;
    /// The table row of a state.
    fn encode(&self, state: &Self::State) -> usize;
    /// Starts an episode.
    fn reset<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Self::State;
    /// Takes action `a` in `state`.
    fn step<R: Rng + ?Sized>(
        &mut self,
        state: &Self::State,
        a: usize,
        rng: &mut R,
    ) -> Step<Self::State>;
}

/// A [`FiniteMdp`] as an [`Environment`]: episodes start in `start`, states encode as themselves.
#[derive(Debug, Clone)]
pub struct MdpEnv<'a> {
    mdp: &'a FiniteMdp,
    start: usize,
}

impl<'a> MdpEnv<'a> {
    /// Wraps `mdp` with start state `start`.
    ///
    /// # Errors
    /// [`Error::StateOutOfRange`] when `start ≥ S`.
    pub fn new(mdp: &'a FiniteMdp, start: usize) -> Result<Self> {
        mdp.check_state(start)?;
        Ok(MdpEnv { mdp, start })
    }
}

impl Environment for MdpEnv<'_> {
    type State = usize;
    fn n_codes(&self) -> usize {
        self.mdp.n_states()
    }
    fn n_actions(&self) -> usize {
        self.mdp.n_actions()
    }
    fn encode(&self, state: &usize) -> usize {
        *state
    }
    fn reset<R: Rng + ?Sized>(&mut self, _rng: &mut R) -> usize {
        self.start
    }
    fn step<R: Rng + ?Sized>(&mut self, state: &usize, a: usize, rng: &mut R) -> Step<usize> {
        let o = self.mdp.sample(*state, a, rng);
        Step {
            next: o.next,
            reward: o.reward,
            terminal: o.terminal,
        }
    }
}

/// The learning-rate schedule α of the update Q ← Q + α·(target − Q).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StepSize {
    /// A constant α ∈ (0, 1].
    Constant(f64),
    /// α = 1/n(s, a)^ω with n the visit count of the pair (including this
    /// visit) and ω ∈ (1/2, 1] (the Robbins–Monro range).
    Polynomial {
        /// The exponent ω.
        exponent: f64,
    },
}

impl StepSize {
    /// Validates the schedule: a constant `α ∈ (0, 1]`, an exponent `ω ∈ (1/2, 1]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `alpha` or `exponent`.
    pub fn check(&self) -> Result<()> {
        match *self {
            StepSize::Constant(a) => check::left_open_interval(a, 0.0, 1.0, "alpha", "in (0, 1]")?,
            StepSize::Polynomial { exponent: w } => {
                check::left_open_interval(w, 0.5, 1.0, "exponent", "in (1/2, 1]")?;
            }
        }
        Ok(())
    }
}

/// Hyper-parameters of [`q_learning`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QLearningParams {
    /// Environment steps to run. Default 200 000.
    pub steps: usize,
    /// Exploration rate ε of the ε-greedy behaviour policy. Default 0.2.
    pub epsilon: f64,
    /// Learning rate schedule. Default α = 1/n^0.6.
    pub step_size: StepSize,
    /// Episodes are cut (truncated, still bootstrapped) after this many steps. Default 1000.
    pub max_episode_len: usize,
    /// Initial value of every Q entry. Default 0.
    pub init_q: f64,
    /// Call the monitor every this many steps (0: only at the end). Default 0.
    pub report_every: usize,
}

impl Default for QLearningParams {
    fn default() -> Self {
        QLearningParams {
            steps: 200_000,
            epsilon: 0.2,
            step_size: StepSize::Polynomial { exponent: 0.6 },
            max_episode_len: 1000,
            init_q: 0.0,
            report_every: 0,
        }
    }
}

impl QLearningParams {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for ε ∉ [0, 1], a constant α ∉ (0, 1], an
    /// exponent ω ∉ (1/2, 1], `max_episode_len = 0`, a non-finite `init_q`.
    pub fn check(&self) -> Result<()> {
        check::closed_interval(self.epsilon, 0.0, 1.0, "epsilon", "in [0, 1]")?;
        self.step_size.check()?;
        check::at_least(self.max_episode_len, 1, "max_episode_len", "at least 1")?;
        check::finite_scalar(self.init_q, "init_q")?;
        Ok(())
    }
}

/// A Q table and its visit counts, rows = encoded states.
#[derive(Debug, Clone, PartialEq)]
pub struct QTable {
    /// Q(code, a).
    pub q: Array2<f64>,
    /// n(code, a): number of updates of each entry.
    pub visits: Array2<u64>,
}

impl QTable {
    /// A table of `n_codes × n_actions` entries equal to `init`.
    ///
    /// # Panics
    /// When `n_codes · n_actions` overflows or the allocation fails (as any
    /// `ndarray` constructor); [`QTable::try_new`] returns an error instead.
    pub fn new(n_codes: usize, n_actions: usize, init: f64) -> Self {
        QTable {
            q: Array2::from_elem((n_codes, n_actions), init),
            visits: Array2::zeros((n_codes, n_actions)),
        }
    }

    /// [`QTable::new`] with the size checked first: 16 bytes per entry
    /// against [`MAX_TABLE_BYTES`](crate::horizon::MAX_TABLE_BYTES), and a
    /// fallible allocation.
    ///
    /// # Errors
    /// [`Error::TooLarge`].
    pub fn try_new(n_codes: usize, n_actions: usize, init: f64) -> Result<Self> {
        let what = "Q table (values and visit counts)";
        check_table_size(
            what,
            &format!("{n_codes} codes × {n_actions} actions"),
            &[&[n_codes, n_actions], &[n_codes, n_actions]],
        )?;
        Ok(QTable {
            q: try_array2((n_codes, n_actions), init, what)?,
            visits: try_array2((n_codes, n_actions), 0u64, what)?,
        })
    }

    /// max_a Q(code, a). Panics if `code` is out of range (an index, not data).
    pub fn max(&self, code: usize) -> f64 {
        self.q
            .row(code)
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// argmax_a Q(code, a), ties broken by the lowest index. Panics if `code`
    /// is out of range.
    pub fn greedy(&self, code: usize) -> usize {
        let row = self.q.row(code);
        match row.as_slice() {
            Some(s) => argmax_first(s),
            None => argmax_first(&row.to_vec()),
        }
    }
}

/// ε-greedy action: with probability ε a uniformly random action, otherwise
/// argmax (ties broken by the lowest index). One or two uniform draws.
/// Returns 0 for an empty row; an ε above 1 acts as 1, and one below 0 (or
/// NaN) as 0.
pub fn epsilon_greedy<R: Rng + ?Sized>(row: &[f64], epsilon: f64, rng: &mut R) -> usize {
    if row.is_empty() {
        return 0;
    }
    if rng.random::<f64>() < epsilon {
        rng.random_range(0..row.len())
    } else {
        argmax_first(row)
    }
}

/// The sum-reward TD target r + γ·[¬terminal]·max_a' Q(s', a') (ordinary
/// Q-learning), for [`q_learning`].
pub fn sum_reward_target<S>(gamma: f64) -> impl FnMut(&S, &Step<S>, f64) -> f64 {
    move |_, step, max_next| {
        if step.terminal {
            step.reward
        } else {
            step.reward + gamma * max_next
        }
    }
}

/// Tabular ε-greedy Q-learning with a caller-supplied TD target.
///
/// Each step: a = ε-greedy(Q(encode(s), ·)); (s', r, terminal) = env.step;
/// m = max_a' Q(encode(s'), a') (0 if terminal);
/// Q(s, a) ← Q(s, a) + α_n·(target(s, step, m) − Q(s, a)).
/// Episodes restart after a terminal step or after `max_episode_len` steps
/// (truncation: the last update still bootstraps). `monitor(t, &table)` is
/// called every `report_every` steps and once at the end.
///
/// With [`sum_reward_target`] this is Watkins' Q-learning; it converges to Q*
/// when every pair is visited infinitely often and α satisfies the
/// Robbins–Monro conditions (both schedules here do for ω ∈ (1/2, 1]).
/// Complexity O(steps · A).
///
/// # Errors
/// [`Error::InvalidParameter`] for bad params or an environment without
/// codes/actions; [`Error::TooLarge`] when the `n_codes × n_actions` table
/// does not fit ([`QTable::try_new`]); [`Error::StateOutOfRange`] when
/// `encode` leaves `0..n_codes`; [`Error::NonFinite`] for a non-finite reward
/// or target. Every Q value stays finite (an update is a convex combination
/// of the old value and a finite target).
pub fn q_learning<E, R, T, M>(
    env: &mut E,
    params: &QLearningParams,
    mut target: T,
    rng: &mut R,
    mut monitor: M,
) -> Result<QTable>
where
    E: Environment,
    R: Rng + ?Sized,
    T: FnMut(&E::State, &Step<E::State>, f64) -> f64,
    M: FnMut(usize, &QTable),
{
    params.check()?;
    let (nc, na) = (env.n_codes(), env.n_actions());
    check::at_least(nc, 1, "n_codes", "at least 1")?;
    check::at_least(na, 1, "n_actions", "at least 1")?;
    let code_of = |env: &E, s: &E::State| -> Result<usize> {
        let c = env.encode(s);
        if c < nc {
            Ok(c)
        } else {
            Err(Error::StateOutOfRange {
                state: c,
                n_states: nc,
            })
        }
    };
    let mut table = QTable::try_new(nc, na, params.init_q)?;
    let mut state = env.reset(rng);
    let mut code = code_of(env, &state)?;
    let mut len = 0usize;
    for t in 1..=params.steps {
        let a = {
            let row = table.q.row(code);
            match row.as_slice() {
                Some(s) => epsilon_greedy(s, params.epsilon, rng),
                None => epsilon_greedy(&row.to_vec(), params.epsilon, rng),
            }
        };
        let step = env.step(&state, a, rng);
        if !step.reward.is_finite() {
            return Err(Error::NonFinite {
                what: "reward",
                index: t,
                value: step.reward,
            });
        }
        let next_code = code_of(env, &step.next)?;
        let max_next = if step.terminal {
            0.0
        } else {
            table.max(next_code)
        };
        let y = target(&state, &step, max_next);
        if !y.is_finite() {
            return Err(Error::NonFinite {
                what: "TD target",
                index: t,
                value: y,
            });
        }
        let n = &mut table.visits[[code, a]];
        *n += 1;
        let alpha = match params.step_size {
            StepSize::Constant(a) => a,
            StepSize::Polynomial { exponent } => (*n as f64).powf(-exponent),
        };
        let q = &mut table.q[[code, a]];
        let d = y - *q;
        if d.is_finite() {
            *q += alpha * d;
        } else {
            // y and Q are finite but of opposite signs near f64::MAX.
            *q = (1.0 - alpha) * *q + alpha * y;
        }
        len += 1;
        if step.terminal || len >= params.max_episode_len {
            state = env.reset(rng);
            code = code_of(env, &state)?;
            len = 0;
        } else {
            state = step.next;
            code = next_code;
        }
        if params.report_every > 0 && t.is_multiple_of(params.report_every) {
            monitor(t, &table);
        }
    }
    if params.report_every == 0 || !params.steps.is_multiple_of(params.report_every) {
        monitor(params.steps, &table);
    }
    Ok(table)
}
