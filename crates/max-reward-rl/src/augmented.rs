//! The max-reward problem on augmented states (s, y): Bellman operators,
//! value iteration, the exact layered solver, greedy augmented policies and
//! their exact evaluation, goal-reach probabilities, and the export to a
//! standard discounted MDP.
//!
//! Objective (paper §3): J(π) = E[max_{t≥0} γ^t r_t] with r ≥ 0. With
//! y₀ = 0 and y_{t+1} = max(y_t, r_t)/γ, the value
//! v^π(s, y) = E[max(y, G_t) | s_t = s, y_t = y], G_t = max_{k≥0} γ^k r_{t+k},
//! satisfies
//!
//! q^π(s, a, y) = E_{r,s'}[ terminal ? max(y, r) : γ·max(y', v^π(s', y')) ],
//! y' = max(y, r)/γ,
//!
//! and the optimal operator
//! (T*v)(s, y) = max_a E[ terminal ? max(y, r) : γ·max(y', v(s', y')) ]
//! is a γ-contraction in sup-norm over (s, y). For y' ≥ r_max,
//! γ·v(s', y') = γ·y' = max(y, r): saturated outcomes pay max(y, r) at once.
//!
//! Arrays: v has shape S × |Y| (`v[[s, y]]`, y a lattice index), q has shape
//! S × |Y| × A (`q[[s, y, a]]`).

use crate::error::{Error, Result, check_finite, check_gamma, check_index};
use crate::ygrid::YLattice;
use ndarray::{Array2, Array3, ArrayView2};
use tabular_mdp::{FiniteMdp, Outcome, ViParams};

fn to_array2(v: Vec<f64>, rows: usize, cols: usize) -> Result<Array2<f64>> {
    let len = v.len();
    Array2::from_shape_vec((rows, cols), v).map_err(|_| Error::ShapeMismatch {
        what: "value table",
        expected: format!("{rows} × {cols}"),
        got: format!("{len} entries"),
    })
}

/// Parameters of a [`MaxRewardMdp`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaxRewardParams {
    /// Discount γ ∈ (0, 1). Default 0.99.
    pub gamma: f64,
    /// Added to every reward before solving (the official code subtracts the
    /// lower bound `reward_lb`, i.e. shift = −r_lb). Shifted rewards must be
    /// ≥ 0. Default 0.
    pub reward_shift: f64,
    /// Largest admissible number of y-lattice points. Default 100 000.
    pub max_lattice: usize,
}

impl Default for MaxRewardParams {
    fn default() -> Self {
        MaxRewardParams {
            gamma: 0.99,
            reward_shift: 0.0,
            max_lattice: 100_000,
        }
    }
}

impl MaxRewardParams {
    /// Params with discount `gamma` and the other defaults.
    pub fn with_gamma(gamma: f64) -> Self {
        MaxRewardParams {
            gamma,
            ..Default::default()
        }
    }
}

/// A deterministic policy on augmented states: `action(s, y)` for every
/// state and lattice index, plus one action per state for the saturated
/// class y ≥ r_max.
#[derive(Debug, Clone, PartialEq)]
pub struct AugmentedPolicy {
    n_states: usize,
    n_y: usize,
    actions: Vec<usize>,
    saturated: Vec<usize>,
}

impl AugmentedPolicy {
    /// A policy from its table (`actions[s·|Y| + y]`) and saturated actions.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for wrong lengths; [`Error::Core`]
    /// (`TooLarge`) when `n_states × n_y` overflows.
    pub fn new(
        n_states: usize,
        n_y: usize,
        actions: Vec<usize>,
        saturated: Vec<usize>,
    ) -> Result<Self> {
        let table = mlcore::check::alloc_len(
            &[n_states, n_y],
            std::mem::size_of::<usize>(),
            "augmented policy table",
        )?;
        if actions.len() != table || saturated.len() != n_states {
            return Err(Error::ShapeMismatch {
                what: "augmented policy",
                expected: format!("{table} actions and {n_states} saturated actions"),
                got: format!("{} and {}", actions.len(), saturated.len()),
            });
        }
        Ok(AugmentedPolicy {
            n_states,
            n_y,
            actions,
            saturated,
        })
    }

