//! Tuning RAPS and the softmax temperature (the official code's
//! `pick_kreg`, `pick_lamda_size`, and a working temperature fit).

use crate::calibrate::{
    QuantileRule, SplitConformal, check_alpha, check_labels, check_probabilities, rows,
};
use crate::error::{Error, Result};
use crate::matching::true_rank;
use crate::score::Raps;
use ndarray::{Array2, ArrayView2, Axis};
use rand::Rng;

/// The official grid for λ.
pub const LAMBDA_GRID: [f64; 5] = [0.001, 0.01, 0.1, 0.2, 0.5];

/// `k_reg* = 1 +` the (1−α) "higher" quantile of the true labels' 0-based ranks. O(nK).
///
/// # Errors
/// As [`check_probabilities`] and [`check_labels`], [`Error::AlphaOutOfRange`].
pub fn pick_k_reg(probs: ArrayView2<'_, f64>, labels: &[usize], alpha: f64) -> Result<usize> {
    check_alpha(alpha)?;
    check_probabilities(probs)?;
    check_labels(probs, labels)?;
    let probs = probs.as_standard_layout();
    let mut ranks: Vec<usize> = rows(&probs)
        .zip(labels)
        .map(|(p, &y)| true_rank(p, y) - 1)
        .collect();
    ranks.sort_unstable();
    let index = ((ranks.len() - 1) as f64 * (1.0 - alpha)).ceil() as usize;
    Ok(ranks[index] + 1)
}

/// `λ*`: the grid value whose RAPS sets (calibrated and measured on the same
/// tuning data, as in the official code) have the smallest mean size; the
/// first one wins ties. O(|grid| · nK log K).
///
/// # Errors
/// [`Error::EmptyInput`] for an empty grid, [`Error::NegativeLambda`], and as
/// [`SplitConformal::calibrate`].
pub fn pick_lambda_by_size<R: Rng + ?Sized>(
    probs: ArrayView2<'_, f64>,
    labels: &[usize],
    alpha: f64,
    base: Raps,
    grid: &[f64],
    rule: QuantileRule,
    rng: &mut R,
) -> Result<f64> {
    let mut best: Option<(f64, f64)> = None;
    for &lambda in grid {
        let raps = Raps { lambda, ..base };
        raps.check()?;
        let sets = SplitConformal::new(raps, alpha, rule)?
            .calibrate(probs, labels, rng)?
            .predict(probs, rng)?;
        let size = sets.mean_size()?;
        if best.is_none_or(|(_, s)| size < s) {
            best = Some((lambda, size));
        }
    }
    best.map(|(l, _)| l)
        .ok_or(Error::EmptyInput { what: "grid" })
}

/// The official automatic tuning: hold out `fraction` (0.3 there) of the
/// calibration rows (the first ones, so shuffle beforehand), pick `k_reg`
/// then `λ` on them. Returns the tuned score; calibrate it on the other rows.
///
/// # Errors
/// As [`pick_k_reg`] and [`pick_lambda_by_size`]; [`Error::InvalidParameter`]
/// unless `0 < fraction < 1` leaves at least one row on each side.
pub fn tune_raps<R: Rng + ?Sized>(
    probs: ArrayView2<'_, f64>,
    labels: &[usize],
    alpha: f64,
    fraction: f64,
    base: Raps,
    rule: QuantileRule,
    rng: &mut R,
) -> Result<(Raps, usize)> {
    let n_tune = (probs.nrows() as f64 * fraction).floor() as usize;
    if !(fraction > 0.0 && fraction < 1.0) || n_tune == 0 || n_tune >= probs.nrows() {
        return Err(Error::InvalidParameter {
            name: "fraction",
            value: fraction,
            expected: "in (0, 1), leaving rows on both sides",
        });
    }
    check_labels(probs, labels)?;
    let (tp, tl) = (
        probs.slice_axis(Axis(0), (..n_tune).into()),
        &labels[..n_tune],
    );
    let k_reg = pick_k_reg(tp, tl, alpha)?;
    let lambda = pick_lambda_by_size(
        tp,
        tl,
        alpha,
        Raps { k_reg, ..base },
        &LAMBDA_GRID,
        rule,
        rng,
    )?;
    Ok((
        Raps {
            k_reg,
            lambda,
            ..base
        },
        n_tune,
    ))
}

fn check_logits(logits: ArrayView2<'_, f64>) -> Result<()> {
    Ok(mlcore::check::data(&logits, "logits")?)
}

