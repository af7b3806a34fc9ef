//! Framework-free targets for deep max-reward agents (TD3-max, PPO-max):
//! plain `f64` slices in, vectors out, so that users of any tensor library
//! compute their critic targets with the recursion of the paper.
//!
//! Two inconsistencies of the official code are fixed here:
//!
//! 1. **Rollout y.** The official rollouts feed the actor
//!    `running_y = max(r − r_lb, running_y)`, the *undiscounted* running
//!    maximum, while the critic is trained on y' = max(y, r)/γ, so actor and
//!    critic see different y (by up to γ^{−t}). Here one function,
//!    [`y_update`], defines y everywhere ([`rollout_ys`] applies it along a
//!    rollout).
//! 2. **TD3-max terminal branch.** The official critic target is
//!    ŷ = max(y, r)/γ at a terminal step, but the non-terminal branch is
//!    γ·max(Q', ŷ) = γ·v(s', ŷ) and v(s', ŷ) = ŷ at an absorbing end, so the
//!    consistent terminal target is γ·ŷ = max(y, r) ([`td3_max_target`]).
//!    (Harmless in the paper's continuing maze tasks, which never terminate.)
//!
//! The official max-GAE evaluates the critic n(n+1)/2 times per rollout of
//! length n and asserts that no episode terminates; [`max_gae`] uses an
//! O(n) recursion (derived below) and handles a termination at the end of a
//! segment exactly.

use crate::error::{Error, Result, check_finite, check_gamma};

/// y' = max(y, r)/γ: the auxiliary-variable update, the only definition of y
/// in this crate.
pub fn y_update(y: f64, r: f64, gamma: f64) -> f64 {
    y.max(r) / gamma
}

/// max_{k≥0} γ^k r_k of a reward sequence (the max-reward return G₀). O(n).
///
/// # Errors
/// [`Error::InvalidDiscount`]; [`Error::ShapeMismatch`] for no reward;
/// [`Error::NonFinite`].
pub fn max_discounted_return(rewards: &[f64], gamma: f64) -> Result<f64> {
    check_gamma(gamma)?;
    check_slice(rewards, "rewards", 1)?;
    let mut g = f64::NEG_INFINITY;
    let mut d = 1.0;
    for &r in rewards {
        g = g.max(d * r);
        d *= gamma;
    }
    Ok(g)
}

/// The y along a rollout: y₀ = `y0`, y_{t+1} = [`y_update`](y_t, r_t, γ).
/// Returns n + 1 values (the last one is y_n, where a bootstrap critic is
/// evaluated). O(n).
///
/// # Errors
/// [`Error::InvalidDiscount`]; [`Error::NonFinite`] for a non-finite input,
/// or when some y_t = max(y, r)/γ overflows f64 (index t: inputs within a
/// factor γ of `f64::MAX`).
pub fn rollout_ys(y0: f64, rewards: &[f64], gamma: f64) -> Result<Vec<f64>> {
    check_gamma(gamma)?;
    check_finite(y0, "y0", 0)?;
    check_slice(rewards, "rewards", 0)?;
    let mut ys = Vec::with_capacity(rewards.len() + 1);
    let mut y = y0;
    ys.push(y);
    for (t, &r) in rewards.iter().enumerate() {
        y = y_update(y, r, gamma);
        if !y.is_finite() {
            // max(y, r)/γ above f64::MAX: y_{t+1} is not representable.
            return Err(Error::NonFinite {
                what: "y (max(y, r)/γ overflows f64)",
                index: t + 1,
                value: y,
            });
        }
        ys.push(y);
    }
    Ok(ys)
}

/// The TD3-max critic target of one transition:
/// ŷ = max(y, r)/γ; target = done ? max(y, r) : γ·max(min(Q1', Q2'), ŷ),
/// where Q1', Q2' are the target critics at (s', ã, ŷ) with
/// ã = actor_target(s', ŷ) + clipped noise. See the module docs for the
/// terminal branch (the official code returns ŷ there).
pub fn td3_max_target(y: f64, r: f64, done: bool, q1_next: f64, q2_next: f64, gamma: f64) -> f64 {
    if done {
        y.max(r)
    } else {
        let y_hat = y_update(y, r, gamma);
        gamma * q1_next.min(q2_next).max(y_hat)
    }
}