    /// A Markov policy π(s) that ignores y (e.g. a sum-reward optimal policy),
    /// lifted to augmented states. O(S·|Y|).
    ///
    /// # Errors
    /// [`Error::Core`] (`TooLarge`) when the S × |Y| table overflows or
    /// exceeds the allocation cap.
    pub fn markov(policy: &[usize], n_y: usize) -> Result<Self> {
        mlcore::check::alloc_len(
            &[policy.len(), n_y],
            std::mem::size_of::<usize>(),
            "augmented policy table",
        )?;
        let actions = policy
            .iter()
            .flat_map(|&a| std::iter::repeat_n(a, n_y))
            .collect();
        Ok(AugmentedPolicy {
            n_states: policy.len(),
            n_y,
            actions,
            saturated: policy.to_vec(),
        })
    }

    /// The action in (s, y); `y = |Y|` (or above) is the saturated class.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] unless `s < n_states()`.
    pub fn action(&self, s: usize, y: usize) -> Result<usize> {
        check_index("state", s, self.n_states)?;
        Ok(self.action_unchecked(s, y))
    }

    /// [`AugmentedPolicy::action`] for a valid state (crate internal).
    pub(crate) fn action_unchecked(&self, s: usize, y: usize) -> usize {
        if y >= self.n_y {
            self.saturated[s]
        } else {
            self.actions[s * self.n_y + y]
        }
    }

    /// Number of states.
    pub fn n_states(&self) -> usize {
        self.n_states
    }

    /// Number of lattice points.
    pub fn n_y(&self) -> usize {
        self.n_y
    }
}

/// The result of [`MaxRewardMdp::value_iteration`] and [`MaxRewardMdp::solve`].
#[derive(Debug, Clone, PartialEq)]
pub struct MaxSolution {
    /// v*(s, y), shape S × |Y|.
    pub v: Array2<f64>,
    /// q*(s, y, a), shape S × |Y| × A.
    pub q: Array3<f64>,
    /// The greedy augmented policy ([`MaxRewardMdp::greedy_policy`]).
    pub policy: AugmentedPolicy,
    /// Sweeps run (for [`MaxRewardMdp::solve`]: sweeps of the y = 0 layer).
    pub iterations: usize,
    /// Last sup-norm residual.
    pub residual: f64,
}

/// A finite MDP with non-negative rewards seen through the max-reward
/// objective, with its exact y-lattice.
#[derive(Debug, Clone)]
pub struct MaxRewardMdp {
    mdp: FiniteMdp,
    gamma: f64,
    shift: f64,
    lattice: YLattice,
    /// Shifted reward of each stored outcome.
    rewards: Vec<f64>,
    /// Index of each outcome's shifted reward in the lattice's reward set.
    reward_idx: Vec<usize>,
}

impl MaxRewardMdp {
    /// Wraps `mdp` (validated by [`FiniteMdp::new`]) for the max-reward
    /// objective with discount γ and builds its y-lattice.
    ///
    /// # Errors
    /// [`Error::InvalidDiscount`] unless 0 < γ < 1; [`Error::NonFinite`] for a
    /// non-finite shift; [`Error::NegativeReward`] for a reward with
    /// r + shift < 0; [`Error::YGridTooLarge`] when the lattice exceeds
    /// `max_lattice`; [`Error::Core`] (`TooLarge`) when the Q table on
    /// (s, y, a) would overflow or exceed the allocation cap. Complexity
    /// O(outcomes + |Y|·|R|).
    pub fn new(mdp: &FiniteMdp, params: &MaxRewardParams) -> Result<Self> {
        check_gamma(params.gamma)?;
        check_finite(params.reward_shift, "reward_shift", 0)?;
        let shift = params.reward_shift;
        let na = mdp.n_actions();
        let mut rewards = Vec::with_capacity(mdp.n_outcomes());
        let offsets = mdp.offsets();
        for (i, w) in offsets.windows(2).enumerate() {
            for o in &mdp.all_outcomes()[w[0]..w[1]] {
                let r = o.reward + shift + 0.0;
                if r < 0.0 {
                    return Err(Error::NegativeReward {
                        state: i / na,
                        action: i % na,
                        reward: r,
                        shift,
                        needed: -o.reward,
                    });
                }
                rewards.push(r);
            }
        }
        let lattice = YLattice::new(&rewards, params.gamma, params.max_lattice)?;
        // Every solver stores Q on (s, y, a): check that table before anyone
        // allocates it.
        mlcore::check::alloc_len(
            &[mdp.n_states(), lattice.len(), na],
            std::mem::size_of::<f64>(),
            "augmented Q table (states × y-lattice × actions)",
        )?;
        let reward_idx = rewards
            .iter()
            .map(|&r| lattice.reward_index(r).unwrap_or(0))
            .collect();
        Ok(MaxRewardMdp {
            mdp: mdp.clone(),
            gamma: params.gamma,
            shift,
            lattice,
            rewards,
            reward_idx,
        })
    }

