//! Properties 4 (EI) and 5 (fantasize = refit) of the spec, and GP known values.

use lookahead_mlmc::acq::{ei, expected_improvement, q_expected_improvement};
use lookahead_mlmc::gp::{ExactGp, FitConfig, Kernel, KernelKind, fit_map};
use mlcore::sampling::{seeded, standard_normal};
use ndarray::{Array1, Array2, array};
use proptest::prelude::*;
use rand::RngExt;

fn spec_gp() -> ExactGp {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let f = |x: f64| {
        (-(x - 2.0).powi(2)).exp() + (-(x - 6.0).powi(2) / 10.0).exp() + 1.0 / (x * x + 1.0)
    };
    let y = x.column(0).mapv(f);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap()
}

/// Posterior interpolates (noise 1e-4): μ(xᵢ) ≈ yᵢ, σ²(xᵢ) ≤ η, and σ² ≤ s far away.
#[test]
fn posterior_interpolates_training_data() {
    let gp = spec_gp();
    for (i, &xi) in [-8.0, -3.0, 0.0, 2.5, 7.0].iter().enumerate() {
        let (m, v) = gp.posterior(array![xi].view()).unwrap();
        assert!((m - gp.targets()[i]).abs() < 1e-3);
        assert!(v <= 1e-4 + 1e-12);
    }
    let (_, v) = gp.posterior(array![100.0].view()).unwrap();
    assert!((v - 1.0).abs() < 1e-9);
}

/// Property 4a: EI ≥ 0, non-decreasing in μ and in σ (grid).
#[test]
fn ei_nonnegative_and_monotone() {
    for i in 0..60 {
        let mu = -3.0 + 0.1 * i as f64;
        for j in 0..40 {
            let s = 0.05 * j as f64;
            let e = ei(mu, s, 0.0);
            assert!(e >= 0.0);
            assert!(ei(mu + 0.1, s, 0.0) >= e - 1e-15);
            assert!(ei(mu, s + 0.05, 0.0) >= e - 1e-15);
        }
    }
}

/// Property 4b: analytic EI agrees with a 10⁵-sample MC EI within 4 SE.
#[test]
fn analytic_ei_matches_mc_within_4_se() {
    let gp = spec_gp();
    let mut rng = seeded(5);
    let best = gp.best_observed();
    for &x in &[-5.0, 1.0, 4.0, 9.0] {
        let (m, v) = gp.posterior(array![x].view()).unwrap();
        let a = expected_improvement(&gp, array![x].view(), best).unwrap();
        let n = 100_000;
        let z: Array2<f64> = standard_normal((n, 1), &mut rng);
        let imp: Vec<f64> = z
            .iter()
            .map(|z| (m + v.sqrt() * z - best).max(0.0))
            .collect();
        let mean = imp.iter().sum::<f64>() / n as f64;
        let var = imp.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!(
            (a - mean).abs() <= 4.0 * (var / n as f64).sqrt() + 1e-12,
            "x = {x}"
        );
        // and q-EI with q = 1 is exactly this MC mean
        let q = q_expected_improvement(&gp, array![[x]].view(), best, z.view()).unwrap();
        assert!((q - mean).abs() < 1e-12);
    }
}

