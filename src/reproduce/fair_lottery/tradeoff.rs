//! The paper's utility / systemic-exclusion trade-off, decided over seeds
//! (each seed a fresh population and fresh decision-maker noise) with
//! bootstrap intervals, on two populations: synthetic calibrated claims
//! ([`synthetic`]) and one-vs-rest scores of a classifier fitted to the
//! vendored digits ([`digits`]).

use super::{K, M, N, SIGMA};
use crate::runner::{BoxError, Check, Figure, Relation};
use fair_lottery::metrics::{expected_ser, expected_utility};
use fair_lottery::policy::Policy;
use fair_lottery::sim::{ClaimDistribution, noisy_claims};
use mlcore::sampling::{WorkspaceRng, seeded};
use mlcore::stats::bootstrap_interval;
use ndarray::ArrayView1;
use rand::RngExt;

/// One of the paper's randomisation rates (its table: Swiss data, selection
/// rate 25%, the rates the bootstrap-variance method chose per model).
#[derive(Debug, Clone, Copy)]
pub struct PaperRate {
    /// The model whose rates these are.
    pub model: &'static str,
    /// Fraction of slots randomised.
    pub slots: f64,
    /// Fraction of people in the lottery.
    pub people: f64,
    /// Largest utility loss (points) the paper supports at these rates.
    pub loss_max: f64,
    /// Where `loss_max` comes from.
    pub loss_source: &'static str,
}

/// The paper's table at selection rate 25%: % of slots randomised and % of
/// people in the lottery per model.
pub const PAPER_RATES: [PaperRate; 3] = [
    PaperRate {
        model: "LR",
        slots: 0.140,
        people: 0.068,
        loss_max: 1.5,
        loss_source: "paper table (25% selection): the randomised methods lose 0.1–1.4 points and partial BF at \
                      the LR rates 0.3 (63.1 → 62.8); issue 33: ≤ 1.5 points",
    },
    PaperRate {
        model: "RF",
        slots: 0.322,
        people: 0.150,
        loss_max: 1.5,
        loss_source: "paper table (25% selection): the randomised methods lose 0.1–1.4 points and partial BF at \
                      the RF rates 0.7 (64.4 → 63.7); issue 33: ≤ 1.5 points",
    },
    PaperRate {
        model: "DT",
        slots: 0.737,
        people: 0.390,
        loss_max: 4.0,
        loss_source: "paper table (25% selection): partial BF at the DT rates loses 4.0 points (62.9 → 58.9); \
                      issue 33's ≤ 1.5 is the bootstrap-variance method's loss (1.4), which the paper's own \
                      partial BF exceeds at these rates",
    },
];

/// The policy of a paper rate: the top k − r outright, a Broome-fair lottery
/// among the next `people·n` for the r = `slots·k` randomised slots.
pub fn rate_policy(r: &PaperRate) -> Policy {
    Policy::RandomizationRate {
        frac_k: r.slots,
        frac_n: r.people,
    }
}

/// The SER cut issue 33 asks for (relative to deterministic top-k).
pub const SER_CUT: f64 = 0.5;
/// Confidence of the bootstrap intervals.
pub const CONFIDENCE: f64 = 0.95;
/// Bootstrap resamples.
pub const RESAMPLES: usize = 10_000;

/// Per-seed results: utility loss (points) and relative SER cut per policy.
pub struct Tradeoff {
    /// Which population (names the checks).
    pub population: &'static str,
    /// People per seed.
    pub n: usize,
    /// Goods per decision maker.
    pub k: usize,
    /// `loss[p][s]`: 100·(U_top − U_p) on seed s.
    pub loss: Vec<Vec<f64>>,
    /// `cut[p][s]`: 1 − SER_p / SER_top on seed s.
    pub cut: Vec<Vec<f64>>,
    /// Mean SER of top-k over seeds.
    pub ser_top: f64,
    /// Mean SER per policy over seeds.
    pub ser: Vec<f64>,
    /// Mean top-k utility (points).
    pub utility_top: f64,
}

/// One seed's population: the claims every decision maker starts from and
/// each person's outcome (its probability or its realised 0/1 label), whose
/// mean over the selected is the utility.
pub struct Population {
    /// Claims (scores in [0, 1]).
    pub claims: Vec<f64>,
    /// Outcome per person.
    pub truth: Vec<f64>,
}

/// Name of the synthetic population.
pub const SYNTHETIC: &str = "synthetic";
/// Name of the digits population.
pub const DIGITS: &str = "digits one-vs-rest";

