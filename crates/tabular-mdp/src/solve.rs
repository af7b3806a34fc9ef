//! Infinite-horizon discounted dynamic programming: Bellman operators, value
//! iteration, policy evaluation and greedy policies.
//!
//! The criterion is V^π(s) = E[Σ_{t<τ} γ^t r_t | s_0 = s], where τ is the
//! step after the first terminal outcome (∞ if none).

use crate::error::{Error, Result, check_discount_open, check_finite};
use crate::mdp::FiniteMdp;
use mlcore::check;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// Stopping rule of the iterative solvers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViParams {
    /// Target sup-norm error ε of the returned values: iteration stops once
    /// ‖V_{k+1} − V_k‖∞ ≤ ε(1 − γ)/γ, which guarantees ‖V_{k+1} − V*‖∞ ≤ ε.
    /// Default 1e-10.
    pub tol: f64,
    /// Maximum number of sweeps. Default 1 000 000.
    pub max_iter: usize,
}

impl Default for ViParams {
    fn default() -> Self {
        ViParams {
            tol: 1e-10,
            max_iter: 1_000_000,
        }
    }
}

impl ViParams {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `tol` is finite and > 0 and `max_iter ≥ 1`.
    pub fn check(&self) -> Result<()> {
        check::positive(self.tol, "tol")?;
        check::at_least(self.max_iter, 1, "max_iter", "at least 1")?;
        Ok(())
    }

    /// The residual threshold ε(1 − γ)/γ for discount γ.
    pub fn threshold(&self, gamma: f64) -> f64 {
        self.tol * (1.0 - gamma) / gamma
    }
}

/// The result of [`value_iteration`].
#[derive(Debug, Clone, PartialEq)]
pub struct ValueSolution {
    /// V(s), within `tol` of V* in sup-norm.
    pub v: Array1<f64>,
    /// Q(s, a) = Σ p·(r + γ·[¬terminal]·V(s')), computed from the returned `v`.
    pub q: Array2<f64>,
    /// A greedy policy argmax_a Q(s, a), ties broken by the lowest index.
    pub policy: Vec<usize>,
    /// Sweeps run.
    pub iterations: usize,
    /// ‖V_k − V_{k−1}‖∞ at the last sweep.
    pub residual: f64,
}

/// Σ_{outcomes} p·(r + γ·[¬terminal]·v(s')) for one pair; no checks.
#[inline]
pub(crate) fn backup(mdp: &FiniteMdp, gamma: f64, v: &[f64], s: usize, a: usize) -> f64 {
    mdp.outcomes(s, a)
        .iter()
        .map(|o| {
            let cont = if o.terminal { 0.0 } else { gamma * v[o.next] };
            o.prob * (o.reward + cont)
        })
        .sum()
}

/// A sweep-friendly copy of the MDP: per pair the expected reward
/// r̄(s, a) = Σ p·r and the continuation Σ_{non-terminal} p·v(s') as a CSR
/// row with duplicate next states merged (u32 indices, 12 bytes per entry),
/// so a sweep streams about a third of the memory of the outcome list.
struct Kernel {
    reward: Vec<f64>,
    offsets: Vec<usize>,
    next: Vec<u32>,
    prob: Vec<f64>,
}

impl Kernel {
    fn new(mdp: &FiniteMdp) -> Self {
        let pairs = mdp.n_states() * mdp.n_actions();
        let mut reward = Vec::with_capacity(pairs);
        let mut offsets = Vec::with_capacity(pairs + 1);
        let mut next: Vec<u32> = Vec::with_capacity(mdp.n_outcomes());
        let mut prob: Vec<f64> = Vec::with_capacity(mdp.n_outcomes());
        offsets.push(0);
        for s in 0..mdp.n_states() {
            for a in 0..mdp.n_actions() {
                let start = next.len();
                let mut r = 0.0;
                for o in mdp.outcomes(s, a) {
                    r += o.prob * o.reward;
                    if o.terminal || o.prob == 0.0 {
                        continue;
                    }
                    // State counts fit in u32 for any MDP that fits in memory as outcomes.
                    let n = o.next as u32;
                    match next[start..].iter().position(|&x| x == n) {
                        Some(k) => prob[start + k] += o.prob,
                        None => {
                            next.push(n);
                            prob.push(o.prob);
                        }
                    }
                }
                reward.push(r);
                offsets.push(next.len());
            }
        }
        Kernel {
            reward,
            offsets,
            next,
            prob,
        }
    }

