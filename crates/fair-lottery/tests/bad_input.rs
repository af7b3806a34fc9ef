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
    ConditionalPoisson, CpsParams, Pipage, Sampford, SampfordParams, Successive, Systematic,
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
