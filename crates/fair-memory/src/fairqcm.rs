//! Tabular FairQCM (paper Alg. 1): Q-learning on the augmented state (s, m)
//! with counterfactual memories, and the memory baselines without them.
//!
//! For each real transition (s, m, a, s') and every counterfactual memory
//! m̃ ∈ C(m) \ {m} with (s, m̃) feasible:
//! m̃' = μ(m̃, Δ), r̃ = r(s, a, s', m̃'), and
//! Q(s, m̃, a) ← Q(s, m̃, a) + α·(r̃ + γ·[¬end(s', m̃')]·maxₐ' Q(s', m̃', a') − Q(s, m̃, a)).
//! Valid because the transition (s, a) → (s', Δ) does not depend on the
//! memory and the reward and the end of the episode are known functions of
//! the counts (the paper's assumptions, the [`FairEnv`] contract).
//!
//! The learner's greedy policy is evaluated exactly by [`greedy_value`]
//! (also at `dp::greedy_value`), which [`learning_curve`] records.

use crate::env::{EnvOutcome, FairEnv};
use crate::error::{Error, Result};
use crate::memory::{Memory, MemoryKind};
use mlcore::check;
use ndarray::ArrayView1;
use rand::{Rng, RngExt};
use std::collections::HashMap;
use tabular_mdp::{QTable, StepSize, argmax_first};

/// Largest number of Q-table entries a learner allocates (2²⁸ ≈ 2.7e8).
pub const MAX_TABLE_ENTRIES: u128 = 1 << 28;

/// Which counterfactual memories C(m) each real transition updates.
///
/// Deviation from the official code: its tabular window is
/// ∏ᵢ {mᵢ, …, mᵢ + w − 1} and its DQN window ∏ᵢ {mᵢ + 1, …, mᵢ + w}; both are
/// [`CounterfactualSet::Window`] (offset 0 or 1, width w) here. The real
/// memory itself is skipped (the official code updated the real pair a second
/// time with the counterfactual reward).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterfactualSet {
    /// No counterfactuals: plain Q-learning on (s, m).
    None,
    /// m̃ᵢ ∈ {mᵢ + offset, …, mᵢ + offset + width − 1} ∩ [0, T] for every i
    /// (widthᴺ memories). Official tabular: offset 0, width 2.
    Window {
        /// First offset.
        offset: u32,
        /// Width w ≥ 1.
        width: u32,
    },
    /// Every memory (T + 1)ᴺ — for small problems.
    All,
}

/// Hyper-parameters of [`FairQcm`]; `Default` is the official tabular setting
/// (α = 0.1, γ = 0.99, ε from 1 ×0.95 per exploration down to 0.2, full
/// memory, window offset 0 width 2, 50 000 episodes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QcmParams {
    /// Training episodes. Default 50 000.
    pub episodes: usize,
    /// Learning rate α (constant, or 1/n^ω per entry). Default 0.1.
    pub step_size: StepSize,
    /// Discount γ ∈ (0, 1]. Default 0.99.
    pub gamma: f64,
    /// Initial ε of every (s, m) row. Default 1.
    pub epsilon_start: f64,
    /// ε of a row is multiplied by this after each exploratory action taken
    /// there, while it exceeds `epsilon_min` (official rule). Default 0.95.
    pub epsilon_decay: f64,
    /// Floor of the decay. Default 0.2.
    pub epsilon_min: f64,
    /// The memory design. Default full counts.
    pub memory: MemoryKind,
    /// The counterfactual set. Default window (offset 0, width 2).
    pub counterfactuals: CounterfactualSet,
    /// Accept a memory that is not sufficient for the welfare (as the
    /// official code does with Min/Reset and NSW). Default false.
    pub allow_insufficient_memory: bool,
}

impl Default for QcmParams {
    fn default() -> Self {
        QcmParams {
            episodes: 50_000,
            step_size: StepSize::Constant(0.1),
            gamma: 0.99,
            epsilon_start: 1.0,
            epsilon_decay: 0.95,
            epsilon_min: 0.2,
            memory: MemoryKind::Full,
            counterfactuals: CounterfactualSet::Window {
                offset: 0,
                width: 2,
            },
            allow_insufficient_memory: false,
        }
    }
}