/// [`td3_max_target`] over a batch. O(n).
///
/// # Errors
/// [`Error::InvalidDiscount`]; [`Error::ShapeMismatch`] for different
/// lengths; [`Error::NonFinite`].
pub fn td3_max_targets(
    y: &[f64],
    r: &[f64],
    done: &[bool],
    q1_next: &[f64],
    q2_next: &[f64],
    gamma: f64,
) -> Result<Vec<f64>> {
    check_gamma(gamma)?;
    let n = y.len();
    for (what, len) in [
        ("r", r.len()),
        ("done", done.len()),
        ("q1_next", q1_next.len()),
        ("q2_next", q2_next.len()),
    ] {
        same_len(what, len, n)?;
    }
    check_slice(y, "y", 0)?;
    check_slice(r, "r", 0)?;
    check_slice(q1_next, "q1_next", 0)?;
    check_slice(q2_next, "q2_next", 0)?;
    Ok((0..n)
        .map(|i| td3_max_target(y[i], r[i], done[i], q1_next[i], q2_next[i], gamma))
        .collect())
}

/// Bootstrapped max Monte-Carlo returns of one rollout segment (PPO-max
/// value targets). With y_t from [`rollout_ys`], M_t = max_{0≤j<n−t} γ^j r_{t+j}
/// and ŷ_t = max(y_t, M_t):
///
/// R_t = ŷ_t if the segment ends with a termination, else
/// max(ŷ_t, γ^{n−t}·V(s_n, y_n)), where `bootstrap = V(s_n, y_n)` and
/// y_n = ŷ_t/γ^{n−t} (the same for every t, so one critic call suffices).
/// O(n).
///
/// `terminated[t]` marks a terminal step; only the last step may be one
/// (y restarts at 0 in a new episode: split rollouts at episode ends).
///
/// # Errors
/// [`Error::InvalidDiscount`]; [`Error::ShapeMismatch`] for an empty segment
/// or lengths that differ; [`Error::TerminationInsideSegment`];
/// [`Error::InvalidParameter`] when a truncated segment has no bootstrap;
/// [`Error::NonFinite`].
pub fn max_mc_returns(
    rewards: &[f64],
    terminated: &[bool],
    y0: f64,
    bootstrap: Option<f64>,
    gamma: f64,
) -> Result<Vec<f64>> {
    let (ys, boot) = segment(rewards, terminated, y0, bootstrap, gamma)?;
    let n = rewards.len();
    let mut out = vec![0.0; n];
    let mut m = f64::NEG_INFINITY;
    let mut disc = 1.0;
    for t in (0..n).rev() {
        m = rewards[t].max(gamma * m);
        disc *= gamma;
        let y_hat = ys[t].max(m);
        out[t] = match boot {
            None => y_hat,
            Some(v) => y_hat.max(disc * v),
        };
    }
    Ok(out)
}

/// Advantages and λ-returns of max-GAE for one rollout segment.
#[derive(Debug, Clone, PartialEq)]
pub struct MaxGae {
    /// A_t = L_t − V(s_t, y_t).
    pub advantages: Vec<f64>,
    /// The max λ-returns L_t (critic targets).
    pub returns: Vec<f64>,
    /// y_0, …, y_n (from [`rollout_ys`]).
    pub ys: Vec<f64>,
}