/// Synthetic calibrated claims: q ~ U(0, 1), n = 1000; claims = outcomes = q.
pub fn synthetic(_s: usize, rng: &mut WorkspaceRng) -> Result<Population, BoxError> {
    let q = ClaimDistribution::Uniform.sample(N, rng)?;
    Ok(Population {
        claims: q.clone(),
        truth: q,
    })
}

/// One-vs-rest scores on the digits pool: seed `s` targets digit `s mod 10`;
/// the population is a bootstrap resample (with replacement, the pool's
/// size) of the classifier's pool rows; claim = the fitted P̂(y = d | x),
/// outcome = 1[y = d] (the paper's utility: % of the selected with a
/// positive label).
pub fn digits<'a>(
    probs: &'a ndarray::Array2<f64>,
    labels: &'a [usize],
) -> impl Fn(usize, &mut WorkspaceRng) -> Result<Population, BoxError> + 'a {
    move |s, rng| {
        let (n, classes) = probs.dim();
        let d = s % classes;
        let (mut claims, mut truth) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let i = rng.random_range(0..n);
            claims.push(probs[[i, d]].clamp(0.0, 1.0));
            truth.push(f64::from(u8::from(labels[i] == d)));
        }
        Ok(Population { claims, truth })
    }
}

/// Runs `seeds` populations from `population` with `rounds` noise draws each
/// for the SER of m = 10 decision makers (σ = 0.025), `k` = 25% of `n`
/// goods (the paper's table). Utility is the mean outcome among the
/// selected on the noise-free claims, as in the official utility experiments.
pub fn run(
    name: &'static str,
    seeds: usize,
    rounds: usize,
    seed: u64,
    population: impl Fn(usize, &mut WorkspaceRng) -> Result<Population, BoxError>,
) -> Result<Tradeoff, BoxError> {
    // The three paper rates, then the full lottery.
    let mut policies: Vec<Policy> = PAPER_RATES.iter().map(rate_policy).collect();
    policies.push(Policy::FullLottery);
    let np = policies.len();
    let mut loss = vec![Vec::with_capacity(seeds); np];
    let mut cut = vec![Vec::with_capacity(seeds); np];
    let (mut ser_top_sum, mut ser_sum, mut u_top_sum) = (0.0, vec![0.0; np], 0.0);
    let (mut n, mut k) = (0, 0);
    for s in 0..seeds {
        let mut rng = seeded(seed.wrapping_add(7919 * s as u64));
        let Population { claims: q, truth } = population(s, &mut rng)?;
        n = q.len();
        k = (n as f64 * K as f64 / N as f64).round() as usize;
        let u_top = 100.0 * expected_utility(Policy::TopK.selection(&q, k)?.pi(), &truth)?;
        u_top_sum += u_top;
        // SER: the same noisy claims for every policy (common random numbers).
        let mut ser_top = 0.0;
        let mut ser = vec![0.0; np];
        for _ in 0..rounds {
            let mut top_pis = Vec::with_capacity(M);
            let mut pis: Vec<Vec<Vec<f64>>> = vec![Vec::with_capacity(M); np];
            for _ in 0..M {
                let c = noisy_claims(&q, SIGMA, &mut rng)?;
                top_pis.push(Policy::TopK.selection(&c, k)?.into_pi());
                for (j, p) in policies.iter().enumerate() {
                    pis[j].push(p.selection(&c, k)?.into_pi());
                }
            }
            ser_top += expected_ser(&top_pis)? / rounds as f64;
            for j in 0..np {
                ser[j] += expected_ser(&pis[j])? / rounds as f64;
            }
        }
        ser_top_sum += ser_top;
        for (j, p) in policies.iter().enumerate() {
            let u = 100.0 * expected_utility(p.selection(&q, k)?.pi(), &truth)?;
            loss[j].push(u_top - u);
            cut[j].push(1.0 - ser[j] / ser_top);
            ser_sum[j] += ser[j];
        }
    }
    let sn = seeds as f64;
    Ok(Tradeoff {
        population: name,
        n,
        k,
        loss,
        cut,
        ser_top: ser_top_sum / sn,
        ser: ser_sum.iter().map(|s| s / sn).collect(),
        utility_top: u_top_sum / sn,
    })
}

/// With shared claims nobody outside the top k − r and the pool is ever
/// selected: SER ≥ 1 − (k − r + pool)/n, whatever the lottery (r and the
/// pool rounded as [`Policy::RandomizationRate`] does).
pub fn ser_floor(r: &PaperRate, n: usize, k: usize) -> f64 {
    let r_slots = (r.slots * k as f64).round();
    let pool = (r.people * n as f64).round();
    1.0 - (k as f64 - r_slots + pool) / n as f64
}

