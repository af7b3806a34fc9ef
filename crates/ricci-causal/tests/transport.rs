//! Exact W1 against a brute LP (`microlp`), Sinkhorn against W1.

use microlp::{ComparisonOp, OptimizationDirection, Problem};
use mlcore::sampling::seeded;
use ndarray::Array2;
use proptest::prelude::*;
use rand::RngExt;
use ricci_causal::transport::{SinkhornParams, sinkhorn, w1_exact};

fn random_problem(m: usize, n: usize, seed: u64, zeros: bool) -> (Vec<f64>, Vec<f64>, Array2<f64>) {
    let mut rng = seeded(seed);
    let mut draw = |k: usize| {
        let mut v: Vec<f64> = (0..k)
            .map(|_| {
                if zeros && rng.random::<f64>() < 0.2 {
                    0.0
                } else {
                    rng.random::<f64>()
                }
            })
            .collect();
        if v.iter().all(|&x| x == 0.0) {
            v[0] = 1.0;
        }
        let s: f64 = v.iter().sum();
        v.iter_mut().for_each(|x| *x /= s);
        v
    };
    let a = draw(m);
    let b = draw(n);
    // Costs: a metric (points on a line) or arbitrary, half the time each.
    let c = if seed.is_multiple_of(2) {
        let xs: Vec<f64> = (0..m).map(|_| rng.random::<f64>()).collect();
        let ys: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
        Array2::from_shape_fn((m, n), |(i, j)| (xs[i] - ys[j]).abs())
    } else {
        Array2::from_shape_fn((m, n), |_| (rng.random::<f64>() * 4.0).floor() / 2.0)
    };
    (a, b, c)
}

fn lp(a: &[f64], b: &[f64], c: &Array2<f64>) -> f64 {
    let mut p = Problem::new(OptimizationDirection::Minimize);
    let (m, n) = c.dim();
    let x: Vec<Vec<_>> = (0..m)
        .map(|i| {
            (0..n)
                .map(|j| p.add_var(c[[i, j]], (0.0, f64::INFINITY)))
                .collect()
        })
        .collect();
    for i in 0..m {
        let row: Vec<_> = (0..n).map(|j| (x[i][j], 1.0)).collect();
        p.add_constraint(row.as_slice(), ComparisonOp::Le, a[i]);
    }
    for j in 0..n {
        let col: Vec<_> = (0..m).map(|i| (x[i][j], 1.0)).collect();
        p.add_constraint(col.as_slice(), ComparisonOp::Ge, b[j] * (1.0 - 1e-14));
    }
    p.solve().expect("the LP is feasible").objective()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(2024), ..ProptestConfig::default() })]

    /// `w1_exact` equals the LP optimum (±1e-9) on measures with ≤ 8 atoms.
    #[test]
    fn exact_w1_equals_brute_lp(m in 1usize..=8, n in 1usize..=8, seed in any::<u64>(), zeros in any::<bool>()) {
        let (a, b, c) = random_problem(m, n, seed, zeros);
        let w = w1_exact(&a, &b, c.view()).unwrap();
        let l = lp(&a, &b, &c);
        prop_assert!((w - l).abs() < 1e-9, "simplex {} vs LP {}", w, l);
    }

    /// Sinkhorn (rounded plan) ≥ W1 − 1e-9 and within 0.05·max cost of W1 at ε = 0.01.
    #[test]
    fn sinkhorn_brackets_w1(m in 1usize..=8, n in 1usize..=8, seed in any::<u64>()) {
        let (a, b, c) = random_problem(m, n, seed, false);
        let w = w1_exact(&a, &b, c.view()).unwrap();
        // The rounded plan is feasible whatever the tolerance; tol only moves its cost (by ≤ 2·tol·max cost).
        let params = SinkhornParams { reg: 0.01, max_iter: 200_000, tol: 1e-4 };
        let s = sinkhorn(&a, &b, c.view(), &params).unwrap();
        let cmax = c.iter().cloned().fold(0.0, f64::max);
        prop_assert!(s.cost >= w - 1e-9, "sinkhorn {} < W1 {}", s.cost, w);
        prop_assert!(s.cost <= w + 0.05 * cmax + 1e-12, "sinkhorn {} vs W1 {}", s.cost, w);
    }
}

/// Larger and highly degenerate problems (equal masses, integer costs): still the LP value.
#[test]
fn degenerate_problems_match_lp() {
    for seed in 0..40u64 {
        let mut rng = seeded(seed);
        let (m, n) = (rng.random_range(5..20), rng.random_range(5..20));
        let a = vec![1.0 / m as f64; m];
        let b = vec![1.0 / n as f64; n];
        let c = Array2::from_shape_fn((m, n), |_| rng.random_range(0..3) as f64);
        let w = w1_exact(&a, &b, c.view()).unwrap();
        assert!((w - lp(&a, &b, &c)).abs() < 1e-9);
    }
}