    /// The underlying MDP (unshifted rewards).
    pub fn mdp(&self) -> &FiniteMdp {
        &self.mdp
    }

    /// The discount γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// The reward shift in force.
    pub fn reward_shift(&self) -> f64 {
        self.shift
    }

    /// The y-lattice.
    pub fn lattice(&self) -> &YLattice {
        &self.lattice
    }

    /// Number of states S.
    pub fn n_states(&self) -> usize {
        self.mdp.n_states()
    }

    /// Number of actions A.
    pub fn n_actions(&self) -> usize {
        self.mdp.n_actions()
    }

    /// Number of lattice points |Y|.
    pub fn n_y(&self) -> usize {
        self.lattice.len()
    }

    /// Number of augmented states S·|Y| (saturated states are not stored).
    pub fn n_augmented(&self) -> usize {
        self.n_states() * self.n_y()
    }

    /// The shifted outcomes of (s, a) with their reward indices: (outcome, r + shift, reward index).
    fn outcomes(&self, s: usize, a: usize) -> impl Iterator<Item = (&Outcome, f64, usize)> {
        let i = s * self.mdp.n_actions() + a;
        let (lo, hi) = (self.mdp.offsets()[i], self.mdp.offsets()[i + 1]);
        self.mdp.all_outcomes()[lo..hi]
            .iter()
            .zip(&self.rewards[lo..hi])
            .zip(&self.reward_idx[lo..hi])
            .map(|((o, &r), &ri)| (o, r, ri))
    }

    /// E[ terminal ∨ saturated ? max(y, r) : γ·max(y', v(s', y')) ] for one
    /// (s, y, a); `v` flat S × |Y|. No checks.
    #[inline]
    fn backup(&self, v: &[f64], s: usize, y: usize, a: usize) -> f64 {
        let ny = self.lattice.len();
        let sat = ny;
        let yv = self.lattice.value_unchecked(y);
        let mut acc = 0.0;
        for (o, r, ri) in self.outcomes(s, a) {
            let yn = self.lattice.next_unchecked(y, ri);
            let x = if o.terminal || yn == sat {
                yv.max(r)
            } else {
                self.gamma * self.lattice.value_unchecked(yn).max(v[o.next * ny + yn])
            };
            acc += o.prob * x;
        }
        acc
    }

    fn check_v(&self, v: ArrayView2<'_, f64>) -> Result<Vec<f64>> {
        let shape = (self.n_states(), self.n_y());
        if v.dim() != shape {
            return Err(Error::ShapeMismatch {
                what: "v",
                expected: format!("shape {shape:?} (S × |Y|)"),
                got: format!("shape {:?}", v.dim()),
            });
        }
        for (i, &x) in v.iter().enumerate() {
            check_finite(x, "v", i)?;
        }
        Ok(v.iter().copied().collect())
    }

    fn check_policy(&self, policy: &AugmentedPolicy) -> Result<()> {
        if policy.n_states != self.n_states() || policy.n_y != self.n_y() {
            return Err(Error::ShapeMismatch {
                what: "policy",
                expected: format!("{} states × {} y levels", self.n_states(), self.n_y()),
                got: format!("{} × {}", policy.n_states, policy.n_y),
            });
        }
        if let Some(&a) = policy
            .actions
            .iter()
            .chain(&policy.saturated)
            .find(|&&a| a >= self.n_actions())
        {
            return Err(tabular_mdp::Error::ActionOutOfRange {
                action: a,
                n_actions: self.n_actions(),
            }
            .into());
        }
        Ok(())
    }

