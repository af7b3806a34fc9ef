//! Allocation policies: claims (or vote shares, or outlier p-values) in, a
//! [`Selection`] (its inclusion probabilities `π`) out.
//!
//! Draw the winners with any exact sampler of [`crate::sampler`]; the
//! policies only decide who is certain, who is excluded, and the lottery
//! chances in between.

use crate::error::{Error, Result, check_finite, check_len};
use crate::probs::{Selection, check_claims, check_k, inclusion_probs, rank_by_claim};
use mlcore::check;
use ndarray::ArrayView2;

/// A claims-based allocation policy.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Policy {
    /// The deterministic baseline: the `k` largest claims (ties to the
    /// smaller index) get `π = 1`, everyone else 0.
    #[default]
    TopK,
    /// Broome-fair lottery over everyone: `πᵢ = min(1, κcᵢ)`, `Σπ = k`
    /// ([`inclusion_probs`]).
    FullLottery,
    /// Partial Broome-fair lottery with parameter `p ∈ [0, 1]`: the top
    /// `u = round(pk)` are selected outright, the bottom
    /// `l = round(n − (2 − p)k)` are excluded, and a Broome-fair lottery among
    /// the `2(1 − p)k` in between fills the `k − u` remaining slots. `p = 1`
    /// is top-k; `p = 0` a lottery among the top `2k`.
    PartialLottery {
        /// Share of slots given outright.
        p: f64,
    },
    /// The official code's second parametrisation: `r = round(frac_k·k)`
    /// slots are randomised, the top `k − r` are selected outright, and a
    /// Broome-fair lottery among the next `round(frac_n·n)` candidates (by
    /// claim) fills the `r` slots.
    RandomizationRate {
        /// Fraction of slots randomised, in `[0, 1]`.
        frac_k: f64,
        /// Size of the lottery pool as a fraction of `n`, in `[0, 1]`.
        frac_n: f64,
    },
}

fn check_unit(v: f64, name: &'static str) -> Result<()> {
    Ok(check::closed_interval(
        v,
        0.0,
        1.0,
        name,
        "a value in [0, 1]",
    )?)
}

/// `π` with the first `certain` ranked units at 1, a Broome-fair lottery
/// among ranks `certain..certain + pool` for `slots` slots, the rest 0.
fn ranked_partial(
    claims: &[f64],
    order: &[usize],
    certain: usize,
    pool: usize,
    slots: usize,
) -> Result<Selection> {
    let n = claims.len();
    let mut pi = vec![0.0; n];
    for &i in &order[..certain] {
        pi[i] = 1.0;
    }
    if slots > 0 {
        let members = &order[certain..certain + pool];
        let sub: Vec<f64> = members.iter().map(|&i| claims[i]).collect();
        let sub_pi = inclusion_probs(&sub, slots)?;
        for (&i, &p) in members.iter().zip(&sub_pi) {
            pi[i] = p;
        }
    }
    Selection::new(pi)
}

impl Policy {
    /// Validates the policy's parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `p`, `frac_k` or `frac_n` outside `[0, 1]` (or NaN).
    pub fn check(&self) -> Result<()> {
        match *self {
            Policy::TopK | Policy::FullLottery => Ok(()),
            Policy::PartialLottery { p } => check_unit(p, "p"),
            Policy::RandomizationRate { frac_k, frac_n } => {
                check_unit(frac_k, "frac_k")?;
                check_unit(frac_n, "frac_n")
            }
        }
    }

    /// The inclusion probabilities of the policy on these claims. O(n log n).
    ///
    /// # Errors
    /// As [`check_claims`], [`check_k`] and [`Policy::check`];
    /// [`Error::InvalidPartial`] when `n − (2 − p)k < 0` (the partial lottery
    /// needs `k ≤ n/(2 − p)`) or when a pool is smaller than its slots or
    /// runs past `n`; [`Error::TooFewPositiveClaims`] when a lottery's pool
    /// (or, for [`Policy::FullLottery`], the population) has fewer positive
    /// claims than slots.
    pub fn selection(&self, claims: &[f64], k: usize) -> Result<Selection> {
        self.check()?;
        check_claims(claims)?;
        let n = claims.len();
        check_k(k, n)?;
        match *self {
            Policy::FullLottery => Selection::proportional(claims, k),
            Policy::TopK => {
                let order = rank_by_claim(claims);
                ranked_partial(claims, &order, k, 0, 0)
            }
            Policy::PartialLottery { p } => {
                let (nf, kf) = (n as f64, k as f64);
                let l = nf - (2.0 - p) * kf;
                if l < 0.0 {
                    return Err(Error::InvalidPartial {
                        p,
                        reason: format!("n − (2 − p)k = {l} < 0: needs k ≤ n/(2 − p)"),
                    });
                }
                let u = ((p * kf).round() as usize).min(k);
                let l = (l.round() as usize).min(n - u);
                let pool = n - u - l;
                let slots = k - u;
                if pool < slots {
                    return Err(Error::InvalidPartial {
                        p,
                        reason: format!("pool of {pool} for {slots} slots"),
                    });
                }
                let order = rank_by_claim(claims);
                ranked_partial(claims, &order, u, pool, slots)
            }
            Policy::RandomizationRate { frac_k, frac_n } => {
                let r = ((frac_k * k as f64).round() as usize).min(k);
                let det = k - r;
                let pool = (frac_n * n as f64).round() as usize;
                if r > 0 && (pool < r || det + pool > n) {
                    return Err(Error::InvalidPartial {
                        p: frac_k,
                        reason: format!(
                            "pool of {pool} after {det} certain picks for {r} slots (n = {n})"
                        ),
                    });
                }
                let order = rank_by_claim(claims);
                let pool = if r == 0 { 0 } else { pool };
                ranked_partial(claims, &order, det, pool, r)
            }
        }
    }
}

