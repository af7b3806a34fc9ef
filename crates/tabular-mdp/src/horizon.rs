//! Finite-horizon dynamic programming (backward induction), with an optional
//! per-(h, s, a) bonus and a per-step value cap, as optimistic planners need.
//!
//! Steps are h = 0, …, H−1 and V_H ≡ 0. The criterion is
//! V^π_h(s) = E[Σ_{t=h}^{H−1} γ^{t−h} r_t], truncated after a terminal outcome.

use crate::error::{Error, Result, check_discount_closed};
use crate::mdp::FiniteMdp;
use crate::solve::argmax_first;
use ndarray::{Array2, Array3};

/// The result of [`finite_horizon`] (non-stationary: everything indexed by the step h).
#[derive(Debug, Clone, PartialEq)]
pub struct HorizonSolution {
    /// V_h(s), shape (H + 1) × S; row H is zero.
    pub v: Array2<f64>,
    /// Q_h(s, a), shape H × S × A.
    pub q: Array3<f64>,
    /// π_h(s) = argmax_a Q_h(s, a), ties broken by the lowest index; shape H × S.
    pub policy: Array2<usize>,
}

/// Backward induction with a bonus and a cap:
///
/// Q_h(s, a) = min{ cap(h), Σ p·(r + γ·[¬terminal]·V_{h+1}(s')) + bonus(h, s, a) },
/// V_h(s) = max_a Q_h(s, a), V_H ≡ 0.
///
/// With `bonus ≡ 0` and `cap ≡ ∞` this is plain finite-horizon DP
/// ([`finite_horizon_plain`]). Optimistic planners (UCBVI-style, or the
/// layered DP of contextual-MDP algorithms) pass their exploration bonus and
/// the cap `H − h` (rewards in [0, 1]). Complexity O(H · outcomes) time,
/// O(H·S·A) memory.
///
/// # Errors
/// [`Error::InvalidParameter`] for `horizon = 0`; [`Error::InvalidDiscount`]
/// unless 0 < γ ≤ 1; [`Error::NonFinite`] for a NaN/infinite bonus or a NaN cap.
pub fn finite_horizon<B, C>(
    mdp: &FiniteMdp,
    horizon: usize,
    gamma: f64,
    mut bonus: B,
    mut cap: C,
) -> Result<HorizonSolution>
where
    B: FnMut(usize, usize, usize) -> f64,
    C: FnMut(usize) -> f64,
{
    if horizon == 0 {
        return Err(Error::InvalidParameter {
            name: "horizon",
            value: 0.0,
            expected: "at least 1",
        });
    }
    check_discount_closed(gamma)?;
    let (ns, na) = (mdp.n_states(), mdp.n_actions());
    let mut v = Array2::<f64>::zeros((horizon + 1, ns));
    let mut q = Array3::<f64>::zeros((horizon, ns, na));
    let mut policy = Array2::<usize>::zeros((horizon, ns));
    let mut row = vec![0.0; na];
    for h in (0..horizon).rev() {
        let c = cap(h);
        if c.is_nan() {
            return Err(Error::NonFinite {
                what: "cap",
                index: h,
                value: c,
            });
        }
        for s in 0..ns {
            for (a, slot) in row.iter_mut().enumerate() {
                let b = bonus(h, s, a);
                if !b.is_finite() {
                    return Err(Error::NonFinite {
                        what: "bonus",
                        index: (h * ns + s) * na + a,
                        value: b,
                    });
                }
                let mut x = b;
                for o in mdp.outcomes(s, a) {
                    let cont = if o.terminal {
                        0.0
                    } else {
                        gamma * v[[h + 1, o.next]]
                    };
                    x += o.prob * (o.reward + cont);
                }
                *slot = x.min(c);
                q[[h, s, a]] = *slot;
            }
            let best = argmax_first(&row);
            policy[[h, s]] = best;
            v[[h, s]] = row[best];
        }
    }
    Ok(HorizonSolution { v, q, policy })
}

/// Plain finite-horizon DP: [`finite_horizon`] with no bonus and no cap.
///
/// # Errors
/// As [`finite_horizon`].
pub fn finite_horizon_plain(
    mdp: &FiniteMdp,
    horizon: usize,
    gamma: f64,
) -> Result<HorizonSolution> {
    finite_horizon(mdp, horizon, gamma, |_, _, _| 0.0, |_| f64::INFINITY)
}

/// Exact value of a non-stationary deterministic policy π_h(s):
/// V^π_h(s) = Σ p·(r + γ·[¬terminal]·V^π_{h+1}(s')) with a = π_h(s), V_H ≡ 0.
/// Returns the (H + 1) × S table. O(H · outcomes / A).
///
/// # Errors
/// As [`finite_horizon`], plus [`Error::ActionOutOfRange`] when the policy
/// returns an action ≥ A.
pub fn evaluate_finite_horizon<P>(
    mdp: &FiniteMdp,
    horizon: usize,
    gamma: f64,
    mut policy: P,
) -> Result<Array2<f64>>
where
    P: FnMut(usize, usize) -> usize,
{
    if horizon == 0 {
        return Err(Error::InvalidParameter {
            name: "horizon",
            value: 0.0,
            expected: "at least 1",
        });
    }
    check_discount_closed(gamma)?;
    let ns = mdp.n_states();
    let mut v = Array2::<f64>::zeros((horizon + 1, ns));
    for h in (0..horizon).rev() {
        for s in 0..ns {
            let a = policy(h, s);
            if a >= mdp.n_actions() {
                return Err(Error::ActionOutOfRange {
                    action: a,
                    n_actions: mdp.n_actions(),
                });
            }
            let mut x = 0.0;
            for o in mdp.outcomes(s, a) {
                let cont = if o.terminal {
                    0.0
                } else {
                    gamma * v[[h + 1, o.next]]
                };
                x += o.prob * (o.reward + cont);
            }
            v[[h, s]] = x;
        }
    }
    Ok(v)
}
