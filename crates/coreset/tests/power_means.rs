//! Power means: the Weiszfeld-type solver (closed forms, first-order
//! optimality) and the paper's uniform-sample claim.

use coreset::Error;
use coreset::power_means::{
    PowerMeanOptions, power_mean, power_mean_cost, uniform_coreset, uniform_sample_size,
};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2, Axis, array};
use rand::RngExt;
use rand_distr::StudentT;

fn opts() -> PowerMeanOptions {
    PowerMeanOptions::default()
}

/// p = 2 gives the (weighted) mean; p = 1 on a line gives the median.
#[test]
fn closed_forms_mean_and_median() {
    let pts: Array2<f64> = standard_normal((50, 3), &mut seeded(1));
    let w: Array1<f64> = (0..50).map(|i| 1.0 + (i % 3) as f64).collect();
    let m = power_mean(pts.view(), 2.0, Some(w.view()), &opts()).unwrap();
    let mean = pts.t().dot(&w) / w.sum();
    for (u, v) in m.center.iter().zip(&mean) {
        assert!((u - v).abs() < 1e-12);
    }
    let line = array![[0.0], [1.0], [2.5], [7.0], [100.0]];
    let med = power_mean(line.view(), 1.0, None, &opts()).unwrap();
    assert!((med.center[0] - 2.5).abs() < 1e-6, "{}", med.center[0]);
    // Equilateral triangle: the geometric median is the centroid.
    let tri = array![[0.0, 0.0], [1.0, 0.0], [0.5, 3f64.sqrt() / 2.0]];
    let g = power_mean(tri.view(), 1.0, None, &opts()).unwrap();
    assert!((g.center[0] - 0.5).abs() < 1e-6 && (g.center[1] - 3f64.sqrt() / 6.0).abs() < 1e-6);
}

/// The gradient Σ wᵢ p ‖aᵢ − x‖^{p−2} (x − aᵢ) vanishes at the solution
/// (relative to Σ wᵢ p ‖aᵢ − x‖^{p−1}), for p ∈ {1.5, 3, 6} on t₃ data, and
/// no small perturbation lowers the cost.
#[test]
fn solution_is_first_order_optimal() {
    let mut rng = seeded(2);
    let t = StudentT::new(3.0).unwrap();
    let pts = Array2::from_shape_simple_fn((300, 4), || rng.sample(t));
    for p in [1.5, 3.0, 6.0] {
        let sol = power_mean(pts.view(), p, None, &opts()).unwrap();
        let mut g = Array1::<f64>::zeros(4);
        let mut scale = 0.0;
        for a in pts.axis_iter(Axis(0)) {
            let diff = &sol.center - &a;
            let r = diff.dot(&diff).sqrt();
            g.scaled_add(p * r.powf(p - 2.0), &diff);
            scale += p * r.powf(p - 1.0);
        }
        assert!(
            g.dot(&g).sqrt() <= 1e-6 * scale,
            "p = {p}: |g| = {}",
            g.dot(&g).sqrt()
        );
        for k in 0..20 {
            let h: Array1<f64> = standard_normal(4, &mut seeded(100 + k));
            let x = &sol.center + &(h * 1e-3);
            let c = power_mean_cost(pts.view(), x.view(), p, None).unwrap();
            assert!(c >= sol.cost * (1.0 - 1e-12), "p = {p}");
        }
    }
}

/// The paper's power-mean claim with the sizing of the spec: Gaussian
/// points, n = 20 000, dimension 10, a uniform sample of s = 40 rows. The
/// excess cost F(x̂_S)/F(x*) − 1 is at most 0.1 in at least 90% of 50 seeds
/// for each p ∈ {1, 1.5, 3}.
#[test]
fn uniform_sample_power_mean_excess_is_small() {
    let pts: Array2<f64> = standard_normal((20_000, 10), &mut seeded(3));
    for p in [1.0, 1.5, 3.0] {
        let best = power_mean(pts.view(), p, None, &opts()).unwrap();
        let mut ok = 0;
        for seed in 0..50 {
            let idx = uniform_coreset(pts.nrows(), 40, &mut seeded(seed)).unwrap();
            let sub = pts.select(Axis(0), &idx);
            let x = power_mean(sub.view(), p, None, &opts()).unwrap().center;
            let excess = power_mean_cost(pts.view(), x.view(), p, None).unwrap() / best.cost - 1.0;
            assert!(excess >= -1e-9, "p = {p}: the full solve is not optimal");
            if excess <= 0.1 {
                ok += 1;
            }
        }
        assert!(ok >= 45, "p = {p}: only {ok} of 50 seeds within 0.1");
    }
}

