//! Utility and systemic exclusion.

use crate::error::{Error, Result, check_finite, check_len as check_same_len};
use mlcore::check;
use mlcore::stats::pairwise_sum;

/// Expected utility of a lottery: `E[U] = Σᵢ πᵢ yᵢ / k` with `k = round(Σπ)`,
/// the mean utility (e.g. positive-label rate, or calibrated probability) of
/// the winners. O(n). Each term is divided by `k` before summing, so
/// utilities up to ±f64::MAX give a finite mean.
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::LengthMismatch`],
/// [`Error::ProbOutOfRange`] for a `πᵢ ∉ [0, 1]`, [`Error::InvalidK`] when
/// `Σπ` rounds to 0.
pub fn expected_utility(pi: &[f64], utility: &[f64]) -> Result<f64> {
    check_finite(pi, "pi")?;
    check_finite(utility, "utility")?;
    check_same_len(utility.len(), pi.len(), "utility")?;
    if let Some(i) = pi.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(Error::ProbOutOfRange { i, value: pi[i] });
    }
    let k = pi.iter().sum::<f64>().round();
    if k < 1.0 {
        return Err(Error::InvalidK { k: 0, n: pi.len() });
    }
    Ok(pi
        .iter()
        .zip(utility)
        .map(|(p, y)| p * (y / k))
        .sum::<f64>())
}

/// Realised utility of one draw: the mean of `y` over the winners. O(k).
/// Each term is divided by the number of winners before summing, so
/// utilities up to ±f64::MAX give a finite mean.
///
/// # Errors
/// [`Error::EmptyInput`] for no winners or no utilities, [`Error::NonFinite`],
/// [`Error::InvalidParameter`] for an index `≥ n`.
pub fn realised_utility(winners: &[usize], utility: &[f64]) -> Result<f64> {
    check_finite(utility, "utility")?;
    if winners.is_empty() {
        return Err(Error::EmptyInput { what: "winners" });
    }
    let (mut s, w) = (0.0, winners.len() as f64);
    for &i in winners {
        let y = utility.get(i).ok_or(Error::InvalidParameter {
            name: "winner index",
            value: i as f64,
            expected: "an index < n",
        })?;
        s += y / w;
    }
    Ok(s)
}

/// Systemic exclusion rate of one round: the fraction of the `n` people
/// selected by none of the `m` decision makers' winner sets:
/// `1 − |∪ⱼ Wⱼ| / n`. O(Σ kⱼ log Σ kⱼ) (the winners are sorted; nothing of
/// size `n` is allocated, so any `n` is accepted).
///
/// # Errors
/// [`Error::EmptyInput`] for `n = 0` or no decision makers;
/// [`Error::InvalidParameter`] for an index `≥ n`.
pub fn systemic_exclusion(draws: &[Vec<usize>], n: usize) -> Result<f64> {
    if n == 0 {
        return Err(Error::EmptyInput { what: "population" });
    }
    if draws.is_empty() {
        return Err(Error::EmptyInput { what: "draws" });
    }
    let mut hit: Vec<usize> = draws.iter().flatten().copied().collect();
    if let Some(&i) = hit.iter().find(|&&i| i >= n) {
        return Err(Error::InvalidParameter {
            name: "winner index",
            value: i as f64,
            expected: "an index < n",
        });
    }
    hit.sort_unstable();
    hit.dedup();
    Ok((n - hit.len()) as f64 / n as f64)
}

/// Expected systemic exclusion rate with independent lotteries:
/// `E[SER] = (1/n)·Σᵢ Π_{d=1}^{m} (1 − πᵢ⁽ᵈ⁾)` for the `m` decision makers'
/// inclusion probabilities (exact: each person's exclusions are independent
/// across decision makers, whatever the joint design within one). With one
/// shared `π`, `(1/n)Σ(1 − πᵢ)ᵐ`; for a deterministic top-k shared by all,
/// `1 − k/n` for every `m`. O(n·m).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::LengthMismatch`],
/// [`Error::ProbOutOfRange`].
pub fn expected_ser(pis: &[Vec<f64>]) -> Result<f64> {
    let first = pis.first().ok_or(Error::EmptyInput { what: "pis" })?;
    let n = first.len();
    if n == 0 {
        return Err(Error::EmptyInput { what: "pi" });
    }
    let mut excl = vec![1.0; n];
    for pi in pis {
        check_same_len(pi.len(), n, "pi")?;
        check_finite(pi, "pi")?;
        for (i, (e, &p)) in excl.iter_mut().zip(pi).enumerate() {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::ProbOutOfRange { i, value: p });
            }
            *e *= 1.0 - p;
        }
    }
    Ok(pairwise_sum(&excl) / n as f64)
}

/// `(1/n)Σᵢ(1 − πᵢ)ᵐ`: [`expected_ser`] for `m` decision makers sharing one `π`,
/// each term as `exp(m·ln(1 − πᵢ))` (`ln_1p`), exact for any `m` (no
/// integer power that wraps at 2³¹). O(n).
///
/// # Errors
/// As [`expected_ser`]; [`Error::InvalidParameter`] for `m = 0`.
pub fn expected_ser_shared(pi: &[f64], m: usize) -> Result<f64> {
    check::at_least(m, 1, "m", "at least one decision maker")?;
    expected_ser(&[pi.to_vec()])?;
    let excl: Vec<f64> = pi
        .iter()
        .map(|&p| (m as f64 * (-p).ln_1p()).exp())
        .collect();
    Ok(pairwise_sum(&excl) / pi.len() as f64)
}