    /// q(s, y, a) = E[ terminal ∨ y' saturated ? max(y, r) : γ·max(y', v(s', y')) ]
    /// for a given v. O(S·|Y|·outcomes/S) = O(|Y|·outcomes).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] / [`Error::NonFinite`] for a bad `v`.
    pub fn q_from_v(&self, v: ArrayView2<'_, f64>) -> Result<Array3<f64>> {
        let flat = self.check_v(v)?;
        Ok(Array3::from_shape_fn(
            (self.n_states(), self.n_y(), self.n_actions()),
            |(s, y, a)| self.backup(&flat, s, y, a),
        ))
    }

    /// The optimal max-reward Bellman operator
    /// (T*v)(s, y) = max_a E[ terminal ? max(y, r) : γ·max(y', v(s', y')) ].
    /// A γ-contraction in sup-norm. O(|Y|·outcomes).
    ///
    /// # Errors
    /// As [`MaxRewardMdp::q_from_v`].
    pub fn bellman_optimal(&self, v: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let flat = self.check_v(v)?;
        Ok(Array2::from_shape_fn(
            (self.n_states(), self.n_y()),
            |(s, y)| {
                (0..self.n_actions())
                    .map(|a| self.backup(&flat, s, y, a))
                    .fold(f64::NEG_INFINITY, f64::max)
            },
        ))
    }

    /// The policy operator (T^π v)(s, y) = q-backup with a = π(s, y).
    /// A γ-contraction in sup-norm. O(|Y|·outcomes/A).
    ///
    /// # Errors
    /// As [`MaxRewardMdp::q_from_v`], plus [`Error::ShapeMismatch`] or an
    /// action-out-of-range error for a bad policy.
    pub fn bellman_policy(
        &self,
        policy: &AugmentedPolicy,
        v: ArrayView2<'_, f64>,
    ) -> Result<Array2<f64>> {
        self.check_policy(policy)?;
        let flat = self.check_v(v)?;
        Ok(Array2::from_shape_fn(
            (self.n_states(), self.n_y()),
            |(s, y)| self.backup(&flat, s, y, policy.action_unchecked(s, y)),
        ))
    }

    /// Plain value iteration v_{k+1} = T*v_k on all augmented states from
    /// v₀ = 0 (synchronous sweeps), stopped when ‖v_{k+1} − v_k‖∞ ≤
    /// tol·(1 − γ)/γ (so ‖v − v*‖∞ ≤ tol). The textbook algorithm, kept as
    /// the reference and for timing against generic solvers; prefer
    /// [`MaxRewardMdp::solve`], which is exact in y > 0 and iterates only on
    /// y = 0. O(|Y|·outcomes) per sweep; each sweep computes q(s, ·, a) for
    /// all y at once from the transposed successor table
    /// ([`YLattice::next_row`]).
    ///
    /// # Errors
    /// [`Error::Mdp`] wrapping `InvalidParameter` for bad params or
    /// `NotConverged` when `max_iter` sweeps do not suffice.
    pub fn value_iteration(&self, params: &ViParams) -> Result<MaxSolution> {
        params.check()?;
        let (ns, ny, na) = (self.n_states(), self.n_y(), self.n_actions());
        let thresh = params.threshold(self.gamma);
        let ys = self.lattice.values();
        let sat = self.lattice.saturated();
        let mut v = vec![0.0; ns * ny];
        let mut next = v.clone();
        // q(s, ·, a) and max_a for all y at once: the inner loops run over y
        // with contiguous successor tables (vectorisable), not over outcomes.
        let mut q = vec![0.0; ny];
        let mut best = vec![0.0; ny];
        let mut residual = f64::INFINITY;
        for it in 1..=params.max_iter {
            residual = 0.0;
            for s in 0..ns {
                best.fill(f64::NEG_INFINITY);
                for a in 0..na {
                    q.fill(0.0);
                    for (o, r, ri) in self.outcomes(s, a) {
                        let p = o.prob;
                        let row = self.lattice.next_row_unchecked(ri);
                        let vrow = &v[o.next * ny..(o.next + 1) * ny];
                        if o.terminal {
                            for (qy, &yv) in q.iter_mut().zip(ys) {
                                *qy += p * yv.max(r);
                            }
                        } else {
                            for ((qy, &yv), &yn) in q.iter_mut().zip(ys).zip(row) {
                                let x = if yn == sat {
                                    yv.max(r)
                                } else {
                                    self.gamma * ys[yn].max(vrow[yn])
                                };
                                *qy += p * x;
                            }
                        }
                    }
                    for (b, &x) in best.iter_mut().zip(&q) {
                        *b = b.max(x);
                    }
                }
                let old = &v[s * ny..(s + 1) * ny];
                for ((slot, &b), &o) in next[s * ny..(s + 1) * ny].iter_mut().zip(&best).zip(old) {
                    residual = residual.max((b - o).abs());
                    *slot = b;
                }
            }
            std::mem::swap(&mut v, &mut next);
            if residual <= thresh {
                return self.finish(v, it, residual);
            }
        }
        Err(tabular_mdp::Error::NotConverged {
            algorithm: "max-reward value iteration",
            iterations: params.max_iter,
            residual,
        }
        .into())
    }

