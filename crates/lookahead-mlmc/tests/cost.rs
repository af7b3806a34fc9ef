//! The instrumented work counter (issue 36): each primitive is charged what
//! its definition says it does, counted by hand here, and the MLMC and
//! nested-MC estimators are charged the same counter.

use lookahead_mlmc::acq::q_expected_improvement;
use lookahead_mlmc::cost::{Work, measure};
use lookahead_mlmc::gp::{ExactGp, Kernel, KernelKind};
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, SaaConfig, TwoStepSaa, TwoStepSamples, TwoStepValueSampler,
};
use lookahead_mlmc::mlmc::{Allocation, Coupling, LevelSampler, estimate, nested_mc};
use lookahead_mlmc::optim::{Bounds, FnObjective, LbfgsConfig, maximize_multistart};
use lookahead_mlmc::toy::NestedToy;
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2, array};

fn toy_gp() -> (ExactGp, Bounds) {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(lookahead_mlmc::testfns::toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    (
        ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap(),
        Bounds::new(vec![-10.0], vec![10.0]).unwrap(),
    )
}

fn small_cfg() -> SaaConfig {
    SaaConfig {
        raw_samples: 8,
        restarts: 2,
        inner_raw_samples: 8,
        inner_restarts: 2,
        ..SaaConfig::default()
    }
}

/// MC q-EI on `M` base rows of a batch of `q` points: `M` inner samples and
/// `q` GP solves (one triangular solve per point of the joint posterior).
#[test]
fn q_ei_is_charged_m_samples_and_q_solves() {
    let (gp, _) = toy_gp();
    for (q, m) in [(1usize, 7usize), (2, 64), (3, 5)] {
        let xs = Array2::from_shape_fn((q, 1), |(i, _)| -1.0 + i as f64);
        let base = Array2::from_shape_fn((m, q), |(i, j)| ((i * q + j) as f64).sin());
        let (v, w) = measure(|| q_expected_improvement(&gp, xs.view(), 0.5, base.view()));
        assert!(v.unwrap() >= 0.0);
        assert_eq!(
            w,
            Work {
                inner_samples: m as u64,
                gp_solves: q as u64,
                ..Work::default()
            }
        );
    }
}

/// A posterior is one solve; a fantasy is one solve (the bordering `ℓ = L⁻¹b`).
#[test]
fn posterior_and_fantasy_are_one_solve_each() {
    let (gp, _) = toy_gp();
    let (_, w) = measure(|| gp.posterior(array![1.0].view()).unwrap());
    assert_eq!(w.gp_solves, 1);
    let (_, w) = measure(|| gp.fantasize(array![1.0].view(), 0.3).unwrap());
    assert_eq!(w.gp_solves, 1);
    assert_eq!(w.inner_samples, 0);
}

/// Multi-start L-BFGS: one restart per start, and the iterations it reports.
#[test]
fn restarts_and_iterations_are_counted() {
    let b = Bounds::new(vec![-2.0, -2.0], vec![2.0, 2.0]).unwrap();
    let f = FnObjective(|x: &[f64]| -(x[0] - 0.3).powi(2) - (x[1] + 0.2).powi(2));
    let starts = vec![vec![1.0, 1.0], vec![-1.5, 0.5], vec![0.0, 0.0]];
    let cfg0 = LbfgsConfig {
        max_iters: 0,
        ..LbfgsConfig::default()
    };
    let (_, w) = measure(|| maximize_multistart(&f, &b, &starts, &cfg0).unwrap());
    assert_eq!((w.restarts, w.lbfgs_iterations), (3, 0));
    let (opts, w) =
        measure(|| maximize_multistart(&f, &b, &starts, &LbfgsConfig::default()).unwrap());
    assert_eq!(w.restarts, 3);
    // A quadratic needs at least one iteration from each start away from
    // its maximiser (0.3, −0.2), and at most max_iters.
    assert!((3..=180).contains(&w.lbfgs_iterations), "{w:?}");
    for o in &opts {
        assert!((o.x[0] - 0.3).abs() < 1e-5 && (o.x[1] + 0.2).abs() < 1e-5);
    }
}

/// The toy charges `N·2^ℓ` inner draws, and says so in the counter too.
#[test]
fn toy_sampler_charges_its_inner_draws() {
    let mut toy = NestedToy {
        coupling: Coupling::Antithetic,
    };
    let mut rng = seeded(3);
    let (out, w) = measure(|| toy.sample(5, 11, true, &mut rng).unwrap());
    assert_eq!(out.cost, (11 * 32) as f64);
    assert_eq!(w.inner_samples, 11 * 32);
    assert_eq!(w.units(), out.cost);
}

/// One two-step evaluation at `x` solves one inner problem per fantasy and
/// block: `N` for the full problem, `2N` for the antithetic halves. Every
/// q-EI value on `M` rows adds `M` inner samples, and there are at least
/// `raw + restarts` of them per inner problem (each raw candidate is scored
/// once, each start evaluated before L-BFGS moves).
#[test]
fn two_step_evaluation_counts_inner_optimisations() {
    let (gp, b) = toy_gp();
    let inner = InnerValue::QEi { q: 2 };
    let (n, m) = (3, 16);
    let cfg = small_cfg();
    let smp = TwoStepSamples::draw(
        n,
        m,
        inner,
        &b.repeat(2),
        cfg.inner_raw_samples,
        &mut seeded(1),
    );
    for (split, blocks, per_block) in [
        (InnerSplit::Full, 1u64, m as u64),
        (InnerSplit::Antithetic, 2, m as u64 / 2),
        (InnerSplit::FirstHalf, 1, m as u64 / 2),
    ] {
        let p = TwoStepSaa::new(&gp, &b, gp.best_observed(), inner, &smp, split, cfg).unwrap();
        let (_, w) = measure(|| p.evaluate(&[1.0]).unwrap());
        assert_eq!(w.inner_optimisations, n as u64 * blocks, "{split:?}");
        assert_eq!(w.restarts, n as u64 * blocks * cfg.inner_restarts as u64);
        assert_eq!(w.inner_samples % per_block, 0);
        let evals = w.inner_samples / per_block;
        let least = n as u64 * blocks * (cfg.inner_raw_samples + cfg.inner_restarts) as u64;
        assert!(evals >= least, "{split:?}: {evals} < {least}");
    }
}

/// The value sampler's cost is the work of its call, fine and coarse
/// together: with the coupled solve, the fine problem (`N` inner problems)
/// and the antithetic coarse one (`2N`) are each solved twice, `6N` inner
/// optimisations; fine alone, `N`.
#[test]
fn value_sampler_cost_is_the_measured_work() {
    let (gp, b) = toy_gp();
    let mut s = TwoStepValueSampler::new(
        &gp,
        &[1.0],
        &b,
        gp.best_observed(),
        InnerValue::QEi { q: 2 },
        Coupling::Antithetic,
        small_cfg(),
    )
    .unwrap();
    let mut rng = seeded(8);
    let (out, w) = measure(|| s.sample(4, 5, true, &mut rng).unwrap());
    assert_eq!(out.cost, w.units());
    assert_eq!(w.inner_optimisations, 6 * 5);
    let (out, w) = measure(|| s.sample(4, 5, false, &mut rng).unwrap());
    assert_eq!(out.cost, w.units());
    assert_eq!(w.inner_optimisations, 5);
}

/// MLMC and nested MC are charged the same counter: each estimate's cost
/// is exactly the work measured around it.
#[test]
fn mlmc_and_nested_mc_share_the_counter() {
    let (gp, b) = toy_gp();
    let mut s = TwoStepValueSampler::new(
        &gp,
        &[1.0],
        &b,
        gp.best_observed(),
        InnerValue::QEi { q: 2 },
        Coupling::Antithetic,
        small_cfg(),
    )
    .unwrap();
    let mut rng = seeded(9);
    let alloc = Allocation {
        levels: vec![3, 4],
        n: vec![4, 2],
        k: 0.0,
        model_variance: 0.0,
    };
    let (e, w) = measure(|| estimate(&mut s, &alloc, &mut rng).unwrap());
    assert_eq!(e.cost, w.units());
    // Level 3 alone (4 problems), level 4 coupled (6 per fantasy).
    assert_eq!(w.inner_optimisations, 4 + 6 * 2);
    let (x, w) = measure(|| nested_mc(&mut s, 4, 3, &mut rng).unwrap());
    assert_eq!(x.cost, w.units());
    assert_eq!(w.inner_optimisations, 3);
}
