//! The Optim.jl-style `Fminbox` optimiser ([`BoxMethod::Barrier`]) on
//! closed-form problems, and the official-settings constructors.

mod common;

use common::{FailsAbove, Quadratic, Rosenbrock, pendulum_losses};
use diffusion_tempering::models::Pendulum;
use diffusion_tempering::rk::{L2Form, L2Loss, RkConfig};
use diffusion_tempering::{
    Bounds, BoxMethod, EarlyStop, L2Fit, LbfgsConfig, Objective, Observations, Result, Schedule,
    TemperedFit, minimize, simulate,
};
use mlcore::sampling::seeded;
use proptest::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

fn barrier_cfg() -> LbfgsConfig {
    LbfgsConfig::fminbox(1e-12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// An interior minimum of a separable quadratic is found to 1e-6, and a
    /// minimum outside the box is replaced by its projection onto the box
    /// (the barrier weight vanishes round by round).
    #[test]
    fn quadratic_minimum_is_the_projection_onto_the_box(
        c in prop::collection::vec(-3.0f64..3.0, 1..4),
        w in prop::collection::vec(0.1f64..50.0, 4),
        start in prop::collection::vec(0.0f64..1.0, 4),
    ) {
        let n = c.len();
        let b = Bounds::new(vec![-1.0; n], vec![2.0; n]).unwrap();
        let q = Quadratic { c: c.clone(), w: w[..n].to_vec() };
        let init: Vec<f64> = start[..n].iter().map(|s| -1.0 + 3.0 * s).collect();
        let fit = minimize(&q, &b, &init, &barrier_cfg()).unwrap();
        for i in 0..n {
            let want = c[i].clamp(-1.0, 2.0);
            prop_assert!((fit.params[i] - want).abs() < 1e-5, "{:?} vs {:?}", fit.params, c);
            prop_assert!(fit.params[i] >= -1.0 && fit.params[i] <= 2.0);
        }
    }
}

#[test]
fn rosenbrock_is_solved_inside_a_box() {
    let b = Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap();
    for init in [[-1.5, 2.5], [1.9, -0.9], [0.0, 0.0]] {
        let fit = minimize(&Rosenbrock, &b, &init, &barrier_cfg()).unwrap();
        assert!(
            (fit.params[0] - 1.0).abs() < 1e-4 && (fit.params[1] - 1.0).abs() < 1e-4,
            "{init:?} -> {:?} after {} iterations",
            fit.params,
            fit.iters
        );
        assert!(fit.iters > 5 && fit.grad_evals >= fit.iters);
    }
}

#[test]
fn a_start_on_a_bound_is_moved_inside() {
    let b = Bounds::new(vec![0.0], vec![1.0]).unwrap();
    let q = Quadratic {
        c: vec![0.3],
        w: vec![1.0],
    };
    for s in [0.0, 1.0] {
        let fit = minimize(&q, &b, &[s], &barrier_cfg()).unwrap();
        assert!((fit.params[0] - 0.3).abs() < 1e-6, "{:?}", fit.params);
    }
}

/// A loss that fails (like an ODE that blows up) for `θ > 0.5`: the line
/// search treats the failures as `+∞` and backs off.
#[test]
fn failed_evaluations_count_as_infinite() {
    let b = Bounds::new(vec![0.0], vec![1.0]).unwrap();
    let fit = minimize(&FailsAbove, &b, &[0.01], &barrier_cfg()).unwrap();
    assert!((fit.params[0] - 0.45).abs() < 1e-6, "{:?}", fit.params);
}

/// Counts how often the loss is evaluated.
struct Counted<'a, O> {
    inner: &'a O,
    values: AtomicU64,
}

impl<O: Objective> Objective for Counted<'_, O> {
    fn value(&self, t: &[f64]) -> Result<f64> {
        self.values.fetch_add(1, Ordering::Relaxed);
        self.inner.value(t)
    }
    fn value_grad(&self, t: &[f64]) -> Result<(f64, Vec<f64>)> {
        self.inner.value_grad(t)
    }
}

#[test]
fn reported_evaluation_counts_are_the_real_ones() {
    let b = Bounds::new(vec![-2.0, -1.0], vec![2.0, 3.0]).unwrap();
    let c = Counted {
        inner: &Rosenbrock,
        values: AtomicU64::new(0),
    };
    let fit = minimize(&c, &b, &[-1.5, 2.5], &barrier_cfg()).unwrap();
    // One extra value: the start is checked once before the run.
    assert_eq!(fit.evals + 1, c.values.load(Ordering::Relaxed));
}