/// The largest relative SER cut vs top-k (SER 1 − k/n) the floor allows.
pub fn max_cut(r: &PaperRate, n: usize, k: usize) -> f64 {
    1.0 - ser_floor(r, n, k) / (1.0 - k as f64 / n as f64)
}

/// The mean (pairwise sum; NaN for no values).
fn mean(v: &[f64]) -> f64 {
    mlcore::stats::pairwise_sum(v) / v.len() as f64
}

/// The checks and figures of the trade-off.
pub fn checks(t: &Tradeoff, seed: u64) -> Result<(Vec<Check>, Vec<Figure>), BoxError> {
    let seeds = t.loss[0].len();
    let boot = |v: &[f64], s: u64| {
        bootstrap_interval(ArrayView1::from(v), mean, RESAMPLES, CONFIDENCE, seed ^ s)
    };
    let mut checks = Vec::new();
    let mut figures = vec![
        Figure::new(
            format!(
                "{}: expected utility, top-k (points, mean over seeds)",
                t.population
            ),
            t.utility_top,
        ),
        Figure::new(
            format!(
                "{}: expected SER, top-k (m = 10, σ = 0.025, mean over seeds)",
                t.population
            ),
            t.ser_top,
        ),
    ];
    for (j, r) in PAPER_RATES.iter().enumerate() {
        let what = format!(
            "{}: partial lottery at the paper's {} rates ({:.1}% of slots, {:.1}% of people)",
            t.population,
            r.model,
            100.0 * r.slots,
            100.0 * r.people
        );
        let iv = boot(&t.loss[j], 11 + j as u64)?;
        checks.push(
            Check::new(
                format!(
                    "utility loss vs top-k (points), {what}; bootstrap 95% interval of the mean"
                ),
                mean(&t.loss[j]),
                Relation::IntervalBelow,
                r.loss_max,
                r.loss_source,
            )
            .with_interval(iv.lo, iv.hi)
            .with_seeds(seeds),
        );
        let iv = boot(&t.cut[j], 21 + j as u64)?;
        checks.push(
            Check::new(
                format!("relative SER cut vs top-k, {what}; bootstrap 95% interval of the mean"),
                mean(&t.cut[j]),
                Relation::IntervalAbove,
                SER_CUT,
                "issue 33: the partial lottery at the paper's randomisation rates cuts SER (P7's formula, m = 10) \
                 by ≥ 50% relative to deterministic top-k",
            )
            .with_interval(iv.lo, iv.hi)
            .with_seeds(seeds),
        );
        let floor = ser_floor(r, t.n, t.k);
        figures.push(
            Figure::new(format!("expected SER, {what}"), t.ser[j]).with_target(format!(
                "shared-claims floor 1 − (k − r + pool)/n = {floor:.3}, i.e. a cut of at most {:.1}% of 1 − k/n",
                100.0 * max_cut(r, t.n, t.k)
            )),
        );
    }
    let j = PAPER_RATES.len();
    let iv = boot(&t.cut[j], 31)?;
    if t.population != SYNTHETIC {
        figures.push(
            Figure::new(
                format!(
                    "{}: relative SER cut vs top-k, full BF lottery",
                    t.population
                ),
                mean(&t.cut[j]),
            )
            .with_target(format!(
                "bootstrap 95% interval [{:.3}, {:.3}]",
                iv.lo, iv.hi
            )),
        );
        figures.push(Figure::new(
            format!(
                "{}: utility loss vs top-k (points), full BF lottery",
                t.population
            ),
            mean(&t.loss[j]),
        ));
        return Ok((checks, figures));
    }
    checks.push(
        Check::new(
            format!(
                "{}: relative SER cut vs top-k, full Broome-fair lottery (official SER experiment); bootstrap 95% interval",
                t.population
            ),
            mean(&t.cut[j]),
            Relation::IntervalAbove,
            SER_CUT,
            "issue 33 (SER cut ≥ 50% vs top-k) at the official SER experiment: claims_known/systemic_exclusion.ipynb, \
             uniform claims, n = 1000, selection 25%, σ = 0.025, m = 10, partial = 0 (the full BF lottery in the \
             official code)",
        )
        .with_interval(iv.lo, iv.hi)
        .with_seeds(seeds),
    );
    figures.push(Figure::new(
        format!("{}: expected SER, full BF lottery", t.population),
        t.ser[j],
    ));
    figures.push(Figure::new(
        format!(
            "{}: utility loss vs top-k (points), full BF lottery",
            t.population
        ),
        mean(&t.loss[j]),
    ));
    Ok((checks, figures))
}
