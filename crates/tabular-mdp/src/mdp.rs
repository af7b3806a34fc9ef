//! Finite MDPs with sparse stochastic outcomes, and their validation.

use crate::error::{Error, Result, check_finite};

/// Tolerance on |Σ p − 1| for a row of outcome probabilities.
pub const STOCHASTIC_TOL: f64 = 1e-9;

/// One possible result of taking an action: with probability `prob` the
/// process moves to `next`, pays `reward`, and stops if `terminal`.
///
/// A terminal outcome ends the episode after paying its reward: no value is
/// bootstrapped from `next` (which must still be a valid state index).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The next state s'.
    pub next: usize,
    /// P(s', r, terminal | s, a).
    pub prob: f64,
    /// The reward r paid on this transition.
    pub reward: f64,
    /// Whether the episode ends with this transition.
    pub terminal: bool,
}

impl Outcome {
    /// A non-terminal outcome.
    pub fn new(next: usize, prob: f64, reward: f64) -> Self {
        Outcome {
            next,
            prob,
            reward,
            terminal: false,
        }
    }

    /// A terminal outcome (the episode ends after `reward`).
    pub fn terminal(next: usize, prob: f64, reward: f64) -> Self {
        Outcome {
            next,
            prob,
            reward,
            terminal: true,
        }
    }
}

/// A validated finite MDP: `S` states, the same `A` actions in every state,
/// and for every pair (s, a) a non-empty list of [`Outcome`]s whose
/// probabilities sum to one.
///
/// Storage is compressed (CSR-like): the outcomes of pair `s·A + a` are
/// `outcomes[offsets[s·A + a] .. offsets[s·A + a + 1]]`, so a sweep over all
/// pairs touches memory in order. Memory: O(S·A + number of outcomes).
#[derive(Debug, Clone, PartialEq)]
pub struct FiniteMdp {
    n_states: usize,
    n_actions: usize,
    offsets: Vec<usize>,
    outcomes: Vec<Outcome>,
}

impl FiniteMdp {
    /// Builds and validates an MDP from `table[s][a] = outcomes of (s, a)`.
    ///
    /// # Errors
    /// [`Error::NoStates`] for an empty table; [`Error::EmptyActions`] for a
    /// state without actions; [`Error::RaggedActions`] when states have
    /// different numbers of actions; [`Error::EmptyOutcomes`];
    /// [`Error::NextStateOutOfRange`]; [`Error::InvalidProbability`] for a
    /// probability outside [0, 1] or NaN; [`Error::NotStochastic`] when
    /// |Σp − 1| > 1e-9 ([`STOCHASTIC_TOL`]); [`Error::NonFinite`] for a NaN or
    /// infinite reward. Complexity O(S·A + outcomes).
    pub fn new(table: Vec<Vec<Vec<Outcome>>>) -> Result<Self> {
        let n_states = table.len();
        if n_states == 0 {
            return Err(Error::NoStates);
        }
        let n_actions = table[0].len();
        // Shapes first: only then is S·A bounded by the memory the table
        // already holds (one `Vec` header per pair), so the capacity below
        // neither overflows nor asks for more than that.
        for (s, row) in table.iter().enumerate() {
            if row.is_empty() {
                return Err(Error::EmptyActions { state: s });
            }
            if row.len() != n_actions {
                return Err(Error::RaggedActions {
                    state: s,
                    expected: n_actions,
                    got: row.len(),
                });
            }
        }
        let mut offsets = Vec::with_capacity(n_states * n_actions + 1);
        offsets.push(0);
        let mut outcomes = Vec::new();
        for row in table {
            for list in row {
                outcomes.extend(list);
                offsets.push(outcomes.len());
            }
        }
        let mdp = FiniteMdp {
            n_states,
            n_actions,
            offsets,
            outcomes,
        };
        mdp.validate()?;
        Ok(mdp)
    }

    /// Checks every invariant listed at [`FiniteMdp::new`].
    fn validate(&self) -> Result<()> {
        for s in 0..self.n_states {
            for a in 0..self.n_actions {
                let list = self.outcomes(s, a);
                if list.is_empty() {
                    return Err(Error::EmptyOutcomes {
                        state: s,
                        action: a,
                    });
                }
                let mut sum = 0.0;
                for (k, o) in list.iter().enumerate() {
                    if o.next >= self.n_states {
                        return Err(Error::NextStateOutOfRange {
                            state: s,
                            action: a,
                            next: o.next,
                            n_states: self.n_states,
                        });
                    }
                    if !(0.0..=1.0).contains(&o.prob) {
                        return Err(Error::InvalidProbability {
                            state: s,
                            action: a,
                            prob: o.prob,
                        });
                    }
                    check_finite(o.reward, "reward", self.offsets[s * self.n_actions + a] + k)?;
                    sum += o.prob;
                }
                if (sum - 1.0).abs() > STOCHASTIC_TOL {
                    return Err(Error::NotStochastic {
                        state: s,
                        action: a,
                        sum,
                    });
                }
            }
        }
        Ok(())
    }

