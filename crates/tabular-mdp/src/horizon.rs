//! Finite-horizon dynamic programming (backward induction), with an optional
//! per-(h, s, a) bonus and a per-step value cap, as optimistic planners need.
//!
//! Steps are h = 0, …, H−1 and V_H ≡ 0. The criterion is
//! V^π_h(s) = E[Σ_{t=h}^{H−1} γ^{t−h} r_t], truncated after a terminal outcome.

use crate::error::{Error, Result, check_discount_closed};
use crate::mdp::FiniteMdp;
use crate::solve::argmax_first;
use mlcore::check;
use ndarray::{Array2, Array3};

/// The most memory one call of [`finite_horizon`], [`finite_horizon_plain`]
/// or [`evaluate_finite_horizon`] (or [`crate::q_learning`]'s table) may
/// allocate: 16 GiB. The size `(H + 1)·S + H·S·A + H·S` entries of 8 bytes is
/// checked (with `checked_mul`) before anything is allocated, and a larger
/// request is an [`Error::TooLarge`]; smaller ones are allocated fallibly, so
/// a machine with less memory also gets the error rather than an abort.
pub const MAX_TABLE_BYTES: usize = 1 << 34;

/// Checks that tables of `counts` entries (each a product of `factors`) fit
/// in [`MAX_TABLE_BYTES`] at 8 bytes per entry.
pub(crate) fn check_table_size(
    what: &'static str,
    names: &str,
    counts: &[&[usize]],
) -> Result<usize> {
    let total = counts.iter().try_fold(0usize, |acc, factors| {
        factors
            .iter()
            .try_fold(1usize, |p, &f| p.checked_mul(f))
            .and_then(|n| acc.checked_add(n))
    });
    let bytes = total.and_then(|t| t.checked_mul(8));
    match (total, bytes) {
        (Some(t), Some(b)) if b <= MAX_TABLE_BYTES => Ok(t),
        (Some(t), Some(b)) => Err(Error::TooLarge {
            what,
            size: format!(
                "{names}: {t} entries, {b} bytes, above the cap of {MAX_TABLE_BYTES} bytes"
            ),
        }),
        _ => Err(Error::TooLarge {
            what,
            size: format!("{names}: the entry count overflows usize"),
        }),
    }
}

/// A `Vec` of `len` copies of `value`, or [`Error::TooLarge`] when the
/// allocator refuses (instead of aborting).
pub(crate) fn try_vec<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>> {
    Ok(check::try_filled(len, value, what)?)
}

pub(crate) fn try_array2<T: Clone>(
    shape: (usize, usize),
    value: T,
    what: &'static str,
) -> Result<Array2<T>> {
    let v = try_vec(shape.0 * shape.1, value, what)?;
    // ndarray also refuses an axis longer than isize::MAX next to an empty one.
    Array2::from_shape_vec(shape, v).map_err(|e| Error::TooLarge {
        what,
        size: format!("shape {shape:?}: {e}"),
    })
}

fn try_array3<T: Clone>(
    shape: (usize, usize, usize),
    value: T,
    what: &'static str,
) -> Result<Array3<T>> {
    let v = try_vec(shape.0 * shape.1 * shape.2, value, what)?;
    Array3::from_shape_vec(shape, v).map_err(|e| Error::TooLarge {
        what,
        size: format!("shape {shape:?}: {e}"),
    })
}

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
/// O(H·S·A) memory, checked against [`MAX_TABLE_BYTES`] before allocating.
///
/// # Errors
/// [`Error::InvalidParameter`] for `horizon = 0`; [`Error::InvalidDiscount`]
/// unless 0 < γ ≤ 1; [`Error::TooLarge`] when the tables `(H + 1)·S + H·S·A
/// + H·S` entries overflow `usize`, exceed [`MAX_TABLE_BYTES`] or cannot be
/// allocated; [`Error::NonFinite`] for a NaN/infinite bonus or a NaN or `−∞`
/// cap (`+∞` means no cap); [`Error::Overflow`] when a Q value leaves the
/// `f64` range (rewards near `f64::MAX` summed over the horizon).
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
    check::at_least(horizon, 1, "horizon", "at least 1")?;
    check_discount_closed(gamma)?;
    let (ns, na) = (mdp.n_states(), mdp.n_actions());
    check_table_size(
        "finite-horizon tables (V, Q, policy)",
        &format!("horizon {horizon} × {ns} states × {na} actions"),
        &[&[horizon, ns], &[1, ns], &[horizon, ns, na], &[horizon, ns]],
    )?;
    let what = "finite-horizon tables (V, Q, policy)";
    let mut v = try_array2((horizon + 1, ns), 0.0, what)?;
    let mut q = try_array3((horizon, ns, na), 0.0, what)?;
    let mut policy = try_array2((horizon, ns), 0usize, what)?;
    let mut row = vec![0.0; na];
    for h in (0..horizon).rev() {
        let c = cap(h);
        if c.is_nan() || c == f64::NEG_INFINITY {
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
                // x = +∞ under a finite cap is the cap (the exact x exceeds
                // f64::MAX); any other non-finite value is an overflow.
                *slot = if x.is_nan() { x } else { x.min(c) };
                if !slot.is_finite() {
                    return Err(Error::Overflow {
                        what: "Q",
                        index: (h * ns + s) * na + a,
                    });
                }
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
/// As [`finite_horizon`] (the size check is on the (H + 1)·S table), plus
/// [`Error::ActionOutOfRange`] when the policy returns an action ≥ A, and
/// [`Error::Overflow`] when a value leaves the `f64` range.
pub fn evaluate_finite_horizon<P>(
    mdp: &FiniteMdp,
    horizon: usize,
    gamma: f64,
    mut policy: P,
) -> Result<Array2<f64>>
where
    P: FnMut(usize, usize) -> usize,
{
    check::at_least(horizon, 1, "horizon", "at least 1")?;
    check_discount_closed(gamma)?;
    let ns = mdp.n_states();
    let what = "finite-horizon value table";
    check_table_size(
        what,
        &format!("horizon {horizon} × {ns} states"),
        &[&[horizon, ns], &[1, ns]],
    )?;
    let mut v = try_array2((horizon + 1, ns), 0.0, what)?;
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
            if !x.is_finite() {
                return Err(Error::Overflow {
                    what: "V",
                    index: h * ns + s,
                });
            }
            v[[h, s]] = x;
        }
    }
    Ok(v)
}
