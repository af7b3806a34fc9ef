//! Every bad input listed in the issue returns its typed error, never a panic.

use matrix_completion::Error;
use matrix_completion::data::{
    Duplicates, Observations, parse_movielens_udata, read_movielens_udata,
};
use matrix_completion::link::{Identity, Link, MonotonePiecewiseLinear};
use matrix_completion::metrics::{mae, rmse};
use matrix_completion::model::{DeepMf, PenaltyWeights};
use matrix_completion::schatten::*;
use matrix_completion::synthetic::{Sampling, TrueLink, low_rank, sample};
use matrix_completion::train::{Adam, EarlyStopping, LinkConfig, TrainConfig, Weighting, fit};
use mlcore::sampling::seeded;
use ndarray::{Array1, Array2, array};

fn obs() -> Observations {
    Observations::from_triplets(
        3,
        3,
        vec![(0, 0, 1.0), (1, 1, 2.0), (2, 2, 3.0), (0, 2, 1.0)],
        Duplicates::Reject,
    )
    .unwrap()
}

fn fit_err(cfg: TrainConfig) -> Error {
    fit(&obs(), None, &cfg, &mut seeded(0)).unwrap_err()
}

#[test]
fn depth_or_width_zero() {
    assert!(matches!(
        fit_err(TrainConfig {
            depth: 0,
            ..Default::default()
        }),
        Error::InvalidDepth { depth: 0 }
    ));
    assert!(matches!(
        fit_err(TrainConfig {
            width: 0,
            ..Default::default()
        }),
        Error::InvalidWidth { width: 0 }
    ));
    let z = array![[1.0, 2.0]];
    assert!(matches!(
        balanced_factors(z.view(), 0),
        Err(Error::InvalidDepth { .. })
    ));
    assert!(matches!(
        DeepMf::random(
            2,
            2,
            0,
            2,
            0.1,
            Link::Identity(Identity),
            0.0,
            &mut seeded(0)
        ),
        Err(Error::InvalidDepth { .. })
    ));
    assert!(matches!(
        DeepMf::random(
            2,
            2,
            2,
            0,
            0.1,
            Link::Identity(Identity),
            0.0,
            &mut seeded(0)
        ),
        Err(Error::InvalidWidth { .. })
    ));
    assert!(matches!(
        DeepMf::new(vec![], Link::Identity(Identity), 0.0),
        Err(Error::InvalidDepth { .. })
    ));
}

#[test]
fn negative_or_nan_lambda() {
    for l in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            fit_err(TrainConfig {
                lambda: l,
                ..Default::default()
            }),
            Error::InvalidLambda { .. }
        ));
        assert!(matches!(
            soft_impute(&obs(), l, &SoftImputeOptions::default()),
            Err(Error::InvalidLambda { .. })
        ));
    }
    let m = DeepMf::random(
        3,
        3,
        2,
        2,
        0.1,
        Link::Identity(Identity),
        0.0,
        &mut seeded(0),
    )
    .unwrap();
    assert!(matches!(
        m.objective_and_gradient(&obs(), -0.5, None),
        Err(Error::InvalidLambda { .. })
    ));
}

#[test]
fn non_positive_learning_rate() {
    for lr in [0.0, -0.1, f64::NAN] {
        let e = fit_err(TrainConfig {
            adam: Adam {
                lr,
                ..Default::default()
            },
            ..Default::default()
        });
        assert!(matches!(e, Error::InvalidLearningRate { .. }), "{e:?}");
    }
}

#[test]
fn non_positive_schatten_p() {
    let z = array![[1.0, 0.0], [0.0, 2.0]];
    for p in [0.0, -1.0, f64::NAN] {
        assert!(matches!(
            quasi_norm(z.view(), p),
            Err(Error::InvalidSchattenP { .. })
        ));
        assert!(matches!(
            effective_rank(z.view(), p),
            Err(Error::InvalidSchattenP { .. })
        ));
    }
    assert!(matches!(
        effective_rank(z.view(), 2.0),
        Err(Error::InvalidSchattenP { .. })
    ));
}

