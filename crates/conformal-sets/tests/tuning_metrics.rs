//! Matching, tuning, temperature and metrics: hand-checked values and
//! properties (spec "Equal-coverage fixed-size sets", "Beyond the paper").

use conformal_sets::calibrate::{QuantileRule, SplitConformal, min_calibration_size};
use conformal_sets::matching::{
    alpha_matching_top_k, equal_coverage_raps, smallest_k_for_alpha, top_k_coverage,
    top_k_coverages, top_k_sets,
};
use conformal_sets::metrics::{
    CoverageDistribution, RAPS_STRATA, class_conditional_coverage, coverage, mean_size,
    size_stratified_coverage,
};
use conformal_sets::score::{Lac, PredictionSet, Raps};
use conformal_sets::synthetic::dirichlet_classifier;
use conformal_sets::tune::{
    fit_temperature, nll_inverse_temperature, pick_k_reg, pick_lambda_by_size, softmax, tune_raps,
};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array2, array};
use rand::RngExt;

fn p3() -> (Array2<f64>, Vec<usize>) {
    // True-label ranks: 1, 2, 3, 1.
    (
        array![
            [0.6, 0.3, 0.1],
            [0.5, 0.4, 0.1],
            [0.2, 0.3, 0.5],
            [0.1, 0.1, 0.8]
        ],
        vec![0, 1, 0, 2],
    )
}

#[test]
fn top_k_coverage_and_matching_by_hand() {
    let (p, y) = p3();
    assert_eq!(top_k_coverages(p.view(), &y).unwrap(), vec![0.5, 0.75, 1.0]);
    assert_eq!(top_k_coverage(p.view(), &y, 2).unwrap(), 0.75);
    assert!((alpha_matching_top_k(p.view(), &y, 1).unwrap() - 0.5).abs() < 1e-15);
    assert!(alpha_matching_top_k(p.view(), &y, 3).is_err()); // ĉ₃ = 1: no α matches
    assert_eq!(smallest_k_for_alpha(p.view(), &y, 0.3).unwrap(), 2);
    assert_eq!(smallest_k_for_alpha(p.view(), &y, 0.5).unwrap(), 1);
    assert_eq!(smallest_k_for_alpha(p.view(), &y, 0.01).unwrap(), 3);
    let sets = top_k_sets(p.view(), 2).unwrap();
    assert_eq!(sets[2].labels(), &[1, 2]);
    assert_eq!(coverage(&sets, &y).unwrap(), 0.75);
}

/// The trial's control: RAPS calibrated at α = 1 − ĉ₃ reaches about the same
/// coverage as top-3 on fresh data, with smaller sets on average.
#[test]
fn equal_coverage_raps_matches_top3_coverage_with_smaller_sets() {
    let mut rng = seeded(11);
    let (pc, yc) = dirichlet_classifier(5000, 10, 0.1, &mut rng).unwrap();
    let (pt, yt) = dirichlet_classifier(20000, 10, 0.1, &mut rng).unwrap();
    let fitted = equal_coverage_raps(
        pc.view(),
        &yc,
        3,
        Raps::default(),
        QuantileRule::FiniteSample,
        &mut rng,
    )
    .unwrap();
    let top3 = top_k_sets(pt.view(), 3).unwrap();
    let raps = fitted.predict(pt.view(), &mut rng).unwrap().to_sets();
    let (c_top, c_raps) = (coverage(&top3, &yt).unwrap(), coverage(&raps, &yt).unwrap());
    // sd of a coverage over 20000 points ≈ 0.002; calibration noise ≈ 0.004.
    assert!(
        (c_top - c_raps).abs() < 0.03,
        "top-3 {c_top} vs RAPS {c_raps}"
    );
    assert!(mean_size(&raps).unwrap() < 3.0);
}

#[test]
fn k_reg_and_lambda_tuning() {
    let (p, y) = p3();
    // 0-based ranks [0, 1, 2, 0] sorted [0, 0, 1, 2]; "higher" 0.5-quantile → index ⌈1.5⌉ = 2 → rank 1 → k_reg 2.
    assert_eq!(pick_k_reg(p.view(), &y, 0.5).unwrap(), 2);
    assert_eq!(pick_k_reg(p.view(), &y, 0.01).unwrap(), 3);
    let mut rng = seeded(3);
    let (pc, yc) = dirichlet_classifier(1000, 20, 0.3, &mut rng).unwrap();
    let grid = [0.001, 0.5];
    let lambda = pick_lambda_by_size(
        pc.view(),
        &yc,
        0.1,
        Raps::default(),
        &grid,
        QuantileRule::NumpyHigher,
        &mut rng,
    )
    .unwrap();
    assert!(grid.contains(&lambda));
    let (tuned, n_tune) = tune_raps(
        pc.view(),
        &yc,
        0.1,
        0.3,
        Raps::default(),
        QuantileRule::NumpyHigher,
        &mut rng,
    )
    .unwrap();
    assert_eq!(n_tune, 300);
    assert!(tuned.k_reg >= 1 && tuned.k_reg <= 20);
}

