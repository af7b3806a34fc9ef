//! Spec property 6 (the schedule) and small end-to-end fits.

use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::rk::{L2Loss, RkConfig};
use diffusion_tempering::{
    FenrirLikelihood, FilterConfig, Grid, L2Fit, LbfgsConfig, LearnedDiffusionFit, Observations,
    Schedule, StageTol, TemperedFit, metrics, minimize, simulate,
};
use mlcore::sampling::seeded;

/// Property 6: the default schedule has 21 stages, starts at 1e20, ends at
/// 1, and is strictly decreasing (each stage a factor 10 below the last).
#[test]
fn default_schedule_is_1e20_to_1_in_21_stages() {
    let s = Schedule::default();
    let k = s.kappa2();
    assert_eq!(k.len(), 21);
    assert_eq!(k[0], 1e20);
    assert_eq!(k[20], 1.0);
    for (i, w) in k.windows(2).enumerate() {
        assert!(w[1] < w[0]);
        assert!((w[0] / w[1] / 10.0 - 1.0).abs() < 1e-12, "ratio at {i}");
    }
    assert!(Schedule::from_values(vec![1.0, 2.0]).is_err());
    assert!(Schedule::geometric(1.0, 1e3, 5).is_err());
}

fn pendulum_setup() -> (FenrirLikelihood<Pendulum>, L2Loss<Pendulum>) {
    let model = Pendulum::default();
    let grid = Grid::uniform(0.0, 10.0, 0.05).unwrap();
    let proj = Observations::selector(&[0], 2).unwrap();
    let obs = simulate(
        &model,
        &[3.0],
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(11),
    )
    .unwrap();
    let lik = FenrirLikelihood::new(model, obs.clone(), grid, FilterConfig::default()).unwrap();
    let l2 = L2Loss::new(model, obs, 0.0, RkConfig::default()).unwrap();
    (lik, l2)
}

/// Tempering (the paper's defaults: 1001 data points, dt = 0.01, κ² from
/// 1e20 to 1 in 21 stages) reaches the true pendulum length within 5 % from
/// starts on both sides of it where L2 on the RK solution stops in a wrong
/// local minimum.
#[test]
fn tempering_converges_from_far_starts_where_l2_does_not() {
    let model = Pendulum::default();
    let grid = Grid::uniform(0.0, 10.0, 0.01).unwrap();
    let proj = Observations::selector(&[0], 2).unwrap();
    let obs = simulate(
        &model,
        &[3.0],
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(11),
    )
    .unwrap();
    let lik = FenrirLikelihood::new(model, obs.clone(), grid, FilterConfig::default()).unwrap();
    let l2 = L2Loss::new(model, obs, 0.0, RkConfig::default()).unwrap();
    let b = Pendulum::bounds();
    // 3 restart rounds per stage (default 10) keep the test short; the
    // pendulum stages converge within them.
    let mut fit = TemperedFit::default();
    fit.stage.rounds = 3;
    fit.last.rounds = 3;
    for start in [1.0, 9.5] {
        let r = fit.run(&lik, &b, &[start]).unwrap();
        assert!(
            metrics::converged(&r.params, &[3.0], 0.05).unwrap(),
            "tempering from {start}: {:?}",
            r.params
        );
        assert_eq!(r.stages.len(), 21);
        let r2 = L2Fit::default().run(&l2, &b, &[start]).unwrap();
        assert!(
            !metrics::converged(&r2.params, &[3.0], 0.05).unwrap(),
            "L2 from {start}: {:?}",
            r2.params
        );
    }
}

fn local_minima(v: &[f64]) -> usize {
    (1..v.len() - 1)
        .filter(|&i| v[i] < v[i - 1] && v[i] < v[i + 1])
        .count()
}

/// The mechanism: on a 200-point grid of `l ∈ [0.1, 10]` the L2 loss of the
/// RK solution and the Fenrir loss at κ² = 1 have several local minima,
/// while at κ² = 1e12 the landscape has a single one, and L2 fits from far
/// starts stop in wrong minima.
#[test]
fn large_diffusion_smooths_the_loss_landscape() {
    let (lik, l2) = pendulum_setup();
    let ls: Vec<f64> = (0..200).map(|i| 0.1 + 9.9 * i as f64 / 199.0).collect();
    let v2: Vec<f64> = ls.iter().map(|&x| l2.nll(&[x]).unwrap()).collect();
    let v1: Vec<f64> = ls.iter().map(|&x| lik.nll(&[x], 1.0).unwrap()).collect();
    let vbig: Vec<f64> = ls.iter().map(|&x| lik.nll(&[x], 1e12).unwrap()).collect();
    assert!(local_minima(&v2) >= 3, "L2 minima {}", local_minima(&v2));
    assert!(
        local_minima(&v1) >= 3,
        "kappa2 = 1 minima {}",
        local_minima(&v1)
    );
    assert_eq!(local_minima(&vbig), 1);
    let stuck = [0.5, 9.5]
        .iter()
        .filter(|&&s| {
            let r = L2Fit::default()
                .run(&l2, &Pendulum::bounds(), &[s])
                .unwrap();
            !metrics::converged(&r.params, &[3.0], 0.05).unwrap()
        })
        .count();
    assert!(stuck >= 1, "L2 converged from both far starts");
}

/// The learned-diffusion baseline runs and returns a κ² within its bounds.
#[test]
fn learned_diffusion_fit_runs() {
    let model = LotkaVolterra::two_param();
    let grid = Grid::uniform(0.0, 5.0, 0.05).unwrap();
    let proj = Observations::selector(&[0], 2).unwrap();
    let obs = simulate(
        &model,
        &[1.5, 1.0],
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(2),
    )
    .unwrap();
    let lik = FenrirLikelihood::new(model, obs, grid, FilterConfig::default()).unwrap();
    let r = LearnedDiffusionFit::default()
        .run(&lik, &model.bounds(), &[1.4, 1.1])
        .unwrap();
    let k = r.kappa2.unwrap();
    assert!((1e-20..=1e50).contains(&k));
    assert!(
        metrics::rel_param_rmse(&r.params, &[1.5, 1.0]).unwrap() < 0.2,
        "{:?}",
        r.params
    );
}

/// Restart rounds (the stand-in for `Fminbox`'s outer loop) never end worse
/// than a single L-BFGS run from the same start, take at least as many
/// iterations, and with the paper's loose stage tolerance reach a clearly
/// lower loss on the pendulum L2 loss from a far start.
#[test]
fn restart_rounds_continue_a_stage_to_convergence() {
    let (_, l2) = pendulum_setup();
    let b = Pendulum::bounds();
    let loose = LbfgsConfig {
        tol: StageTol {
            abs: 1e-6,
            rel: 1e-3,
        },
        ..LbfgsConfig::default()
    };
    let once = minimize(&l2, &b, &[5.0], &loose).unwrap();
    let rounds = minimize(&l2, &b, &[5.0], &loose.with_rounds()).unwrap();
    assert!(rounds.loss <= once.loss, "{} > {}", rounds.loss, once.loss);
    assert!(rounds.iters >= once.iters);
    assert!(
        (rounds.params[0] - 3.0).abs() < 0.15,
        "rounds: {:?}, once: {:?}",
        rounds.params,
        once.params
    );
}
