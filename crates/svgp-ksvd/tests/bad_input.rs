//! Hostile inputs at every public entry point: a typed error, never a panic.

use candle_core::{DType, Device, Tensor};
use ndarray::{Array1, Array2, array};
use nncore::params::ParamSet;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use svgp_ksvd::Error;
use svgp_ksvd::attention::{KepConfig, KepSvgpAttention, SoftmaxAttention};
use svgp_ksvd::ksvd::*;
use svgp_ksvd::model::{LastAttention, Vit, VitConfig};
use svgp_ksvd::shift;
use svgp_ksvd::svgp::{EigenPairSvgp, Posterior, kl_to_diag_prior};

fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-1.0),
        Just(1e308),
        Just(-1e-300),
        -10.0f64..10.0,
    ]
}

fn matrix(max: usize) -> impl Strategy<Value = Array2<f64>> {
    (0usize..max, 0usize..max).prop_flat_map(|(r, c)| {
        proptest::collection::vec(hostile(), r * c)
            .prop_map(move |v| Array2::from_shape_vec((r, c), v).unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: RngSeed::Fixed(99), ..ProptestConfig::with_cases(256) })]

    /// The ndarray entry points return Ok or a typed error on any input, and
    /// every Ok value is finite where the inputs were.
    #[test]
    fn ndarray_entry_points_never_panic(a in matrix(7), b in matrix(7), c in matrix(7), s in 0usize..9, eta in hostile(), lam in proptest::collection::vec(hostile(), 0..6)) {
        let _ = normalize_rows(a.view());
        let _ = attention_kernel(a.view(), b.view());
        if let Ok(k) = KernelSvd::from_features(a.view(), b.view(), s) {
            prop_assert!(k.lambda.iter().all(|l| *l > 0.0 && l.is_finite()));
            let _ = k.primal_weights(a.view(), b.view());
            let _ = k.left_scores(c.view());
            if let Ok(r) = k.residual(c.view()) { prop_assert!(r.iter().all(|v| *v >= 0.0)); }
        }
        let _ = KernelSvd::from_kernel(a.view(), s);
        let _ = left_kernel_diag(a.view());
        let lam = Array1::from(lam);
        let _ = primal_objective(a.view(), b.view(), lam.view(), c.view(), a.view());
        let _ = ksvd_penalty(eta, eta);
        let _ = landmark_indices(a.nrows(), s);
        let _ = landmark_weights(a.view(), b.view());
        let chol = vec![b.clone(); c.ncols().min(3)];
        let _ = kl_to_diag_prior(c.view(), &chol, lam.view());
        if let Ok(gp) = EigenPairSvgp::new(lam.clone(), c.clone(), chol.clone()) {
            let _ = gp.predict(a.view(), &Posterior::Truncated);
            let _ = gp.predict(a.view(), &Posterior::WithResidual(Array1::from_elem(a.nrows(), eta)));
            let _ = gp.sample(a.view(), &Posterior::Truncated, &mut ChaCha8Rng::seed_from_u64(0));
            let _ = gp.elbo_gaussian(a.view(), b.view(), eta, &Posterior::Truncated);
            let _ = gp.elbo_gaussian_gradient(a.view(), b.view(), eta);
        }
        let _ = EigenPairSvgp::prior(lam.clone(), s);
        let _ = EigenPairSvgp::optimal_gaussian(lam, a.view(), b.view(), eta);
        let img = a.mapv(|v| v as f32);
        let _ = shift::patchify(img.view(), s, 2);
        let _ = shift::rotate(img.view(), s, eta);
        let _ = shift::gaussian_noise(img.view(), eta, eta, &mut ChaCha8Rng::seed_from_u64(1));
        let _ = shift::texture_crops(a.view(), s, s, eta, &mut ChaCha8Rng::seed_from_u64(2));
        let _ = svgp_ksvd::evaluate::metrics(a.view(), &vec![0; a.nrows()]);
        let _ = svgp_ksvd::evaluate::ood(a.view(), b.view());
    }

    /// Layer and model constructors and forward passes reject bad
    /// configurations and shapes with typed errors.
    #[test]
    fn candle_entry_points_never_panic(width in 0usize..20, heads in 0usize..5, tokens in 0usize..12, s in 0usize..6, rm in 0usize..4, eta in hostile(), b in 0usize..3) {
        let dev = Device::Cpu;
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let cfg = KepConfig { s, rank_multi: rm, eta_ksvd: eta, eta_kl: eta, ..Default::default() };
        let mut params = ParamSet::new();
        if let Ok(layer) = KepSvgpAttention::new(&mut params, "k", (width, heads, tokens), cfg, DType::F64, &mut rng, &dev) {
            let x = Tensor::zeros((b, tokens, width), DType::F64, &dev).unwrap();
            let _ = layer.forward(&x, Some(&mut rng));
            let x = Tensor::zeros((1, tokens + 1, width), DType::F64, &dev).unwrap();
            prop_assert!(layer.forward(&x, None::<&mut ChaCha8Rng>).is_err());
            let _ = layer.head_svgp(heads, 0);
        }
        let mut params = ParamSet::new();
        if let Ok(att) = SoftmaxAttention::new(&mut params, "a", width, heads, DType::F64, &mut rng, &dev) {
            let x = Tensor::zeros((1, tokens.max(1), width + 1), DType::F64, &dev).unwrap();
            prop_assert!(att.forward(&x).is_err());
        }
        let vc = VitConfig { width, heads, patches: tokens, last: LastAttention::Kep(cfg), depth: 1, ..VitConfig::default() };
        if let Ok(m) = Vit::new(vc, DType::F32, &mut rng, &dev) {
            let x = ndarray::Array2::<f32>::zeros((b, tokens * 4 + 1));
            prop_assert!(m.predict(x.view(), 1, 1, &mut rng).is_err());
            let _ = m.predict(x.view(), 0, 1, &mut rng);
        }
    }
}