impl QcmParams {
    /// The memory baseline: same parameters, no counterfactuals, memory `kind`.
    pub fn baseline(kind: MemoryKind) -> Self {
        QcmParams {
            memory: kind,
            counterfactuals: CounterfactualSet::None,
            ..QcmParams::default()
        }
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for γ ∉ (0, 1], a constant α ∉ (0, 1], an
    /// exponent ω ∉ (1/2, 1], ε's outside [0, 1] or a decay outside (0, 1],
    /// a window of width 0; [`Error::CounterfactualNeedsFullMemory`].
    pub fn check(&self) -> Result<()> {
        check::left_open_interval(self.gamma, 0.0, 1.0, "gamma", "in (0, 1]")?;
        self.step_size.check()?;
        for (name, v) in [
            ("epsilon_start", self.epsilon_start),
            ("epsilon_min", self.epsilon_min),
        ] {
            check::closed_interval(v, 0.0, 1.0, name, "in [0, 1]")?;
        }
        check::left_open_interval(self.epsilon_decay, 0.0, 1.0, "epsilon_decay", "in (0, 1]")?;
        if let CounterfactualSet::Window { width, .. } = self.counterfactuals {
            check::at_least(width as usize, 1, "width", "at least 1")?;
        }
        if self.counterfactuals != CounterfactualSet::None && self.memory != MemoryKind::Full {
            return Err(Error::CounterfactualNeedsFullMemory {
                memory: self.memory.name(),
            });
        }
        Ok(())
    }
}

/// One counterfactual experience (m̃, r̃, m̃', end) for a real step.
#[derive(Debug, Clone, PartialEq)]
pub struct Counterfactual {
    /// The counterfactual memory m̃.
    pub memory: Vec<u32>,
    /// Its successor m̃' = μ(m̃, Δ).
    pub next_memory: Vec<u32>,
    /// r̃, computed by the environment's own reward (same welfare, same λ as
    /// the real reward; the official code dropped λ here).
    pub reward: f64,
    /// Whether the episode ends in (s', m̃').
    pub terminal: bool,
}

/// The counterfactual memories C(m) \ {m} of `set`, restricted to those with
/// (s, m̃) feasible in `env`, in lexicographic order of codes. O(|C|·N).
///
/// # Errors
/// [`Error::DimensionMismatch`] when `memory` is not for `env`'s N
/// stakeholders or `m` has the wrong length; [`Error::MemoryOutOfRange`];
/// [`Error::StateOutOfRange`]; [`Error::InvalidParameter`] for a window of
/// width 0; [`Error::TableTooLarge`] when the set would hold more than
/// [`MAX_TABLE_ENTRIES`] memories.
pub fn counterfactual_memories<E: FairEnv>(
    env: &E,
    memory: &Memory,
    set: CounterfactualSet,
    s: usize,
    m: &[u32],
) -> Result<Vec<Vec<u32>>> {
    check_memory_for(env, memory)?;
    memory.try_encode(m)?;
    check_state(env, s)?;
    let per = match set {
        CounterfactualSet::None => 0u128,
        CounterfactualSet::Window { width, .. } => {
            check::at_least(width as usize, 1, "width", "at least 1")?;
            u128::from(width.min(memory.cap() + 1))
        }
        CounterfactualSet::All => u128::from(memory.cap()) + 1,
    };
    let size = (0..m.len()).try_fold(1u128, |acc, _| acc.checked_mul(per));
    match size {
        Some(n) if n <= MAX_TABLE_ENTRIES => {}
        _ => {
            return Err(Error::TableTooLarge {
                entries: size.unwrap_or(u128::MAX),
                limit: MAX_TABLE_ENTRIES,
            });
        }
    }
    let mut out = Vec::new();
    for_each_counterfactual(env, memory, set, s, m, |x| out.push(x.to_vec()));
    Ok(out)
}

/// Fails unless `memory` is for `env`'s stakeholders and horizon.
fn check_memory_for<E: FairEnv>(env: &E, memory: &Memory) -> Result<()> {
    if memory.n_stakeholders() != env.n_stakeholders() {
        return Err(Error::DimensionMismatch {
            what: "memory (stakeholders of the environment)",
            expected: env.n_stakeholders(),
            got: memory.n_stakeholders(),
        });
    }
    if memory.cap() as usize != env.horizon() {
        return Err(Error::InvalidParameter {
            name: "memory cap",
            value: f64::from(memory.cap()),
            expected: "the environment's horizon T",
        });
    }
    Ok(())
}

fn check_state<E: FairEnv>(env: &E, s: usize) -> Result<()> {
    if s < env.n_states() {
        Ok(())
    } else {
        Err(Error::StateOutOfRange {
            state: s,
            n_states: env.n_states(),
        })
    }
}

/// Calls `f` on each memory of [`counterfactual_memories`], without allocating a list.
fn for_each_counterfactual<E: FairEnv, F: FnMut(&[u32])>(
    env: &E,
    memory: &Memory,
    set: CounterfactualSet,
    s: usize,
    m: &[u32],
    mut f: F,
) {
    let cap = memory.cap();
    let n = m.len();
    let (lo, hi): (Vec<u32>, Vec<u32>) = match set {
        CounterfactualSet::None => return,
        CounterfactualSet::Window { offset, width } => (
            m.iter()
                .map(|&x| x.saturating_add(offset).min(cap.saturating_add(1)))
                .collect(),
            m.iter()
                .map(|&x| {
                    x.saturating_add(offset)
                        .saturating_add(width.saturating_sub(1))
                        .min(cap)
                })
                .collect(),
        ),
        CounterfactualSet::All => (vec![0; n], vec![cap; n]),
    };
    if lo.iter().zip(&hi).any(|(l, h)| l > h) {
        return;
    }
    let mut cur = lo.clone();
    loop {
        if cur.as_slice() != m && env.feasible(s, &cur) {
            f(&cur);
        }
        // Odometer increment.
        let mut i = 0;
        loop {
            if i == n {
                return;
            }
            if cur[i] < hi[i] {
                cur[i] += 1;
                break;
            }
            cur[i] = lo[i];
            i += 1;
        }
    }
}

/// The counterfactual experience of memory m̃ for the real step (s, a) → `o`:
/// what the environment returns when its memory is forced to m̃ (P3). O(N).
///
/// # Errors
/// As [`counterfactual_memories`] for `memory` and `m_tilde`;
/// [`Error::StateOutOfRange`] for `s` or `o.next`;
/// [`Error::ActionOutOfRange`]; [`Error::DimensionMismatch`] for a gain
/// that is not a stakeholder index.
pub fn counterfactual<E: FairEnv>(
    env: &E,
    memory: &Memory,
    s: usize,
    a: usize,
    o: &EnvOutcome,
    m_tilde: &[u32],
) -> Result<Counterfactual> {
    check_memory_for(env, memory)?;
    check_state(env, s)?;
    check_state(env, o.next)?;
    if a >= env.n_actions() {
        return Err(Error::ActionOutOfRange {
            action: a,
            n_actions: env.n_actions(),
        });
    }
    let mut next = vec![0; m_tilde.len()];
    memory.update(m_tilde, o.gain, &mut next)?;
    Ok(Counterfactual {
        reward: env.reward(s, a, o, &next),
        terminal: env.terminal(o.next, &next),
        memory: m_tilde.to_vec(),
        next_memory: next,
    })
}

/// Statistics of one training episode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpisodeStats {
    /// Undiscounted return of the behaviour policy.
    pub ret: f64,
    /// Real steps.
    pub steps: usize,
    /// Q updates (real + counterfactual).
    pub updates: usize,
}

