//! Lewis-weight identities: Σw = rank, 0 ≤ w ≤ 1, p = 2 leverage, the d = 1
//! closed form, invariances, known values, convergence of the damped step.

use coreset::Error;
use coreset::lewis::{
    Damping, LewisOptions, SketchOptions, leverage_scores, lewis_weights, lewis_weights_sketched,
    sketched_leverage_scores,
};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2, array, s};
use proptest::prelude::*;
use rand::RngExt;
use rand_distr::StudentT;

fn tight() -> LewisOptions {
    LewisOptions {
        tol: 1e-12,
        ..LewisOptions::default()
    }
}

/// Gaussian or Student-t₂ entries.
fn matrix(n: usize, d: usize, heavy: bool, seed: u64) -> Array2<f64> {
    let mut rng = seeded(seed);
    if heavy {
        let t = StudentT::new(2.0).unwrap();
        Array2::from_shape_simple_fn((n, d), || rng.sample(t))
    } else {
        standard_normal((n, d), &mut rng)
    }
}

#[test]
fn known_values_of_the_5x2_matrix() {
    let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 3.0]];
    let cases: [(f64, [f64; 5]); 4] = [
        (1.0, [0.2683842, 0.2200461, 0.3146628, 0.5367684, 0.6601384]),
        (
            2.0,
            [
                11.0 / 65.0,
                6.0 / 65.0,
                15.0 / 65.0,
                44.0 / 65.0,
                54.0 / 65.0,
            ],
        ),
        (3.0, [0.0989404, 0.0339176, 0.1598429, 0.7915233, 0.9157758]),
        (6.0, [0.0149266, 0.0013519, 0.0429183, 0.9553003, 0.9855029]),
    ];
    for (p, want) in cases {
        let lw = lewis_weights(a.view(), p, &tight()).unwrap();
        assert_eq!(lw.rank(), 2);
        for (got, want) in lw.w().iter().zip(want) {
            assert!((got - want).abs() < 5e-7, "p = {p}: {got} vs {want}");
        }
        assert!((lw.w().sum() - 2.0).abs() < 1e-10);
    }
}

/// The default step min(1, 4/(p+2)) converges for large p, where the
/// Cohen–Peng step η = 1 does not.
#[test]
fn damped_step_converges_where_cohen_peng_fails() {
    let a = matrix(400, 6, false, 3);
    for p in [4.0, 6.0, 12.0, 20.0] {
        let lw = lewis_weights(a.view(), p, &LewisOptions::default()).unwrap();
        assert!(lw.fixed_point_residual() <= 1e-10);
        assert!((lw.step() - 4.0 / (p + 2.0)).abs() < 1e-15);
        let cp = LewisOptions {
            damping: Damping::CohenPeng,
            max_iter: 300,
            ..LewisOptions::default()
        };
        assert!(matches!(
            lewis_weights(a.view(), p, &cp),
            Err(Error::NotConverged { .. })
        ));
    }
    // Below 4, Cohen–Peng converges to the same weights.
    for p in [1.0, 1.5, 3.0] {
        let cp = LewisOptions {
            damping: Damping::CohenPeng,
            ..tight()
        };
        let w1 = lewis_weights(a.view(), p, &cp).unwrap().into_weights();
        let w2 = lewis_weights(a.view(), p, &tight()).unwrap().into_weights();
        assert!((&w1 - &w2).iter().all(|e| e.abs() < 1e-10));
    }
}

/// Rank-deficient A: Σw = rank, no error, duplicated column changes nothing.
#[test]
fn rank_deficient_a_uses_its_column_span() {
    let base = matrix(50, 3, false, 9);
    let mut a = Array2::zeros((50, 5));
    a.slice_mut(s![.., ..3]).assign(&base);
    let c0 = base.column(0).to_owned() * 2.0 - base.column(1);
    a.column_mut(3).assign(&c0);
    a.column_mut(4).assign(&base.column(2));
    for p in [1.0, 2.5, 7.0] {
        let lw = lewis_weights(a.view(), p, &tight()).unwrap();
        let lb = lewis_weights(base.view(), p, &tight()).unwrap();
        assert_eq!(lw.rank(), 3);
        assert!((lw.w().sum() - 3.0).abs() < 1e-8);
        assert!((&lw.w() - &lb.w()).iter().all(|e| e.abs() < 1e-9));
    }
}

/// Sketched weights are within a constant factor of the exact ones.
#[test]
fn sketched_scores_are_within_a_constant_factor() {
    let a = matrix(20_000, 5, true, 4);
    let mut rng = seeded(1);
    let sk = SketchOptions {
        rows: None,
        jl_cols: 64,
    };
    let exact = leverage_scores(a.view()).unwrap();
    let approx = sketched_leverage_scores(a.view(), &sk, &mut rng).unwrap();
    let worst = exact
        .iter()
        .zip(&approx)
        .map(|(e, a)| (a / e).ln().abs())
        .fold(0.0, f64::max);
    assert!(worst < 2f64.ln() * 2.0, "worst log-ratio {worst}");
    for p in [1.0, 3.0] {
        let lw = lewis_weights(a.view(), p, &LewisOptions::default()).unwrap();
        let ls =
            lewis_weights_sketched(a.view(), p, &LewisOptions::default(), &sk, &mut rng).unwrap();
        assert!(ls.fixed_point_residual() <= 1e-10);
        let worst = lw
            .w()
            .iter()
            .zip(&ls.w())
            .map(|(e, a)| (a / e).ln().abs())
            .fold(0.0, f64::max);
        assert!(worst < 2f64.ln() * 2.0, "p = {p}: worst log-ratio {worst}");
        assert!((ls.w().sum() / 5.0 - 1.0).abs() < 0.2);
    }
}

