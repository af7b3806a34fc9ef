//! The exact y-lattice of a finite reward set.
//!
//! The auxiliary variable evolves as y₀ = 0, y_{t+1} = max(y_t, r_t)/γ
//! ([`crate::targets::y_update`]). With rewards in a finite set R ⊂ [0, ∞)
//! and r_max = max R, every reachable value below r_max is 0 or r·γ^{−j}
//! with r ∈ R, r > 0, j ≥ 1; every value ≥ r_max behaves alike
//! (v(s, y) = y there), so it is one *saturated* class. The lattice stores
//! these values sorted, indexes each as (reward level k, exponent j) while it
//! is built, and tabulates the successor index of every (y, r) pair once:
//! no float comparison happens after construction, so y never drifts.

use crate::error::{Error, Result, check_gamma, check_index};
use std::collections::HashMap;

/// Relative tolerance under which two lattice values r_k·γ^{−j} and
/// r_m·γ^{−i} are the same point (they are then merged).
pub const MERGE_TOL: f64 = 1e-12;

/// The finite set of reachable y values below r_max, with its transition table.
#[derive(Debug, Clone, PartialEq)]
pub struct YLattice {
    gamma: f64,
    rewards: Vec<f64>,
    values: Vec<f64>,
    next: Vec<usize>,
    /// The same table transposed: `next_t[ri·|Y| + y]`.
    next_t: Vec<usize>,
    r_max: f64,
}

impl YLattice {
    /// Builds the lattice of a reward set (any order, duplicates allowed).
    ///
    /// Size: |Y| = 1 + Σ_{r∈R, 0<r<r_max} ⌈ln(r_max/r)/ln(1/γ)⌉ − (merged
    /// duplicates). Complexity O(|Y|·|R|) time and memory.
    ///
    /// # Errors
    /// [`Error::InvalidDiscount`] unless 0 < γ < 1; [`Error::NonFinite`] or
    /// [`Error::InvalidParameter`] for a non-finite or negative reward;
    /// [`Error::YGridTooLarge`] when |Y| would exceed `limit`.
    pub fn new(rewards: &[f64], gamma: f64, limit: usize) -> Result<Self> {
        check_gamma(gamma)?;
        let mut rs: Vec<f64> = Vec::with_capacity(rewards.len() + 1);
        for (i, &r) in rewards.iter().enumerate() {
            if !r.is_finite() {
                return Err(Error::NonFinite {
                    what: "reward",
                    index: i,
                    value: r,
                });
            }
            if r < 0.0 {
                return Err(Error::InvalidParameter {
                    name: "reward",
                    value: r,
                    expected: ">= 0 (shift rewards first)",
                });
            }
            rs.push(r + 0.0);
        }
        rs.sort_by(f64::total_cmp);
        rs.dedup();
        let r_max = rs.last().copied().unwrap_or(0.0);
        // Count first (as f64: it can be astronomically large).
        let log_inv_gamma = -gamma.ln();
        let mut needed = 1.0f64;
        for &r in &rs {
            if r > 0.0 && r < r_max {
                needed += ((r_max / r).ln() / log_inv_gamma).ceil().max(1.0);
            }
        }
        if needed > limit as f64 {
            return Err(Error::YGridTooLarge { needed, limit });
        }
        // Candidates (value, level, j); level usize::MAX marks y = 0.
        let mut cand: Vec<(f64, usize, u32)> = vec![(0.0, usize::MAX, 0)];
        for (k, &r) in rs.iter().enumerate() {
            if r <= 0.0 {
                continue;
            }
            let mut j = 1u32;
            loop {
                let v = r * gamma.powi(-(j as i32));
                if v >= r_max {
                    break;
                }
                cand.push((v, k, j));
                j += 1;
            }
        }
        cand.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut values: Vec<f64> = Vec::with_capacity(cand.len());
        let mut index: HashMap<(usize, u32), usize> = HashMap::with_capacity(cand.len());
        let mut repr: Vec<(usize, u32)> = Vec::with_capacity(cand.len());
        for &(v, k, j) in &cand {
            let same = values
                .last()
                .is_some_and(|&last: &f64| (v - last).abs() <= MERGE_TOL * v.abs().max(last.abs()));
            if !same {
                values.push(v);
                repr.push((k, j));
            }
            index.insert((k, j), values.len() - 1);
        }
        let ny = values.len();
        let nr = rs.len();
        let mut next = vec![ny; ny * nr];
        for y in 0..ny {
            let (k, j) = repr[y];
            for (m, &r) in rs.iter().enumerate() {
                // y' = max(y, r)/γ as a lattice point (level, exponent).
                let key = if k == usize::MAX {
                    if r > 0.0 { Some((m, 1)) } else { None }
                } else if values[y] >= r {
                    Some((k, j + 1))
                } else {
                    Some((m, 1))
                };
                next[y * nr + m] = match key {
                    None => 0, // y = 0, r = 0: stays at 0
                    Some(key) => index.get(&key).copied().unwrap_or(ny),
                };
            }
        }
        let mut next_t = vec![ny; ny * nr];
        for y in 0..ny {
            for m in 0..nr {
                next_t[m * ny + y] = next[y * nr + m];
            }
        }
        Ok(YLattice {
            gamma,
            rewards: rs,
            values,
            next,
            next_t,
            r_max,
        })
    }