    #[inline]
    fn q(&self, i: usize, gamma: f64, v: &[f64]) -> f64 {
        let (lo, hi) = (self.offsets[i], self.offsets[i + 1]);
        let mut c = 0.0;
        for (&n, &p) in self.next[lo..hi].iter().zip(&self.prob[lo..hi]) {
            c += p * v[n as usize];
        }
        self.reward[i] + gamma * c
    }
}

/// Index of the largest entry, the lowest index among ties (NaN never wins).
/// Returns 0 for an empty slice.
pub fn argmax_first(row: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in row.iter().enumerate().skip(1) {
        if x > row[best] || row[best].is_nan() {
            best = i;
        }
    }
    best
}

/// A greedy policy from a Q table (rows = states): argmax_a Q(s, a), ties
/// broken by the lowest action index. O(S·A).
pub fn greedy_policy(q: ArrayView2<'_, f64>) -> Vec<usize> {
    q.rows()
        .into_iter()
        .map(|row| match row.as_slice() {
            Some(s) => argmax_first(s),
            None => argmax_first(&row.to_vec()),
        })
        .collect()
}

fn check_values(mdp: &FiniteMdp, v: ArrayView1<'_, f64>) -> Result<()> {
    if v.len() != mdp.n_states() {
        return Err(Error::ShapeMismatch {
            what: "v",
            expected: format!("{} entries", mdp.n_states()),
            got: format!("{} entries", v.len()),
        });
    }
    for (i, &x) in v.iter().enumerate() {
        check_finite(x, "v", i)?;
    }
    Ok(())
}

/// Q(s, a) = Σ p·(r + γ·[¬terminal]·v(s')) for every pair. O(outcomes).
///
/// # Errors
/// [`Error::InvalidDiscount`] unless 0 < γ < 1; [`Error::ShapeMismatch`] or
/// [`Error::NonFinite`] for a bad `v`; [`Error::Overflow`] when a Q value
/// leaves the `f64` range (rewards or values near `f64::MAX`).
pub fn q_from_v(mdp: &FiniteMdp, gamma: f64, v: ArrayView1<'_, f64>) -> Result<Array2<f64>> {
    check_discount_open(gamma)?;
    check_values(mdp, v)?;
    let v = v.to_vec();
    let q = Array2::from_shape_fn((mdp.n_states(), mdp.n_actions()), |(s, a)| {
        backup(mdp, gamma, &v, s, a)
    });
    match q.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::Overflow { what: "Q", index }),
        None => Ok(q),
    }
}

/// The optimal Bellman operator (T*V)(s) = max_a Σ p·(r + γ·[¬terminal]·V(s')),
/// a γ-contraction in sup-norm. O(outcomes).
///
/// # Errors
/// As [`q_from_v`].
pub fn bellman_optimal(mdp: &FiniteMdp, gamma: f64, v: ArrayView1<'_, f64>) -> Result<Array1<f64>> {
    let q = q_from_v(mdp, gamma, v)?;
    Ok(q.rows()
        .into_iter()
        .map(|r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max))
        .collect())
}

