//! Every public entry point returns a typed error on bad input, no panic.

#![allow(clippy::needless_range_loop)] // index loops over units read clearer in tests

use fair_lottery::Error;
use fair_lottery::exact::{
    pipage_design, successive_marginals, systematic_design, systematic_random_order_design,
};
use fair_lottery::metrics::{
    expected_ser, expected_ser_shared, expected_utility, realised_utility, systemic_exclusion,
};
use fair_lottery::policy::{
    Policy, bootstrap_vote_shares, conformal_outlier_pvalues, distance_to_mean, outlier_lottery,
    uncertainty_lottery,
};
use fair_lottery::probs::{Selection, inclusion_probs};
use fair_lottery::sampler::{
    ConditionalPoisson, CpsParams, FixedSizeSampler, Pipage, Sampford, SampfordParams, Successive,
    Systematic,
};
use fair_lottery::sim::{ClaimDistribution, SerSetup, noisy_claims, simulate_ser};
use mlcore::sampling::seeded;
use ndarray::{Array2, array};

#[test]
fn claims_errors() {
    assert!(matches!(
        inclusion_probs(&[], 1),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, -0.5], 1),
        Err(Error::NegativeClaim { i: 1, .. })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, f64::NAN], 1),
        Err(Error::NonFinite { i: 1, .. })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, f64::INFINITY], 1),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, 2.0], 0),
        Err(Error::InvalidK { k: 0, n: 2 })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, 2.0], 3),
        Err(Error::InvalidK { k: 3, n: 2 })
    ));
    assert!(matches!(
        inclusion_probs(&[0.0, 0.0], 1),
        Err(Error::TooFewPositiveClaims { positive: 0, k: 1 })
    ));
    assert!(matches!(
        inclusion_probs(&[1.0, 0.0, 0.0], 2),
        Err(Error::TooFewPositiveClaims { .. })
    ));
    assert!(matches!(
        Successive::new(&[1.0, -1.0], 1),
        Err(Error::NegativeClaim { .. })
    ));
    assert!(matches!(
        Successive::new(&[1.0, 0.0], 2),
        Err(Error::TooFewPositiveClaims { .. })
    ));
    assert!(matches!(
        successive_marginals(&[1.0; 21], 2),
        Err(Error::TooLargeForExact { n: 21, max: 20 })
    ));
    assert!(matches!(
        successive_marginals(&[1.0; 3], 0),
        Err(Error::InvalidK { .. })
    ));
}

