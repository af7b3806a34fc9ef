//! Property tests 5 and 6 of the spec (backward-error analysis) and the
//! Net2WiderNet baseline.

use candle_core::DType;
use deep_fusion::baselines::net2wider;
use deep_fusion::bea::{Objective, gd_step_errors, lie_bracket, ordering_difference, rk4};
use deep_fusion::{Activation, Mlp};
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn objective(seed: u64) -> (Objective, Vec<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let net = Mlp::random(&[3, 6, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let x = Array2::from_shape_fn((16, 3), |_| rng.random_range(-1.0..1.0));
    let y = Array2::from_shape_fn((16, 2), |_| rng.random_range(-1.0..1.0));
    let o = Objective::new(&net, x.view(), y.view()).unwrap();
    let th = o.theta().unwrap();
    (o, th)
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// The candle gradient agrees with central differences of the loss, and the
/// HVP is symmetric (uᵀHv = vᵀHu): independent checks of the derivatives.
#[test]
fn gradient_and_hvp_agree_with_finite_differences() {
    let (o, th) = objective(1);
    let g = o.grad(&th).unwrap();
    for i in [0, 5, th.len() - 1] {
        let mut p = th.clone();
        let mut m = th.clone();
        p[i] += 1e-6;
        m[i] -= 1e-6;
        let fd = (o.loss(&p).unwrap() - o.loss(&m).unwrap()) / 2e-6;
        assert!(
            (fd - g[i]).abs() <= 1e-8 * (1.0 + g[i].abs()),
            "{fd} vs {}",
            g[i]
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let u: Vec<f64> = (0..th.len()).map(|_| rng.random_range(-1.0..1.0)).collect();
    let v: Vec<f64> = (0..th.len()).map(|_| rng.random_range(-1.0..1.0)).collect();
    let hu = o.hvp_fd(&th, &u, 1e-5).unwrap();
    let hv = o.hvp_fd(&th, &v, 1e-5).unwrap();
    let a: f64 = v.iter().zip(&hu).map(|(x, y)| x * y).sum();
    let b: f64 = u.iter().zip(&hv).map(|(x, y)| x * y).sum();
    assert!((a - b).abs() <= 1e-7 * (1.0 + a.abs()), "{a} vs {b}");
}

/// Property 5: e(h)/e(h/2) ∈ [6, 10] against the modified flow of
/// L̃ = L + (h/4)‖∇L‖² (GD is O(h³)-close to it), and about 4 (here
/// [3, 5]) against the plain gradient flow (O(h²)).
#[test]
fn bea_modified_flow_ratio_in_6_10_plain_about_4() {
    let (o, th) = objective(2);
    let h = 0.2;
    let (m1, p1) = gd_step_errors(&o, &th, h, 64, 1e-4).unwrap();
    let (m2, p2) = gd_step_errors(&o, &th, h / 2.0, 64, 1e-4).unwrap();
    let (rm, rp) = (m1 / m2, p1 / p2);
    eprintln!("modified ratio {rm}, plain ratio {rp}, e(h) = {m1:e} / {p1:e}");
    assert!((6.0..=10.0).contains(&rm), "modified-flow ratio {rm}");
    assert!((3.0..=5.0).contains(&rp), "plain-flow ratio {rp}");
    assert!(m1 < p1);
}

/// Property 6: (θ₁₂ − θ₂₁) − h²·[∇L₁, ∇L₂] = O(h³): its norm shrinks by a
/// factor in [6, 10] when h halves.
#[test]
fn ordering_bracket_residual_ratio_in_6_10() {
    let (o1, th) = objective(3);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let net = Mlp::random(&[3, 6, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let x = Array2::from_shape_fn((16, 3), |_| rng.random_range(-1.0..1.0));
    let y = Array2::from_shape_fn((16, 2), |_| rng.random_range(-1.0..1.0));
    let o2 = Objective::new(&net, x.view(), y.view()).unwrap();
    let br = lie_bracket(&o1, &o2, &th, 1e-5).unwrap();
    assert!(norm(&br) > 1e-6);
    let resid = |h: f64| {
        let d = ordering_difference(&o1, &o2, &th, h).unwrap();
        norm(
            &d.iter()
                .zip(&br)
                .map(|(a, b)| a - h * h * b)
                .collect::<Vec<_>>(),
        )
    };
    let h = 0.2;
    let r = resid(h) / resid(h / 2.0);
    eprintln!("ordering residual ratio {r}");
    assert!((6.0..=10.0).contains(&r), "{r}");
}

/// RK4 integrates dθ/dt = −θ to e^{−t}θ₀ (closed form) to 1e-10.
#[test]
fn rk4_matches_the_exponential() {
    let out = rk4(
        |th| Ok(th.iter().map(|v| -v).collect()),
        &[1.0, -2.0],
        1.0,
        100,
    )
    .unwrap();
    let e = (-1.0f64).exp();
    assert!((out[0] - e).abs() <= 1e-10 && (out[1] + 2.0 * e).abs() <= 1e-10);
}

/// Bad input: h ≤ 0, ε ≤ 0, wrong θ length, NaN θ, zero RK4 steps.
#[test]
fn bea_bad_input_is_typed() {
    use deep_fusion::Error;
    let (o, th) = objective(5);
    assert!(matches!(
        o.igr_penalty(&th, 0.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        o.modified_grad(&th, -1.0, 1e-4),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        o.hvp_fd(&th, &th, 0.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(o.grad(&th[1..]), Err(Error::Shape { .. })));
    let mut bad = th.clone();
    bad[0] = f64::NAN;
    assert!(matches!(o.loss(&bad), Err(Error::NonFinite { .. })));
    assert!(matches!(
        gd_step_errors(&o, &th, f64::NAN, 4, 1e-4),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        rk4(|t| Ok(t.to_vec()), &th, 1.0, 0),
        Err(Error::InvalidParameter { .. })
    ));
}

/// Net2WiderNet preserves the function (to 1e-12) and errors on shrinking.
#[test]
fn net2wider_preserves_the_function() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let net = Mlp::random(&[4, 5, 3, 2], Activation::Relu, DType::F64, &mut rng).unwrap();
    let wide = net2wider(&net, &[9, 7], &mut rng).unwrap();
    assert_eq!(wide.sizes(), vec![4, 9, 7, 2]);
    let x = Array2::from_shape_fn((11, 4), |_| rng.random_range(-2.0..2.0));
    let (a, b) = (
        net.forward_array(x.view()).unwrap(),
        wide.forward_array(x.view()).unwrap(),
    );
    assert!((a - b).iter().all(|d| d.abs() <= 1e-12));
    assert!(net2wider(&net, &[4, 7], &mut rng).is_err());
    assert!(net2wider(&net, &[9], &mut rng).is_err());
}