/// Tabular FairQCM / memory-augmented Q-learning on (s, m).
///
/// Table rows are s·|M| + code(m) ([`Memory::encode`]); the table is a
/// [`tabular_mdp::QTable`]. The behaviour policy is ε-greedy with a per-row
/// ε (official rule) and greedy ties broken by the lowest action index
/// (the official code breaks ties at random). Real rewards and episode ends
/// use the true counts; the table is indexed by the memory (for an
/// insufficient memory, allowed explicitly, this is the official behaviour).
///
/// Cost per real step O(A + N) plus O(|C(m)|·(A + N)) with counterfactuals;
/// memory O(S·|M|·A).
#[derive(Debug, Clone)]
pub struct FairQcm<'e, E: FairEnv> {
    env: &'e E,
    params: QcmParams,
    memory: Memory,
    table: QTable,
    epsilon: Vec<f64>,
    n_mem: usize,
    episodes: usize,
}

impl<'e, E: FairEnv> FairQcm<'e, E> {
    /// A learner with Q ≡ 0.
    ///
    /// # Errors
    /// As [`QcmParams::check`] and [`Memory::new`];
    /// [`Error::MemoryNotSufficient`] unless the memory determines the
    /// environment's welfare or `allow_insufficient_memory`;
    /// [`Error::TableTooLarge`] above [`MAX_TABLE_ENTRIES`].
    pub fn new(env: &'e E, params: QcmParams) -> Result<Self> {
        params.check()?;
        let w = env.welfare();
        w.check(env.n_stakeholders())?;
        params
            .memory
            .check_sufficient(&w, params.allow_insufficient_memory)?;
        let memory = Memory::new(params.memory, env.n_stakeholders(), env.horizon())?;
        let n_mem = memory.n_codes();
        let entries = env.n_states() as u128 * n_mem as u128 * env.n_actions() as u128;
        if entries > MAX_TABLE_ENTRIES || env.n_actions() == 0 {
            return Err(Error::TableTooLarge {
                entries,
                limit: MAX_TABLE_ENTRIES,
            });
        }
        let rows = env.n_states() * n_mem;
        Ok(FairQcm {
            env,
            params,
            memory,
            table: QTable::new(rows, env.n_actions(), 0.0),
            epsilon: vec![params.epsilon_start; rows],
            n_mem,
            episodes: 0,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &QcmParams {
        &self.params
    }

    /// The memory.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// The Q table (rows s·|M| + code(m)).
    pub fn table(&self) -> &QTable {
        &self.table
    }

    /// Episodes trained so far.
    pub fn episodes(&self) -> usize {
        self.episodes
    }

    /// The table row s·|M| + code of (s, code), for indexing [`FairQcm::table`]
    /// (wrapping arithmetic: meaningful only for s < n_states, code < |M|).
    pub fn row(&self, s: usize, code: usize) -> usize {
        s.wrapping_mul(self.n_mem).wrapping_add(code)
    }

    /// Q(s, m, ·). O(N + A).
    ///
    /// # Errors
    /// [`Error::StateOutOfRange`]; [`Memory::try_encode`]'s errors for `m`.
    pub fn q(&self, s: usize, m: &[u32]) -> Result<ArrayView1<'_, f64>> {
        check_state(self.env, s)?;
        Ok(self.table.q.row(self.row(s, self.memory.try_encode(m)?)))
    }

    /// The greedy action argmaxₐ Q(s, m, a) (lowest index among ties). O(N + A).
    ///
    /// # Errors
    /// As [`FairQcm::q`].
    pub fn greedy(&self, s: usize, m: &[u32]) -> Result<usize> {
        check_state(self.env, s)?;
        Ok(self.greedy_unchecked(s, m))
    }

    fn greedy_unchecked(&self, s: usize, m: &[u32]) -> usize {
        self.table.greedy(self.row(s, self.memory.encode(m)))
    }

    #[inline]
    fn td_update(&mut self, row: usize, a: usize, target: f64) {
        let n = &mut self.table.visits[[row, a]];
        *n += 1;
        let alpha = match self.params.step_size {
            StepSize::Constant(x) => x,
            StepSize::Polynomial { exponent } => (*n as f64).powf(-exponent),
        };
        let q = &mut self.table.q[[row, a]];
        *q += alpha * (target - *q);
    }

    #[inline]
    fn max_row(&self, row: usize) -> f64 {
        self.table.max(row)
    }

    /// Runs one training episode.
    pub fn run_episode<R: Rng + ?Sized>(&mut self, rng: &mut R) -> EpisodeStats {
        let env = self.env;
        let n = env.n_stakeholders();
        let gamma = self.params.gamma;
        let mut s = env.sample_initial(rng);
        let mut u = vec![0u32; n];
        let mut m = self.memory.init();
        let (mut u2, mut m2) = (vec![0u32; n], vec![0u32; n]);
        let mut cf_next = vec![0u32; n];
        let mut stats = EpisodeStats {
            ret: 0.0,
            steps: 0,
            updates: 0,
        };
        for _ in 0..env.horizon() {
            let row = self.row(s, self.memory.encode(&m));
            let a = {
                let eps = &mut self.epsilon[row];
                if rng.random::<f64>() < *eps {
                    if *eps > self.params.epsilon_min {
                        *eps *= self.params.epsilon_decay;
                    }
                    rng.random_range(0..env.n_actions())
                } else {
                    let r = self.table.q.row(row);
                    argmax_first(r.as_slice().unwrap_or(&[]))
                }
            };
            let o = env.sample(s, a, rng);
            u2.copy_from_slice(&u);
            if let Some(g) = o.gain {
                u2[g] += 1;
            }
            self.memory.update_unchecked(&m, o.gain, &mut m2);
            let r = env.reward(s, a, &o, &u2);
            let end = env.terminal(o.next, &u2);
            let next_row = self.row(o.next, self.memory.encode(&m2));
            let target = if end {
                r
            } else {
                r + gamma * self.max_row(next_row)
            };
            self.td_update(row, a, target);
            stats.updates += 1;
            if self.params.counterfactuals != CounterfactualSet::None {
                let mem = self.memory.clone();
                let set = self.params.counterfactuals;
                let mut pending: Vec<(usize, f64)> = Vec::new();
                for_each_counterfactual(env, &mem, set, s, &m, |mt| {
                    mem.update_unchecked(mt, o.gain, &mut cf_next);
                    let rt = env.reward(s, a, &o, &cf_next);
                    let endt = env.terminal(o.next, &cf_next);
                    let nrow = o.next * self.n_mem + mem.encode(&cf_next);
                    let y = if endt {
                        rt
                    } else {
                        rt + gamma * self.table.max(nrow)
                    };
                    pending.push((s * self.n_mem + mem.encode(mt), y));
                });
                // Targets are computed before any counterfactual write; the
                // rows (s, m̃) differ from their successors (s', m̃') in time,
                // so the order does not matter.
                for (row, y) in pending {
                    self.td_update(row, a, y);
                    stats.updates += 1;
                }
            }
            stats.ret += r;
            stats.steps += 1;
            std::mem::swap(&mut u, &mut u2);
            std::mem::swap(&mut m, &mut m2);
            s = o.next;
            if end {
                break;
            }
        }
        self.episodes += 1;
        stats
    }

    /// Runs `episodes` episodes, calling `monitor(self)` after each.
    pub fn train<R: Rng + ?Sized, F: FnMut(&Self)>(
        &mut self,
        episodes: usize,
        rng: &mut R,
        mut monitor: F,
    ) {
        for _ in 0..episodes {
            self.run_episode(rng);
            monitor(self);
        }
    }

    /// Runs `params.episodes` episodes.
    pub fn train_all<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.train(self.params.episodes, rng, |_| {});
    }
}

/// The greedy policy's exact value along training: checkpoints every
/// `eval_every` episodes ([`greedy_value`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LearningCurve {
    /// Episodes trained at each checkpoint (eval_every, 2·eval_every, …).
    pub episodes: Vec<usize>,
    /// The greedy policy's expected discounted return at each checkpoint.
    pub values: Vec<f64>,
}

