//! Hostile inputs at every public entry point (seeded proptest): each call
//! returns `Ok` with finite numbers or a typed error, and never panics.

use lookahead_mlmc::Error;
use lookahead_mlmc::acq::{ei, expected_improvement, q_expected_improvement};
use lookahead_mlmc::bo::{Acquisition, BoConfig, run_bo};
use lookahead_mlmc::gp::{ExactGp, FitConfig, Kernel, KernelKind, fit_map};
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, MlmcLookahead, SaaConfig, TwoStepSaa, TwoStepSamples,
    TwoStepValueSampler, mlmc_two_step_argmax,
};
use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Allocation, Coupling, LevelSampler, LevelSamples, MlmcConfig, NestedRule,
    allocate, estimate, estimate_adaptive, inner_samples, nested_mc, nested_plan, rates,
};
use lookahead_mlmc::optim::{Bounds, FnObjective, LbfgsConfig, maximize_multistart};
use lookahead_mlmc::testfns::{self, TestFunction};
use lookahead_mlmc::toy::NestedToy;
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2, array};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Values a demanding user might pass.
fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(1e300),
        Just(-1e300),
        Just(1e-300),
        Just(f64::MAX),
        Just(f64::MIN_POSITIVE),
        -10.0..10.0f64,
    ]
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(36),
        ..ProptestConfig::with_cases(cases)
    }
}

/// `Ok` must hold only finite numbers.
fn finite_or_err(r: Result<f64, Error>) -> Result<(), TestCaseError> {
    if let Ok(v) = r {
        prop_assert!(v.is_finite(), "Ok({v})");
    }
    Ok(())
}

fn gp1() -> ExactGp {
    let x = array![[-8.0], [-3.0], [0.0], [2.5], [7.0]];
    let y: Array1<f64> = x.column(0).mapv(testfns::toy1d);
    let k = Kernel::new(KernelKind::Matern52, vec![2.0], 1.0).unwrap();
    ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4).unwrap()
}

/// A user's sampler that returns what the test tells it to.
struct Scripted {
    value: f64,
    cost: f64,
    drop_coarse: bool,
    short: bool,
}

impl LevelSampler for Scripted {
    fn sample<R: rand::Rng + ?Sized>(
        &mut self,
        _level: u32,
        n: usize,
        with_coarse: bool,
        _rng: &mut R,
    ) -> lookahead_mlmc::Result<LevelSamples> {
        let len = if self.short { n.saturating_sub(1) } else { n };
        Ok(LevelSamples {
            fine: vec![self.value; len],
            coarse: (with_coarse && !self.drop_coarse).then(|| vec![0.5 * self.value; len]),
            cost: self.cost,
        })
    }
}

