//! Bad input: every public entry point returns its typed error, no panic.

mod common;

use diffusion_tempering::models::{LotkaVolterra, Pendulum};
use diffusion_tempering::rk::{L2Loss, RkConfig};
use diffusion_tempering::{
    Bounds, Error, FenrirLikelihood, FilterConfig, Grid, LbfgsConfig, Linearization, Observations,
    OdeFilter, Schedule, TemperedFit, metrics, minimize, simulate,
};
use mlcore::sampling::seeded;
use ndarray::Array2;

fn lv_obs() -> Observations {
    let times: Vec<f64> = (0..=20).map(|i| i as f64 * 0.1).collect();
    let proj = Observations::selector(&[0], 2).unwrap();
    simulate(
        &LotkaVolterra::two_param(),
        &[1.5, 1.0],
        0.0,
        times,
        proj,
        0.1,
        &mut seeded(1),
    )
    .unwrap()
}

#[test]
fn noise_and_diffusion_must_be_positive() {
    let y = Array2::zeros((2, 1));
    let h = Observations::selector(&[0], 2).unwrap();
    for s2 in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = Observations::new(vec![0.0, 1.0], y.clone(), h.clone(), s2).unwrap_err();
        assert!(matches!(e, Error::InvalidNoiseVariance(_)));
    }
    for k in [0.0, -1.0, f64::NAN] {
        assert!(matches!(
            OdeFilter::new(FilterConfig::default(), k),
            Err(Error::InvalidDiffusion(_))
        ));
    }
    let grid = Grid::uniform(0.0, 2.0, 0.1).unwrap();
    let lik = FenrirLikelihood::new(
        LotkaVolterra::two_param(),
        lv_obs(),
        grid,
        FilterConfig::default(),
    )
    .unwrap();
    assert!(matches!(
        lik.nll(&[1.5, 1.0], 0.0),
        Err(Error::InvalidDiffusion(_))
    ));
    assert!(matches!(
        lik.nll_grad(&[1.5, 1.0], -2.0),
        Err(Error::InvalidDiffusion(_))
    ));
    assert!(matches!(
        Schedule::geometric(1e20, 0.0, 21),
        Err(Error::InvalidDiffusion(_))
    ));
}

#[test]
fn invalid_order_is_rejected() {
    for q in [0, 8, 11] {
        let cfg = FilterConfig {
            order: q,
            linearization: Linearization::Ek1,
        };
        assert!(matches!(
            OdeFilter::new(cfg, 1.0),
            Err(Error::InvalidOrder { .. })
        ));
        let grid = Grid::uniform(0.0, 2.0, 0.1).unwrap();
        assert!(matches!(
            FenrirLikelihood::new(LotkaVolterra::two_param(), lv_obs(), grid, cfg),
            Err(Error::InvalidOrder { .. })
        ));
    }
}

#[test]
fn times_must_be_monotone_and_on_the_grid() {
    assert_eq!(
        Grid::new(vec![0.0, 1.0, 1.0]),
        Err(Error::NonMonotoneTimes { index: 2 })
    );
    assert_eq!(
        Grid::new(vec![0.0, f64::NAN]),
        Err(Error::NonMonotoneTimes { index: 1 })
    );
    let y = Array2::zeros((3, 1));
    let h = Observations::selector(&[0], 2).unwrap();
    assert_eq!(
        Observations::new(vec![0.0, 2.0, 1.0], y, h, 0.1),
        Err(Error::NonMonotoneTimes { index: 2 })
    );
    let grid = Grid::uniform(0.0, 2.0, 0.3).unwrap();
    let e = FenrirLikelihood::new(
        LotkaVolterra::two_param(),
        lv_obs(),
        grid,
        FilterConfig::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::TimeNotOnGrid { .. }));
    assert!(matches!(
        L2Loss::new(
            LotkaVolterra::two_param(),
            lv_obs(),
            0.5,
            RkConfig::default()
        ),
        Err(Error::InvalidParameter {
            name: "first data time",
            ..
        })
    ));
    assert!(matches!(
        L2Loss::new(
            LotkaVolterra::two_param(),
            lv_obs(),
            f64::NAN,
            RkConfig::default()
        ),
        Err(Error::InvalidParameter { name: "t0", .. })
    ));
}