fn check_unit_vector(v: &[f64], what: &'static str) -> Result<()> {
    check_finite(v, what)?;
    match v.iter().position(|x| !(0.0..=1.0).contains(x)) {
        Some(i) => Err(Error::ProbOutOfRange { i, value: v[i] }),
        None => Ok(()),
    }
}

/// Bootstrap vote shares (uncertainty-driven procedure (i)):
/// `vᵢ = (1/B)·Σ_b 1[score_b(i) ≥ t]`, `t` the `k`-th largest main score.
///
/// `boot_scores` is `B × n` (one row per bootstrap model; the paper uses
/// B = 11 models on 50% subsamples). O(B·n + n log n).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`] for any score,
/// [`Error::LengthMismatch`] when the columns differ from `n`, [`Error::InvalidK`].
pub fn bootstrap_vote_shares(
    main_scores: &[f64],
    boot_scores: ArrayView2<'_, f64>,
    k: usize,
) -> Result<Vec<f64>> {
    if main_scores.is_empty() {
        return Err(Error::EmptyInput {
            what: "main_scores",
        });
    }
    if boot_scores.nrows() == 0 {
        return Err(Error::EmptyInput {
            what: "boot_scores",
        });
    }
    let n = main_scores.len();
    check_len(boot_scores.ncols(), n, "boot_scores columns")?;
    check_k(k, n)?;
    for (i, &s) in main_scores.iter().enumerate() {
        if !s.is_finite() {
            return Err(Error::NonFinite {
                what: "main_scores",
                i,
                value: s,
            });
        }
    }
    if let Some((idx, &s)) = boot_scores.iter().enumerate().find(|(_, s)| !s.is_finite()) {
        return Err(Error::NonFinite {
            what: "boot_scores",
            i: idx,
            value: s,
        });
    }
    let order = rank_by_claim(main_scores);
    let t = main_scores[order[k - 1]];
    let b = boot_scores.nrows() as f64;
    Ok((0..n)
        .map(|i| boot_scores.column(i).iter().filter(|&&s| s >= t).count() as f64 / b)
        .collect())
}

/// The uncertainty lottery on bootstrap vote shares: everyone with `vᵢ = 1`
/// is selected, and the remaining slots go to a Broome-fair lottery over the
/// units with `0 < vᵢ < 1`, weighted by `vᵢ` (capped proportional,
/// [`inclusion_probs`]).
///
/// Where the paper is silent (documented choices): if more than `k` units
/// have `v = 1`, the `k` with the largest `scores` among them are selected;
/// if fewer units have `0 < v < 1` than there are slots left, they are all
/// selected and the rest go to the largest `scores` among `v = 0`.
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ProbOutOfRange`]
/// for votes outside `[0, 1]`, [`Error::LengthMismatch`], [`Error::InvalidK`].
pub fn uncertainty_lottery(votes: &[f64], scores: &[f64], k: usize) -> Result<Selection> {
    check_unit_vector(votes, "votes")?;
    let n = votes.len();
    check_len(scores.len(), n, "scores")?;
    for (i, &s) in scores.iter().enumerate() {
        if !s.is_finite() {
            return Err(Error::NonFinite {
                what: "scores",
                i,
                value: s,
            });
        }
    }
    check_k(k, n)?;
    let order = rank_by_claim(scores);
    let mut pi = vec![0.0; n];
    let sure: Vec<usize> = order.iter().copied().filter(|&i| votes[i] >= 1.0).collect();
    if sure.len() >= k {
        for &i in &sure[..k] {
            pi[i] = 1.0;
        }
        return Selection::new(pi);
    }
    for &i in &sure {
        pi[i] = 1.0;
    }
    let slots = k - sure.len();
    let pool: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| votes[i] > 0.0 && votes[i] < 1.0)
        .collect();
    if pool.len() >= slots {
        let w: Vec<f64> = pool.iter().map(|&i| votes[i]).collect();
        let sub = inclusion_probs(&w, slots)?;
        for (&i, &p) in pool.iter().zip(&sub) {
            pi[i] = p;
        }
    } else {
        for &i in &pool {
            pi[i] = 1.0;
        }
        let rest = slots - pool.len();
        for &i in order.iter().filter(|&&i| votes[i] <= 0.0).take(rest) {
            pi[i] = 1.0;
        }
    }
    Selection::new(pi)
}

/// Euclidean distance of each row of `x` to the mean row of `train`:
/// the non-conformity score of the paper's conformal outlier procedure.
/// O((m + r)·d).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::LengthMismatch`]
/// when the column counts differ.
pub fn distance_to_mean(train: ArrayView2<'_, f64>, x: ArrayView2<'_, f64>) -> Result<Vec<f64>> {
    if train.nrows() == 0 || train.ncols() == 0 {
        return Err(Error::EmptyInput { what: "train" });
    }
    check_len(x.ncols(), train.ncols(), "x columns")?;
    for (what, a) in [("train", &train), ("x", &x)] {
        if let Some((i, &v)) = a.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(Error::NonFinite { what, i, value: v });
        }
    }
    // Column means summed pairwise (validated above, so no error here).
    let mean = mlcore::stats::mean_axis(train, ndarray::Axis(0))?;
    Ok(x.rows()
        .into_iter()
        .map(|r| {
            r.iter()
                .zip(&mean)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt()
        })
        .collect())
}

