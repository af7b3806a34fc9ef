//! The split-conformal guarantee (paper §2, spec "Claims"): for exchangeable
//! data and the finite-sample rule, `1−α ≤ P(Y ∈ C(X)) ≤ 1−α + 1/(n+1)`.
//!
//! Setting of the spec: `π ~ Dirichlet(0.5·1₁₀)`, `y ~ π`, n_cal = 500,
//! n_test = 2000, 200 calibration draws; the mean coverage must lie in
//! `[1−α−0.01, 1−α+1/501+0.01]` (the margin is about 10 sd: failure
//! probability < 1e-9).

use conformal_sets::calibrate::{QuantileRule, SplitConformal};
use conformal_sets::metrics::coverage;
use conformal_sets::score::{ConformityScore, Lac, Raps, aps};
use conformal_sets::synthetic::dirichlet_classifier;
use mlcore::sampling::seeded;

fn mean_coverage<S: ConformityScore + Clone>(score: S, alpha: f64, seed: u64) -> f64 {
    let mut rng = seeded(seed);
    let draws = 200;
    let mut total = 0.0;
    for _ in 0..draws {
        let (pc, yc) = dirichlet_classifier(500, 10, 0.5, &mut rng).unwrap();
        let (pt, yt) = dirichlet_classifier(2000, 10, 0.5, &mut rng).unwrap();
        let cal = SplitConformal::new(score.clone(), alpha, QuantileRule::FiniteSample).unwrap();
        let sets = cal
            .calibrate(pc.view(), &yc, &mut rng)
            .unwrap()
            .predict(pt.view(), &mut rng)
            .unwrap()
            .to_sets();
        total += coverage(&sets, &yt).unwrap();
    }
    total / draws as f64
}

fn assert_within_bounds<S: ConformityScore + Clone>(score: S, seed: u64) {
    for alpha in [0.05, 0.1, 0.2] {
        let c = mean_coverage(score.clone(), alpha, seed);
        let (lo, hi) = (1.0 - alpha - 0.01, 1.0 - alpha + 1.0 / 501.0 + 0.01);
        assert!(
            c >= lo && c <= hi,
            "{} at alpha {alpha}: mean coverage {c} outside [{lo}, {hi}]",
            score.name()
        );
    }
}

#[test]
fn lac_coverage_between_1_minus_alpha_and_plus_1_over_n_plus_1() {
    assert_within_bounds(Lac, 1);
}

#[test]
fn randomized_aps_coverage_between_1_minus_alpha_and_plus_1_over_n_plus_1() {
    assert_within_bounds(aps(true, true), 2);
}

#[test]
fn randomized_raps_coverage_between_1_minus_alpha_and_plus_1_over_n_plus_1() {
    assert_within_bounds(
        Raps {
            lambda: 0.1,
            k_reg: 2,
            randomized: true,
            allow_empty: true,
        },
        3,
    );
}

/// Forcing non-empty sets (the trial's policy) only adds labels, so the lower bound still holds.
#[test]
fn raps_without_empty_sets_still_covers_at_least_1_minus_alpha() {
    for alpha in [0.05, 0.1, 0.2] {
        let c = mean_coverage(Raps::default(), alpha, 4);
        assert!(c >= 1.0 - alpha - 0.01, "alpha {alpha}: {c}");
    }
}
