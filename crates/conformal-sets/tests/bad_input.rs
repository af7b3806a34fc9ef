//! Typed errors on bad input, for every public entry point of the conformal core.

use conformal_sets::Error;
use conformal_sets::calibrate::{QuantileRule, SplitConformal, quantile_index, scores};
use conformal_sets::matching::{
    alpha_matching_top_k, smallest_k_for_alpha, top_k_coverage, top_k_sets,
};
use conformal_sets::metrics::{
    CoverageDistribution, class_conditional_coverage, coverage, mean_size,
};
use conformal_sets::score::{Lac, PredictionSet, Raps};
use conformal_sets::synthetic::dirichlet_classifier;
use conformal_sets::tune::{fit_temperature, pick_k_reg, pick_lambda_by_size, softmax, tune_raps};
use mlcore::sampling::seeded;
use ndarray::{Array2, array};

#[test]
fn calibration_rejects_bad_input() {
    let mut rng = seeded(0);
    let p = array![[0.5, 0.5], [0.9, 0.1]];
    for alpha in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            SplitConformal::new(Lac, alpha, QuantileRule::FiniteSample),
            Err(Error::AlphaOutOfRange { .. })
        ));
    }
    let cal = SplitConformal::new(Lac, 0.1, QuantileRule::FiniteSample).unwrap();
    assert!(matches!(
        cal.calibrate(p.view(), &[0, 1], &mut rng),
        Err(Error::TooFewCalibration { n: 2, min_n: 9, .. })
    ));
    let bad_rows = array![[0.5, 0.6], [0.9, 0.1]];
    assert!(matches!(
        cal.calibrate(bad_rows.view(), &[0, 1], &mut rng),
        Err(Error::NotAProbability { row: 0, .. })
    ));
    let negative = array![[1.5, -0.5]];
    assert!(matches!(
        scores(&Lac, negative.view(), &[0], &mut rng),
        Err(Error::NotAProbability { row: 0, .. })
    ));
    let nan = array![[f64::NAN, 1.0]];
    assert!(matches!(
        scores(&Lac, nan.view(), &[0], &mut rng),
        Err(Error::NotAProbability { .. })
    ));
    assert!(matches!(
        scores(&Lac, p.view(), &[0, 2], &mut rng),
        Err(Error::LabelOutOfRange {
            index: 1,
            label: 2,
            classes: 2
        })
    ));
    assert!(matches!(
        scores(&Lac, p.view(), &[0], &mut rng),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        scores(&Lac, Array2::<f64>::zeros((0, 3)).view(), &[], &mut rng),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        quantile_index(0, 0.1, QuantileRule::NumpyHigher),
        Err(Error::EmptyInput { .. })
    ));
    let (pc, yc) = dirichlet_classifier(50, 3, 1.0, &mut rng).unwrap();
    let fitted = cal.calibrate(pc.view(), &yc, &mut rng).unwrap();
    assert!(matches!(
        fitted.predict(bad_rows.view(), &mut rng),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        fitted.predict(array![[0.5, 0.6, 0.1]].view(), &mut rng),
        Err(Error::NotAProbability { .. })
    ));
    assert!(matches!(
        Raps {
            lambda: -0.1,
            ..Raps::default()
        }
        .check(),
        Err(Error::NegativeLambda { .. })
    ));
    assert!(matches!(
        dirichlet_classifier(5, 1, 1.0, &mut rng),
        Err(Error::InvalidParameter {
            name: "classes",
            ..
        })
    ));
    assert!(matches!(
        dirichlet_classifier(5, 3, 0.0, &mut rng),
        Err(Error::InvalidParameter {
            name: "concentration",
            ..
        })
    ));
}