/// Max-GAE(λ): the λ-average of the n-step max returns
/// R_t^{(k)} = max(ŷ_t^{(k)}, γ^k·V(s_{t+k}, y_{t+k})), computed by the O(n)
/// recursion
///
/// L_t = γ·[(1 − λ)·max(y_{t+1}, V_{t+1}) + λ·L_{t+1}],
///
/// with V_{t+1} = V(s_{t+1}, y_{t+1}) (`values[t + 1]`, or `bootstrap` at the
/// end), L_n = max(y_n, V_n) for a truncated segment, and L_{n−1} = max(y_{n−1}, r_{n−1})
/// when the last step terminates. Derivation (this crate's, the paper gives
/// none): R_t^{(k)} = γ·max(y_{t+1}, R_{t+1}^{(k−1)}) with R^{(0)} = V, and
/// R_{t+1}^{(k−1)} ≥ γ·y_{t+2} ≥ y_{t+1} for k ≥ 2, so the max is only
/// active on the one-step term. λ = 1 gives [`max_mc_returns`], λ = 0 the
/// one-step target γ·max(y', V(s', y')).
///
/// `values[t] = V(s_t, y_t)` for t < n, evaluated at the y of [`rollout_ys`].
/// O(n).
///
/// # Errors
/// As [`max_mc_returns`], plus [`Error::InvalidParameter`] for λ ∉ [0, 1]
/// and [`Error::ShapeMismatch`] when `values` has not n entries.
pub fn max_gae(
    rewards: &[f64],
    terminated: &[bool],
    values: &[f64],
    y0: f64,
    bootstrap: Option<f64>,
    gamma: f64,
    lambda: f64,
) -> Result<MaxGae> {
    if !(0.0..=1.0).contains(&lambda) {
        return Err(Error::InvalidParameter {
            name: "lambda",
            value: lambda,
            expected: "in [0, 1]",
        });
    }
    same_len("values", values.len(), rewards.len())?;
    check_slice(values, "values", 0)?;
    let (ys, boot) = segment(rewards, terminated, y0, bootstrap, gamma)?;
    let n = rewards.len();
    let mut returns = vec![0.0; n];
    // L_{t+1} and V_{t+1} carried backwards.
    let (mut l_next, mut v_next) = match boot {
        Some(v) => (ys[n].max(v), v),
        None => (0.0, 0.0),
    };
    for t in (0..n).rev() {
        let l = if t == n - 1 && boot.is_none() {
            ys[t].max(rewards[t])
        } else {
            gamma * ((1.0 - lambda) * ys[t + 1].max(v_next) + lambda * l_next)
        };
        returns[t] = l;
        l_next = l;
        v_next = values[t];
    }
    let advantages = returns.iter().zip(values).map(|(l, v)| l - v).collect();
    Ok(MaxGae {
        advantages,
        returns,
        ys,
    })
}

/// Shared checks of a rollout segment; returns the ys and the bootstrap
/// (None when the segment terminates).
fn segment(
    rewards: &[f64],
    terminated: &[bool],
    y0: f64,
    bootstrap: Option<f64>,
    gamma: f64,
) -> Result<(Vec<f64>, Option<f64>)> {
    check_gamma(gamma)?;
    check_slice(rewards, "rewards", 1)?;
    same_len("terminated", terminated.len(), rewards.len())?;
    let n = rewards.len();
    if let Some(t) = terminated[..n - 1].iter().position(|&d| d) {
        return Err(Error::TerminationInsideSegment { step: t, len: n });
    }
    let boot = if terminated[n - 1] {
        None
    } else {
        match bootstrap {
            Some(v) => {
                check_finite(v, "bootstrap", 0)?;
                Some(v)
            }
            None => {
                return Err(Error::InvalidParameter {
                    name: "bootstrap",
                    value: f64::NAN,
                    expected: "V(s_n, y_n) for a segment that does not terminate",
                });
            }
        }
    };
    Ok((rollout_ys(y0, rewards, gamma)?, boot))
}

fn same_len(what: &'static str, len: usize, n: usize) -> Result<()> {
    if len == n {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            what,
            expected: format!("{n} entries"),
            got: format!("{len} entries"),
        })
    }
}

fn check_slice(x: &[f64], what: &'static str, min_len: usize) -> Result<()> {
    if x.len() < min_len {
        return Err(Error::ShapeMismatch {
            what,
            expected: format!("at least {min_len} entries"),
            got: format!("{} entries", x.len()),
        });
    }
    for (i, &v) in x.iter().enumerate() {
        check_finite(v, what, i)?;
    }
    Ok(())
}