    /// The exact layered solver. For y > 0 every successor has y' ≥ y/γ > y
    /// (or is saturated), so the lattice is acyclic above 0: one backward
    /// sweep from the largest y down to the smallest positive y computes
    /// v*(·, y) exactly (up to rounding) by backward induction. Only the
    /// y = 0 layer, where zero rewards keep y at 0, needs iteration: value
    /// iteration on S values with the y > 0 layers fixed, stopped as in
    /// [`MaxRewardMdp::value_iteration`]. Same fixed point, O(|Y|·outcomes)
    /// once plus O(outcomes) per y = 0 sweep. (A design of this crate, not of
    /// the paper.)
    ///
    /// # Errors
    /// As [`MaxRewardMdp::value_iteration`].
    pub fn solve(&self, params: &ViParams) -> Result<MaxSolution> {
        params.check()?;
        let (ns, ny, na) = (self.n_states(), self.n_y(), self.n_actions());
        let mut v = vec![0.0; ns * ny];
        for y in (1..ny).rev() {
            for s in 0..ns {
                let mut best = f64::NEG_INFINITY;
                for a in 0..na {
                    best = best.max(self.backup(&v, s, y, a));
                }
                v[s * ny + y] = best;
            }
        }
        let (iterations, residual) = self.iterate_zero_layer(&mut v, params, |m, v, s| {
            (0..na)
                .map(|a| m.backup(v, s, 0, a))
                .fold(f64::NEG_INFINITY, f64::max)
        })?;
        self.finish(v, iterations, residual)
    }

    /// Value iteration on the y = 0 layer (Gauss–Seidel in state order) with
    /// the other layers fixed.
    fn iterate_zero_layer<F>(
        &self,
        v: &mut [f64],
        params: &ViParams,
        update: F,
    ) -> Result<(usize, f64)>
    where
        F: Fn(&Self, &[f64], usize) -> f64,
    {
        let (ns, ny) = (self.n_states(), self.n_y());
        let thresh = params.threshold(self.gamma);
        let mut residual = f64::INFINITY;
        for it in 1..=params.max_iter {
            residual = 0.0;
            for s in 0..ns {
                let x = update(self, v, s);
                residual = residual.max((x - v[s * ny]).abs());
                v[s * ny] = x;
            }
            if residual <= thresh {
                return Ok((it, residual));
            }
        }
        Err(tabular_mdp::Error::NotConverged {
            algorithm: "max-reward y = 0 layer iteration",
            iterations: params.max_iter,
            residual,
        }
        .into())
    }