/// The named variants of the issue.
#[test]
fn named_errors() {
    let a = Array2::from_shape_fn((5, 3), |(i, j)| (i + 2 * j) as f64 + 1.0);
    assert!(matches!(
        KernelSvd::from_features(a.view(), a.view(), 4),
        Err(Error::RankTooLarge { s: 4, max: 3 })
    ));
    // Rank-1 kernel: λ_2 = 0.
    let r1 = Array2::from_shape_fn((4, 4), |(i, j)| ((i + 1) * (j + 1)) as f64);
    assert!(matches!(
        KernelSvd::from_kernel(r1.view(), 2),
        Err(Error::NonPositiveSingularValue { index: 1, .. })
    ));
    let lam = array![1.0, 2.0];
    let upper = vec![array![[1.0, 0.5], [0.0, 1.0]]];
    assert!(matches!(
        EigenPairSvgp::new(lam.clone(), Array2::zeros((2, 1)), upper),
        Err(Error::NotLowerTriangular { row: 0, col: 1, .. })
    ));
    assert!(matches!(
        EigenPairSvgp::new(lam.clone(), Array2::zeros((3, 1)), vec![Array2::eye(2)]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        normalize_rows(Array2::<f64>::zeros((0, 2)).view()),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        normalize_rows(array![[f64::NAN]].view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        ksvd_penalty(1.0, -1.0),
        Err(Error::InvalidParameter { .. })
    ));
    let cfg = KepConfig {
        eta_kl: -0.5,
        s: 2,
        rank_multi: 2,
        ..Default::default()
    };
    assert!(matches!(
        cfg.check(10, 4),
        Err(Error::InvalidParameter { .. })
    ));
    let cfg = KepConfig {
        s: 4,
        rank_multi: 3,
        ..Default::default()
    };
    assert!(matches!(
        cfg.check(10, 8),
        Err(Error::RankTooLarge { s: 12, max: 10 })
    ));
    let m = Vit::new(
        VitConfig::default(),
        DType::F32,
        &mut ChaCha8Rng::seed_from_u64(0),
        &Device::Cpu,
    )
    .unwrap();
    let x = ndarray::Array2::<f32>::zeros((2, 64));
    assert!(matches!(
        m.predict(x.view(), 0, 8, &mut ChaCha8Rng::seed_from_u64(0)),
        Err(Error::InvalidParameter { .. })
    ));
}
