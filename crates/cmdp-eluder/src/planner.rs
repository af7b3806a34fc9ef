//! The layered dynamic programme of the agents (optimistic backward
//! induction) and forward occupancy measures.
//!
//! Both work on one context's dense slices: a reward table r (S × A), a
//! dynamics table P (S × A × S, rows of layer h supported on layer h+1) and a
//! bonus table b (S × A). This is a small dense specialisation of
//! `tabular_mdp::finite_horizon` (it visits only the next layer's states, so
//! the version-space agent's |ℱ_t|·|𝒫_t| plans per episode stay cheap); a
//! test checks it against `tabular-mdp` on random layered MDPs.

use crate::cmdp::{LayeredSpace, Policy};
use crate::error::{Error, Result, mismatch};
use ndarray::{Array1, Array2, ArrayView2, ArrayView3};
use tabular_mdp::argmax_first;

/// A layered plan: V(s) for every state (at its own layer), Q(s, a), and the
/// greedy policy π(s) = argmax_a Q(s, a) (ties → lowest action).
#[derive(Debug, Clone, PartialEq)]
pub struct LayeredPlan {
    /// V(s).
    pub v: Array1<f64>,
    /// Q(s, a).
    pub q: Array2<f64>,
    /// π(s).
    pub policy: Policy,
}

/// Optimistic backward induction over the layers h = H−1, …, 0:
///
/// Q_h(s, a) = min{ H − h, r(s, a) + b(s, a) + Σ_{s' ∈ layer h+1} P(s'|s, a)·V(s') },
/// V(s) = max_a Q_h(s, a).
///
/// With `bonus = None` and `cap = false` it is plain DP (optimal values and
/// policy of the model).
///
/// **Tie-breaking under the cap (a choice; the paper is silent).** When the
/// bonus is large, several actions reach the cap H − h and tie; breaking
/// those ties by the lowest index makes the agent repeat action 0 until the
/// bonus has shrunk below the cap, i.e. no exploration at all. The policy is
/// therefore argmax_a of the *uncapped* Q (ties → lowest index), which is
/// always one of the maximisers of the capped Q, so V and every optimism
/// argument are unchanged. O(S·A·max layer size).
///
/// Values are sums of H rewards and bonuses: with entries so large that such
/// a sum leaves f64's range (|x| ≳ f64::MAX / (H·S)) V and Q are ±∞ (or NaN
/// where +∞ and −∞ meet); entries of a CMDP's rewards (in [0, 1]) and the
/// agents' bonuses are far from that.
///
/// # Errors
/// [`Error::DimensionMismatch`] unless r and b are S × A and P is S × A × S
/// with S = the space's state count and A ≥ 1; [`Error::InvalidParameter`]
/// for a non-finite entry of r, P or b.
pub fn plan_layered(
    space: &LayeredSpace,
    reward: ArrayView2<'_, f64>,
    dynamics: ArrayView3<'_, f64>,
    bonus: Option<ArrayView2<'_, f64>>,
    cap: bool,
) -> Result<LayeredPlan> {
    check_tables(space, reward, dynamics)?;
    if let Some(b) = bonus {
        if b.dim() != reward.dim() {
            return Err(mismatch(
                "bonus shape",
                format!("{:?}", reward.dim()),
                format!("{:?}", b.dim()),
            ));
        }
        finite("bonus", b.iter())?;
    }
    Ok(plan_layered_unchecked(space, reward, dynamics, bonus, cap))
}

/// Checks r (S × A) and P (S × A × S) against the space, and finiteness.
fn check_tables(
    space: &LayeredSpace,
    reward: ArrayView2<'_, f64>,
    dynamics: ArrayView3<'_, f64>,
) -> Result<()> {
    let ns = space.n_states();
    let (rs, na) = reward.dim();
    if rs != ns || na == 0 {
        return Err(mismatch(
            "reward shape (S, A ≥ 1)",
            format!("({ns}, ≥ 1)"),
            format!("({rs}, {na})"),
        ));
    }
    if dynamics.dim() != (ns, na, ns) {
        return Err(mismatch(
            "dynamics shape",
            format!("({ns}, {na}, {ns})"),
            format!("{:?}", dynamics.dim()),
        ));
    }
    finite("reward", reward.iter())?;
    finite("dynamics", dynamics.iter())
}

fn finite<'a>(name: &'static str, mut values: impl Iterator<Item = &'a f64>) -> Result<()> {
    match values.find(|v| !v.is_finite()) {
        Some(&value) => Err(Error::InvalidParameter {
            name,
            value,
            expected: "finite",
        }),
        None => Ok(()),
    }
}