#[test]
fn indices_out_of_bounds() {
    let e = Observations::from_triplets(2, 2, vec![(0, 0, 1.0), (2, 0, 1.0)], Duplicates::Reject)
        .unwrap_err();
    assert_eq!(
        e,
        Error::IndexOutOfBounds {
            row: 2,
            col: 0,
            rows: 2,
            cols: 2
        }
    );
    let m = DeepMf::random(
        3,
        3,
        3,
        2,
        0.1,
        Link::Identity(Identity),
        0.0,
        &mut seeded(0),
    )
    .unwrap();
    assert!(matches!(
        m.predict(0, 3),
        Err(Error::IndexOutOfBounds { .. })
    ));
    let other = Observations::from_triplets(4, 3, vec![(3, 0, 1.0)], Duplicates::Reject).unwrap();
    assert!(matches!(
        m.predict_observed(&other, None),
        Err(Error::ShapeMismatch { .. })
    ));
}

#[test]
fn empty_observations() {
    let e =
        Observations::from_triplets(2, 2, Vec::<(usize, usize, f64)>::new(), Duplicates::Reject)
            .unwrap_err();
    assert!(matches!(e, Error::EmptyObservations { .. }));
    let e = Observations::from_triplets(0, 2, vec![(0, 0, 1.0)], Duplicates::Reject).unwrap_err();
    assert!(matches!(e, Error::EmptyObservations { .. }));
    assert!(matches!(
        parse_movielens_udata("\n\n", Duplicates::Reject),
        Err(Error::EmptyObservations { .. })
    ));
    assert!(matches!(
        rmse(&[], &[]),
        Err(Error::EmptyObservations { .. })
    ));
    let z = Array2::<f64>::zeros((0, 3));
    assert!(matches!(
        quasi_norm(z.view(), 1.0),
        Err(Error::EmptyObservations { .. })
    ));
}

