//! Known optima of the test functions, and a bad-input check.

use lookahead_mlmc::Error;
use lookahead_mlmc::testfns::TestFunction;

/// Branin at its three minimisers, Hartmann-6 at its minimiser, Ackley at 0,
/// the 1-D toy at 2.000874: the stored optimum (maximisation form) to 1e-5.
#[test]
fn test_functions_attain_their_known_optima() {
    let b = TestFunction::branin();
    for x in [
        [-std::f64::consts::PI, 12.275],
        [std::f64::consts::PI, 2.275],
        [9.42478, 2.475],
    ] {
        assert!((b.eval(&x).unwrap() - b.optimum).abs() < 1e-5);
    }
    let h = TestFunction::hartmann6();
    let xh = [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573];
    assert!((h.eval(&xh).unwrap() - h.optimum).abs() < 1e-5);
    let a = TestFunction::ackley(5, 1.0).unwrap();
    assert!(a.eval(&[0.0; 5]).unwrap().abs() < 1e-12);
    assert!(a.eval(&[0.3; 5]).unwrap() < 0.0);
    let t = TestFunction::toy1d();
    assert!((t.optimum - 1.4019).abs() < 1e-4);
    for k in 0..2001 {
        let x = -10.0 + 0.01 * k as f64;
        assert!(t.eval(&[x]).unwrap() <= t.optimum + 1e-12);
    }
}

#[test]
fn test_function_dimension_is_checked() {
    let h = TestFunction::hartmann6();
    assert!(matches!(
        h.eval(&[0.5; 3]),
        Err(Error::DimensionMismatch { .. })
    ));
    assert!(matches!(
        TestFunction::ackley(0, 1.0),
        Err(Error::InvalidBatchSize { .. })
    ));
    assert!(matches!(
        TestFunction::ackley(2, -1.0),
        Err(Error::InvalidBounds { .. })
    ));
}

/// The BO loop on 2-D Branin with EI: points stay in the box, the best value
/// is non-decreasing and the same seed gives the same trace.
#[test]
fn bo_loop_on_branin_is_monotone_and_reproducible() {
    use lookahead_mlmc::bo::{BoConfig, run_bo};
    use mlcore::sampling::seeded;
    let f = TestFunction::branin();
    let cfg = BoConfig {
        n_init: 4,
        iterations: 4,
        ..BoConfig::default()
    };
    let a = run_bo(&f, &cfg, &mut seeded(3)).unwrap();
    let b = run_bo(&f, &cfg, &mut seeded(3)).unwrap();
    assert_eq!((&a.x, &a.y, &a.best), (&b.x, &b.y, &b.best));
    assert_eq!(a.y.len(), 8);
    assert!(a.best.windows(2).all(|w| w[1] >= w[0]));
    for x in &a.x {
        assert!(x[0] >= -5.0 && x[0] <= 10.0 && x[1] >= 0.0 && x[1] <= 15.0);
    }
    assert!(a.regret(f.optimum).iter().all(|&r| r >= -1e-9));
}