/// Checks a policy's length and actions.
fn check_policy(ns: usize, na: usize, policy: &[usize]) -> Result<()> {
    if policy.len() != ns {
        return Err(mismatch("policy length", ns, policy.len()));
    }
    match policy.iter().find(|&&a| a >= na) {
        Some(&a) => Err(mismatch("action", format!("< {na}"), a)),
        None => Ok(()),
    }
}

/// [`plan_layered`] without the checks, for the agents' inner loops (their
/// constructors validated the tables).
pub(crate) fn plan_layered_unchecked(
    space: &LayeredSpace,
    reward: ArrayView2<'_, f64>,
    dynamics: ArrayView3<'_, f64>,
    bonus: Option<ArrayView2<'_, f64>>,
    cap: bool,
) -> LayeredPlan {
    let (ns, na) = reward.dim();
    let horizon = space.horizon();
    let mut v = Array1::<f64>::zeros(ns);
    let mut q = Array2::<f64>::zeros((ns, na));
    let mut policy = vec![0; ns];
    let mut row = vec![0.0; na];
    let mut raw = vec![0.0; na];
    for h in (0..horizon).rev() {
        let next = if h + 1 < horizon {
            space.range_unchecked(h + 1)
        } else {
            0..0
        };
        let c = (horizon - h) as f64;
        for s in space.range_unchecked(h) {
            for (a, slot) in row.iter_mut().enumerate() {
                let mut x = reward[[s, a]];
                if let Some(b) = bonus {
                    x += b[[s, a]];
                }
                for s2 in next.clone() {
                    x += dynamics[[s, a, s2]] * v[s2];
                }
                raw[a] = x;
                *slot = if cap { x.min(c) } else { x };
                q[[s, a]] = *slot;
            }
            // argmax of the uncapped Q is always an argmax of the capped Q
            // (min{cap, ·} is monotone); it breaks the ties the cap creates.
            let best = argmax_first(&raw);
            policy[s] = best;
            v[s] = row[best];
        }
    }
    LayeredPlan { v, q, policy }
}

/// The value V^π(s₀) of a deterministic policy under (r, P): exact forward
/// computation Σ_{s,a} q^π(s, a)·r(s, a). O(S·max layer size).
///
/// # Errors
/// As [`plan_layered`] for the tables; [`Error::DimensionMismatch`] for a
/// policy not of length S or an action ≥ A.
pub fn policy_value_layered(
    space: &LayeredSpace,
    reward: ArrayView2<'_, f64>,
    dynamics: ArrayView3<'_, f64>,
    policy: &[usize],
) -> Result<f64> {
    check_tables(space, reward, dynamics)?;
    check_policy(space.n_states(), reward.dim().1, policy)?;
    let occ = occupancy_unchecked(space, dynamics, policy);
    Ok(occ.iter().zip(reward.iter()).map(|(o, r)| o * r).sum())
}

/// Occupancy measure q^π(s, a) = P(s_h = s, a_h = a) of the deterministic
/// policy π under P, starting from s₀ = 0 (forward pass over layers). Each
/// layer's occupancies sum to 1 when P's rows are distributions.
/// O(S·max layer size).
///
/// # Errors
/// [`Error::DimensionMismatch`] unless P is S × A × S (A ≥ 1) and the
/// policy has length S with actions < A; [`Error::InvalidParameter`] for a
/// non-finite entry of P.
pub fn occupancy(
    space: &LayeredSpace,
    dynamics: ArrayView3<'_, f64>,
    policy: &[usize],
) -> Result<Array2<f64>> {
    let ns = space.n_states();
    let (_, na, _) = dynamics.dim();
    if dynamics.dim() != (ns, na, ns) || na == 0 {
        return Err(mismatch(
            "dynamics shape (S, A ≥ 1, S)",
            format!("({ns}, ≥ 1, {ns})"),
            format!("{:?}", dynamics.dim()),
        ));
    }
    finite("dynamics", dynamics.iter())?;
    check_policy(ns, na, policy)?;
    Ok(occupancy_unchecked(space, dynamics, policy))
}

/// [`occupancy`] without the checks (the agents' inner loops).
pub(crate) fn occupancy_unchecked(
    space: &LayeredSpace,
    dynamics: ArrayView3<'_, f64>,
    policy: &[usize],
) -> Array2<f64> {
    let (ns, na, _) = dynamics.dim();
    let mut d = vec![0.0; ns];
    d[0] = 1.0;
    let mut q = Array2::<f64>::zeros((ns, na));
    let horizon = space.horizon();
    for h in 0..horizon {
        for s in space.range_unchecked(h) {
            if d[s] == 0.0 {
                continue;
            }
            let a = policy[s];
            q[[s, a]] += d[s];
            if h + 1 < horizon {
                for s2 in space.range_unchecked(h + 1) {
                    d[s2] += d[s] * dynamics[[s, a, s2]];
                }
            }
        }
    }
    q
}
