//! Synthetic claims, the systemic-exclusion experiment across `m` decision
//! makers, and utility/fairness trade-off curves.

use crate::error::{Error, Result};
use crate::metrics::{expected_ser, expected_utility, realised_utility, systemic_exclusion};
use crate::policy::Policy;
use crate::probs::{Selection, check_claims};
use crate::sampler::{Design, FixedSizeSampler, Sampler};
use mlcore::check;
use mlcore::stats::Welford;
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// Synthetic claim distributions on `[0, 1]` (the official experiments' five
/// families; their exact parametrisation is reconstructed, the notebooks only
/// name them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClaimDistribution {
    /// `U[0, 1]`.
    Uniform,
    /// `N(mean, sd²)` truncated to `[0, 1]` (by rejection).
    TruncatedNormal {
        /// Mean.
        mean: f64,
        /// Standard deviation (> 0).
        sd: f64,
    },
    /// `1 − X`, `X` the truncated normal above: mass near 1 when `mean` is small.
    InverseNormal {
        /// Mean of `X`.
        mean: f64,
        /// Standard deviation of `X` (> 0).
        sd: f64,
    },
    /// `X − 1` with `X ~ Pareto(1, α)` truncated to `[1, 2]`: many small
    /// claims, a few large (inverse-CDF sampling).
    TruncatedPareto {
        /// Tail index `α > 0`.
        alpha: f64,
    },
    /// `1 −` the truncated Pareto claim: many large claims.
    InversePareto {
        /// Tail index `α > 0`.
        alpha: f64,
    },
}

impl ClaimDistribution {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-positive `sd`/`α`, a non-finite
    /// mean, or a truncated normal with under 1e-6 of its mass in `[0, 1]`.
    pub fn check(&self) -> Result<()> {
        match *self {
            ClaimDistribution::Uniform => Ok(()),
            ClaimDistribution::TruncatedNormal { mean, sd }
            | ClaimDistribution::InverseNormal { mean, sd } => {
                check::positive(sd, "sd")?;
                if !mean.is_finite() || (mean - 0.5).abs() > 0.5 + 5.0 * sd {
                    return Err(Error::InvalidParameter {
                        name: "mean",
                        value: mean,
                        expected: "within 5 sd of [0, 1]",
                    });
                }
                let (fa, fb, _) = truncation(mean, sd);
                if (fb - fa).is_nan() || fb - fa < 1e-6 {
                    return Err(Error::InvalidParameter {
                        name: "sd",
                        value: sd,
                        expected: "a truncated normal with at least 1e-6 of its mass in [0, 1]",
                    });
                }
                Ok(())
            }
            ClaimDistribution::TruncatedPareto { alpha }
            | ClaimDistribution::InversePareto { alpha } => {
                check::positive(alpha, "alpha")?;
                Ok(())
            }
        }
    }

    /// `n` independent claims. The truncated normal is drawn by inverting
    /// its distribution function (one uniform per claim, no rejection loop:
    /// a hostile-input run found the earlier rejection sampler looping
    /// practically forever at `sd = 1e308`), in the tail where `Φ` is
    /// accurate. O(n).
    ///
    /// # Errors
    /// As [`ClaimDistribution::check`]; [`mlcore::Error::TooLarge`] (as
    /// [`Error::Core`]) when `n` claims do not fit in memory.
    pub fn sample<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Result<Vec<f64>> {
        self.check()?;
        check::alloc_len(&[n], std::mem::size_of::<f64>(), "claims")?;
        let tn = |mean: f64, sd: f64, rng: &mut R| {
            let (fa, fb, sign) = truncation(mean, sd);
            let u: f64 = rng.random();
            let z = mlcore::special::norm_ppf(fa + u * (fb - fa));
            (mean + sign * sd * z).clamp(0.0, 1.0)
        };
        let tp = |alpha: f64, rng: &mut R| {
            let u: f64 = rng.random();
            let c = 1.0 - 2f64.powf(-alpha);
            (1.0 - u * c).powf(-1.0 / alpha) - 1.0
        };
        Ok((0..n)
            .map(|_| match *self {
                ClaimDistribution::Uniform => rng.random::<f64>(),
                ClaimDistribution::TruncatedNormal { mean, sd } => tn(mean, sd, rng),
                ClaimDistribution::InverseNormal { mean, sd } => 1.0 - tn(mean, sd, rng),
                ClaimDistribution::TruncatedPareto { alpha } => tp(alpha, rng).clamp(0.0, 1.0),
                ClaimDistribution::InversePareto { alpha } => 1.0 - tp(alpha, rng).clamp(0.0, 1.0),
            })
            .collect())
    }
}