impl LearningCurve {
    /// The first checkpoint from which the greedy value stays within `tol`
    /// of `optimum` until the end (None if the last one is not), the
    /// "episodes to optimal" of the sample-efficiency claim.
    pub fn episodes_to_optimal(&self, optimum: f64, tol: f64) -> Option<usize> {
        let ok = |v: f64| v >= optimum - tol;
        let mut first = None;
        for (&e, &v) in self.episodes.iter().zip(&self.values) {
            if ok(v) {
                first.get_or_insert(e);
            } else {
                first = None;
            }
        }
        first
    }
}

/// Trains a fresh learner for `params.episodes` episodes and records its
/// greedy value (discount `params.gamma`) every `eval_every` episodes.
/// O(episodes·step cost + checkpoints·evaluation cost).
///
/// # Errors
/// As [`FairQcm::new`]; [`Error::InvalidParameter`] for `eval_every = 0`.
pub fn learning_curve<E: FairEnv, R: Rng + ?Sized>(
    env: &E,
    params: QcmParams,
    eval_every: usize,
    rng: &mut R,
) -> Result<LearningCurve> {
    check::at_least(eval_every, 1, "eval_every", "at least 1")?;
    let mut learner = FairQcm::new(env, params)?;
    let mut curve = LearningCurve {
        episodes: Vec::new(),
        values: Vec::new(),
    };
    for e in 1..=params.episodes {
        learner.run_episode(rng);
        if e % eval_every == 0 {
            curve.episodes.push(e);
            curve
                .values
                .push(greedy_value_unchecked(&learner, env, params.gamma));
        }
    }
    Ok(curve)
}