    fn finish(&self, v: Vec<f64>, iterations: usize, residual: f64) -> Result<MaxSolution> {
        let v = to_array2(v, self.n_states(), self.n_y())?;
        let q = self.q_from_v(v.view())?;
        let policy = self.greedy_policy(&q)?;
        Ok(MaxSolution {
            v,
            q,
            policy,
            iterations,
            residual,
        })
    }

    /// The greedy augmented policy π(s, y) = argmax_a q(s, y, a), ties broken
    /// by the lowest action index. In the saturated class every action is
    /// optimal (v = y whatever happens); the policy then plays its greedy
    /// y = 0 action, i.e. starts pursuing the max reward afresh. That choice
    /// is this crate's (the paper is silent); it only matters for quantities
    /// other than the max-reward objective, such as goal-reach rates.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `q` is not S × |Y| × A;
    /// [`Error::NonFinite`] for a NaN or infinite entry (an argmax over NaN
    /// would pick an arbitrary action).
    pub fn greedy_policy(&self, q: &Array3<f64>) -> Result<AugmentedPolicy> {
        let shape = (self.n_states(), self.n_y(), self.n_actions());
        if q.dim() != shape {
            return Err(Error::ShapeMismatch {
                what: "q",
                expected: format!("shape {shape:?}"),
                got: format!("shape {:?}", q.dim()),
            });
        }
        for (i, &x) in q.iter().enumerate() {
            check_finite(x, "q", i)?;
        }
        let (ns, ny, na) = shape;
        let mut actions = Vec::with_capacity(ns * ny);
        let mut row = vec![0.0; na];
        for s in 0..ns {
            for y in 0..ny {
                for (a, slot) in row.iter_mut().enumerate() {
                    *slot = q[[s, y, a]];
                }
                actions.push(tabular_mdp::argmax_first(&row));
            }
        }
        let saturated = (0..ns).map(|s| actions[s * ny]).collect();
        AugmentedPolicy::new(ns, ny, actions, saturated)
    }

    /// Exact evaluation v^π(s, y) of an augmented policy: backward induction
    /// over y > 0 (exact), then iterative evaluation of the y = 0 layer
    /// (‖v − v^π‖∞ ≤ tol). O(|Y|·outcomes/A + sweeps·outcomes/A).
    ///
    /// # Errors
    /// As [`MaxRewardMdp::solve`], plus a bad-policy error.
    pub fn evaluate(&self, policy: &AugmentedPolicy, params: &ViParams) -> Result<Array2<f64>> {
        self.check_policy(policy)?;
        params.check()?;
        let (ns, ny) = (self.n_states(), self.n_y());
        let mut v = vec![0.0; ns * ny];
        for y in (1..ny).rev() {
            for s in 0..ns {
                v[s * ny + y] = self.backup(&v, s, y, policy.action_unchecked(s, y));
            }
        }
        self.iterate_zero_layer(&mut v, params, |m, v, s| {
            m.backup(v, s, 0, policy.action_unchecked(s, 0))
        })?;
        to_array2(v, ns, ny)
    }

    /// Exact probability that, started in (start, y = 0) and following
    /// `policy`, the process moves into a state with `target[s'] = true`
    /// within `horizon` steps (a terminal outcome into a non-target state, or
    /// the end of the horizon, counts as failure). Finite-horizon DP on
    /// (s, y) including the saturated class. O(horizon·(|Y| + 1)·outcomes/A).
    ///
    /// # Errors
    /// A bad-policy error; [`Error::ShapeMismatch`] when `target` has not S
    /// entries; a state-out-of-range error for `start`.
    pub fn reach_probability(
        &self,
        policy: &AugmentedPolicy,
        target: &[bool],
        start: usize,
        horizon: usize,
    ) -> Result<f64> {
        self.check_policy(policy)?;
        self.mdp.check_state(start)?;
        if target.len() != self.n_states() {
            return Err(Error::ShapeMismatch {
                what: "target",
                expected: format!("{} entries", self.n_states()),
                got: format!("{} entries", target.len()),
            });
        }
        let (ns, ny1) = (self.n_states(), self.n_y() + 1);
        let sat = self.n_y();
        let mut p = vec![0.0; ns * ny1];
        let mut next = p.clone();
        for _ in 0..horizon {
            for s in 0..ns {
                for y in 0..ny1 {
                    let a = policy.action_unchecked(s, y);
                    let mut acc = 0.0;
                    for (o, _, ri) in self.outcomes(s, a) {
                        let x = if target[o.next] {
                            1.0
                        } else if o.terminal {
                            0.0
                        } else {
                            let yn = if y == sat {
                                sat
                            } else {
                                self.lattice.next_unchecked(y, ri)
                            };
                            p[o.next * ny1 + yn]
                        };
                        acc += o.prob * x;
                    }
                    next[s * ny1 + y] = acc;
                }
            }
            std::mem::swap(&mut p, &mut next);
        }
        Ok(p[start * ny1])
    }