#[test]
fn matching_and_tuning_reject_bad_input() {
    let mut rng = seeded(0);
    let p = array![[0.5, 0.5], [0.9, 0.1]];
    assert!(matches!(
        top_k_sets(p.view(), 0),
        Err(Error::InvalidK { k: 0, classes: 2 })
    ));
    assert!(matches!(
        top_k_sets(p.view(), 3),
        Err(Error::InvalidK { k: 3, .. })
    ));
    assert!(matches!(
        top_k_coverage(p.view(), &[0, 5], 1),
        Err(Error::LabelOutOfRange { .. })
    ));
    assert!(matches!(
        alpha_matching_top_k(p.view(), &[0, 0], 2),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(matches!(
        smallest_k_for_alpha(p.view(), &[0, 0], 1.5),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(matches!(
        pick_k_reg(p.view(), &[0], 0.1),
        Err(Error::ShapeMismatch { .. })
    ));
    let raps = Raps {
        lambda: -1.0,
        ..Raps::default()
    };
    assert!(matches!(
        pick_lambda_by_size(
            p.view(),
            &[0, 0],
            0.4,
            raps,
            &[-1.0],
            QuantileRule::NumpyHigher,
            &mut rng
        ),
        Err(Error::NegativeLambda { .. })
    ));
    assert!(matches!(
        pick_lambda_by_size(
            p.view(),
            &[0, 0],
            0.4,
            Raps::default(),
            &[],
            QuantileRule::NumpyHigher,
            &mut rng
        ),
        Err(Error::EmptyInput { what: "grid" })
    ));
    assert!(matches!(
        tune_raps(
            p.view(),
            &[0, 0],
            0.1,
            1.5,
            Raps::default(),
            QuantileRule::NumpyHigher,
            &mut rng
        ),
        Err(Error::InvalidParameter {
            name: "fraction",
            ..
        })
    ));
    let z = array![[1.0, 2.0], [0.5, f64::INFINITY]];
    assert!(matches!(
        softmax(z.view(), 1.0),
        Err(Error::NonFinite {
            what: "logits",
            index: 3
        })
    ));
    for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            softmax(p.view(), t),
            Err(Error::NonPositiveTemperature { .. })
        ));
    }
    assert!(matches!(
        fit_temperature(Array2::<f64>::zeros((0, 2)).view(), &[]),
        Err(Error::EmptyInput { .. })
    ));
    // Perfectly separable logits: the NLL keeps falling as T → 0.
    let separable = array![[10.0, 0.0], [0.0, 10.0]];
    assert!(matches!(
        fit_temperature(separable.view(), &[0, 1]),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn metrics_reject_bad_input() {
    let sets = vec![PredictionSet::new(vec![0])];
    assert!(matches!(coverage(&[], &[]), Err(Error::EmptyInput { .. })));
    assert!(matches!(
        coverage(&sets, &[0, 1]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(mean_size(&[]), Err(Error::EmptyInput { .. })));
    assert!(matches!(
        class_conditional_coverage(&sets, &[4], 3),
        Err(Error::LabelOutOfRange { .. })
    ));
    assert!(matches!(
        CoverageDistribution::new(5, 0.1),
        Err(Error::TooFewCalibration { min_n: 9, .. })
    ));
    assert!(matches!(
        CoverageDistribution::new(50, 1.0),
        Err(Error::AlphaOutOfRange { .. })
    ));
}

/// Found by a hostile-input run: each of these hung, panicked or returned a
/// silently wrong value before.
#[test]
fn hostile_run_regressions() {
    use conformal_sets::calibrate::min_calibration_size;
    let mut rng = seeded(11);
    // A tiny α needs ~1/α calibration points: a typed error in O(1), never a
    // count down from usize::MAX, and calibrating with too few points names it.
    assert!(matches!(
        min_calibration_size(1e-17),
        Err(Error::Core(mlcore::Error::TooLarge { .. }))
    ));
    // At α = 1e-10 the answer sits within the rank rule's few-ulp allowance
    // (8ε·n/α ≈ 1.8e5) plus the rounding of 1 − α in f64 (ε·n/α ≈ 2.2e4) of
    // the closed form 9,999,999,999, and is consistent with the rule itself.
    let n = min_calibration_size(1e-10).unwrap();
    assert!(n.abs_diff(9_999_999_999) <= 200_000, "{n}");
    assert!(mlcore::stats::conformal_rank(n, 1e-10).unwrap() <= n);
    assert!(mlcore::stats::conformal_rank(n - 1, 1e-10).unwrap() > n - 1);
    let (p, y) = dirichlet_classifier(20, 3, 1.0, &mut rng).unwrap();
    let sc = SplitConformal::new(Lac, 1e-17, QuantileRule::FiniteSample).unwrap();
    assert!(matches!(
        sc.calibrate(p.view(), &y, &mut rng),
        Err(Error::TooFewCalibration {
            min_n: usize::MAX,
            ..
        })
    ));
    // A tiny Dirichlet concentration: one-hot-like rows, not an endless redraw.
    let (p, _) = dirichlet_classifier(50, 4, 1e-300, &mut rng).unwrap();
    for row in p.rows() {
        assert!((row.sum() - 1.0).abs() < 1e-12 && row.iter().all(|v| v.is_finite()));
    }
    // RAPS parameters are checked once, at construction.
    let bad = Raps {
        lambda: -1.0,
        ..Raps::default()
    };
    assert!(matches!(
        SplitConformal::new(bad, 0.1, QuantileRule::FiniteSample),
        Err(Error::NegativeLambda { .. })
    ));
    // predict with another number of classes than calibration.
    let (p, y) = dirichlet_classifier(100, 3, 1.0, &mut rng).unwrap();
    let cal = SplitConformal::new(Lac, 0.1, QuantileRule::FiniteSample)
        .unwrap()
        .calibrate(p.view(), &y, &mut rng)
        .unwrap();
    assert_eq!(cal.n_classes(), 3);
    let four = array![[0.25, 0.25, 0.25, 0.25]];
    assert!(matches!(
        cal.predict(four.view(), &mut rng),
        Err(Error::ShapeMismatch {
            expected: 3,
            got: 4,
            ..
        })
    ));
    // softmax at a tiny temperature: the argmax, not NaN.
    let s = softmax(array![[1.0, 3.0, 2.0]].view(), 1e-308).unwrap();
    assert_eq!(s, array![[0.0, 1.0, 0.0]]);
    // The coverage law at a huge n: no overflow of n + 1.
    assert!(CoverageDistribution::new(usize::MAX, 0.1).is_ok());
}