/// More samples, less excess: on t₃ data at p = 3 the median excess at
/// s = 640 is below a quarter of that at s = 40 (the ε^{1−p} = ε⁻² regime:
/// 16× the samples, ≈ 4× less error).
#[test]
fn excess_shrinks_with_the_sample_size() {
    let mut rng = seeded(4);
    let t = StudentT::new(3.0).unwrap();
    let pts = Array2::from_shape_simple_fn((20_000, 10), || rng.sample(t));
    let p = 3.0;
    let best = power_mean(pts.view(), p, None, &opts()).unwrap();
    let median_excess = |s: usize| -> f64 {
        let mut e: Vec<f64> = (0..21)
            .map(|seed| {
                let idx = uniform_coreset(pts.nrows(), s, &mut seeded(seed)).unwrap();
                let sub = pts.select(Axis(0), &idx);
                let x = power_mean(sub.view(), p, None, &opts()).unwrap().center;
                power_mean_cost(pts.view(), x.view(), p, None).unwrap() / best.cost - 1.0
            })
            .collect();
        e.sort_by(f64::total_cmp);
        e[10]
    };
    let (small, large) = (median_excess(40), median_excess(640));
    assert!(large < 0.25 * small, "s = 40: {small}, s = 640: {large}");
}

/// The sample sizes follow the three regimes of the abstract.
#[test]
fn sample_sizes_follow_the_regimes() {
    assert_eq!(uniform_sample_size(0.1, 1.0, 1.0).unwrap(), 100);
    assert_eq!(uniform_sample_size(0.1, 1.5, 1.0).unwrap(), 10);
    assert_eq!(uniform_sample_size(0.1, 2.0, 1.0).unwrap(), 10);
    assert_eq!(uniform_sample_size(0.1, 3.0, 2.0).unwrap(), 200);
    assert_eq!(uniform_sample_size(0.5, 4.0, 1.0).unwrap(), 8);
    let idx = uniform_coreset(10, 4, &mut seeded(0)).unwrap();
    assert_eq!(idx.len(), 4);
    assert!(idx.windows(2).all(|w| w[0] < w[1]) && idx[3] < 10);
    assert_eq!(
        uniform_coreset(3, 5, &mut seeded(0)).unwrap(),
        vec![0, 1, 2]
    );
}

/// Bad input returns typed errors.
#[test]
fn power_mean_entry_points_reject_bad_input() {
    let pts = array![[0.0, 1.0], [2.0, 3.0]];
    let empty = Array2::<f64>::zeros((0, 2));
    let mut nan = pts.clone();
    nan[[1, 0]] = f64::NAN;
    assert!(matches!(
        power_mean(pts.view(), 0.5, None, &opts()),
        Err(Error::InvalidP { .. })
    ));
    assert!(matches!(
        power_mean(empty.view(), 1.0, None, &opts()),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        power_mean(nan.view(), 1.0, None, &opts()),
        Err(Error::NonFinite { row: 1, col: 0, .. })
    ));
    let neg = array![1.0, -1.0];
    assert!(matches!(
        power_mean(pts.view(), 1.0, Some(neg.view()), &opts()),
        Err(Error::InvalidWeights { index: 1, .. })
    ));
    let zero = array![0.0, 0.0];
    assert!(matches!(
        power_mean(pts.view(), 1.0, Some(zero.view()), &opts()),
        Err(Error::ZeroMatrix { .. })
    ));
    let short = array![1.0];
    assert!(matches!(
        power_mean(pts.view(), 1.0, Some(short.view()), &opts()),
        Err(Error::ShapeMismatch { .. })
    ));
    let bad_opts = PowerMeanOptions {
        max_iter: 0,
        ..opts()
    };
    assert!(matches!(
        power_mean(pts.view(), 1.0, None, &bad_opts),
        Err(Error::InvalidParameter { .. })
    ));
    let capped = PowerMeanOptions {
        max_iter: 1,
        tol: 1e-300,
        ..opts()
    };
    let far = array![[0.0], [1.0], [10.0], [11.0], [50.0]];
    assert!(matches!(
        power_mean(far.view(), 1.0, None, &capped),
        Err(Error::NotConverged { .. })
    ));
    let x = array![1.0];
    assert!(matches!(
        power_mean_cost(pts.view(), x.view(), 1.0, None),
        Err(Error::ShapeMismatch { .. })
    ));
    let xn = array![1.0, f64::INFINITY];
    assert!(matches!(
        power_mean_cost(pts.view(), xn.view(), 1.0, None),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        uniform_sample_size(1.0, 1.0, 1.0),
        Err(Error::InvalidEpsilon { .. })
    ));
    assert!(matches!(
        uniform_sample_size(0.1, f64::NAN, 1.0),
        Err(Error::InvalidP { .. })
    ));
    assert!(matches!(
        uniform_sample_size(0.1, 1.0, -1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        uniform_coreset(0, 1, &mut seeded(0)),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        uniform_coreset(5, 0, &mut seeded(0)),
        Err(Error::InvalidParameter { .. })
    ));
}
