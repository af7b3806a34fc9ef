//! Hostile inputs at every public entry point (issue 33, "Bad input"): NaN,
//! ±∞, values near ±f64::MAX and subnormal, rows not summing to one, empty
//! and ragged matrices, labels ≥ K and usize::MAX, α ∉ (0, 1), negative or
//! infinite λ, k_reg = usize::MAX, tiny temperatures, huge sizes. Every call
//! returns a typed `Err` or an `Ok` whose result is valid (sets of labels
//! < K, ascending; probabilities and p-values in [0, 1]; finite
//! statistics): never a panic, an endless loop or an abort. Seeded.

use conformal_sets::calibrate::{
    QuantileRule, SplitConformal, check_alpha, check_labels, check_probabilities,
    min_calibration_size, quantile_index, scores,
};
use conformal_sets::matching::{
    alpha_matching_top_k, equal_coverage_raps, smallest_k_for_alpha, top_k_coverage,
    top_k_coverages, top_k_sets,
};
use conformal_sets::metrics::{
    CoverageDistribution, RAPS_STRATA, class_conditional_coverage, coverage, mean_size,
    size_stratified_coverage,
};
use conformal_sets::rct::{
    Alternative, MwuMethod, anova_oneway, bootstrap_ci, cohens_d, compare_samples, hedges_g,
    mann_whitney_u, n_per_arm, noncentral_t_cdf, noncentral_t_sf, parse_results_csv, power,
    student_t, summarize, welch_t,
};
use conformal_sets::score::{Lac, Raps, TopKRank, top_k};
use conformal_sets::sets::PredictionSets;
use conformal_sets::synthetic::dirichlet_classifier;
use conformal_sets::tune::{
    fit_temperature, nll_inverse_temperature, pick_k_reg, pick_lambda_by_size, softmax, tune_raps,
};
use mlcore::sampling::seeded;
use ndarray::{Array2, ArrayView1};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(0x33_c0f5),
        ..ProptestConfig::with_cases(cases)
    }
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(-f64::MAX),
        Just(1e300),
        Just(5e-324),
        Just(1e-308),
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(-1.0),
        Just(0.1),
        0.0..1.0f64,
        0.0..1.0f64,
    ]
}

fn hostile_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        Just(usize::MAX),
        Just(1usize << 40),
        0usize..6
    ]
}

/// A matrix of `rows × cols` whose rows are either hostile or valid
/// probability vectors (normalised uniforms), so that both paths run.
fn matrix() -> impl Strategy<Value = Array2<f64>> {
    (0usize..5, 0usize..5, any::<bool>()).prop_flat_map(|(r, c, valid)| {
        prop::collection::vec(
            if valid {
                (0.01..1.0f64).boxed()
            } else {
                hostile_f64().boxed()
            },
            r * c,
        )
        .prop_map(move |v| {
            let mut m = Array2::from_shape_vec((r, c), v).expect("r·c entries");
            if valid {
                for mut row in m.rows_mut() {
                    let s = row.sum();
                    row.mapv_inplace(|x| x / s);
                }
            }
            m
        })
    })
}

fn labels() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![Just(usize::MAX), 0usize..5], 0..5)
}

fn valid_sets(sets: &PredictionSets, k: usize) -> bool {
    sets.iter()
        .all(|s| s.windows(2).all(|w| w[0] < w[1]) && s.iter().all(|&y| y < k))
}

fn unit(v: f64) -> bool {
    (0.0..=1.0).contains(&v)
}

