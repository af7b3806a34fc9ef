//! Exact optimum on the augmented state (s, u) by dynamic programming, and
//! exact evaluation of a learner's greedy policy, for small instances.
//!
//! The reachable augmented states (s, code(u)) (u the full counts) are
//! enumerated from the initial distribution and written as a
//! [`tabular_mdp::FiniteMdp`] (plus one absorbing state 0 that terminal
//! outcomes point to); every episode ends within T steps, so backward
//! induction over T + 1 steps ([`tabular_mdp::finite_horizon_plain`]) gives
//! Q* exactly:
//! Q*(s, u, a) = Σ_o p(o)·(r(s, a, o, u') + γ·[¬end(s', u')]·maxₐ' Q*(s', u', a')).

use crate::env::FairEnv;
use crate::error::{Error, Result};
use crate::fairqcm::FairQcm;
use crate::memory::{Memory, MemoryKind};
use mlcore::check;
use ndarray::{Array2, ArrayView1};
use std::collections::HashMap;
use tabular_mdp::{FiniteMdp, Outcome, finite_horizon_plain};

// The exact value of a learner's greedy policy is defined with the learner
// (its learning curve needs it), so that this module depends on `fairqcm`
// and not the other way round; it is re-exported here, its documented home.
pub use crate::fairqcm::greedy_value;

/// Largest number of augmented states [`optimal`] enumerates.
pub const MAX_AUGMENTED_STATES: usize = 2_000_000;

/// The exact optimum on the reachable augmented states.
#[derive(Debug, Clone)]
pub struct ExactSolution {
    memory: Memory,
    index: HashMap<(usize, usize), usize>,
    /// Q*(row, a); row 0 is the absorbing state.
    pub q: Array2<f64>,
    /// V* of the initial distribution, Σ p₀(s)·maxₐ Q*(s, 0, a).
    pub value: f64,
    /// The augmented MDP (for other solvers).
    pub mdp: FiniteMdp,
}

impl ExactSolution {
    /// Q*(s, u, ·) if (s, u) is reachable.
    pub fn q_row(&self, s: usize, u: &[u32]) -> Option<ArrayView1<'_, f64>> {
        let i = self.index.get(&(s, self.memory.encode(u)))?;
        Some(self.q.row(*i))
    }

    /// The reachable (s, u) pairs (unordered), with their rows.
    pub fn states(&self) -> impl Iterator<Item = (usize, Vec<u32>)> + '_ {
        self.index.keys().map(|&(s, c)| (s, self.memory.decode(c)))
    }

    /// Number of reachable augmented states (without the absorbing one).
    pub fn n_states(&self) -> usize {
        self.index.len()
    }

    /// ‖Q − Q*‖∞ over all reachable (s, u) and actions, for a learner with
    /// the full memory. O(states·A).
    ///
    /// # Errors
    /// [`Error::CounterfactualNeedsFullMemory`] when the learner's memory is
    /// not the full counts; [`Error::DimensionMismatch`] when the learner is
    /// for another environment (stakeholders, horizon, actions or states).
    pub fn sup_error<E: FairEnv>(&self, learner: &FairQcm<'_, E>) -> Result<f64> {
        if learner.memory().kind() != MemoryKind::Full {
            return Err(Error::CounterfactualNeedsFullMemory {
                memory: learner.memory().kind().name(),
            });
        }
        let lm = learner.memory();
        let q = &learner.table().q;
        for (what, expected, got) in [
            (
                "learner stakeholders",
                self.memory.n_stakeholders(),
                lm.n_stakeholders(),
            ),
            (
                "learner horizon",
                self.memory.cap() as usize,
                lm.cap() as usize,
            ),
            ("learner actions", self.q.ncols(), q.ncols()),
        ] {
            if expected != got {
                return Err(Error::DimensionMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        if let Some(&(s, _)) = self
            .index
            .keys()
            .find(|&&(s, c)| learner.row(s, c) >= q.nrows())
        {
            return Err(Error::StateOutOfRange {
                state: s,
                n_states: q.nrows() / lm.n_codes().max(1),
            });
        }
        let mut worst: f64 = 0.0;
        for (&(s, c), &i) in &self.index {
            let row = q.row(learner.row(s, c));
            for (x, y) in row.iter().zip(self.q.row(i)) {
                worst = worst.max((x - y).abs());
            }
        }
        Ok(worst)
    }
}

/// Exact Q* of `env` with discount γ ∈ (0, 1] on the reachable (s, u).
/// O(states·A·outcomes) time and O(T·states·A) memory.
///
/// # Errors
/// [`Error::InvalidParameter`] for γ ∉ (0, 1] or more than
/// [`MAX_AUGMENTED_STATES`] reachable states; [`Memory::new`]'s errors;
/// [`Error::Mdp`] if the environment's outcomes are not a distribution.
pub fn optimal<E: FairEnv>(env: &E, gamma: f64) -> Result<ExactSolution> {
    check::left_open_interval(gamma, 0.0, 1.0, "gamma", "in (0, 1]")?;
    let memory = Memory::new(MemoryKind::Full, env.n_stakeholders(), env.horizon())?;
    let na = env.n_actions();
    let mut index: HashMap<(usize, usize), usize> = HashMap::new();
    let mut order: Vec<(usize, Vec<u32>)> = Vec::new();
    let zero = memory.init();
    for (_, s) in env.initial() {
        if let std::collections::hash_map::Entry::Vacant(e) = index.entry((s, 0)) {
            e.insert(order.len() + 1);
            order.push((s, zero.clone()));
        }
    }
    let mut table: Vec<Vec<Vec<Outcome>>> = vec![vec![vec![Outcome::new(0, 1.0, 0.0)]; na]];
    let mut k = 0;
    let mut u2 = zero.clone();
    while k < order.len() {
        let (s, u) = order[k].clone();
        k += 1;
        let mut row = Vec::with_capacity(na);
        for a in 0..na {
            let mut list = Vec::new();
            for o in env.outcomes(s, a) {
                u2.copy_from_slice(&u);
                if let Some(g) = o.gain {
                    u2[g] += 1;
                }
                let r = env.reward(s, a, &o, &u2);
                if env.terminal(o.next, &u2) {
                    list.push(Outcome::terminal(0, o.prob, r));
                } else {
                    let key = (o.next, memory.encode(&u2));
                    let next = match index.get(&key) {
                        Some(&i) => i,
                        None => {
                            if order.len() >= MAX_AUGMENTED_STATES {
                                return Err(Error::InvalidParameter {
                                    name: "reachable augmented states",
                                    value: order.len() as f64,
                                    expected: "at most MAX_AUGMENTED_STATES",
                                });
                            }
                            let i = order.len() + 1;
                            index.insert(key, i);
                            order.push((o.next, u2.clone()));
                            i
                        }
                    };
                    list.push(Outcome::new(next, o.prob, r));
                }
            }
            row.push(list);
        }
        table.push(row);
    }
    let mdp = FiniteMdp::new(table)?;
    let sol = finite_horizon_plain(&mdp, env.horizon() + 1, gamma)?;
    let q = sol.q.index_axis(ndarray::Axis(0), 0).to_owned();
    let value = env
        .initial()
        .iter()
        .map(|&(p, s)| {
            let i = index[&(s, 0)];
            p * sol.v[[0, i]]
        })
        .sum();
    Ok(ExactSolution {
        memory,
        index,
        q,
        value,
        mdp,
    })
}