fn random_gp(
    n: usize,
    d: usize,
    seed: u64,
    kind: KernelKind,
) -> (Array2<f64>, Array1<f64>, Kernel) {
    let mut rng = seeded(seed);
    let x = Array2::from_shape_fn((n, d), |_| rng.random::<f64>());
    let y = Array1::from_shape_fn(n, |i| (3.0 * x[[i, 0]]).sin() + 0.1 * rng.random::<f64>());
    let ls: Vec<f64> = (0..d).map(|_| 0.2 + rng.random::<f64>()).collect();
    (x, y, Kernel::new(kind, ls, 1.5).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Property 5: fantasize (Cholesky bordering) equals refitting with the
    /// extra point to 1e-9 relative, n ≤ 30, d ≤ 6.
    #[test]
    fn fantasize_equals_refit(n in 1usize..30, d in 1usize..=6, seed in 0u64..1000, rbf in any::<bool>()) {
        let kind = if rbf { KernelKind::Rbf } else { KernelKind::Matern52 };
        let (x, y, k) = random_gp(n, d, seed, kind);
        let gp = ExactGp::new(x.view(), y.view(), k.clone(), 0.3, 1e-4).unwrap();
        let mut rng = seeded(seed + 1);
        let xn = Array1::from_shape_fn(d, |_| rng.random::<f64>());
        let yn = 0.7;
        let f = gp.fantasize(xn.view(), yn).unwrap();
        let mut x2 = x.clone();
        x2.push_row(xn.view()).unwrap();
        let mut y2 = y.to_vec();
        y2.push(yn);
        let r = ExactGp::new(x2.view(), Array1::from_vec(y2).view(), k, 0.3, 1e-4).unwrap();
        for _ in 0..5 {
            let p = Array1::from_shape_fn(d, |_| rng.random::<f64>() * 1.2 - 0.1);
            let (m1, v1) = f.posterior(p.view()).unwrap();
            let (m2, v2) = r.posterior(p.view()).unwrap();
            prop_assert!((m1 - m2).abs() <= 1e-9 * m2.abs().max(1.0), "{m1} vs {m2}");
            prop_assert!((v1 - v2).abs() <= 1e-9 * v2.abs().max(1.0), "{v1} vs {v2}");
        }
        let l1 = f.log_marginal_likelihood();
        let l2 = r.log_marginal_likelihood();
        prop_assert!((l1 - l2).abs() <= 1e-9 * l2.abs().max(1.0));
    }
}

/// Joint sampling: the empirical covariance of `μ + L z` matches Σ.
#[test]
fn joint_sample_has_posterior_covariance() {
    let gp = spec_gp();
    let xs = array![[1.0], [1.5], [5.0]];
    let (mu, cov) = gp.joint_posterior(xs.view()).unwrap();
    let mut rng = seeded(9);
    let n = 40_000;
    let mut acc = Array2::<f64>::zeros((3, 3));
    for _ in 0..n {
        let z: Array1<f64> = standard_normal(3, &mut rng);
        let s = gp.joint_sample(xs.view(), z.view()).unwrap() - &mu;
        for a in 0..3 {
            for b in 0..3 {
                acc[[a, b]] += s[a] * s[b] / n as f64;
            }
        }
    }
    for a in 0..3 {
        for b in 0..3 {
            let tol = 5.0 * (cov[[a, a]] * cov[[b, b]] * 2.0 / n as f64).sqrt() + 1e-12;
            assert!((acc[[a, b]] - cov[[a, b]]).abs() < tol, "{a},{b}");
        }
    }
}

/// The MAP fit does not do worse than its prior-mode start and recovers a
/// sensible lengthscale on a smooth 1-D function.
#[test]
fn map_fit_improves_log_posterior() {
    let x = Array2::from_shape_fn((12, 1), |(i, _)| i as f64 / 11.0);
    let y = x.column(0).mapv(|v| (6.0 * v).sin());
    let cfg = FitConfig::default();
    let gp = fit_map(x.view(), y.view(), &cfg).unwrap();
    let lp = |gp: &ExactGp| {
        let l = gp.kernel().lengthscales()[0];
        let s = gp.kernel().outputscale();
        gp.log_marginal_likelihood() + 2.0 * l.ln() - 6.0 * l + s.ln() - 0.15 * s
    };
    let start = ExactGp::new(
        x.view(),
        y.view(),
        Kernel::new(KernelKind::Matern52, vec![1.0 / 3.0], 0.5).unwrap(),
        0.0,
        1e-4,
    )
    .unwrap();
    assert!(lp(&gp) >= lp(&start) - 1e-9);
    let l = gp.kernel().lengthscales()[0];
    assert!(l > 0.05 && l < 2.0, "lengthscale {l}");
}