    /// Number of states S.
    pub fn n_states(&self) -> usize {
        self.n_states
    }

    /// Number of actions A (the same in every state).
    pub fn n_actions(&self) -> usize {
        self.n_actions
    }

    /// Total number of stored outcomes (the sparse size of the MDP).
    pub fn n_outcomes(&self) -> usize {
        self.outcomes.len()
    }

    /// The outcomes of (s, a). Panics if `s ≥ S` or `a ≥ A` (indices, not user data).
    pub fn outcomes(&self, s: usize, a: usize) -> &[Outcome] {
        let i = s * self.n_actions + a;
        &self.outcomes[self.offsets[i]..self.offsets[i + 1]]
    }

    /// All outcomes, flat, in (s, a) order; with [`FiniteMdp::offsets`].
    pub fn all_outcomes(&self) -> &[Outcome] {
        &self.outcomes
    }

    /// The offsets of the flat outcome list: pair `i = s·A + a` owns
    /// `all_outcomes()[offsets[i]..offsets[i + 1]]`.
    pub fn offsets(&self) -> &[usize] {
        &self.offsets
    }

    /// The distinct rewards of the MDP, sorted increasingly (exact float
    /// equality; −0 and +0 are the same). O(outcomes · log).
    pub fn reward_set(&self) -> Vec<f64> {
        let mut r: Vec<f64> = self.outcomes.iter().map(|o| o.reward + 0.0).collect();
        r.sort_by(f64::total_cmp);
        r.dedup();
        r
    }

    /// Expected immediate reward r(s, a) = Σ p·r. Finite unless some |r| is
    /// within a relative 1e-9 of `f64::MAX` (Σp may exceed 1 by 1e-9).
    /// Panics on out-of-range indices.
    pub fn expected_reward(&self, s: usize, a: usize) -> f64 {
        self.outcomes(s, a).iter().map(|o| o.prob * o.reward).sum()
    }

    /// Whether every outcome has probability one (a deterministic MDP).
    pub fn is_deterministic(&self) -> bool {
        (0..self.n_states * self.n_actions).all(|i| {
            self.offsets[i + 1] - self.offsets[i] == 1 || {
                let l = &self.outcomes[self.offsets[i]..self.offsets[i + 1]];
                l.iter().filter(|o| o.prob > 0.0).count() == 1
            }
        })
    }

    /// Checks that `s` is a valid state.
    ///
    /// # Errors
    /// [`Error::StateOutOfRange`].
    pub fn check_state(&self, s: usize) -> Result<()> {
        if s < self.n_states {
            Ok(())
        } else {
            Err(Error::StateOutOfRange {
                state: s,
                n_states: self.n_states,
            })
        }
    }

    /// Checks that a deterministic stationary policy has one valid action per state.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], [`Error::ActionOutOfRange`].
    pub fn check_policy(&self, policy: &[usize]) -> Result<()> {
        if policy.len() != self.n_states {
            return Err(Error::ShapeMismatch {
                what: "policy",
                expected: format!("{} entries (one per state)", self.n_states),
                got: format!("{} entries", policy.len()),
            });
        }
        match policy.iter().find(|&&a| a >= self.n_actions) {
            Some(&a) => Err(Error::ActionOutOfRange {
                action: a,
                n_actions: self.n_actions,
            }),
            None => Ok(()),
        }
    }

    /// Writes the MDP as plain text: a header line `S A N` (states, actions,
    /// outcomes), then one line `s a next prob reward terminal` per outcome
    /// (terminal as 0/1; floats in Rust's shortest round-trip form, so a
    /// reader recovers them bit for bit). For handing an MDP to another
    /// solver (e.g. a Python MDP toolbox). O(outcomes).
    ///
    /// # Errors
    /// The writer's I/O error.
    pub fn write_text<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        writeln!(
            w,
            "{} {} {}",
            self.n_states,
            self.n_actions,
            self.outcomes.len()
        )?;
        for s in 0..self.n_states {
            for a in 0..self.n_actions {
                for o in self.outcomes(s, a) {
                    writeln!(
                        w,
                        "{s} {a} {} {:?} {:?} {}",
                        o.next,
                        o.prob,
                        o.reward,
                        u8::from(o.terminal)
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Samples an outcome of (s, a) by inverse CDF over the stored order
    /// (one uniform draw). Panics on out-of-range indices.
    pub fn sample<R: rand::Rng + ?Sized>(&self, s: usize, a: usize, rng: &mut R) -> Outcome {
        use rand::RngExt;
        let list = self.outcomes(s, a);
        let u: f64 = rng.random();
        let mut acc = 0.0;
        for o in list {
            acc += o.prob;
            if u < acc {
                return *o;
            }
        }
        // Rounding: Σp may fall short of 1 by ≤ 1e-9; take the last outcome
        // with positive probability.
        *list
            .iter()
            .rev()
            .find(|o| o.prob > 0.0)
            .unwrap_or(&list[list.len() - 1])
    }
}