/// The exact expected discounted return Σ p₀(s)·V^π(s, 0, 0) of the
/// learner's greedy policy π(s, m) = argmaxₐ Q(s, m, a), on the true
/// process (state, true counts u, memory m), by memoised recursion over the
/// reachable (s, u, m). Works for every memory kind. O(reachable·A·outcomes).
///
/// # Errors
/// [`Error::InvalidParameter`] for γ ∉ (0, 1]; [`Error::DimensionMismatch`]
/// when `env` does not have the learner's environment's states, actions,
/// stakeholders and horizon.
pub fn greedy_value<E: FairEnv>(learner: &FairQcm<'_, E>, env: &E, gamma: f64) -> Result<f64> {
    check::left_open_interval(gamma, 0.0, 1.0, "gamma", "in (0, 1]")?;
    let own = learner.env;
    for (what, expected, got) in [
        ("environment states", own.n_states(), env.n_states()),
        ("environment actions", own.n_actions(), env.n_actions()),
        (
            "environment stakeholders",
            own.n_stakeholders(),
            env.n_stakeholders(),
        ),
        ("environment horizon", own.horizon(), env.horizon()),
    ] {
        if expected != got {
            return Err(Error::DimensionMismatch {
                what,
                expected,
                got,
            });
        }
    }
    Ok(greedy_value_unchecked(learner, env, gamma))
}