/// The standardised truncation `[Φ(a), Φ(b)]` of `N(mean, sd²)` to `[0, 1]`,
/// reflected (`sign = −1`: `z ↦ −z`) when the interval lies in the upper
/// tail, so that both ends are computed where `Φ` keeps relative accuracy.
fn truncation(mean: f64, sd: f64) -> (f64, f64, f64) {
    let (a, b) = ((0.0 - mean) / sd, (1.0 - mean) / sd);
    if a > 0.0 {
        (
            mlcore::special::norm_cdf(-b),
            mlcore::special::norm_cdf(-a),
            -1.0,
        )
    } else {
        (
            mlcore::special::norm_cdf(a),
            mlcore::special::norm_cdf(b),
            1.0,
        )
    }
}

/// A decision maker's claims: `clip(cᵢ + εᵢ, 0, 1)`, `εᵢ ~ N(0, σ²)` (the
/// official SER experiment's model of decision makers whose models differ).
///
/// # Errors
/// As [`check_claims`]; [`Error::InvalidParameter`] for `σ < 0` or non-finite.
pub fn noisy_claims<R: Rng + ?Sized>(claims: &[f64], sigma: f64, rng: &mut R) -> Result<Vec<f64>> {
    check_claims(claims)?;
    check_sigma(sigma)?;
    if sigma == 0.0 {
        // Clipped like every other σ (claims above 1 used to pass through).
        return Ok(claims.iter().map(|&c| c.clamp(0.0, 1.0)).collect());
    }
    Ok(claims
        .iter()
        .map(|&c| (c + sigma * rng.sample::<f64, _>(StandardNormal)).clamp(0.0, 1.0))
        .collect())
}

fn check_sigma(sigma: f64) -> Result<()> {
    Ok(check::non_negative(sigma, "sigma")?)
}

/// The systemic-exclusion experiment: `m` decision makers, each applying
/// `policy` to its own noisy copy of the claims and drawing with `design`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SerSetup {
    /// Goods per decision maker.
    pub k: usize,
    /// Number of decision makers `m ≥ 1`.
    pub m: usize,
    /// Noise `σ ≥ 0` of each decision maker's claims (0: shared claims).
    pub sigma: f64,
    /// The allocation policy.
    pub policy: Policy,
    /// The sampler drawing each decision maker's winners.
    pub design: Design,
}

/// What [`simulate_ser`] measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SerReport {
    /// Mean over rounds of `(1/n)Σᵢ Π_d (1 − πᵢ⁽ᵈ⁾)` ([`expected_ser`]).
    pub expected_ser: f64,
    /// Mean over rounds of the realised SER ([`systemic_exclusion`]).
    pub simulated_ser: f64,
    /// Standard error of `simulated_ser` over rounds.
    pub simulated_se: f64,
    /// Mean over rounds and decision makers of [`expected_utility`].
    pub expected_utility: f64,
    /// Mean over rounds and decision makers of [`realised_utility`].
    pub simulated_utility: f64,
    /// Standard error of `simulated_utility` over rounds (of the per-round
    /// mean over decision makers).
    pub utility_se: f64,
    /// Rounds run.
    pub rounds: usize,
}

