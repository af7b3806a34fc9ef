//! Properties 2 and 3 of the spec: the closed-form nested toy.

use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Allocation, Coupling, MlmcConfig, estimate, estimate_adaptive, nested_mc, rates,
};
use lookahead_mlmc::toy::{NestedToy, toy_expected_value};
use mlcore::sampling::seeded;

/// Property 2: the MLMC telescoping sum up to level L has the exact mean
/// `√(1 + 2^{−L})/√(2π)`; with N = 2·10⁴ per level the estimate lies within
/// 4 standard errors (failure probability ≈ 6e-5 per L; fixed seeds).
#[test]
fn mlmc_toy_estimate_within_4_se_of_exact_biased_value() {
    for (seed, l) in (4u32..=8).enumerate() {
        let mut rng = seeded(100 + seed as u64);
        let mut toy = NestedToy {
            coupling: Coupling::Antithetic,
        };
        let alloc = Allocation {
            levels: (3..=l).collect(),
            n: vec![20_000; (l - 2) as usize],
            k: 0.0,
            model_variance: 0.0,
        };
        let est = estimate(&mut toy, &alloc, &mut rng).unwrap();
        let exact = toy_expected_value((1u64 << l) as f64);
        let se = est.variance.sqrt();
        assert!(
            (est.value - exact).abs() < 4.0 * se,
            "L = {l}: {} vs {exact} (se {se})",
            est.value
        );
    }
}

/// Property 3: fitted variance rates on levels 3..8: β ∈ [1.3, 1.8]
/// (antithetic), β ∈ [0.8, 1.25] (standard), α ∈ [0.8, 1.2], γ = 1.
#[test]
fn toy_variance_rates_antithetic_1_5_standard_1() {
    let mut rng = seeded(7);
    let mut anti = NestedToy {
        coupling: Coupling::Antithetic,
    };
    let r = rates(&mut anti, 3, 8, 40_000, &mut rng).unwrap();
    assert!((1.3..=1.8).contains(&r.beta), "antithetic β = {}", r.beta);
    assert!((0.8..=1.2).contains(&r.alpha), "α = {}", r.alpha);
    assert!((r.gamma - 1.0).abs() < 1e-9, "γ = {}", r.gamma);
    let mut std = NestedToy {
        coupling: Coupling::Standard,
    };
    let r = rates(&mut std, 3, 8, 40_000, &mut rng).unwrap();
    assert!((0.8..=1.25).contains(&r.beta), "standard β = {}", r.beta);
}

/// Giles's adaptive MLMC reaches RMSE ε: over 20 seeds the empirical RMSE
/// against the exact `P = 1/√(2π)` is below 1.5 ε (the RMSE itself is ≤ ε
/// in expectation; 1.5 leaves room for the 20-sample estimate of it).
#[test]
fn adaptive_mlmc_reaches_target_rmse() {
    let eps = 0.01;
    let exact = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let mut se = 0.0;
    for seed in 0..20 {
        let mut rng = seeded(1000 + seed);
        let mut toy = NestedToy {
            coupling: Coupling::Antithetic,
        };
        let e = estimate_adaptive(
            &mut toy,
            eps,
            &MlmcConfig::default(),
            &AdaptiveConfig::default(),
            &mut rng,
        )
        .unwrap();
        se += (e.value - exact).powi(2);
    }
    let rmse = (se / 20.0).sqrt();
    assert!(rmse < 1.5 * eps, "rmse {rmse}");
}

/// Nested MC at level L is unbiased for `E[P_{2^L}]` (within 4 SE).
#[test]
fn nested_mc_matches_exact_biased_value() {
    let mut rng = seeded(3);
    let mut toy = NestedToy {
        coupling: Coupling::Antithetic,
    };
    let e = nested_mc(&mut toy, 2, 200_000, &mut rng).unwrap();
    let exact = toy_expected_value(4.0);
    assert!((e.value - exact).abs() < 4.0 * e.variance.sqrt());
    assert_eq!(e.cost, 800_000.0);
}
