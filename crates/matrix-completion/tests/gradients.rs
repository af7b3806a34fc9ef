//! Spec property test 2: the closed-form gradient of loss + penalty matches
//! central finite differences within 1e-5 relative, for every link, depth 1–4,
//! weighted and unweighted penalties.

use matrix_completion::data::{Duplicates, Observations};
use matrix_completion::link::{Identity, Link, MonotonePiecewiseLinear, ScalarLink};
use matrix_completion::model::{DeepMf, PenaltyWeights};
use mlcore::sampling::seeded;
use ndarray::Array1;
use proptest::prelude::*;
use rand::RngExt;

fn observations(m: usize, n: usize, seed: u64) -> Observations {
    let mut rng = seeded(seed);
    let trip: Vec<(usize, usize, f64)> = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .filter(|_| rng.random::<f64>() < 0.5)
        .map(|(i, j)| (i, j, 3.0 + (i as f64 - j as f64) * 0.3))
        .collect::<Vec<_>>();
    let mut trip = trip;
    trip.push((0, 0, 2.0)); // never empty
    trip.sort_by_key(|t| (t.0, t.1));
    trip.dedup_by_key(|t| (t.0, t.1));
    let mut rng2 = seeded(seed + 1);
    let trip = trip
        .into_iter()
        .map(|(i, j, y)| (i, j, y + rng2.random_range(-0.5..0.5)));
    Observations::from_triplets(m, n, trip, Duplicates::Reject).unwrap()
}

fn random_pwl(seed: u64) -> MonotonePiecewiseLinear {
    let mut rng = seeded(seed);
    let mut l = MonotonePiecewiseLinear::identity(7, -1.5, 1.5, 3.0).unwrap();
    let mut theta = l.params();
    theta[0] = rng.random_range(-1.0..1.0);
    for t in theta.iter_mut().skip(1) {
        *t = rng.random_range(0.1..2.9);
    }
    l.set_params_projected(&theta).unwrap();
    l
}

/// Flattens factors and link parameters, evaluates J at `x`.
fn objective_at(
    model: &DeepMf,
    x: &[f64],
    obs: &Observations,
    lambda: f64,
    w: Option<&PenaltyWeights>,
) -> f64 {
    let mut factors = model.factors().to_vec();
    let mut pos = 0;
    for a in factors.iter_mut() {
        for v in a.iter_mut() {
            *v = x[pos];
            pos += 1;
        }
    }
    let mut link = model.link().clone();
    link.set_params_projected(&x[pos..]).unwrap();
    DeepMf::new(factors, link, model.offset())
        .unwrap()
        .objective(obs, lambda, w)
        .unwrap()
}

fn check(depth: usize, link: Link, weighted: bool, seed: u64) -> Result<(), TestCaseError> {
    let (m, n, k) = (6, 5, 3);
    let obs = observations(m, n, seed);
    let model = DeepMf::random(m, n, depth, k, 0.8, link, 0.5, &mut seeded(seed + 7)).unwrap();
    let w = if weighted {
        Some(PenaltyWeights::smoothed(&obs, 0.3).unwrap())
    } else {
        None
    };
    let lambda = 0.07;
    let (obj, g) = model
        .objective_and_gradient(&obs, lambda, w.as_ref())
        .unwrap();
    prop_assert!(
        (obj - model.objective(&obs, lambda, w.as_ref()).unwrap()).abs()
            < 1e-12 * obj.abs().max(1.0)
    );
    let mut x: Vec<f64> = model
        .factors()
        .iter()
        .flat_map(|a| a.iter().copied())
        .collect();
    x.extend(model.link().params());
    let analytic: Vec<f64> = g
        .factors
        .iter()
        .flat_map(|a| a.iter().copied())
        .chain(g.link.iter().copied())
        .collect();
    prop_assert_eq!(analytic.len(), x.len());
    let h = 1e-5;
    let mut fd = vec![0.0; x.len()];
    for t in 0..x.len() {
        let mut xp = x.clone();
        xp[t] += h;
        let mut xm = x.clone();
        xm[t] -= h;
        fd[t] = (objective_at(&model, &xp, &obs, lambda, w.as_ref())
            - objective_at(&model, &xm, &obs, lambda, w.as_ref()))
            / (2.0 * h);
    }
    let diff: f64 = fd
        .iter()
        .zip(&analytic)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        .sqrt();
    let norm: f64 = analytic.iter().map(|a| a * a).sum::<f64>().sqrt();
    prop_assert!(
        diff <= 1e-5 * norm,
        "depth {depth}, weighted {weighted}: |fd - g| = {diff:e}, |g| = {norm:e}"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Identity link, depths 1–4, with and without the weighted penalty.
    #[test]
    fn gradient_matches_central_differences_identity_link(depth in 1usize..=4, weighted: bool, seed in 0u64..100_000) {
        check(depth, Link::Identity(Identity), weighted, seed)?;
    }

    /// Monotone piecewise-linear link (random slopes; parameters included), depths 1–4.
    #[test]
    fn gradient_matches_central_differences_monotone_link(depth in 1usize..=4, weighted: bool, seed in 0u64..100_000) {
        check(depth, Link::Monotone(random_pwl(seed)), weighted, seed)?;
    }
}

/// The link's own derivatives: `dvalue` and the parameter gradient against
/// central differences away from the knots, and exactness of the parameter
/// gradient (f is linear in θ).
#[test]
fn monotone_link_derivatives_match_finite_differences() {
    let l = random_pwl(5);
    let h = 1e-6;
    let mut rng = seeded(9);
    for _ in 0..200 {
        let z: f64 = rng.random_range(-3.0..3.0);
        let fd = (l.value(z + h) - l.value(z - h)) / (2.0 * h);
        let near_knot = l.knot_positions().iter().any(|t| (t - z).abs() < 2.0 * h);
        if !near_knot {
            assert!((fd - l.dvalue(z)).abs() < 1e-6, "z = {z}");
        }
        let mut g = vec![0.0; l.num_params()];
        l.add_grad_params(z, 1.0, &mut g).unwrap();
        let theta = l.params();
        let lin: f64 = g.iter().zip(&theta).map(|(a, b)| a * b).sum();
        assert!(
            (lin - l.value(z)).abs() < 1e-12 * (1.0 + l.value(z).abs()),
            "f(z) = ∂f/∂θ · θ at z = {z}"
        );
    }
    // Continuity at the knots.
    for t in l.knot_positions() {
        assert!((l.value(t - 1e-12) - l.value(t + 1e-12)).abs() < 1e-10);
    }
    let _ = Array1::<f64>::zeros(1);
}

/// The O(N + K) batch parameter gradient equals the per-entry sum.
#[test]
fn batch_parameter_gradient_equals_per_entry_sum() {
    let l = random_pwl(11);
    let mut rng = seeded(12);
    let zs: Vec<f64> = (0..500).map(|_| rng.random_range(-3.0..3.0)).collect();
    let sc: Vec<f64> = (0..500).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut a = vec![0.0; l.num_params()];
    let mut b = vec![0.0; l.num_params()];
    for (&z, &s) in zs.iter().zip(&sc) {
        l.add_grad_params(z, s, &mut a).unwrap();
    }
    l.add_grad_params_batch(&zs, &sc, &mut b).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-10, "{x} vs {y}");
    }
}