/// Row-wise `softmax(z / T)`, computed stably: `exp((z − max z)/T)`
/// normalised, so neither a tiny `T` (where `z/T` overflows) nor huge logits
/// give NaN; as `T → 0` it tends to the uniform distribution over the
/// row's maxima. O(nK).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::NonPositiveTemperature`].
pub fn softmax(logits: ArrayView2<'_, f64>, temperature: f64) -> Result<Array2<f64>> {
    check_logits(logits)?;
    if !(temperature > 0.0 && temperature.is_finite()) {
        return Err(Error::NonPositiveTemperature { temperature });
    }
    let mut p = logits.to_owned();
    for mut row in p.rows_mut() {
        let m = row.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        // z − m ≤ 0 (−∞ only when it overflows, whose exp is the right 0).
        row.mapv_inplace(|v| ((v - m) / temperature).exp());
        let s = row.sum();
        row.mapv_inplace(|v| v / s);
    }
    Ok(p)
}

/// Mean negative log-likelihood of the labels under `softmax(β z)`, with its
/// first two derivatives in the inverse temperature `β = 1/T`:
/// `NLL(β) = mean(logsumexp(β zᵢ) − β z_{i,yᵢ})`, `NLL' = mean(E_β[z] − z_y)`,
/// `NLL'' = mean(Var_β[z]) ≥ 0` — the NLL is convex in β. O(nK).
///
/// # Errors
/// As [`fit_temperature`] for the logits and labels;
/// [`Error::NonPositiveTemperature`] (with `T = 1/β`) unless `β` is positive
/// and finite; [`Error::NonFinite`] when `β·z` or the moments of `z`
/// overflow f64 (logits near ±f64::MAX, or `β` near 1e300: a hostile-input
/// run found NaN returned there).
pub fn nll_inverse_temperature(
    logits: ArrayView2<'_, f64>,
    labels: &[usize],
    beta: f64,
) -> Result<(f64, f64, f64)> {
    check_logits(logits)?;
    check_labels(logits, labels)?;
    if !(beta > 0.0 && beta.is_finite()) {
        return Err(Error::NonPositiveTemperature {
            temperature: 1.0 / beta,
        });
    }
    let (f, g, h) = nll_beta(logits, labels, beta);
    if !(f.is_finite() && g.is_finite() && h.is_finite()) {
        return Err(Error::NonFinite {
            what: "NLL or its derivatives (β·z or z² overflows f64)",
            index: 0,
        });
    }
    Ok((f, g, h))
}

/// [`nll_inverse_temperature`] on validated input.
fn nll_beta(logits: ArrayView2<'_, f64>, labels: &[usize], beta: f64) -> (f64, f64, f64) {
    let (mut f, mut g, mut h) = (0.0, 0.0, 0.0);
    for (z, &y) in logits.rows().into_iter().zip(labels) {
        let m = z.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let (mut s, mut s1, mut s2) = (0.0, 0.0, 0.0);
        for &zj in z.iter() {
            let w = (beta * (zj - m)).exp();
            s += w;
            s1 += w * zj;
            s2 += w * zj * zj;
        }
        let (mean, second) = (s1 / s, s2 / s);
        f += beta * m + s.ln() - beta * z[y];
        g += mean - z[y];
        h += (second - mean * mean).max(0.0);
    }
    let n = labels.len() as f64;
    (f / n, g / n, h / n)
}

/// Temperature scaling by maximum likelihood: `T* = argmin_T NLL(softmax(z/T), y)`.
///
/// The official code left its temperature fit commented out ("not working
/// well"); this one minimises the NLL in `β = 1/T`, where it is convex, by
/// safeguarded Newton steps inside a bisection bracket on `NLL'(β)`. O(nK) per
/// iteration, converging to `|NLL'| ≤ 1e-12` in a few dozen iterations.
///
/// # Errors
/// Shape and finiteness errors; [`Error::InvalidParameter`] when the optimum
/// lies outside `T ∈ [1e-6, 1e6]` (e.g. perfectly separable data, where the
/// NLL decreases forever as `T → 0`).
pub fn fit_temperature(logits: ArrayView2<'_, f64>, labels: &[usize]) -> Result<f64> {
    check_logits(logits)?;
    check_labels(logits, labels)?;
    let (mut lo, mut hi) = (1e-6, 1e6);
    if nll_beta(logits, labels, hi).1 <= 0.0 {
        return Err(Error::InvalidParameter {
            name: "optimal temperature",
            value: 1.0 / hi,
            expected: "within [1e-6, 1e6]",
        });
    }
    if nll_beta(logits, labels, lo).1 > 0.0 {
        return Err(Error::InvalidParameter {
            name: "optimal temperature",
            value: 1.0 / lo,
            expected: "within [1e-6, 1e6]",
        });
    }
    let mut beta = 1.0;
    for _ in 0..200 {
        let (_, g, h) = nll_beta(logits, labels, beta);
        if g.abs() <= 1e-12 {
            break;
        }
        if g > 0.0 {
            hi = beta
        } else {
            lo = beta
        }
        let newton = beta - g / h;
        beta = if h > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            (lo * hi).sqrt()
        };
        if hi / lo < 1.0 + 1e-15 {
            break;
        }
    }
    Ok(1.0 / beta)
}
