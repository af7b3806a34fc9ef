//! Design-theory checks: enumerated marginals of every sampler equal π (P3),
//! successive sampling's recursion against brute-force enumeration and the
//! spec's printed values (P5), the shared-claims SER identity (P7), and the
//! statistical checks of real draws against exact marginals (P4) and of the
//! simulated SER and utility against their closed forms (P7, P8).

use crate::runner::{BoxError, Check, Figure, Relation};
use fair_lottery::exact::{
    DesignTable, SYSTEMATIC_ORDERS_MAX, cps_design, pipage_design, sampford_design,
    successive_marginals, systematic_design, systematic_random_order_design,
};
use fair_lottery::metrics::expected_ser_shared;
use fair_lottery::policy::Policy;
use fair_lottery::probs::Selection;
use fair_lottery::sampler::{ConditionalPoisson, Design, FixedSizeSampler, Sampler, Successive};
use fair_lottery::sim::{SerSetup, simulate_ser};
use mlcore::sampling::seeded;
use mlcore::stats::{Alternative, binomial_test, t_interval};
use ndarray::ArrayView1;
use rand::RngExt;
use rand::seq::SliceRandom;

/// Tolerance of the enumerations (spec P3: 1e-9).
pub const EXACT_TOL: f64 = 1e-9;
/// Family-wise false-failure rate of the statistical checks (spec P4: < 1e-6).
pub const FAMILY_RATE: f64 = 1e-6;
/// Draws per design for P4 (spec: 2e4).
pub const P4_DRAWS: usize = 20_000;
/// The spec's second worked case.
pub const SPEC_CLAIMS: [f64; 6] = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1];