#[test]
fn official_settings_match_the_scripts() {
    let t = TemperedFit::official();
    assert_eq!(t.schedule, Schedule::default());
    assert_eq!(t.stage.box_method, BoxMethod::Barrier);
    assert_eq!(t.stage.tol.rel, 1e-3);
    assert_eq!(t.last.tol.rel, 1e-6);
    for c in [t.stage, t.last, L2Fit::official().lbfgs] {
        assert_eq!(c.tol.abs, 0.0, "abstol is ignored by OptimizationOptimJL");
        assert_eq!(c.patience, 2, "successive_f_tol = 1");
        assert_eq!((c.memory, c.max_iters, c.rounds), (10, 1000, 1000));
        assert_eq!(c.grad_tol, 1e-8);
    }
    assert_eq!(LbfgsConfig::default().box_method, BoxMethod::Logistic);
}

#[test]
fn barrier_tempering_and_l2_run_on_the_pendulum() {
    let (lik, l2) = pendulum_losses(3);
    let b = Pendulum::bounds();
    let fit = TemperedFit {
        schedule: Schedule::geometric(1e8, 1.0, 9).unwrap(),
        ..TemperedFit::official()
    };
    let r = fit.run(&lik, &b, &[8.0]).unwrap();
    assert!((r.params[0] - 3.0).abs() < 0.15, "{:?}", r.params);
    assert_eq!(r.stages.len(), 9);
    // The L2 loss on the official scale from a start next to the truth.
    let r = L2Fit::official().run(&l2, &b, &[3.3]).unwrap();
    assert!((r.params[0] - 3.0).abs() < 0.15, "{:?}", r.params);
}

#[test]
fn mean_squared_l2_is_the_scaled_gaussian_nll() {
    let model = Pendulum::default();
    let times: Vec<f64> = (0..=40).map(|i| i as f64 * 0.1).collect();
    let k = times.len() as f64;
    let proj = Observations::selector(&[0], 2).unwrap();
    let s2 = 0.1;
    let obs = simulate(&model, &[3.0], 0.0, times, proj, s2, &mut seeded(4)).unwrap();
    let nll = L2Loss::new(model, obs.clone(), 0.0, RkConfig::default()).unwrap();
    let ms = nll.clone().with_form(L2Form::MeanSquared);
    for l in [1.0, 3.0, 7.0] {
        let a = nll.nll(&[l]).unwrap();
        let b = ms.nll(&[l]).unwrap();
        let from_nll = (a - 0.5 * k * (2.0 * std::f64::consts::PI * s2).ln()) * 2.0 * s2 / k;
        assert!(
            (b - from_nll).abs() <= 1e-12 * b.abs().max(1.0),
            "{b} vs {from_nll}"
        );
        let (_, ga) = nll.nll_grad(&[l]).unwrap();
        let (_, gb) = ms.nll_grad(&[l]).unwrap();
        assert!((gb[0] - ga[0] * 2.0 * s2 / k).abs() <= 1e-9 * gb[0].abs().max(1.0));
    }
}

#[test]
fn early_stop_needs_every_recent_change_small() {
    let e = EarlyStop::default();
    assert!(!e.triggered(&[5.0, 4.95, 4.9]), "needs 3 changes");
    assert!(e.triggered(&[9.0, 5.0, 4.95, 4.9, 4.85]));
    // A net change below 0.1 made of large steps does not stop a stage.
    assert!(!e.triggered(&[5.0, 5.5, 5.0, 5.05]));
}

#[test]
fn ours_plus_stops_stages_early() {
    let (lik, _) = pendulum_losses(5);
    let schedule = Schedule::geometric(1e8, 1.0, 9).unwrap();
    let full = TemperedFit {
        schedule: schedule.clone(),
        ..TemperedFit::official()
    }
    .run(&lik, &Pendulum::bounds(), &[8.0])
    .unwrap();
    let plus = TemperedFit {
        schedule,
        ..TemperedFit::plus_official()
    }
    .run(&lik, &Pendulum::bounds(), &[8.0])
    .unwrap();
    assert!((plus.params[0] - 3.0).abs() < 0.15, "{:?}", plus.params);
    assert!(plus.iters < full.iters, "{} vs {}", plus.iters, full.iters);
}
