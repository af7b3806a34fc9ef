//! The random-feature readout (closed-form ridge) and the tasks.

use ndarray::{Array1, Array2, Axis};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use ssm_universality::mlp::Activation;
use ssm_universality::readout::{RandomFeatureMlp, argmax_rows, mse, one_hot};
use ssm_universality::tasks::{ForcedPendulum, lag_copy};

/// The fitted output layer satisfies the ridge normal equations
/// (Φcᵀ Φc + ρI) β = Φcᵀ Yc on the centred hidden features (checked independently
/// by rebuilding Φ from the fitted first layer).
#[test]
fn ridge_normal_equations_hold() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let x = Array2::from_shape_simple_fn((80, 3), || rng.sample::<f64, _>(StandardNormal));
    let y = x
        .map_axis(Axis(1), |r| (r[0] * r[1]).sin() + r[2])
        .insert_axis(Axis(1));
    let rho = 0.3;
    let f = RandomFeatureMlp::fit(x.view(), y.view(), 20, rho, Activation::Relu, &mut rng).unwrap();
    let mean = x.mean_axis(Axis(0)).unwrap();
    let sd = x.std_axis(Axis(0), 0.0);
    let z = (&x - &mean) / &sd;
    let phi = f.mlp().hidden(z.view()).unwrap();
    let phic = &phi - &phi.mean_axis(Axis(0)).unwrap();
    let yc = &y - &y.mean_axis(Axis(0)).unwrap();
    let pred = f.predict(x.view()).unwrap();
    // β from the predictions: pred − mean(pred) = Φc β.
    let (w1, _) = f.mlp().first_layer();
    assert_eq!(w1.dim(), (20, 3));
    let beta = mlcore::linalg::lstsq(
        phic.view(),
        (&pred - &pred.mean_axis(Axis(0)).unwrap()).view(),
    )
    .unwrap()
    .x;
    let lhs = phic.t().dot(&phic).dot(&beta) + &beta * rho;
    let rhs = phic.t().dot(&yc);
    for (a, b) in lhs.iter().zip(rhs.iter()) {
        assert!((a - b).abs() < 1e-8 * (1.0 + b.abs()), "{a} vs {b}");
    }
    // The bias is unpenalised: residuals average to zero.
    assert!((&y - &pred).mean().unwrap().abs() < 1e-10);
}

/// Wider random-feature layers fit a smooth target better (test MSE at D = 512
/// below that at D = 8, and below 5 % of the target variance).
#[test]
fn width_helps_on_a_smooth_target() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let draw = |rng: &mut ChaCha8Rng, n| {
        let x = Array2::from_shape_simple_fn((n, 2), || rng.random_range(-2.0f64..2.0));
        let y = x
            .map_axis(Axis(1), |r| r[0].sin() * r[1].cos())
            .insert_axis(Axis(1));
        (x, y)
    };
    let (x, y) = draw(&mut rng, 1500);
    let (xt, yt) = draw(&mut rng, 500);
    let err = |d, rng: &mut ChaCha8Rng| {
        let f = RandomFeatureMlp::fit(x.view(), y.view(), d, 1e-6, Activation::Relu, rng).unwrap();
        mse(f.predict(xt.view()).unwrap().view(), yt.view()).unwrap()
    };
    let (small, large) = (err(8, &mut rng), err(512, &mut rng));
    let var = yt.var(0.0);
    assert!(
        large < small && large < 0.05 * var,
        "D=8: {small}, D=512: {large}, var {var}"
    );
}

#[test]
fn one_hot_and_argmax() {
    let y = one_hot(&[2, 0, 1], 3).unwrap();
    assert_eq!(argmax_rows(y.view()).unwrap(), vec![2, 0, 1]);
}

#[test]
fn lag_copy_shifts() {
    let v = Array2::from_shape_fn((5, 2), |(k, c)| (10 * k + c) as f64);
    let y = lag_copy(v.view(), 2).unwrap();
    assert_eq!(y.row(0).to_vec(), vec![0.0, 0.0]);
    assert_eq!(y.row(4).to_vec(), vec![20.0, 21.0]);
}

/// RK4 against closed forms: small constant forcing u ≡ ε gives the linear
/// oscillator θ'' + cθ' + ω²θ = gε (sin θ ≈ θ, error O(θ³) ≈ 1e-16 relative here), whose
/// solution from rest is θ(t) = (gε/ω²)(1 − e^{−ct/2}(cos ω_d t + (c/(2ω_d)) sin ω_d t)),
/// ω_d = √(ω² − c²/4). RK4's global error is O(h⁴): below 1e-5 of the amplitude at
/// h = 0.025, and halving h divides it by ≈ 16 (asserted ≥ 12).
#[test]
fn pendulum_matches_linearised_solution() {
    let eps = 1e-4;
    let max_err = |substeps: usize| {
        let p = ForcedPendulum {
            substeps,
            ..ForcedPendulum::default()
        };
        let th = p.drive(Array1::from_elem(200, eps).view()).unwrap();
        let (c, w, g) = (p.damping, p.omega, p.gain);
        let wd = (w * w - c * c / 4.0).sqrt();
        th.iter().enumerate().fold(0.0f64, |m, (k, &t)| {
            let tt = (k + 1) as f64 * p.dt;
            let exact = g * eps / (w * w)
                * (1.0
                    - (-c * tt / 2.0).exp() * ((wd * tt).cos() + c / (2.0 * wd) * (wd * tt).sin()));
            m.max((t - exact).abs())
        })
    };
    let amp = 2.0 * eps / 4.0;
    let (e4, e8) = (max_err(4), max_err(8));
    assert!(e4 < 1e-5 * amp, "RK4 error {e4} vs amplitude {amp}");
    assert!(e4 / e8 >= 12.0, "order-4 convergence: {e4} / {e8}");
    let p = ForcedPendulum::default();
    let (g, w) = (p.gain, p.omega);
    // Large forcing: the steady state solves ω² sin θ = g u (non-linear).
    let th = p.drive(Array1::from_elem(3000, 1.5).view()).unwrap();
    let steady = (g * 1.5 / (w * w)).asin();
    assert!((th[2999] - steady).abs() < 1e-8, "{} vs {steady}", th[2999]);
}
