//! The baseline operator of Gottipati et al. (2020), which the paper shows is
//! wrong in stochastic environments.
//!
//! (T_G Q)(s, a) = E_{r,s'}[ terminal ? r : max(r, γ·max_{a'} Q(s', a')) ]
//! on plain states, without y. It swaps max and expectation: the value of a
//! stochastic future is the expectation of the maximum of *its own* rewards,
//! ignoring what was already collected, so it under-values risky continuations
//! after a reward (Jensen). On deterministic MDPs its fixed point equals
//! v*(s, 0) of the max-reward problem (property P4). See
//! [`crate::envs::stochastic_trap`] for the instance where it picks the
//! wrong action (0.5 vs 0.675 where the truth is 0.700 vs 0.675).

use crate::augmented::MaxRewardMdp;
use crate::error::{Error, Result, check_finite};
use ndarray::{Array1, Array2, ArrayView2};
use tabular_mdp::ViParams;

/// The result of [`gottipati_value_iteration`].
#[derive(Debug, Clone, PartialEq)]
pub struct GottipatiSolution {
    /// Q_G(s, a), shape S × A.
    pub q: Array2<f64>,
    /// V_G(s) = max_a Q_G(s, a).
    pub v: Array1<f64>,
    /// argmax_a Q_G(s, a), ties broken by the lowest index.
    pub policy: Vec<usize>,
    /// Sweeps run.
    pub iterations: usize,
}

/// One application of the Gottipati operator to `q` (S × A), on the shifted
/// rewards of `m`. A γ-contraction in sup-norm. O(outcomes).
///
/// # Errors
/// [`Error::ShapeMismatch`] or [`Error::NonFinite`] for a bad `q`.
pub fn gottipati_operator(m: &MaxRewardMdp, q: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    let shape = (m.n_states(), m.n_actions());
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
    let vmax: Vec<f64> = q
        .rows()
        .into_iter()
        .map(|r| r.iter().copied().fold(f64::NEG_INFINITY, f64::max))
        .collect();
    Ok(apply(m, &vmax))
}

fn apply(m: &MaxRewardMdp, vmax: &[f64]) -> Array2<f64> {
    let shift = m.reward_shift();
    let g = m.gamma();
    Array2::from_shape_fn((m.n_states(), m.n_actions()), |(s, a)| {
        m.mdp()
            .outcomes(s, a)
            .iter()
            .map(|o| {
                let r = o.reward + shift;
                let x = if o.terminal {
                    r
                } else {
                    r.max(g * vmax[o.next])
                };
                o.prob * x
            })
            .sum()
    })
}

/// Value iteration Q_{k+1} = T_G Q_k from Q₀ = 0, stopped when the sup-norm
/// change is ≤ tol·(1 − γ)/γ. O(outcomes) per sweep.
///
/// # Errors
/// `InvalidParameter` for bad params, `NotConverged` at `max_iter` (wrapped in [`Error::Mdp`]).
pub fn gottipati_value_iteration(m: &MaxRewardMdp, params: &ViParams) -> Result<GottipatiSolution> {
    params.check()?;
    let thresh = params.threshold(m.gamma());
    let mut vmax = vec![0.0; m.n_states()];
    let mut q = Array2::zeros((m.n_states(), m.n_actions()));
    for it in 1..=params.max_iter {
        let next = apply(m, &vmax);
        let residual = next
            .iter()
            .zip(q.iter())
            .map(|(a, b): (&f64, &f64)| (a - b).abs())
            .fold(0.0, f64::max);
        q = next;
        for (s, slot) in vmax.iter_mut().enumerate() {
            *slot = q.row(s).iter().copied().fold(f64::NEG_INFINITY, f64::max);
        }
        if residual <= thresh {
            let policy = tabular_mdp::greedy_policy(q.view());
            return Ok(GottipatiSolution {
                v: Array1::from_vec(vmax),
                q,
                policy,
                iterations: it,
            });
        }
    }
    Err(tabular_mdp::Error::NotConverged {
        algorithm: "Gottipati value iteration",
        iterations: params.max_iter,
        residual: f64::NAN,
    }
    .into())
}
