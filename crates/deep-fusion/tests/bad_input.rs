//! Hostile input at every public entry point: typed errors, never a panic.

use candle_core::{DType, Device, Tensor};
use deep_fusion::baselines::net2wider;
use deep_fusion::bea::{Objective, lie_bracket};
use deep_fusion::experiment::{Schedule, Targets, Task, fusion_vs_scratch, teacher_student_task};
use deep_fusion::train::{BlockMlp, Execution, LayerRates, Loss, Trainer, lr_after_fusion};
use deep_fusion::transformer::{NormKind, TinyTransformer, TransformerConfig};
use deep_fusion::{
    Activation, Combine, CrossInit, Error, FuseOptions, Mlp, exactness_certificate, fuse, fuse_many,
};
use ndarray::{Array1, Array2};
use nncore::optim::OptimizerKind;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn hostile() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-1.0),
        Just(0.0),
        Just(1e308),
        Just(-1e-300),
        any::<f64>(),
    ]
}

#[test]
fn fusion_errors_are_typed() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let a = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let deep = Mlp::random(&[3, 4, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let relu = Mlp::random(&[3, 4, 2], Activation::Relu, DType::F64, &mut rng).unwrap();
    let wide_in = Mlp::random(&[5, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let wide_out = Mlp::random(&[3, 4, 7], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let f32net = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F32, &mut rng).unwrap();
    let o = FuseOptions::default();
    assert!(matches!(
        fuse(&a, &deep, &o, &mut rng),
        Err(Error::ArchitectureMismatch {
            layer: 2,
            left: 2,
            right: 3
        })
    ));
    assert!(matches!(
        fuse(&a, &relu, &o, &mut rng),
        Err(Error::ActivationMismatch { .. })
    ));
    assert!(matches!(
        fuse(&a, &wide_in, &o, &mut rng),
        Err(Error::ArchitectureMismatch {
            layer: 0,
            left: 3,
            right: 5
        })
    ));
    assert!(matches!(
        fuse(&a, &wide_out, &o, &mut rng),
        Err(Error::ArchitectureMismatch {
            left: 2,
            right: 7,
            ..
        })
    ));
    assert!(matches!(
        fuse(&a, &f32net, &o, &mut rng),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        fuse_many(&[], &o, &mut rng),
        Err(Error::EmptyNetwork { .. })
    ));
    let w3 = FuseOptions {
        combine: Combine::Weighted(0.5),
        ..o
    };
    assert!(matches!(
        fuse_many(&[&a, &a, &a], &w3, &mut rng),
        Err(Error::CombineArity { .. })
    ));
    let fused = fuse(&a, &a, &o, &mut rng).unwrap();
    assert!(matches!(
        exactness_certificate(&fused, &[&a], Array2::zeros((1, 3)).view()),
        Err(Error::CombineArity { .. })
    ));
    assert!(matches!(
        exactness_certificate(&fused, &[&a, &a], Array2::zeros((0, 3)).view()),
        Err(Error::EmptyNetwork { .. })
    ));
    assert!(matches!(
        exactness_certificate(&fused, &[&a, &a], Array2::zeros((2, 4)).view()),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        Mlp::from_arrays(&[], Activation::Relu, DType::F64),
        Err(Error::EmptyNetwork { .. })
    ));
    assert!(matches!(
        Mlp::random(&[3], Activation::Relu, DType::F64, &mut rng),
        Err(Error::EmptyNetwork { .. })
    ));
    assert!(matches!(
        Mlp::random(&[3, 0, 1], Activation::Relu, DType::F64, &mut rng),
        Err(Error::EmptyNetwork { .. })
    ));
    assert!(matches!(
        Mlp::random(&[1 << 40, 1 << 40], Activation::Relu, DType::F64, &mut rng),
        Err(Error::TooLarge { .. })
    ));
    assert!(matches!(
        Mlp::random(&[3, 2], Activation::Relu, DType::U8, &mut rng),
        Err(Error::Unsupported(_))
    ));
    let bad_shape = vec![
        (Array2::zeros((2, 3)), Array1::zeros(2)),
        (Array2::zeros((1, 4)), Array1::zeros(1)),
    ];
    assert!(matches!(
        Mlp::from_arrays(&bad_shape, Activation::Relu, DType::F64),
        Err(Error::Shape { .. })
    ));
    let bad_bias = vec![(Array2::zeros((2, 3)), Array1::zeros(3))];
    assert!(matches!(
        Mlp::from_arrays(&bad_bias, Activation::Relu, DType::F64),
        Err(Error::Shape { .. })
    ));
    let x = Tensor::zeros((2, 4), DType::F64, &Device::Cpu).unwrap();
    assert!(matches!(a.forward(&x), Err(Error::Shape { .. })));
    let x = Tensor::zeros((2, 3), DType::F32, &Device::Cpu).unwrap();
    assert!(matches!(a.forward(&x), Err(Error::Unsupported(_))));
    let x = Tensor::new(&[[f64::NAN, 0.0, 0.0]], &Device::Cpu).unwrap();
    assert!(matches!(a.forward(&x), Err(Error::NonFinite { .. })));
}

#[test]
fn training_experiment_and_bea_errors_are_typed() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let a = Mlp::random(&[3, 4, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let sgd = OptimizerKind::Sgd {
        momentum: 0.0,
        weight_decay: 0.0,
        nesterov: false,
    };
    let net = BlockMlp::from_mlp(&a).unwrap();
    assert!(matches!(
        Trainer::new(
            net.clone(),
            sgd,
            &LayerRates::uniform(2, 0.1),
            Execution::Auto
        ),
        Err(Error::CombineArity { .. })
    ));
    assert!(matches!(
        Trainer::new(
            net.clone(),
            sgd,
            &LayerRates::uniform(1, -0.1),
            Execution::Auto
        ),
        Err(Error::InvalidParameter { .. })
    ));
    let bad_opt = OptimizerKind::Sgd {
        momentum: 2.0,
        weight_decay: 0.0,
        nesterov: false,
    };
    assert!(matches!(
        Trainer::new(
            net.clone(),
            bad_opt,
            &LayerRates::uniform(1, 0.1),
            Execution::Auto
        ),
        Err(Error::Nn(_))
    ));
    let mut t = Trainer::new(net, sgd, &LayerRates::uniform(1, 0.1), Execution::Auto).unwrap();
    let x = Tensor::new(&[[f64::INFINITY, 0.0, 0.0]], &Device::Cpu).unwrap();
    let y = Tensor::zeros((1, 2), DType::F64, &Device::Cpu).unwrap();
    assert!(matches!(
        t.step(&x, &y, Loss::Mse),
        Err(Error::NonFinite { .. })
    ));
    let x = Tensor::zeros((1, 3), DType::F64, &Device::Cpu).unwrap();
    let y3 = Tensor::zeros((1, 3), DType::F64, &Device::Cpu).unwrap();
    assert!(matches!(t.step(&x, &y3, Loss::Mse), Err(Error::Candle(_))));
    let x = Array2::zeros((4, 3));
    assert!(matches!(
        Objective::new(&a, x.view(), Array2::zeros((4, 5)).view()),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        Objective::new(
            &a,
            Array2::zeros((0, 3)).view(),
            Array2::zeros((0, 2)).view()
        ),
        Err(Error::EmptyNetwork { .. })
    ));
    let mut xn = Array2::zeros((4, 3));
    xn[[0, 0]] = f64::NAN;
    assert!(matches!(
        Objective::new(&a, xn.view(), Array2::zeros((4, 2)).view()),
        Err(Error::NonFinite { .. })
    ));
    let b = Mlp::random(&[3, 5, 2], Activation::Tanh, DType::F64, &mut rng).unwrap();
    let oa = Objective::new(&a, x.view(), Array2::zeros((4, 2)).view()).unwrap();
    let ob = Objective::new(&b, x.view(), Array2::zeros((4, 2)).view()).unwrap();
    assert!(matches!(
        lie_bracket(&oa, &ob, &oa.theta().unwrap(), 1e-5),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        net2wider(&a, &[2], &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        teacher_student_task(2, 4, 1, 1, 0.1, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        teacher_student_task(2, 4, 10, 5, f64::NAN, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let task = teacher_student_task(2, 4, 10, 5, 0.1, &mut rng).unwrap();
    let s = Schedule {
        batch: 6,
        ..Schedule::default()
    };
    assert!(matches!(
        fusion_vs_scratch(&task, &s, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let s = Schedule {
        small_steps: 0,
        ..Schedule::default()
    };
    assert!(matches!(
        fusion_vs_scratch(&task, &s, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let bad = Task {
        y_train: Targets::Classes(vec![3; 10]),
        d_out: 1,
        ..task.clone()
    };
    assert!(matches!(bad.check(), Err(Error::InvalidParameter { .. })));
    let bad = Task {
        y_train: Targets::Values(Array2::zeros((9, 1))),
        ..task
    };
    assert!(matches!(bad.check(), Err(Error::Shape { .. })));
    let cfg = TransformerConfig {
        vocab: 5,
        heads: 0,
        head_dim: 2,
        d_ff: 4,
        layers: 1,
        max_len: 4,
        norm: NormKind::RmsNorm,
        activation: Activation::Relu,
        eps: 1e-5,
    };
    assert!(matches!(
        TinyTransformer::random(&cfg, DType::F64, &mut rng),
        Err(Error::EmptyNetwork { .. })
    ));
    let cfg = TransformerConfig {
        heads: 1,
        eps: -1.0,
        ..cfg
    };
    assert!(matches!(
        TinyTransformer::random(&cfg, DType::F64, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(25),
        ..ProptestConfig::with_cases(64)
    })]

    /// Any hostile scalar in weights, inputs, combine weights, σ, learning
    /// rates, h and ε: a typed error or a finite result, never a panic.
    #[test]
    fn hostile_scalars_never_panic(v in hostile(), w in hostile(), idx in 0usize..12) {
        let mut rng = ChaCha8Rng::seed_from_u64(idx as u64);
        let mut layers = vec![(Array2::from_elem((4, 3), 0.1), Array1::zeros(4)), (Array2::from_elem((2, 4), 0.1), Array1::zeros(2))];
        layers[idx % 2].0[[0, 0]] = v;
        match Mlp::from_arrays(&layers, Activation::Gelu, DType::F64) {
            Ok(m) => prop_assert!(v.is_finite() && m.depth() == 2),
            Err(e) => {
                let typed = matches!(e, Error::NonFinite { .. });
                prop_assert!(typed && !v.is_finite());
            }
        }
        let a = Mlp::random(&[3, 4, 2], Activation::Relu, DType::F64, &mut rng).unwrap();
        let opts = FuseOptions { combine: Combine::Weighted(v), cross_init: CrossInit::Gaussian { sigma: w }, freeze_cross: false };
        match fuse(&a, &a, &opts, &mut rng) {
            Ok(f) => prop_assert!((0.0..=1.0).contains(&v) && w.is_finite() && w >= 0.0 && f.mlp.sizes() == vec![3, 8, 2]),
            Err(e) => {
                let typed = matches!(e, Error::InvalidCombineWeight(_) | Error::InvalidParameter { .. });
                prop_assert!(typed);
            }
        }
        let probe = Array2::from_elem((2, 3), v);
        let fused = fuse(&a, &a, &FuseOptions::default(), &mut rng).unwrap();
        match exactness_certificate(&fused, &[&a, &a], probe.view()) {
            Ok(c) => prop_assert!(v.is_finite() && c.max_abs.is_finite()),
            Err(e) => {
                let typed = matches!(e, Error::NonFinite { .. });
                prop_assert!(typed && !v.is_finite());
            }
        }
        let r = lr_after_fusion(&[v, 1.0 - v], &OptimizerKind::default(), w);
        if let Ok(r) = r {
            prop_assert!(v > 0.0 && v < 1.0 && w > 0.0 && r.hidden.len() == 2);
        }
        let x = Array2::from_elem((3, 3), 0.5);
        let o = Objective::new(&a, x.view(), Array2::zeros((3, 2)).view()).unwrap();
        let th = o.theta().unwrap();
        prop_assert!(o.modified_grad(&th, v, 1e-4).is_ok() == (v.is_finite() && v > 0.0));
        prop_assert!(o.hvp_fd(&th, &th, w).is_ok() == (w.is_finite() && w > 0.0));
    }
}
