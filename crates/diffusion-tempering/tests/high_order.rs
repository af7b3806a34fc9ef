//! Filter orders q > 3: Taylor-mode initialisation with nested duals.

use diffusion_tempering::model::taylor_init;
use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::{
    FenrirLikelihood, FilterConfig, Grid, Linearization, Observations, OdeModel, Scalar, simulate,
};
use mlcore::sampling::seeded;

/// ẋ = −a x + sin t (non-autonomous, so the time derivatives matter).
struct Forced;
impl OdeModel for Forced {
    fn dim(&self) -> usize {
        1
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs<T: Scalar>(&self, t: T, x: &[T], p: &[T], out: &mut [T]) {
        out[0] = -p[0] * x[0] + t.sin();
    }
    fn x0<T: Scalar>(&self, _p: &[T]) -> Vec<T> {
        vec![T::from(1.0)]
    }
}

/// Exact derivatives of x' = −a x + sin t at t₀: x⁽ᵏ⁺¹⁾ = −a x⁽ᵏ⁾ + sin⁽ᵏ⁾(t₀),
/// up to q = 7, and the nested path agrees with the `Dual3` path on the
/// first four.
#[test]
fn nested_taylor_coefficients_are_exact() {
    let (a, t0) = (0.7, 0.3);
    let c: Vec<Vec<f64>> = taylor_init(&Forced, t0, &[a], 7);
    assert_eq!(c.len(), 8);
    let sin_k = |k: usize| match k % 4 {
        0 => f64::sin(t0),
        1 => f64::cos(t0),
        2 => -f64::sin(t0),
        _ => -f64::cos(t0),
    };
    let mut x: f64 = 1.0;
    for (k, ck) in c.iter().enumerate() {
        assert!(
            (ck[0] - x).abs() < 1e-12 * x.abs().max(1.0),
            "k = {k}: {} vs {x}",
            ck[0]
        );
        x = -a * x + sin_k(k);
    }
    let p = Pendulum::default();
    let lo = taylor_init(&p, 0.0, &Pendulum::TRUE_PARAMS, 3);
    let hi = taylor_init(&p, 0.0, &Pendulum::TRUE_PARAMS, 6);
    for k in 0..4 {
        for i in 0..2 {
            assert!((lo[k][i] - hi[k][i]).abs() < 1e-12, "k = {k}, i = {i}");
        }
    }
}

/// With q = 5 the Fenrir NLL at small κ² is the least-squares NLL of an
/// accurate ODE solution, as with q = 3: both agree closely on
/// Lotka–Volterra, and q = 8 is a typed error.
#[test]
fn order_five_filter_runs_and_agrees_with_order_three() {
    let model = LotkaVolterra::two_param();
    let grid = Grid::uniform(0.0, 5.0, 0.01).unwrap();
    let proj = Observations::selector(&[0], 2).unwrap();
    let obs = simulate(
        &model,
        &[1.5, 1.0],
        0.0,
        grid.times().to_vec(),
        proj,
        0.1,
        &mut seeded(5),
    )
    .unwrap();
    let cfg = |order| FilterConfig {
        order,
        linearization: Linearization::Ek1,
    };
    let l3 = FenrirLikelihood::new(model, obs.clone(), grid.clone(), cfg(3)).unwrap();
    let l5 = FenrirLikelihood::new(model, obs.clone(), grid.clone(), cfg(5)).unwrap();
    let p = [1.6, 0.9];
    let (v3, v5) = (l3.nll(&p, 1e-6).unwrap(), l5.nll(&p, 1e-6).unwrap());
    assert!((v3 - v5).abs() < 1e-6 * v3.abs(), "{v3} vs {v5}");
    let (v, g) = l5.nll_grad(&p, 1.0).unwrap();
    assert!((v - l5.nll(&p, 1.0).unwrap()).abs() < 1e-9 * v.abs());
    assert!(g.iter().all(|x| x.is_finite()));
    assert!(FenrirLikelihood::new(model, obs, grid, cfg(8)).is_err());
}