proptest! {
    #![proptest_config(config(256))]

    /// Calibration, prediction, matching, tuning and metrics.
    #[test]
    fn conformal_entry_points(
        p in matrix(),
        t in matrix(),
        y in labels(),
        alpha in hostile_f64(),
        lambda in hostile_f64(),
        k_reg in hostile_usize(),
        k in hostile_usize(),
        randomized in any::<bool>(),
    ) {
        let mut rng = seeded(1);
        let _ = (check_probabilities(p.view()), check_labels(p.view(), &y), check_alpha(alpha));
        for rule in [QuantileRule::FiniteSample, QuantileRule::NumpyHigher] {
            if let Ok(i) = quantile_index(y.len(), alpha, rule) {
                prop_assert!(i >= 1);
            }
        }
        if let Ok(n) = min_calibration_size(alpha) {
            prop_assert!(n >= 1);
        }
        let raps = Raps { lambda, k_reg, randomized, allow_empty: randomized };
        if let Ok(s) = scores(&raps, p.view(), &y, &mut rng) {
            prop_assert!(s.iter().all(|v| v.is_finite()));
        }
        if let Ok(cal) = SplitConformal::new(raps, alpha, QuantileRule::FiniteSample)
            && let Ok(fitted) = cal.calibrate(p.view(), &y, &mut rng)
            && let Ok(sets) = fitted.predict(t.view(), &mut rng)
        {
            prop_assert!(valid_sets(&sets, t.ncols()));
            prop_assert_eq!(sets.len(), t.nrows());
            if let Ok(c) = sets.coverage(&y) {
                prop_assert!(unit(c));
            }
        }
        for rule in [QuantileRule::FiniteSample, QuantileRule::NumpyHigher] {
            if let Ok(cal) = SplitConformal::new(Lac, alpha, rule)
                && let Ok(fitted) = cal.calibrate(p.view(), &y, &mut rng)
                && let Ok(sets) = fitted.predict(t.view(), &mut rng)
            {
                prop_assert!(valid_sets(&sets, t.ncols()));
            }
            if let Ok(cal) = SplitConformal::new(TopKRank, alpha, rule)
                && let Ok(fitted) = cal.calibrate(p.view(), &y, &mut rng)
                && let Ok(sets) = fitted.predict(t.view(), &mut rng)
            {
                prop_assert!(valid_sets(&sets, t.ncols()));
            }
        }
        if let Ok(sets) = top_k_sets(p.view(), k) {
            prop_assert!(sets.iter().all(|s| s.len() <= p.ncols()));
            for v in [coverage(&sets, &y), mean_size(&sets)].into_iter().flatten() {
                prop_assert!(v.is_finite() && v >= 0.0);
            }
            if let Ok(st) = size_stratified_coverage(&sets, &y, &RAPS_STRATA) {
                prop_assert!(st.iter().all(|s| s.coverage.is_none_or(unit)));
            }
            if let Ok(cc) = class_conditional_coverage(&sets, &y, k) {
                prop_assert!(cc.iter().flatten().all(|&c| unit(c)));
            }
        }
        if let Ok(c) = top_k_coverage(p.view(), &y, k) {
            prop_assert!(unit(c));
        }
        if let Ok(cs) = top_k_coverages(p.view(), &y) {
            prop_assert!(cs.iter().all(|&c| unit(c)));
        }
        if let Ok(a) = alpha_matching_top_k(p.view(), &y, k) {
            prop_assert!(a > 0.0 && a < 1.0);
        }
        if let Ok(kk) = smallest_k_for_alpha(p.view(), &y, alpha) {
            prop_assert!(kk <= p.ncols());
        }
        let _ = equal_coverage_raps(p.view(), &y, k, raps, QuantileRule::FiniteSample, &mut rng);
        let _ = pick_k_reg(p.view(), &y, alpha);
        let _ = pick_lambda_by_size(p.view(), &y, alpha, raps, &[lambda, 0.1], QuantileRule::FiniteSample, &mut rng);
        let _ = tune_raps(p.view(), &y, alpha, lambda, raps, QuantileRule::FiniteSample, &mut rng);
        if let Ok(s) = softmax(p.view(), lambda) {
            prop_assert!(s.iter().all(|&v| unit(v)));
        }
        if let Ok((f, g, h)) = nll_inverse_temperature(p.view(), &y, lambda) {
            prop_assert!(f.is_finite() && g.is_finite() && h.is_finite());
        }
        if let Ok(temp) = fit_temperature(p.view(), &y) {
            prop_assert!(temp.is_finite() && temp > 0.0);
        }
        let row: Vec<f64> = p.iter().copied().collect();
        if check_probabilities(p.view()).is_ok() && p.nrows() > 0 {
            let s = top_k(&row[..p.ncols()], k);
            prop_assert!(s.len() == k.min(p.ncols()));
        }
    }

    /// The trial analysis, the coverage law and the synthetic classifier.
    #[test]
    fn rct_and_distributions(
        x in prop::collection::vec(hostile_f64(), 0..6),
        z in prop::collection::vec(hostile_f64(), 0..6),
        a in hostile_f64(),
        b in hostile_f64(),
        n in hostile_usize(),
        classes in hostile_usize(),
        text in "[a-z0-9,.\\n-]{0,60}",
    ) {
        let (xv, zv) = (ArrayView1::from(&x), ArrayView1::from(&z));
        for alt in [Alternative::TwoSided, Alternative::Less, Alternative::Greater] {
            for r in [welch_t(xv, zv, alt), student_t(xv, zv, alt)].into_iter().flatten() {
                prop_assert!(unit(r.p_value));
            }
            for method in [MwuMethod::Auto, MwuMethod::Exact, MwuMethod::Asymptotic] {
                if let Ok(m) = mann_whitney_u(xv, zv, alt, method, true) {
                    prop_assert!(unit(m.p_value));
                }
            }
            if let Ok(p) = power(a, n.min(1 << 20), b, alt) {
                prop_assert!(unit(p));
            }
            let _ = n_per_arm(a, b, 0.8, alt);
            let _ = compare_samples(xv, zv, alt);
        }
        for v in [cohens_d(xv, zv), hedges_g(xv, zv)].into_iter().flatten() {
            prop_assert!(v.is_finite());
        }
        if let Ok(an) = anova_oneway(&[xv, zv]) {
            prop_assert!(unit(an.p_value));
        }
        let _ = summarize(xv);
        let mut rng = seeded(2);
        if let Ok(ci) = bootstrap_ci(xv, zv, |u, v| u.len() as f64 - v.len() as f64, n.min(50), a, &mut rng) {
            prop_assert!(ci.lower <= ci.upper);
        }
        for v in [noncentral_t_cdf(a, b, a), noncentral_t_sf(a, b, b)].into_iter().flatten() {
            prop_assert!(unit(v));
        }
        if let Ok(law) = CoverageDistribution::new(n, a) {
            prop_assert!(unit(law.mean()));
            for v in [law.cdf(b), law.quantile(b)].into_iter().flatten() {
                prop_assert!(v.is_finite());
            }
        }
        if let Ok((pm, y)) = dirichlet_classifier(n.min(8), classes.min(8), a, &mut rng) {
            prop_assert!(pm.nrows() == 0 || check_probabilities(pm.view()).is_ok());
            prop_assert!(y.iter().all(|&l| l < pm.ncols()));
        }
        let _ = parse_results_csv(&text, "hostile");
    }
}

/// Huge sizes are refused with a typed error, not an allocation abort.
#[test]
fn huge_sizes_are_refused() {
    let mut rng = seeded(3);
    assert!(dirichlet_classifier(usize::MAX, 10, 1.0, &mut rng).is_err());
    assert!(dirichlet_classifier(1 << 40, 1 << 40, 1.0, &mut rng).is_err());
}