#[test]
fn marginals_errors() {
    assert!(matches!(
        Selection::new(vec![]),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        Selection::new(vec![0.5, 1.5]),
        Err(Error::ProbOutOfRange { i: 1, .. })
    ));
    assert!(matches!(
        Selection::new(vec![-0.1, 1.1]),
        Err(Error::ProbOutOfRange { i: 0, .. })
    ));
    assert!(matches!(
        Selection::new(vec![0.5, f64::NAN]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        Selection::new(vec![0.5, 0.6]),
        Err(Error::NonIntegerSum { .. })
    ));
    assert!(matches!(
        Selection::new(vec![0.0, 0.0]),
        Err(Error::InvalidK { k: 0, .. })
    ));
    assert!(Selection::new(vec![0.5, 0.5 + 1e-12]).is_ok());
}

#[test]
fn policy_errors() {
    let c = [0.5, 0.4, 0.3, 0.2];
    assert!(matches!(
        Policy::PartialLottery { p: 1.5 }.selection(&c, 1),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Policy::PartialLottery { p: f64::NAN }.selection(&c, 1),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Policy::PartialLottery { p: 0.0 }.selection(&c, 3),
        Err(Error::InvalidPartial { .. })
    ));
    assert!(matches!(
        Policy::RandomizationRate {
            frac_k: 0.5,
            frac_n: 0.0
        }
        .selection(&c, 2),
        Err(Error::InvalidPartial { .. })
    ));
    assert!(matches!(
        Policy::RandomizationRate {
            frac_k: -0.1,
            frac_n: 0.5
        }
        .selection(&c, 2),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Policy::TopK.selection(&c, 0),
        Err(Error::InvalidK { .. })
    ));
    assert!(matches!(
        Policy::FullLottery.selection(&[-1.0], 1),
        Err(Error::NegativeClaim { .. })
    ));
    assert!(matches!(
        uncertainty_lottery(&[1.2], &[0.0], 1),
        Err(Error::ProbOutOfRange { .. })
    ));
    assert!(matches!(
        uncertainty_lottery(&[0.2], &[0.0, 1.0], 1),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        uncertainty_lottery(&[], &[], 1),
        Err(Error::EmptyInput { .. })
    ));
    let boot = Array2::<f64>::zeros((2, 3));
    assert!(matches!(
        bootstrap_vote_shares(&[1.0, 2.0], boot.view(), 1),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        bootstrap_vote_shares(&[1.0, 2.0, f64::NAN], boot.view(), 1),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        bootstrap_vote_shares(&[1.0, 2.0, 3.0], boot.view(), 4),
        Err(Error::InvalidK { .. })
    ));
    assert!(matches!(
        conformal_outlier_pvalues(&[], &[1.0]),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        conformal_outlier_pvalues(&[1.0], &[f64::NAN]),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        distance_to_mean(array![[1.0, 2.0]].view(), array![[1.0]].view()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        outlier_lottery(&c, &[0.5; 4], 0.0, 1),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        outlier_lottery(&c, &[0.5; 3], 0.1, 1),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        outlier_lottery(&c, &[2.0; 4], 0.1, 1),
        Err(Error::ProbOutOfRange { .. })
    ));
}

#[test]
fn sampler_errors() {
    let sel = Selection::proportional(&[0.9, 0.8, 0.5, 0.3, 0.2, 0.1], 3).unwrap();
    assert!(matches!(
        ConditionalPoisson::with_params(
            &sel,
            CpsParams {
                tol: 0.0,
                max_iter: 10
            }
        ),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        ConditionalPoisson::with_params(
            &sel,
            CpsParams {
                tol: 1e-11,
                max_iter: 1
            }
        ),
        Err(Error::NotConverged { .. })
    ));
    assert!(matches!(
        Sampford::with_params(
            &sel,
            SampfordParams {
                max_expected_trials: 1.0
            }
        ),
        Err(Error::SampfordTooSlow { .. })
    ));
    assert!(matches!(
        Sampford::with_params(
            &sel,
            SampfordParams {
                max_expected_trials: f64::NAN
            }
        ),
        Err(Error::InvalidParameter { .. })
    ));
    // Sampford with many small π: expected trials ≈ √(2πk) far above a low limit.
    let big = Selection::new(vec![0.01; 20_000]).unwrap();
    match Sampford::with_params(
        &big,
        SampfordParams {
            max_expected_trials: 10.0,
        },
    ) {
        Err(Error::SampfordTooSlow {
            expected_trials, ..
        }) => assert!(expected_trials > 30.0),
        Err(e) => panic!("{e}"),
        Ok(s) => panic!("accepted, rate {}", s.acceptance_rate()),
    }
    let sys = Systematic::new(&sel);
    assert!(matches!(
        sys.sample_with(&[0, 1, 2], 0.5),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        sys.sample_with(&[0, 1, 2, 3, 4, 4], 0.5),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        sys.sample_with(&[0, 1, 2, 3, 4, 5], 1.0),
        Err(Error::InvalidParameter { .. })
    ));
    let pip = Pipage::new(&sel);
    assert!(matches!(
        pip.sample_in_order(&[0, 7, 1, 2, 3, 4], &mut seeded(0)),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        systematic_design(&sel, &[0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        pipage_design(&sel, &[0]),
        Err(Error::LengthMismatch { .. })
    ));
    let nine = Selection::new(vec![0.5; 10]).unwrap();
    assert!(matches!(
        systematic_random_order_design(&nine),
        Err(Error::TooLargeForExact { .. })
    ));
    let huge = Selection::new(vec![0.5; 2002]).unwrap();
    let cps = ConditionalPoisson::new(&huge).unwrap();
    assert!(matches!(
        cps.joint_inclusion(),
        Err(Error::TooLargeForExact { .. })
    ));
}

#[test]
fn metric_and_sim_errors() {
    assert!(matches!(
        expected_utility(&[0.5, 0.5], &[1.0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        expected_utility(&[], &[]),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        expected_utility(&[0.1, 0.1], &[1.0, 1.0]),
        Err(Error::InvalidK { .. })
    ));
    assert!(matches!(
        realised_utility(&[5], &[1.0]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        realised_utility(&[], &[1.0]),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        systemic_exclusion(&[vec![3]], 2),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        systemic_exclusion(&[], 2),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(expected_ser(&[]), Err(Error::EmptyInput { .. })));
    assert!(matches!(
        expected_ser(&[vec![0.5], vec![0.5, 0.5]]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        expected_ser(&[vec![1.5]]),
        Err(Error::ProbOutOfRange { .. })
    ));
    assert!(matches!(
        expected_ser_shared(&[0.5], 0),
        Err(Error::InvalidParameter { .. })
    ));
    let mut rng = seeded(0);
    assert!(matches!(
        noisy_claims(&[0.5], -1.0, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        ClaimDistribution::TruncatedNormal { mean: 0.5, sd: 0.0 }.sample(3, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        ClaimDistribution::TruncatedPareto { alpha: -1.0 }.sample(3, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let setup = SerSetup {
        k: 1,
        m: 0,
        sigma: 0.0,
        policy: Policy::TopK,
        design: Default::default(),
    };
    assert!(matches!(
        simulate_ser(&[0.5, 0.2], &[0.5, 0.2], &setup, 1, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let setup = SerSetup { m: 1, ..setup };
    assert!(matches!(
        simulate_ser(&[0.5, 0.2], &[0.5], &setup, 1, &mut rng),
        Err(Error::LengthMismatch { .. })
    ));
}

/// Found by a hostile-input run: claims near f64::MAX (whose sum overflows)
/// gave π = 0 and a panicking successive sampler; m ≥ 2³¹ decision makers
/// gave an SER of ∞ or 1. The designs depend only on claim ratios, so the
/// answers equal those of the scaled claims (closed forms here).
#[test]
fn hostile_run_regressions() {
    let huge = [f64::MAX, f64::MAX / 2.0, f64::MAX / 4.0];
    // Ratios 4 : 2 : 1, k = 1: π = c / Σc = 4/7, 2/7, 1/7.
    let pi = inclusion_probs(&huge, 1).unwrap();
    for (p, want) in pi.iter().zip([4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0]) {
        assert!((p - want).abs() < 1e-15, "{pi:?}");
    }
    let s = Successive::new(&huge, 2).unwrap();
    let mut rng = seeded(3);
    for _ in 0..100 {
        let mut draw = s.sample(&mut rng);
        draw.sort_unstable();
        draw.dedup();
        assert_eq!(draw.len(), 2);
    }
    // (1/n) Σ (1 − π)^m at m = 2³² and 2³¹: (1 − 0.5)^m underflows to 0 and
    // a zero π keeps its unit excluded: (0 + 1)/2.
    for m in [1usize << 31, 1 << 32] {
        let ser = expected_ser_shared(&[0.5, 0.0], m).unwrap();
        assert_eq!(ser, 0.5, "m = {m}");
    }
    // A moderate m still equals the integer power.
    let ser = expected_ser_shared(&[0.25, 0.5], 3).unwrap();
    assert!((ser - (0.75f64.powi(3) + 0.125) / 2.0).abs() < 1e-15);
}
