//! Every public entry point returns the typed error on bad input, never a panic.

use mlcore::Error;
use mlcore::linalg::{self, Jitter, Triangle};
use mlcore::sampling::{self, AliasTable, MultivariateNormal, seeded};
use mlcore::stats::{self, Ecdf};
use ndarray::{Array1, Array2, array};

fn nan_matrix() -> Array2<f64> {
    array![[1.0, 0.0], [f64::NAN, 1.0]]
}

#[test]
fn linalg_rejects_bad_input() {
    let empty = Array2::<f64>::zeros((0, 0));
    let wide = Array2::<f64>::ones((2, 3));
    let eye = Array2::<f64>::eye(2);
    let not_spd = array![[1.0, 2.0], [2.0, 1.0]];
    let b = array![1.0, 2.0];
    let b3 = array![1.0, 2.0, 3.0];

    assert!(matches!(
        linalg::cholesky(empty.view()),
        Err(Error::Empty { what: "a" })
    ));
    assert!(matches!(
        linalg::cholesky(wide.view()),
        Err(Error::ShapeMismatch { what: "a", .. })
    ));
    assert!(matches!(
        linalg::cholesky(nan_matrix().view()),
        Err(Error::NonFinite {
            what: "a",
            index: 2
        })
    ));
    assert!(matches!(
        linalg::cholesky(not_spd.view()),
        Err(Error::NotPositiveDefinite { .. })
    ));
    let bad_schedule = Jitter {
        growth: 1.0,
        ..Jitter::default()
    };
    assert!(matches!(
        linalg::cholesky_jittered(eye.view(), bad_schedule),
        Err(Error::InvalidParameter {
            name: "jitter.growth",
            ..
        })
    ));
    let bad_schedule = Jitter {
        initial: -1.0,
        ..Jitter::default()
    };
    assert!(matches!(
        linalg::cholesky_jittered(eye.view(), bad_schedule),
        Err(Error::InvalidParameter {
            name: "jitter.initial",
            ..
        })
    ));

    assert!(matches!(
        linalg::solve_spd(not_spd.view(), b.view()),
        Err(Error::NotPositiveDefinite { .. })
    ));
    assert!(matches!(
        linalg::solve_spd(eye.view(), b3.view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        linalg::solve_spd(eye.view(), array![1.0, f64::INFINITY].view()),
        Err(Error::NonFinite { what: "b", .. })
    ));
    let singular = array![[1.0, 0.0], [1.0, 0.0]];
    assert!(matches!(
        linalg::solve_triangular(singular.view(), b.view(), Triangle::Lower),
        Err(Error::Singular { .. })
    ));
    assert!(matches!(
        linalg::solve_triangular(wide.view(), b.view(), Triangle::Upper),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        linalg::logdet_spd(not_spd.view()),
        Err(Error::NotPositiveDefinite { .. })
    ));

    assert!(matches!(linalg::qr(empty.view()), Err(Error::Empty { .. })));
    assert!(matches!(
        linalg::qr(nan_matrix().view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        linalg::svd(Array2::<f64>::zeros((0, 3)).view()),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        linalg::svd(nan_matrix().view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        linalg::eigh(wide.view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        linalg::eigh(nan_matrix().view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        linalg::lstsq(wide.view(), b3.view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        linalg::lstsq(empty.view(), b.view()),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        linalg::pinv(nan_matrix().view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        linalg::leverage_scores(empty.view()),
        Err(Error::Empty { .. })
    ));
}

#[test]
fn sampling_rejects_bad_input() {
    let mut rng = seeded(0);
    assert!(matches!(AliasTable::new(&[]), Err(Error::Empty { .. })));
    assert!(matches!(
        AliasTable::new(&[1.0, f64::NAN]),
        Err(Error::NonFinite {
            what: "weights",
            index: 1
        })
    ));
    assert!(matches!(
        AliasTable::new(&[1.0, -0.5]),
        Err(Error::InvalidParameter {
            name: "weights",
            ..
        })
    ));
    assert!(matches!(
        AliasTable::new(&[0.0, 0.0]),
        Err(Error::InvalidParameter {
            name: "sum(weights)",
            ..
        })
    ));
    assert!(matches!(
        AliasTable::new(&[f64::MAX, f64::MAX]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        sampling::sample_without_replacement(&[1.0, 0.0, 2.0], 3, &mut rng),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    assert!(
        sampling::sample_without_replacement(&[1.0], 0, &mut rng)
            .unwrap()
            .is_empty()
    );
    let mean = array![0.0, 0.0];
    assert!(matches!(
        MultivariateNormal::from_covariance(mean.view(), array![[1.0, 2.0], [2.0, 1.0]].view()),
        Err(Error::NotPositiveDefinite { .. })
    ));
    assert!(matches!(
        MultivariateNormal::from_covariance(array![0.0].view(), Array2::<f64>::eye(2).view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        MultivariateNormal::from_cholesky(
            Array1::<f64>::zeros(0).view(),
            Array2::<f64>::eye(0).view()
        ),
        Err(Error::Empty { what: "mean" })
    ));
    assert!(matches!(
        MultivariateNormal::from_cholesky(
            array![f64::NAN, 0.0].view(),
            Array2::<f64>::eye(2).view()
        ),
        Err(Error::NonFinite { what: "mean", .. })
    ));
}

#[test]
fn stats_rejects_bad_input() {
    let x = array![1.0, 2.0, 3.0];
    let empty = Array1::<f64>::zeros(0);
    let nan = array![1.0, f64::NAN];
    assert!(matches!(
        stats::quantile(empty.view(), 0.5),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        stats::quantile(nan.view(), 0.5),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        stats::quantile(x.view(), 1.5),
        Err(Error::InvalidParameter { name: "q", .. })
    ));
    assert!(matches!(
        stats::quantile(x.view(), f64::NAN),
        Err(Error::InvalidParameter { name: "q", .. })
    ));
    for alpha in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(matches!(
            stats::conformal_quantile(x.view(), alpha),
            Err(Error::InvalidParameter { name: "alpha", .. })
        ));
    }
    assert!(matches!(
        stats::conformal_quantile(empty.view(), 0.1),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        stats::order_statistic(x.view(), 0),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        stats::order_statistic(x.view(), 4),
        Err(Error::InvalidParameter { name: "k", .. })
    ));
    assert!(matches!(
        Ecdf::new(nan.view()),
        Err(Error::NonFinite { .. })
    ));
    assert!(matches!(
        stats::pearson(x.view(), array![1.0, 2.0].view()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        stats::pearson(x.view(), array![1.0, 1.0, 1.0].view()),
        Err(Error::ZeroVariance { what: "y" })
    ));
    assert!(matches!(
        stats::spearman(array![2.0, 2.0, 2.0].view(), x.view()),
        Err(Error::ZeroVariance { what: "x" })
    ));
    assert!(matches!(
        stats::ranks(empty.view()),
        Err(Error::Empty { .. })
    ));
}