fn max_dev(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Successive sampling's marginals by brute force: every ordered sequence of
/// k distinct draws with its probability Π wᵢ/(W − drawn so far).
fn successive_brute_force(w: &[f64], k: usize) -> Vec<f64> {
    fn rec(w: &[f64], k: usize, taken: &mut Vec<usize>, left: f64, p: f64, pi: &mut [f64]) {
        if taken.len() == k {
            for &i in taken.iter() {
                pi[i] += p;
            }
            return;
        }
        for i in 0..w.len() {
            if w[i] > 0.0 && !taken.contains(&i) {
                taken.push(i);
                rec(w, k, taken, left - w[i], p * w[i] / left, pi);
                taken.pop();
            }
        }
    }
    let mut pi = vec![0.0; w.len()];
    rec(w, k, &mut Vec::new(), w.iter().sum(), 1.0, &mut pi);
    pi
}

/// P3 and P5 by enumeration, the spec's printed values, and P7's identity.
pub fn exactness_checks(seed: u64) -> Result<Vec<Check>, BoxError> {
    let mut rng = seeded(seed ^ 0xe7ac7);
    // Worst |marginal − π| per design, and structural defects (a set of the
    // wrong size, probabilities not summing to 1).
    let names = [
        "systematic (fixed random order, exact integration over U)",
        "systematic (uniformly random order, all m! orders)",
        "pipage (random pairing order, every coin flip)",
        "conditional Poisson (all k-subsets)",
        "Sampford (rejective formula, all k-subsets)",
        "successive (subset recursion vs brute-force ordered enumeration)",
    ];
    let mut worst = [0.0f64; 6];
    let mut defects = 0usize;
    let mut instances = 0usize;
    let check_table = |t: &DesignTable, k: usize, defects: &mut usize| {
        if !t.all_of_size(k) || (t.total() - 1.0).abs() > EXACT_TOL {
            *defects += 1;
        }
    };
    for n in 4..=9 {
        for rep in 0..4 {
            let claims: Vec<f64> = (0..n).map(|_| rng.random_range(0.01..1.0)).collect();
            let ks = [1, n / 2, n - 1, 1 + rep % (n - 1)];
            for &k in &ks {
                instances += 1;
                let sel = Selection::proportional(&claims, k)?;
                let m = sel.lottery().len();
                let mut order: Vec<usize> = (0..m).collect();
                order.shuffle(&mut rng);
                let t = systematic_design(&sel, &order)?;
                check_table(&t, k, &mut defects);
                worst[0] = worst[0].max(max_dev(&t.marginals(), sel.pi()));
                if m <= SYSTEMATIC_ORDERS_MAX {
                    let t = systematic_random_order_design(&sel)?;
                    check_table(&t, k, &mut defects);
                    worst[1] = worst[1].max(max_dev(&t.marginals(), sel.pi()));
                }
                order.shuffle(&mut rng);
                let t = pipage_design(&sel, &order)?;
                check_table(&t, k, &mut defects);
                worst[2] = worst[2].max(max_dev(&t.marginals(), sel.pi()));
                let cps = ConditionalPoisson::new(&sel)?;
                let t = cps_design(&cps, &sel)?;
                check_table(&t, k, &mut defects);
                worst[3] = worst[3].max(max_dev(&t.marginals(), sel.pi()));
                let t = sampford_design(&sel)?;
                check_table(&t, k, &mut defects);
                worst[4] = worst[4].max(max_dev(&t.marginals(), sel.pi()));
                if k <= 5 {
                    worst[5] = worst[5].max(max_dev(
                        &successive_marginals(&claims, k)?,
                        &successive_brute_force(&claims, k),
                    ));
                }
            }
        }
    }
    let mut checks: Vec<Check> = names
        .iter()
        .zip(worst)
        .map(|(name, w)| {
            Check::new(
                format!("P3: max |enumerated π − target π|, {name}; {instances} instances, n = 4…9"),
                w,
                Relation::AtMost,
                EXACT_TOL,
                "design theory (spec P3, issue 33): each design's exact marginals equal π; tolerance 1e-9 from \
                 the spec",
            )
        })
        .collect();
    checks.push(Check::new(
        "P1/P3: enumerated winner sets not of size k, or probabilities not summing to 1",
        defects as f64,
        Relation::AtMost,
        0.0,
        "spec P1 (exactly k distinct winners) and design theory (a distribution sums to 1, tolerance 1e-9)",
    ));

    // The spec's worked cases, printed to 3 and 4 decimals.
    let case_a = {
        let c = [3.0, 2.0, 1.0];
        let ideal = Selection::proportional(&c, 2)?;
        let succ = successive_marginals(&c, 2)?;
        max_dev(ideal.pi(), &[1.0, 2.0 / 3.0, 1.0 / 3.0]).max(max_dev(&succ, &[0.85, 0.733, 0.417]))
    };
    checks.push(Check::new(
        "c = [3, 2, 1], k = 2: max |π − spec| for the ideal [1, 2/3, 1/3] and successive [0.85, 0.733, 0.417]",
        case_a,
        Relation::AtMost,
        5e-4,
        "spec (Method, BF lottery): printed to 3 decimals, so tolerance half a unit of the last digit",
    ));
    let case_b = {
        let ideal = Selection::proportional(&SPEC_CLAIMS, 3)?;
        let succ = successive_marginals(&SPEC_CLAIMS, 3)?;
        max_dev(
            ideal.pi(),
            &[0.9643, 0.8571, 0.5357, 0.3214, 0.2143, 0.1071],
        )
        .max(max_dev(
            &succ,
            &[0.8033, 0.7679, 0.5992, 0.4023, 0.2810, 0.1464],
        ))
    };
    checks.push(Check::new(
        "c = [.9, .8, .5, .3, .2, .1], k = 3: max |π − spec| for the ideal and the successive marginals",
        case_b,
        Relation::AtMost,
        5e-5,
        "spec (Method, BF lottery): printed to 4 decimals, so tolerance half a unit of the last digit",
    ));

    // P7: deterministic top-k with shared claims: SER = 1 − k/n for every m.
    let (n, k) = (1000usize, 250usize);
    let claims: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
    let top = Policy::TopK.selection(&claims, k)?;
    let mut dev: f64 = 0.0;
    for m in 1..=10 {
        dev = dev.max((expected_ser_shared(top.pi(), m)? - (1.0 - k as f64 / n as f64)).abs());
    }
    checks.push(Check::new(
        "P7: |SER(top-k, shared claims) − (1 − k/n)|, n = 1000, k = 250, m = 1…10",
        dev,
        Relation::AtMost,
        1e-12,
        "spec P7: exactly 1 − k/n; tolerance 1e-12 (f64 rounding of a mean of 0/1 terms)",
    ));
    Ok(checks)
}

/// Units tested by P4: every unit of every instance, for every design.
struct Tested {
    label: &'static str,
    /// (successes, target π) per unit.
    counts: Vec<(u64, f64)>,
}

fn count_draws(n: usize, draws: impl Iterator<Item = Vec<usize>>) -> Vec<u64> {
    let mut c = vec![0u64; n];
    for d in draws {
        for i in d {
            c[i] += 1;
        }
    }
    c
}

/// P4: 2e4 real draws per design and instance, each unit's count against its
/// exact marginal by the exact two-sided binomial test; Bonferroni over every
/// unit of every design keeps the family-wise false-failure rate below 1e-6.
/// A unit with π ∈ {0, 1} must be drawn never / always.
pub fn statistical_marginal_checks(seed: u64) -> Result<Vec<Check>, BoxError> {
    let mut rng = seeded(seed ^ 0x9a4);
    let random20: Vec<f64> = (0..20).map(|_| rng.random_range(0.05..1.0)).collect();
    let instances: [(&[f64], usize); 2] = [(&SPEC_CLAIMS, 3), (&random20, 6)];
    let mut tested = Vec::new();
    for (design, label) in [
        (Design::Systematic, "systematic"),
        (Design::Pipage, "pipage"),
        (Design::ConditionalPoisson, "conditional Poisson"),
        (Design::Sampford, "Sampford"),
    ] {
        let mut counts = Vec::new();
        for &(claims, k) in &instances {
            let sel = Selection::proportional(claims, k)?;
            let sampler = Sampler::build(design, &sel)?;
            let c = count_draws(
                claims.len(),
                (0..P4_DRAWS).map(|_| sampler.sample(&mut rng)),
            );
            counts.extend(c.into_iter().zip(sel.pi().iter().copied()));
        }
        tested.push(Tested { label, counts });
    }
    let mut counts = Vec::new();
    for &(claims, k) in &instances {
        let exact = successive_marginals(claims, k)?;
        let s = Successive::new(claims, k)?;
        let c = count_draws(claims.len(), (0..P4_DRAWS).map(|_| s.sample(&mut rng)));
        counts.extend(c.into_iter().zip(exact));
    }
    tested.push(Tested {
        label: "successive (against its exact recursion)",
        counts,
    });
    let family: usize = tested.iter().map(|t| t.counts.len()).sum();
    let n = P4_DRAWS as u64;
    let mut checks = Vec::new();
    for t in &tested {
        let mut min_p: f64 = 1.0;
        for &(c, pi) in &t.counts {
            let p = if pi <= 0.0 || pi >= 1.0 {
                let want = if pi >= 1.0 { n } else { 0 };
                if c == want { 1.0 } else { 0.0 }
            } else {
                binomial_test(c, n, pi, Alternative::TwoSided)?
            };
            min_p = min_p.min(p);
        }
        let adjusted = (min_p * family as f64).min(1.0);
        checks.push(Check::new(
            format!(
                "P4: Bonferroni-adjusted min p-value, draws vs exact marginals, {} ({} units, {P4_DRAWS} draws each; family of {family})",
                t.label,
                t.counts.len()
            ),
            adjusted,
            Relation::AtLeast,
            FAMILY_RATE,
            "spec P4: empirical marginals of 2e4 draws match the exact π, family-wise false-failure rate < 1e-6 \
             (exact binomial tests, Bonferroni over the family)",
        ));
    }
    Ok(checks)
}

/// P7 and P8: the realised SER and utility of real draws (m decision makers
/// with noisy claims) against the closed forms, by a t interval of the
/// per-round differences at a Bonferroni level over the family.
pub fn simulation_checks(
    claims: &[f64],
    policy: Policy,
    k: usize,
    m: usize,
    sigma: f64,
    rounds: [(Design, usize); 2],
    seed: u64,
) -> Result<(Vec<Check>, Vec<Figure>), BoxError> {
    let mut rng = seeded(seed ^ 0x5e7);
    let family = 2 * rounds.len();
    let confidence = 1.0 - FAMILY_RATE / family as f64;
    let mut checks = Vec::new();
    let mut figures = Vec::new();
    for (design, r) in rounds {
        let setup = SerSetup {
            k,
            m,
            sigma,
            policy,
            design,
        };
        let (mut d_ser, mut d_u, mut sim) = (Vec::with_capacity(r), Vec::with_capacity(r), 0.0);
        for _ in 0..r {
            let rep = simulate_ser(claims, claims, &setup, 1, &mut rng)?;
            d_ser.push(rep.simulated_ser - rep.expected_ser);
            d_u.push(rep.simulated_utility - rep.expected_utility);
            sim += rep.simulated_ser / r as f64;
        }
        figures.push(Figure::new(
            format!("simulated SER with real draws ({design:?}, {r} rounds)"),
            sim,
        ));
        for (what, d, spec) in [
            (
                "SER",
                &d_ser,
                "spec P7: realised SER matches (1/n)Σᵢ Π_d(1 − πᵢ⁽ᵈ⁾)",
            ),
            ("utility", &d_u, "spec P8: realised utility matches Σπᵢqᵢ/k"),
        ] {
            let (mean, iv) = t_interval(ArrayView1::from(d.as_slice()), confidence)?;
            checks.push(
                Check::new(
                    format!(
                        "P7/P8: mean (realised − closed-form {what}) per round, {design:?}; t interval at {confidence:.7}"
                    ),
                    mean,
                    Relation::IntervalContains,
                    0.0,
                    format!(
                        "{spec}; the difference has mean 0 exactly; family-wise false-failure rate < 1e-6 \
                         (Bonferroni over {family} intervals)"
                    ),
                )
                .with_interval(iv.lo, iv.hi)
                .with_seeds(r),
            );
        }
    }
    Ok((checks, figures))
}
