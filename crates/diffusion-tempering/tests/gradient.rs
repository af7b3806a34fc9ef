//! Spec property 5: the dual-number gradient matches central finite
//! differences (step 1e-6) to 1e-4 relative.

mod common;

use diffusion_tempering::models::{FitzHughNagumo, HodgkinHuxley, LotkaVolterra, Pendulum};
use diffusion_tempering::rk::{L2Loss, RkConfig};
use diffusion_tempering::{
    FenrirLikelihood, FilterConfig, Grid, Linearization, Observations, OdeModel, simulate,
};
use mlcore::sampling::seeded;

fn lik<M: OdeModel>(
    model: M,
    p: &[f64],
    t1: f64,
    dt: f64,
    observed: &[usize],
    lin: Linearization,
) -> FenrirLikelihood<M> {
    let grid = Grid::uniform(0.0, t1, dt).unwrap();
    let proj = Observations::selector(observed, model.dim()).unwrap();
    let obs = simulate(
        &model,
        p,
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(7),
    )
    .unwrap();
    let cfg = FilterConfig {
        order: 3,
        linearization: lin,
    };
    FenrirLikelihood::new(model, obs, grid, cfg).unwrap()
}

fn fd_check(f: &dyn Fn(&[f64]) -> f64, g: &[f64], p: &[f64], what: &str) {
    fd_check_step(f, g, p, what, 1e-6)
}

fn fd_check_step(f: &dyn Fn(&[f64]) -> f64, g: &[f64], p: &[f64], what: &str, step: f64) {
    for j in 0..p.len() {
        let h = step * p[j].abs().max(1.0);
        let mut a = p.to_vec();
        let mut b = p.to_vec();
        a[j] += h;
        b[j] -= h;
        let fd = (f(&a) - f(&b)) / (2.0 * h);
        let scale = g[j]
            .abs()
            .max(1e-2 * g.iter().fold(0.0f64, |m, v| m.max(v.abs())))
            .max(1e-6);
        assert!(
            (g[j] - fd).abs() <= 1e-4 * scale,
            "{what}: d/dθ{j} dual {} vs central difference {fd}",
            g[j]
        );
    }
}

fn check<M: OdeModel>(l: &FenrirLikelihood<M>, p: &[f64], what: &str) {
    for kappa2 in [1e-3, 1.0, 1e6] {
        let (v, g) = l.nll_grad(p, kappa2).unwrap();
        let v0 = l.nll(p, kappa2).unwrap();
        assert!(
            (v - v0).abs() <= 1e-10 * v0.abs().max(1.0),
            "{what}: dual value {v} vs {v0}"
        );
        fd_check(
            &|x: &[f64]| l.nll(x, kappa2).unwrap(),
            &g,
            p,
            &format!("{what}, kappa2 {kappa2}"),
        );
    }
}

/// Fenrir gradient vs central differences, LV (2 and 4 parameters, EK1 and
/// EK0), pendulum, FitzHugh–Nagumo, at perturbed parameters.
#[test]
fn fenrir_gradient_matches_central_differences_within_1e4() {
    let lv2 = lik(
        LotkaVolterra::two_param(),
        &[1.5, 1.0],
        5.0,
        0.02,
        &[0],
        Linearization::Ek1,
    );
    check(&lv2, &[1.8, 0.8], "LV-2 EK1");
    let lv2e0 = lik(
        LotkaVolterra::two_param(),
        &[1.5, 1.0],
        5.0,
        0.02,
        &[0],
        Linearization::Ek0,
    );
    check(&lv2e0, &[1.2, 1.3], "LV-2 EK0");
    let lv4 = lik(
        LotkaVolterra::four_param(),
        &[1.5, 1.0, 3.0, 1.0],
        4.0,
        0.02,
        &[0, 1],
        Linearization::Ek1,
    );
    check(&lv4, &[1.7, 0.9, 2.5, 1.2], "LV-4 EK1");
    let pend = lik(
        Pendulum::default(),
        &[3.0],
        5.0,
        0.02,
        &[0],
        Linearization::Ek1,
    );
    check(&pend, &[4.5], "pendulum");
    let fhn = lik(
        FitzHughNagumo,
        &FitzHughNagumo::TRUE_PARAMS,
        5.0,
        0.02,
        &[0],
        Linearization::Ek1,
    );
    check(&fhn, &[0.3, 0.25, 2.5], "FitzHugh-Nagumo");
}

/// The same for Hodgkin–Huxley (two conductances, [0, 20] ms). Here
/// `∂ℓ/∂g` is ~1e-3 against `ℓ ≈ 257`, so the rounding noise of a 1e-6
/// central difference (~1e-6 absolute) exceeds the 1e-4 tolerance; the
/// difference step is 1e-4 (truncation error `O(h²)` ≈ 1e-8 relative).
#[test]
fn hodgkin_huxley_gradient_matches_central_differences() {
    let hh = HodgkinHuxley::new(2);
    let l = lik(hh, &hh.true_params(), 20.0, 0.02, &[0], Linearization::Ek1);
    let p = [27.0, 6.5];
    let (_, g) = l.nll_grad(&p, 1.0).unwrap();
    fd_check_step(&|x: &[f64]| l.nll(x, 1.0).unwrap(), &g, &p, "HH-2", 1e-4);
}

/// `∂ℓ/∂ log κ²` (learned-diffusion baseline) vs central differences in
/// `log κ²`.
#[test]
fn log_kappa2_derivative_matches_central_differences() {
    let l = lik(
        LotkaVolterra::two_param(),
        &[1.5, 1.0],
        4.0,
        0.02,
        &[0],
        Linearization::Ek1,
    );
    let p = [1.6, 0.9];
    // where ℓ depends visibly on κ² (at small κ² the derivative is ~1e-9)
    for lk in [14.0f64, 18.0, 22.0] {
        let k = lk.exp();
        let (_, _, gk) = l.nll_grad_log_kappa2(&p, k).unwrap();
        let h = 1e-6 * lk;
        let fd =
            (l.nll(&p, (lk + h).exp()).unwrap() - l.nll(&p, (lk - h).exp()).unwrap()) / (2.0 * h);
        assert!(
            (gk - fd).abs() <= 1e-4 * gk.abs().max(1e-3),
            "d/dlog kappa2 {gk} vs {fd}"
        );
    }
}

/// The L2/RK baseline's forward-sensitivity gradient vs central differences.
#[test]
fn l2_gradient_matches_central_differences() {
    let model = LotkaVolterra::two_param();
    let times: Vec<f64> = (0..=200).map(|i| i as f64 * 0.05).collect();
    let proj = Observations::selector(&[0], 2).unwrap();
    let obs = simulate(&model, &[1.5, 1.0], 0.0, times, proj, 0.1, &mut seeded(3)).unwrap();
    let loss = L2Loss::new(model, obs, 0.0, RkConfig::default()).unwrap();
    let p = [1.3, 1.2];
    let (_, g) = loss.nll_grad(&p).unwrap();
    fd_check(&|x: &[f64]| loss.nll(x).unwrap(), &g, &p, "L2");
}
