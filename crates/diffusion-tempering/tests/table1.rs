//! Table 1's multi-start runner: parallel (rayon) and serial runs give the
//! same results start by start, and the rows carry the paper's values.

use diffusion_tempering::table1::{Estimators, Parallelism, System, run_row};
use diffusion_tempering::{LbfgsConfig, Schedule};

/// A cheap version of the official estimators (3 stages, few iterations).
fn cheap() -> Estimators {
    let mut est = Estimators::official(Schedule::geometric(1e4, 1.0, 3).unwrap(), true);
    let cap = |c: LbfgsConfig| LbfgsConfig { max_iters: 8, ..c };
    est.tempering.stage = cap(est.tempering.stage);
    est.tempering.last = cap(est.tempering.last);
    est.l2.lbfgs = cap(est.l2.lbfgs);
    if let Some(l) = est.learned.as_mut() {
        l.lbfgs = cap(l.lbfgs);
    }
    est
}

#[test]
fn rayon_and_serial_runs_are_identical() {
    let est = cheap();
    let par = run_row(
        System::Pendulum,
        &est,
        0.1,
        6,
        4,
        Parallelism::Rayon,
        &|| {},
    )
    .unwrap();
    let ser = run_row(
        System::Pendulum,
        &est,
        0.1,
        6,
        4,
        Parallelism::Serial,
        &|| {},
    )
    .unwrap();
    assert_eq!(par, ser);
    assert_eq!(par.converged.len(), 6);
    for k in 0..3 {
        assert_eq!(
            par.successes[k],
            par.converged.iter().filter(|c| c[k]).count()
        );
    }
}

/// Table 1 of the paper (tempering column), as printed.
#[test]
fn rows_carry_table_1() {
    let temp: Vec<f64> = System::ALL
        .iter()
        .map(|s| s.paper().unwrap().tempering)
        .collect();
    assert_eq!(temp, [1.00, 0.77, 0.43, 1.00, 1.00, 0.99, 1.00, 0.88]);
    assert_eq!(System::TwoCompartment(6).paper().unwrap().rk, 0.0);
    assert!(System::HodgkinHuxley(4).paper().is_none());
}

/// Bad input: a step that is not positive, or more starts than memory holds.
#[test]
fn bad_rows_are_typed_errors() {
    use diffusion_tempering::Error;
    let est = cheap();
    for dt in [f64::NAN, -0.1, 0.0, 1e300] {
        assert!(matches!(
            run_row(
                System::Pendulum,
                &est,
                dt,
                2,
                1,
                Parallelism::Serial,
                &|| {}
            ),
            Err(Error::InvalidParameter { .. })
        ));
    }
    assert!(matches!(
        run_row(
            System::LotkaVolterra4,
            &est,
            0.1,
            usize::MAX / 2,
            1,
            Parallelism::Rayon,
            &|| {}
        ),
        Err(Error::Core(mlcore::Error::TooLarge { .. }))
    ));
}