/// Conformal outlier p-values: `pᵢ = (1 + #{j : calⱼ ≥ testᵢ})/(m + 1)` for
/// non-conformity scores (larger = more unusual), `m` calibration scores.
/// Under exchangeability `P(p ≤ α) ≤ α`. O((m + r) log m).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`].
pub fn conformal_outlier_pvalues(calibration: &[f64], test: &[f64]) -> Result<Vec<f64>> {
    if calibration.is_empty() {
        return Err(Error::EmptyInput {
            what: "calibration",
        });
    }
    for (what, v) in [("calibration", calibration), ("test", test)] {
        if let Some((i, &x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(Error::NonFinite { what, i, value: x });
        }
    }
    let mut cal = calibration.to_vec();
    cal.sort_by(f64::total_cmp);
    let m = cal.len() as f64;
    Ok(test
        .iter()
        .map(|&t| {
            let below = cal.partition_point(|&c| c < t);
            (1.0 + (cal.len() - below) as f64) / (m + 1.0)
        })
        .collect())
}

/// The outlier lottery (uncertainty-driven procedure (ii)): among the `k`
/// largest claims, the non-outliers (`pᵢ > α`) are selected outright; the
/// slots the outliers among them would have taken are filled uniformly at
/// random among all outliers (`pᵢ ≤ α`), `π = slots/#outliers`.
///
/// Where the paper is silent (documented choice): with fewer outliers than
/// slots, all outliers are selected and the rest go to the next
/// non-outliers by claim.
///
/// # Errors
/// As [`check_claims`] and [`check_k`]; [`Error::LengthMismatch`];
/// [`Error::ProbOutOfRange`] / [`Error::NonFinite`] for p-values;
/// [`Error::InvalidParameter`] for `α ∉ (0, 1)`.
pub fn outlier_lottery(claims: &[f64], pvalues: &[f64], alpha: f64, k: usize) -> Result<Selection> {
    check_claims(claims)?;
    let n = claims.len();
    check_len(pvalues.len(), n, "pvalues")?;
    check_unit_vector(pvalues, "pvalues")?;
    check::open_interval(alpha, 0.0, 1.0, "alpha", "0 < alpha < 1")?;
    check_k(k, n)?;
    let order = rank_by_claim(claims);
    let outlier = |i: usize| pvalues[i] <= alpha;
    let mut pi = vec![0.0; n];
    let mut kept = 0;
    for &i in order.iter().take(k) {
        if !outlier(i) {
            pi[i] = 1.0;
            kept += 1;
        }
    }
    let slots = k - kept;
    let outliers: Vec<usize> = (0..n).filter(|&i| outlier(i)).collect();
    if outliers.len() >= slots {
        if slots > 0 {
            let p = slots as f64 / outliers.len() as f64;
            for &i in &outliers {
                pi[i] = p;
            }
        }
    } else {
        for &i in &outliers {
            pi[i] = 1.0;
        }
        let rest = slots - outliers.len();
        let fill: Vec<usize> = order
            .iter()
            .copied()
            .filter(|&i| pi[i] == 0.0 && !outlier(i))
            .take(rest)
            .collect();
        for i in fill {
            pi[i] = 1.0;
        }
    }
    Selection::new(pi)
}