/// Value iteration V_{k+1} = T*V_k from V_0 = 0 (synchronous sweeps), stopped
/// when ‖V_{k+1} − V_k‖∞ ≤ tol·(1 − γ)/γ, so that ‖V − V*‖∞ ≤ tol.
///
/// Complexity O(outcomes) per sweep and O(log(R_max/(tol(1−γ)))/(1−γ)) sweeps.
/// The sweeps run on a compact copy of the MDP (expected reward per pair,
/// merged continuation probabilities, u32 next states), built once per call
/// in O(outcomes · outcomes-per-pair).
///
/// # Errors
/// [`Error::InvalidDiscount`] unless 0 < γ < 1; [`Error::InvalidParameter`]
/// for bad [`ViParams`]; [`Error::NotConverged`] when `max_iter` sweeps do
/// not reach the threshold; [`Error::Overflow`] when a value leaves the
/// `f64` range (|V| can reach max|r|/(1 − γ)).
pub fn value_iteration(mdp: &FiniteMdp, gamma: f64, params: &ViParams) -> Result<ValueSolution> {
    check_discount_open(gamma)?;
    params.check()?;
    let (ns, na) = (mdp.n_states(), mdp.n_actions());
    if ns > u32::MAX as usize {
        return Err(Error::InvalidParameter {
            name: "n_states",
            value: ns as f64,
            expected: "at most 2^32 − 1 states",
        });
    }
    let kernel = Kernel::new(mdp);
    let thresh = params.threshold(gamma);
    let mut v = vec![0.0; ns];
    let mut next = vec![0.0; ns];
    let mut residual = f64::INFINITY;
    for it in 1..=params.max_iter {
        residual = 0.0;
        for (s, slot) in next.iter_mut().enumerate() {
            let mut best = f64::NEG_INFINITY;
            for a in 0..na {
                let q = kernel.q(s * na + a, gamma, &v);
                if !q.is_finite() {
                    return Err(Error::Overflow {
                        what: "Q",
                        index: s * na + a,
                    });
                }
                best = best.max(q);
            }
            residual = f64::max(residual, (best - v[s]).abs());
            *slot = best;
        }
        std::mem::swap(&mut v, &mut next);
        if residual <= thresh {
            let v = Array1::from_vec(v);
            let q = q_from_v(mdp, gamma, v.view())?;
            let policy = greedy_policy(q.view());
            return Ok(ValueSolution {
                v,
                q,
                policy,
                iterations: it,
                residual,
            });
        }
    }
    Err(Error::NotConverged {
        algorithm: "value iteration",
        iterations: params.max_iter,
        residual,
    })
}

/// Iterative policy evaluation of a deterministic stationary policy π:
/// V_{k+1}(s) = Σ p·(r + γ·[¬terminal]·V_k(s')) with a = π(s), same stopping
/// rule as [`value_iteration`] (‖V − V^π‖∞ ≤ tol). O(outcomes/A) per sweep.
///
/// # Errors
/// As [`value_iteration`], plus [`Error::ShapeMismatch`] /
/// [`Error::ActionOutOfRange`] for a bad policy; [`Error::Overflow`] when a
/// value leaves the `f64` range.
pub fn policy_evaluation(
    mdp: &FiniteMdp,
    gamma: f64,
    policy: &[usize],
    params: &ViParams,
) -> Result<Array1<f64>> {
    check_discount_open(gamma)?;
    params.check()?;
    mdp.check_policy(policy)?;
    if mdp.n_states() > u32::MAX as usize {
        return Err(Error::InvalidParameter {
            name: "n_states",
            value: mdp.n_states() as f64,
            expected: "at most 2^32 − 1 states",
        });
    }
    let kernel = Kernel::new(mdp);
    let na = mdp.n_actions();
    let thresh = params.threshold(gamma);
    let mut v = vec![0.0; mdp.n_states()];
    let mut next = v.clone();
    let mut residual = f64::INFINITY;
    for _ in 0..params.max_iter {
        residual = 0.0;
        for (s, slot) in next.iter_mut().enumerate() {
            let x = kernel.q(s * na + policy[s], gamma, &v);
            if !x.is_finite() {
                return Err(Error::Overflow {
                    what: "V",
                    index: s,
                });
            }
            residual = f64::max(residual, (x - v[s]).abs());
            *slot = x;
        }
        std::mem::swap(&mut v, &mut next);
        if residual <= thresh {
            return Ok(Array1::from_vec(v));
        }
    }
    Err(Error::NotConverged {
        algorithm: "policy evaluation",
        iterations: params.max_iter,
        residual,
    })
}