fn greedy_value_unchecked<E: FairEnv>(learner: &FairQcm<'_, E>, env: &E, gamma: f64) -> f64 {
    let mem = learner.memory();
    let full = Memory::new(MemoryKind::Full, env.n_stakeholders(), env.horizon())
        .unwrap_or_else(|_| mem.clone());
    let mut memo: HashMap<(usize, usize, usize), f64> = HashMap::new();
    let zero = mem.init();
    env.initial()
        .iter()
        .map(|&(p, s)| p * value_rec(learner, env, &full, gamma, s, &zero, &zero, &mut memo))
        .sum()
}

#[allow(clippy::too_many_arguments)]
fn value_rec<E: FairEnv>(
    learner: &FairQcm<'_, E>,
    env: &E,
    full: &Memory,
    gamma: f64,
    s: usize,
    u: &[u32],
    m: &[u32],
    memo: &mut HashMap<(usize, usize, usize), f64>,
) -> f64 {
    let mem = learner.memory();
    let key = (s, full.encode(u), mem.encode(m));
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let a = learner.greedy_unchecked(s, m);
    let mut u2 = u.to_vec();
    let mut m2 = m.to_vec();
    let mut v = 0.0;
    for o in env.outcomes(s, a) {
        u2.copy_from_slice(u);
        if let Some(g) = o.gain {
            u2[g] += 1;
        }
        mem.update_unchecked(m, o.gain, &mut m2);
        let r = env.reward(s, a, &o, &u2);
        let cont = if env.terminal(o.next, &u2) {
            0.0
        } else {
            gamma * value_rec(learner, env, full, gamma, o.next, &u2, &m2, memo)
        };
        v += o.prob * (r + cont);
    }
    memo.insert(key, v);
    v
}