proptest! {
    #![proptest_config(config(96))]

    /// The MLMC engine: allocation, estimators, plans, rates.
    #[test]
    fn mlmc_engine(
        eps in hostile(),
        rate in hostile(),
        cvar in hostile(),
        value in hostile(),
        cost in hostile(),
        level in 0u32..40,
        n in 0usize..5,
        drop_coarse in any::<bool>(),
        short in any::<bool>(),
    ) {
        let cfg = MlmcConfig { beta: rate, c_var: cvar, ..MlmcConfig::default() };
        if let Ok(a) = allocate(eps, &cfg) {
            prop_assert!(a.n.iter().all(|&k| k >= 2));
            prop_assert!(a.model_variance.is_finite());
        }
        let _ = allocate(eps, &MlmcConfig::default());
        let _ = inner_samples(level);
        let _ = nested_plan(eps, cvar, &MlmcConfig::default(), NestedRule::Tuned);
        let _ = nested_plan(eps, cvar, &MlmcConfig::default(), NestedRule::PaperBaseline);
        let mut s = Scripted { value, cost, drop_coarse, short };
        let mut rng = seeded(1);
        let alloc = Allocation { levels: vec![level, level.saturating_add(1)], n: vec![n, n], k: 1.0, model_variance: 0.0 };
        if let Ok(e) = estimate(&mut s, &alloc, &mut rng) {
            prop_assert!(e.value.is_finite() && e.variance.is_finite() && e.cost.is_finite());
            prop_assert!(!drop_coarse && !short && value.is_finite());
        }
        let acfg = AdaptiveConfig { pilot: n, max_level: 12, ..AdaptiveConfig::default() };
        if let Ok(e) = estimate_adaptive(&mut s, eps.abs().max(0.05), &cfg, &acfg, &mut rng) {
            prop_assert!(e.value.is_finite());
        }
        if let Ok(r) = rates(&mut s, level.min(30), level.min(30) + 2, n, &mut rng) {
            prop_assert!(r.levels.len() == 3);
        }
        if let Ok(x) = nested_mc(&mut s, level, n, &mut rng) {
            prop_assert!(x.value.is_finite());
        }
        let mut toy = NestedToy { coupling: Coupling::Standard };
        let _ = nested_mc(&mut toy, level.min(12), n, &mut rng);
    }

    /// The GP: kernels, posterior, joint draws, fantasies, the MAP fit.
    #[test]
    fn gp_entry_points(
        a in hostile(),
        b in hostile(),
        c in hostile(),
        noise in hostile(),
        rows in 0usize..4,
    ) {
        let _ = Kernel::new(KernelKind::Rbf, vec![a], b);
        let _ = Kernel::new(KernelKind::Matern52, Vec::new(), 1.0);
        let x = Array2::from_shape_fn((rows, 1), |(i, _)| [a, b, c, 0.5][i]);
        let y = Array1::from_shape_fn(rows, |i| [c, a, b, 1.0][i]);
        let k = Kernel::new(KernelKind::Matern52, vec![1.0], 1.0).unwrap();
        if let Ok(gp) = ExactGp::new(x.view(), y.view(), k.clone(), 0.0, noise) {
            // Targets near f64::MAX may overflow the mean (documented on
            // ExactGp::new); the variance never does.
            let (_, v) = gp.posterior(array![0.3].view()).unwrap();
            prop_assert!(v.is_finite());
        }
        let _ = ExactGp::new(x.view(), y.view(), k, c, 1e-4);
        let fit = fit_map(x.view(), y.view(), &FitConfig::default());
        if let Ok(gp) = fit {
            prop_assert!(gp.log_marginal_likelihood().is_finite());
        }
        let gp = gp1();
        finite_or_err(gp.posterior(array![a].view()).map(|(m, _)| m))?;
        let _ = gp.posterior(array![a, b].view());
        let xs = Array2::from_shape_fn((2, 1), |(i, _)| [a, b][i]);
        let _ = gp.joint_posterior(xs.view());
        let _ = gp.joint_sample(xs.view(), array![c].view());
        finite_or_err(gp.joint_sample(xs.view(), array![c, 0.1].view()).map(|v| v.sum()))?;
        let _ = gp.fantasize(array![a].view(), b);
        let _ = gp.fantasize(array![-8.0].view(), 0.0);
        finite_or_err(expected_improvement(&gp, array![a].view(), b))?;
        let base = Array2::from_shape_fn((3, 2), |(i, j)| [a, b, c, 0.1, 0.2, 0.3][i * 2 + j]);
        finite_or_err(q_expected_improvement(&gp, xs.view(), c, base.view()))?;
        let _ = q_expected_improvement(&gp, xs.view(), 0.0, Array2::<f64>::zeros((0, 2)).view());
        let e = ei(a, b, c);
        prop_assert!(e >= 0.0 || e.is_nan());
    }

    /// Boxes, the optimiser and the test functions.
    #[test]
    fn optim_and_test_functions(
        a in hostile(),
        b in hostile(),
        d in 0usize..4,
        huge in any::<bool>(),
    ) {
        let _ = Bounds::new(vec![a], vec![b]);
        let _ = Bounds::new(vec![0.0, 1.0], vec![1.0]);
        let _ = Bounds::unit(d);
        let bx = Bounds::unit(1).unwrap();
        let f = FnObjective(|x: &[f64]| x[0] * a);
        let cfg = LbfgsConfig { fd_step: b, ..LbfgsConfig::default() };
        let _ = maximize_multistart(&f, &bx, &[vec![a]], &LbfgsConfig::default());
        let _ = maximize_multistart(&f, &bx, &[vec![0.5]], &cfg);
        let _ = maximize_multistart(&f, &bx, &[], &LbfgsConfig::default());
        for tf in [TestFunction::branin(), TestFunction::hartmann6(), TestFunction::toy1d()] {
            // Far outside the box a value may overflow to −∞ (documented
            // on TestFunction::eval); NaN and ±∞ inputs are errors.
            let v = tf.eval(&vec![a; tf.dim()]);
            prop_assert!(v.is_ok() == a.is_finite());
            prop_assert!(tf.eval(&vec![a; d]).is_err() || d == tf.dim());
        }
        let dim = if huge { usize::MAX / 4 } else { d };
        if let Ok(t) = TestFunction::ackley(dim, a) {
            finite_or_err(t.eval(&vec![b; t.dim()]))?;
        }
        if let Ok(t) = TestFunction::levy(dim, a) {
            prop_assert!(t.eval(&vec![b; t.dim()]).is_ok() == b.is_finite());
        }
        finite_or_err(testfns::ackley(&vec![a; d]))?;
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// The look-ahead problems, samplers, the MLMC maximiser and BO.
    #[test]
    fn lookahead_entry_points(
        a in hostile(),
        b in hostile(),
        n in 0usize..3,
        m in 0usize..4,
        q in 0usize..3,
    ) {
        let gp = gp1();
        let bx = Bounds::new(vec![-10.0], vec![10.0]).unwrap();
        let small = SaaConfig {
            raw_samples: 4,
            restarts: 1,
            inner_raw_samples: 4,
            inner_restarts: 1,
            lbfgs: LbfgsConfig { max_iters: 3, ..LbfgsConfig::default() },
            inner_lbfgs: LbfgsConfig { max_iters: 3, ..LbfgsConfig::default() },
        };
        let inner = InnerValue::QEi { q };
        let mut rng = seeded(2);
        let qb = if q == 0 { bx.clone() } else { bx.repeat(q) };
        let smp = TwoStepSamples::draw(n, m, inner, &qb, 3, &mut rng);
        for split in [InnerSplit::Full, InnerSplit::Antithetic, InnerSplit::FirstHalf] {
            if let Ok(p) = TwoStepSaa::new(&gp, &bx, a, inner, &smp, split, small) {
                finite_or_err(p.evaluate(&[b]).map(|s| s.value))?;
                finite_or_err(p.value_with_inner(&[b], &vec![vec![vec![a; q]]; n]))?;
                let _ = p.value_with_inner(&[0.5], &[]);
                let _ = p.value_with_inner(&[0.5, 0.5], &vec![vec![vec![0.0; q]]; n]);
            }
        }
        if let Ok(mut s) = TwoStepValueSampler::new(&gp, &[a], &bx, b, inner, Coupling::Antithetic, small)
            && let Ok(out) = s.sample(m as u32, n, true, &mut rng)
        {
            prop_assert!(out.fine.iter().all(|v| v.is_finite()) && out.cost.is_finite());
        }
        let spec = MlmcLookahead { saa: small, inner, ..MlmcLookahead::default() };
        if let Ok(r) = mlmc_two_step_argmax(&gp, &bx, a.abs().max(0.3), &spec, &mut rng) {
            prop_assert!(r.x.iter().all(|v| v.is_finite()) && r.value.is_finite());
        }
        let _ = mlmc_two_step_argmax(&gp, &bx, a, &spec, &mut rng);
        let bo = BoConfig {
            n_init: n,
            iterations: 1,
            acquisition: Acquisition::TwoStepMlmc { eps: a, spec },
            saa: small,
            ..BoConfig::default()
        };
        if let Ok(t) = run_bo(&TestFunction::toy1d(), &bo, &mut rng) {
            prop_assert!(t.best.iter().all(|v| v.is_finite()));
        }
    }
}
