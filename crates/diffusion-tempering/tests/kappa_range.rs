//! The tempering schedule's whole range, κ² ∈ {1e-6, 1, 1e6, 1e12, 1e20}:
//! dual-number gradients against central finite differences (relative
//! 1e-5), and the NLL's κ²-invariance.
//!
//! The invariance: with `P₀ = 0` and noise-free ODE measurements the ODE
//! posterior's means do not depend on `κ²` and its covariances are `κ²·B`,
//! so the Fenrir NLL is the joint Gaussian `−log N(y; μ, κ²B + σ²I)` with
//! `μ = H_obs E₀ m` (the smoother means at the data times). Scaling
//! `κ² → cκ²`, `σ² → cσ²` and the residual `y − μ → √c (y − μ)` scales the
//! covariance and the quadratic form's arguments together, so
//! `ℓ(θ; cκ², cσ², μ + √c(y − μ)) = ℓ(θ; κ², σ², y) + (n/2)·ln c`
//! exactly (`n` = number of scalar observations). Checked from κ² = 1 to
//! every value of the range, against the closed-form shift.

use diffusion_tempering::models::{HodgkinHuxley, LotkaVolterra, Pendulum};
use diffusion_tempering::{
    FenrirLikelihood, FilterConfig, Grid, Observations, OdeFilter, OdeModel, simulate,
};
use mlcore::sampling::seeded;
use ndarray::Array2;

const KAPPA2: [f64; 5] = [1e-6, 1.0, 1e6, 1e12, 1e20];

fn problem<M: OdeModel>(
    model: M,
    truth: &[f64],
    t1: f64,
    dt: f64,
    observed: &[usize],
) -> FenrirLikelihood<M> {
    let grid = Grid::uniform(0.0, t1, dt).unwrap();
    let proj = Observations::selector(observed, model.dim()).unwrap();
    let obs = simulate(
        &model,
        truth,
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(11),
    )
    .unwrap();
    FenrirLikelihood::new(model, obs, grid, FilterConfig::default()).unwrap()
}

/// Fourth-order central difference `[−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h)]/(12h)`
/// (truncation `O(h⁴)`), step `h = 1e-3·|θⱼ|` (θⱼ ≠ 0 here).
fn central_difference(f: &dyn Fn(&[f64]) -> f64, p: &[f64], j: usize) -> f64 {
    let h = 1e-3 * p[j].abs();
    let at = |s: f64| {
        let mut x = p.to_vec();
        x[j] += s * h;
        f(&x)
    };
    (-at(2.0) + 8.0 * at(1.0) - 8.0 * at(-1.0) + at(-2.0)) / (12.0 * h)
}

fn check_gradient<M: OdeModel>(lik: &FenrirLikelihood<M>, p: &[f64], what: &str) {
    for k in KAPPA2 {
        let (v, g) = lik.nll_grad(p, k).unwrap();
        let v0 = lik.nll(p, k).unwrap();
        assert!(
            (v - v0).abs() <= 1e-12 * v0.abs().max(1.0),
            "{what}, κ² = {k:e}: dual value {v} vs {v0}"
        );
        let gmax = g.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (j, &gj) in g.iter().enumerate() {
            let fd = central_difference(&|x: &[f64]| lik.nll(x, k).unwrap(), p, j);
            assert!(
                (gj - fd).abs() <= 1e-5 * gj.abs().max(1e-3 * gmax),
                "{what}, κ² = {k:e}: ∂ℓ/∂θ{j} dual {gj} vs central difference {fd}"
            );
        }
    }
}

#[test]
fn gradients_match_central_differences_over_the_schedule() {
    let pend = problem(Pendulum::default(), &[3.0], 5.0, 0.01, &[0]);
    check_gradient(&pend, &[4.5], "pendulum");
    let lv = LotkaVolterra::four_param();
    let lv4 = problem(lv, &LotkaVolterra::TRUE, 4.0, 0.01, &[0]);
    check_gradient(&lv4, &[1.7, 0.9, 2.5, 1.2], "Lotka-Volterra, 4 parameters");
    let hh = HodgkinHuxley::new(3);
    let hh3 = problem(hh, &hh.true_params(), 25.0, 0.01, &[0]);
    check_gradient(&hh3, &[27.0, 6.5, 0.12], "Hodgkin-Huxley, 3 parameters");
}

