//! P1 (every draw has exactly k distinct winners) and P4 (empirical
//! marginals within 5.5·√(π(1−π)/N) of π, n ≤ 20, N = 2·10⁴ draws).
//!
//! P4's family-wise false-failure rate: each unit's deviation exceeds 5.5σ
//! with probability ≈ 3.8·10⁻⁸ (normal approximation); one family (one
//! sampler on one π, n ≤ 20 units) fails falsely with probability
//! ≤ 20 × 3.8·10⁻⁸ < 10⁻⁶. Seeds are fixed, so the run is deterministic.

#![allow(clippy::needless_range_loop)] // index loops over units read clearer in tests

use fair_lottery::probs::Selection;
use fair_lottery::sampler::{
    ConditionalPoisson, Design, ExactMarginals, FixedSizeSampler, Pipage, Sampford, Sampler,
    Systematic,
};
use mlcore::sampling::seeded;
use proptest::prelude::*;

fn selection_strategy() -> impl Strategy<Value = Selection> {
    prop::collection::vec(prop_oneof![Just(0.0), 0.001f64..1.0, 0.5f64..50.0], 1..40)
        .prop_filter("a positive claim", |c| c.iter().any(|&x| x > 0.0))
        .prop_flat_map(|c| {
            let positive = c.iter().filter(|&&x| x > 0.0).count().max(1);
            (Just(c), 1..=positive)
                .prop_map(|(c, k)| Selection::proportional(&c, k).expect("k ≤ #positive claims"))
        })
}

fn distinct_k(draw: &[usize], k: usize, n: usize) -> bool {
    let mut d = draw.to_vec();
    d.sort_unstable();
    d.dedup();
    d.len() == k && draw.len() == k && d.iter().all(|&i| i < n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// P1: every draw of every exact sampler has exactly k distinct winners,
    /// includes every πᵢ = 1 and no πᵢ = 0.
    #[test]
    fn p1_exactly_k_distinct_winners(sel in selection_strategy(), seed in any::<u64>()) {
        let mut rng = seeded(seed);
        for design in [Design::Systematic, Design::Pipage, Design::ConditionalPoisson, Design::Sampford] {
            let s = match Sampler::build(design, &sel) {
                Ok(s) => s,
                Err(fair_lottery::Error::SampfordTooSlow { .. }) => continue,
                Err(e) => panic!("{design:?}: {e}"),
            };
            for _ in 0..5 {
                let d = s.sample(&mut rng);
                prop_assert!(distinct_k(&d, sel.k(), sel.n()), "{design:?}: {d:?} k {}", sel.k());
                for i in sel.certain() {
                    prop_assert!(d.contains(&i));
                }
                for i in sel.excluded() {
                    prop_assert!(!d.contains(&i));
                }
            }
        }
    }
}

fn check_p4<S: ExactMarginals>(s: &S, seed: u64, what: &str) {
    let draws = 20_000usize;
    let mut rng = seeded(seed);
    let n = s.n();
    let mut hits = vec![0usize; n];
    for _ in 0..draws {
        let d = s.sample(&mut rng);
        assert_eq!(d.len(), s.k());
        for i in d {
            hits[i] += 1;
        }
    }
    for i in 0..n {
        let p = s.marginals()[i];
        let phat = hits[i] as f64 / draws as f64;
        let sd = (p * (1.0 - p) / draws as f64).sqrt();
        assert!(
            (phat - p).abs() <= 5.5 * sd,
            "{what}: unit {i}: p̂ {phat} vs π {p} (5.5σ = {})",
            5.5 * sd
        );
    }
}

fn p4_cases() -> Vec<Selection> {
    vec![
        Selection::proportional(&[0.9, 0.8, 0.5, 0.3, 0.2, 0.1], 3).unwrap(),
        Selection::proportional(&[3.0, 2.0, 1.0], 2).unwrap(),
        Selection::proportional(
            &(1..=20).map(|i| (i as f64).powf(1.5)).collect::<Vec<_>>(),
            7,
        )
        .unwrap(),
    ]
}

/// P4 for systematic sampling (random order).
#[test]
fn p4_systematic_empirical_marginals_within_5_5_sigma() {
    for (c, sel) in p4_cases().iter().enumerate() {
        check_p4(&Systematic::new(sel), 100 + c as u64, "systematic");
    }
}

/// P4 for pipage.
#[test]
fn p4_pipage_empirical_marginals_within_5_5_sigma() {
    for (c, sel) in p4_cases().iter().enumerate() {
        check_p4(&Pipage::new(sel), 200 + c as u64, "pipage");
    }
}

/// P4 for conditional Poisson (tree sampler).
#[test]
fn p4_cps_empirical_marginals_within_5_5_sigma() {
    for (c, sel) in p4_cases().iter().enumerate() {
        check_p4(
            &ConditionalPoisson::new(sel).unwrap(),
            300 + c as u64,
            "cps",
        );
    }
}

/// P4 for Sampford (rejective).
#[test]
fn p4_sampford_empirical_marginals_within_5_5_sigma() {
    for (c, sel) in p4_cases().iter().enumerate() {
        check_p4(&Sampford::new(sel).unwrap(), 400 + c as u64, "sampford");
    }
}

/// CPS pair frequencies match its exact πᵢⱼ (5.5σ per pair, 15 pairs).
#[test]
fn cps_empirical_joint_matches_exact_joint() {
    let sel = Selection::proportional(&[0.9, 0.8, 0.5, 0.3, 0.2, 0.1], 3).unwrap();
    let cps = ConditionalPoisson::new(&sel).unwrap();
    let joint = cps.joint().unwrap();
    let draws = 20_000;
    let mut rng = seeded(9);
    let mut pair = [[0usize; 6]; 6];
    for _ in 0..draws {
        let d = cps.sample(&mut rng);
        for &a in &d {
            for &b in &d {
                pair[a][b] += 1;
            }
        }
    }
    for a in 0..6 {
        for b in a + 1..6 {
            let p = joint[[a, b]];
            let phat = pair[a][b] as f64 / draws as f64;
            let sd = (p * (1.0 - p) / draws as f64).sqrt();
            assert!(
                (phat - p).abs() <= 5.5 * sd,
                "pair ({a},{b}): {phat} vs {p}"
            );
        }
    }
}

/// CPS calibration at a larger n: the design's exact marginals equal π
/// within the tolerance, and Sampford's acceptance rate is the documented size.
#[test]
fn cps_calibrates_at_n_20000() {
    let mut rng = seeded(11);
    use rand::RngExt;
    let c: Vec<f64> = (0..20_000).map(|_| 1.0 - rng.random::<f64>()).collect();
    let sel = Selection::proportional(&c, 2_000).unwrap();
    let cps = ConditionalPoisson::new(&sel).unwrap();
    let dm = cps.design_marginals();
    let worst = dm
        .iter()
        .zip(sel.pi())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst <= 1e-11, "worst {worst}");
    assert!(cps.iterations() <= 10);
    let d = cps.sample(&mut rng);
    assert!(distinct_k(&d, 2000, 20_000));
    let s = Sampford::new(&sel).unwrap();
    let v: f64 = sel.pi().iter().map(|p| p * (1.0 - p)).sum();
    let approx = v.sqrt() / (2000.0 * (2.0 * std::f64::consts::PI).sqrt());
    assert!(
        (s.acceptance_rate() / approx - 1.0).abs() < 0.2,
        "{} vs {approx}",
        s.acceptance_rate()
    );
}
