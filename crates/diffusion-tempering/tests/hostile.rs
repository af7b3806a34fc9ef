//! Hostile input at every public entry point (seeded proptest): NaN, ±∞,
//! huge and tiny values, wrong lengths, empty data, reversed boxes. Every
//! call must return `Ok` with finite numbers or a typed `Err`: no panic, no
//! abort, no silent NaN.

use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::prior::Iwp;
use diffusion_tempering::rk::{L2Loss, RkConfig, dopri5};
use diffusion_tempering::{
    Bounds, FenrirLikelihood, FilterConfig, Grid, L2Fit, LbfgsConfig, LearnedDiffusionFit,
    Linearization, Observations, OdeFilter, Schedule, TemperedFit, metrics, simulate,
};
use mlcore::sampling::seeded;
use ndarray::Array2;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Ordinary, extreme and non-finite values.
fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        -10.0..10.0f64,
        Just(0.0),
        Just(-0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e308),
        Just(-1e308),
        Just(1e-300),
        Just(f64::MIN_POSITIVE),
        Just(1e20),
        Just(-1e-12),
    ]
}

fn finite_all(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

fn cheap(rel: f64) -> LbfgsConfig {
    LbfgsConfig {
        max_iters: 5,
        ..LbfgsConfig::fminbox(rel)
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        rng_seed: RngSeed::Fixed(36),
        failure_persistence: None,
        ..ProptestConfig::with_cases(48)
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn grids_schedules_bounds_priors(
        a in hostile(), b in hostile(), c in hostile(), n in 0usize..40, huge in any::<bool>(),
    ) {
        if let Ok(g) = Grid::uniform(a, b, c) {
            prop_assert!(g.len() >= 2 && finite_all(g.times()));
        }
        let _ = Grid::new(vec![a, b, c]);
        let stages = if huge { usize::MAX / 3 } else { n };
        if let Ok(s) = Schedule::geometric(a.abs(), b.abs(), stages) {
            prop_assert!(s.kappa2().iter().all(|k| k.is_finite() && *k > 0.0));
        }
        let _ = Schedule::from_values(vec![a, b, c]);
        if let Ok(bx) = Bounds::new(vec![a, -1.0], vec![b, c]) {
            let _ = bx.check(&[a, b]);
            let _ = bx.check(&[a]);
            prop_assert!(finite_all(&bx.bump(&[a, b])) || !finite_all(&[a, b]));
        }
        let _ = Bounds::new(vec![a], vec![b, c]);
        if let Ok(p) = Iwp::new(n)
            && let Ok((am, qm)) = p.transition(a)
        {
            prop_assert!(am.iter().chain(qm.iter()).all(|x| x.is_finite()));
        }
        if let Ok(e) = metrics::rel_param_rmse(&[a, b], &[c, 1.0]) {
            prop_assert!(!e.is_nan() && e >= 0.0);
        }
        let _ = metrics::rel_param_rmse(&[a], &[]);
        let _ = metrics::converged(&[a, b], &[c, 1.0], a);
        let _ = OdeFilter::new(FilterConfig { order: n, linearization: Linearization::Ek1 }, a);
    }

    #[test]
    fn observations_and_simulation(
        t0 in hostile(), t in hostile(), y in hostile(), s2 in hostile(), th in hostile(),
        comp in 0usize..4, rows in 0usize..4,
    ) {
        let lv = LotkaVolterra::two_param();
        let times = vec![0.1, 0.2, 0.3][..rows.min(3)].to_vec();
        let mut vals = Array2::from_elem((times.len(), 1), 1.0);
        if let Some(v) = vals.get_mut((0, 0)) { *v = y; }
        if let Ok(proj) = Observations::selector(&[comp], 2) {
            let _ = Observations::new(times.clone(), vals.clone(), proj.clone(), s2);
            let _ = Observations::new(vec![t, 0.5], Array2::zeros((2, 1)), proj.clone(), 0.1);
            let _ = Observations::new(times.clone(), Array2::zeros((times.len(), 2)), proj.clone(), 0.1);
            let r = simulate(&lv, &[th, 1.0], t0, vec![t, 0.5], proj.clone(), 0.1, &mut seeded(1));
            if let Ok(o) = r {
                prop_assert!(o.values().iter().all(|v| v.is_finite()));
            }
            let _ = simulate(&lv, &[1.5], 0.0, vec![0.5], proj.clone(), s2, &mut seeded(1));
            let _ = simulate(&lv, &[1.5, 1.0], 0.0, vec![], proj, 0.1, &mut seeded(1));
        }
        let wide = Array2::<f64>::zeros((1, 3));
        let _ = simulate(&lv, &[1.5, 1.0], 0.0, vec![0.5], wide, 0.1, &mut seeded(1));
        let cfg = RkConfig { rtol: s2.abs(), atol: y.abs(), max_steps: 10_000 };
        if let Ok(xs) = dopri5(&lv, &[th, 1.0], t0, &[t, t + 1.0], &cfg) {
            prop_assert!(xs.iter().all(|x| finite_all(x)));
        }
    }

    #[test]
    fn likelihoods_and_fits(
        p0 in hostile(), p1 in hostile(), k in hostile(), lo in hostile(), hi in hostile(),
        extra in any::<bool>(), q in 0usize..9,
    ) {
        let pend = Pendulum::default();
        let grid = Grid::uniform(0.0, 1.0, 0.05).unwrap();
        let proj = Observations::selector(&[0], 2).unwrap();
        let obs = simulate(&pend, &[3.0], 0.0, grid.times().to_vec(), proj, 0.1, &mut seeded(5)).unwrap();
        let cfg = FilterConfig { order: q, linearization: Linearization::Ek1 };
        let p: Vec<f64> = if extra { vec![p0, p1] } else { vec![p0] };
        if let Ok(lik) = FenrirLikelihood::new(pend, obs.clone(), grid.clone(), cfg) {
            if let Ok(v) = lik.nll(&p, k) {
                prop_assert!(v.is_finite());
            }
            if let Ok((v, g)) = lik.nll_grad(&p, k) {
                prop_assert!(v.is_finite() && finite_all(&g));
            }
            if let Ok((v, g, gk)) = lik.nll_grad_log_kappa2(&p, k) {
                prop_assert!(v.is_finite() && finite_all(&g) && gk.is_finite());
            }
            if let Ok(f) = OdeFilter::new(cfg, k)
                && let Ok(sol) = f.solve(&pend, &p, &grid)
            {
                prop_assert!(sol.smoother_means.iter().all(|v| v.is_finite()));
            }
            if let Ok(bx) = Bounds::new(vec![lo], vec![hi]) {
                let fit = TemperedFit {
                    schedule: Schedule::geometric(1e4, 1.0, 2).unwrap(),
                    stage: cheap(1e-3),
                    last: cheap(1e-6),
                };
                if let Ok(r) = fit.run(&lik, &bx, &p) {
                    prop_assert!(finite_all(&r.params) && r.loss.is_finite());
                }
                let learned = LearnedDiffusionFit { kappa2_init: k, lbfgs: cheap(1e-6), ..LearnedDiffusionFit::default() };
                if let Ok(r) = learned.run(&lik, &bx, &p) {
                    prop_assert!(finite_all(&r.params) && r.loss.is_finite());
                }
            }
        }
        let short = Grid::uniform(0.0, 0.5, 0.05).unwrap();
        prop_assert!(FenrirLikelihood::new(pend, obs.clone(), short, FilterConfig::default()).is_err());
        let rk = RkConfig { rtol: k.abs(), atol: 1e-8, max_steps: 10_000 };
        if let Ok(l2) = L2Loss::new(pend, obs, lo, rk) {
            if let Ok(v) = l2.nll(&p) {
                prop_assert!(v.is_finite());
            }
            if let Ok((v, g)) = l2.nll_grad(&p) {
                prop_assert!(v.is_finite() && finite_all(&g));
            }
            if let Ok(bx) = Bounds::new(vec![0.1], vec![10.0]) {
                let fit = L2Fit { lbfgs: cheap(1e-6) };
                if let Ok(r) = fit.run(&l2, &bx, &p) {
                    prop_assert!(finite_all(&r.params) && r.loss.is_finite());
                }
            }
        }
    }
}

/// Found by this proptest: `rel_param_rmse` returned NaN for a NaN estimate
/// and overflowed `(θ̂ − θ)/θ` for finite extremes.
#[test]
fn rmse_names_non_finite_input_and_scales() {
    use diffusion_tempering::Error;
    assert!(matches!(
        metrics::rel_param_rmse(&[0.0, f64::NAN], &[1.0, 1.0]),
        Err(Error::NonFiniteInput {
            what: "estimate",
            index: 1
        })
    ));
    assert!(matches!(
        metrics::rel_param_rmse(&[1.0], &[f64::INFINITY]),
        Err(Error::NonFiniteInput {
            what: "true parameters",
            index: 0
        })
    ));
    // (1e308 − (−1e308)) overflows; the relative error is 2 exactly.
    let e = metrics::rel_param_rmse(&[1e308, 1.0], &[-1e308, 1.0]).unwrap();
    assert!((e - 2f64.sqrt()).abs() < 1e-15, "{e}");
    assert!(!metrics::converged(&[f64::NAN], &[1.0], 0.05).unwrap());
    assert!(matches!(
        metrics::converged(&[1.0], &[1.0], f64::NAN),
        Err(Error::InvalidParameter { name: "tol", .. })
    ));
}
