//! P7 (systemic exclusion rate) and P8 (expected utility).

#![allow(clippy::needless_range_loop)] // index loops over units read clearer in tests

use fair_lottery::metrics::{
    expected_ser, expected_ser_shared, expected_utility, realised_utility, systemic_exclusion,
};
use fair_lottery::policy::Policy;
use fair_lottery::probs::Selection;
use fair_lottery::sampler::{Design, FixedSizeSampler, Pipage, Sampler};
use fair_lottery::sim::{ClaimDistribution, SerSetup, simulate_ser, tradeoff_curve};
use mlcore::sampling::seeded;
use mlcore::stats::Welford;

fn uniform_claims(n: usize, seed: u64) -> Vec<f64> {
    ClaimDistribution::Uniform
        .sample(n, &mut seeded(seed))
        .unwrap()
}

/// P7: deterministic top-k shared by m decision makers gives SER = 1 − k/n
/// exactly, analytically and in simulation, for every m.
#[test]
fn p7_deterministic_shared_claims_ser_is_one_minus_k_over_n() {
    let c = uniform_claims(200, 1);
    for m in [1, 3, 10] {
        let setup = SerSetup {
            k: 50,
            m,
            sigma: 0.0,
            policy: Policy::TopK,
            design: Design::Pipage,
        };
        let r = simulate_ser(&c, &c, &setup, 5, &mut seeded(2)).unwrap();
        assert_eq!(r.simulated_ser, 1.0 - 50.0 / 200.0);
        assert_eq!(r.expected_ser, 0.75);
    }
    let top = Policy::TopK.selection(&c, 50).unwrap();
    assert_eq!(expected_ser_shared(top.pi(), 7).unwrap(), 0.75);
}

/// P7: each exact lottery's empirical SER (m = 5 decision makers sharing π)
/// is within 5σ of (1/n)Σ(1 − πᵢ)ᵐ, σ the standard error over 4000 rounds.
#[test]
fn p7_lottery_empirical_ser_within_5_sigma_of_closed_form() {
    let c = uniform_claims(60, 3);
    let sel = Selection::proportional(&c, 15).unwrap();
    let m = 5;
    let exact = expected_ser_shared(sel.pi(), m).unwrap();
    for (d, design) in [
        Design::Systematic,
        Design::Pipage,
        Design::ConditionalPoisson,
        Design::Sampford,
    ]
    .into_iter()
    .enumerate()
    {
        let s = Sampler::build(design, &sel).unwrap();
        let mut rng = seeded(50 + d as u64);
        let mut w = Welford::new();
        for _ in 0..4000 {
            let draws: Vec<Vec<usize>> = (0..m).map(|_| s.sample(&mut rng)).collect();
            w.push(systemic_exclusion(&draws, 60).unwrap());
        }
        let z = (w.mean() - exact) / w.standard_error();
        assert!(
            z.abs() <= 5.0,
            "{design:?}: {} vs {exact} (z = {z})",
            w.mean()
        );
    }
}

/// P7 with noisy decision makers: simulate_ser's simulated SER is within 5σ
/// of its analytic (1/n)Σ Π_d (1 − πᵢ⁽ᵈ⁾).
#[test]
fn p7_noisy_decision_makers_simulated_matches_analytic() {
    let c = uniform_claims(300, 4);
    let setup = SerSetup {
        k: 60,
        m: 4,
        sigma: 0.05,
        policy: Policy::RandomizationRate {
            frac_k: 0.2,
            frac_n: 0.4,
        },
        design: Design::Pipage,
    };
    let r = simulate_ser(&c, &c, &setup, 1500, &mut seeded(5)).unwrap();
    assert!(
        (r.simulated_ser - r.expected_ser).abs() <= 5.0 * r.simulated_se,
        "{r:?}"
    );
    assert!(
        (r.simulated_utility - r.expected_utility).abs() <= 5.0 * r.utility_se,
        "{r:?}"
    );
}

/// P8: expected_utility = Σπy/k equals the Monte-Carlo mean of the realised
/// utility within 5σ, for each exact sampler.
#[test]
fn p8_expected_utility_equals_monte_carlo() {
    let c = uniform_claims(40, 6);
    let y: Vec<f64> = c
        .iter()
        .map(|&x| if x > 0.5 { 1.0 } else { 0.3 * x })
        .collect();
    let sel = Policy::PartialLottery { p: 0.4 }.selection(&c, 10).unwrap();
    let e = expected_utility(sel.pi(), &y).unwrap();
    for (d, design) in [
        Design::Systematic,
        Design::Pipage,
        Design::ConditionalPoisson,
        Design::Sampford,
    ]
    .into_iter()
    .enumerate()
    {
        let s = Sampler::build(design, &sel).unwrap();
        let mut rng = seeded(70 + d as u64);
        let mut w = Welford::new();
        for _ in 0..5000 {
            w.push(realised_utility(&s.sample(&mut rng), &y).unwrap());
        }
        let z = (w.mean() - e) / w.standard_error();
        assert!(z.abs() <= 5.0, "{design:?}: {} vs {e} (z = {z})", w.mean());
    }
}

#[test]
fn expected_ser_of_distinct_decision_makers_and_tradeoff_endpoints() {
    let a = vec![1.0, 0.5, 0.5, 0.0];
    let b = vec![0.0, 0.5, 0.5, 1.0];
    // (0 + 0.25 + 0.25 + 0)/4
    assert!((expected_ser(&[a, b]).unwrap() - 0.125).abs() < 1e-15);
    let c = uniform_claims(400, 8);
    let pts = tradeoff_curve(
        &c,
        &c,
        100,
        5,
        0.0,
        &[0.0, 0.5, 1.0],
        |f| Policy::PartialLottery { p: 1.0 - f },
        1,
        &mut seeded(1),
    )
    .unwrap();
    assert_eq!(pts[0].ser, 0.75);
    assert!(pts[1].ser < pts[0].ser && pts[2].ser < pts[1].ser);
    assert!(pts[1].utility < pts[0].utility && pts[2].utility < pts[1].utility);
    // Pipage is negatively correlated: lower variance of the winners' count
    // in any subset than independent draws would give; at least, its SER
    // expectation equals the closed form for a single decision maker.
    let sel = Selection::proportional(&c, 100).unwrap();
    let s = Pipage::new(&sel);
    let mut rng = seeded(3);
    let mut w = Welford::new();
    for _ in 0..2000 {
        w.push(systemic_exclusion(&[s.sample(&mut rng)], 400).unwrap());
    }
    assert!(
        (w.mean() - 0.75).abs() < 1e-12,
        "one decision maker: SER = 1 − k/n always"
    );
}
