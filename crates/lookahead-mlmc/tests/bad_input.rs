//! Every typed error the issue lists, and no panic on bad input.

use lookahead_mlmc::Error;
use lookahead_mlmc::acq::{expected_improvement, q_expected_improvement};
use lookahead_mlmc::gp::{ExactGp, FitConfig, Kernel, KernelKind, fit_map};
use lookahead_mlmc::lookahead::{
    InnerSplit, InnerValue, MlmcLookahead, SaaConfig, TwoStepSaa, TwoStepSamples,
    TwoStepValueSampler, mlmc_two_step_argmax,
};
use lookahead_mlmc::mlmc::{
    AdaptiveConfig, Coupling, MlmcConfig, NestedRule, allocate, estimate_adaptive, nested_mc,
    nested_plan, rates,
};
use lookahead_mlmc::optim::Bounds;
use lookahead_mlmc::toy::NestedToy;
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2, array};

fn gp1() -> ExactGp {
    let k = Kernel::new(KernelKind::Matern52, vec![1.0], 1.0).unwrap();
    ExactGp::new(
        array![[0.0], [1.0]].view(),
        array![0.0, 1.0].view(),
        k,
        0.0,
        1e-4,
    )
    .unwrap()
}

#[test]
fn epsilon_must_be_positive_and_finite() {
    let cfg = MlmcConfig::default();
    for e in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(allocate(e, &cfg), Err(Error::InvalidTolerance { .. })),
            "{e}"
        );
        assert!(matches!(
            nested_plan(e, 1.0, &cfg, NestedRule::Tuned),
            Err(Error::InvalidTolerance { .. })
        ));
    }
    let mut toy = NestedToy {
        coupling: Coupling::Antithetic,
    };
    let r = estimate_adaptive(
        &mut toy,
        0.0,
        &cfg,
        &AdaptiveConfig::default(),
        &mut seeded(0),
    );
    assert!(matches!(r, Err(Error::InvalidTolerance { .. })));
    let (gp, b) = (gp1(), Bounds::new(vec![0.0], vec![1.0]).unwrap());
    let r = mlmc_two_step_argmax(&gp, &b, -1.0, &MlmcLookahead::default(), &mut seeded(0));
    assert!(matches!(r, Err(Error::InvalidTolerance { .. })));
}