#[test]
fn dimension_mismatches_are_reported() {
    let grid = Grid::uniform(0.0, 2.0, 0.1).unwrap();
    let lik = FenrirLikelihood::new(
        LotkaVolterra::two_param(),
        lv_obs(),
        grid.clone(),
        FilterConfig::default(),
    )
    .unwrap();
    assert!(matches!(
        lik.nll(&[1.5], 1.0),
        Err(Error::DimensionMismatch {
            expected: 2,
            got: 1,
            ..
        })
    ));
    // projection with 3 columns for a 2-state ODE
    let obs3 = Observations::new(
        vec![0.0, 0.1],
        Array2::zeros((2, 1)),
        Array2::ones((1, 3)),
        0.1,
    )
    .unwrap();
    assert!(matches!(
        FenrirLikelihood::new(
            LotkaVolterra::two_param(),
            obs3,
            grid,
            FilterConfig::default()
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    // values with 2 columns for a 1-row projection
    assert!(matches!(
        Observations::new(
            vec![0.0, 0.1],
            Array2::zeros((2, 2)),
            Array2::ones((1, 2)),
            0.1
        ),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        Observations::selector(&[2], 2),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        metrics::rel_param_rmse(&[1.0], &[1.0, 2.0]),
        Err(Error::DimensionMismatch { .. })
    ));
    let sol = OdeFilter::new(FilterConfig::default(), 1.0).unwrap();
    assert!(matches!(
        sol.solve(
            &Pendulum::default(),
            &[1.0, 2.0],
            &Grid::uniform(0.0, 1.0, 0.1).unwrap()
        ),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn nan_right_hand_side_names_the_step() {
    let m = common::Explodes { t_nan: 0.45 };
    let grid = Grid::uniform(0.0, 1.0, 0.1).unwrap();
    let e = OdeFilter::new(FilterConfig::default(), 1.0)
        .unwrap()
        .solve(&m, &[1.0], &grid)
        .unwrap_err();
    assert!(matches!(e, Error::NonFinite { step: 5, .. }), "{e:?}");
    let obs = Observations::new(
        grid.times().to_vec(),
        Array2::zeros((11, 1)),
        Observations::selector(&[0], 1).unwrap(),
        0.1,
    )
    .unwrap();
    let lik = FenrirLikelihood::new(&m, obs, grid, FilterConfig::default()).unwrap();
    assert!(matches!(
        lik.nll(&[1.0], 1.0),
        Err(Error::NonFinite { step: 5, .. })
    ));
    assert!(matches!(
        lik.nll_grad(&[1.0], 1.0),
        Err(Error::NonFinite { step: 5, .. })
    ));
    assert!(matches!(
        lik.nll(&[f64::NAN], 1.0),
        Err(Error::NonFiniteInput {
            what: "parameters",
            index: 0
        })
    ));
}

#[test]
fn parameters_out_of_bounds_are_rejected() {
    let grid = Grid::uniform(0.0, 2.0, 0.1).unwrap();
    let lik = FenrirLikelihood::new(
        LotkaVolterra::two_param(),
        lv_obs(),
        grid,
        FilterConfig::default(),
    )
    .unwrap();
    let b = LotkaVolterra::two_param().bounds();
    let e = TemperedFit::default()
        .run(&lik, &b, &[6.0, 1.0])
        .unwrap_err();
    assert!(matches!(e, Error::ParamOutOfBounds { index: 0, .. }));
    assert!(matches!(
        Bounds::new(vec![1.0], vec![0.5]),
        Err(Error::ParamOutOfBounds { .. })
    ));
    let loss = L2Loss::new(
        LotkaVolterra::two_param(),
        lv_obs(),
        0.0,
        RkConfig::default(),
    )
    .unwrap();
    assert!(matches!(
        minimize(&loss, &b, &[1.0, -3.0], &LbfgsConfig::default()),
        Err(Error::ParamOutOfBounds { index: 1, .. })
    ));
    let bad = LbfgsConfig {
        max_iters: 0,
        ..LbfgsConfig::default()
    };
    assert!(matches!(
        minimize(&loss, &b, &[1.0, 1.0], &bad),
        Err(Error::InvalidParameter { .. })
    ));
    let no_rounds = LbfgsConfig {
        rounds: 0,
        ..LbfgsConfig::default()
    };
    assert!(matches!(
        minimize(&loss, &b, &[1.0, 1.0], &no_rounds),
        Err(Error::InvalidParameter { name: "rounds", .. })
    ));
    let bad_round_tol = LbfgsConfig {
        round_tol: diffusion_tempering::StageTol {
            abs: -1.0,
            rel: 0.0,
        },
        ..LbfgsConfig::default()
    };
    assert!(matches!(
        minimize(&loss, &b, &[1.0, 1.0], &bad_round_tol),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn empty_data_is_rejected() {
    let h = Observations::selector(&[0], 2).unwrap();
    assert_eq!(
        Observations::new(vec![], Array2::zeros((0, 1)), h, 0.1),
        Err(Error::EmptyData)
    );
    assert_eq!(Grid::new(vec![0.0]), Err(Error::EmptyData));
    assert!(matches!(
        Observations::selector(&[], 2),
        Err(Error::EmptyData)
    ));
    assert_eq!(Schedule::from_values(vec![]), Err(Error::EmptyData));
    assert!(matches!(
        metrics::rel_param_rmse(&[], &[]),
        Err(Error::EmptyData)
    ));
    assert!(matches!(
        Observations::new(
            vec![0.0],
            Array2::from_elem((1, 1), f64::NAN),
            Array2::ones((1, 2)),
            0.1
        ),
        Err(Error::NonFiniteInput { what: "values", .. })
    ));
}

/// Found by a hostile-input run: `simulate` accepted t0 = NaN and
/// observation times before t0 and returned numbers; `Grid::uniform` with a
/// tiny step or an overflowing span and `Schedule::geometric` with a huge
/// stage count aborted on allocation.
#[test]
fn hostile_run_regressions() {
    let lv = LotkaVolterra::two_param();
    let sim = |t0: f64, times: Vec<f64>| {
        simulate(
            &lv,
            &[1.5, 1.0],
            t0,
            times,
            Observations::selector(&[0], 2).unwrap(),
            0.1,
            &mut seeded(2),
        )
    };
    assert!(matches!(
        sim(f64::NAN, vec![0.5, 1.0]),
        Err(Error::InvalidParameter { name: "t0", .. })
    ));
    assert!(matches!(
        sim(1.0, vec![0.5, 1.5]),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        sim(0.0, vec![1.0, 0.5]),
        Err(Error::NonMonotoneTimes { index: 1 })
    ));
    assert!(sim(0.0, vec![0.0, 0.5]).is_ok());
    assert!(matches!(
        Grid::uniform(0.0, 1e6, 1e-12),
        Err(Error::Core(mlcore::Error::TooLarge { .. }))
    ));
    assert!(Grid::uniform(-1e308, 1e308, 1.0).is_err());
    assert!(matches!(
        Schedule::geometric(1e6, 1.0, usize::MAX),
        Err(Error::Core(mlcore::Error::TooLarge { .. }))
    ));
    assert_eq!(Grid::uniform(0.0, 1.0, 0.25).unwrap().len(), 5);
}