/// Runs `rounds` independent rounds of the SER experiment. With `σ = 0` the
/// selection and sampler are built once and shared; otherwise each decision
/// maker draws fresh noise every round. O(rounds·m·(policy + draw)).
///
/// # Errors
/// As the policy and sampler; [`Error::LengthMismatch`] for `utility`;
/// [`Error::InvalidParameter`] for `m = 0`, `rounds = 0` or a bad `σ`.
pub fn simulate_ser<R: Rng + ?Sized>(
    claims: &[f64],
    utility: &[f64],
    setup: &SerSetup,
    rounds: usize,
    rng: &mut R,
) -> Result<SerReport> {
    check_claims(claims)?;
    check_sigma(setup.sigma)?;
    if utility.len() != claims.len() {
        return Err(Error::LengthMismatch {
            what: "utility",
            expected: claims.len(),
            got: utility.len(),
        });
    }
    for (name, v) in [("m", setup.m), ("rounds", rounds)] {
        check::at_least(v, 1, name, "at least 1")?;
    }
    let n = claims.len();
    let shared = if setup.sigma == 0.0 {
        let sel = setup.policy.selection(claims, setup.k)?;
        let sampler = Sampler::build(setup.design, &sel)?;
        Some((sel, sampler))
    } else {
        None
    };
    let (mut exp_ser, mut sim_ser, mut exp_u, mut sim_u) = (
        Welford::new(),
        Welford::new(),
        Welford::new(),
        Welford::new(),
    );
    for _ in 0..rounds {
        let mut pis = Vec::with_capacity(setup.m);
        let mut draws = Vec::with_capacity(setup.m);
        let (mut eu, mut ru) = (0.0, 0.0);
        for _ in 0..setup.m {
            let fresh;
            let (sel, sampler): (&Selection, &Sampler) = match &shared {
                Some((s, sm)) => (s, sm),
                None => {
                    let c = noisy_claims(claims, setup.sigma, rng)?;
                    let sel = setup.policy.selection(&c, setup.k)?;
                    let sm = Sampler::build(setup.design, &sel)?;
                    fresh = (sel, sm);
                    (&fresh.0, &fresh.1)
                }
            };
            let d = sampler.sample(rng);
            eu += expected_utility(sel.pi(), utility)?;
            ru += realised_utility(&d, utility)?;
            pis.push(sel.pi().to_vec());
            draws.push(d);
        }
        exp_ser.push(expected_ser(&pis)?);
        sim_ser.push(systemic_exclusion(&draws, n)?);
        exp_u.push(eu / setup.m as f64);
        sim_u.push(ru / setup.m as f64);
    }
    Ok(SerReport {
        expected_ser: exp_ser.mean(),
        simulated_ser: sim_ser.mean(),
        simulated_se: sim_ser.standard_error(),
        expected_utility: exp_u.mean(),
        simulated_utility: sim_u.mean(),
        utility_se: sim_u.standard_error(),
        rounds,
    })
}

/// One point of a utility/fairness trade-off curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TradeoffPoint {
    /// The policy parameter (e.g. the fraction of slots randomised).
    pub frac: f64,
    /// Expected systemic exclusion rate across the `m` decision makers.
    pub ser: f64,
    /// Expected utility (mean over decision makers).
    pub utility: f64,
    /// Share of people with `0 < π < 1` (in a lottery), mean over decision makers.
    pub in_lottery: f64,
}

/// The trade-off curve: for each parameter `f` in `fracs`, the policy
/// `policy_of(f)` is applied by `m` decision makers (noise `σ`, averaged over
/// `rounds` noise draws; one round suffices for `σ = 0`) and the exact
/// expected SER ([`expected_ser`]) and expected utility
/// ([`expected_utility`]) are recorded. No sampling: expectations only
/// depend on the marginals. O(|fracs|·rounds·m·n log n).
///
/// # Errors
/// As [`simulate_ser`] and the policies.
#[allow(clippy::too_many_arguments)]
pub fn tradeoff_curve<R: Rng + ?Sized>(
    claims: &[f64],
    utility: &[f64],
    k: usize,
    m: usize,
    sigma: f64,
    fracs: &[f64],
    policy_of: impl Fn(f64) -> Policy,
    rounds: usize,
    rng: &mut R,
) -> Result<Vec<TradeoffPoint>> {
    check_claims(claims)?;
    check_sigma(sigma)?;
    if utility.len() != claims.len() {
        return Err(Error::LengthMismatch {
            what: "utility",
            expected: claims.len(),
            got: utility.len(),
        });
    }
    for (name, v) in [("m", m), ("rounds", rounds)] {
        check::at_least(v, 1, name, "at least 1")?;
    }
    let n = claims.len() as f64;
    let mut out = Vec::with_capacity(fracs.len());
    for &f in fracs {
        let policy = policy_of(f);
        let (mut ser, mut u, mut lot) = (Welford::new(), Welford::new(), Welford::new());
        let rounds = if sigma == 0.0 { 1 } else { rounds };
        for _ in 0..rounds {
            let mut pis = Vec::with_capacity(m);
            for _ in 0..m {
                let c = noisy_claims(claims, sigma, rng)?;
                let sel = policy.selection(&c, k)?;
                u.push(expected_utility(sel.pi(), utility)?);
                lot.push(sel.lottery().len() as f64 / n);
                pis.push(sel.into_pi());
            }
            ser.push(expected_ser(&pis)?);
        }
        out.push(TradeoffPoint {
            frac: f,
            ser: ser.mean(),
            utility: u.mean(),
            in_lottery: lot.mean(),
        });
    }
    Ok(out)
}