fn arb_case() -> impl Strategy<Value = (usize, usize, f64, bool, u64)> {
    (1usize..=5).prop_flat_map(|d| {
        (
            Just(d),
            d..=60usize,
            1.0f64..=12.0,
            any::<bool>(),
            any::<u64>(),
        )
    })
}

proptest! {
    // Seeded: the same 64 cases on every run (issue 32).
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x1e_2024),
        ..ProptestConfig::with_cases(64)
    })]

    /// Σ wᵢ = rank A ± 1e-8, 0 ≤ wᵢ ≤ 1 + 1e-12, fixed-point residual ≤ 1e-9.
    #[test]
    fn lewis_weights_sum_to_rank_and_lie_in_unit_interval((d, n, p, heavy, seed) in arb_case()) {
        let a = matrix(n, d, heavy, seed);
        let lw = lewis_weights(a.view(), p, &LewisOptions::default()).unwrap();
        prop_assert_eq!(lw.rank(), d);
        prop_assert!((lw.w().sum() - d as f64).abs() < 1e-8, "sum {}", lw.w().sum());
        prop_assert!(lw.w().iter().all(|&w| (0.0..=1.0 + 1e-12).contains(&w)));
        prop_assert!(lw.fixed_point_residual() <= 1e-9);
    }

    /// p = 2 Lewis weights equal the leverage scores within 1e-10.
    #[test]
    fn p2_lewis_weights_equal_leverage_scores((d, n, _p, heavy, seed) in arb_case()) {
        let a = matrix(n, d, heavy, seed);
        let lw = lewis_weights(a.view(), 2.0, &tight()).unwrap();
        let tau = leverage_scores(a.view()).unwrap();
        prop_assert!((&lw.w() - &tau).iter().all(|e| e.abs() < 1e-10));
    }

    /// d = 1: wᵢ = |aᵢ|ᵖ / Σⱼ |aⱼ|ᵖ within 1e-10.
    #[test]
    fn d1_lewis_weights_match_closed_form((_d, n, p, heavy, seed) in arb_case()) {
        let a = matrix(n, 1, heavy, seed);
        let lw = lewis_weights(a.view(), p, &tight()).unwrap();
        let pow: Array1<f64> = a.column(0).mapv(|x| x.abs().powf(p));
        let closed = &pow / pow.sum();
        prop_assert!((&lw.w() - &closed).iter().all(|e| e.abs() < 1e-10));
    }

    /// w(AR) = w(cA) = w(A) within 1e-8; rows permute with A; zero rows get exactly 0.
    #[test]
    fn lewis_weights_are_invariant_and_equivariant((d, n, p, heavy, seed) in arb_case()) {
        let a = matrix(n, d, heavy, seed);
        let w = lewis_weights(a.view(), p, &tight()).unwrap().into_weights();
        // R = I + 0.3 G has moderate condition number; skip the rare bad draw.
        let mut rng = seeded(seed ^ 0x5eed);
        let r = Array2::<f64>::eye(d) + standard_normal((d, d), &mut rng) * 0.3;
        let sv = mlcore::linalg::svd(r.view()).unwrap().s;
        if sv[0] / sv[d - 1] < 1e3 {
            let war = lewis_weights(a.dot(&r).view(), p, &tight()).unwrap().into_weights();
            prop_assert!((&war - &w).iter().all(|e| e.abs() < 1e-8));
        }
        let wca = lewis_weights((&a * -37.5).view(), p, &tight()).unwrap().into_weights();
        prop_assert!((&wca - &w).iter().all(|e| e.abs() < 1e-8));
        let perm: Vec<usize> = (0..n).rev().collect();
        let wp = lewis_weights(a.select(ndarray::Axis(0), &perm).view(), p, &tight()).unwrap().into_weights();
        for (k, &i) in perm.iter().enumerate() {
            prop_assert!((wp[k] - w[i]).abs() < 1e-10);
        }
        let mut az = Array2::zeros((n + 2, d));
        az.slice_mut(s![1..n + 1, ..]).assign(&a);
        let wz = lewis_weights(az.view(), p, &tight()).unwrap().into_weights();
        prop_assert_eq!(wz[0], 0.0);
        prop_assert_eq!(wz[n + 1], 0.0);
        prop_assert!((wz.slice(s![1..n + 1]).to_owned() - &w).iter().all(|e| e.abs() < 1e-10));
    }
}