    /// Which augmented states (s, y) are reachable from (start, 0) under some
    /// policy (breadth-first search over all actions). Returns S × |Y|.
    ///
    /// # Errors
    /// A state-out-of-range error for `start`.
    pub fn reachable(&self, start: usize) -> Result<Array2<bool>> {
        self.mdp.check_state(start)?;
        let (ns, ny) = (self.n_states(), self.n_y());
        let mut seen = Array2::from_elem((ns, ny), false);
        let mut stack = vec![(start, 0usize)];
        seen[[start, 0]] = true;
        while let Some((s, y)) = stack.pop() {
            for a in 0..self.n_actions() {
                for (o, _, ri) in self.outcomes(s, a) {
                    let yn = self.lattice.next_unchecked(y, ri);
                    if o.terminal || o.prob == 0.0 || yn == ny {
                        continue;
                    }
                    if !seen[[o.next, yn]] {
                        seen[[o.next, yn]] = true;
                        stack.push((o.next, yn));
                    }
                }
            }
        }
        Ok(seen)
    }

    /// Index of augmented state (s, y) in the exported MDP: s·|Y| + y.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] unless `s < n_states()` and `y < n_y()`.
    pub fn export_index(&self, s: usize, y: usize) -> Result<usize> {
        check_index("state", s, self.n_states())?;
        check_index("y-lattice point", y, self.n_y())?;
        Ok(s * self.n_y() + y)
    }

    /// The reduction to a standard discounted MDP (returned with its γ).
    ///
    /// States: (s, y) ↦ s·|Y| + y, plus one absorbing zero-reward state
    /// S·|Y|. From (s, y) under a, each outcome (s', p, r, terminal) becomes:
    /// if terminal or y' = max(y, r)/γ ≥ r_max, reward max(y, r) and a move to
    /// the absorbing state; otherwise reward 0 and a move to (s', y'). Its
    /// discounted-sum value equals v*(s, y) (every policy gets ≥ y from
    /// (s, y), so the operator's max(y', ·) is inactive at fixed points), so
    /// any standard solver cross-checks the max-reward solution. No outcome
    /// is terminal. Size: S·|Y| + 1 states, |Y|·outcomes + A outcomes.
    ///
    /// # Errors
    /// A validation error of the built MDP (none expected).
    pub fn export_standard_mdp(&self) -> Result<(FiniteMdp, f64)> {
        let (ns, ny, na) = (self.n_states(), self.n_y(), self.n_actions());
        let absorbing = ns * ny;
        let mut table: Vec<Vec<Vec<Outcome>>> = Vec::with_capacity(absorbing + 1);
        for s in 0..ns {
            for y in 0..ny {
                let yv = self.lattice.value_unchecked(y);
                let mut row = Vec::with_capacity(na);
                for a in 0..na {
                    let list = self
                        .outcomes(s, a)
                        .map(|(o, r, ri)| {
                            let yn = self.lattice.next_unchecked(y, ri);
                            if o.terminal || yn == ny {
                                Outcome::new(absorbing, o.prob, yv.max(r))
                            } else {
                                Outcome::new(o.next * ny + yn, o.prob, 0.0)
                            }
                        })
                        .collect();
                    row.push(list);
                }
                table.push(row);
            }
        }
        table.push(vec![vec![Outcome::new(absorbing, 1.0, 0.0)]; na]);
        Ok((FiniteMdp::new(table)?, self.gamma))
    }
}
