//! Typed errors on bad input, one block per public entry point.

use coreset::Error;
use coreset::coreset::{Budget, Coreset, CoresetBuilder, Kind};
use coreset::lewis::{
    Damping, LewisOptions, SketchOptions, leverage_scores, lewis_weights, lewis_weights_sketched,
    sketched_leverage_scores,
};
use coreset::regression::{IrlsOptions, cost, solve};
use coreset::verify::{ProbeOptions, exact_distortion_p2, probe_distortion, weak_ratio};
use mlcore::sampling::seeded;
use ndarray::{Array2, array};

fn good() -> (Array2<f64>, Array2<f64>) {
    let a = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 3.0]];
    let b = array![[1.0], [2.0], [0.5], [4.0], [-1.0]];
    (a, b)
}

#[test]
fn lewis_entry_points_reject_bad_input() {
    let (a, _) = good();
    let o = LewisOptions::default();
    let mut rng = seeded(0);
    for p in [0.5, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            lewis_weights(a.view(), p, &o),
            Err(Error::InvalidP { .. })
        ));
        let sk = SketchOptions::default();
        assert!(matches!(
            lewis_weights_sketched(a.view(), p, &o, &sk, &mut rng),
            Err(Error::InvalidP { .. })
        ));
    }
    let mut bad = a.clone();
    bad[[3, 1]] = f64::NAN;
    assert_eq!(
        lewis_weights(bad.view(), 2.0, &o),
        Err(Error::NonFinite {
            matrix: "A",
            row: 3,
            col: 1
        })
    );
    assert_eq!(
        leverage_scores(bad.view()),
        Err(Error::NonFinite {
            matrix: "A",
            row: 3,
            col: 1
        })
    );
    let empty = Array2::<f64>::zeros((0, 2));
    assert!(matches!(
        lewis_weights(empty.view(), 1.0, &o),
        Err(Error::EmptyInput { .. })
    ));
    let zero = Array2::<f64>::zeros((4, 2));
    assert!(matches!(
        lewis_weights(zero.view(), 1.0, &o),
        Err(Error::ZeroMatrix { .. })
    ));
    assert!(matches!(
        leverage_scores(zero.view()),
        Err(Error::ZeroMatrix { .. })
    ));
    assert!(matches!(
        sketched_leverage_scores(zero.view(), &SketchOptions::default(), &mut rng),
        Err(Error::ZeroMatrix { .. })
    ));
    let bad_sketch = SketchOptions {
        rows: Some(1),
        jl_cols: 8,
    };
    assert!(matches!(
        sketched_leverage_scores(a.view(), &bad_sketch, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    for opts in [
        LewisOptions { max_iter: 0, ..o },
        LewisOptions { tol: -1.0, ..o },
        LewisOptions {
            damping: Damping::Fixed(1.5),
            ..o
        },
    ] {
        assert!(matches!(
            lewis_weights(a.view(), 3.0, &opts),
            Err(Error::InvalidParameter { .. })
        ));
    }
    // Non-convergence reports the residual.
    let capped = LewisOptions { max_iter: 2, ..o };
    match lewis_weights(a.view(), 1.0, &capped) {
        Err(Error::NotConverged {
            iterations: 2,
            residual,
            ..
        }) => assert!(residual > 1e-10),
        other => panic!("{other:?}"),
    }
}

#[test]
fn regression_entry_points_reject_bad_input() {
    let (a, b) = good();
    let o = IrlsOptions::default();
    assert!(
        matches!(solve(a.view(), b.view(), 0.9, None, &o), Err(Error::InvalidP { p }) if p == 0.9)
    );
    let short = array![[1.0], [2.0]];
    assert_eq!(
        solve(a.view(), short.view(), 1.5, None, &o),
        Err(Error::DimensionMismatch {
            a_rows: 5,
            b_rows: 2
        })
    );
    let mut bb = b.clone();
    bb[[2, 0]] = f64::INFINITY;
    assert_eq!(
        solve(a.view(), bb.view(), 1.5, None, &o),
        Err(Error::NonFinite {
            matrix: "B",
            row: 2,
            col: 0
        })
    );
    let w = array![1.0, -1.0, 1.0, 1.0, 1.0];
    assert!(matches!(
        solve(a.view(), b.view(), 1.5, Some(w.view()), &o),
        Err(Error::InvalidWeights { index: 1, .. })
    ));
    let zero = Array2::<f64>::zeros((5, 2));
    assert!(matches!(
        solve(zero.view(), b.view(), 1.5, None, &o),
        Err(Error::ZeroMatrix { .. })
    ));
    assert!(matches!(
        solve(
            a.view(),
            b.view(),
            1.5,
            None,
            &IrlsOptions {
                smoothing: 0.0,
                ..o
            }
        ),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        solve(
            a.view(),
            b.view(),
            1.0,
            None,
            &IrlsOptions {
                max_iter: 1,
                tol: 1e-15,
                ..o
            }
        ),
        Err(Error::NotConverged { .. })
    ));
    let x = array![[1.0, 2.0]];
    assert!(matches!(
        cost(a.view(), b.view(), x.view(), 2.0, None),
        Err(Error::ShapeMismatch { .. })
    ));
    let x = array![[1.0], [2.0]];
    assert!(matches!(
        cost(a.view(), b.view(), x.view(), -2.0, None),
        Err(Error::InvalidP { .. })
    ));
}

#[test]
fn coreset_entry_points_reject_bad_input() {
    let (a, b) = good();
    let mut rng = seeded(0);
    assert!(matches!(
        Coreset::uniform(0, 2.0, 5.0, &mut rng),
        Err(Error::EmptyInput { .. })
    ));
    assert!(matches!(
        Coreset::uniform(10, 0.5, 5.0, &mut rng),
        Err(Error::InvalidP { .. })
    ));
    for k in [0.0, -1.0, f64::INFINITY] {
        assert!(matches!(
            Coreset::uniform(10, 2.0, k, &mut rng),
            Err(Error::InvalidParameter { .. })
        ));
    }
    for eps in [0.0, 1.0, f64::NAN] {
        assert!(matches!(
            CoresetBuilder::new(2.0)
                .epsilon(eps)
                .build(a.view(), b.view(), &mut rng),
            Err(Error::InvalidEpsilon { .. })
        ));
    }
    for delta in [0.0, 1.5] {
        assert!(matches!(
            CoresetBuilder::new(2.0)
                .delta(delta)
                .build(a.view(), b.view(), &mut rng),
            Err(Error::InvalidDelta { .. })
        ));
    }
    assert!(matches!(
        CoresetBuilder::new(0.0).build(a.view(), b.view(), &mut rng),
        Err(Error::InvalidP { .. })
    ));
    assert!(matches!(
        CoresetBuilder::new(2.0)
            .budget(Budget::Rows {
                k_a: -1.0,
                k_b: 3.0
            })
            .build(a.view(), b.view(), &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        CoresetBuilder::new(2.0)
            .kind(Kind::Weak)
            .budget(Budget::Rows { k_a: 0.0, k_b: 3.0 })
            .build(a.view(), b.view(), &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let short = array![[1.0], [2.0]];
    assert!(matches!(
        CoresetBuilder::new(2.0).build(a.view(), short.view(), &mut rng),
        Err(Error::DimensionMismatch {
            a_rows: 5,
            b_rows: 2
        })
    ));
    let lw3 = lewis_weights(a.view(), 3.0, &LewisOptions::default()).unwrap();
    assert!(matches!(
        CoresetBuilder::new(2.0).build_with_lewis(&lw3, a.view(), b.view(), &mut rng),
        Err(Error::InvalidParameter {
            name: "lewis.p",
            ..
        })
    ));
    let c = CoresetBuilder::new(2.0)
        .budget(Budget::Rows {
            k_a: 10.0,
            k_b: 10.0,
        })
        .build(a.view(), b.view(), &mut rng)
        .unwrap();
    let x = array![[1.0], [f64::NAN]];
    assert_eq!(
        c.cost(a.view(), b.view(), x.view()),
        Err(Error::NonFinite {
            matrix: "X",
            row: 1,
            col: 0
        })
    );
    let a4 = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]];
    let b4 = array![[1.0], [2.0], [0.5], [4.0]];
    assert!(matches!(
        c.solve(a4.view(), b4.view(), &IrlsOptions::default()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        c.scaled_rows(a4.view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        c.rows(Array2::<f64>::zeros((0, 2)).view()),
        Err(Error::EmptyInput { .. })
    ));
}

#[test]
fn verify_entry_points_reject_bad_input() {
    let (a, b) = good();
    let mut rng = seeded(0);
    let c3 = CoresetBuilder::new(3.0)
        .budget(Budget::Rows {
            k_a: 10.0,
            k_b: 10.0,
        })
        .build(a.view(), b.view(), &mut rng)
        .unwrap();
    assert!(matches!(
        exact_distortion_p2(a.view(), b.view(), &c3),
        Err(Error::InvalidParameter {
            name: "coreset.p",
            ..
        })
    ));
    let c2 = CoresetBuilder::new(2.0)
        .budget(Budget::Rows {
            k_a: 10.0,
            k_b: 10.0,
        })
        .build(a.view(), b.view(), &mut rng)
        .unwrap();
    let mut bad = b.clone();
    bad[[0, 0]] = f64::NAN;
    assert_eq!(
        exact_distortion_p2(a.view(), bad.view(), &c2),
        Err(Error::NonFinite {
            matrix: "B",
            row: 0,
            col: 0
        })
    );
    let zero_a = Array2::<f64>::zeros((5, 2));
    let zero_b = Array2::<f64>::zeros((5, 1));
    assert!(matches!(
        exact_distortion_p2(zero_a.view(), zero_b.view(), &c2),
        Err(Error::ZeroMatrix { .. })
    ));
    let probes = ProbeOptions {
        scales: vec![1.0, -1.0],
        ..ProbeOptions::default()
    };
    assert!(matches!(
        probe_distortion(a.view(), b.view(), &c3, &probes, &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    let short = array![[1.0], [2.0]];
    assert!(matches!(
        probe_distortion(
            a.view(),
            short.view(),
            &c3,
            &ProbeOptions::default(),
            &mut rng
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        weak_ratio(
            a.view(),
            b.view(),
            &c3,
            &IrlsOptions {
                tol: f64::NAN,
                ..IrlsOptions::default()
            }
        ),
        Err(Error::InvalidParameter { .. })
    ));
    let b6 = Array2::<f64>::zeros((6, 1));
    let a6 = Array2::<f64>::ones((6, 2));
    assert!(matches!(
        weak_ratio(a6.view(), b6.view(), &c3, &IrlsOptions::default()),
        Err(Error::ShapeMismatch { .. })
    ));
}