#[test]
fn non_finite_values() {
    let e = Observations::from_triplets(
        2,
        2,
        vec![(0, 0, 1.0), (1, 1, f64::NAN)],
        Duplicates::Reject,
    )
    .unwrap_err();
    assert_eq!(
        e,
        Error::NonFiniteValue {
            what: "observation values",
            index: 1
        }
    );
    let z = array![[1.0, f64::INFINITY]];
    assert!(matches!(
        quasi_norm(z.view(), 1.0),
        Err(Error::NonFiniteValue { .. })
    ));
    assert!(matches!(
        mae(&[f64::NAN], &[1.0]),
        Err(Error::NonFiniteValue { .. })
    ));
    let f = vec![array![[1.0, f64::NAN]], array![[1.0], [2.0]]];
    assert!(matches!(
        DeepMf::new(f, Link::Identity(Identity), 0.0),
        Err(Error::NonFiniteValue { .. })
    ));
    let g = low_rank(3, 3, 1, &mut seeded(0)).unwrap();
    assert!(matches!(
        sample(
            &g,
            TrueLink::Identity,
            Sampling::Uniform,
            3,
            f64::NAN,
            &mut seeded(0)
        ),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn duplicate_entries_unless_averaging() {
    let t = vec![(0, 1, 1.0), (0, 1, 3.0)];
    assert_eq!(
        Observations::from_triplets(2, 2, t.clone(), Duplicates::Reject).unwrap_err(),
        Error::DuplicateEntry { row: 0, col: 1 }
    );
    assert_eq!(
        Observations::from_triplets(2, 2, t, Duplicates::Average)
            .unwrap()
            .values(),
        &[2.0]
    );
    assert!(matches!(
        parse_movielens_udata("1 1 5 0\n1 1 4 0\n", Duplicates::Reject),
        Err(Error::DuplicateEntry { .. })
    ));
}

#[test]
fn smoothing_outside_unit_interval() {
    for zeta in [-0.1, 1.5, f64::NAN] {
        assert!(matches!(
            fit_err(TrainConfig {
                weighting: Weighting::Smoothed { zeta },
                ..Default::default()
            }),
            Error::InvalidSmoothing { .. }
        ));
        assert!(matches!(
            PenaltyWeights::smoothed(&obs(), zeta),
            Err(Error::InvalidSmoothing { .. })
        ));
    }
}

#[test]
fn invalid_link_parameters() {
    assert!(matches!(
        MonotonePiecewiseLinear::identity(1, -1.0, 1.0, 3.0),
        Err(Error::InvalidLink { .. })
    ));
    assert!(matches!(
        MonotonePiecewiseLinear::identity(5, 1.0, -1.0, 3.0),
        Err(Error::InvalidLink { .. })
    ));
    for cap in [0.0, -1.0, 0.5, f64::NAN] {
        assert!(matches!(
            MonotonePiecewiseLinear::identity(5, -1.0, 1.0, cap),
            Err(Error::InvalidLink { .. })
        ));
    }
    let e = fit_err(TrainConfig {
        link: LinkConfig::Frmc {
            knots: 0,
            lo: -1.0,
            hi: 1.0,
            cap: 2.0,
        },
        ..Default::default()
    });
    assert!(matches!(e, Error::InvalidLink { .. }));
}

#[test]
fn divergence_reports_epoch_and_loss() {
    // A huge learning rate with plain (non-normalised) steps: Adam's steps are
    // bounded by lr, so lr = 1e6 blows the factors up within a few epochs.
    let e = fit_err(TrainConfig {
        adam: Adam {
            lr: 1e6,
            ..Default::default()
        },
        epochs: 100,
        ..Default::default()
    });
    match e {
        Error::Diverged { epoch, loss } => {
            assert!(epoch < 100 && (!loss.is_finite() || loss > 1.0))
        }
        other => panic!("expected Diverged, got {other:?}"),
    }
}

#[test]
fn io_and_parse_errors_name_the_line() {
    assert!(matches!(
        read_movielens_udata("/nonexistent/u.data", Duplicates::Reject),
        Err(Error::Io { .. })
    ));
    let e = parse_movielens_udata("1\t1\t5\t0\n2\tx\t3\t0\n", Duplicates::Reject).unwrap_err();
    assert!(matches!(e, Error::Parse { line: 2, .. }), "{e:?}");
    let e = parse_movielens_udata("1\t1\t5\t0\n\n0\t1\t3\t0\n", Duplicates::Reject).unwrap_err();
    assert!(matches!(e, Error::Parse { line: 3, .. }), "{e:?}");
    let e = parse_movielens_udata("1\t1\tNaN\t0\n", Duplicates::Reject).unwrap_err();
    assert!(matches!(e, Error::Parse { line: 1, .. }));
    let e = parse_movielens_udata("1 1\n", Duplicates::Reject).unwrap_err();
    assert!(matches!(e, Error::Parse { line: 1, .. }));
}

#[test]
fn other_parameters() {
    assert!(matches!(
        fit_err(TrainConfig {
            epochs: 0,
            ..Default::default()
        }),
        Error::InvalidParameter { name: "epochs", .. }
    ));
    assert!(matches!(
        fit_err(TrainConfig {
            early_stopping: Some(EarlyStopping {
                patience: 0,
                min_delta: 0.0
            }),
            ..Default::default()
        }),
        Error::InvalidParameter { .. }
    ));
    assert!(matches!(
        obs().split(1.0, &mut seeded(0)),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        soft_impute(
            &obs(),
            1.0,
            &SoftImputeOptions {
                max_iters: 0,
                ..Default::default()
            }
        ),
        Err(Error::InvalidParameter { .. })
    ));
    let f = vec![Array2::<f64>::ones((2, 3)), Array2::<f64>::ones((2, 2))];
    assert!(matches!(
        variational_value(&f),
        Err(Error::ShapeMismatch { .. })
    ));
    let z = array![[1.0, 2.0], [3.0, 4.0]];
    let bad = Array1::from(vec![1.0, -1.0]);
    assert!(weighted_balanced_factors(z.view(), bad.view(), bad.view(), 2).is_err());
    assert!(matches!(
        rmse(&[1.0], &[1.0, 2.0]),
        Err(Error::ShapeMismatch { .. })
    ));
}