    /// Number of (non-saturated) lattice points |Y|; index |Y| is the saturated class.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Always false: y = 0 is always a lattice point.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The saturated index |Y| (y ≥ r_max).
    pub fn saturated(&self) -> usize {
        self.values.len()
    }

    /// The lattice values, increasing, `values()[0] = 0`, all < r_max.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value of index `y`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] unless `y < len()`.
    pub fn value(&self, y: usize) -> Result<f64> {
        check_index("y-lattice point", y, self.values.len())?;
        Ok(self.values[y])
    }

    /// [`YLattice::value`] for an index known to be valid (crate internal).
    pub(crate) fn value_unchecked(&self, y: usize) -> f64 {
        self.values[y]
    }

    /// The distinct rewards, increasing.
    pub fn rewards(&self) -> &[f64] {
        &self.rewards
    }

    /// Index of reward `r` in [`YLattice::rewards`] (exact match), if present.
    pub fn reward_index(&self, r: f64) -> Option<usize> {
        self.rewards
            .binary_search_by(|x| x.total_cmp(&(r + 0.0)))
            .ok()
    }

    /// The largest reward r_max.
    pub fn r_max(&self) -> f64 {
        self.r_max
    }

    /// The discount γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// The successor indices of every lattice point for reward index `ri`:
    /// `next_row(ri)?[y] == next(y, ri)?`. O(1).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] unless `ri < rewards().len()`.
    pub fn next_row(&self, ri: usize) -> Result<&[usize]> {
        check_index("reward", ri, self.rewards.len())?;
        Ok(self.next_row_unchecked(ri))
    }

    pub(crate) fn next_row_unchecked(&self, ri: usize) -> &[usize] {
        let ny = self.values.len();
        &self.next_t[ri * ny..(ri + 1) * ny]
    }

    /// The index of y' = max(y, r)/γ for lattice index `y` and reward index
    /// `ri`; returns [`YLattice::saturated`] when y' ≥ r_max, and the
    /// saturated class again for `y = saturated()` (it absorbs). O(1).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] unless `y ≤ len()` and `ri < rewards().len()`.
    pub fn next(&self, y: usize, ri: usize) -> Result<usize> {
        check_index("y-lattice point", y, self.values.len() + 1)?;
        check_index("reward", ri, self.rewards.len())?;
        Ok(self.next_unchecked(y, ri))
    }

    /// [`YLattice::next`] for valid indices; the saturated class absorbs
    /// (crate internal).
    pub(crate) fn next_unchecked(&self, y: usize, ri: usize) -> usize {
        if y >= self.values.len() {
            self.values.len()
        } else {
            self.next[y * self.rewards.len() + ri]
        }
    }
}