#[test]
fn rates_must_be_positive() {
    for (name, cfg) in [
        (
            "alpha",
            MlmcConfig {
                alpha: 0.0,
                ..Default::default()
            },
        ),
        (
            "beta",
            MlmcConfig {
                beta: -1.0,
                ..Default::default()
            },
        ),
        (
            "gamma",
            MlmcConfig {
                gamma: f64::NAN,
                ..Default::default()
            },
        ),
        (
            "c_var",
            MlmcConfig {
                c_var: 0.0,
                ..Default::default()
            },
        ),
        (
            "var0",
            MlmcConfig {
                var0: -2.0,
                ..Default::default()
            },
        ),
        (
            "c_bias",
            MlmcConfig {
                c_bias: f64::INFINITY,
                ..Default::default()
            },
        ),
    ] {
        match allocate(0.1, &cfg) {
            Err(Error::InvalidRate { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn levels_too_deep_are_rejected() {
    let cfg = MlmcConfig::default();
    assert!(matches!(
        allocate(1e-9, &cfg),
        Err(Error::LevelTooDeep { .. })
    ));
    assert!(matches!(
        allocate(
            0.1,
            &MlmcConfig {
                start_level: 25,
                ..cfg
            }
        ),
        Err(Error::LevelTooDeep { .. })
    ));
    let mut toy = NestedToy {
        coupling: Coupling::Antithetic,
    };
    assert!(matches!(
        nested_mc(&mut toy, 21, 10, &mut seeded(0)),
        Err(Error::LevelTooDeep { .. })
    ));
    assert!(matches!(
        rates(&mut toy, 3, 30, 10, &mut seeded(0)),
        Err(Error::LevelTooDeep { .. })
    ));
    assert!(matches!(
        nested_plan(1e-12, 1.0, &cfg, NestedRule::PaperBaseline),
        Err(Error::LevelTooDeep { .. })
    ));
}

#[test]
fn invalid_bounds_are_rejected() {
    assert!(matches!(
        Bounds::new(vec![1.0], vec![0.0]),
        Err(Error::InvalidBounds { dim: 0, .. })
    ));
    assert!(matches!(
        Bounds::new(vec![0.0, 0.0], vec![1.0, 0.0]),
        Err(Error::InvalidBounds { dim: 1, .. })
    ));
    assert!(matches!(
        Bounds::new(vec![f64::NAN], vec![1.0]),
        Err(Error::InvalidBounds { .. })
    ));
    assert!(matches!(
        Bounds::new(vec![0.0], vec![1.0, 2.0]),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn zero_batch_size_is_rejected() {
    let gp = gp1();
    let b = Bounds::new(vec![0.0], vec![1.0]).unwrap();
    let spec = MlmcLookahead {
        inner: InnerValue::QEi { q: 0 },
        ..Default::default()
    };
    assert!(matches!(
        mlmc_two_step_argmax(&gp, &b, 0.1, &spec, &mut seeded(0)),
        Err(Error::InvalidBatchSize { .. })
    ));
    let r = TwoStepValueSampler::new(
        &gp,
        &[0.5],
        &b,
        1.0,
        InnerValue::QEi { q: 0 },
        Coupling::Antithetic,
        SaaConfig::default(),
    );
    assert!(matches!(r, Err(Error::InvalidBatchSize { .. })));
    let cfg = SaaConfig {
        restarts: 0,
        ..Default::default()
    };
    let r = TwoStepValueSampler::new(
        &gp,
        &[0.5],
        &b,
        1.0,
        InnerValue::AnalyticEi,
        Coupling::Antithetic,
        cfg,
    );
    assert!(matches!(r, Err(Error::InvalidBatchSize { .. })));
    let q = q_expected_improvement(
        &gp,
        Array2::<f64>::zeros((0, 1)).view(),
        1.0,
        Array2::<f64>::zeros((4, 0)).view(),
    );
    assert!(matches!(q, Err(Error::InvalidBatchSize { .. })));
    let s = TwoStepSamples {
        outer: vec![],
        inner: vec![],
        m: 2,
        inner_raw: vec![vec![0.5]],
    };
    assert!(matches!(
        TwoStepSaa::new(
            &gp,
            &b,
            1.0,
            InnerValue::AnalyticEi,
            &s,
            InnerSplit::Full,
            SaaConfig::default()
        ),
        Err(Error::InvalidBatchSize { .. })
    ));
}

#[test]
fn singular_kernel_without_noise_is_rejected() {
    let k = Kernel::new(KernelKind::Rbf, vec![1.0], 1.0).unwrap();
    let x = array![[0.0], [0.5], [0.5]];
    let r = ExactGp::new(x.view(), array![0.0, 1.0, 1.0].view(), k.clone(), 0.0, 0.0);
    assert!(matches!(r, Err(Error::NotPositiveDefinite { .. })));
    let gp = ExactGp::new(
        array![[0.0], [0.5]].view(),
        array![0.0, 1.0].view(),
        k,
        0.0,
        0.0,
    )
    .unwrap();
    assert!(matches!(
        gp.fantasize(array![0.5].view(), 1.0),
        Err(Error::NotPositiveDefinite { .. })
    ));
}

#[test]
fn dimension_mismatches_are_rejected() {
    let gp = gp1();
    assert!(matches!(
        gp.posterior(array![0.0, 1.0].view()),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        expected_improvement(&gp, array![0.0, 1.0].view(), 0.0),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        gp.fantasize(array![0.0, 1.0].view(), 0.0),
        Err(Error::DimensionMismatch { .. })
    ));
    let k = Kernel::new(KernelKind::Matern52, vec![1.0, 1.0], 1.0).unwrap();
    assert!(matches!(
        ExactGp::new(
            array![[0.0], [1.0]].view(),
            array![0.0, 1.0].view(),
            k.clone(),
            0.0,
            1e-4
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    let k1 = Kernel::new(KernelKind::Matern52, vec![1.0], 1.0).unwrap();
    assert!(matches!(
        ExactGp::new(
            array![[0.0], [1.0]].view(),
            array![0.0].view(),
            k1,
            0.0,
            1e-4
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    let b2 = Bounds::unit(2).unwrap();
    let r = TwoStepValueSampler::new(
        &gp,
        &[0.5, 0.5],
        &b2,
        1.0,
        InnerValue::AnalyticEi,
        Coupling::Antithetic,
        SaaConfig::default(),
    );
    assert!(matches!(r, Err(Error::DimensionMismatch { .. })));
    let q = q_expected_improvement(
        &gp,
        array![[0.1], [0.2]].view(),
        1.0,
        Array2::<f64>::zeros((4, 3)).view(),
    );
    assert!(matches!(q, Err(Error::DimensionMismatch { .. })));
    let joint = gp.joint_sample(array![[0.1], [0.2]].view(), array![1.0].view());
    assert!(matches!(joint, Err(Error::DimensionMismatch { .. })));
}

#[test]
fn empty_training_set_is_rejected() {
    let k = Kernel::new(KernelKind::Matern52, vec![1.0], 1.0).unwrap();
    let x = Array2::<f64>::zeros((0, 1));
    let y = Array1::<f64>::zeros(0);
    assert!(matches!(
        ExactGp::new(x.view(), y.view(), k, 0.0, 1e-4),
        Err(Error::EmptyTrainingSet)
    ));
    assert!(matches!(
        fit_map(x.view(), y.view(), &FitConfig::default()),
        Err(Error::EmptyTrainingSet)
    ));
}

#[test]
fn non_finite_and_out_of_range_values_are_rejected() {
    let k = Kernel::new(KernelKind::Matern52, vec![1.0], 1.0).unwrap();
    assert!(matches!(
        ExactGp::new(
            array![[f64::NAN]].view(),
            array![0.0].view(),
            k.clone(),
            0.0,
            1e-4
        ),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        ExactGp::new(array![[0.0]].view(), array![0.0].view(), k, 0.0, -1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Kernel::new(KernelKind::Rbf, vec![0.0], 1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Kernel::new(KernelKind::Rbf, vec![1.0], -1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        Kernel::new(KernelKind::Rbf, vec![], 1.0),
        Err(Error::InvalidBatchSize { .. })
    ));
    let gp = gp1();
    assert!(matches!(
        gp.posterior(array![f64::INFINITY].view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        gp.fantasize(array![0.3].view(), f64::NAN),
        Err(Error::NonFinite { .. })
    ));
}

/// Found by a hostile-input run: a sampler returning NaN or omitting the
/// coarse samples gave NaN or a silently uncoupled estimate (2.0); NaN test
/// inputs gave NaN; a huge variance constant overflowed on allocation;
/// targets of ±1e200 gave a −∞ log-likelihood.
#[test]
fn hostile_run_regressions() {
    use lookahead_mlmc::mlmc::{
        Allocation, LevelSampler, LevelSamples, MlmcConfig, allocate, estimate,
    };
    struct Bad {
        nan: bool,
    }
    impl LevelSampler for Bad {
        fn sample<R: rand::Rng + ?Sized>(
            &mut self,
            _level: u32,
            n: usize,
            _with_coarse: bool,
            _rng: &mut R,
        ) -> lookahead_mlmc::Result<LevelSamples> {
            Ok(LevelSamples {
                fine: vec![if self.nan { f64::NAN } else { 1.0 }; n],
                coarse: None,
                cost: n as f64,
            })
        }
    }
    let alloc = Allocation {
        levels: vec![0, 1],
        n: vec![4, 4],
        k: 1.0,
        model_variance: 0.0,
    };
    let mut rng = mlcore::sampling::seeded(1);
    assert!(matches!(
        estimate(&mut Bad { nan: true }, &alloc, &mut rng),
        Err(lookahead_mlmc::Error::NonFinite { .. })
    ));
    assert!(matches!(
        estimate(&mut Bad { nan: false }, &alloc, &mut rng),
        Err(lookahead_mlmc::Error::DimensionMismatch { .. })
    ));
    let f = lookahead_mlmc::testfns::TestFunction::branin();
    assert!(f.eval(&[f64::NAN, 0.5]).is_err());
    let cfg = MlmcConfig {
        c_var: 1e300,
        ..MlmcConfig::default()
    };
    assert!(matches!(
        allocate(0.01, &cfg),
        Err(lookahead_mlmc::Error::Core(mlcore::Error::TooLarge { .. }))
    ));
    let x = ndarray::array![[0.1], [0.5], [0.9]];
    let y = ndarray::array![1e200, -1e200, 0.0];
    assert!(
        lookahead_mlmc::gp::fit_map(
            x.view(),
            y.view(),
            &lookahead_mlmc::gp::FitConfig::default()
        )
        .is_err()
    );
}