/// `y_c = μ + √c (y − μ)` with `μ` the ODE posterior's observed means.
fn scaled<M: OdeModel + Clone>(
    lik: &FenrirLikelihood<M>,
    p: &[f64],
    c: f64,
) -> FenrirLikelihood<M> {
    let obs = lik.observations();
    let sol = OdeFilter::new(lik.config(), 1.0)
        .unwrap()
        .solve(lik.model(), p, lik.grid())
        .unwrap();
    let h = obs.proj();
    let d = lik.model().dim();
    let y = obs.values();
    let mut yc = Array2::zeros(y.raw_dim());
    for (r, &t) in obs.times().iter().enumerate() {
        let i = lik.grid().index_of(t).unwrap();
        for o in 0..h.nrows() {
            let mu: f64 = (0..d).map(|j| h[[o, j]] * sol.smoother_means[[i, j]]).sum();
            yc[[r, o]] = mu + c.sqrt() * (y[[r, o]] - mu);
        }
    }
    let obs_c =
        Observations::new(obs.times().to_vec(), yc, h.to_owned(), c * obs.noise_var()).unwrap();
    FenrirLikelihood::new(lik.model().clone(), obs_c, lik.grid().clone(), lik.config()).unwrap()
}

fn check_invariance<M: OdeModel + Clone>(lik: &FenrirLikelihood<M>, p: &[f64], what: &str) {
    let base = lik.nll(p, 1.0).unwrap();
    let n = (lik.observations().len() * lik.observations().proj().nrows()) as f64;
    for k in KAPPA2 {
        let shifted = scaled(lik, p, k).nll(p, k).unwrap();
        let expected = base + 0.5 * n * k.ln();
        assert!(
            (shifted - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{what}, c = κ² = {k:e}: ℓ = {shifted} vs ℓ(κ² = 1) + (n/2) ln c = {expected}"
        );
    }
}

#[test]
fn nll_is_invariant_under_joint_scaling_over_the_schedule() {
    let pend = problem(Pendulum::default(), &[3.0], 5.0, 0.01, &[0]);
    check_invariance(&pend, &[3.3], "pendulum");
    let lv = LotkaVolterra::four_param();
    let lv4 = problem(lv, &LotkaVolterra::TRUE, 4.0, 0.01, &[0, 1]);
    check_invariance(&lv4, &[1.7, 0.9, 2.5, 1.2], "Lotka-Volterra, 4 parameters");
    let hh = HodgkinHuxley::new(3);
    let hh3 = problem(hh, &hh.true_params(), 25.0, 0.01, &[0]);
    check_invariance(&hh3, &[27.0, 6.5, 0.12], "Hodgkin-Huxley, 3 parameters");
}

/// The ODE posterior's means at κ² across the range agree with κ² = 1 (the
/// solution component to 1e-9 relative) and its covariances are κ² times
/// κ² = 1's (1e-8 relative to the largest entry).
#[test]
fn means_invariant_and_covariances_proportional_over_the_schedule() {
    let lv = LotkaVolterra::four_param();
    let grid = Grid::uniform(0.0, 2.0, 0.01).unwrap();
    let solve = |k: f64| {
        OdeFilter::new(FilterConfig::default(), k)
            .unwrap()
            .solve(&lv, &LotkaVolterra::TRUE, &grid)
            .unwrap()
    };
    let base = solve(1.0);
    let d = lv.dim();
    let cmax = base.filter_covs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for k in KAPPA2 {
        let s = solve(k);
        for i in 0..grid.len() {
            for j in 0..d {
                let (a, b) = (s.smoother_means[[i, j]], base.smoother_means[[i, j]]);
                assert!(
                    (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                    "κ² = {k:e}: mean {a} vs {b}"
                );
            }
        }
        for (a, b) in s.filter_covs.iter().zip(base.filter_covs.iter()) {
            assert!(
                (a / k - b).abs() <= 1e-8 * cmax,
                "κ² = {k:e}: covariance / κ² {} vs {b}",
                a / k
            );
        }
    }
}