/// NLL derivatives agree with central finite differences.
#[test]
fn nll_derivatives_match_finite_differences() {
    let mut rng = seeded(5);
    let z = standard_normal((50, 6), &mut rng) * 3.0;
    let y: Vec<usize> = (0..50).map(|_| rng.random_range(0..6)).collect();
    for beta in [0.2, 1.0, 2.5] {
        let (_, g, h) = nll_inverse_temperature(z.view(), &y, beta).unwrap();
        let e = 1e-5;
        let (fp, gp, _) = nll_inverse_temperature(z.view(), &y, beta + e).unwrap();
        let (fm, gm, _) = nll_inverse_temperature(z.view(), &y, beta - e).unwrap();
        assert!(
            (g - (fp - fm) / (2.0 * e)).abs() < 1e-7,
            "gradient at {beta}"
        );
        assert!(
            (h - (gp - gm) / (2.0 * e)).abs() < 1e-6,
            "curvature at {beta}"
        );
    }
}

/// Labels drawn from softmax(z / 2): the fitted temperature recovers T = 2
/// (n = 20000; the MLE's sd here is about 0.03), and it minimises the NLL on a grid.
#[test]
fn temperature_fit_recovers_the_generating_temperature() {
    let mut rng = seeded(9);
    let z = standard_normal((20000, 8), &mut rng) * 4.0;
    let p = softmax(z.view(), 2.0).unwrap();
    let y: Vec<usize> = p
        .rows()
        .into_iter()
        .map(|r| {
            let u: f64 = rng.random();
            let mut acc = 0.0;
            r.iter()
                .position(|&v| {
                    acc += v;
                    u < acc
                })
                .unwrap_or(7)
        })
        .collect();
    let t = fit_temperature(z.view(), &y).unwrap();
    assert!((t - 2.0).abs() < 0.15, "fitted T = {t}");
    let nll = |t: f64| nll_inverse_temperature(z.view(), &y, 1.0 / t).unwrap().0;
    for dt in [-0.05, 0.05] {
        assert!(nll(t) <= nll(t + dt));
    }
    assert!(
        softmax(z.view(), 1.0)
            .unwrap()
            .rows()
            .into_iter()
            .all(|r| (r.sum() - 1.0).abs() < 1e-12)
    );
}

#[test]
fn metrics_by_hand() {
    let sets = vec![
        PredictionSet::new(vec![0]),
        PredictionSet::new(vec![1, 2]),
        PredictionSet::new(vec![0, 1, 2, 3]),
        PredictionSet::new(vec![]),
    ];
    let y = [0, 0, 3, 1];
    assert_eq!(coverage(&sets, &y).unwrap(), 0.5);
    assert_eq!(mean_size(&sets).unwrap(), 7.0 / 4.0);
    let strata = size_stratified_coverage(&sets, &y, &RAPS_STRATA).unwrap();
    assert_eq!((strata[0].count, strata[0].coverage), (2, Some(0.5)));
    assert_eq!((strata[1].count, strata[1].coverage), (1, Some(0.0)));
    assert_eq!((strata[2].count, strata[2].coverage), (1, Some(1.0)));
    assert_eq!(strata[5].coverage, None);
    let cc = class_conditional_coverage(&sets, &y, 5).unwrap();
    assert_eq!(cc, vec![Some(0.5), Some(0.0), None, Some(1.0), None]);
}

/// Conditional coverage ~ Beta(n+1−l, l), l = ⌊(n+1)α⌋: its mean lies in
/// [1−α, 1−α+1/(n+1)), and over many calibration draws the realised
/// conditional coverage (exactly F(q̂) = q̂ for uniform scores) has that mean and variance.
#[test]
fn conditional_coverage_follows_the_beta_law() {
    let (n, alpha) = (50, 0.1);
    let law = CoverageDistribution::new(n, alpha).unwrap();
    assert_eq!((law.a, law.b), (46.0, 5.0));
    assert!(law.mean() >= 1.0 - alpha && law.mean() < 1.0 - alpha + 1.0 / 51.0);
    let q05 = law.quantile(0.05).unwrap();
    assert!(q05 < law.mean() && law.cdf(q05).unwrap() - 0.05 < 1e-9);
    assert!(law.quantile(1.5).is_err() && law.cdf(f64::NAN).is_err());
    let mut rng = seeded(21);
    let reps = 20000;
    let cal = SplitConformal::new(Lac, alpha, QuantileRule::FiniteSample).unwrap();
    let mut cov = mlcore::stats::Welford::new();
    for _ in 0..reps {
        // LAC score 1 − π_y with π_y uniform: scores uniform, coverage of q̂ is q̂.
        let u: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
        let probs = Array2::from_shape_fn((n, 2), |(i, j)| if j == 0 { u[i] } else { 1.0 - u[i] });
        let q = cal
            .calibrate(probs.view(), &vec![0; n], &mut rng)
            .unwrap()
            .q_hat();
        cov.push(q);
    }
    let (a, b) = (law.a, law.b);
    let var = a * b / ((a + b).powi(2) * (a + b + 1.0));
    assert!((cov.mean() - law.mean()).abs() < 6.0 * (var / reps as f64).sqrt());
    assert!((cov.variance() / var - 1.0).abs() < 0.1);
    assert_eq!(min_calibration_size(0.1).unwrap(), 9);
    assert_eq!(min_calibration_size(0.05).unwrap(), 19);
    assert!(CoverageDistribution::new(8, 0.1).is_err());
}
